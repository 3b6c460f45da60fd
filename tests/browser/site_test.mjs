// Browser test of `ladle site`: builds the site with the ladle binary, opens it in Debian's headless
// Chromium through playwright-core (no browser download), and checks what a reader relies on: the
// index lists every recipe, sorting by tokens/s per GPU reorders the rows, the model filter hides
// the other models, a recipe page shows its facts, its prediction with the interval beside the measured
// figure and its charts (loss, step time, a tuned recipe's trials), a model page plots its recipes
// against GPU count with memory per stage, chart labels are never cut, the copy button works, the page reads
// with JavaScript off and on a phone width, hostile recipe text stays text, and no console error
// appears. Screenshots go to <work>/screenshots.
//
// Usage: node site_test.mjs --ladle <ladle binary> --work <scratch folder> [--fixtures <recipes dir>]
//        [--engine <ladle_fake_engine>]  (the stand-in engine that `ladle tune` runs for the tuned recipe)
// Exit codes: 0 all passed, 1 a check failed, 77 skipped (no Chromium or no node_modules) unless
// LADLE_BROWSER_REQUIRED=1, which turns a skip into a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const kSkip = 77;
const required = process.env.LADLE_BROWSER_REQUIRED === '1';
const chromiumPath = process.env.LADLE_CHROMIUM || '/usr/bin/chromium';
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function skip(why) {
  console.log(`site browser test: ${required ? 'cannot run' : 'skipped'}: ${why}`);
  process.exit(required ? 1 : kSkip);
}

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.ladle || !args.work) {
  console.error('usage: node site_test.mjs --ladle BIN --work DIR [--fixtures DIR]');
  process.exit(2);
}
if (!fs.existsSync(chromiumPath)) skip(`no Chromium at ${chromiumPath} (bash scripts/setup.sh --browser)`);
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  skip('playwright-core is not installed (npm ci in tests/browser)');
}

let passed = 0;
let failed = 0;
function check(ok, what, detail = '') {
  if (ok) {
    passed += 1;
    console.log(`ok   ${what}`);
  } else {
    failed += 1;
    console.log(`FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
}

const work = path.resolve(args.work);
const shots = path.join(work, 'screenshots');
fs.mkdirSync(shots, { recursive: true });

function buildSite(name, extra) {
  const out = path.join(work, name);
  const json = execFileSync(args.ladle, ['site', ...extra, '--out', out, '--json'], { encoding: 'utf8' });
  return { out, report: JSON.parse(json) };
}

const consoleErrors = [];
const dialogs = [];
function watch(page) {
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
  page.on('requestfailed', (req) => consoleErrors.push(`${page.url()}: request failed ${req.url()}`));
  page.on('dialog', (dialog) => {
    dialogs.push(`${page.url()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  return page;
}

async function openContext(options) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ladle-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: { width: 1280, height: 900 },
    ...options,
  });
  return { context, userDataDir };
}

async function closeContext({ context, userDataDir }) {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

const url = (root, rel) => pathToFileURL(path.join(root, rel)).href;

// Chart labels are never cut: every text of every chart lies inside its SVG's box.
async function checkChartLabels(page, what) {
  const cut = await page.$$eval('figure.chart svg', (svgs) => svgs.flatMap((svg) => {
    const box = svg.getBoundingClientRect();
    return Array.from(svg.querySelectorAll('text')).filter((t) => {
      const r = t.getBoundingClientRect();
      return r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
                             r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5);
    }).map((t) => `${svg.closest('figure').id}: ${t.textContent}`);
  }));
  check(cut.length === 0, `no chart label is cut on ${what}`, cut.join(' | '));
}

// Chart text is never drawn below 10 px: its font size times the SVG's scale on screen.
async function checkChartTextSize(page, what) {
  const small = await page.$$eval('figure.chart svg', (svgs) => svgs.flatMap((svg) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return Array.from(svg.querySelectorAll('text')).map((t) => ({
      id: svg.closest('figure').id, text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale,
    })).filter((t) => t.px < 10 - 1e-6).map((t) => `${t.id}: '${t.text}' ${t.px.toFixed(1)}px`);
  }));
  check(small.length === 0, `no chart text below 10 px on ${what}`, small.slice(0, 5).join(' | '));
}

