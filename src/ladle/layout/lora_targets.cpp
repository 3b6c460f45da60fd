#include "ladle/layout/lora_targets.hpp"

#include <map>

#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

using T = LoraTarget;

const std::map<std::string_view, T>& module_names() {
  static const std::map<std::string_view, T> names = {
      {"linear_qkv", T::qkv},          {"linear_q", T::qkv},
      {"linear_k", T::qkv},            {"linear_v", T::qkv},
      {"q_proj", T::qkv},              {"k_proj", T::qkv},
      {"v_proj", T::qkv},              {"linear_proj", T::proj},
      {"o_proj", T::proj},             {"linear_fc1", T::fc1},
      {"linear_fc1_up", T::fc1},       {"linear_fc1_gate", T::fc1},
      {"gate_proj", T::fc1},           {"up_proj", T::fc1},
      {"linear_fc2", T::fc2},          {"down_proj", T::fc2},
      {"linear_q_down_proj", T::mla_down}, {"linear_kv_down_proj", T::mla_down},
      {"q_a_proj", T::mla_down},       {"kv_a_proj_with_mqa", T::mla_down},
      {"linear_q_up_proj", T::mla_up}, {"linear_kv_up_proj", T::mla_up},
      {"q_b_proj", T::mla_up},         {"kv_b_proj", T::mla_up},
  };
  return names;
}

}  // namespace

std::optional<LoraTarget> find_lora_target(std::string_view name) {
  const auto it = module_names().find(name);
  if (it == module_names().end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> lora_target_names() {
  std::vector<std::string> names = {"all-linear"};
  for (const auto& [known, target] : module_names()) names.emplace_back(known);
  return names;
}

bool selects_all_linear(std::string_view text) {
  const std::string_view all = util::trim(text);
  return all.empty() || all == "all-linear" || all == "all" || all == "all_linear";
}

std::optional<std::string> unknown_lora_target(std::string_view text) {
  if (selects_all_linear(text)) return std::nullopt;
  for (const std::string& word : util::split(std::string(text), ',')) {
    const std::string_view name = util::trim(word);
    if (!name.empty() && !find_lora_target(name)) return std::string(name);
  }
  return std::nullopt;
}

}  // namespace ladle::layout
