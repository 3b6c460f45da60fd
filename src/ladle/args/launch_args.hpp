#pragma once
// launch_args.hpp: the launches of a launch script (or a recipe's `run:` block), read as bash would
// run them: variables, defaults (`${X:-d}`) and arrays the script sets are expanded, launchers
// (ray start, ray job submit, torchrun, srun, mpirun, deepspeed, uv run, bash -c) are told apart
// from the training entry point, and environment switches (exports, `KEY=VALUE cmd` prefixes,
// `--runtime-env-json` env_vars) are collected. `ladle diff` compares two of them launch by launch;
// run_script.hpp gives the rules their one-value-per-flag view of the same reading.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::args {

/// One argument of a launcher or an entry point.
struct LaunchArg {
  std::string flag;                 ///< "--lr", or the placeholder itself ("${MODEL_ARGS[@]}")
  std::vector<std::string> values;  ///< words after the flag up to the next flag; empty for a switch
  bool placeholder = false;         ///< an array expansion whose words the script does not set
  bool unresolved = false;          ///< a value expands something the script does not set ($HF_CKPT, $(...))
  int line = 0;                     ///< 1-based line of the flag in the script
  size_t command = 0;               ///< index of its launch in LaunchArgs::commands; kLauncherArg for a launcher's own
  /// As the script wrote it when that is not `flag`: a Megatron-Bridge override's key or
  /// run_recipe.py option (bridge_args.hpp), for errors and the not-priced list.
  std::string spelled;
  int col = 0;  ///< 1-based column of the argument in the script (0: not kept, or expanded from elsewhere)
  /// Read from Megatron-Bridge's syntax (an override or a run_recipe.py option), which only a
  /// Megatron-Bridge job takes: Megatron-LM's, slime's and miles' argparse parsers refuse it.
  bool bridge = false;
  /// How a job writes the argument back: shell[0] the flag and shell[1 + i] values[i], each one
  /// bash word that stands for what the script meant: its literal text quoted (util::shell_quote),
  /// and the expansions the script leaves to the run ($HF_CKPT, "${X:-d}", $(nproc)) as written.
  /// A word is literal exactly when its shell form is shell_quote of its text. Empty when the
  /// argument was not read word by word from a script (ladle's defaults, a Bridge override).
  std::vector<std::string> shell;
  /// The first expansion of its words that the run makes and ladle cannot read ($(...), `...`,
  /// $1, $$; see is_variable_reference), as written; empty when there is none. A job refuses it.
  std::string runs;
  /// The file that sets it when it is not the script read: a file the script sources or runs
  /// (ladle --script records it); empty for the script itself.
  std::string file;
  bool operator==(const LaunchArg&) const = default;
};

/// LaunchArg::command of a launcher's own argument (torchrun's, ray's, srun's): no training argument.
inline constexpr size_t kLauncherArg = static_cast<size_t>(-1);

/// One environment switch: an `export NAME=VALUE` line, a `NAME=VALUE cmd` prefix or an env var of
/// `ray job submit --runtime-env-json`.
struct LaunchExport {
  std::string name;
  std::string value;  ///< expanded where the script sets the variables; else as written
  int line = 0;
  bool unresolved = false;
  std::string how = "export";  ///< export | prefix | runtime-env
  /// The value as one bash word (see LaunchArg::shell); empty when not read from a script word.
  std::string shell;
  bool operator==(const LaunchExport&) const = default;
};

/// One training launch: the launchers in front of the entry point and the entry point itself.
struct Launch {
  std::vector<std::string> launchers;    ///< outermost first: {"srun", "torchrun"}, {"ray job submit"}
  std::vector<LaunchArg> launcher_args;  ///< every launcher's arguments, flags as spelt
  std::string command;                   ///< the entry point as written: "python3 train.py"
  std::string entry;                     ///< compared form: "python train.py" (interpreter and file name)
  std::vector<LaunchArg> args;           ///< the entry point's arguments, in order
  std::vector<LaunchExport> env;         ///< prefixes and runtime-env env vars of this launch
  int line = 0;                          ///< line where the launch starts
  std::string file;                      ///< the file of `line` when not the script read (LaunchArg::file)
  bool operator==(const Launch&) const = default;
};

/// A word of a launch that bash expands when the script runs into something ladle cannot read
/// from the script: a command substitution ($(...), `...`), a special parameter ($1, $$, $?) or a
/// ${...} form ladle does not follow. ladle compares the word as its text; `ladle check` names it.
struct RunTimeWord {
  std::string word;       ///< the word's text, the expansion kept as written
  std::string expansion;  ///< the first such expansion, as written
  int line = 0;           ///< 1-based line in the script
  int col = 0;            ///< 1-based column of the word (0: not known, e.g. inside `bash -c`)
  bool operator==(const RunTimeWord&) const = default;
};

/// What a script launches.
struct LaunchArgs {
  std::vector<std::string> commands;  ///< each launch's entry point as written, in order
  std::vector<LaunchArg> args;        ///< every launcher and entry-point argument, in order
  std::vector<LaunchExport> exports;  ///< the export lines, in order
  std::vector<Launch> launches;       ///< the training launches, in order
  std::vector<Launch> setup;          ///< launcher-only commands (ray start): launchers and args, no entry
  /// Megatron-Bridge overrides of the training launches that set no argument (`model.x=null`,
  /// `key=[]`, a switch set false): the knob keeps its default, but the word is still
  /// run_recipe.py's syntax, which no other engine takes. Flag: the word; line and col: where.
  std::vector<LaunchArg> unset_overrides;
  /// The words of the launches (launchers and entry points) that expand at run time, in order.
  std::vector<RunTimeWord> run_time_words;
  bool operator==(const LaunchArgs&) const = default;
};

/// Reads `script` like bash: backslash-newline continuations, single and double quotes (removed),
/// `$(...)` kept whole (unresolved), comments, here-documents (skipped), `;`, `&&`, `||`, `|`
/// between commands; `X=...`, `export X=...`, `A=(...)`, `read -ra A <<< "$X"` set variables that
/// later words expand (`$X`, `${X}`, `${X:-default}`, `${A[@]}`). Commands that are neither a
/// launch nor set anything (echo, if, pkill, ...) are skipped. Throws Error(input) at file:line for
/// an unterminated quote, `$(` or backtick, and for a launch after a top-level `exit` (never
/// reached); at file:line:col when the script holds more than limits::kMaxArguments words, or its
/// expansions build a word over limits::kMaxLaunchScriptBytes, more than kMaxArguments words in
/// all, or more than limits::kMaxLaunchExpansionBytes of text in all (variables and arrays that double
/// each other).
LaunchArgs parse_launch_args(std::string_view script, const std::string& path);

/// Whether an expansion kept as written (`$NAME`, `${NAME:-word}`, `$(cmd)`) only reads a
/// variable: $NAME, ${NAME}, ${NAME[@]}, or ${NAME:-word} (also :=, :+, -, =, +) whose word
/// expands nothing. Anything else runs or reads something at run time.
bool is_variable_reference(std::string_view written);

/// `text` as one bash word in which its `$NAME` and `${NAME}` are expanded (in double quotes) and
/// every other byte is literal (util::shell_quote): how a job writes a value of ladle's own
/// defaults ("$HF_CKPT") that no script word gave.
std::string variable_shell_word(std::string_view text);

}  // namespace ladle::args
