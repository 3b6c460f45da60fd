#pragma once
// stack.hpp: the Megatron-Core release a job runs on (`--stack`, a recipe's stack.megatron_lm),
// from data/hw/stacks.yaml: which fused kernels and MoE paths exist in it, and the host cost per
// operation it is priced with. The newest release is the default.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/layout/layout.hpp"

namespace ladle::plan {

struct Measurement;  // calibrate.hpp
struct ValueSource;  // scenario.hpp

/// A feature a layout may ask for, and the first release that has it.
struct StackFeature {
  std::string key;       ///< grouped_gemm, permute_fusion, router_fusion, flex_dispatcher, ...
  std::string argument;  ///< the Megatron-LM argument that asks for it
  std::string since;     ///< "0.11"
  std::string source;
};

/// One Megatron-Core release.
struct StackGeneration {
  std::string name;  ///< "0.16"
  std::string tag;   ///< "core_v0.16.0"
  std::string commit;
  std::string released;
  /// Host time per operation over the calibration's host_launch_s (1 where `shared`).
  double host_launch_scale = 1;
  bool host_launch_shared = true;  ///< no measurements of this release: the one published figure
  /// The Transformer Engine release it runs ("2.7.0": the lock file at its tag, whose source the
  /// table states), and the host time of one Transformer Engine module call over PyTorch's own
  /// (transformer_engine_host_ratio).
  std::string transformer_engine;
  double te_module_host_ratio = 1;
  int major = 0, minor = 0;
  /// Whether this release has `feature` (a key of the features table).
  bool has(std::string_view feature) const;
};

/// Where the stack a prediction priced came from.
struct StackChoice {
  const StackGeneration* generation = nullptr;
  std::string origin;  ///< "--stack", "the recipe's stack.megatron_lm", "the newest (default)"
};

/// The embedded tables (parsed once; a malformed table is an internal error).
const std::vector<StackGeneration>& stack_generations();
const std::vector<StackFeature>& stack_features();
/// The newest release, the default.
const StackGeneration& newest_stack();

/// The release `text` names: "0.16", "0.16.1", "v0.16.0", "core_v0.16.0", "core_r0.16.0",
/// "megatron-core 0.16.0rc0" (a version inside other text), matched on major.minor; nullopt when it
/// names no version or one not in the table.
const StackGeneration* find_stack(std::string_view text);

/// find_stack, or Error(usage) in one line listing the known releases.
const StackGeneration& require_stack(std::string_view text);

/// The stack of a prediction: `flag` (--stack) when given, else the recipe's stack.megatron_lm
/// text when it names a known release, else the newest. An unknown --stack is Error(usage).
StackChoice choose_stack(std::string_view flag, std::string_view recipe_megatron_lm = {});

/// "Megatron-Core 0.16 (core_v0.16.0)".
std::string stack_label(const StackGeneration& s);

/// Where a stack came from (`origin`) and how it prices the host: its Transformer Engine release
/// and module host ratio, and its own host cost per operation where it has one.
std::string stack_source(const StackGeneration& s, std::string_view origin);

/// The first feature `layout` asks for that `stack` lacks, as one line naming the argument, the
/// release that brought it and the stack; nullopt when the stack has all of them.
std::optional<std::string> stack_violation(const Layout& layout, const StackGeneration& stack);

/// Host time of one Transformer Engine module call over PyTorch's own op in Transformer Engine
/// release `version` ("2.9", "2.12.0+5671fd36"): the transformer_engine_host rows of
/// data/hw/stacks.yaml; nullopt when `version` names no release.
std::optional<double> transformer_engine_host_ratio(std::string_view version);

/// The stack of `workload`: its stack_generation, or the newest.
const StackGeneration& workload_stack(const struct Workload& workload);

/// Sets `m`'s stack from `flag` (--stack) or its recipe_stack (choose_stack), says where it came
/// from in `sources`, and refuses (Error(input), field `stack`) a layout asking for a feature the
/// stack lacks.
void apply_stack(Measurement& m, std::string_view flag, std::vector<ValueSource>& sources);

}  // namespace ladle::plan
