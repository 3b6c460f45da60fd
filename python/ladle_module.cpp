// ladle_module.cpp: `import ladle`, ladle's commands as Python functions. Each function is a tool
// of cli/in_process.hpp: its keyword arguments are the command's options (`row_tokens` for
// --row-tokens), its positional arguments the command's positional ones, and it returns the
// command's --json object as plain Python values (dict, list, str, int, float, bool, None),
// equal to what `ladle COMMAND ... --json` prints. The command runs with the GIL released.
//
// Errors: arguments that are no parameter or of the wrong type raise TypeError naming the
// parameter; an error of the command raises ladle.Error, whose str() is the binary's one-line
// error and whose .message, .file, .line, .col, .field, .kind and .exit_code are its parts.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/in_process.hpp"
#include "ladle/util/text.hpp"

namespace py = pybind11;

namespace {

using ladle::cli::ArgumentError;
using ladle::cli::Failure;
using ladle::cli::ParamType;
using ladle::cli::Tool;
using ladle::cli::ToolParam;

constexpr const char* kErrorClass = R"(
class Error(Exception):
    """An error of a ladle command: str(e) is the one line `ladle` prints on standard error.

    message: the message without its location; file, line, col, field: where in the input, None
    when unknown; kind: 'usage', 'input', 'io', 'internal' or 'no' (the command's answer is no,
    such as no layout fits); exit_code: the binary's exit code (1 for 'no', else 2); result: the
    command's JSON object when it printed one before failing (check: unreadable files), else None.
    """

    def __init__(self, text, message=None, file=None, line=None, col=None, field=None,
                 kind="internal", exit_code=2, result=None):
        super().__init__(text)
        self.message = text if message is None else message
        self.file = file
        self.line = line
        self.col = col
        self.field = field
        self.kind = kind
        self.exit_code = exit_code
        self.result = result
)";

const char* kind_name(ladle::ErrorKind kind) {
  switch (kind) {
    case ladle::ErrorKind::usage: return "usage";
    case ladle::ErrorKind::input: return "input";
    case ladle::ErrorKind::io: return "io";
    case ladle::ErrorKind::internal: return "internal";
    case ladle::ErrorKind::no: return "no";
  }
  return "internal";
}

py::object to_python(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return py::none();
    case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<long long>());
    case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case nlohmann::ordered_json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::array: {
      py::list out;
      for (const auto& item : j) out.append(to_python(item));
      return out;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = to_python(value);
      return out;
    }
    default: return py::none();  // binary and discarded values: no command prints them
  }
}

[[noreturn]] void raise_type_error(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw py::error_already_set();
}

// One Python argument as the JSON value tool_args reads; an int for a text parameter (gpus=8) is
// written in decimal and a path-like object as its path.
nlohmann::json to_argument(const Tool& tool, const ToolParam& param, py::handle value, bool in_list = false) {
  const auto wrong = [&]() {
    raise_type_error(tool.name + "() argument '" + param.name + "': unsupported type '" +
                     std::string(py::str(value.get_type().attr("__name__"))) + "'");
  };
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    long long number = 0;
    try {
      number = value.cast<long long>();
    } catch (const py::cast_error&) {
      raise_type_error(tool.name + "() argument '" + param.name + "': integer out of range");
    }
    if (param.type == ParamType::string) return std::to_string(number);
    return number;
  }
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::hasattr(value, "__fspath__")) {
    py::object path = py::module_::import("os").attr("fspath")(value);
    if (py::isinstance<py::str>(path)) return path.cast<std::string>();
    wrong();
  }
  if (!in_list && (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))) {
    nlohmann::json items = nlohmann::json::array();
    for (py::handle item : value) items.push_back(to_argument(tool, param, item, true));
    return items;
  }
  wrong();
  return nullptr;
}

nlohmann::json to_arguments(const Tool& tool, const py::args& args, const py::kwargs& kwargs) {
  nlohmann::json out = nlohmann::json::object();
  std::vector<const ToolParam*> positionals;
  for (const ToolParam& p : tool.params) {
    if (p.flag.empty()) positionals.push_back(&p);
  }
  size_t next = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (next >= positionals.size()) {
      raise_type_error(tool.name + "() takes " + std::to_string(positionals.size()) + " positional argument" +
                       (positionals.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                       " were given");
    }
    const ToolParam& p = *positionals[next];
    if (p.multiple) {
      // A parameter that takes many takes the rest: check("a.yaml", "b.yaml").
      nlohmann::json items = nlohmann::json::array();
      for (; i < args.size(); ++i) {
        nlohmann::json item = to_argument(tool, p, args[i]);
        if (item.is_array()) {
          for (auto& x : item) items.push_back(std::move(x));
        } else {
          items.push_back(std::move(item));
        }
      }
      out[p.name] = std::move(items);
      ++next;
      break;
    }
    out[p.name] = to_argument(tool, p, args[i]);
    ++next;
  }
  std::vector<std::string> names;
  for (const ToolParam& p : tool.params) names.push_back(p.name);
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    const ToolParam* param = nullptr;
    for (const ToolParam& p : tool.params) {
      if (p.name == name) param = &p;
    }
    if (param == nullptr) {
      raise_type_error(tool.name + "() got an unexpected keyword argument '" + name + "'" +
                       ladle::util::did_you_mean(name, names));
    }
    if (out.contains(name)) raise_type_error(tool.name + "() got multiple values for argument '" + name + "'");
    out[name] = to_argument(tool, *param, value);
  }
  return out;
}

