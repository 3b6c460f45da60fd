// memory_buffers.cpp: the buffers beside the model's tensors (see memory_buffers.hpp).
#include "ladle/plan/memory_buffers.hpp"

#include <algorithm>

#include "ladle/plan/cost_colocate.hpp"
#include "ladle/plan/cost_fp8_amax_history.hpp"

namespace ladle::plan::mem {

namespace {

// Distinct NCCL communicators a rank runs collectives or p2p on (PyTorch creates each lazily on
// first use): TP, CP, the data-parallel gradient group (DP x CP), pipeline p2p, the expert
// group and the expert data-parallel group.
double nccl_communicators(const ModelCosts& c, const Layout& l) {
  double n = 0;
  if (l.tp > 1) n += 1;
  if (l.cp > 1) n += 1;
  if (l.dp * l.cp > 1) n += 1;
  if (l.dist_opt_instances > 1) n += 1;
  if (l.pp > 1) n += 1;
  if (c.experts > 0 && l.ep * l.etp > 1) n += 1;
  if (c.experts > 0 && l.edp() > 1 && l.edp() != l.dp * l.cp) n += 1;
  return n;
}

}  // namespace

double dispatch_buffer_bytes(const BufferInputs& b) {
  const ModelCosts& c = b.c;
  const Layout& l = b.l;
  if (c.experts <= 0) return 0;
  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double h = static_cast<double>(c.hidden);
  // The flex dispatcher's buffers (outside the allocator) for the ETP x EP group Megatron-LM's
  // MoEFlexTokenDispatcher hands its backend: DeepEP's by its size rule for the group and the
  // hidden bytes, HybridEP's by its worst case for the group, the NVLink domain and the tokens
  // each rank dispatches; the all-to-all dispatcher's permuted send and receive copies
  // otherwise.
  const int64_t group = l.ep * l.etp;
  if (l.dispatcher != MoeDispatcher::flex) {
    return 2 * kBf16 * h * b.tokens / tp * static_cast<double>(c.top_k) * static_cast<double>(l.etp);
  }
  if (l.flex_backend == FlexBackend::hybridep) {
    return hw::hybridep_buffer_bytes(b.facts.hybridep, group, b.cluster.nvlink_domain(), b.tokens / sp_div, h,
                                 static_cast<double>(c.experts) / static_cast<double>(l.ep));
  }
  return hw::deepep_buffer_bytes(b.facts.deepep, group, h * kBf16);
}

double tp_overlap_buffer_bytes(const BufferInputs& b) {
  if (!(b.l.tp_overlap && b.l.tp > 1 && !b.st.torch)) return 0;
  const double h = static_cast<double>(b.c.hidden);
  return static_cast<double>(b.facts.tp_overlap_buffers) * b.tokens * h * (b.st.fp8 ? 1.0 : kBf16);
}

double nccl_buffer_bytes(const BufferInputs& b) {
  return nccl_communicators(b.c, b.l) * static_cast<double>(b.facts.nccl_channels) *
         static_cast<double>(b.facts.nccl_peers_per_channel) * b.facts.nccl_buffsize_mib * kMiB;
}

double cuda_graph_bytes(const Layout& l, double layer_input, double layers, double layers_held) {
  if (l.cuda_graph == CudaGraphImpl::none) return 0;
  // Captured graphs share one private pool in schedule order (Transformer Engine's
  // make_graphed_callables with Megatron-LM's _order), so their activations are the ones
  // counted above; each captured layer and microbatch adds its static input and output.
  return 2 * layer_input * std::max(layers, layers_held);
}

double workspace_bytes(const BufferInputs& b, double fp8_gemms) {
  double bytes = b.facts.workspaces_mib * kMiB;
  // FP8 delayed scaling's amax histories and scales (cost_fp8_amax_history.hpp; torchao's FP8
  // under FSDP2 keeps none).
  if (!b.st.torch) bytes += amax_history_bytes(fp8_delayed(b.l), b.l.fp8_amax_history, fp8_gemms);
  return bytes;
}

double cuda_context_bytes(const BufferInputs& b) {
  return b.facts.cuda_context_mib * kMiB + colocated_engine_bytes(b.l, b.facts);
}

}  // namespace ladle::plan::mem
