#include "ladle/site/pages.hpp"

#include <gtest/gtest.h>

#include <set>

#include "site/html_scan.hpp"
#include "site/site_fixture.hpp"

namespace ladle::site {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

SiteCatalog two_models() {
  Recipe tp8 = test::glm52_tp4();
  tp8.layout.label = "TP8 PP4 EP32 DP4";
  tp8.result->tokens_per_s_per_gpu = 131.12;
  tp8.predicted.reset();
  return make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"),
                            test::site_recipe(test::glm52_tp4(), "recipes/glm-5.2-744b-a40b/h200/attune-tp4-pp4.yaml"),
                            test::site_recipe(tp8, "recipes/glm-5.2-744b-a40b/h200/attune-tp8-pp4.yaml")});
}

// Every page: one h1, headings never skip a level, and only markup ladle means to write.
void expect_well_formed(const std::string& html, const std::string& page) {
  static const std::set<std::string> kTags{
      "!doctype", "html", "head", "meta", "title", "link", "script", "body", "header", "nav", "main", "footer",
      "div", "a", "h1", "h2", "h3", "p", "span", "code", "pre", "br", "dl", "dt", "dd", "ul", "li", "table",
      "caption", "thead", "tbody", "tr", "th", "td", "form", "label", "select", "option", "output", "button",
      "details", "summary", "figure", "figcaption", "svg", "desc", "rect", "line", "text", "g", "polyline", "circle"};
  int last_level = 0;
  int h1 = 0;
  for (const test::Tag& tag : test::scan_tags(html)) {
    const std::string name = tag.name.starts_with("/") ? tag.name.substr(1) : tag.name;
    EXPECT_TRUE(kTags.contains(name)) << page << ": unexpected tag <" << tag.name << ">";
    for (const auto& [attr, value] : tag.attrs) {
      EXPECT_FALSE(attr.starts_with("on")) << page << ": event handler " << attr << "=" << value;
      if (attr == "href" || attr == "src") {
        const bool relative = value.find(':') == std::string::npos && !value.starts_with("//");
        const bool web = value.starts_with("https://") || value.starts_with("http://");
        EXPECT_TRUE(relative || web || value == "data:,") << page << ": " << attr << "=" << value;
      }
    }
    if (name == "script") {
      EXPECT_TRUE(tag.name.starts_with("/") || tag.attrs.contains("src")) << page << ": inline script";
    }
    if (!tag.name.starts_with("/") && name.size() == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6') {
      const int level = name[1] - '0';
      EXPECT_LE(level, last_level + 1) << page << ": <" << name << "> after <h" << last_level << ">";
      last_level = level;
      h1 += level == 1;
    }
  }
  EXPECT_EQ(h1, 1) << page;
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>")) << page;
}

TEST(IndexPage, ListsEveryRecipeInASortableFilterableTable) {
  const SiteCatalog catalog = two_models();
  const std::string html = render_index(catalog);
  expect_well_formed(html, "index");
  EXPECT_EQ(count(html, "<tr data-model="), 3u);
  EXPECT_EQ(count(html, "data-sort=\"number\""), 4u);
  EXPECT_EQ(count(html, "data-sort=\"text\""), 5u);
  EXPECT_NE(html.find("<td class=\"num\" data-value=\"6178.46\">6,178.46</td>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"recipes/glm-5.2-744b-a40b-h200-attune-tp8-pp4.html\">TP8 PP4 EP32 DP4</a>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"models/glm-4.7-flash.html\">GLM-4.7-Flash</a>"), std::string::npos);
  EXPECT_NE(html.find("<option value=\"GLM-5.2-744B-A40B\">"), std::string::npos);
  // Without the script: the filters stay hidden and every row is in the page as plain table text.
  EXPECT_NE(html.find("<form class=\"filters\" id=\"filters\" hidden"), std::string::npos);
  const std::string text = test::visible_text(html);
  for (const char* seen : {"6,178.46", "$0.36", "13.4%", "0.95%", "161.79", "$13.58", "4.0%", "4.69%", "2026-10-11",
                           "8 \u00d7 H200", "128 \u00d7 H200", "verified"}) {
    EXPECT_NE(text.find(seen), std::string::npos) << seen;
  }
}

