// launch_options.cpp: what `plan` and `predict` share for their jobs: the workload a base
// implies and each layout's launch arguments.
#include "ladle/cli/launch_options.hpp"

#include "ladle/launch/job_script.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::cli {

SourceLocation knob_argument(const recipe::LaunchArgs& launch, std::string_view knob, const std::string& file,
                             std::string_view field) {
  SourceLocation where{file, 0, 0, std::string(field)};
  const layout::Knob* row = knob.empty() ? nullptr : layout::find_knob(knob);
  if (!row) return where;
  for (const recipe::LaunchArg& arg : layout::training_args(launch)) {
    if (layout::find_knob_by_flag(arg.flag) != row) continue;
    where = SourceLocation{file, arg.line, arg.col, arg.spelled.empty() ? arg.flag : arg.spelled};
  }
  return where;
}

void require_valid_job_layout(const Layout& layout, const ModelSpec& model, const layout::LayoutContext& context,
                              const recipe::LaunchArgs& launch, const std::string& file) {
  if (std::optional<layout::LayoutViolation> broken = layout::layout_violation(layout, model, context)) {
    throw Error(ErrorKind::input, broken->message, knob_argument(launch, broken->knob, file, "layout"));
  }
}

plan::Workload launch_workload(const launch::Base& base, const std::optional<int64_t>& row_tokens,
                               const std::optional<int64_t>& global_batch,
                               const std::optional<std::string>& precision, bool emitting) {
  plan::Workload w;
  const bool from_base = base.from_recipe;
  w.row_tokens = row_tokens.value_or(from_base ? base.workload.row_tokens : 8192);
  w.global_batch = global_batch.value_or(from_base ? base.workload.global_batch : 128);
  w.precision = plan::parse_precision(
      precision.value_or(from_base && !base.workload.precision.empty() ? base.workload.precision
                                                                       : std::string("bf16")));
  if (emitting && from_base) {
    // The emitted recipe keeps the base's workload: a different one would change what is trained.
    if (w.row_tokens != base.workload.row_tokens) {
      throw_usage(
          "--row-tokens {} differs from the base's {} ({}); leave it out or give another --base",
          w.row_tokens, base.workload.row_tokens, base.name);
    }
    if (w.global_batch != base.workload.global_batch) {
      throw_usage(
          "--global-batch {} differs from the base's {} ({}); leave it out or give another --base",
          w.global_batch, base.workload.global_batch, base.name);
    }
  }
  return w;
}

std::function<std::string(const Layout&)> launch_args_for(const launch::Base& base,
                                                          const ModelSpec& model,
                                                          const plan::Cluster& cluster,
                                                          const plan::Workload& workload,
                                                          layout::Engine engine) {
  return [&base, &model, cluster, workload, engine](const Layout& layout) {
    launch::JobRequest job;
    job.base = &base;
    job.model = &model;
    job.layout = layout;
    job.engine = engine;
    job.gpus = cluster.gpus;
    job.gpus_per_node = cluster.gpus_per_node();
    job.precision = plan::to_string(workload.precision);
    return launch::job_args_line(job);
  };
}

void write_emitted(const std::string& path, const Recipe& recipe) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".sh") == 0) {
    util::write_file_atomic(path, recipe.run);
    return;
  }
  recipe::write_recipe_file(path, recipe);
}

}  // namespace ladle::cli
