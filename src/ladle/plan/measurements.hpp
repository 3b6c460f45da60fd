#pragma once
// measurements.hpp: the public training set, data/measurements/*.yaml. Each file is one
// publication: its source (URL, or repository + path + commit), the system it ran on as the
// source describes it, and its runs (model, GPUs, layout, workload, the figure as published with
// its unit and, for TFLOP/s, the FLOP convention; peak memory where published). The reader turns
// each run into a Measurement with tokens/s per GPU, the figure calibrate fits.

#include <string>
#include <string_view>
#include <vector>

#include "ladle/plan/calibrate.hpp"

namespace ladle::plan {

/// One publication a measurement file draws on.
struct MeasurementSource {
  std::string id;  ///< short id, unique over the set ("torchtitan-2024-12")
  std::string title;
  std::string publisher;  ///< who measured; leave-one-source-out leaves one publisher out
  std::string url;        ///< a URL, or
  std::string repo;       ///< owner/name with `path` and `commit`
  std::string path;
  std::string commit;
  std::string engine;  ///< the training stack that ran
  std::string transformer_engine;  ///< the Transformer Engine release the runs used, where stated
  std::string file;    ///< the measurement file
  bool operator==(const MeasurementSource&) const = default;
};

/// A training set: its sources and every run, in file order.
struct MeasurementSet {
  std::vector<MeasurementSource> sources;
  std::vector<Measurement> runs;
};

/// The units a measured figure may be published in ("tokens/s/gpu", "tflops/s/gpu",
/// "step_time_s", "gpu_hours_per_trillion_tokens").
std::vector<std::string> measurement_units();
/// The FLOP conventions a TFLOP/s figure may name ("6n", "6n_plus_attention", "megatron_lm",
/// "narayanan_2021").
std::vector<std::string> flop_conventions();

/// FLOPs per trained token under `convention` (see flop_conventions): 6n is 6 x N (the recipes'
/// N); 6n_plus_attention adds 12 x layers x heads x head size x row length, the attention score
/// and value products forward and backward without the causal half (torchtitan's count);
/// megatron_lm is what Megatron-LM's "throughput per GPU (TFLOP/s/GPU)" divides by (its
/// num_floating_point_operations: causal attention, MLA projections, MTP layers and logits);
/// narayanan_2021 is 96 l h^2 (1 + s/(6h) + V/(16 l h)) per token, the GPT count with full
/// activation recomputation of Narayanan et al. 2021, equation (3).
double flops_per_token(const ModelCosts& costs, std::string_view convention);

/// Reads one measurement file. Throws Error(input) at file:line:col naming the field: a missing
/// source (no url, nor repo + path + commit), a measured figure without a unit or with an unknown
/// one, TFLOP/s without a named FLOP convention, a layout or launch arguments that do not parse or
/// are not valid for the model, an unknown model, GPU or key, a repeated run id.
MeasurementSet read_measurements(std::string_view yaml, const std::string& file);

/// read_measurements on a file or on every *.yaml of a folder (sorted); Error(io) when unreadable.
MeasurementSet read_measurements_path(const std::string& path);

/// The embedded training set: every data/measurements/*.yaml (parsed once).
const MeasurementSet& embedded_measurements();

/// What about a layout on a cluster no run of `set` covers: its GPU type, its node network
/// (Gbit/s per node), its MoE dispatcher, FP8, a GPU count outside the measured range. One short
/// phrase each; empty when the layout lies inside what was measured.
std::vector<std::string> outside_measured(const ModelCosts& costs, const Layout& layout,
                                          const Cluster& cluster, const Workload& workload,
                                          const MeasurementSet& set);

/// Appends `more` to `set`; throws Error(input) for a source or run id both hold.
void merge_measurements(MeasurementSet& set, MeasurementSet more);

}  // namespace ladle::plan
