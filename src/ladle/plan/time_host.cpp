// time_host.cpp: host launches and CUDA graphs (see time_host.hpp).
#include "ladle/plan/time_host.hpp"

#include <algorithm>

namespace ladle::plan::timing {

namespace {

// Which launches a layer's CUDA graphs capture (--cuda-graph-impl, --cuda-graph-scope): a captured
// part is replayed without the host. Full-iteration graphs capture everything; layer graphs with
// no scope capture whole layers; partial scopes capture attention (attn), the dense MLP (mlp),
// the router with the shared expert unless it overlaps (moe_router), the dispatcher's preprocess
// (moe_preprocess) and a token-dropping MoE block (moe). Megatron-LM's
// transformer_engine/graph-scope rules: megatron/core/transformer/cuda_graphs.py and the GB200
// write-up's 2.3 (NVIDIA/Megatron-LM docs/discussions/deepseek-v3-gb200-optimization).
struct Captured {
  bool attn = false, mlp = false, router = false, shared = false, preprocess = false,
       experts = false;
};

Captured captured(const Layout& l) {
  Captured g;
  if (l.cuda_graph == CudaGraphImpl::none) return g;
  if (l.cuda_graph == CudaGraphImpl::full_iteration || l.graph_modules == 0) {
    return Captured{true, true, true, true, true, true};
  }
  g.attn = has(l.graph_modules, GraphModule::attn);
  g.mlp = has(l.graph_modules, GraphModule::mlp);
  g.router = has(l.graph_modules, GraphModule::moe_router);
  g.shared = g.router && !l.shared_overlap;
  g.preprocess = g.router && has(l.graph_modules, GraphModule::moe_preprocess);
  g.experts = has(l.graph_modules, GraphModule::moe) && l.capacity > 0;
  return g;
}

}  // namespace

Blocks forward_blocks(const KindInputs& in, const LayerForward& f) {
  const Layout& l = in.l;
  const bool moe = in.moe;
  // The router's kernels, as the GB200 write-up counts them (data/hw/kernels.yaml): 72, or 31 with
  // --moe-router-fusion (Megatron-LM's default is off). The flex path's published 17 kernels for
  // router and preprocess together come with the fused router; without it the kernels the fusion
  // removes are launched as well.
  const auto& kf = hw::kernel_facts();
  const double unfused_router = l.router_fusion ? 0.0 : kf.router_launches - kf.router_launches_fused;
  const double router_launches =
      moe ? (l.dispatcher == MoeDispatcher::flex ? kf.router_launches_flex : kf.router_launches_fused) + unfused_router
          : 0.0;
  // The all-to-all dispatcher permutes, exchanges counts and tokens and unpermutes on each side;
  // the flex dispatcher fuses the permute into its dispatch and combine kernels.
  const double dispatch_launches = moe && l.ep * l.etp > 1 ? (l.dispatcher == MoeDispatcher::flex ? 4.0 : 8.0) : 0.0;
  Blocks b;
  b.attention = f.module(GemmModule::attention);
  b.attention += f.module(GemmModule::mla_up);
  b.attention += f.module(GemmModule::indexer);
  b.attention += f.core_attention;
  b.attention.launches += 10;
  b.mlp = f.module(GemmModule::dense_mlp);
  b.mlp.launches += 10;
  b.shared = f.module(GemmModule::shared_expert);
  b.router = f.module(GemmModule::router);
  b.router.launches += router_launches;
  b.experts = f.expert;
  b.experts.launches += dispatch_launches / 2 + (moe ? 2.0 : 0.0);  // combine side, activation
  b.preprocess = Work{0, dispatch_launches / 2};
  return b;
}

double host_launches(const KindInputs& in, const Blocks& b) {
  const Captured graph = captured(in.l);
  auto host = [&](const Work& m, bool is_captured) { return is_captured ? 0.0 : m.launches; };
  return host(b.attention, graph.attn) + host(b.shared, graph.shared) + host(b.router, graph.router) +
         host(b.preprocess, graph.preprocess) + host(b.experts, graph.experts) +
         host(b.mlp, in.moe ? graph.experts : graph.mlp);
}

// Host-bound layers: the backward pass launches about twice the forward's kernels (dgrad and
// wgrad per GEMM). A layer whose launches take the host longer than the GPU needs for its work
// runs at the host's pace (the GB200 write-up's "CPU overhead": gaps between kernels).
double host_time(const KindInputs& in, double launches_fwd, double launches_recompute, double gpu_s) {
  const double host_s = in.r.host_launch * (3 * launches_fwd + launches_recompute);
  return std::max(0.0, host_s - gpu_s);
}

}  // namespace ladle::plan::timing
