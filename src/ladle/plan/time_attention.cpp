// time_attention.cpp: core attention (see time_attention.hpp).
#include "ladle/plan/time_attention.hpp"

#include "ladle/plan/cost_gemm_shape.hpp"

namespace ladle::plan::timing {

Work core_attention(const KindInputs& in) {
  const LayerKind& kind = in.kind;
  Work w;
  // A short sliding window wastes part of the key tiles its queries visit (cost_gemm_shape).
  const double window_eff = kind.window > 0 && kind.window < in.c.row_tokens
                                ? windowed_attention_efficiency(static_cast<double>(kind.window))
                                : 1.0;
  w.s = in.tokens * (kind.attention_flops / in.tp / window_eff + kind.indexer_flops) / in.r.attention_flops +
        2 * in.r.kernel;
  w.launches = 2;
  return w;
}

}  // namespace ladle::plan::timing
