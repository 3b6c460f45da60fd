#include "ladle/layout/layout_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ladle/util/error.hpp"

namespace ladle::layout {

Layout resolve_layout(Layout layout, const LayoutContext& context) {
  if (layout.dp == 0) {
    const int64_t model_parallel = layout.tp * layout.pp * layout.cp;
    if (context.gpus <= 0) throw_usage("layout: dp is not given and there is no GPU count to derive it from");
    if (context.gpus % model_parallel != 0) {
      throw_usage("layout: tp*pp*cp = {} does not divide the {} GPUs", model_parallel, context.gpus);
    }
    layout.dp = context.gpus / model_parallel;
  }
  if (layout.max_tokens == 0 && context.row_tokens > 0) {
    layout.max_tokens = layout.rows_per_mb * context.row_tokens / layout.cp;
  }
  return layout;
}

std::vector<int64_t> stage_layers(const Layout& layout, int64_t num_layers) {
  const int64_t pp = layout.pp;
  if (pp == 1) {
    if (layout.first > 0 || layout.last > 0) return {};
    return {num_layers};
  }
  const int64_t fixed = (layout.first > 0 ? layout.first : 0) + (layout.last > 0 ? layout.last : 0);
  const int64_t free_stages = pp - (layout.first > 0) - (layout.last > 0);
  const int64_t rest = num_layers - fixed;
  if (rest < 0) return {};
  if (free_stages == 0) {
    if (rest != 0) return {};
  } else if (rest % free_stages != 0 || rest / free_stages < 1) {
    return {};
  }
  const int64_t even = free_stages > 0 ? rest / free_stages : 0;
  std::vector<int64_t> out(static_cast<size_t>(pp), even);
  if (layout.first > 0) out.front() = layout.first;
  if (layout.last > 0) out.back() = layout.last;
  return out;
}

int64_t microbatches_per_step(const Layout& layout, const LayoutContext& context) {
  const int64_t rows_per_rank = layout.dp > 0 ? context.global_batch / layout.dp : 0;
  return (rows_per_rank + layout.rows_per_mb - 1) / layout.rows_per_mb;
}

std::optional<std::string> find_layout_violation(const Layout& l, const ModelSpec& model,
                                                 const LayoutContext& context) {
  const bool moe = model.num_experts > 0;
  if (context.gpus > 0 && l.gpus() != context.gpus) {
    return fmt::format("tp*pp*cp*dp = {}*{}*{}*{} = {} GPUs, but the run has {}", l.tp, l.pp, l.cp, l.dp,
                       l.gpus(), context.gpus);
  }
  if (l.tp > context.gpus_per_node || context.gpus_per_node % l.tp != 0) {
    return fmt::format("tp {} must divide the {} GPUs of a node (tensor parallel stays inside NVLink)",
                       l.tp, context.gpus_per_node);
  }
  if (model.num_heads % l.tp != 0) {
    return fmt::format("tp {} does not divide the {} attention heads", l.tp, model.num_heads);
  }
  if (model.attention == AttentionKind::gqa && model.num_kv_heads % l.tp != 0) {
    return fmt::format("tp {} does not divide the {} key/value heads", l.tp, model.num_kv_heads);
  }
  if (!moe && (l.ep != 1 || l.etp != 1)) {
    return fmt::format("ep {} and etp {} need a MoE model; {} is dense", l.ep, l.etp, model.name);
  }
  if (moe && model.num_experts % l.ep != 0) {
    return fmt::format("ep {} does not divide the {} routed experts", l.ep, model.num_experts);
  }
  if (moe && model.moe_intermediate_size % l.etp != 0) {
    return fmt::format("etp {} does not divide the expert width {}", l.etp, model.moe_intermediate_size);
  }
  if ((l.tp * l.cp * l.dp) % (l.ep * l.etp) != 0) {
    return fmt::format("ep*etp = {} does not divide tp*cp*dp = {} (expert data parallel must be whole)",
                       l.ep * l.etp, l.tp * l.cp * l.dp);
  }
  if (l.sp && l.tp == 1) return std::string("sequence parallel needs tp > 1");
  if (moe && l.tp > 1 && l.ep > 1 && !l.sp) {
    return fmt::format("tp {} with ep {} needs sequence parallel (Megatron-LM asserts it for MoE)", l.tp, l.ep);
  }
  if (l.pp > model.num_layers) {
    return fmt::format("pp {} exceeds the {} decoder layers", l.pp, model.num_layers);
  }
  const std::vector<int64_t> stages = stage_layers(l, model.num_layers);
  if (stages.empty()) {
    if (l.pp == 1) return std::string("first and last apply only when pp > 1");
    return fmt::format("pp {} with first {} and last {} cannot split the {} decoder layers evenly", l.pp,
                       l.first, l.last, model.num_layers);
  }
  if (l.vpp > 1) {
    if (l.pp < 2) return fmt::format("vpp {} needs pp > 1 (interleaved pipeline)", l.vpp);
    for (int64_t n : stages) {
      if (n % l.vpp != 0) {
        return fmt::format("vpp {} does not divide the {} layers of a pipeline stage", l.vpp, n);
      }
    }
  }
  if (l.cp > 1 && context.row_tokens % (2 * l.cp) != 0) {
    return fmt::format("cp {} needs rows divisible by 2*cp; a row has {} tokens", l.cp, context.row_tokens);
  }
  if (l.recompute == RecomputeGranularity::full) {
    const int64_t fewest = *std::min_element(stages.begin(), stages.end()) / l.vpp;
    if (l.recompute_layers > fewest) {
      return fmt::format("full recompute of {} layers exceeds the {} layers of a model chunk",
                         l.recompute_layers, fewest);
    }
  }
  if (l.offload < 0 || l.offload > 1) return fmt::format("offload {} is outside 0..1", l.offload);
  if (l.overlap && l.offload == 0) return std::string("overlap needs optimizer offload > 0");
  if (l.offload > 0 && !l.precision_aware) {
    return std::string("optimizer offload needs the precision-aware optimizer (Megatron-LM asserts it)");
  }
  if (l.moments == StateDtype::bf16 && !l.precision_aware) {
    return std::string("bf16 moments need the precision-aware optimizer");
  }
  if (moe && l.dispatcher == MoeDispatcher::flex && l.ep * l.etp * l.tp == 1) {
    return std::string("the flex dispatcher needs tp*ep > 1");
  }
  if (context.row_tokens > 0) {
    const int64_t packed = l.max_tokens * l.cp / context.row_tokens;
    if (packed < 1) {
      return fmt::format("max_tokens {} holds no {}-token row (cp {})", l.max_tokens, context.row_tokens, l.cp);
    }
    if (packed != l.rows_per_mb) {
      return fmt::format("rows_per_mb {} disagrees with max_tokens {}: dynamic batching packs {} row(s)",
                         l.rows_per_mb, l.max_tokens, packed);
    }
  }
  if (context.global_batch > 0) {
    if (context.global_batch % l.dp != 0) {
      return fmt::format("dp {} does not divide the global batch of {} rows", l.dp, context.global_batch);
    }
    if (context.global_batch / l.dp < l.rows_per_mb) {
      return fmt::format("rows_per_mb {} exceeds the {} rows each dp rank gets per step", l.rows_per_mb,
                         context.global_batch / l.dp);
    }
  }
  return std::nullopt;
}

void require_valid_layout(const Layout& layout, const ModelSpec& model, const LayoutContext& context) {
  if (auto violation = find_layout_violation(layout, model, context)) {
    throw Error(ErrorKind::input, *violation, SourceLocation{"", 0, 0, "layout"});
  }
}

}  // namespace ladle::layout
