#include "ladle/cli/in_process.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <regex>
#include <sstream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/util/filesystem_error.hpp"
#include "ladle/util/text.hpp"
#include "ladle/util/yaml_document.hpp"

namespace ladle::cli {

namespace {

Failure failure_of(const Error& e) {
  return Failure{e.kind(), e.kind() == ErrorKind::no ? "ladle: " + e.message() : e.describe(), e.message(),
                 e.where(), false};
}

// The binary's whole run, from the words after its name; every exception ends here.
CliOutcome run_words(std::vector<std::string> words, std::ostream& out, std::ostream& err) {
  Io io{out, err};
  CLI::App app{"ladle: plans, checks, scores and publishes LLM training recipes", "ladle"};
  app.require_subcommand(1);
  app.fallthrough(false);
  app.set_version_flag("--version", version_text(), "print ladle's version and exit");
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    command.add(*sub, io);
  }
  const auto fail = [&err](Failure failure) {
    failure.line = util::terminal_safe(failure.line);  // the line exactly as standard error shows it
    err << failure.line << "\n";
    const int code = failure.kind == ErrorKind::no ? kExitNo : kExitError;
    return CliOutcome{code, std::move(failure)};
  };
  // A misspelt command gets a suggestion instead of CLI11's "a subcommand is required".
  if (!words.empty() && (words[0].empty() || words[0][0] != '-')) {
    std::vector<std::string> names;
    for (const Command& command : commands()) names.emplace_back(command.name);
    if (std::find(names.begin(), names.end(), words[0]) == names.end()) {
      const std::string message =
          fmt::format("unknown command '{}'{}; see ladle --help", words[0], util::did_you_mean(words[0], names));
      return fail(Failure{ErrorKind::usage, "ladle: error: " + message, message, {}, true});
    }
  }
  // `--args "--tensor-model-parallel-size 2 ..."`: a value that begins with dashes is still the
  // value of --args (CLI11 would read it as an option); pass it on as --args=VALUE.
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "--args") {
      words[i] = "--args=" + words[i + 1];
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  std::vector<std::string> argv_words;
  argv_words.reserve(words.size() + 1);
  argv_words.emplace_back("ladle");
  for (std::string& w : words) argv_words.push_back(std::move(w));
  std::vector<char*> word_ptrs;
  for (std::string& w : argv_words) word_ptrs.push_back(w.data());
  try {
    app.parse(static_cast<int>(word_ptrs.size()), word_ptrs.data());
  } catch (const CLI::CallForHelp& e) {
    return CliOutcome{app.exit(e, out, err), std::nullopt};
  } catch (const CLI::CallForAllHelp& e) {
    return CliOutcome{app.exit(e, out, err), std::nullopt};
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return CliOutcome{kExitOk, std::nullopt};
  } catch (const CLI::ParseError& e) {
    return fail(Failure{ErrorKind::usage, std::string("ladle: error: ") + e.what(), e.what(), {}, true});
  } catch (const Error& e) {
    out.flush();
    return fail(failure_of(e));
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder that cannot be read mid-walk is the user's to fix, not ladle's bug.
    out.flush();
    const std::string message = util::describe_filesystem_error(e);
    return fail(Failure{ErrorKind::io, "ladle: error: " + message, message, {}, false});
  } catch (const std::exception& e) {
    out.flush();
    const std::string message = std::string("internal: ") + e.what();
    return fail(Failure{ErrorKind::internal, "ladle: error: " + message, message, {}, false});
  }
  out.flush();
  return CliOutcome{io.exit_code, std::nullopt};
}

// --- tools ---------------------------------------------------------------------------------

struct ToolRow {
  const char* name;
  std::vector<std::string> command;
  std::vector<std::string> left_out;  ///< options that do not change the --json object
};

// The commands an agent or a notebook calls, and the options each leaves out: they choose a
// text format (show --format, check --list-rules) or only shape the table (plan --wide,
// --quiet's progress, which --json already silences).
const std::vector<ToolRow>& tool_rows() {
  static const std::vector<ToolRow> rows = {
      {"model", {"model"}, {}},
      {"gpu", {"gpu"}, {}},
      {"predict", {"predict"}, {}},
      {"plan", {"plan"}, {"wide", "quiet"}},
      {"check", {"check"}, {"list_rules"}},
      {"score", {"score"}, {}},
      {"show", {"show"}, {"format"}},
      {"diff", {"diff"}, {}},
      {"tune_status", {"tune", "status"}, {}},
  };
  return rows;
}

std::string snake_name(std::string text) {
  while (!text.empty() && text.front() == '-') text.erase(text.begin());
  std::replace(text.begin(), text.end(), '-', '_');
  return text;
}

// The bounds and choices that commands.cpp's checks carry in their names.
void read_checks(CLI::Option& option, ToolParam& param) {
  for (int i = 0;; ++i) {
    const CLI::Validator* check = nullptr;
    try {
      check = option.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    const std::string& name = check->get_name();
    const std::vector<std::string> parts = util::split(name, ':');
    if (parts.size() == 3 && parts[0] == "integer_in") {
      param.minimum = std::stoll(parts[1]);
      param.maximum = std::stoll(parts[2]);
    } else if (parts.size() >= 2 && parts[0] == "one_of") {
      param.choices = util::split(name.substr(name.find(':') + 1), '|');
    }
  }
}

ParamType type_of(const CLI::Option& option) {
  if (option.get_expected_max() == 0 || option.get_type_size_max() == 0) return ParamType::boolean;  // a flag
  const std::string type = option.get_type_name();
  if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) return ParamType::integer;
  if (type.rfind("FLOAT", 0) == 0) return ParamType::number;
  return ParamType::string;
}

Tool make_tool(const ToolRow& row) {
  std::ostringstream sink;
  Io io{sink, sink};
  CLI::App app{"ladle", "ladle"};
  const Command* command = nullptr;
  for (const Command& c : commands()) {
    if (row.command.front() == c.name) command = &c;
  }
  LADLE_ASSERT(command != nullptr, "every tool row names a command of the table");
  CLI::App* sub = app.add_subcommand(command->name, command->summary);
  command->add(*sub, io);
  for (size_t i = 1; i < row.command.size(); ++i) sub = sub->get_subcommand(row.command[i]);
  Tool tool{row.name, row.command, sub->get_description(), {}};
  for (CLI::Option* option : sub->get_options()) {
    const bool positional = option->get_positional() && option->get_lnames().empty();
    const std::string name = positional ? option->get_name(true) : snake_name(option->get_lnames().empty()
                                                                                 ? option->get_name()
                                                                                 : option->get_lnames().front());
    if (name == "help" || name == "json") continue;
    if (std::find(row.left_out.begin(), row.left_out.end(), name) != row.left_out.end()) continue;
    ToolParam param;
    param.name = name;
    param.flag = positional ? "" : "--" + option->get_lnames().front();
    param.type = type_of(*option);
    param.multiple = param.type != ParamType::boolean && option->get_items_expected_max() > 1;
    param.required = option->get_required();
    param.description = option->get_description();
    read_checks(*option, param);
    // `plan MODEL` and `plan --model MODEL` are one parameter: the positional one.
    const auto same = std::find_if(tool.params.begin(), tool.params.end(),
                                   [&](const ToolParam& p) { return p.name == param.name; });
    if (same != tool.params.end()) {
      if (!positional) continue;
      *same = std::move(param);
      continue;
    }
    tool.params.push_back(std::move(param));
  }
  return tool;
}

const char* type_word(ParamType type) {
  switch (type) {
    case ParamType::boolean: return "a boolean";
    case ParamType::integer: return "an integer";
    case ParamType::number: return "a number";
    case ParamType::string: return "a string";
  }
  return "a value";
}

std::string json_type_word(const nlohmann::json& value) {
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "a list";
  if (value.is_object()) return "an object";
  return "null";
}

// One value as the command line spells it.
std::string arg_text(const ToolParam& param, const nlohmann::json& value) {
  const auto wrong = [&] {
    return ArgumentError(param.name, fmt::format("argument '{}': expected {}{}, got {}", param.name,
                                                 type_word(param.type), param.multiple ? " or a list of them" : "",
                                                 json_type_word(value)));
  };
  switch (param.type) {
    case ParamType::boolean:
      throw wrong();  // flags are handled by the caller
    case ParamType::integer:
      if (value.is_number_unsigned()) return std::to_string(value.get<unsigned long long>());
      if (value.is_number_integer()) return std::to_string(value.get<long long>());
      throw wrong();
    case ParamType::number:
      if (value.is_number_integer() && !value.is_number_unsigned()) return std::to_string(value.get<long long>());
      if (value.is_number_unsigned()) return std::to_string(value.get<unsigned long long>());
      if (value.is_number_float()) {
        const double x = value.get<double>();
        if (!std::isfinite(x)) {
          throw ArgumentError(param.name, fmt::format("argument '{}': expected a finite number", param.name));
        }
        return fmt::format("{}", x);
      }
      throw wrong();
    case ParamType::string:
      if (value.is_string()) return value.get<std::string>();
      throw wrong();
  }
  throw wrong();
}

}  // namespace

