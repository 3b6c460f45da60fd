// memory_buffers.hpp: the buffers beside the model's tensors: the MoE dispatcher's (DeepEP,
// HybridEP, all-to-all), Transformer Engine's TP-overlap userbuffers, NCCL's, CUDA graphs' static
// inputs and outputs, workspaces and the CUDA context.
#pragma once

#include "ladle/layout/layout.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/hw/memory_facts.hpp"
#include "ladle/plan/memory_inputs.hpp"
#include "ladle/plan/model_costs.hpp"

namespace ladle::plan::mem {

/// What the buffer terms read.
struct BufferInputs {
  const ModelCosts& c;
  const Layout& l;
  const Cluster& cluster;
  const hw::MemoryFacts& facts;
  const Storage& st;
  double tokens = 0;  ///< tokens of one microbatch per CP rank
};

/// The MoE token dispatcher's buffers on one GPU (0 without experts).
double dispatch_buffer_bytes(const BufferInputs& b);
/// Transformer Engine's TP-overlap userbuffers (0 without --tp-comm-overlap).
double tp_overlap_buffer_bytes(const BufferInputs& b);
/// NCCL's buffers: every communicator the layout opens on one GPU.
double nccl_buffer_bytes(const BufferInputs& b);
/// CUDA graphs' static inputs and outputs: `layer_input` bytes each way for each captured layer
/// and microbatch (`layers` held, `layers_held` over the microbatches in flight).
double cuda_graph_bytes(const Layout& l, double layer_input, double layers, double layers_held);
/// cuBLAS / cuDNN workspaces, plus FP8 delayed scaling's amax histories for `fp8_gemms` GEMMs.
double workspace_bytes(const BufferInputs& b, double fp8_gemms);
/// The CUDA context, plus a colocated inference engine's share.
double cuda_context_bytes(const BufferInputs& b);

}  // namespace ladle::plan::mem