TEST(RecipePage, ShowsFactsChartsRunScriptAndDownload) {
  const SiteCatalog catalog = two_models();
  const std::string html = render_recipe_page(catalog, 0);
  expect_well_formed(html, "recipe");
  EXPECT_NE(html.find("<h1>Training GLM-4.7-Flash on H200</h1>"), std::string::npos);
  EXPECT_NE(html.find("<dd data-fact=\"tokens-per-s-per-gpu\">6,178.46</dd>"), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-throughput\">"), std::string::npos);
  EXPECT_NE(html.find("TP1 PP1 EP8 DP8 \u00b7 8 \u00d7 H200 (this recipe)"), std::string::npos);
  EXPECT_NE(html.find("<pre><code id=\"run-script\">export CUDA_DEVICE_MAX_CONNECTIONS=1\n"), std::string::npos);
  EXPECT_NE(html.find("data-copy-target=\"run-script\" hidden>Copy</button>"), std::string::npos);
  EXPECT_NE(html.find("href=\"glm-4.7-flash-h200-attune-tp1-pp1-ep8.yaml\" download>"), std::string::npos);
  EXPECT_NE(html.find("No loss series"), std::string::npos);
  EXPECT_EQ(html.find("id=\"predicted\""), std::string::npos);
}

// An RL recipe (test data: the Flash seed given a synthetic RL workload and result).
Recipe rl_flash() {
  Recipe r = test::glm47_flash();
  r.workload.rl = RlWorkload{.algorithm = "grpo",
                             .prompts_per_rollout = 32,
                             .samples_per_prompt = 8,
                             .steps_per_rollout = 2,
                             .prompt_max_tokens = 1024,
                             .response_max_tokens = 4096,
                             .prompt_mean_tokens = 412.0,
                             .mode = "colocated_sync",
                             .rollout_gpus = 8,
                             .gpus_per_engine = 2};
  r.result->rl = RlResult{.samples_per_s = 1.0,
                          .trained_tokens_per_s_per_gpu = 382.59,
                          .usd_per_million_trained_tokens = 5.74,
                          .step_time_s = 255.158,
                          .phase_split = {0.6636, 0.1137, 0.1832, 0.0086, 0.0309}};
  return r;
}

TEST(RecipePage, ShowsAnRlRecipesWorkloadAndPhaseSplit) {
  const SiteCatalog catalog =
      make_site_catalog({test::site_recipe(rl_flash(), "recipes/glm-4.7-flash/h200/rl-grpo.yaml")});
  const std::string html = render_recipe_page(catalog, 0);
  expect_well_formed(html, "rl recipe");
  EXPECT_NE(html.find("<h2 id=\"rl\">RL workload</h2>"), std::string::npos);
  const std::string text = test::visible_text(html);
  for (const char* seen : {"32 prompts x 8 samples = 256, in 2 optimizer steps", "at most 1,024 tokens, mean 412",
                           "at most 4,096 tokens", "8 in engines of 2 GPUs", "colocated, synchronous", "382.59",
                           "5.74", "255.158 s", "66.4%", "18.3%"}) {
    EXPECT_NE(text.find(seen), std::string::npos) << seen;
  }
  // The stacked bar: one rect per phase, widths in proportion to the split, left to right.
  EXPECT_NE(html.find("<rect x=\"0.00\" y=\"0\" width=\"477.79\" height=\"28\" fill=\"#0072B2\" "
                      "data-phase=\"rollout\">"),
            std::string::npos);
  EXPECT_NE(html.find("<rect x=\"477.79\" y=\"0\" width=\"81.86\""), std::string::npos);
  EXPECT_EQ(count(html, "<tr data-phase="), 5u);
  // Seconds per phase: the share of the mean step time.
  EXPECT_NE(html.find("<td class=\"num\">66.4%</td><td class=\"num\">169.3</td>"), std::string::npos);
}

