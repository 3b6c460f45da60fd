// cmd_mcp.cpp: `ladle mcp`, the Model Context Protocol over stdio: an agent lists ladle's tools
// (model, gpu, predict, plan, check, score, show, diff, tune status) and calls them. Each message is
// one line of JSON-RPC 2.0 on standard input, each answer one line on standard output (the MCP
// stdio transport). The tools are the commands run in-process (in_process.hpp): their inputs are
// the commands' own options, their results the commands' --json objects.
//
// Errors follow the MCP specification (2025-06-18, server/tools "Error Handling"): a message that
// is not JSON (-32700), not a request (-32600), an unknown method (-32601), an unknown tool or
// arguments that do not fit the tool's schema (-32602) are JSON-RPC errors; an error of the command
// itself (an unknown model, an invalid layout) is a tool result with isError true, whose text is
// the command's one-line error, so that the agent reads it and can correct the call.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <istream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/in_process.hpp"
#include "ladle/util/json.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {

using Json = nlohmann::ordered_json;

/// The longest message read: tool arguments are names, numbers and at most a launch script
/// (`args`), far below this; a longer line is refused unread rather than held in memory.
constexpr size_t kMaxMessageBytes = size_t{4} << 20;

/// The protocol versions this server speaks, newest first (modelcontextprotocol.io/specification).
/// The tools and their results are the same in each.
constexpr const char* kProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

// JSON-RPC 2.0 error codes (jsonrpc.org/specification, section 5.1).
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

Json error_reply(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json result_reply(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

std::string server_version() {
  const std::string text = version_text();  // "ladle 0.1.0"
  return text.substr(text.find(' ') + 1);
}

Json initialize_result(const nlohmann::json& params) {
  std::string version = kProtocolVersions[0];
  if (const auto it = params.find("protocolVersion"); it != params.end() && it->is_string()) {
    for (const char* known : kProtocolVersions) {
      if (it->get<std::string>() == known) version = known;
    }
  }
  return Json{{"protocolVersion", version},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "ladle"}, {"version", server_version()}}},
              {"instructions",
               "ladle plans, predicts and checks LLM training recipes (Megatron-LM via slime, miles, "
               "Megatron-Bridge). Each tool is the ladle command of its name; its result is that "
               "command's --json object."}};
}

Json tools_list_result() {
  Json list = Json::array();
  for (const Tool& tool : tools()) {
    list.push_back(Json{{"name", tool.name},
                        {"description", tool.summary},
                        {"inputSchema", tool_input_schema(tool)}});
  }
  return Json{{"tools", list}};
}