async function chartIds(page) {
  return page.$$eval('figure.chart', (fs) => fs.map((f) => f.id));
}

// No external script, style sheet or image: the site is complete offline.
async function checkNoExternal(page, what) {
  const external = await page.$$eval('script[src], link[href], img[src]', (es) => es
    .map((e) => e.getAttribute('src') || e.getAttribute('href'))
    .filter((u) => /^(https?:)?\/\//i.test(u)));
  check(external.length === 0, `${what} loads nothing from another site`, external.join(' '));
}
const tokensColumn = 3;  // 0-based: model, GPUs, layout, tokens/s per GPU

async function columnValues(page, column) {
  return page.$$eval('#recipes tbody tr', (rows, c) => rows.filter((r) => !r.hidden).map((r) => {
    const v = r.cells[c].getAttribute('data-value');
    return v === '' || v === null ? null : Number(v);
  }), column);
}

async function rowOrder(page) {
  return page.$$eval('#recipes tbody tr', (rows) => rows.map((r) => r.cells[2].textContent.trim()));
}

async function testIndex(context, site) {
  const { out, report } = site;
  const page = watch(await context.newPage());
  await page.goto(url(out, 'index.html'));
  const rows = await page.$$eval('#recipes tbody tr', (trs) => trs.map((tr) => ({
    model: tr.getAttribute('data-model'),
    page: tr.cells[2].querySelector('a').getAttribute('href'),
  })));
  check(rows.length === report.recipes.length && rows.length > 0, 'index lists every recipe',
    `${rows.length} rows, ${report.recipes.length} recipes`);
  check(report.recipes.every((r) => rows.some((row) => row.page === r.page)), 'every recipe page is linked');
  check(await page.isVisible('#filters'), 'filters are shown with JavaScript on');
  await checkNoExternal(page, 'index');

  const before = await rowOrder(page);
  await page.click('#recipes thead th:nth-child(4) button');
  const desc = await columnValues(page, tokensColumn);
  const descOrder = await rowOrder(page);
  const expectedDesc = report.recipes.map((r) => r.tokens_per_s_per_gpu)
    .sort((a, b) => (a === null) - (b === null) || b - a);
  check(JSON.stringify(desc) === JSON.stringify(expectedDesc), 'sort by tokens/s per GPU puts the fastest first',
    `${desc} vs ${expectedDesc}`);
  check(await page.getAttribute('#recipes thead th:nth-child(4)', 'aria-sort') === 'descending', 'sorted column says so');
  await page.click('#recipes thead th:nth-child(4) button');
  const asc = await columnValues(page, tokensColumn);
  const ascOrder = await rowOrder(page);
  const numbers = asc.filter((v) => v !== null);
  check(numbers.every((v, i) => i === 0 || numbers[i - 1] <= v), 'second click sorts slowest first', `${asc}`);
  const distinct = new Set(report.recipes.map((r) => r.tokens_per_s_per_gpu)).size > 1;
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  check(distinct && (!same(descOrder, before) || !same(ascOrder, before)) && !same(descOrder, ascOrder),
    'sorting reorders the rows', `before ${before} | desc ${descOrder} | asc ${ascOrder}`);

  const models = [...new Set(report.recipes.map((r) => r.model))].sort();
  const model = models[0];
  await page.selectOption('#filter-model', model);
  const visible = await page.$$eval('#recipes tbody tr', (trs) => trs.filter((tr) => !tr.hidden && tr.offsetParent !== null)
    .map((tr) => tr.getAttribute('data-model')));
  const want = report.recipes.filter((r) => r.model === model).length;
  check(visible.length === want && visible.every((m) => m === model), `model filter '${model}' hides the others`,
    `${visible.length} visible, want ${want}`);
  const outputText = await page.textContent('#filters output');
  check(outputText === `${want} of ${report.recipes.length} recipes shown`, 'filter says how many rows it shows', outputText);
  await page.selectOption('#filter-model', '');
  await page.click('#recipes thead th:nth-child(4) button');
  await page.screenshot({ path: path.join(shots, 'index-wide.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, 'index fits a phone width (the table scrolls inside its box)', `${overflow}px too wide`);
  // The key column stays in view without scrolling the table sideways.
  const keyColumn = await page.evaluate(() => {
    const cell = document.querySelector('#recipes thead th:nth-child(4)');
    const box = cell.getBoundingClientRect();
    const wrap = cell.closest('.table-wrap').getBoundingClientRect();
    return { right: box.right, visibleRight: Math.min(wrap.right, window.innerWidth), shown: box.width > 0 };
  });
  check(keyColumn.shown && keyColumn.right <= keyColumn.visibleRight + 0.5,
        'tokens/s per GPU is visible at phone width without scrolling', JSON.stringify(keyColumn));
  // Model, GPUs, tokens/s per GPU and $ per 1M all stay in view.
  const keyColumns = await page.evaluate(() => [1, 2, 4, 5].map((n) => {
    const cell = document.querySelector(`#recipes thead th:nth-child(${n})`);
    const box = cell.getBoundingClientRect();
    const wrap = cell.closest('.table-wrap').getBoundingClientRect();
    return { n, text: cell.textContent, shown: box.width > 0, inView: box.right <= Math.min(wrap.right, window.innerWidth) + 0.5 };
  }));
  check(keyColumns.every((c) => c.shown && c.inView), 'model, GPUs, tokens/s per GPU and $/1M stay in view at 390 px',
        JSON.stringify(keyColumns));
  if (await page.$('#frontier')) {
    const frontierRows = await page.$$eval('#frontier tbody tr', (trs) => trs.length);
    check(frontierRows > 0, 'the index lists the predicted frontier', `${frontierRows} rows`);
  }
  await page.screenshot({ path: path.join(shots, 'index-phone.png'), fullPage: true });
  await page.close();
}

async function testRecipePage(context, site, recipe, shotName) {
  const page = watch(await context.newPage());
  await page.goto(url(site.out, recipe.page));
  const h1 = await page.textContent('h1');
  check(h1 === `Training ${recipe.model} on ${recipe.gpu}`, `recipe page title '${h1}'`);
  const tokens = await page.textContent('dd[data-fact="tokens-per-s-per-gpu"]');
  if (recipe.tokens_per_s_per_gpu !== null) {
    const shown = Number(tokens.replace(/,/g, ''));
    check(Math.abs(shown - recipe.tokens_per_s_per_gpu) < 0.005, 'recipe page shows tokens/s per GPU', tokens);
  }
  // A planned recipe names no training rows yet, so its page has no Rows fact.
  const facts = recipe.status === 'planned' ? ['author', 'gpus', 'layout'] : ['author', 'gpus', 'layout', 'rows'];
  for (const fact of facts) {
    const text = await page.textContent(`dd[data-fact="${fact}"]`).catch(() => '');
    check(text && text.trim().length > 0, `recipe page shows fact '${fact}'`);
  }
  const charts = await page.$$eval('figure.chart svg', (svgs) => svgs.map((svg) => {
    const box = svg.getBoundingClientRect();
    return { id: svg.closest('figure').id, width: box.width, height: box.height,
      title: svg.querySelector('title')?.textContent || '', label: svg.getAttribute('aria-labelledby') };
  }));
  check(charts.length >= 1 && charts.every((c) => c.width > 200 && c.height > 100 && c.title && c.label),
    'recipe page draws titled charts', JSON.stringify(charts));
  if (recipe.loss_chart) check(charts.some((c) => c.id === 'chart-loss'), 'recipe page draws the loss curves');
  if (recipe.step_time_chart) check(charts.some((c) => c.id === 'chart-step-time'), 'recipe page draws the step times');
  if (recipe.predicted_tokens_per_s_per_gpu !== null) {
    // Predicted against measured, with the interval, right after the measured figure.
    const beside = await page.$$eval('dl.facts dd', (dds) => {
      const i = dds.findIndex((d) => d.getAttribute('data-fact') === 'predicted-tokens-per-s-per-gpu');
      return i < 0 ? null : { previous: dds[i - 1]?.getAttribute('data-fact'), text: dds[i].textContent };
    });
    check(beside && beside.previous === 'tokens-per-s-per-gpu' && /80% interval/.test(beside.text),
      'predicted tokens/s per GPU and its interval sit beside the measured figure', JSON.stringify(beside));
    if (recipe.tokens_per_s_per_gpu !== null) {
      check(/(inside|below|above) the interval/.test(beside?.text || ''), 'the page says where the measurement falls',
        beside?.text);
    }
    check(charts.some((c) => c.id === 'chart-step-breakdown'), 'recipe page draws the predicted step time by part');
  }
  if (recipe.tune_trials > 0) {
    check(charts.some((c) => c.id === 'chart-trials'), 'tuned recipe page draws its trials');
    const rows = await page.$$eval('#trials-table tbody tr', (trs) => trs.length);
    check(rows === recipe.tune_trials, 'tuned recipe page lists every trial', `${rows} rows, ${recipe.tune_trials} trials`);
    const series = await page.$$eval('#chart-trials svg text', (ts) => ts.map((t) => t.textContent));
    check(['predicted when proposed', 'measured', 'best measured so far'].every((n) => series.includes(n)),
      'trials chart shows predicted, measured and the best so far', series.join(' | '));
    const rounds = await page.$$eval('#trials-table tbody tr', (trs) => trs.map((tr) => Number(tr.cells[0].textContent)));
    check(rounds.every((r, i) => i === 0 || rounds[i - 1] <= r) && new Set(rounds).size > 1,
      'trials are listed by round', `${rounds}`);
  }
  await checkChartLabels(page, `${shotName} at desktop width`);
  await checkNoExternal(page, shotName);
  const script = await page.textContent('#run-script');
  check(script.length > 0, 'run script is shown');
  await page.click('button.copy');
  const copied = await page.waitForFunction(() => document.querySelector('button.copy').textContent === 'Copied',
    null, { timeout: 5000 }).then(() => true, () => false);
  check(copied, 'copy button copies the run script');
  const download = await page.getAttribute('a.download', 'href');
  check(download && fs.existsSync(path.join(site.out, path.dirname(recipe.page), download)), 'YAML download exists');
  await page.screenshot({ path: path.join(shots, `${shotName}-wide.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, 'recipe page fits a phone width', `${overflow}px too wide`);
  await checkChartLabels(page, `${shotName} at phone width`);
  await checkChartTextSize(page, `${shotName} at phone width`);
  await page.screenshot({ path: path.join(shots, `${shotName}-phone.png`), fullPage: true });
  const levels = await page.$$eval('h1, h2, h3, h4, h5, h6', (hs) => hs.map((h) => Number(h.tagName[1])));
  check(levels[0] === 1 && levels.every((l, i) => i === 0 || l <= levels[i - 1] + 1), 'headings are in order', `${levels}`);
  await page.close();
}

async function testModelPage(context, site) {
  const page = watch(await context.newPage());
  const model = site.report.models[0];
  await page.goto(url(site.out, model.page));
  const ids = await chartIds(page);
  check(ids.includes('chart-tokens') && ids.includes('chart-usd'), `model page '${model.name}' has both bar charts`);
  check(ids.includes('chart-tokens-by-gpus') && ids.includes('chart-usd-by-gpus'),
    'model page plots tokens/s per GPU and $ per 1M against GPU count', ids.join(' '));
  const counts = [...new Set(site.report.recipes.filter((r) => r.model === model.name).map((r) => r.gpu_count))];
  const points = await page.$$eval('#chart-tokens-by-gpus table.chart-data tbody tr', (trs) => trs.length);
  check(points === counts.length, 'one point per GPU count', `${points} points, ${counts.length} GPU counts`);
  const predicted = site.report.recipes.some((r) => r.model === model.name && r.predicted_tokens_per_s_per_gpu !== null);
  if (predicted) {
    check(ids.includes('chart-stage-memory'), 'model page shows predicted memory per pipeline stage');
    const unit = await page.textContent('#chart-stage-memory svg').catch(() => '');
    check(/GiB per GPU/.test(unit), 'memory per stage is labelled in GiB');
  }
  await checkNoExternal(page, 'model page');
  const bars = await page.$$eval('#chart-tokens .bars rect', (rs) => rs.length);
  const want = site.report.recipes.filter((r) => r.model === model.name && r.tokens_per_s_per_gpu !== null).length;
  check(bars >= want && want > 0, 'one bar per measured layout', `${bars} bars, ${want} layouts`);
  // How many GPUs: the planner's sweep with its interval, the measured recipes as points on the same axes.
  const sweepIds = ids.filter((id) => id.startsWith('chart-sweep-'));
  check(['tokens', 'usd', 'days'].every((k) => sweepIds.some((id) => id.startsWith(`chart-sweep-${k}-`))),
    'model page plots the predicted sweep: tokens/s per GPU, $ per 1M and days against GPU count', sweepIds.join(' '));
  const sweepTokens = sweepIds.find((id) => id.startsWith('chart-sweep-tokens-'));
  if (sweepTokens) {
    const bands = await page.$$eval(`#${sweepTokens} .intervals polygon`, (ps) => ps.length);
    check(bands === 1, 'the sweep shades its 80% interval', `${bands} bands`);
    const sweepRows = await page.$$eval(`#${sweepTokens} table.chart-data tbody tr`, (trs) => trs.length);
    check(sweepRows >= 4, 'the sweep covers several GPU counts', `${sweepRows} counts`);
    const markers = await page.$$eval(`#${sweepTokens} rect.marker`, (rs) => rs.length);
    const measured = site.report.recipes.filter((r) => r.model === model.name && r.tokens_per_s_per_gpu !== null).length;
    check(markers === measured, 'each measured recipe is a point on the sweep', `${markers} points, ${measured} recipes`);
  }
  if (predicted) {
    const limit = await page.$$eval('#chart-stage-memory line.limit', (ls) => ls.map((l) => l.textContent));
    check(limit.length === 1 && /usable/.test(limit[0]), 'the memory chart draws the GPU\'s usable capacity', limit.join(' '));
  }
  await page.screenshot({ path: path.join(shots, 'model-wide.png'), fullPage: true });
  const sweep = page.locator('section.sweep').first();
  if (await sweep.count()) await sweep.screenshot({ path: path.join(shots, 'model-sweep-wide.png') });
  await checkChartLabels(page, 'the model page at desktop width');
  await checkChartTextSize(page, 'the model page at desktop width');
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, 'model page fits a phone width', `${overflow}px too wide`);
  await checkChartLabels(page, 'the model page at phone width');
  await checkChartTextSize(page, 'the model page at phone width');
  await page.screenshot({ path: path.join(shots, 'model-phone.png'), fullPage: true });
  if (await sweep.count()) await sweep.screenshot({ path: path.join(shots, 'model-sweep-phone.png') });
  await page.close();
}

async function testWithoutScript(site) {
  const ctx = await openContext({ javaScriptEnabled: false });
  const page = watch(await ctx.context.newPage());
  await page.goto(url(site.out, 'index.html'));
  const rows = await page.$$eval('#recipes tbody tr', (trs) => trs.filter((tr) => tr.offsetParent !== null).length);
  check(rows === site.report.recipes.length, 'without JavaScript every row is there');
  check(!(await page.isVisible('#filters')), 'without JavaScript the filters stay out of the way');
  await page.goto(url(site.out, site.report.recipes[0].page));
  check(!(await page.isVisible('button.copy')), 'without JavaScript there is no dead copy button');
  await page.close();
  await closeContext(ctx);
}

async function testHostile(context, site) {
  for (const recipe of site.report.recipes) {
    const page = watch(await context.newPage());
    await page.goto(url(site.out, recipe.page));
    await page.hover('h1');
    const pwned = await page.evaluate(() => window.__pwned);
    check(pwned === undefined, `no injected script ran on ${recipe.page}`);
    const h1 = await page.textContent('h1');
    check(h1 === `Training ${recipe.model} on ${recipe.gpu}`, 'hostile model name shows as text', h1);
    const links = await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href')));
    check(links.every((href) => !/^\s*javascript:/i.test(href)), 'no javascript: link', links.join(' '));
    await page.close();
  }
  const index = watch(await context.newPage());
  await index.goto(url(site.out, 'index.html'));
  check(await index.evaluate(() => window.__pwned) === undefined, 'no injected script ran on the index');
  await index.close();
}

let exitCode = 0;
try {
  const site = buildSite('site', []);
  const fixtures = args.fixtures ? buildSite('site-fixtures', ['--recipes', args.fixtures, '--sweep', 'none']) : null;
  const ctx = await openContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  try {
    await testIndex(ctx.context, site);
    // The recipe with the most to show: charts from logs first, then the first one.
    const first = site.report.recipes[0];
    await testRecipePage(ctx.context, site, first, 'recipe');
    await testModelPage(ctx.context, site);
    // A planned recipe, as `ladle plan --emit` writes it (no measured result yet).
    const plannedDir = path.join(work, 'planned-recipes', 'glm-4.7-flash', 'h200');
    fs.mkdirSync(plannedDir, { recursive: true });
    execFileSync(args.ladle, ['plan', 'glm-4.7-flash', '--gpu', 'h200', '--gpus', '8', '--json',
                              '--emit', path.join(plannedDir, 'planned.yaml')], { encoding: 'utf8' });
    const planned = buildSite('site-planned', ['--recipes', path.join(work, 'planned-recipes'), '--sweep', 'none']);
    check(planned.report.recipes[0].status === 'planned', 'the emitted recipe is planned', planned.report.recipes[0].status);
    await testRecipePage(ctx.context, planned, planned.report.recipes[0], 'planned-recipe');
    // A tuned recipe, as `ladle tune` writes it (recipe.yaml beside tune.db), on the local back-end with
    // the stand-in engine of the tune tests.
    if (args.engine && fs.existsSync(args.engine)) {
      const tunedDir = path.join(work, 'tuned-recipes', 'glm-4.7-flash', 'h200');
      fs.mkdirSync(path.dirname(tunedDir), { recursive: true });
      execFileSync(args.ladle, ['tune', '--model', 'glm-4.7-flash', '--gpu', 'h200', '--gpus', '8', '--engine', 'slime',
        '--backend', 'local', '--out', tunedDir, '--budget', '8', '--engine-program', args.engine,
        '--start', 'tp=4,pp=1,cp=1,ep=8,etp=1,dp=2,sp=on,recompute=full:uniform:1,offload=1,overlap=on,' +
        'precision_aware=on,max_tokens=32768,rows_per_mb=4'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, FAKE_ENGINE_STATE: path.join(work, 'tuned-engine') } });
      const tuned = buildSite('site-tuned', ['--recipes', path.join(work, 'tuned-recipes'), '--sweep', 'none']);
      check(tuned.report.recipes[0].tune_trials > 0, 'the tuned recipe carries its trials', `${tuned.report.recipes[0].tune_trials}`);
      await testRecipePage(ctx.context, tuned, tuned.report.recipes[0], 'tuned-recipe');
    } else {
      check(false, 'the stand-in engine for the tuned recipe is there', `${args.engine}`);
    }
    if (fixtures) {
      const withLogs = fixtures.report.recipes.find((r) => r.loss_chart) || fixtures.report.recipes[0];
      await testRecipePage(ctx.context, fixtures, withLogs, 'fixture-recipe');
      await testHostile(ctx.context, fixtures);
    }
  } finally {
    await closeContext(ctx);
  }
  await testWithoutScript(site);
  check(consoleErrors.length === 0, 'no console errors', consoleErrors.join('\n'));
  check(dialogs.length === 0, 'no dialogs opened', dialogs.join('\n'));
} catch (e) {
  failed += 1;
  console.log(`FAIL ${e.stack || e}`);
}
console.log(`screenshots: ${shots}`);
console.log(`${passed} passed, ${failed} failed`);
exitCode = failed ? 1 : 0;
process.exit(exitCode);
