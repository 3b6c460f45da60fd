// card_json.cpp: the JSON form of CardRecipe.
#include "ladle/card/card_json.hpp"

namespace ladle::card {

nlohmann::ordered_json to_json(const CardRecipe& r) {
  return {{"file", r.file_name},
          {"task", r.task},
          {"hardware", r.hardware},
          {"gpus", r.recipe.gpu.count},
          {"layout", r.recipe.layout.label},
          {"tokens_per_s_per_gpu", r.recipe.result ? nlohmann::ordered_json(r.recipe.result->tokens_per_s_per_gpu)
                                                   : nlohmann::ordered_json(nullptr)},
          {"claim", r.claim},
          {"status", r.recipe.status}};
}

}  // namespace ladle::card