TEST(RecipePage, ATrainingRecipeHasNoRlSection) {
  const std::string html = render_recipe_page(two_models(), 0);
  EXPECT_EQ(html.find("id=\"rl\""), std::string::npos);
  EXPECT_EQ(html.find("class=\"tag rl\""), std::string::npos);
}

TEST(IndexPage, MarksRlRecipes) {
  const SiteCatalog catalog =
      make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"),
                         test::site_recipe(rl_flash(), "recipes/glm-4.7-flash/h200/rl-grpo.yaml")});
  const std::string html = render_index(catalog);
  expect_well_formed(html, "index");
  EXPECT_EQ(count(html, "<span class=\"tag rl\""), 1u);
  EXPECT_NE(html.find("title=\"RL recipe: colocated, synchronous (engines and trainer take turns on the same "
                      "GPUs)\">RL grpo</span></td>"),
            std::string::npos);
}

TEST(RecipePage, ShowsPredictedAgainstMeasuredWithTheBreakdown) {
  const std::string html = render_recipe_page(two_models(), 1);
  expect_well_formed(html, "predicted");
  EXPECT_NE(html.find("<h2 id=\"predicted\">Predicted and measured</h2>"), std::string::npos);
  // 128 rows x 8192 tokens / (161.79 tokens/s per GPU x 128 GPUs) = 50.634 s.
  EXPECT_NE(html.find("<th scope=\"row\">Step time (s)</th><td class=\"num\">48.200</td><td class=\"num\">50.634</td>"
                      "<td class=\"num\">1.05</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-step-breakdown\">"), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-memory-breakdown\">"), std::string::npos);
  EXPECT_NE(html.find("expert all-to-all"), std::string::npos);
}

TEST(RecipePage, PutsThePredictionAndItsIntervalBesideTheMeasuredFact) {
  const std::string html = render_recipe_page(two_models(), 1);
  const size_t measured = html.find("<dd data-fact=\"tokens-per-s-per-gpu\">161.79</dd>");
  const size_t predicted = html.find("<dt>Predicted tokens/s per GPU</dt><dd data-fact=\"predicted-tokens-per-s-per-gpu\">"
                                     "170.00 (80% interval 97.30\u2013297.10)");
  ASSERT_NE(measured, std::string::npos);
  ASSERT_NE(predicted, std::string::npos);
  EXPECT_LT(measured, predicted);
  // 161.79 / 170 - 1 = -4.8%, inside [97.3, 297.1].
  EXPECT_NE(html.find("measured -4.8% against predicted, inside the interval", predicted), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"row\">Memory per GPU, worst stage (GiB)</th><td class=\"num\">113.2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-stage-memory\">"), std::string::npos);
}

TEST(RecipePage, SaysWhereAMeasurementFallsOutsideTheInterval) {
  Recipe r = test::glm52_tp4();
  r.result->tokens_per_s_per_gpu = 400;
  const std::string html = render_recipe_page(make_site_catalog({test::site_recipe(r, "recipes/a/b/c.yaml")}), 0);
  EXPECT_NE(html.find("measured +135.3% against predicted, above the interval"), std::string::npos);
}

