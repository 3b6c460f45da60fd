#pragma once
// layout_rules.hpp: what makes a layout runnable for a model, a GPU count and a batch: the
// divisibility rules Megatron-LM and slime assert at start-up, checked before any GPU is rented.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/model/model_spec.hpp"

namespace ladle::layout {

/// The run a layout is checked against.
struct LayoutContext {
  int64_t gpus = 0;            ///< GPUs of the run (0: not checked)
  int64_t gpus_per_node = 8;   ///< GPUs sharing one NVLink domain
  int64_t row_tokens = 8192;   ///< tokens per (fixed-length) row
  int64_t global_batch = 128;  ///< rows per optimizer step
  int64_t num_layers = 0;      ///< the model's decoder layers, for --num-layers-per-virtual-pipeline-stage (0: unknown)
  bool gpu_fp8 = true;         ///< the GPU has FP8 tensor cores
  bool gpu_mxfp8 = true;       ///< the GPU runs MXFP8 (Blackwell)
  bool gpu_nvfp4 = true;       ///< the GPU runs NVFP4 (Blackwell)
  bool gpu_mxfp4 = true;       ///< the GPU runs MXFP4 (Blackwell, CDNA 4)
  std::string gpu;             ///< the GPU's name, for the precision rules' messages (empty: not known)
};

/// The context a layout of `model` is checked against on `gpus` GPUs of type `gpu`
/// (`gpus_per_node` to an NVLink domain), rows of `row_tokens` tokens and `global_batch` rows a
/// step: the model's layers and the precisions the GPU's tensor cores run (precision_context).
/// Every command builds its context here (plan's
/// checking_context for a Cluster and Workload), so that predict, plan, check, calibrate and tune
/// apply the same rules.
LayoutContext checking_context(const ModelSpec& model, const GpuSpec& gpu, int64_t gpus, int64_t gpus_per_node,
                               int64_t row_tokens, int64_t global_batch);

/// `layout` with dp derived from the GPU count (when 0), max_tokens derived from
/// rows_per_mb * row_tokens / cp (when 0), and vpp from a pipeline layout string or from
/// vpp_layers (with the context's num_layers). Throws Error(usage) when tp * pp * cp does not
/// divide the GPU count.
Layout resolve_layout(Layout layout, const LayoutContext& context);

/// Decoder layers on each virtual pipeline stage (size pp * vpp, virtual stage v of rank r at
/// v * pp + r), as Megatron-LM builds them: from the pipeline layout string; or first/last
/// (0: shared evenly with the middle stages), each rank's layers split evenly over its vpp
/// chunks; the embedding and loss counted as layers with account_embedding/account_loss. Empty
/// when the layers cannot be split that way.
std::vector<int64_t> virtual_stage_layers(const Layout& layout, int64_t num_layers);

/// Decoder layers on each pipeline stage (size pp): the sums of virtual_stage_layers over each
/// rank's chunks, or an empty vector when the layers cannot be split.
std::vector<int64_t> stage_layers(const Layout& layout, int64_t num_layers);

/// A spec fragment that places `num_layers` on `pp` stages of `vpp` chunks when an even split
/// cannot: the embedding (and loss) counted as layers ("account_embedding=on"), else uneven first
/// and last stages ("first=3,last=3"); empty when pp < 2 or nothing fits.
std::string suggest_split(int64_t pp, int64_t vpp, int64_t num_layers);

/// Whether `layout` states how its layers split over the pipeline: first or last stage layers,
/// the embedding or loss counted as a layer, a pipeline layout string or layers per virtual stage.
bool has_split(const Layout& layout);

/// Every way Megatron-LM can split `num_layers` over `layout`'s pp stages of vpp chunks when the
/// layout states no split: the embedding and/or the loss counted as a layer, then uneven first and
/// last stages (--decoder-first/last-pipeline-num-layers, each a multiple of vpp and at most twice
/// the even share), each a copy of `layout` with that split; one per distinct list of stage layers,
/// in that order. Empty when pp < 2.
std::vector<Layout> candidate_splits(const Layout& layout, int64_t num_layers);

/// The split of `layout` as Megatron-LM arguments, e.g. "--decoder-first-pipeline-num-layers 11
/// --decoder-last-pipeline-num-layers 11" or "--account-for-embedding-in-pipeline-split" (the knob
/// table's arguments); empty when it states no split.
std::string split_arguments(const Layout& layout);

/// The same as spec items, e.g. "first=11,last=11"; empty when it states no split.
std::string split_spec(const Layout& layout);

/// Microbatches each data-parallel rank runs per step: ceil(global_batch / dp / rows_per_mb).
int64_t microbatches_per_step(const Layout& layout, const LayoutContext& context);

/// A rule a layout breaks: one line naming the constraint and the numbers, and the knob (its key
/// in layout/knobs.hpp) whose setting breaks it, so that a reader of the job's own arguments can
/// point at the argument that set it.
struct LayoutViolation {
  std::string message;
  std::string_view knob;  ///< "tp", "vpp", ...; empty when no one knob is at fault (the GPU count)
};

/// The first rule `layout` breaks, or nullopt when it is valid. Expects a resolved layout.
std::optional<LayoutViolation> layout_violation(const Layout& layout, const ModelSpec& model,
                                                const LayoutContext& context);

/// The first precision rule `layout` breaks on the context's GPU (FP8 without FP8 tensor cores,
/// MXFP8 off Blackwell, NVFP4 without FP4 tensor cores), or nullopt: the rules of
/// layout_violation that depend on the GPU alone, for `check`, which applies its own rules to the
/// rest of a recipe.
std::optional<LayoutViolation> precision_violation(const Layout& layout, const LayoutContext& context);

/// The precisions `gpu` runs (FP8 from an FP8 peak; MXFP8, NVFP4 and MXFP4 from its block-scaled
/// formats), in a context that checks nothing else: checking_context's start, and the time and
/// memory models' own guard.
LayoutContext precision_context(const GpuSpec& gpu);

/// The first rule `layout` breaks, as one line naming the constraint and the numbers
/// ("tp 3 does not divide the 20 attention heads"), or nullopt when it is valid. Expects a
/// resolved layout (dp and max_tokens filled in).
std::optional<std::string> find_layout_violation(const Layout& layout, const ModelSpec& model,
                                                 const LayoutContext& context);

/// Throws Error(input) with the violation, its field path "layout", when there is one.
void require_valid_layout(const Layout& layout, const ModelSpec& model, const LayoutContext& context);

}  // namespace ladle::layout