[[noreturn]] void raise_ladle_error(const std::string& text, const Failure* failure, int exit_code,
                                    py::object result) {
  py::object error_type = py::module_::import("ladle").attr("Error");
  py::dict fields;
  fields["exit_code"] = exit_code;
  fields["result"] = std::move(result);
  if (failure != nullptr) {
    fields["message"] = failure->message;
    fields["kind"] = kind_name(failure->kind);
    if (!failure->where.file.empty()) fields["file"] = failure->where.file;
    if (failure->where.line > 0) fields["line"] = failure->where.line;
    if (failure->where.col > 0) fields["col"] = failure->where.col;
    if (!failure->where.field_path.empty()) fields["field"] = failure->where.field_path;
  }
  py::object error = error_type(text, **fields);
  PyErr_SetObject(error_type.ptr(), error.ptr());
  throw py::error_already_set();
}

py::object call(const Tool& tool, const py::args& args, const py::kwargs& kwargs) {
  const nlohmann::json arguments = to_arguments(tool, args, kwargs);
  try {
    static_cast<void>(ladle::cli::tool_args(tool, arguments));  // a mistyped call is a TypeError
  } catch (const ArgumentError& e) {
    raise_type_error(tool.name + "() " + e.message());
  }
  ladle::cli::ToolRun run;
  {
    py::gil_scoped_release release;
    run = ladle::cli::run_tool(tool, arguments);
  }
  if (run.failure) raise_ladle_error(run.failure->line, &*run.failure, run.exit_code, py::none());
  nlohmann::ordered_json json;
  try {
    json = nlohmann::ordered_json::parse(run.json_text);
  } catch (const nlohmann::ordered_json::exception&) {
    raise_ladle_error("ladle: error: internal: " + tool.name + " printed no JSON object", nullptr, run.exit_code,
                      py::none());
  }
  py::object result = to_python(json);
  if (run.exit_code == ladle::cli::kExitError) {
    // It ran and could not do all of it (check: files it could not read): its first error line.
    std::string text(ladle::util::trim(run.err));
    if (text.empty() && json.contains("errors") && json["errors"].is_array() && !json["errors"].empty()) {
      text = json["errors"][0].get<std::string>();
    }
    text = text.substr(0, text.find('\n'));
    raise_ladle_error(text, nullptr, run.exit_code, result);
  }
  return result;
}

std::string docstring(const Tool& tool) {
  std::string doc = tool.summary + ".\n\nThe result is the dict `ladle " + ladle::util::join(tool.command, " ") +
                    " ... --json` prints.\n\nParameters (keyword; positional where marked):\n";
  for (const ToolParam& p : tool.params) {
    const char* type = p.type == ParamType::boolean   ? "bool"
                       : p.type == ParamType::integer ? "int"
                       : p.type == ParamType::number  ? "float"
                                                      : "str";
    doc += "  " + p.name + " (" + type + (p.multiple ? " or list" : "") + (p.flag.empty() ? ", positional" : "") +
           (p.required ? ", required" : "") + "): " + p.description + "\n";
  }
  doc += "\nRaises TypeError for an unknown or mistyped argument, ladle.Error for the command's error.\n";
  return doc;
}

}  // namespace

PYBIND11_MODULE(ladle, m) {
  m.doc() = "ladle's commands as functions: each returns the command's --json object as Python values.";
  m.attr("__version__") = std::string(ladle::cli::version_text()).substr(6);
  py::dict scope = m.attr("__dict__");
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kErrorClass, scope);
  m.attr("Error").attr("__module__") = "ladle";
  for (const Tool& tool : ladle::cli::tools()) {
    const Tool* t = &tool;  // tools() lives as long as the process
    m.def(
        tool.name.c_str(), [t](const py::args& args, const py::kwargs& kwargs) { return call(*t, args, kwargs); },
        py::doc(docstring(tool).c_str()));
  }
  m.def(
      "read_recipe",
      [](const py::object& recipe) {
        if (!py::isinstance<py::str>(recipe) && !py::hasattr(recipe, "__fspath__")) {
          raise_type_error("read_recipe() argument 'recipe': expected a str or path, got '" +
                           std::string(py::str(recipe.get_type().attr("__name__"))) + "'");
        }
        const std::string name = py::str(py::module_::import("os").attr("fspath")(recipe));
        nlohmann::ordered_json json;
        std::optional<ladle::Error> error;
        {
          py::gil_scoped_release release;
          try {
            json = ladle::cli::read_recipe_json(name);
          } catch (const ladle::Error& e) {
            error = e;
          } catch (const std::exception& e) {
            error = ladle::Error(ladle::ErrorKind::internal, std::string("internal: ") + e.what());
          }
        }
        if (error) {
          const Failure failure{error->kind(), ladle::util::terminal_safe(error->describe()), error->message(),
                                error->where(), false};
          raise_ladle_error(failure.line, &failure, ladle::cli::kExitError, py::none());
        }
        return to_python(json);
      },
      py::arg("recipe"),
      "A recipe (file path or catalog name) as a dict: the canonical YAML `ladle show RECIPE --format yaml`\n"
      "prints, with YAML 1.2 core types. Raises ladle.Error for a recipe ladle cannot read.");
}
