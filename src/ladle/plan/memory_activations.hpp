// memory_activations.hpp: the activations one layer keeps for backward, by layer kind.
#pragma once

#include "ladle/layout/layout.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/memory_inputs.hpp"
#include "ladle/plan/model_costs.hpp"

namespace ladle::plan::mem {

/// Activation bytes one layer of `kind` keeps per token of the microbatch (per CP rank), Megatron-LM's
/// count; `imbalance` is the busiest expert rank's routed copies over the mean.
double layer_activation_bytes(const ModelCosts& c, const LayerKind& kind, const Layout& l, const Storage& st,
                              double imbalance);

/// What torchtitan's per-op selective activation checkpointing keeps of a dense layer, bytes per token.
double torch_selective_bytes(const ModelCosts& c, const Layout& l);

/// The last stage's loss tensors for `tokens` tokens of a microbatch: the logits of the output
/// head and each MTP head and the loss's own copies, bytes.
double logits_bytes(const ModelCosts& c, const Layout& l, const Storage& st, double tokens);

/// Routed copies the busiest expert rank keeps over the mean under `l`'s routing knobs, with
/// `cal`'s imbalance where nothing bounds it.
double routed_imbalance(const Layout& l, const Calibration& cal);

}  // namespace ladle::plan::mem
