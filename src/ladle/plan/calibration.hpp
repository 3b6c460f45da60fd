#pragma once
// calibration.hpp: the few constants of the time and memory models that physics alone does not
// give (achieved fractions of peak, host optimizer speed, framework overheads). The embedded
// default is data/calibration.yaml, fitted on the recipe catalog by `ladle calibrate`.

#include <string>
#include <string_view>
#include <vector>

namespace ladle::plan {

/// The two-sided 80% quantile of the standard normal: every interval ladle prints (throughput and
/// memory) holds 80% of runs like the training set's, so it is this many log spreads wide a side.
inline constexpr double kNormalQuantile80 = 1.2816;

/// One constant: its value, whether `ladle calibrate` fits it, and the bounds a fit keeps to.
struct CalibrationConstant {
  std::string name;   ///< snake_case key in calibration.yaml
  double value = 0;
  bool fitted = false;  ///< fitted to measured recipes (else a fixed, sourced figure)
  double min = 0;       ///< bounds for fitting (and for reading a file)
  double max = 0;
  std::string unit;
  std::string meaning;  ///< one line: what it is and where a fixed value comes from
  bool fitted_to_peaks = false;  ///< fitted by `ladle calibrate` to measured peak memory, not throughput
  bool operator==(const CalibrationConstant&) const = default;
};

/// The constants by field. Defaults are the priors the fit starts from.
struct Calibration {
  std::string source = "built-in priors";  ///< "embedded:data/calibration.yaml" or the file read
  // Fitted: dimensionless fractions of published ceilings (data/hw/kernels.yaml) and the host
  // overheads no table gives.
  /// Achieved fraction of the GPU's published Maximum Achievable Matmul FLOPS (MAMF, the best
  /// large GEMM of a shape sweep) that a training stack's GEMMs reach.
  double gemm_efficiency = 0.85;
  /// Achieved fraction of the published efficiency of the stack's flash-attention kernel
  /// (FlashAttention-3 / cuDNN: 75% of the BF16 peak on H100; FlashAttention-2: 35%).
  double attention_efficiency = 0.8;
  /// Host Adam updates per second per node, all ranks together. The prior is a published step of
  /// Megatron-LM's distributed optimizer with full CPU offload (torch.optim.AdamW, fused=True):
  /// 15.5 s on rank 0 for Qwen3.5-35B-A3B on 2 nodes of 8 GPUs at TP4 CP4 EP8
  /// (ISEEKYAN/Megatron-LM issue #188). Every parameter sits in exactly one rank's shard at that
  /// layout (TP x DP x CP = EP x ETP x EDP = 16), so a node updates 35e9 / 2 parameters in 15.5 s.
  double cpu_adam_params_per_s = 35e9 / 2 / 15.5;
  /// GPU time lost per MoE layer pass (forward, backward, recompute) when experts are spread over
  /// GPUs: the all-to-all dispatcher waits on the host for the token counts per expert, draining
  /// the GPU queue until the following kernels are launched again.
  double moe_layer_sync_s = 1e-3;
  /// The same per MoE layer pass for the flex dispatcher (DeepEP / HybridEP), whose kernels take
  /// the token counts on the GPU and leave less for the host to wait on.
  double moe_layer_sync_flex_s = 2e-4;
  /// Fraction of that host overhead left with CUDA graphs (--cuda-graph-impl), which replay the
  /// launches without the host.
  double cuda_graph_sync_fraction = 0.3;
  /// Fraction of the compute window an overlapped data-parallel collective really hides
  /// (--overlap-grad-reduce / --overlap-param-gather: one microbatch; FSDP: every microbatch).
  double dp_overlap_hidden_fraction = 0.7;
  /// Fraction of the TP collectives Megatron-LM's --tp-comm-overlap (Transformer Engine's
  /// userbuffers) hides.
  double tp_overlap_hidden_fraction = 0.5;
  /// The same for torchtitan's async TP (PyTorch's SymmetricMemory micro-pipelined all-gather and
  /// reduce-scatter matmuls): another implementation, fitted on its own runs.
  double async_tp_hidden_fraction = 0.5;
  /// Host seconds per kernel a layer launches on an x86 host (Python, PyTorch dispatch, the CUDA
  /// launch): a layer whose launches take the host longer than the GPU takes to run them runs at
  /// the host's pace. CUDA graphs take the launches of what they capture off the host. Fixed: the
  /// published host time of one torch.nn.Linear forward on a DGX H100 (TransformerEngine #2053).
  double host_launch_s = 13.48e-6;
  /// Seconds the GPUs wait on the host once a step, outside the forward and backward: the
  /// optimizer step's host-side passes and the training loop between steps, behind the host
  /// syncs that drain the GPU queue (the gradient norm read back for clipping, the loss).
  double step_host_s = 0.01;
  /// Fraction of the EP all-to-all --overlap-moe-expert-parallel-comm hides behind the compute
  /// of the other microbatch it pairs each one with.
  double a2a_overlap_hidden_fraction = 0.6;
  // Fixed. Bandwidths and latencies of links and collectives are not here: they are the
  // published measurements of data/hw/collectives.yaml.
  double hbm_efficiency = 0.80;        ///< achieved fraction of HBM bandwidth in memory-bound kernels
  double kernel_overhead_s = 5e-6;     ///< fixed cost of one kernel (launch and tail)
  double host_link_gb_per_s = 50;      ///< device-host copy bandwidth per GPU (PCIe Gen5 x16)
  /// Allocator slack: PyTorch's caching allocator with expandable segments
  /// reserves this fraction more than each step's transient tensors (activations, logits, the
  /// working set); fitted by `ladle calibrate` to measured max-reserved peaks and to the runs that
  /// ran, whose peaks were under their GPUs' memory (calibrate_memory.hpp).
  double allocator_slack = 0.10;
  double moe_memory_imbalance = 1.25;  ///< peak over mean routed tokens per expert rank
  double host_memory_usable = 0.85;    ///< fraction of a node's host memory the optimizer may use
  /// Half-width of the printed throughput interval in log space (80%: predicted x exp(+-w)), set
  /// by `ladle calibrate` from the leave-one-source-out residuals.
  double interval_log_halfwidth = 0.25;
  /// Spread (standard deviation) of log(predicted / measured) peak memory, fitted with the
  /// allocator slack (calibrate_memory.hpp): the printed memory interval is its 80% range.
  double memory_log_spread = 0.10;
  /// Covariance of the log of the fitted constants (`ladle calibrate`), in the order of
  /// `covariance_names`: the printed interval of a layout adds the spread its own sensitivity to
  /// those constants gives (delta method) to the residual spread above.
  std::vector<std::string> covariance_names;
  std::vector<std::vector<double>> covariance;
  /// What the constants were fitted on, one line per recipe (kept from the file).
  std::vector<std::string> fitted_on;
  std::string fitted_note;

  bool operator==(const Calibration&) const = default;
};

/// Every constant of `c` with its metadata, in file order.
std::vector<CalibrationConstant> calibration_constants(const Calibration& c);

/// Sets the constant named `name` on `c`; throws Error(internal) for an unknown name.
void set_calibration_constant(Calibration& c, std::string_view name, double value);

/// Reads calibration YAML (a `constants:` map of name: value, optional `fitted_on:` list and
/// `note:`). Throws Error(input) at file:line:col for an unknown constant (with "did you mean"),
/// a value that is not a number or outside the constant's bounds.
Calibration read_calibration(std::string_view yaml, const std::string& file);

/// read_calibration on a file; throws Error(io) when it cannot be read.
Calibration read_calibration_file(const std::string& path);

/// The embedded default, data/calibration.yaml (parsed once).
const Calibration& default_calibration();

/// YAML for `c`, each constant with a comment saying what it is and whether it is fitted.
std::string write_calibration(const Calibration& c, const std::vector<std::string>& header_lines);

}  // namespace ladle::plan
