#include "ladle/plan/cost_lora.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

using T = LoraTarget;

// The target a matrix belongs to, by the module the inventory gives it and how TP splits it.
std::optional<T> target_of(const Gemm& g) {
  switch (g.module) {
    case GemmModule::attention:
      if (g.split == GemmSplit::tp_out) return T::qkv;
      if (g.split == GemmSplit::tp_in) return T::proj;
      return T::mla_down;
    case GemmModule::mla_up: return T::mla_up;
    case GemmModule::dense_mlp:
    case GemmModule::shared_expert:
      if (g.split == GemmSplit::tp_out) return T::fc1;
      if (g.split == GemmSplit::tp_in) return T::fc2;
      return std::nullopt;
    default: return std::nullopt;
  }
}

// rank x (in + out) summed over the fused linears among `gemms` that `targets` names: matrices
// of one target with the same input are one fused linear (q, k, v; gate, up), except the
// replicated MLA down-projections, each its own linear.
double adapter_elements(const std::vector<Gemm>& gemms, uint32_t targets, double rank, bool expert) {
  std::map<std::pair<int, int64_t>, double> fused_out;  // (target, in) -> summed out
  double separate = 0;
  for (const Gemm& g : gemms) {
    std::optional<T> t;
    if (expert) {
      t = g.split == GemmSplit::expert_in ? T::fc2 : T::fc1;
    } else {
      t = target_of(g);
    }
    if (!t || !has(targets, *t)) continue;
    if (*t == T::mla_down || *t == T::mla_up) {
      separate += rank * static_cast<double>(g.in + g.out);
      continue;
    }
    fused_out[{static_cast<int>(*t), g.in}] += static_cast<double>(g.out);
  }
  double total = separate;
  for (const auto& [key, out] : fused_out) total += rank * (static_cast<double>(key.second) + out);
  return total;
}

}  // namespace

uint32_t lora_target_bits(std::string_view text, const ModelCosts& costs) {
  const uint32_t standard = bit(T::qkv) | bit(T::proj) | bit(T::fc1) | bit(T::fc2);
  const uint32_t mla = costs.mla ? bit(T::mla_down) | bit(T::mla_up) : 0;
  if (layout::selects_all_linear(text)) return standard | mla;
  uint32_t bits = 0;
  for (const std::string& word : util::split(std::string(text), ',')) {
    const std::string_view name = util::trim(word);
    if (name.empty()) continue;
    const std::optional<T> target = layout::find_lora_target(name);
    if (!target) {
      throw_input(SourceLocation{"", 0, 0, "--target-modules"}, "unknown LoRA target module '{}'; ladle prices: {}",
                  name, util::join(layout::lora_target_names(), ", "));
    }
    bits |= bit(*target);
  }
  return bits;
}

LoraLayer lora_layer(const ModelCosts& c, const LayerKind& kind, const Layout& l, uint32_t targets) {
  LoraLayer out;
  const double rank = static_cast<double>(l.lora_rank);
  if (rank <= 0) return out;
  out.dense_params = adapter_elements(kind.gemms, targets, rank, false) / static_cast<double>(l.tp);
  if (kind.moe && c.experts > 0) {
    out.expert_params_one = adapter_elements(kind.expert_gemms, targets, rank, true) / static_cast<double>(l.etp);
    out.expert_params = out.expert_params_one * static_cast<double>(c.experts) / static_cast<double>(l.ep);
  }
  return out;
}

LoraKinds lora_kinds(const ModelCosts& c, const Layout& l) {
  LoraKinds out;
  if (l.lora_rank <= 0) return out;
  const uint32_t targets = lora_target_bits(l.lora_targets, c);
  for (size_t k = 0; k < c.kinds.size(); ++k) {
    out.kinds[std::min<size_t>(k, out.kinds.size() - 1)] = lora_layer(c, c.kinds[k], l, targets);
  }
  out.mtp = lora_layer(c, c.mtp, l, targets);
  return out;
}

LoraParams lora_params(const ModelCosts& c, const LoraKinds& kinds, int64_t begin, int64_t end, double mtp_layers) {
  LoraParams out;
  for (size_t k = 0; k < c.kinds.size(); ++k) {
    const double count = c.count(k, begin, end);
    if (count == 0) continue;
    const LoraLayer& a = kinds.kinds[std::min<size_t>(k, kinds.kinds.size() - 1)];
    out.dense += count * a.dense_params;
    out.expert += count * a.expert_params;
  }
  out.dense += mtp_layers * kinds.mtp.dense_params;
  out.expert += mtp_layers * kinds.mtp.expert_params;
  return out;
}

LoraMemory lora_memory(const LoraParams& a, double grad_bytes, double state_bytes, double offload, double dense_shards,
                       double expert_shards) {
  constexpr double kBf16 = 2;
  LoraMemory out;
  out.adapter_weights = kBf16 * (a.dense + a.expert);
  out.gradients = grad_bytes * (a.dense + a.expert);
  out.optimizer_states = (1.0 - offload) * state_bytes * (a.dense / dense_shards + a.expert / expert_shards);
  return out;
}

double lora_gemm_seconds(double base_forward_s, double adapter_flops, double gemm_flops) {
  return 2 * base_forward_s + 3 * adapter_flops / gemm_flops;
}

double gemm_passes(const Layout& l) { return l.lora_rank > 0 ? 2.0 : 3.0; }

}  // namespace ladle::plan
