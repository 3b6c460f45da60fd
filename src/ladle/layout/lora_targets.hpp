#pragma once
// lora_targets.hpp: the module names miles' --target-modules takes, as miles maps them onto
// Megatron-Core's linears (miles/backends/megatron_utils/lora_utils.py at 31f1ca96:
// _STANDARD_LORA_HF_TO_MEGATRON, _CANONICAL_LORA_ALL_MODULES, _MLA_HF_TO_MEGATRON). The job reader
// refuses a name not here; plan/cost_lora.hpp prices the ones here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::layout {

/// The module groups an adapter can target (bits), in Megatron-Core's names.
enum class LoraTarget : uint32_t {
  qkv,       ///< linear_qkv (q_proj, k_proj, v_proj; MLA's q_proj without q LoRA)
  proj,      ///< linear_proj (o_proj)
  fc1,       ///< linear_fc1 (gate_proj, up_proj): dense, shared and routed experts
  fc2,       ///< linear_fc2 (down_proj): dense, shared and routed experts
  mla_down,  ///< linear_q_down_proj, linear_kv_down_proj (q_a_proj, kv_a_proj_with_mqa)
  mla_up,    ///< linear_q_up_proj, linear_kv_up_proj (q_b_proj, kv_b_proj)
};

/// The target one module name stands for, or nullopt.
std::optional<LoraTarget> find_lora_target(std::string_view name);
/// "all-linear" and every module name, sorted (for an error's list).
std::vector<std::string> lora_target_names();
/// Whether `text` selects every linear ("all-linear", "all", "all_linear", or "" for
/// Megatron-Bridge's default targets).
bool selects_all_linear(std::string_view text);
/// The first comma-separated word of `text` that names no target, or nullopt.
std::optional<std::string> unknown_lora_target(std::string_view text);

}  // namespace ladle::layout
