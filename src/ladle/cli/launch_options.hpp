#pragma once
// launch_options.hpp: what `plan` and `predict` share for their jobs.

#include <functional>
#include <optional>
#include <string>

#include "ladle/launch/base.hpp"
#include "ladle/launch/engines.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/recipe/launch_args.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/util/error.hpp"

namespace ladle::cli {

/// Where the job's arguments set `knob` (a layout/knobs.hpp key): the last training argument that
/// sets it, named as the script wrote it (a Megatron-Bridge override by its own key); else `file`
/// alone, with `field`.
SourceLocation knob_argument(const recipe::LaunchArgs& launch, std::string_view knob, const std::string& file,
                             std::string_view field);

/// Throws Error(input) for a layout the job's arguments give that breaks a rule, at the argument
/// that set the knob the rule names (`file` alone, field "layout", when none did).
void require_valid_job_layout(const Layout& layout, const ModelSpec& model, const layout::LayoutContext& context,
                              const recipe::LaunchArgs& launch, const std::string& file);

/// The workload of a plan: the options given, else the base recipe's (ladle's 8192 x 128 BF16
/// without one). With `emitting`, throws Error(usage) for a row length or batch that differs from
/// the base recipe's: the emitted recipe keeps the base's workload.
plan::Workload launch_workload(const launch::Base& base, const std::optional<int64_t>& row_tokens,
                               const std::optional<int64_t>& global_batch,
                               const std::optional<std::string>& precision, bool emitting);

/// The launch arguments of a layout for `engine` on `cluster`, as one shell line (`args` of the
/// JSON reports). `base` and `model` must outlive the function.
std::function<std::string(const Layout&)> launch_args_for(const launch::Base& base,
                                                          const ModelSpec& model,
                                                          const plan::Cluster& cluster,
                                                          const plan::Workload& workload,
                                                          layout::Engine engine);

/// Writes a planned recipe to `path` atomically, or only its job script when `path` ends in ".sh".
void write_emitted(const std::string& path, const Recipe& recipe);

}  // namespace ladle::cli
