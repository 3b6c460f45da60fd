#include "ladle/recipe/page.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::recipe {

namespace {
std::string percent(double fraction_or_percent, int decimals) {
  return fmt::format("{:.{}f}%", fraction_or_percent, decimals);
}

// "1 pointwise failures" is how the published pages word it; ladle says it correctly.
std::string plural(int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}
}  // namespace

RecipePage build_page(const Recipe& r) {
  RecipePage page;
  page.title = fmt::format("Training {} on {}", r.model, r.gpu.type);
  auto add = [&](std::string label, std::string value) { page.facts.push_back({std::move(label), std::move(value), {}}); };
  page.facts.push_back({"Author", r.author.name, r.author.url.empty() ? std::nullopt : std::optional(r.author.url)});
  add("GPUs", fmt::format("{} x {} {} GB ({}, {} per node)", r.gpu.count, r.gpu.type, r.gpu.memory_gb, r.gpu.instance,
                          r.gpu.per_node));
  add("Layout", r.layout.summary.empty() ? r.layout.label : r.layout.summary);
  add("Status", r.status);
  if (r.result) {
    const RecipeResult& res = *r.result;
    add("Tokens/s per GPU", util::format_grouped(res.tokens_per_s_per_gpu, 2));
    add("$ / 1M tokens", fmt::format("${:.2f}", res.usd_per_million_tokens));
    std::string mfu = fmt::format("{} (N = {} active parameters per token)", percent(res.mfu * 100, 1),
                                  util::format_grouped(static_cast<long long>(res.active_params.count)));
    if (res.mfu_note) mfu += "; " + *res.mfu_note;
    add("MFU", mfu);
    add("Step-time CV", percent(res.step_time_cv_percent, 2));
  }
  if (r.correctness) {
    const Correctness& c = *r.correctness;
    if (c.convergence) {
      const Convergence& v = *c.convergence;
      add("Convergence check",
          fmt::format("{}: correlation {}, final loss difference {}, {} over {} steps", v.result,
                      fmt::format("{}", v.correlation), fmt::format("{}", v.final_loss_difference),
                      plural(v.pointwise_failures, "pointwise failure", "pointwise failures"), v.steps));
    }
    for (const ComponentTest& t : c.component_tests) {
      // The published wording, led by the outcome: "pass: <test>: <gpu>, <date>. Shape: <shape>. <detail> <note>".
      std::string text = fmt::format("{}: {}: {}, {}. Shape: {}. {}", t.result, t.test, t.gpu, t.date, t.shape, t.detail);
      if (t.note) text += " " + *t.note;
      add("Component test", text);
    }
    add("Configuration check", c.configuration);
  }
  if (r.result) {
    const RecipeResult& res = *r.result;
    std::string measured = res.measured;
    if (res.window.size() == 2) {
      measured += fmt::format(", {}-step run scored over steps {}–{}", res.steps_per_run, res.window[0], res.window[1]);
    }
    add("Measured", measured);
    add("GPU-hours", fmt::format("{}", res.gpu_hours));
  }
  if (r.predicted) {
    const Predicted& p = *r.predicted;
    add("Predicted", fmt::format("{} tokens/s per GPU, step {:.2f} s, MFU {}, ${:.2f} / 1M tokens, {:.1f} GB per GPU ({})",
                                 util::format_grouped(p.tokens_per_s_per_gpu, 2), p.step_time_s, percent(p.mfu * 100, 1),
                                 p.usd_per_million_tokens, p.memory_gb, p.planner));
  }
  const RecipeDataset& d = r.workload.dataset;
  std::string rows = fmt::format("{} (rows_sha256 {})", d.build ? d.build->name : d.name, d.rows_sha256);
  if (d.build) {
    rows += fmt::format(", {} rows of {} tokens", util::format_grouped(static_cast<long long>(d.build->rows)),
                        util::format_grouped(static_cast<long long>(d.build->row_tokens)));
  }
  add("Rows", rows);
  page.run = r.run;
  page.notes = r.notes;
  page.yaml = write_recipe(r);
  return page;
}

std::string render_page_text(const RecipePage& page) {
  std::string out = page.title + "\n\n";
  for (const PageFact& f : page.facts) out += f.label + "\n\n" + f.value + (f.url ? " (" + *f.url + ")" : "") + "\n\n";
  out += page.run;
  if (!page.notes.empty()) out += "\nNotes\n\n" + page.notes;
  out += "\n" + page.yaml;
  return out;
}

std::string render_page_markdown(const RecipePage& page) {
  std::string out = "# " + page.title + "\n\n| | |\n|---|---|\n";
  for (const PageFact& f : page.facts) {
    std::string value = f.value;
    for (size_t at = value.find('|'); at != std::string::npos; at = value.find('|', at + 2)) value.replace(at, 1, "\\|");
    if (f.url) value = "[" + value + "](" + *f.url + ")";
    out += "| " + f.label + " | " + value + " |\n";
  }
  out += "\n## Run\n\n```bash\n" + page.run + "```\n";
  if (!page.notes.empty()) out += "\n## Notes\n\n" + page.notes;
  out += "\n## Recipe\n\n```yaml\n" + page.yaml + "```\n";
  return out;
}

std::string render_page_json(const RecipePage& page) {
  nlohmann::ordered_json j;
  j["title"] = page.title;
  j["facts"] = nlohmann::ordered_json::array();
  for (const PageFact& f : page.facts) {
    nlohmann::ordered_json fact = {{"label", f.label}, {"value", f.value}};
    if (f.url) fact["url"] = *f.url;
    j["facts"].push_back(fact);
  }
  j["run"] = page.run;
  j["notes"] = page.notes;
  j["yaml"] = page.yaml;
  return j.dump(2) + "\n";
}

}  // namespace ladle::recipe
