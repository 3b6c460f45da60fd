#include "ladle/pack/conversation.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace ladle::pack {
namespace {

const SourceLocation kLine7{"c.jsonl", 7};

TEST(ParseConversation, ReadsRolesContentAndReasoning) {
  const Conversation c = parse_conversation(
      R"({"id": 3, "messages": [{"role": "user", "content": "hi"},
          {"role": "assistant", "content": "yo", "reasoning_content": "greet"}]})",
      kLine7);
  ASSERT_EQ(c.messages.size(), 2u);
  EXPECT_EQ(c.messages[1].role, Role::assistant);
  EXPECT_EQ(c.messages[1].content, "yo");
  EXPECT_EQ(c.messages[1].reasoning_content, "greet");
}

TEST(ParseConversation, RejectsBadLinesWithTheirLocation) {
  EXPECT_LADLE_ERROR(parse_conversation(R"({"messages": [)", kLine7), input,
                     "c.jsonl:7:15: error: invalid JSON");
  EXPECT_LADLE_ERROR(parse_conversation("{\"messages\": \"\xff\"}", kLine7), input,
                     "c.jsonl:7:15: error: invalid UTF-8 (byte 0xFF)");
  EXPECT_LADLE_ERROR(
      parse_conversation(R"({"messages": [{"role": "user", "content": "hi"}]})", kLine7), input,
      "c.jsonl:7: error: messages: no assistant turn");
  EXPECT_LADLE_ERROR(
      parse_conversation(
          R"({"messages": [{"role": "asistant", "content": "hi"}, {"role": "assistant", "content": "x"}]})",
          kLine7),
      input, "messages[0].role: unknown role 'asistant' (expected system, user, assistant or tool) (did you mean 'assistant'?)");
  EXPECT_LADLE_ERROR(
      parse_conversation(R"({"messages": [{"role": "assistant", "content": null}]})", kLine7),
      input, "messages[0].content: expected a string");
  EXPECT_LADLE_ERROR(parse_conversation(R"({"conversation": []})", kLine7), input,
                     "messages: missing or not an array");
}

}  // namespace
}  // namespace ladle::pack
