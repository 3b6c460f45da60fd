#pragma once
// engines.hpp: the engines ladle writes jobs for, read from data/launch/engines.yaml: family,
// checkout and entry point, how a job gets the model's arguments, the default base arguments, the
// engines' names of each model, the job inputs, precision flags and Megatron-Bridge's spellings of
// the arguments that are not layout knobs (the knob table holds those).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ladle/layout/recipe_layout.hpp"

namespace ladle::launch {

/// One engine's row.
struct EngineInfo {
  std::string family;                 ///< "slime" or "megatron": a base converts within a family
  std::string checkout;               ///< the input variable of its checkout ("SLIME_DIR")
  std::string repository;             ///< where to get it
  std::string entry;                  ///< the entry point inside the checkout ("train_async.py")
  std::string model_args;             ///< source | helper | file | recipe
  std::string source;                 ///< where the job's shape and the defaults come from
  std::vector<std::string> defaults;  ///< the default base's argument words
};

/// One job input variable.
struct InputInfo {
  std::string what;
  std::string kind;     ///< dir | file | prefix | out | any | derived
  std::string command;  ///< for derived: the command whose output sets it
};

/// A Megatron-LM flag's Megatron-Bridge override.
struct BridgeKey {
  std::string flag;
  std::string key;
};

/// The whole table.
struct EngineTable {
  std::map<std::string, EngineInfo> engines;                         ///< by engine name
  std::map<std::string, std::map<std::string, std::string>> models;  ///< model -> engine -> name
  std::map<std::string, InputInfo> inputs;
  std::vector<std::string> fp8_flags;  ///< what an FP8 plan adds to a BF16 base
  std::vector<BridgeKey> bridge;       ///< in file order (the key written, of a list)

  /// The engine's row; asserts it exists (every Engine has one).
  const EngineInfo& engine(layout::Engine engine) const;
  /// The engine's own name of `model` (a ladle model name), or nullopt.
  std::optional<std::string> model_name(const std::string& model, layout::Engine engine) const;
  /// The Megatron-Bridge key of a Megatron-LM flag, or nullptr.
  const BridgeKey* bridge_key(const std::string& flag) const;
  /// The Megatron-LM flag of a Megatron-Bridge key, or nullptr.
  const BridgeKey* bridge_flag(const std::string& key) const;
};

/// The embedded data/launch/engines.yaml (parsed once).
const EngineTable& engine_table();

/// Parses a table in that format; throws Error(input) at file:line:col for a missing key.
EngineTable parse_engine_table(const std::string& yaml, const std::string& file);

}  // namespace ladle::launch