TEST(RecipePage, ShowsATunedRecipesTrialsByRound) {
  SiteRecipe item = test::site_recipe(test::glm47_flash(), "recipes/a/b/c.yaml");
  item.trials = {{1, 1, "explore", "TP4 PP1 EP8 DP2", "scored", 2667.2, 2466.6},
                 {2, 1, "explore", "TP1 PP2 EP4 DP4", "oom", 5100.0, std::nullopt},
                 {3, 2, "explore", "TP1 PP4 CP2 EP1 DP1", "scored", 5160.8, 6050.3},
                 {4, 2, "explore", "TP2 PP1 EP8 DP4", "scored", 5300.0, 4000.0},
                 {5, 3, "confirm", "TP1 PP4 CP2 EP1 DP1", "scored", 6040.0, 6049.7}};
  const std::string html = render_recipe_page(make_site_catalog({item}), 0);
  expect_well_formed(html, "tuned");
  EXPECT_NE(html.find("<h2 id=\"trials\">Tuning trials</h2>"), std::string::npos);
  EXPECT_NE(html.find("ran 5 trials in 3 rounds"), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-trials\">"), std::string::npos);
  EXPECT_NE(html.find("<tr><td class=\"num\">1</td><td class=\"num\">2</td><td>TP1 PP2 EP4 DP4</td><td>explore</td>"
                      "<td>oom</td><td class=\"num\">5,100.00</td><td class=\"num\">\u2014</td></tr>"),
            std::string::npos);
  // The best so far never falls: after trial 4 (4,000) it is still trial 3's 6,050.3.
  EXPECT_NE(html.find("<th scope=\"row\">4</th><td>5,300.0</td><td>4,000.0</td><td>6,050.3</td></tr>"),
            std::string::npos);
  EXPECT_EQ(render_recipe_page(two_models(), 0).find("id=\"trials\""), std::string::npos);
}

TEST(RecipePage, DrawsLossAndStepTimeWhenTheLogsAreRead) {
  std::vector<SiteRecipe> recipes{test::site_recipe(test::glm47_flash(), "recipes/a/b/c.yaml")};
  recipes[0].reference_loss = {{1, 2.0}, {2, 1.9}};
  recipes[0].candidate_loss = {{1, 2.01}, {2, 1.88}};
  recipes[0].step_time_s = {{1, 9.0}, {2, 5.1}, {3, 5.2}};
  const std::string html = render_recipe_page(make_site_catalog(recipes), 0);
  expect_well_formed(html, "logs");
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-loss\">"), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-step-time\">"), std::string::npos);
  EXPECT_NE(html.find(">measured window</text>"), std::string::npos);
  EXPECT_EQ(html.find("No loss series"), std::string::npos);
}

TEST(RecipePage, RendersNotesParagraphsListsCodeAndLinks) {
  Recipe r = test::glm47_flash();
  r.notes = "Intro line\n\n- first `a<b>` item\n  continues https://a.org/x?y=1.\n- second javascript:alert(1)\n"
            "Plain after.\n";
  const std::string html = render_recipe_page(make_site_catalog({test::site_recipe(r, "recipes/a/b/c.yaml")}), 0);
  expect_well_formed(html, "notes");
  EXPECT_NE(html.find("<div class=\"notes\">\n<p>Intro line</p>\n<ul>\n<li>first <code>a&lt;b&gt;</code> item continues "
                      "<a href=\"https://a.org/x?y=1\">https://a.org/x?y=1</a>.</li>\n<li>second javascript:alert(1)</li>\n"
                      "</ul>\n<p>Plain after.</p>\n</div>"),
            std::string::npos)
      << html.substr(html.find("<div class=\"notes\">"), 400);
}

TEST(ModelPage, ComparesItsLayoutsInBarCharts) {
  const SiteCatalog catalog = two_models();
  const std::string html = render_model_page(catalog, "GLM-5.2-744B-A40B");
  expect_well_formed(html, "model");
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-tokens\">"), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-usd\">"), std::string::npos);
  EXPECT_EQ(count(html, "<tr><td><a href=\"../recipes/"), 2u);
  EXPECT_EQ(html.find("GLM-4.7-Flash"), std::string::npos);
  EXPECT_NE(html.find(">predicted</text>"), std::string::npos);  // one of its recipes has a prediction
  // Against GPU count: both layouts run on 128 GPUs, so one point, the faster (161.79 over 131.12).
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-tokens-by-gpus\">"), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-usd-by-gpus\">"), std::string::npos);
  // Memory per stage of the recipe with a prediction: four stages.
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-stage-memory\">"), std::string::npos);
  EXPECT_NE(html.find("TP4 PP4 EP32 DP8 \u00b7 stage 3"), std::string::npos);
}

