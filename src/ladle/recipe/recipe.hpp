#pragma once
// The Recipe value type: schema_version 1, every field of the seed recipes. Field order here is
// the key order of the YAML file; data/schema/recipe.schema.yaml documents each field (a test keeps
// the two in agreement). Enumerated values are kept as their YAML spelling and checked on load.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ladle {

struct RecipeGpu {
  std::string type;      ///< GPU name as in the hardware catalog, e.g. "H200"
  int64_t memory_gb = 0;  ///< HBM per GPU, decimal GB as marketed (141)
  int64_t count = 0;     ///< GPUs in the run
  int64_t per_node = 0;  ///< GPUs per node
  std::string instance;  ///< e.g. "AWS p5en.48xlarge"
  bool operator==(const RecipeGpu&) const = default;
};

struct RecipeAuthor {
  std::string name;
  std::string url;
  bool operator==(const RecipeAuthor&) const = default;
};

struct RecipeStack {
  std::string framework;
  std::string megatron_lm;
  std::string transformer_engine;
  std::string pytorch;
  std::string cuda;
  std::string nccl;
  std::string deepep;
  std::string python;
  std::string network;
  std::string source;
  bool operator==(const RecipeStack&) const = default;
};

struct DatasetBuild {
  std::string name;
  std::string tokenizer;
  std::string loss_mask;
  int64_t rows = 0;
  int64_t row_tokens = 0;
  int64_t padding_tokens = 0;
  int64_t seed = 0;
  std::string packing;
  double supervised_token_ratio = 0;
  std::string parquet_sha256;
  int64_t parquet_bytes = 0;
  std::string builder;
  bool operator==(const DatasetBuild&) const = default;
};

struct RecipeDataset {
  std::string name;
  std::string source;
  std::string revision;
  std::string license;
  std::string rows_sha256;
  std::optional<DatasetBuild> build;
  bool operator==(const RecipeDataset&) const = default;
};

/// An RL workload (slime / miles): what one rollout generates and how the trainer consumes it. The
/// names follow slime's arguments (slime/utils/arguments.py): --rollout-batch-size,
/// --n-samples-per-prompt, --rollout-max-prompt-len, --rollout-max-response-len,
/// --num-steps-per-rollout, --rollout-num-gpus, --rollout-num-gpus-per-engine, --colocate.
struct RlWorkload {
  std::string algorithm;             ///< grpo | gspo | ppo | reinforce_plus_plus | ... (--advantage-estimator)
  int64_t prompts_per_rollout = 0;   ///< --rollout-batch-size
  int64_t samples_per_prompt = 0;    ///< --n-samples-per-prompt
  int64_t steps_per_rollout = 1;     ///< optimizer steps per rollout
  int64_t prompt_max_tokens = 0;     ///< --rollout-max-prompt-len
  int64_t response_max_tokens = 0;   ///< --rollout-max-response-len
  std::optional<double> prompt_mean_tokens;    ///< measured or expected mean prompt length
  std::optional<double> response_mean_tokens;  ///< measured or expected mean response length
  std::string mode;                  ///< colocated_sync | disaggregated_sync | disaggregated_async
  int64_t rollout_gpus = 0;          ///< GPUs of the SGLang engines (all of them when colocated)
  int64_t gpus_per_engine = 1;       ///< --rollout-num-gpus-per-engine
  bool operator==(const RlWorkload&) const = default;
};

struct Workload {
  int64_t row_tokens = 0;    ///< tokens per row (fixed-length rows); RL: the longest sample
  std::string rows;          ///< what the rows are, e.g. "SFT conversations"
  int64_t global_batch = 0;  ///< rows per optimizer step
  std::string precision;     ///< bf16 | fp8
  RecipeDataset dataset;
  std::optional<RlWorkload> rl;  ///< an RL recipe's workload; absent for a training-only recipe
  bool operator==(const Workload&) const = default;
};

struct LayerSplit {
  int64_t first = 0;  ///< decoder layers on the first pipeline stage
  int64_t last = 0;   ///< decoder layers on the last pipeline stage
  bool operator==(const LayerSplit&) const = default;
};

