#pragma once
// bridge_args.hpp: a Megatron-Bridge job's arguments read as the Megatron-LM arguments they set, so
// that one reader (the knob reader, the job reader, `ladle diff`, the rules) reads every engine.
//
// Megatron-Bridge's scripts/training/run_recipe.py takes trailing Hydra overrides of its
// ConfigContainer (`model.tensor_model_parallel_size=4`, `+key=v`, `++key=v`, `~key`), a few
// argparse options that stand for overrides (`-tp 4`, `--seq_length 4096`), and mixed-precision
// recipes by name (`mixed_precision=bf16_mixed`). A layout knob's override is the knob table's
// `.bridge` column (layout/knobs.hpp, read as data only); other keys are data/launch/engines.yaml's
// `bridge:` table; the options its `bridge_options:` table and the recipe names its
// `bridge_mixed_precision:` table. An override of a key ladle does not know keeps the key as its
// flag (the planner lists it as not priced). Values are read as Hydra reads them
// (hydra/core/override_parser, as used by src/megatron/bridge/training/utils/omegaconf_utils.py at
// NVIDIA-NeMo/Megatron-Bridge 067f987d): true/false/null in any case, 'quoted' or "quoted" strings,
// lists [a,b]; a bare a,b is a sweep, which run_recipe.py does not run.
//
// PEFT: `--mode lora`, `peft=lora` and a `--recipe *_peft_*` without --mode are LoRA at its default
// rank and alpha; `peft.dim`,
// `peft.alpha` and `peft.target_modules=[...]` are the LoRA knobs' `.bridge` overrides (the rows
// miles' --lora-rank, --lora-alpha and --target-modules set), read under miles' spellings.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/args/launch_args.hpp"

namespace ladle::args {

/// Whether `word` is a Megatron-Bridge override: `a.b=v` (lower-case dotted key) or
/// `mixed_precision=v`, after an optional `+`, `++` or `~` (`~a.b` alone deletes a key).
bool is_bridge_override(std::string_view word);

/// The Megatron-LM arguments an override stands for, each with `spelled` set to the override's key
/// (none when it leaves a knob at its default: `null`, an empty list, a switch set false where
/// the switch is the only spelling). Throws Error(input) at file:line naming the key for a value
/// that is not what the key takes (a word for a count, an unclosed list, a sweep). `col` is the
/// override's column, which the errors and the arguments keep.
std::vector<LaunchArg> bridge_override_args(const std::string& word, const std::string& file,
                                            int line, bool unresolved = false, int col = 0);

/// The arguments a run_recipe.py option stands for (`-tp 4`, `--seq_length 4096`), or nullopt when
/// `arg` is none of them. Throws Error(input) when it has no value or several.
std::optional<std::vector<LaunchArg>> bridge_option_args(const LaunchArg& arg,
                                                         const std::string& file);

/// One launch's PEFT scheme settled: with no --mode, a complete recipe named *_peft_* or *_lora_*
/// (`--recipe gpt_oss_20b_peft_config`) is LoRA, as run_recipe.py infers the mode from the name;
/// and the LoRA rank and alpha a scheme stands for (`--mode lora`, `peft=lora`, the recipe's name:
/// LoRA's defaults) are dropped where the launch sets them itself (`peft.dim=8`, `peft.alpha=16`),
/// as run_recipe.py applies the overrides to the recipe's adapter after building it.
void settle_peft_defaults(std::vector<LaunchArg>& args);

/// The mixed-precision recipe names ladle reads (data/launch/engines.yaml), in file order.
std::vector<std::string> bridge_mixed_precision_names();

}  // namespace ladle::args
