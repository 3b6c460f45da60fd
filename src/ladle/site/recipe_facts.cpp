#include "ladle/site/recipe_facts.hpp"

#include <fmt/format.h>

#include "ladle/site/html.hpp"
#include "ladle/util/text.hpp"

namespace ladle::site {
namespace {

constexpr int kTokensDecimals = 2;

// Shortest text that reads back as the same double, as the seeds print their figures.
std::string shortest(double v) { return fmt::format("{}", v); }

std::string measured_html(const RecipeResult& r) {
  std::string html = escape_html(r.measured);
  if (r.steps_per_run > 0) {
    html += fmt::format(", {}-step run", r.steps_per_run);
    if (r.window.size() == 2) {
      html += fmt::format(" scored over steps {}\u2013{}", r.window[0], r.window[1]);
    }
  }
  if (r.runs > 1) html += fmt::format(" ({} runs)", r.runs);
  return html;
}

std::string note_html(const std::optional<std::string>& note) {
  if (!note || note->empty()) return "";
  return "<br><span class=\"note\">" + escape_html(*note) + "</span>";
}

std::string component_test_html(const ComponentTest& t) {
  std::string html = "<span class=\"result result-" + slugify(t.result) + "\">" + escape_html(t.result) +
                     "</span> " + escape_html(t.test) + ": " + escape_html(t.gpu) + ", " +
                     escape_html(t.date) + ".";
  if (!t.shape.empty()) html += " Shape: " + escape_html(t.shape) + ".";
  if (!t.detail.empty()) html += " " + escape_html(t.detail);
  if (t.note && !t.note->empty()) html += " " + escape_html(*t.note);
  return html;
}

}  // namespace

std::string format_tokens_per_s(double tokens_per_s_per_gpu) {
  return util::format_grouped(tokens_per_s_per_gpu, kTokensDecimals);
}
std::string format_usd(double usd) { return "$" + util::format_grouped(usd, 2); }
std::string format_mfu(double mfu_fraction) { return fmt::format("{:.1f}%", mfu_fraction * 100); }
std::string format_percent(double percent) { return shortest(percent) + "%"; }

std::string recipe_title(const Recipe& recipe) {
  return "Training " + recipe.model + " on " + recipe.gpu.type;
}

std::string gpu_count_label(const Recipe& recipe) {
  return fmt::format("{} \u00d7 {}", recipe.gpu.count, recipe.gpu.type);
}

std::vector<Fact> recipe_facts(const Recipe& recipe) {
  std::vector<Fact> facts;
  auto add = [&facts](std::string key, std::string label, std::string html) {
    facts.push_back({std::move(key), std::move(label), std::move(html)});
  };

  std::string author = escape_html(recipe.author.name);
  if (safe_link_url(recipe.author.url)) {
    author += " (" + render_link(recipe.author.url, "cite") + ")";
  } else if (!recipe.author.url.empty()) {
    author += " (" + escape_html(recipe.author.url) + ")";
  }
  add("author", "Author", author);
  add("status", "Status", escape_html(recipe.status));

  const RecipeGpu& g = recipe.gpu;
  std::string gpus = escape_html(fmt::format("{} \u00d7 {} {} GB", g.count, g.type, shortest(g.memory_gb)));
  std::vector<std::string> where;
  if (!g.instance.empty()) where.push_back(g.instance);
  if (g.per_node > 0) where.push_back(fmt::format("{} per node", g.per_node));
  if (!where.empty()) gpus += " (" + escape_html(util::join(where, ", ")) + ")";
  add("gpus", "GPUs", gpus);
  add("layout", "Layout", escape_html(recipe.layout.summary.empty() ? recipe.layout.label : recipe.layout.summary));

  if (recipe.result) {
    const RecipeResult& r = *recipe.result;
    add("tokens-per-s-per-gpu", "Tokens/s per GPU", escape_html(format_tokens_per_s(r.tokens_per_s_per_gpu)));
    add("usd-per-million-tokens", "$ / 1M tokens", escape_html(format_usd(r.usd_per_million_tokens)));
    std::string mfu = escape_html(format_mfu(r.mfu));
    if (r.active_params.count > 0) {
      mfu += escape_html(" (N = " + util::format_grouped(static_cast<long long>(r.active_params.count)) +
                         " active parameters per token)");
    }
    add("mfu", "MFU", mfu + note_html(r.mfu_note));
    add("step-time-cv", "Step-time CV", escape_html(format_percent(r.step_time_cv_percent)));
  } else {
    std::string none = "not measured";
    if (recipe.predicted) {
      none += "; predicted " + format_tokens_per_s(recipe.predicted->tokens_per_s_per_gpu) +
              " tokens/s per GPU, " + format_usd(recipe.predicted->usd_per_million_tokens) + " / 1M tokens";
    }
    add("tokens-per-s-per-gpu", "Tokens/s per GPU", escape_html(none));
  }

  if (recipe.correctness && recipe.correctness->convergence) {
    const Convergence& c = *recipe.correctness->convergence;
    std::string html = "<span class=\"result result-" + slugify(c.result) + "\">" + escape_html(c.result) +
                       "</span> " +
                       escape_html(fmt::format("correlation {}, final loss difference {}, {} pointwise "
                                               "failures over {} steps",
                                               shortest(c.correlation), shortest(c.final_loss_difference),
                                               c.pointwise_failures, c.steps));
    add("convergence", "Convergence check", html + note_html(c.note));
  }
  if (recipe.correctness && !recipe.correctness->component_tests.empty()) {
    std::string html;
    for (const ComponentTest& t : recipe.correctness->component_tests) {
      if (!html.empty()) html += "<br>";
      html += component_test_html(t);
    }
    add("component-tests", recipe.correctness->component_tests.size() == 1 ? "Component test" : "Component tests",
        html);
  }
  if (recipe.result) {
    const RecipeResult& r = *recipe.result;
    add("measured", "Measured", measured_html(r));
    add("gpu-hours", "GPU-hours", escape_html(shortest(r.gpu_hours)) + note_html(r.gpu_hours_note));
  }
  const RecipeDataset& d = recipe.workload.dataset;
  const std::string rows_name = d.build ? d.build->name : d.name;
  if (!rows_name.empty() || !d.rows_sha256.empty()) {
    std::string html = escape_html(rows_name);
    if (!d.rows_sha256.empty()) {
      html += " (rows_sha256 <code class=\"hash\">" + escape_html(d.rows_sha256) + "</code>)";
    }
    add("rows", "Rows", html);
  }
  return facts;
}

}  // namespace ladle::site
