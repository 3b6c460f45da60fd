#pragma once
// The planner's answer to "how many GPUs?" for a model's page: for each model and GPU type of the
// catalog, the best predicted layout at each GPU count of a sweep (plan::plan_layouts, the same
// search as `ladle plan --gpus N,N,...`), with its 80% interval, on the workload of the catalog's
// own recipe (row length, global batch, precision), and the throughput / cost frontier.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe_io.hpp"

namespace ladle::site {

/// The best predicted layout at one GPU count, or why there is none.
struct SweepCount {
  int64_t gpus = 0;
  bool fits = false;         ///< a layout fits; otherwise `reason` says why none does
  std::string reason;        ///< the planner's one line when nothing fits or nothing is valid
  std::string layout;        ///< the best layout's label, e.g. "TP1 PP1 EP8 DP8"
  double tokens_per_s_per_gpu = 0;
  double tokens_per_s_low = 0;   ///< 80% interval
  double tokens_per_s_high = 0;
  double usd_per_million_tokens = 0;
  double memory_gib = 0;     ///< worst stage, per GPU
  double capacity_gib = 0;   ///< usable HBM per GPU
  bool frontier = false;     ///< no other count gives more total tokens/s for less per token
  bool operator==(const SweepCount&) const = default;
};

/// The sweep of one model on one GPU type.
struct ModelSweep {
  std::string model;     ///< as the recipes name it
  std::string gpu;       ///< GPU type, as the recipes name it
  std::string instance;  ///< the node priced
  std::string workload;  ///< e.g. "rows of 8,192 tokens, global batch 128, bf16"
  std::string basis;     ///< the catalog recipe whose workload the sweep uses
  std::vector<SweepCount> counts;  ///< in GPU-count order
  bool operator==(const ModelSweep&) const = default;
};

/// The GPU counts a site sweeps unless told otherwise: powers of two from 1 to 512.
std::vector<int64_t> default_sweep_counts();

/// One sweep per (model, GPU type) of `loaded` that the planner can price, over `counts` and the
/// GPU counts of its recipes, in catalog order of first appearance. Each count is searched on its
/// own thread (up to the machine's hardware threads). A pair whose recipe the planner cannot read
/// (unknown model or GPU) gets no sweep; a count where no layout is valid or fits keeps the
/// planner's reason.
std::vector<ModelSweep> sweep_models(const std::vector<recipe::LoadedRecipe>& loaded,
                                     const std::vector<int64_t>& counts);

/// Hours to train `tokens` tokens at `tokens_per_s_per_gpu` on `gpus` GPUs.
double hours_to_tokens(double tokens, double tokens_per_s_per_gpu, int64_t gpus);

}  // namespace ladle::site
