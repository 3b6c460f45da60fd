// score_json.hpp: the JSON form of `ladle score`'s reports (key order is the output order).
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/recipe/recipe.hpp"
#include "ladle/verify/rl_score.hpp"
#include "ladle/verify/score.hpp"

namespace ladle::verify {

/// One log's window and figures; span_s is null when the log has no timestamps.
nlohmann::ordered_json to_json(const RunScore& run);

/// The report's figures from gpus to notes; absent optional figures are null.
nlohmann::ordered_json to_json(const ScoreReport& report);

/// One RL log's window of rollouts.
nlohmann::ordered_json to_json(const RlRunScore& run);

/// The RL report's figures from gpus to notes, with the phase split.
nlohmann::ordered_json to_json(const RlScoreReport& report);

/// The recipe's prediction beside the measured tokens/s per GPU, with measured / predicted.
nlohmann::ordered_json prediction_json(const Predicted& predicted, double measured_tokens_per_s_per_gpu);

}  // namespace ladle::verify
