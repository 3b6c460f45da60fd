// time_tp.cpp: TP collectives (see time_tp.hpp).
#include "ladle/plan/time_tp.hpp"

#include <algorithm>

#include "ladle/plan/time_collective.hpp"

namespace ladle::plan::timing {

// With SP an all-gather before and a reduce-scatter after attention and after the dense MLP or
// shared expert; without SP, all-reduces (twice the traffic).
double tp_forward(const KindInputs& in) {
  if (in.l.tp <= 1) return 0;
  const Rates& r = in.r;
  const double tp = in.tp;
  // Two around the mixer and two around a dense MLP or shared expert, where the layer has them.
  const double collectives = (in.kind.mixer != MixerKind::none ? 2 : 0) +
                             (in.kind.has_mlp && (!in.kind.moe || in.c.shared_ffn > 0) ? 2 : 0);
  const double one = collective_time(r, hw::Collective::all_gather, kBf16 * in.tokens * in.h, tp, std::min(tp, r.domain));
  // An all-reduce costs a reduce-scatter plus an all-gather, so both cases move the same bytes.
  double fwd = collectives * one;
  if (in.kind.indexer && in.l.sp) {
    // Megatron-LM's DSA indexer is duplicated on every TP rank: under sequence parallel it
    // gathers the hidden state and the q latent over TP first (experimental_attention_variant/
    // dsa.py, DSAIndexer: parallel_mode="duplicated", gather_from_sequence_parallel_region of
    // x and qr); their gradients are reduce-scattered in the backward pass.
    const double q_in = in.c.q_lora_rank > 0 ? static_cast<double>(in.c.q_lora_rank) : in.h;
    for (double width : {in.h, q_in}) {
      fwd += collective_time(r, hw::Collective::all_gather, kBf16 * in.tokens * width, tp, std::min(tp, r.domain));
    }
  }
  return fwd;
}

}  // namespace ladle::plan::timing
