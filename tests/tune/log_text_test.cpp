// Tests of how text from a trial's log is kept and shown: valid UTF-8, escapes visible.
#include "ladle/tune/log_text.hpp"

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

TEST(LogText, InvalidBytesAndEscapesBecomeVisibleText) {
  EXPECT_EQ(visible_text("plain step 3 \xc3\xa9t\xc3\xa9"), "plain step 3 \xc3\xa9t\xc3\xa9");
  EXPECT_EQ(visible_text("\x1b[31mError\x1b[0m"), "\\x1b[31mError\\x1b[0m");
  EXPECT_EQ(visible_text("bad \xff\xfe end"), "bad \\xff\\xfe end");
  EXPECT_EQ(visible_text("cut \xe2\x82"), "cut \\xe2\\x82");    // a sequence cut short
  EXPECT_EQ(visible_text("over \xc0\xaf"), "over \\xc0\\xaf");  // an overlong '/'
  EXPECT_EQ(visible_text("surrogate \xed\xa0\x80"), "surrogate \\xed\\xa0\\x80");
  EXPECT_EQ(visible_text("two\nlines\r"), "two\\nlines\\x0d");
  // Whatever the bytes, the result is one line that a JSON writer accepts.
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte += static_cast<char>(b);
  const std::string shown = visible_text(every_byte);
  EXPECT_EQ(shown.find('\n'), std::string::npos);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json(shown).dump());
}

TEST(LogText, ClipsOnACharacterBoundary) {
  const std::string text = std::string(9, 'a') + "\xc3\xa9\xc3\xa9";  // 9 + 2 x 2 bytes
  EXPECT_EQ(visible_clip(text, 10), std::string(9, 'a') + "...");
  EXPECT_EQ(visible_clip(text, 11), std::string(9, 'a') + "\xc3\xa9...");
  EXPECT_EQ(visible_clip(text, 13), text);
  EXPECT_NO_THROW(nlohmann::json(visible_clip("\xe2\x82\xac\xe2\x82\xac", 4)).dump());
}

}  // namespace
}  // namespace ladle::tune
