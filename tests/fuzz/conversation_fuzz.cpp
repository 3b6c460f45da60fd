// conversation_fuzz.cpp: conversations JSONL, one conversation per line.
#include "fuzz_common.hpp"
#include "ladle/pack/conversation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = ladle::fuzz::as_text(data, size);
  size_t start = 0;
  int line = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view one = text.substr(start, end - start);
    ++line;
    ladle::fuzz::run(reinterpret_cast<const uint8_t*>(one.data()), one.size(),
                     [line](std::string_view l) {
                       (void)ladle::pack::parse_conversation(
                           l, ladle::SourceLocation{"conversations.jsonl", line});
                     });
    start = end + 1;
  }
  return 0;
}