ArgumentError::ArgumentError(std::string param, const std::string& message)
    : Error(ErrorKind::usage, message, SourceLocation{"", 0, 0, param}), param_(std::move(param)) {}

CliOutcome run_cli(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  return run_words(std::vector<std::string>(args.begin(), args.end()), out, err);
}

const std::vector<Tool>& tools() {
  static const std::vector<Tool> all = [] {
    std::vector<Tool> out;
    for (const ToolRow& row : tool_rows()) out.push_back(make_tool(row));
    return out;
  }();
  return all;
}

const Tool* find_tool(std::string_view name) {
  for (const Tool& tool : tools()) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

std::vector<std::string> tool_args(const Tool& tool, const nlohmann::json& arguments) {
  if (!arguments.is_null() && !arguments.is_object()) {
    throw ArgumentError("", fmt::format("{}: expected the arguments as an object of names to values, got {}",
                                        tool.name, json_type_word(arguments)));
  }
  std::vector<std::string> names;
  for (const ToolParam& p : tool.params) names.push_back(p.name);
  if (arguments.is_object()) {
    for (const auto& [key, value] : arguments.items()) {
      if (std::find(names.begin(), names.end(), key) == names.end()) {
        throw ArgumentError(key, fmt::format("{}: unknown argument '{}'{}; it takes {}", tool.name, key,
                                             util::did_you_mean(key, names), util::join(names, ", ")));
      }
    }
  }
  std::vector<std::string> args(tool.command.begin(), tool.command.end());
  std::vector<std::string> positionals;
  for (const ToolParam& p : tool.params) {
    const auto it = arguments.is_object() ? arguments.find(p.name) : arguments.end();
    if (it == arguments.end() || it->is_null()) {
      if (p.required) throw ArgumentError(p.name, fmt::format("{}: missing required argument '{}'", tool.name, p.name));
      continue;
    }
    if (p.type == ParamType::boolean) {
      if (!it->is_boolean()) {
        throw ArgumentError(p.name, fmt::format("argument '{}': expected a boolean, got {}", p.name,
                                                json_type_word(*it)));
      }
      if (it->get<bool>()) args.push_back(p.flag);
      continue;
    }
    std::vector<std::string> values;
    if (it->is_array()) {
      if (!p.multiple) {
        throw ArgumentError(p.name, fmt::format("argument '{}': expected {}, got a list", p.name, type_word(p.type)));
      }
      for (const nlohmann::json& item : *it) values.push_back(arg_text(p, item));
    } else {
      values.push_back(arg_text(p, *it));
    }
    if (p.required && values.empty()) {
      throw ArgumentError(p.name, fmt::format("{}: argument '{}' needs at least one value", tool.name, p.name));
    }
    for (const std::string& v : values) {
      // --flag=VALUE and positionals after "--": a value that begins with a dash stays a value.
      if (p.flag.empty()) {
        positionals.push_back(v);
      } else {
        args.push_back(p.flag + "=" + v);
      }
    }
  }
  args.emplace_back("--json");
  if (!positionals.empty()) {
    args.emplace_back("--");
    for (std::string& v : positionals) args.push_back(std::move(v));
  }
  return args;
}

ToolRun run_tool(const Tool& tool, const nlohmann::json& arguments) {
  const std::vector<std::string> args = tool_args(tool, arguments);
  std::ostringstream out;
  std::ostringstream err;
  const CliOutcome outcome = run_cli(args, out, err);
  return ToolRun{outcome.exit_code, outcome.failure, out.str(), err.str()};
}

nlohmann::ordered_json tool_input_schema(const Tool& tool) {
  nlohmann::ordered_json schema;
  schema["type"] = "object";
  nlohmann::ordered_json properties = nlohmann::ordered_json::object();
  nlohmann::ordered_json required = nlohmann::ordered_json::array();
  for (const ToolParam& p : tool.params) {
    nlohmann::ordered_json item;
    switch (p.type) {
      case ParamType::boolean: item["type"] = "boolean"; break;
      case ParamType::integer: item["type"] = "integer"; break;
      case ParamType::number: item["type"] = "number"; break;
      case ParamType::string: item["type"] = "string"; break;
    }
    if (!p.choices.empty()) item["enum"] = p.choices;
    if (p.minimum) item["minimum"] = *p.minimum;
    if (p.maximum) item["maximum"] = *p.maximum;
    nlohmann::ordered_json property;
    if (p.multiple) {
      // One value or a list of them, as the command line takes one or many.
      property["anyOf"] = nlohmann::ordered_json::array({item, {{"type", "array"}, {"items", item}}});
    } else {
      property = item;
    }
    property["description"] = p.description;
    properties[p.name] = property;
    if (p.required) required.push_back(p.name);
  }
  schema["properties"] = properties;
  if (!required.empty()) schema["required"] = required;
  schema["additionalProperties"] = false;
  return schema;
}

namespace {

// A plain YAML scalar as YAML 1.2's core schema types it.
nlohmann::ordered_json core_scalar(const std::string& text) {
  static const std::regex kNull("~|null|Null|NULL|");
  static const std::regex kTrue("true|True|TRUE");
  static const std::regex kFalse("false|False|FALSE");
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(text, kNull)) return nullptr;
  if (std::regex_match(text, kTrue)) return true;
  if (std::regex_match(text, kFalse)) return false;
  if (std::regex_match(text, kInt)) {
    long long value = 0;
    const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
    return text;  // beyond 64 bits: kept as written
  }
  if (std::regex_match(text, kFloat)) return std::stod(text);
  return text;
}

nlohmann::ordered_json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "?" marks a plain scalar; a quoted one ("!") is a string whatever it holds.
      return node.Tag() == "?" ? core_scalar(node.Scalar()) : nlohmann::ordered_json(node.Scalar());
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const YAML::Node& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      for (const auto& item : node) out[item.first.Scalar()] = yaml_to_json(item.second);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::ordered_json read_recipe_json(const std::string& name_or_path) {
  const recipe::LoadedRecipe loaded = resolve_recipe(name_or_path);
  const std::string canonical = recipe::write_recipe(loaded.recipe);
  return yaml_to_json(util::load_yaml_document(canonical, loaded.path));
}

}  // namespace ladle::cli
