#pragma once
// hw_facts.hpp: the published measurements the time model prices communication and kernels with,
// data/hw/collectives.yaml (NCCL bus bandwidth against message size per fabric and node count,
// DeepEP dispatch/combine bandwidth, per-call latency) and data/hw/kernels.yaml (GEMM MAMF over
// the dense peak per GPU and precision; flash-attention efficiency per kernel).

#include <string>
#include <string_view>
#include <vector>

#include "ladle/hw/gpu_spec.hpp"

namespace ladle::hw {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
const char* to_string(Collective c);

/// One published sweep: link fraction against log message size for one node count.
struct CollectiveSweep {
  Collective collective = Collective::all_reduce;
  double nodes = 1;
  std::vector<double> log_bytes;  ///< ascending
  std::vector<double> fraction;   ///< of the link (see collectives.yaml), same length
  std::string source;
};

/// One fabric class of collectives.yaml.
struct FabricFacts {
  std::string name;                ///< nvlink, efa, ethernet, infiniband
  std::vector<std::string> match;  ///< substrings of an instance's `fabric`
  double latency_s = 0;
  std::string like;  ///< fabric whose tables stand in for missing ones
  std::vector<CollectiveSweep> sweeps;
};

/// The head-size reference of the attention fractions: the kernels' fractions are measured at
/// (and the training set mostly runs) heads of this size.
inline constexpr double kAttentionReferenceHeadDim = 128;
/// The sequence length the attention fractions stand for (kernels.yaml attention_length).
inline constexpr double kAttentionReferenceTokens = 8192;

struct KernelFacts {
  struct Gemm {
    std::string gpu;
    double bf16 = 0;
    double fp8 = 0;  ///< 0: fp8_default
    /// Block-scaled FP8 (the MXFP8 and blockwise recipes) of the FP8 peak; 0: the fp8 fraction.
    double fp8_block = 0;
    double nvfp4 = 0;  ///< of the dense FP4 peak; 0: the fp8 fraction
    double mxfp4 = 0;  ///< of the dense FP4 peak; 0: the nvfp4 fraction (one FP4 MMA on Blackwell)
    std::string source;
  };
  std::vector<Gemm> gemm;
  double fp8_default = 0;
  double attention_fa3 = 0;
  double attention_fa2 = 0;
  double attention_fa3_fp8 = 0;  ///< FP8 attention's fraction of the dense FP8 peak
  /// A flash kernel's measured forward rate by head size (kernels.yaml head_dim_tflops), in
  /// ascending head size; 128 is among them. FP8 attention takes fa3's (head_dim_from).
  struct HeadDimCurve {
    std::vector<double> head_dim;
    std::vector<double> tflops;
    std::string source;
    std::string measured_on;  ///< the GPU it was measured on
    /// The measured forward TFLOP/s at heads of 128 (kAttentionReferenceHeadDim).
    double at_reference() const;
    /// Whether it measures a head narrower than 128.
    bool has_narrow_head() const { return !head_dim.empty() && head_dim.front() < kAttentionReferenceHeadDim; }
  };
  HeadDimCurve head_dim_fa3;
  HeadDimCurve head_dim_fa2;
  /// A GPU's own measured rate of the fused attention its stack runs there (kernels.yaml
  /// attention_gpus), in the fa3 curve's shape.
  struct GpuAttention {
    std::string gpu;
    std::string kernel;
    HeadDimCurve curve;
    /// Its share of the GPU's peak at heads of 128 over the fa3 curve's share of its GPU's peak,
    /// computed once where the facts load (attention_gpu_ratio).
    double over_reference = 1;
  };
  std::vector<GpuAttention> attention_gpus;
  /// A sliding-window layer's measured rates over the same GPU's causal rates at heads of 128
  /// (kernels.yaml window_attention).
  struct WindowAttention {
    std::vector<std::string> gpus;
    int64_t window = 0;
    int64_t head_dim = 0;
    double forward = 0;   ///< windowed forward TFLOP/s over causal forward TFLOP/s
    double backward = 0;  ///< the same for the backward
    std::string source;
  };
  std::vector<WindowAttention> window_attention;
  /// Causal attention's measured rate by sequence length on a GPU (kernels.yaml
  /// attention_length), forward and backward TFLOP/s at each length, in ascending length;
  /// kAttentionReferenceTokens is among them.
  struct AttentionLength {
    std::vector<std::string> gpus;
    std::vector<double> tokens;
    std::vector<double> forward;
    std::vector<double> backward;
    std::string source;
  };
  std::vector<AttentionLength> attention_length;
  /// Blackwell Ultra's faster softmax (kernels.yaml softmax_exp): the published FP8 attention
  /// forward speedup its SFU brings, the SFU's exponential rate over Blackwell's, and its GPUs.
  double softmax_fp8_forward_speedup = 1;
  double softmax_sfu_ratio = 1;
  /// Derived from the two: the exponential time the tensor cores wait on in the forward, over
  /// the FP8 MMA time (forward = MMA + wait; the speedup divides the wait by the SFU ratio).
  double softmax_exp_wait = 0;
  std::vector<std::string> softmax_fast_gpus;
  /// Kernels the MoE router (and the flex dispatcher's fused preprocess) launches per layer
  /// forward, as published.
  double router_launches = 0;
  double router_launches_flex = 0;
  double router_launches_fused = 0;  ///< the router alone with --moe-router-fusion
  /// DeepEP's normal kernels over a multi-node NVLink domain (more than 8 GPUs), algorithm
  /// bandwidth per GPU, bytes/s.
  double deepep_mnnvl_dispatch = 0;
  double deepep_mnnvl_combine = 0;
};

/// The embedded tables (parsed once; a malformed table is an internal error at its line).
const std::vector<FabricFacts>& fabric_facts();
const KernelFacts& kernel_facts();

/// The fabric class of an instance's `fabric` text ("EFAv3" -> efa, "InfiniBand NDR" ->
/// infiniband); "nvlink" for groups inside an NVLink domain. Unknown fabrics take efa.
const FabricFacts& fabric_for(std::string_view fabric);
const FabricFacts& nvlink_facts();

/// Fraction of the link a `collective` of `bytes` (nccl-tests' size) moves over `nodes` nodes
/// on fabric `f`: interpolated in log(size) and log(nodes), held at the ends.
double link_fraction(const FabricFacts& f, Collective collective, double bytes, double nodes);

/// A device-host link other than PCIe (collectives.yaml host_links: NVLink-C2C on GB200 / GB300).
struct HostLink {
  double bytes_per_s = 0;  ///< one way, per GPU
  std::string source;
};

/// The GPU's listed host link, or nullptr (PCIe: the calibration's host_link_gb_per_s).
const HostLink* host_link(std::string_view gpu);

/// One-way device-host bandwidth per GPU, bytes/s, of host_link(gpu); 0 for a GPU not listed.
double host_link_bytes_per_s(std::string_view gpu);

/// MAMF over dense peak for a GPU ("h200") and precision; a GPU without a row takes the lowest.
double gemm_mamf_fraction(std::string_view gpu, bool fp8);

/// The GPU's measured GEMM row (kernels.yaml), or nullptr where none is published.
const KernelFacts::Gemm* gemm_row(std::string_view gpu);

/// The block-scaled FP8 GEMM's (MXFP8 and blockwise recipes) measured fraction of the GPU's FP8
/// peak; its FP8 fraction where the GPU's row has none.
double gemm_fp8_block_fraction(std::string_view gpu);

/// The NVFP4 GEMM's measured fraction of the GPU's dense FP4 peak; its FP8 fraction where the
/// GPU's row has none.
double gemm_nvfp4_fraction(std::string_view gpu);

/// The MXFP4 GEMM's measured fraction of the GPU's dense FP4 peak; its NVFP4 fraction where the
/// row has none (Blackwell runs both on one FP4 MMA, their scales aside), which is its FP8 one
/// where that is missing too.
double gemm_mxfp4_fraction(std::string_view gpu);

/// The GEMM rates the time model prices on a GPU, TFLOP/s (0 where the GPU lacks the precision),
/// with the kernels.yaml source of its row or, for a GPU with none, the fallback taken.
struct PricedGemmRates {
  double bf16 = 0;
  double fp8 = 0;
  double fp8_block = 0;  ///< MXFP8 and blockwise
  double nvfp4 = 0;
  double mxfp4 = 0;
  std::string source;
  std::string fallback;
};
PricedGemmRates priced_gemm_rates(const GpuSpec& g);

/// Where a GPU's MAMF fraction comes from when none is published for it (the lowest published
/// fraction); empty when the GPU has its own row. Predictions report it.
std::string gemm_mamf_fallback(std::string_view gpu);

/// The rate of attention with heads of `head_dim` over the same kernel's rate at 128 (kernels.yaml
/// head_dim_tflops): linear in the head size between measured sizes, the narrowest measured one's
/// below it; 1 from 128 up (the measured kernels disagree in sign there).
double attention_head_dim_efficiency(const KernelFacts::HeadDimCurve& curve, double head_dim);

/// The measured row of a sliding window of `window` tokens at heads of `head_dim` on `gpu`
/// (kernels.yaml window_attention), or nullptr.
const KernelFacts::WindowAttention* window_attention(std::string_view gpu, int64_t window, int64_t head_dim);

/// Causal attention over `tokens` on `gpu`, each pass's rate over its rate at
/// kAttentionReferenceTokens (kernels.yaml attention_length: the GPU's row, else the first),
/// and the GPU that row was measured on.
struct AttentionLengthRatio {
  double forward = 1;
  double backward = 1;
  std::string_view measured_on;
};
AttentionLengthRatio attention_length_ratio(std::string_view gpu, double tokens);
/// The attention_length row `gpu` is priced by: its own (or its sibling's), else the first; nullptr
/// where kernels.yaml has none.
const KernelFacts::AttentionLength* attention_length_row(std::string_view gpu);

/// The GPU's own attention row (kernels.yaml attention_gpus), or nullptr.
const KernelFacts::GpuAttention* gpu_attention(std::string_view gpu);

/// What the fa3 attention fraction is multiplied by on `g`: its own measured attention's fraction
/// of its peak over cuDNN's on the GPU the fa3 curve was measured on; 1 without a row.
double attention_gpu_ratio(const GpuSpec& g);

}  // namespace ladle::hw