TEST(ModelPage, PlotsTheBestOfEachGpuCount) {
  Recipe small = test::glm52_tp4();
  small.gpu.count = 64;
  small.layout.label = "TP4 PP4 EP16 DP4";
  small.result->tokens_per_s_per_gpu = 150.5;
  Recipe slow = test::glm52_tp4();
  slow.layout.label = "TP8 PP4 EP32 DP4";
  slow.result->tokens_per_s_per_gpu = 120.25;
  const SiteCatalog catalog = make_site_catalog({test::site_recipe(test::glm52_tp4(), "recipes/m/h200/a.yaml"),
                                                 test::site_recipe(small, "recipes/m/h200/b.yaml"),
                                                 test::site_recipe(slow, "recipes/m/h200/c.yaml")});
  const std::string html = render_model_page(catalog, "GLM-5.2-744B-A40B");
  const size_t chart = html.find("id=\"chart-tokens-by-gpus\"");
  ASSERT_NE(chart, std::string::npos);
  const std::string figure = html.substr(chart, html.find("</figure>", chart) - chart);
  EXPECT_NE(figure.find("<th scope=\"row\">64</th><td>150.50</td>"), std::string::npos) << figure;
  EXPECT_NE(figure.find("<th scope=\"row\">128</th><td>161.79</td>"), std::string::npos) << figure;
  EXPECT_EQ(figure.find("120.25"), std::string::npos);
}

TEST(Escaping, HostileRecipeRendersAsTextOnEveryPage) {
  const Recipe evil = test::hostile();
  const SiteCatalog catalog = make_site_catalog({test::site_recipe(evil, "recipes/evil/h200/x.yaml"),
                                                 test::site_recipe(test::glm47_flash(), "recipes/g/h200/y.yaml")});
  const std::vector<std::pair<std::string, std::string>> pages{
      {"index", render_index(catalog)},
      {"recipe", render_recipe_page(catalog, 0)},
      {"model", render_model_page(catalog, evil.model)}};
  for (const auto& [name, html] : pages) {
    expect_well_formed(html, name);
    for (const test::Tag& tag : test::scan_tags(html)) {
      if (tag.attrs.contains("href")) {
        EXPECT_EQ(tag.attrs.at("href").find("javascript"), std::string::npos) << name;
      }
    }
    const std::string text = test::visible_text(html);
    EXPECT_NE(text.find("Evil<script>window.__pwned=1</script>Model"), std::string::npos) << name;
  }
  const std::string& recipe = pages[1].second;
  const std::string text = test::visible_text(recipe);
  for (const char* shown : {"Mallory \"<img src=x onerror=alert(1)>\" O'Brien (javascript:alert(document.cookie))",
                            "TP1 '\"><svg onload=alert(2)>", "<script>alert('notes')</script>",
                            "echo '</code></pre><script>alert(5)</script>'", "<b>bold?</b>",
                            "Tulu 3 SFT mixture (javascript:alert(6))", "JaVaScRiPt:alert(7)"}) {
    EXPECT_NE(text.find(shown), std::string::npos) << shown;
  }
  // The status lands in a class name and in data attributes: folded there, escaped in text.
  EXPECT_NE(recipe.find("class=\"status status-verified-onmouseover-alert-3\""), std::string::npos);
  EXPECT_NE(pages[0].second.find("data-status=\"verified&quot; onmouseover=&quot;alert(3)\""), std::string::npos);
}

TEST(Pages, AreDeterministic) {
  EXPECT_EQ(render_index(two_models()), render_index(two_models()));
  EXPECT_EQ(render_recipe_page(two_models(), 1), render_recipe_page(two_models(), 1));
}

}  // namespace
}  // namespace ladle::site
