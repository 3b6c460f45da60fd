// cmd_tokenize.cpp: `ladle tokenize`, prints the token ids of standard input (or decodes ids), so
// anyone can compare ladle's tokenizer with another by hand.
#include <CLI/CLI.hpp>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/pack/tokenizer.hpp"
#include "ladle/util/utf8.hpp"
#include "ladle/util/error.hpp"

namespace ladle::cli {

namespace {

struct TokenizeOptions {
  std::string tokenizer_path;
  bool decode = false;
  bool json = false;
};

// Line and column (1-based, in bytes) of byte `offset` of `text`.
std::pair<int, int> line_col(std::string_view text, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start + 1)};
}

std::vector<int32_t> parse_ids(const std::string& input) {
  std::vector<int32_t> ids;
  size_t i = 0;
  auto where = [&](size_t at) {
    const auto [line, col] = line_col(input, at);
    return SourceLocation{"<stdin>", line, col};
  };
  while (i < input.size()) {
    const char c = input[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '[' || c == ']') {
      ++i;
      continue;
    }
    if (c < '0' || c > '9') throw_input(where(i), "expected a token id, got '{}'", c);
    int64_t value = 0;
    const size_t start = i;
    while (i < input.size() && input[i] >= '0' && input[i] <= '9') {
      value = value * 10 + (input[i] - '0');
      if (value > INT32_MAX) throw_input(where(start), "token id out of range");
      ++i;
    }
    ids.push_back(static_cast<int32_t>(value));
  }
  return ids;
}

int run_tokenize(const TokenizeOptions& opt, Io& io) {
  // A tokenizer.json, a checkpoint folder or a Hugging Face repo id (resolve_hf_file in commands.cpp).
  const pack::Tokenizer tokenizer = pack::Tokenizer::from_file(resolve_hf_file(opt.tokenizer_path, "tokenizer.json"));
  const std::string input = pack::read_bounded_text(std::cin, "<stdin>", pack::kMaxTokenizeInputBytes);
  if (opt.decode) {
    const std::string text = tokenizer.decode(parse_ids(input));
    if (opt.json) {
      io.out << nlohmann::json{{"text", text}}.dump() << "\n";
    } else {
      io.out << text;
    }
    return kExitOk;
  }
  if (auto bad = util::find_invalid_utf8(input)) {
    const auto [line, col] = line_col(input, *bad);
    throw_input(SourceLocation{"<stdin>", line, col}, "invalid UTF-8 (byte 0x{:02X})",
                static_cast<unsigned char>(input[*bad]));
  }
  const pack::Encoding enc = tokenizer.encode(input);
  if (opt.json) {
    nlohmann::json j;
    j["ids"] = enc.ids;
    j["offsets"] = enc.offsets;
    j["tokens"] = enc.ids.size();
    io.out << j.dump() << "\n";
  } else {
    for (size_t i = 0; i < enc.ids.size(); ++i) io.out << (i ? " " : "") << enc.ids[i];
    io.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_tokenize_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<TokenizeOptions>();
  command.add_option("--tokenizer", opt->tokenizer_path, "a tokenizer.json, a folder holding one, or a Hugging Face repo id in the cache")
      ->required();
  command.add_flag("--decode", opt->decode,
                   "read token ids (spaces, commas or a JSON array) and print their text");
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_tokenize(*opt, io); });
}

}  // namespace ladle::cli