Json tool_error(const std::string& text, Json structured) {
  Json result{{"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
  if (structured.is_object()) result["structuredContent"] = std::move(structured);
  return result;
}

Json failure_json(const Failure& f) {
  Json e{{"message", f.message}};
  if (!f.where.file.empty()) e["file"] = f.where.file;
  if (f.where.line > 0) e["line"] = f.where.line;
  if (f.where.col > 0) e["col"] = f.where.col;
  if (!f.where.field_path.empty()) e["field"] = f.where.field_path;
  return Json{{"error", e}};
}

// tools/call: the reply, a tool result or a JSON-RPC error.
Json call_tool(const Json& id, const nlohmann::json& params) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return error_reply(id, kInvalidParams, "tools/call: params.name must be a tool's name");
  }
  const std::string tool_name = name->get<std::string>();
  const Tool* tool = find_tool(tool_name);
  if (tool == nullptr) {
    std::vector<std::string> names;
    for (const Tool& t : tools()) names.push_back(t.name);
    return error_reply(id, kInvalidParams,
                       fmt::format("unknown tool '{}'{}; the tools are {}", util::terminal_safe_line(tool_name),
                                   util::did_you_mean(tool_name, names), util::join(names, ", ")));
  }
  const auto arguments = params.find("arguments");
  const nlohmann::json args = arguments == params.end() ? nlohmann::json::object() : *arguments;
  ToolRun run;
  try {
    run = run_tool(*tool, args);
  } catch (const ArgumentError& e) {
    return error_reply(id, kInvalidParams, e.message());
  }
  if (run.failure && run.failure->flags) return error_reply(id, kInvalidParams, run.failure->line);
  if (run.failure) return result_reply(id, tool_error(run.failure->line, failure_json(*run.failure)));
  Json structured;
  try {
    structured = Json::parse(run.json_text);
  } catch (const Json::exception&) {
    return error_reply(id, kInternalError, fmt::format("{} printed no JSON object (exit {})", tool->name, run.exit_code));
  }
  const std::string text(util::trim(run.json_text));
  if (run.exit_code == kExitError) {
    // It ran and could not do all of it (check: a file it could not read): the lines it printed.
    const std::string said(util::trim(run.err));
    return result_reply(id, tool_error(said.empty() ? text : said, std::move(structured)));
  }
  Json result{{"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"isError", false}};
  if (structured.is_object()) result["structuredContent"] = std::move(structured);
  return result_reply(id, std::move(result));
}

// One message: the reply, or nothing for a notification or a response.
std::optional<Json> handle(const nlohmann::json& message) {
  if (!message.is_object()) {
    return error_reply(nullptr, kInvalidRequest,
                       message.is_array() ? "invalid request: batches are not supported; send one request per line"
                                          : "invalid request: expected a JSON-RPC 2.0 request object");
  }
  const auto id_it = message.find("id");
  const bool has_id = id_it != message.end();
  if (has_id && !id_it->is_string() && !id_it->is_number_integer()) {
    return error_reply(nullptr, kInvalidRequest, "invalid request: id must be a string or an integer");
  }
  const Json id = has_id ? Json(*id_it) : Json(nullptr);
  const auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return error_reply(id, kInvalidRequest, "invalid request: jsonrpc must be \"2.0\"");
  }
  const auto method_it = message.find("method");
  if (method_it == message.end()) {
    // A response to a request of ours: this server sends none, so there is nothing to match.
    if (has_id && (message.contains("result") || message.contains("error"))) return std::nullopt;
    return error_reply(id, kInvalidRequest, "invalid request: no method");
  }
  if (!method_it->is_string()) return error_reply(id, kInvalidRequest, "invalid request: method must be a string");
  // Notifications (initialized, cancelled, ...) get no reply; a call runs to its end before the
  // next message is read, so there is nothing to cancel.
  if (!has_id) return std::nullopt;
  const std::string method = method_it->get<std::string>();
  const auto params_it = message.find("params");
  if (params_it != message.end() && !params_it->is_object()) {
    return error_reply(id, kInvalidParams, fmt::format("{}: params must be an object", method));
  }
  const nlohmann::json params = params_it == message.end() ? nlohmann::json::object() : *params_it;
  if (method == "initialize") return result_reply(id, initialize_result(params));
  if (method == "ping") return result_reply(id, Json::object());
  if (method == "tools/list") return result_reply(id, tools_list_result());
  if (method == "tools/call") return call_tool(id, params);
  return error_reply(id, kMethodNotFound,
                     fmt::format("method not found: '{}' (ladle serves initialize, ping, tools/list, tools/call)",
                                 util::terminal_safe_line(method)));
}

void send(Io& io, const Json& reply) {
  // One line: dump() escapes newlines inside strings; bytes that are not UTF-8 are replaced.
  io.out << reply.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
  io.out.flush();
}

void answer(Io& io, const std::string& line, int64_t line_number) {
  std::optional<Json> reply;
  try {
    nlohmann::json message;
    try {
      message = util::parse_json(line, SourceLocation{"stdin", static_cast<int>(line_number), 0, ""});
    } catch (const Error& e) {
      send(io, error_reply(nullptr, kParseError, e.describe()));
      return;
    }
    reply = handle(message);
  } catch (const std::exception& e) {
    reply = error_reply(nullptr, kInternalError, std::string("internal: ") + e.what());
  }
  if (reply) send(io, *reply);
}

int run_mcp(Io& io, std::istream& in) {
  std::streambuf* const input = in.rdbuf();
  std::string line;
  bool over = false;  // the current line passed kMaxMessageBytes: skipped to its end
  int64_t line_number = 0;
  for (;;) {
    const int c = input->sbumpc();
    if (c == std::char_traits<char>::eof() || c == '\n') {
      ++line_number;
      if (over) {
        send(io, error_reply(nullptr, kInvalidRequest,
                             fmt::format("request refused: a message may hold at most {} bytes",
                                         util::format_grouped(static_cast<long long>(kMaxMessageBytes)))));
      } else {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!util::trim(line).empty()) answer(io, line, line_number);
      }
      line.clear();
      over = false;
      if (c == std::char_traits<char>::eof()) break;
      continue;
    }
    if (over) continue;
    if (line.size() >= kMaxMessageBytes) {
      over = true;
      std::string().swap(line);
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return kExitOk;
}

}  // namespace

void add_mcp_command(CLI::App& command, Io& io) {
  command.callback([&io] { io.exit_code = run_mcp(io, std::cin); });
}

}  // namespace ladle::cli
