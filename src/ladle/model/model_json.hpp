// model_json.hpp: the JSON form of the model module's value types, as `ladle model --json` prints
// them (key order is the output order). One function per type, so every command that shows a model,
// its parameter counts or its FLOPs shows the same object.
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/model/flops.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"

namespace ladle::model {

/// {name, model_type, source, architecture}: the architecture lists the fields a model has (MLA,
/// CSA, MoE, linear-attention, per-layer and indexer fields only where the model uses them).
nlohmann::ordered_json to_json(const ModelSpec& spec);

/// {n, params (one entry per convention), params_by_role, vision_encoder_params (when nonzero)}.
nlohmann::ordered_json to_json(const ParamCounts& counts);

/// One layer kind's forward FLOPs per token.
nlohmann::ordered_json to_json(const LayerKindFlops& kind);

/// FLOPs per token at a sequence length, with the layer kinds under by_kind.
nlohmann::ordered_json to_json(const FlopsPerToken& flops);

/// One weight tensor: name, shape, copies, section, layer, role, split (expert_split for experts).
nlohmann::ordered_json to_json(const TensorInfo& tensor);

}  // namespace ladle::model
