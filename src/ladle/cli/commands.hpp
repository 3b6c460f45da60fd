#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "ladle/recipe/recipe_io.hpp"

namespace CLI {
class App;
class Validator;
}

namespace ladle::cli {

/// Where a command writes, and the exit code its callback leaves for main().
struct Io {
  std::ostream& out;
  std::ostream& err;
  int exit_code = 0;
};

/// One row of the subcommand table: `add` binds the flags on `command` and sets its callback.
struct Command {
  const char* name;
  const char* summary;
  void (*add)(CLI::App& command, Io& io);
};

/// "ladle 0.1.0": what `ladle version` and `ladle --version` print.
const char* version_text();

/// Every subcommand, in the order `ladle --help` lists them.
std::span<const Command> commands();

/// Adds `--json` (machine-readable output) to a subcommand; defined once for every command.
void add_json_flag(CLI::App& command, bool& json);

/// A recipe named on the command line: a file path, or a catalog name as `ls` and the site show
/// it (the file stem "attune-tp4-pp4", or "<model>/<gpu>/<stem>"). Every command that reads a
/// recipe resolves it here. Throws Error(usage) with "did you mean" when nothing matches,
/// Error(input) for a bad recipe.
recipe::LoadedRecipe resolve_recipe(const std::string& name_or_path);

/// The file to write for a recipe named by path or catalog name (`score --write`,
/// `converge --write`): the path itself, else the catalog recipe's file under the working
/// folder (recipes/<model>/<gpu>/<stem>.yaml, as in a checkout). Throws Error(usage) when the
/// catalog recipe has no such file to write into.
std::string resolve_recipe_file(const std::string& name_or_path);

/// The launch script of a recipe (its `run:` block) named by path or catalog name, or the text of
/// a launch script file. Throws Error(usage)/Error(io).
std::string resolve_launch_script(const std::string& name_or_path);

/// A folder or file holding a Hugging Face model's `file` ("config.json", "tokenizer.json"):
/// `path` itself when it is that file (or any file), `path/file` for a checkpoint folder, and for
/// a repo id such as "Qwen/Qwen3-8B" the first folder that exists of `Qwen/Qwen3-8B`,
/// `models--Qwen--Qwen3-8B/snapshots/<rev>` under $HF_HUB_CACHE or $HF_HOME/hub (the Hugging
/// Face cache layout). Throws Error(usage) saying where it looked when none holds the file.
std::string resolve_hf_file(const std::string& path, const std::string& file);

/// Adds `--quiet` (no progress report on standard error); defined once for every command.
void add_quiet_flag(CLI::App& command, bool& quiet);

/// A CLI11 check that accepts an integer >= 1 and otherwise says "expected a positive integer".
const CLI::Validator& positive_integer();

/// A CLI11 check that accepts an integer from `low` to `high` and otherwise says "expected an
/// integer from 1 to 1,000, got 'x'": the bound of a count that sizes work or memory.
CLI::Validator integer_in(long long low, long long high);

/// A CLI11 check that accepts one of `names` and otherwise says "expected one of a, b or c, got
/// 'x'" with the nearest name ("did you mean 'a'?"); no type noise in --help.
CLI::Validator one_of(std::vector<std::string> names);

}  // namespace ladle::cli
