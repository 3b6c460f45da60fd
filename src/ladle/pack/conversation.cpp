#include "ladle/pack/conversation.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include "ladle/util/utf8.hpp"
#include "ladle/util/json.hpp"
#include "ladle/util/text.hpp"

namespace ladle::pack {

namespace {

constexpr std::array<std::string_view, 4> kRoleNames = {"system", "user", "assistant", "tool"};

SourceLocation at(const SourceLocation& where, int col, std::string field) {
  SourceLocation out = where;
  out.col = col;
  out.field_path = std::move(field);
  return out;
}

}  // namespace

std::string_view to_string(Role role) { return kRoleNames[static_cast<size_t>(role)]; }

Conversation parse_conversation(std::string_view line, const SourceLocation& where) {
  if (auto bad = util::find_invalid_utf8(line)) {
    throw_input(at(where, static_cast<int>(*bad) + 1, ""), "invalid UTF-8 (byte 0x{:02X})",
                static_cast<unsigned char>(line[*bad]));
  }
  const nlohmann::json j = util::parse_json(line, where);
  if (!j.is_object()) throw_input(where, "expected a JSON object with a 'messages' array");
  auto it = j.find("messages");
  if (it == j.end() || !it->is_array()) throw_input(at(where, 0, "messages"), "missing or not an array");
  if (it->empty()) throw_input(at(where, 0, "messages"), "empty");
  Conversation conversation;
  const std::vector<std::string> role_names(kRoleNames.begin(), kRoleNames.end());
  bool has_assistant = false;
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& m = (*it)[i];
    const std::string field = fmt::format("messages[{}]", i);
    if (!m.is_object()) throw_input(at(where, 0, field), "expected an object");
    auto role_it = m.find("role");
    if (role_it == m.end() || !role_it->is_string()) {
      throw_input(at(where, 0, field + ".role"), "missing or not a string");
    }
    const std::string role_name = role_it->get<std::string>();
    Message message;
    bool known = false;
    for (size_t r = 0; r < kRoleNames.size(); ++r) {
      if (role_name == kRoleNames[r]) {
        message.role = static_cast<Role>(r);
        known = true;
      }
    }
    if (!known) {
      throw_input(at(where, 0, field + ".role"),
                  "unknown role '{}' (expected system, user, assistant or tool){}", role_name,
                  util::did_you_mean(role_name, role_names));
    }
    auto content_it = m.find("content");
    if (content_it == m.end() || !content_it->is_string()) {
      throw_input(at(where, 0, field + ".content"),
                  "expected a string (messages without text, such as bare tool calls, are not "
                  "supported)");
    }
    message.content = content_it->get<std::string>();
    if (auto r = m.find("reasoning_content"); r != m.end() && !r->is_null()) {
      if (!r->is_string()) throw_input(at(where, 0, field + ".reasoning_content"), "expected a string");
      message.reasoning_content = r->get<std::string>();
    }
    if (auto tc = m.find("tool_calls"); tc != m.end() && !tc->is_null() && !tc->empty()) {
      throw_input(at(where, 0, field + ".tool_calls"), "tool calls are not supported yet");
    }
    has_assistant = has_assistant || message.role == Role::assistant;
    conversation.messages.push_back(std::move(message));
  }
  if (!has_assistant) {
    throw_input(at(where, 0, "messages"), "no assistant turn, so nothing to supervise");
  }
  return conversation;
}

}  // namespace ladle::pack