struct Recompute {
  std::string granularity;                ///< full | selective
  std::optional<std::string> method;      ///< uniform | block (full only)
  std::optional<int64_t> num_layers;      ///< full only
  std::optional<std::vector<std::string>> modules;  ///< selective only; absent: core_attn
  bool operator==(const Recompute&) const = default;
};

struct Offload {
  double optimizer_fraction = 0;  ///< fraction of optimizer states on the host, 0..1
  bool overlap_d2h_h2d = false;   ///< --overlap-cpu-optimizer-d2h-h2d
  bool operator==(const Offload&) const = default;
};

/// One optional field of a recipe's `layout:` block as the YAML holds it: true/false (a flag), an
/// integer, a number, a string (a choice or text) or a list of strings (a set); the knob row whose
/// recipe column is `name` gives the kind.
using LayoutFieldValue = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;
struct LayoutField {
  std::string name;
  LayoutFieldValue value;
  bool operator==(const LayoutField&) const = default;
};

struct RecipeLayout {
  std::string label;
  std::string summary;
  std::string highlights;
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t vpp = 1;
  int64_t cp = 1;
  int64_t ep = 1;
  int64_t etp = 1;
  int64_t dp = 1;
  bool sequence_parallel = false;
  std::optional<LayerSplit> layer_split;
  int64_t max_tokens_per_gpu = 0;
  int64_t rows_per_microbatch = 1;
  std::optional<Recompute> recompute;
  std::optional<Offload> offload;
  std::string dispatcher;  ///< alltoall | allgather | flex
  /// The optional knob fields the block states, in the knob table's order (layout/knobs.hpp): each
  /// is the recipe column of one knob row, read and written through that row (its kind, names and
  /// range). Absent means the knob's default, or what the run script sets.
  std::vector<LayoutField> knobs;
  /// The optional field `name` (the knob row's recipe column), or nullptr when the block leaves it out.
  const LayoutFieldValue* knob(std::string_view name) const {
    for (const LayoutField& f : knobs) {
      if (f.name == name) return &f.value;
    }
    return nullptr;
  }
  bool operator==(const RecipeLayout&) const = default;
};

struct ActiveParams {
  int64_t count = 0;  ///< N: parameters a token multiplies through (models/README convention)
  std::string source;
  std::string revision;
  bool operator==(const ActiveParams&) const = default;
};

/// The share of an RL step's wall time spent in each phase, fractions that sum to 1 (verify/rl_score.hpp
/// says how the log's times are split).
struct RlPhaseSplit {
  double rollout = 0;        ///< generation the trainer waits for (all of it when synchronous)
  double log_prob = 0;       ///< forward-only passes of the policy and the reference
  double train = 0;          ///< the optimizer steps
  double weight_update = 0;  ///< sending the new weights to the engines
  double other = 0;          ///< the rest: offload and onload, data preparation, waits
  bool operator==(const RlPhaseSplit&) const = default;
};

/// What an RL run measured (`ladle score --write` of a slime / miles RL log).
struct RlResult {
  double samples_per_s = 0;                   ///< trained samples per second, all GPUs
  double trained_tokens_per_s_per_gpu = 0;    ///< prompt + response tokens trained per second per GPU
  double usd_per_million_trained_tokens = 0;  ///< 0 when no price was known
  double step_time_s = 0;                     ///< mean wall time of one rollout step
  RlPhaseSplit phase_split;
  bool operator==(const RlResult&) const = default;
};

