// card_json.hpp: the JSON form of an imported card's recipes, as `ladle card import --json` prints
// them (key order is the output order).
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/card/card.hpp"

namespace ladle::card {

/// file, task, hardware, gpus, layout, tokens_per_s_per_gpu (the card's measurement), claim, status.
nlohmann::ordered_json to_json(const CardRecipe& recipe);

}  // namespace ladle::card
