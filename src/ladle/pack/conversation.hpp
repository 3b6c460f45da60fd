#pragma once
// A conversation: the `messages` list of one JSONL line (system, user, assistant and tool turns).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/util/error.hpp"

namespace ladle::pack {

/// Who speaks in a message; spelled as in the `role` field.
enum class Role { system, user, assistant, tool };

/// "system", "user", "assistant" or "tool".
std::string_view to_string(Role role);

/// One message. `reasoning_content` is the optional thinking text some datasets carry beside the
/// answer (Qwen3 and GLM templates render it inside <think>...</think>).
struct Message {
  Role role = Role::user;
  std::string content;
  std::optional<std::string> reasoning_content;
  bool operator==(const Message&) const = default;
};

/// The messages of one conversation, in order.
struct Conversation {
  std::vector<Message> messages;
  bool operator==(const Conversation&) const = default;
};

/// Parses one JSONL line: an object with a `messages` array of {role, content[,
/// reasoning_content]} objects (other keys are ignored). `where` names the file and line. Throws
/// Error(input) at `where` for invalid UTF-8 (with its column), invalid JSON (with its column), a
/// missing or empty `messages`, an unknown role (with "did you mean"), a content that is not a
/// string (tool calls without text are not supported), or a conversation without an assistant
/// turn.
Conversation parse_conversation(std::string_view line, const SourceLocation& where);

}  // namespace ladle::pack
