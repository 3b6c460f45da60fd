#include "ladle/site/assets.hpp"

namespace ladle::site {

std::string_view site_css() {
  return R"css(/* ladle site: one style sheet for every page. */
:root { --fg: #161616; --muted: #555; --line: #d8d8d8; --accent: #1f5fa8; --bg-alt: #f6f7f9;
  --pass: #1d6b34; --fail: #a3261b; --pending: #7a5b00; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--fg); background: #fff; line-height: 1.5;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, select:focus-visible, summary:focus-visible {
  outline: 3px solid #f0b400; outline-offset: 2px; }
.site-header { border-bottom: 1px solid var(--line); background: var(--bg-alt); }
.site-header .inner, main, .site-footer { max-width: 76rem; margin: 0 auto; padding: 0 1rem; }
.site-header .inner { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; align-items: baseline;
  padding-top: .6rem; padding-bottom: .6rem; }
.site-header .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
.site-header nav a { margin-right: 1rem; }
h1 { font-size: 1.7rem; line-height: 1.25; margin: 1.2rem 0 .4rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
.lede { color: var(--muted); margin-top: 0; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: .45rem .6rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--bg-alt); white-space: nowrap; font-size: .9rem; }
td.num, th.num { text-align: right; white-space: nowrap; }
tbody tr:hover { background: #fafbfd; }
th button.sort { font: inherit; font-weight: 700; background: none; border: 0; padding: 0; cursor: pointer;
  color: inherit; text-align: inherit; }
th button.sort::after { content: " \2195"; color: #999; }
th[aria-sort="ascending"] button.sort::after { content: " \2191"; color: var(--fg); }
th[aria-sort="descending"] button.sort::after { content: " \2193"; color: var(--fg); }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: .8rem 0; }
.filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
.filters select { font: inherit; font-size: 1rem; padding: .25rem; min-width: 10rem; }
.filters output { font-size: .9rem; color: var(--muted); }
.status, .result { display: inline-block; padding: 0 .4rem; border-radius: 3px; font-size: .85rem;
  font-weight: 600; border: 1px solid currentColor; }
.status-verified, .result-pass { color: var(--pass); }
.tag { display: inline-block; padding: 0 .3rem; margin-left: .3rem; border: 1px solid var(--accent);
  border-radius: 3px; font-size: .8rem; color: var(--accent); white-space: nowrap; }
.status-card { font-size: .85rem; border: 1px solid var(--line); border-radius: 3px; padding: 0 .3rem; }
.status-measured, .status-planned, .result-pending { color: var(--pending); }
.result-fail { color: var(--fail); }
dl.facts { display: grid; grid-template-columns: minmax(9rem, 14rem) minmax(0, 1fr); margin: 0; border-top: 1px solid var(--line); }
dl.facts dt, dl.facts dd { margin: 0; padding: .5rem .4rem; border-bottom: 1px solid var(--line); }
dl.facts dt { font-weight: 600; }
.note { color: var(--muted); font-size: .9rem; }
code { overflow-wrap: anywhere; }
pre code { overflow-wrap: normal; }
dl.facts dd, dl dd { min-width: 0; overflow-wrap: anywhere; }
code.hash { word-break: break-all; font-size: .85rem; }
pre { background: #f4f4f2; border: 1px solid var(--line); border-radius: 4px; padding: .8rem; overflow-x: auto;
  font-size: .85rem; line-height: 1.45; }
.code-head { display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; }
button.copy, a.download { font: inherit; font-size: .9rem; padding: .25rem .7rem; border: 1px solid var(--accent);
  border-radius: 4px; background: #fff; color: var(--accent); cursor: pointer; text-decoration: none; }
figure.chart { margin: 1rem 0 1.5rem; max-width: 640px; min-width: 0; }
figure.chart svg { display: block; width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figure.chart figcaption { font-size: .9rem; margin-top: .3rem; overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 560px), 1fr)); gap: 0 2rem; }
table.chart-data { width: auto; font-size: .85rem; }
.notes { overflow-wrap: anywhere; }
.notes p, .notes li { max-width: 60rem; }
.notes li { margin-bottom: .4rem; }
.site-footer { color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line); margin-top: 3rem;
  padding-top: .8rem; padding-bottom: 2rem; }
@media (max-width: 600px) {
  body { font-size: 15px; }
  h1 { font-size: 1.4rem; }
  dl.facts { grid-template-columns: minmax(0, 1fr); }
  dl.facts dt { border-bottom: 0; padding-bottom: 0; color: var(--muted); font-size: .85rem; }
  .filters select { min-width: 8rem; }
  /* The index keeps model, GPUs, tokens/s per GPU and $ per 1M on screen: layout, MFU, CV, status
     and the measured date wait for a wider screen (each recipe's page has them all). */
  #recipes th:nth-child(3), #recipes td:nth-child(3), #recipes th:nth-child(6), #recipes td:nth-child(6),
  #recipes th:nth-child(7), #recipes td:nth-child(7), #recipes th:nth-child(8), #recipes td:nth-child(8),
  #recipes th:nth-child(9), #recipes td:nth-child(9), #frontier th:nth-child(5), #frontier td:nth-child(5) {
    display: none; }
  /* Chart text is 12 px in a 640-unit drawing: at least 540 px wide keeps it at 10 px or more, and
     the chart scrolls inside its figure instead of shrinking. */
  figure.chart { overflow-x: auto; }
  figure.chart svg { min-width: 540px; }
  #recipes td, #recipes th, #frontier td, #frontier th { overflow-wrap: anywhere; padding-left: .3rem;
    padding-right: .3rem; }
  #recipes thead th, #frontier thead th, #recipes th.num, #frontier th.num { white-space: normal; }
  th button.sort { text-align: inherit; }
}
@media print { .filters, button.copy, .site-header nav { display: none; } }
)css";
}

