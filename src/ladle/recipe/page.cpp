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

// Shortest text that reads back as the same double, as the seeds print their figures.
std::string shortest(double v) { return fmt::format("{}", v); }

std::string grouped(int64_t n) { return util::format_grouped(static_cast<long long>(n)); }
}  // namespace

std::string page_title(const Recipe& recipe) { return "Training " + recipe.model + " on " + recipe.gpu.type; }

std::string format_tokens_per_s(double tokens_per_s_per_gpu) { return util::format_grouped(tokens_per_s_per_gpu, 2); }
std::string format_usd(double usd) { return "$" + util::format_grouped(usd, 2); }
std::string format_mfu(double mfu_fraction) { return percent(mfu_fraction * 100, 1); }

RecipePage build_page(const Recipe& r) {
  RecipePage page;
  page.title = page_title(r);
  const auto add = [&](std::string key, std::string label, std::string value) -> PageFact& {
    return page.facts.emplace_back(PageFact{std::move(key), std::move(label), std::move(value), {}, {}, {}});
  };
  add("author", "Author", r.author.name).url = r.author.url.empty() ? std::nullopt : std::optional(r.author.url);
  add("gpus", "GPUs", fmt::format("{} x {} {} GB ({}, {} per node)", r.gpu.count, r.gpu.type, r.gpu.memory_gb,
                                  r.gpu.instance, r.gpu.per_node));
  add("layout", "Layout", r.layout.summary.empty() ? r.layout.label : r.layout.summary);
  add("status", "Status", r.status);
  if (r.result) {
    const RecipeResult& res = *r.result;
    add("tokens-per-s-per-gpu", "Tokens/s per GPU", format_tokens_per_s(res.tokens_per_s_per_gpu));
    add("usd-per-million-tokens", "$ / 1M tokens", format_usd(res.usd_per_million_tokens));
    add("mfu", "MFU",
        fmt::format("{} (N = {} active parameters per token)", format_mfu(res.mfu), grouped(res.active_params.count)))
        .note = res.mfu_note;
    add("step-time-cv", "Step-time CV", percent(res.step_time_cv_percent, 2));
  } else {
    std::string none = "not measured";
    if (r.predicted) {
      none += fmt::format("; predicted {} tokens/s per GPU, {} / 1M tokens",
                          format_tokens_per_s(r.predicted->tokens_per_s_per_gpu), format_usd(r.predicted->usd_per_million_tokens));
    }
    add("tokens-per-s-per-gpu", "Tokens/s per GPU", none);
  }
  if (r.correctness) {
    const Correctness& c = *r.correctness;
    if (c.convergence) {
      const Convergence& v = *c.convergence;
      PageFact& fact = add("convergence", "Convergence check",
                           fmt::format("correlation {}, final loss difference {}, {} over {} steps", shortest(v.correlation),
                                       shortest(v.final_loss_difference),
                                       plural(v.pointwise_failures, "pointwise failure", "pointwise failures"), v.steps));
      fact.result = v.result;
      fact.note = v.note;
    }
    for (const ComponentTest& t : c.component_tests) {
      // The published wording: "<test>: <gpu>, <date>. Shape: <shape>. <detail> <note>".
      std::string text = fmt::format("{}: {}, {}.", t.test, t.gpu, t.date);
      if (!t.shape.empty()) text += " Shape: " + t.shape + ".";
      if (!t.detail.empty()) text += " " + t.detail;
      if (t.note) text += " " + *t.note;
      add("component-test", "Component test", text).result = t.result;
    }
    add("configuration", "Configuration check", c.configuration);
  }
  if (r.result) {
    const RecipeResult& res = *r.result;
    std::string measured = res.measured;
    if (res.steps_per_run > 0) {
      measured += fmt::format(", {}-step run", res.steps_per_run);
      if (res.window.size() == 2) measured += fmt::format(" scored over steps {}\u2013{}", res.window[0], res.window[1]);
    }
    if (res.runs > 1) measured += fmt::format(" ({} runs)", res.runs);
    add("measured", "Measured", measured);
    add("gpu-hours", "GPU-hours", shortest(res.gpu_hours)).note = res.gpu_hours_note;
    if (res.peak_memory_gib) {
      add("peak-memory", "Peak memory", fmt::format("{:.1f} GiB per GPU", *res.peak_memory_gib)).note =
          "max reserved over every rank, from the logs' memory lines";
    }
  }
  if (r.predicted) {
    const Predicted& p = *r.predicted;
    add("predicted", "Predicted",
        fmt::format("{} tokens/s per GPU{}, step {:.2f} s, MFU {}, {} / 1M tokens, {:.1f} GiB per GPU ({})",
                    format_tokens_per_s(p.tokens_per_s_per_gpu),
                    p.tokens_per_s_per_gpu_low && p.tokens_per_s_per_gpu_high
                        ? fmt::format(" (80% interval {}-{})", format_tokens_per_s(*p.tokens_per_s_per_gpu_low),
                                      format_tokens_per_s(*p.tokens_per_s_per_gpu_high))
                        : "",
                    p.step_time_s, format_mfu(p.mfu), format_usd(p.usd_per_million_tokens), p.memory_gib,
                    p.planner));
  }
  const RecipeDataset& d = r.workload.dataset;
  std::string rows = d.build ? d.build->name : d.name;
  if (!d.rows_sha256.empty()) rows += fmt::format(" (rows_sha256 {})", d.rows_sha256);
  if (d.build) rows += fmt::format(", {} rows of {} tokens", grouped(d.build->rows), grouped(d.build->row_tokens));
  if (!rows.empty()) add("rows", "Rows", rows);
  page.run = r.run;
  page.notes = r.notes;
  page.yaml = write_recipe(r);
  return page;
}

std::string fact_text(const PageFact& f) {
  std::string text = f.result ? *f.result + ": " + f.value : f.value;
  if (f.url) text += " (" + *f.url + ")";
  if (f.note && !f.note->empty()) text += " (" + *f.note + ")";
  return text;
}

std::string render_page_text(const RecipePage& page) {
  std::string out = page.title + "\n\n";
  for (const PageFact& f : page.facts) out += f.label + "\n\n" + fact_text(f) + "\n\n";
  out += page.run;
  if (!page.notes.empty()) out += "\nNotes\n\n" + page.notes;
  out += "\n" + page.yaml;
  return out;
}

std::string render_page_markdown(const RecipePage& page) {
  std::string out = "# " + page.title + "\n\n| | |\n|---|---|\n";
  for (const PageFact& f : page.facts) {
    std::string value = f.url ? "[" + f.value + "](" + *f.url + ")" : f.value;
    if (f.result) value = "**" + *f.result + "**: " + value;
    if (f.note && !f.note->empty()) value += " (" + *f.note + ")";
    for (size_t at = value.find('|'); at != std::string::npos; at = value.find('|', at + 2)) value.replace(at, 1, "\\|");
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
    nlohmann::ordered_json fact = {{"key", f.key}, {"label", f.label}, {"value", f.value}};
    if (f.url) fact["url"] = *f.url;
    if (f.result) fact["result"] = *f.result;
    if (f.note) fact["note"] = *f.note;
    j["facts"].push_back(fact);
  }
  j["run"] = page.run;
  j["notes"] = page.notes;
  j["yaml"] = page.yaml;
  return j.dump(2) + "\n";
}

}  // namespace ladle::recipe
