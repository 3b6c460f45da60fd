#pragma once
// time_terms.hpp: what the time model's terms share. Rates are the achieved speeds of one GPU and
// its links (time_rates.cpp fills them); KindInputs is one layer kind under one layout, the
// microbatch's tokens and the derived sizes every term reads; Work is one module's forward GPU
// seconds and kernel launches; LayerForward gathers one layer's forward terms, which the backward,
// recompute, host and offload terms scale. Each term lives in its own time_<term>.cpp.

#include <array>
#include <cstdint>
#include <string_view>

#include "ladle/hw/hw_facts.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"

namespace ladle::plan::timing {

// time_rates.cpp reads these hardware facts by their short names.
using hw::fabric_for;
using hw::gemm_mamf_fraction;
using hw::kernel_facts;
using hw::KernelFacts;
using hw::nvlink_facts;

inline constexpr double kBf16 = 2;
inline constexpr double kFp32 = 4;

struct Rates {
  double gemm_flops = 0;       // achieved GEMM FLOP/s
  double head_gemm_flops = 0;  // achieved FLOP/s of the output layer's GEMM (BF16 under NVFP4)
  double attention_flops = 0;  // achieved flash-attention FLOP/s
  double attention_backward = 2.5;  // flash backward seconds over forward (five matmuls to two)
  const hw::KernelFacts::HeadDimCurve* attention_head_dims = nullptr;  // the kernel's rate by head size
  bool bf16_fused_attention = false;  // Transformer Engine's fused attention in BF16 (the measured windows' kernel)
  bool fused_attention = false;       // Transformer Engine's fused attention, BF16 or FP8 (measured by length)
  std::string_view gpu;          // the cluster's GPU name (the cluster outlives its rates)
  double hbm = 0;              // achieved HBM bytes/s
  double kernel = 0;           // fixed seconds per kernel
  double nvlink = 0;           // NVLink bytes/s per GPU, one way (the link; collectives.yaml gives the fraction)
  double node_net = 0;         // scale-out bytes/s of one NVLink domain (its nodes' NICs together)
  double domain = 8;           // GPUs of one NVLink domain
  const hw::FabricFacts* nvl = nullptr;  // collectives inside the domain
  const hw::FabricFacts* net = nullptr;  // collectives across domains
  double moe_sync = 0;               // seconds per MoE layer pass with experts over several GPUs
  double host_launch = 0;            // host seconds per launched kernel
  double te_host = 1;                // host cost of a Transformer Engine GEMM call over a plain launch
  double a2a_hidden = 0;             // share of the EP all-to-all a2a overlap hides
  double dualpipe_comm_sms = 0;      // share of the GPU's SMs DualPipe's all-to-all kernels hold
  double imbalance = 1;              // routed tokens on the busiest expert rank over the mean
  double host_link = 0;              // device-host bytes/s per GPU (activation offload)
};

// One module's forward: GPU seconds and kernels launched.
struct Work {
  double s = 0;
  double launches = 0;
  Work& operator+=(const Work& o) {
    s += o.s;
    launches += o.launches;
    return *this;
  }
};

inline constexpr size_t kGemmModules = 7;  // GemmModule's values

// One layer kind under one layout, one microbatch of `tokens` tokens per GPU (after CP).
struct KindInputs {
  const ModelCosts& c;
  const LayerKind& kind;
  const Layout& l;
  const Rates& r;
  const Workload& w;
  double tokens = 0;
  double tp = 1, etp = 1;
  double sp_div = 1;  // TP under sequence parallel, else 1
  double h = 0;       // hidden size
  // Per-layer attention geometry (step3p7, gemma4): this kind's heads and head sizes, the model's
  // where a kind does not say.
  int64_t heads = 0, kv_heads = 0, head_dim = 0, v_head_dim = 0;
  bool fp8 = false;       // FP8 (the workload's precision) or NVFP4: TE quantizes each GEMM's inputs
  double per_gemm = 1;    // launches per GEMM: an FP8 GEMM launches its input's quantisation besides
  bool moe = false;       // the kind has routed experts
  double imbalance = 1;   // the busiest expert rank computes and receives this times the mean
  double routed_tokens = 0;  // routed token copies this GPU computes
  double moe_ffn = 0;        // routed expert width on this GPU (over ETP)
};

// One layer's forward terms, seconds (GEMMs and attention also with their launches).
struct LayerForward {
  std::array<Work, kGemmModules> dense_by_module{};
  double dense = 0;       // the dense GEMMs' seconds
  Work expert;            // the grouped expert GEMMs
  double cast_bytes = 0;  // FP8 quantisation traffic (memory-bound, outside the GEMMs)
  Work core_attention;
  double elementwise = 0;
  double routed_bytes = 0;  // memory-bound bytes of the routed token copies
  double tp = 0, ep = 0, cp = 0;
  Work module(GemmModule m) const { return dense_by_module[static_cast<size_t>(m)]; }
  double compute() const { return dense + expert.s + core_attention.s + elementwise; }
};

}  // namespace ladle::plan::timing