std::string_view site_js() {
  return R"js(// ladle site: sorting and filters on the recipe table, copy buttons. Pages read without it.
(function () {
  'use strict';

  function cellKey(row, index, type) {
    var cell = row.cells[index];
    var raw = cell.getAttribute('data-value');
    if (raw === null) raw = cell.textContent.trim();
    if (type === 'number') {
      var n = parseFloat(raw);
      return isNaN(n) ? null : n;
    }
    return raw.toLowerCase();
  }

  function setupTable(table) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (row, i) { row.setAttribute('data-order', String(i)); });
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, index) {
      var type = th.getAttribute('data-sort');
      if (!type) return;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.textContent = th.textContent;
      button.setAttribute('aria-label', 'Sort by ' + th.textContent.trim());
      th.textContent = '';
      th.appendChild(button);
      button.addEventListener('click', function () {
        var current = th.getAttribute('aria-sort');
        // Numbers open highest first (fastest, dearest); text opens A to Z.
        var descending = current ? current === 'ascending' : type === 'number';
        headers.forEach(function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        var sorted = Array.prototype.slice.call(body.rows).sort(function (a, b) {
          var ka = cellKey(a, index, type);
          var kb = cellKey(b, index, type);
          var order;
          if (ka === kb) order = 0;
          else if (ka === null) return 1;  // no value sorts last either way
          else if (kb === null) return -1;
          else order = ka < kb ? -1 : 1;
          if (descending) order = -order;
          return order || Number(a.getAttribute('data-order')) - Number(b.getAttribute('data-order'));
        });
        sorted.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  function setupFilters(form, table) {
    var selects = Array.prototype.slice.call(form.querySelectorAll('select[data-filter]'));
    var count = form.querySelector('output');
    function apply() {
      var shown = 0;
      var rows = Array.prototype.slice.call(table.tBodies[0].rows);
      rows.forEach(function (row) {
        var visible = selects.every(function (s) {
          return s.value === '' || row.getAttribute('data-' + s.getAttribute('data-filter')) === s.value;
        });
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      if (count) count.textContent = shown + ' of ' + rows.length + ' recipes shown';
      // The predicted frontier follows the model and GPU filters (its rows carry no status).
      var frontier = document.getElementById('frontier');
      if (frontier) {
        Array.prototype.slice.call(frontier.tBodies[0].rows).forEach(function (row) {
          row.hidden = !selects.every(function (s) {
            var key = 'data-' + s.getAttribute('data-filter');
            return s.value === '' || !row.hasAttribute(key) || row.getAttribute(key) === s.value;
          });
        });
      }
    }
    selects.forEach(function (s) { s.addEventListener('change', apply); });
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () {
        return fallbackCopy(text);
      });
    }
    return Promise.resolve(fallbackCopy(text));
  }

  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  function setupCopy(button) {
    var target = document.getElementById(button.getAttribute('data-copy-target'));
    if (!target) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      copyText(target.textContent).then(function (ok) {
        button.textContent = ok ? 'Copied' : 'Select the text to copy';
        window.setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  }

  var table = document.getElementById('recipes');
  if (table) {
    setupTable(table);
    var form = document.getElementById('filters');
    if (form) setupFilters(form, table);
  }
  Array.prototype.slice.call(document.querySelectorAll('button[data-copy-target]')).forEach(setupCopy);
})();
)js";
}

}  // namespace ladle::site
