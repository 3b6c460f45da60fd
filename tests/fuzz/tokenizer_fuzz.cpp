// tokenizer_fuzz.cpp: a tokenizer.json, then an encoding with it.
#include "fuzz_common.hpp"
#include "ladle/pack/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const ladle::pack::Tokenizer tokenizer =
        ladle::pack::Tokenizer::from_json(text, "tokenizer.json");
    (void)tokenizer.encode("Hello, world! <|im_start|>user\n 12345 \xc3\xa9t\xc3\xa9");
    // A pattern that backtracks without end stops at PCRE2's match limit, which must be an error.
    (void)tokenizer.encode("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!");
  });
}
