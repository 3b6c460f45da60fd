#pragma once
// model_args.hpp: Megatron-LM's architecture arguments of a model, from its config (the catalog's
// or the user's config.json): what a job sets MODEL_ARGS to, so that a job needs no engine's model
// file.

#include <optional>
#include <string>
#include <vector>

#include "ladle/model/model_spec.hpp"

namespace ladle::launch {

/// The architecture arguments, or why ladle cannot write them.
struct ModelArgs {
  std::vector<std::string> words;  ///< flags and values, in order ("--num-layers", "48", ...)
  std::string unsupported;         ///< non-empty: what of the model has no arguments here
};

/// Megatron-LM's architecture arguments for `model` (megatron/training/arguments.py: the network
/// size, MoE and MLA groups), with the values a ModelSpec does not hold (rope base and scaling,
/// norm epsilon, position table, router scaling and groups) read from the config the model came
/// from. A model ladle cannot describe in these arguments (linear attention, Mamba, sparse
/// attention indexers, attention sinks, vision towers, per-layer shapes) gets `unsupported`.
ModelArgs model_arch_args(const ModelSpec& model);

}  // namespace ladle::launch