struct RecipeResult {
  double tokens_per_s_per_gpu = 0;
  double usd_per_million_tokens = 0;
  double step_time_cv_percent = 0;
  double mfu = 0;  ///< fraction, 6 N tokens/s per GPU / dense BF16 peak
  std::optional<std::string> mfu_note;
  ActiveParams active_params;
  std::string measured;  ///< date YYYY-MM-DD
  int64_t steps_per_run = 0;
  std::vector<int64_t> window;  ///< [first, last] step of the measured window, inclusive
  int64_t window_tokens = 0;
  int64_t runs = 0;
  bool profiler = false;
  double gpu_hours = 0;
  std::optional<std::string> gpu_hours_note;
  /// Measured peak memory per GPU, GiB: the largest max-reserved figure of the logs' memory lines
  /// over every rank (`ladle score --write`); absent when the logs print none.
  std::optional<double> peak_memory_gib;
  std::optional<RlResult> rl;  ///< an RL run's figures; absent for a training-only recipe
  bool operator==(const RecipeResult&) const = default;
};

struct ComponentTest {
  std::string test;
  std::string shape;
  std::string gpu;
  std::string date;  ///< YYYY-MM-DD
  std::string result;  ///< pass | fail
  std::string detail;
  std::optional<std::string> note;
  bool operator==(const ComponentTest&) const = default;
};

struct Convergence {
  int64_t steps = 0;
  std::string result;  ///< pass | fail
  double correlation = 0;
  double final_loss_difference = 0;
  int64_t pointwise_failures = 0;
  std::optional<std::string> note;
  /// Where the two loss series live (paths relative to the recipe, or URLs); optional.
  std::optional<std::string> reference_log;
  std::optional<std::string> candidate_log;
  bool operator==(const Convergence&) const = default;
};

struct Correctness {
  std::string result;  ///< pass | fail | pending
  std::string summary;
  std::string reference;
  std::string configuration;  ///< pass | fail | pending
  std::vector<ComponentTest> component_tests;
  std::optional<Convergence> convergence;
  std::string rules;
  bool operator==(const Correctness&) const = default;
};

/// One part of a predicted step time or memory, in seconds or GB.
struct PredictedPart {
  std::string name;
  double value = 0;
  bool operator==(const PredictedPart&) const = default;
};

/// What the planner predicted for this recipe (status planned, or kept beside a measurement).
struct Predicted {
  std::string planner;  ///< e.g. "ladle 0.1.0 (calibration default)"
  double tokens_per_s_per_gpu = 0;
  double step_time_s = 0;
  double mfu = 0;
  double usd_per_million_tokens = 0;
  /// The 80% interval of tokens_per_s_per_gpu (the calibration's leave-one-source-out spread);
  /// absent in a recipe written before the planner gave one.
  std::optional<double> tokens_per_s_per_gpu_low;
  std::optional<double> tokens_per_s_per_gpu_high;
  double memory_gib = 0;  ///< worst stage, per GPU, GiB (2^30 bytes)
  std::vector<PredictedPart> step_time_breakdown;  ///< seconds per part
  std::vector<PredictedPart> memory_breakdown;     ///< GiB per part, worst stage
  std::vector<PredictedPart> stage_memory;         ///< GiB per GPU of each pipeline stage, in order
  /// N and the GPU's dense BF16 peak the predicted MFU used, so `ladle score` gives MFU for a model
  /// given as a config.json path (not in the catalog); absent in a recipe written before.
  std::optional<ActiveParams> active_params;
  std::optional<double> peak_tflops;  ///< dense BF16 TFLOP/s per GPU
  bool operator==(const Predicted&) const = default;
};

struct Recipe {
  int64_t schema_version = 1;
  std::string model;
  RecipeGpu gpu;
  RecipeAuthor author;
  std::string status;  ///< planned | measured | verified
  RecipeStack stack;
  Workload workload;
  RecipeLayout layout;
  std::optional<RecipeResult> result;
  std::optional<Correctness> correctness;
  std::vector<std::pair<std::string, std::string>> env;  ///< in order; equals the run's exports
  std::vector<std::string> patches;
  std::string run;    ///< the launch script, a literal block
  std::string notes;  ///< Markdown, a literal block; optional ("" = no notes key)
  std::optional<Predicted> predicted;  ///< written only when present
  /// Comment lines before the first key (without the "# "); kept so a file round-trips.
  std::vector<std::string> header_comments;
  bool operator==(const Recipe&) const = default;
};

}  // namespace ladle
