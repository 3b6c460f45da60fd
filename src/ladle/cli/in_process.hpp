#pragma once
// in_process.hpp: ladle's commands run inside another program (the Python module, `ladle mcp`)
// exactly as the binary runs them. Each run builds its own CLI::App and writes to the streams it
// is given, so two runs, one after the other or on two threads, share nothing; a command run
// with `--json` here prints the same bytes as `ladle COMMAND ... --json`.

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/util/error.hpp"

namespace ladle::cli {

/// How a run that failed failed: the line the binary prints on standard error, and its parts.
struct Failure {
  ErrorKind kind = ErrorKind::usage;
  std::string line;     ///< "file:line:col: error: field: ..." or "ladle: error: ..."
  std::string message;  ///< the message alone, without the location
  SourceLocation where;
  bool flags = false;  ///< the command line itself was wrong (CLI11 refused a flag or value)
};

/// What a run left: the exit code (exit_code.hpp) and, when it ended in an error, the error.
struct CliOutcome {
  int exit_code = 0;
  std::optional<Failure> failure;
};

/// Runs `ladle ARGS...` (`args` without the program's name) writing to `out` and `err` what the
/// binary writes to standard output and standard error, the error line included. Never throws
/// on any input; an error becomes the outcome's failure and exit code 2 (1 for a "no").
CliOutcome run_cli(std::span<const std::string> args, std::ostream& out, std::ostream& err);

/// The JSON type of a tool parameter, from the CLI11 option it is generated from.
enum class ParamType { boolean, integer, number, string };

/// One input of a tool: one option or positional argument of the command's CLI11 definition.
struct ToolParam {
  std::string name;  ///< snake_case: "--row-tokens" is "row_tokens", a positional keeps its name
  std::string flag;  ///< "--row-tokens"; empty for a positional argument
  ParamType type = ParamType::string;
  bool multiple = false;  ///< takes a list (a repeatable option or a positional taking many)
  bool required = false;
  std::string description;                ///< the option's --help text
  std::vector<std::string> choices;       ///< from a one_of() check; empty when any value
  std::optional<long long> minimum;       ///< from an integer_in() or positive_integer() check
  std::optional<long long> maximum;
};

/// A command as a function of named arguments whose result is the command's `--json` object.
struct Tool {
  std::string name;                  ///< "plan", "tune_status"
  std::vector<std::string> command;  ///< the words that select it: {"tune", "status"}
  std::string summary;               ///< the command's one-line summary
  std::vector<ToolParam> params;
};

/// Arguments that do not fit a tool's parameters: an unknown name, a value of the wrong type, a
/// required one missing. Callers answer it as a caller's mistake (Python raises TypeError, MCP
/// answers "invalid params"), not as the command's error.
class ArgumentError : public Error {
 public:
  ArgumentError(std::string param, const std::string& message);
  /// The parameter at fault ("" when the arguments as a whole are).
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

/// The tools: model, gpu, predict, plan, check, score, show, diff and tune status, each with the
/// parameters generated from its command's CLI11 options (less --json, --help and what only
/// shapes a table). Built once; the same for every caller.
const std::vector<Tool>& tools();

/// The tool named `name`, or nullptr.
const Tool* find_tool(std::string_view name);

/// The command line (without the program's name, with `--json`) that runs `tool` on
/// `arguments`, a JSON object of parameter names to values: booleans for flags, integers,
/// numbers, strings, arrays of them for a parameter that takes many; null means not given.
/// Throws ArgumentError for a name that is no parameter, a value of the wrong type, a missing
/// required parameter, or arguments that are not an object.
std::vector<std::string> tool_args(const Tool& tool, const nlohmann::json& arguments);

/// What one tool run gave.
struct ToolRun {
  int exit_code = 0;
  std::optional<Failure> failure;
  std::string json_text;  ///< what the command printed: its --json object, or "" when none
  std::string err;        ///< what it printed on standard error
};

/// Runs `tool` with `arguments` in-process (tool_args, then run_cli). Throws ArgumentError as
/// tool_args does; every error of the command itself is in the result.
ToolRun run_tool(const Tool& tool, const nlohmann::json& arguments);

/// The JSON Schema (draft 2020-12) of a tool's arguments: one property per parameter with its
/// type, description, enum and bounds, and the required ones listed.
nlohmann::ordered_json tool_input_schema(const Tool& tool);

/// A recipe (file path or catalog name, as every command takes it) as JSON: the canonical YAML
/// that `ladle show RECIPE --format yaml` prints, each plain scalar typed as YAML 1.2's core
/// schema reads it (null, true/false, integers, floats), a quoted one as a string. Throws
/// Error as resolve_recipe does.
nlohmann::ordered_json read_recipe_json(const std::string& name_or_path);

}  // namespace ladle::cli
