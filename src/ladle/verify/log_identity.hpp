#pragma once
// log_identity.hpp: does a training log belong to the recipe (or the other log) it is scored or
// compared with? What the log states about its run, its engine (the format) and the model, batch
// and layout arguments it prints, against the recipe's.

#include <string>

#include "ladle/recipe/recipe.hpp"
#include "ladle/runlog/run_log.hpp"

namespace ladle::verify {

/// What of a log is held against a recipe.
enum class LogIdentity {
  model,  ///< the model's shape only (a reference run may have had another engine or layout)
  run,    ///< the model, the engine, the global batch and the parallel sizes; a log that states
          ///< its batch (not CI golden values)
};

/// Throws Error(input) at the log's line that states it, naming the first field that differs from
/// `recipe` (read from `recipe_path`) and both values: a log of another model, engine, batch or
/// layout. A field the log does not state, or states as no number ("None"), is not compared; a
/// log that states nothing is accepted. The model's shape is compared when the recipe's model is
/// in ladle's catalog; the engine when stack.framework names one ladle knows.
void check_log_matches_recipe(const runlog::RunLog& log, const Recipe& recipe, const std::string& recipe_path,
                              LogIdentity what);

/// Throws Error(input) at the candidate's line when the two logs state different values for a
/// field of the model's shape (hidden_size, num_layers, ...): runs of different models.
void check_logs_same_model(const runlog::RunLog& reference, const runlog::RunLog& candidate);

}  // namespace ladle::verify
