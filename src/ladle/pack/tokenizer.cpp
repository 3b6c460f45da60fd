#include "ladle/pack/tokenizer.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <istream>
#include <nlohmann/json.hpp>
#include <queue>
#include <unordered_map>

#include "ladle/util/utf8.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/json.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/sha256.hpp"

namespace ladle::pack {

namespace {

using Json = nlohmann::json;

// The GPT-2 byte-to-character table used by every byte-level BPE: printable bytes stand for
// themselves, the other 68 map to U+0100 onwards in byte order.
std::array<char32_t, 256> byte_to_char_table() {
  std::array<char32_t, 256> table{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    table[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  return table;
}

// The pattern Hugging Face's ByteLevel pre-tokenizer uses when `use_regex` is true (GPT-2's).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

constexpr size_t kJitStackBytes = 1 << 20;
constexpr size_t kMaxCachedWords = 1 << 18;

enum class SplitBehavior { isolated, removed, merged_with_previous, merged_with_next };

struct Regex {
  pcre2_code* code = nullptr;
  std::string pattern;  // for errors: the pattern as the tokenizer.json gives it, and where
  std::string source;
  std::string field;
  Regex() = default;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  ~Regex() {
    if (code) pcre2_code_free(code);
  }
};

struct PreStep {
  enum class Kind { split, byte_level } kind = Kind::split;
  std::shared_ptr<Regex> regex;  // split, or byte_level with use_regex
  SplitBehavior behavior = SplitBehavior::isolated;
  bool invert = false;
  bool add_prefix_space = false;
};

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
};

// A byte trie over the added tokens for leftmost-longest matching.
struct TrieNode {
  std::vector<std::pair<unsigned char, int32_t>> children;
  int32_t token = -1;  // index into added
};

// A piece of text to pre-tokenize or encode: [start, start+len) of the segment, with an optional
// space in front that the ByteLevel pre-tokenizer added (`add_prefix_space`).
struct Piece {
  uint32_t start = 0;
  uint32_t len = 0;
  bool prefix_space = false;
};

std::atomic<uint64_t> g_next_serial{1};

[[noreturn]] void unsupported(const std::string& source, const std::string& field,
                              const std::string& what) {
  throw Error(ErrorKind::input, what, SourceLocation{source, 0, 0, field});
}

// A match that ends in an error (PCRE2's match, depth or heap limit, a JIT stack too small) says
// nothing about where the next match is: taking it as "no more matches" gave wrong tokens with
// exit 0, so it is an error naming the pattern.
[[noreturn]] void regex_failed(const Regex& regex, int rc, std::size_t subject_bytes) {
  std::array<PCRE2_UCHAR, 256> message{};
  pcre2_get_error_message(rc, message.data(), message.size());
  unsupported(regex.source, regex.field,
              fmt::format("pattern '{}' cannot be matched on a piece of {} bytes: {}", regex.pattern, subject_bytes,
                          reinterpret_cast<const char*>(message.data())));
}

// A token id: an integer in [0, limits::kMaxVocabulary), so the id-to-token table it sizes is bounded.
int32_t bounded_id(const Json& value, const std::string& source, const std::string& field) {
  if (!value.is_number_integer()) unsupported(source, field, fmt::format("ids must be integers, got {}", value.dump()));
  if (value.is_number_unsigned() ? value.get<uint64_t>() >= static_cast<uint64_t>(limits::kMaxVocabulary)
                                 : value.get<int64_t>() < 0 || value.get<int64_t>() >= limits::kMaxVocabulary) {
    unsupported(source, field,
                fmt::format("id {} is outside 0 to {} (the vocabulary limit, 16x the largest published "
                            "vocabulary)",
                            value.dump(), limits::kMaxVocabulary - 1));
  }
  return static_cast<int32_t>(value.get<int64_t>());
}

std::shared_ptr<Regex> compile_regex(const std::string& pattern, bool literal,
                                     const std::string& source, const std::string& field) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  // PCRE2_LITERAL admits no PCRE2_UCP; a literal needs no Unicode classes anyway.
  const uint32_t options = PCRE2_UTF | PCRE2_NO_UTF_CHECK | (literal ? PCRE2_LITERAL : PCRE2_UCP);
  auto regex = std::make_shared<Regex>();
  regex->pattern = pattern;
  regex->source = source;
  regex->field = field;
  regex->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              options, &error_code, &error_offset, nullptr);
  if (!regex->code) {
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(error_code, message.data(), message.size());
    unsupported(source, field,
                fmt::format("cannot compile pattern at offset {}: {}", error_offset,
                            reinterpret_cast<const char*>(message.data())));
  }
  // JIT is an optimisation: where the platform lacks it, pcre2_match interprets the same pattern.
  pcre2_jit_compile(regex->code, PCRE2_JIT_COMPLETE);
  return regex;
}

}  // namespace

struct Tokenizer::Impl {
  uint64_t serial = 0;
  std::string source;
  std::string sha256;
  // model
  std::unordered_map<std::string, int32_t> vocab;
  std::vector<std::string> id_to_token;
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;  // (a<<32|b) -> (rank, id)
  bool ignore_merges = false;
  bool byte_fallback = false;
  std::optional<int32_t> unk_id;
  std::array<int32_t, 256> byte_fallback_ids{};
  // normalizer
  bool nfc = false;
  // pre-tokenizer
  std::vector<PreStep> steps;
  bool byte_level = false;
  std::array<int32_t, 256> byte_ids{};
  std::array<char32_t, 256> byte_to_char{};
  std::unordered_map<char32_t, unsigned char> char_to_byte;
  // added tokens
  std::vector<AddedToken> added;
  std::unordered_map<std::string, int32_t> added_by_content;
  std::vector<TrieNode> trie;
  std::array<bool, 256> added_first_byte{};
  // decoder
  bool decode_byte_level = false;
  bool decode_byte_fallback = false;
  std::string unsupported_decoder;

  void load(const Json& j);
  void load_model(const Json& m);
  void load_normalizer(const Json& n, const std::string& field);
  void load_pre_tokenizer(const Json& p, const std::string& field);
  void load_decoder(const Json& d);
  void load_added(const Json& a);

  std::string normalized(std::string_view text) const;
  void split_added(std::string_view text, std::vector<std::pair<Piece, int32_t>>& out) const;
  void pre_tokenize(std::string_view segment, uint32_t base, std::vector<Piece>& pieces) const;
  void bpe(std::string_view bytes, bool prefix_space, std::vector<int32_t>& out) const;
  uint32_t token_bytes(int32_t id) const;
  std::vector<uint32_t> token_byte_lengths;
};

namespace {

// Per-thread scratch: one PCRE2 match block and JIT stack, and a cache of encoded words.
struct Scratch {
  uint64_t serial = 0;
  pcre2_match_data* match = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* jit_stack = nullptr;
  std::unordered_map<std::string, std::vector<int32_t>> cache;
  Scratch() {
    match = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    jit_stack = pcre2_jit_stack_create(32 * 1024, kJitStackBytes, nullptr);
    pcre2_jit_stack_assign(context, nullptr, jit_stack);
  }
  ~Scratch() {
    pcre2_match_data_free(match);
    pcre2_match_context_free(context);
    pcre2_jit_stack_free(jit_stack);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

Scratch& scratch_for(uint64_t serial) {
  thread_local Scratch scratch;
  if (scratch.serial != serial) {
    scratch.cache.clear();
    scratch.serial = serial;
  }
  return scratch;
}

const Json* find_key(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

bool bool_or(const Json& j, const char* key, bool fallback) {
  const Json* v = find_key(j, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

}  // namespace

void Tokenizer::Impl::load(const Json& j) {
  if (!j.is_object()) unsupported(source, "", "expected a JSON object (a Hugging Face tokenizer.json)");
  const Json* model = find_key(j, "model");
  if (!model || !model->is_object()) unsupported(source, "model", "missing");
  load_model(*model);
  if (const Json* n = find_key(j, "normalizer")) load_normalizer(*n, "normalizer");
  if (const Json* p = find_key(j, "pre_tokenizer")) load_pre_tokenizer(*p, "pre_tokenizer");
  if (const Json* d = find_key(j, "decoder")) load_decoder(*d);
  if (const Json* a = find_key(j, "added_tokens")) load_added(*a);

  byte_to_char = byte_to_char_table();
  for (int b = 0; b < 256; ++b) char_to_byte[byte_to_char[b]] = static_cast<unsigned char>(b);
  if (byte_level) {
    for (int b = 0; b < 256; ++b) {
      std::string s;
      util::append_utf8(s, byte_to_char[b]);
      auto it = vocab.find(s);
      if (it == vocab.end()) {
        unsupported(source, "model.vocab",
                    fmt::format("byte-level vocabulary lacks the token for byte 0x{:02X}", b));
      }
      byte_ids[b] = it->second;
    }
  }
  token_byte_lengths.assign(id_to_token.size(), 0);
  for (size_t id = 0; id < id_to_token.size(); ++id) {
    const std::string& t = id_to_token[id];
    uint32_t n = 0;
    if (byte_level) {
      for (size_t i = 0; i < t.size(); i += util::utf8_sequence_length(static_cast<unsigned char>(t[i]))) ++n;
    } else if (t.size() == 6 && t.rfind("<0x", 0) == 0 && t.back() == '>') {
      n = 1;
    } else {
      n = static_cast<uint32_t>(t.size());
    }
    token_byte_lengths[id] = n;
  }
}

void Tokenizer::Impl::load_model(const Json& m) {
  const std::string type = m.value("type", std::string("BPE"));
  if (type != "BPE") {
    unsupported(source, "model.type",
                fmt::format("unsupported tokenizer model '{}' (ladle supports byte-level BPE)", type));
  }
  if (const Json* d = find_key(m, "dropout"); d && d->is_number() && d->get<double>() != 0.0) {
    unsupported(source, "model.dropout", "BPE dropout is not supported (it is not deterministic)");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (const Json* v = find_key(m, key); v && v->is_string() && !v->get<std::string>().empty()) {
      unsupported(source, std::string("model.") + key, "not supported (byte-level BPE has none)");
    }
  }
  ignore_merges = bool_or(m, "ignore_merges", false);
  byte_fallback = bool_or(m, "byte_fallback", false);
  const Json* v = find_key(m, "vocab");
  if (!v || !v->is_object()) unsupported(source, "model.vocab", "missing or not an object");
  int32_t max_id = -1;
  vocab.reserve(v->size());
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_number_integer()) unsupported(source, "model.vocab", "ids must be integers");
    const int32_t id = bounded_id(it.value(), source, "model.vocab");
    vocab.emplace(it.key(), id);
    max_id = std::max(max_id, id);
  }
  id_to_token.assign(static_cast<size_t>(max_id + 1), std::string());
  for (const auto& [token, id] : vocab) id_to_token[static_cast<size_t>(id)] = token;
  if (const Json* unk = find_key(m, "unk_token"); unk && unk->is_string()) {
    auto it = vocab.find(unk->get<std::string>());
    if (it != vocab.end()) unk_id = it->second;
  }
  byte_fallback_ids.fill(-1);
  if (byte_fallback) {
    for (int b = 0; b < 256; ++b) {
      auto it = vocab.find(fmt::format("<0x{:02X}>", b));
      if (it != vocab.end()) byte_fallback_ids[b] = it->second;
    }
  }
  const Json* mg = find_key(m, "merges");
  if (!mg) return;
  if (!mg->is_array()) unsupported(source, "model.merges", "expected an array");
  merges.reserve(mg->size());
  int32_t rank = 0;
  for (const Json& entry : *mg) {
    std::string left;
    std::string right;
    if (entry.is_string()) {
      const std::string s = entry.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos) {
        unsupported(source, fmt::format("model.merges[{}]", rank), "expected 'left right'");
      }
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_string()) {
      left = entry[0].get<std::string>();
      right = entry[1].get<std::string>();
    } else {
      unsupported(source, fmt::format("model.merges[{}]", rank), "expected a string or a pair");
    }
    auto a = vocab.find(left);
    auto b = vocab.find(right);
    auto c = vocab.find(left + right);
    if (a == vocab.end() || b == vocab.end() || c == vocab.end()) {
      unsupported(source, fmt::format("model.merges[{}]", rank),
                  fmt::format("merge '{} {}' uses a token missing from the vocabulary", left, right));
    }
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(a->second)) << 32) |
                         static_cast<uint32_t>(b->second);
    merges.emplace(key, std::make_pair(rank, c->second));  // the first (best) rank wins
    ++rank;
  }
}

void Tokenizer::Impl::load_normalizer(const Json& n, const std::string& field) {
  const std::string type = n.value("type", std::string());
  if (type == "NFC") {
    nfc = true;
  } else if (type == "Sequence") {
    const Json* list = find_key(n, "normalizers");
    if (!list || !list->is_array()) unsupported(source, field, "Sequence without normalizers");
    for (size_t i = 0; i < list->size(); ++i) {
      load_normalizer((*list)[i], fmt::format("{}.normalizers[{}]", field, i));
    }
  } else {
    unsupported(source, field + ".type",
                fmt::format("unsupported normalizer '{}' (ladle supports NFC and Sequence)", type));
  }
}

void Tokenizer::Impl::load_pre_tokenizer(const Json& p, const std::string& field) {
  const std::string type = p.value("type", std::string());
  if (type == "Sequence") {
    const Json* list = find_key(p, "pretokenizers");
    if (!list || !list->is_array()) unsupported(source, field, "Sequence without pretokenizers");
    for (size_t i = 0; i < list->size(); ++i) {
      load_pre_tokenizer((*list)[i], fmt::format("{}.pretokenizers[{}]", field, i));
    }
  } else if (type == "Split") {
    PreStep step;
    step.kind = PreStep::Kind::split;
    const Json* pattern = find_key(p, "pattern");
    if (!pattern || !pattern->is_object()) unsupported(source, field + ".pattern", "missing");
    if (const Json* re = find_key(*pattern, "Regex"); re && re->is_string()) {
      step.regex = compile_regex(re->get<std::string>(), false, source, field + ".pattern.Regex");
    } else if (const Json* lit = find_key(*pattern, "String"); lit && lit->is_string()) {
      step.regex = compile_regex(lit->get<std::string>(), true, source, field + ".pattern.String");
    } else {
      unsupported(source, field + ".pattern", "expected Regex or String");
    }
    const std::string behavior = p.value("behavior", std::string("Isolated"));
    if (behavior == "Isolated") {
      step.behavior = SplitBehavior::isolated;
    } else if (behavior == "Removed") {
      step.behavior = SplitBehavior::removed;
    } else if (behavior == "MergedWithPrevious") {
      step.behavior = SplitBehavior::merged_with_previous;
    } else if (behavior == "MergedWithNext") {
      step.behavior = SplitBehavior::merged_with_next;
    } else {
      unsupported(source, field + ".behavior", fmt::format("unsupported split behavior '{}'", behavior));
    }
    step.invert = bool_or(p, "invert", false);
    steps.push_back(std::move(step));
  } else if (type == "ByteLevel") {
    PreStep step;
    step.kind = PreStep::Kind::byte_level;
    step.add_prefix_space = bool_or(p, "add_prefix_space", true);
    if (bool_or(p, "use_regex", true)) step.regex = compile_regex(kGpt2Pattern, false, source, field);
    byte_level = true;
    steps.push_back(std::move(step));
  } else {
    unsupported(source, field + ".type",
                fmt::format("unsupported pre-tokenizer '{}' (ladle supports Split, ByteLevel and "
                            "Sequence)",
                            type));
  }
}

void Tokenizer::Impl::load_decoder(const Json& d) {
  const std::string type = d.value("type", std::string());
  if (type == "ByteLevel") {
    decode_byte_level = true;
  } else if (type == "ByteFallback") {
    decode_byte_fallback = true;
  } else if (type == "Fuse") {
    // Joining the token strings is what decode() does anyway.
  } else if (type == "Sequence") {
    if (const Json* list = find_key(d, "decoders"); list && list->is_array()) {
      for (const Json& e : *list) load_decoder(e);
    }
  } else if (unsupported_decoder.empty()) {
    unsupported_decoder = type;
  }
}

void Tokenizer::Impl::load_added(const Json& a) {
  if (!a.is_array()) unsupported(source, "added_tokens", "expected an array");
  trie.assign(1, TrieNode{});
  added_first_byte.fill(false);
  for (size_t i = 0; i < a.size(); ++i) {
    const Json& t = a[i];
    AddedToken token;
    token.content = t.value("content", std::string());
    if (!t.contains("id") || !t["id"].is_number_integer() || token.content.empty()) {
      unsupported(source, fmt::format("added_tokens[{}]", i), "needs an integer id and content");
    }
    token.id = bounded_id(t["id"], source, fmt::format("added_tokens[{}].id", i));
    token.lstrip = bool_or(t, "lstrip", false);
    token.rstrip = bool_or(t, "rstrip", false);
    token.single_word = bool_or(t, "single_word", false);
    if (static_cast<size_t>(token.id) >= id_to_token.size()) {
      id_to_token.resize(static_cast<size_t>(token.id) + 1);
    }
    id_to_token[static_cast<size_t>(token.id)] = token.content;
    added_by_content[token.content] = token.id;
    // Walk/extend the trie.
    int32_t node = 0;
    for (unsigned char c : token.content) {
      auto& children = trie[static_cast<size_t>(node)].children;
      auto it = std::find_if(children.begin(), children.end(),
                             [c](const auto& child) { return child.first == c; });
      if (it != children.end()) {
        node = it->second;
      } else {
        const auto next = static_cast<int32_t>(trie.size());
        children.emplace_back(c, next);
        trie.emplace_back();
        node = next;
      }
    }
    trie[static_cast<size_t>(node)].token = static_cast<int32_t>(added.size());
    added_first_byte[static_cast<unsigned char>(token.content[0])] = true;
    added.push_back(std::move(token));
  }
}

std::string Tokenizer::Impl::normalized(std::string_view text) const {
  if (!nfc) return std::string(text);
  // Code points below U+0300 are NFC-stable and never compose with a neighbour unless a
  // combining mark (U+0300 or above, lead byte 0xCC or above) follows.
  const bool stable = std::none_of(text.begin(), text.end(),
                                   [](char c) { return static_cast<unsigned char>(c) >= 0xCC; });
  if (stable) return std::string(text);
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* nfc_instance = unorm2_getNFCInstance(&status);
  int32_t wide_len = 0;
  status = U_ZERO_ERROR;
  u_strFromUTF8(nullptr, 0, &wide_len, text.data(), static_cast<int32_t>(text.size()), &status);
  std::u16string wide(static_cast<size_t>(wide_len), u'\0');
  status = U_ZERO_ERROR;
  u_strFromUTF8(wide.data(), wide_len, nullptr, text.data(), static_cast<int32_t>(text.size()),
                &status);
  if (U_FAILURE(status)) return std::string(text);
  status = U_ZERO_ERROR;
  if (unorm2_isNormalized(nfc_instance, wide.data(), wide_len, &status) && U_SUCCESS(status)) {
    return std::string(text);
  }
  std::u16string out(static_cast<size_t>(wide_len) * 3 + 16, u'\0');
  status = U_ZERO_ERROR;
  const int32_t out_len = unorm2_normalize(nfc_instance, wide.data(), wide_len, out.data(),
                                           static_cast<int32_t>(out.size()), &status);
  if (U_FAILURE(status)) return std::string(text);
  int32_t utf8_len = 0;
  status = U_ZERO_ERROR;
  u_strToUTF8(nullptr, 0, &utf8_len, out.data(), out_len, &status);
  std::string result(static_cast<size_t>(utf8_len), '\0');
  status = U_ZERO_ERROR;
  u_strToUTF8(result.data(), utf8_len, nullptr, out.data(), out_len, &status);
  return result;
}

namespace {

bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_word_byte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

}  // namespace

// Splits `text` into plain segments (id -1) and added tokens (their id), leftmost-longest.
void Tokenizer::Impl::split_added(std::string_view text,
                                  std::vector<std::pair<Piece, int32_t>>& out) const {
  out.clear();
  uint32_t plain_start = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    if (added.empty() || !added_first_byte[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    int32_t node = 0;
    int32_t best = -1;
    size_t best_end = 0;
    for (size_t k = i; k < n; ++k) {
      const unsigned char c = static_cast<unsigned char>(text[k]);
      const auto& children = trie[static_cast<size_t>(node)].children;
      auto it = std::find_if(children.begin(), children.end(),
                             [c](const auto& child) { return child.first == c; });
      if (it == children.end()) break;
      node = it->second;
      if (trie[static_cast<size_t>(node)].token >= 0) {
        best = trie[static_cast<size_t>(node)].token;
        best_end = k + 1;
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    const AddedToken& token = added[static_cast<size_t>(best)];
    if (token.single_word &&
        ((i > 0 && is_word_byte(static_cast<unsigned char>(text[i - 1]))) ||
         (best_end < n && is_word_byte(static_cast<unsigned char>(text[best_end]))))) {
      ++i;
      continue;
    }
    size_t start = i;
    size_t end = best_end;
    if (token.lstrip) {
      while (start > plain_start && is_space(static_cast<unsigned char>(text[start - 1]))) --start;
    }
    if (token.rstrip) {
      while (end < n && is_space(static_cast<unsigned char>(text[end]))) ++end;
    }
    if (start > plain_start) {
      out.push_back({Piece{plain_start, static_cast<uint32_t>(start - plain_start), false}, -1});
    }
    out.push_back({Piece{static_cast<uint32_t>(start), static_cast<uint32_t>(end - start), false},
                   token.id});
    plain_start = static_cast<uint32_t>(end);
    i = end;
  }
  if (plain_start < n) {
    out.push_back({Piece{plain_start, static_cast<uint32_t>(n - plain_start), false}, -1});
  }
}

// Applies every pre-tokenizer step to `segment` (whose first byte is at `base` in the caller's
// offsets) and leaves the final pieces, offsets relative to the segment.
void Tokenizer::Impl::pre_tokenize(std::string_view segment, uint32_t /*base*/,
                                   std::vector<Piece>& pieces) const {
  pieces.clear();
  pieces.push_back(Piece{0, static_cast<uint32_t>(segment.size()), false});
  Scratch& s = scratch_for(serial);
  std::vector<Piece> next;
  std::string prefixed;
  for (const PreStep& step : steps) {
    next.clear();
    for (const Piece& piece : pieces) {
      Piece p = piece;
      if (step.kind == PreStep::Kind::byte_level && step.add_prefix_space && !p.prefix_space &&
          (p.len == 0 || segment[p.start] != ' ')) {
        p.prefix_space = true;
      }
      if (!step.regex) {
        next.push_back(p);
        continue;
      }
      // The subject: the piece's bytes, with the added space in front when there is one.
      std::string_view subject = segment.substr(p.start, p.len);
      if (p.prefix_space) {
        prefixed.assign(1, ' ');
        prefixed.append(subject);
        subject = prefixed;
      }
      const uint32_t shift = p.prefix_space ? 1 : 0;
      // Converts a subject range to a piece; the added space belongs to whichever range starts at 0.
      auto make = [&](size_t from, size_t to) {
        Piece out;
        out.prefix_space = p.prefix_space && from == 0;
        const size_t real_from = from == 0 ? 0 : from - shift;
        out.start = p.start + static_cast<uint32_t>(real_from);
        out.len = static_cast<uint32_t>(to - shift - real_from);
        if (out.prefix_space && to == 0) return;  // cannot happen: matches are non-empty
        if (to > from) next.push_back(out);
      };
      std::vector<std::pair<size_t, size_t>> matches;
      size_t offset = 0;
      while (offset <= subject.size()) {
        const int rc = pcre2_match(step.regex->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                                   subject.size(), offset, PCRE2_NO_UTF_CHECK, s.match, s.context);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) regex_failed(*step.regex, rc, subject.size());
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.match);
        if (ov[1] == ov[0]) {
          // An empty match yields nothing; step over one character.
          if (ov[0] >= subject.size()) break;
          offset = ov[0] + util::utf8_sequence_length(static_cast<unsigned char>(subject[ov[0]]));
          continue;
        }
        matches.emplace_back(ov[0], ov[1]);
        offset = ov[1];
      }
      const bool isolated_kind = step.kind == PreStep::Kind::byte_level;
      const SplitBehavior behavior = isolated_kind ? SplitBehavior::isolated : step.behavior;
      // Ranges alternate gap/match; with `invert` the roles swap.
      std::vector<std::pair<std::pair<size_t, size_t>, bool>> ranges;  // (range, is_match)
      size_t cursor = 0;
      for (const auto& m : matches) {
        if (m.first > cursor) ranges.push_back({{cursor, m.first}, false});
        ranges.push_back({m, true});
        cursor = m.second;
      }
      if (cursor < subject.size()) ranges.push_back({{cursor, subject.size()}, false});
      if (step.invert && !isolated_kind) {
        for (auto& r : ranges) r.second = !r.second;
      }
      switch (behavior) {
        case SplitBehavior::isolated:
          for (const auto& r : ranges) make(r.first.first, r.first.second);
          break;
        case SplitBehavior::removed:
          for (const auto& r : ranges) {
            if (!r.second) make(r.first.first, r.first.second);
          }
          break;
        case SplitBehavior::merged_with_previous: {
          size_t from = 0;
          bool open = false;
          for (const auto& r : ranges) {
            if (r.second && open) {
              make(from, r.first.second);
              open = false;
            } else if (r.second) {
              make(r.first.first, r.first.second);
            } else {
              if (open) make(from, r.first.first);
              from = r.first.first;
              open = true;
            }
          }
          if (open) make(from, subject.size());
          break;
        }
        case SplitBehavior::merged_with_next: {
          size_t from = 0;
          bool open = false;
          for (const auto& r : ranges) {
            if (r.second) {
              if (open) make(from, r.first.first);
              from = r.first.first;
              open = true;
            } else if (open) {
              make(from, r.first.second);
              open = false;
            } else {
              make(r.first.first, r.first.second);
            }
          }
          if (open) make(from, subject.size());
          break;
        }
      }
    }
    pieces.swap(next);
  }
}

uint32_t Tokenizer::Impl::token_bytes(int32_t id) const {
  return token_byte_lengths[static_cast<size_t>(id)];
}

// BPE over one pre-tokenized piece; appends ids to `out`.
void Tokenizer::Impl::bpe(std::string_view bytes, bool prefix_space,
                          std::vector<int32_t>& out) const {
  std::vector<int32_t> symbols;
  symbols.reserve(bytes.size() + 1);
  if (byte_level) {
    if (prefix_space) symbols.push_back(byte_ids[' ']);
    for (unsigned char c : bytes) symbols.push_back(byte_ids[c]);
    if (ignore_merges) {
      std::string word;
      if (prefix_space) util::append_utf8(word, byte_to_char[' ']);
      for (unsigned char c : bytes) util::append_utf8(word, byte_to_char[c]);
      auto it = vocab.find(word);
      if (it != vocab.end()) {
        out.push_back(it->second);
        return;
      }
    }
  } else {
    std::string text = prefix_space ? " " : "";
    text.append(bytes);
    if (ignore_merges) {
      auto it = vocab.find(text);
      if (it != vocab.end()) {
        out.push_back(it->second);
        return;
      }
    }
    for (size_t i = 0; i < text.size();) {
      const size_t len = std::min(util::utf8_sequence_length(static_cast<unsigned char>(text[i])),
                                  text.size() - i);
      auto it = vocab.find(text.substr(i, len));
      if (it != vocab.end()) {
        symbols.push_back(it->second);
      } else if (byte_fallback) {
        for (size_t k = 0; k < len; ++k) {
          const int32_t id = byte_fallback_ids[static_cast<unsigned char>(text[i + k])];
          if (id < 0) {
            throw Error(ErrorKind::input,
                        fmt::format("byte fallback token <0x{:02X}> missing from the vocabulary",
                                    static_cast<unsigned char>(text[i + k])),
                        SourceLocation{source});
          }
          symbols.push_back(id);
        }
      } else if (unk_id) {
        symbols.push_back(*unk_id);
      } else {
        throw Error(ErrorKind::input,
                    fmt::format("character '{}' is not in the vocabulary and the tokenizer has no "
                                "byte fallback or unknown token",
                                text.substr(i, len)),
                    SourceLocation{source});
      }
      i += len;
    }
  }
  auto rank_of = [&](int32_t a, int32_t b) -> const std::pair<int32_t, int32_t>* {
    auto it = merges.find((static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) |
                          static_cast<uint32_t>(b));
    return it == merges.end() ? nullptr : &it->second;
  };
  constexpr size_t kSmallWord = 24;
  if (symbols.size() <= kSmallWord) {
    // Short words: repeatedly merge the best-ranked (then leftmost) adjacent pair.
    while (symbols.size() > 1) {
      int32_t best_rank = INT32_MAX;
      size_t best_pos = 0;
      int32_t best_id = -1;
      for (size_t i = 0; i + 1 < symbols.size(); ++i) {
        const auto* m = rank_of(symbols[i], symbols[i + 1]);
        if (m && m->first < best_rank) {
          best_rank = m->first;
          best_pos = i;
          best_id = m->second;
        }
      }
      if (best_id < 0) break;
      symbols[best_pos] = best_id;
      symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best_pos) + 1);
    }
    out.insert(out.end(), symbols.begin(), symbols.end());
    return;
  }
  // Long words: a linked list of symbols and a heap of candidate merges ordered by (rank, position).
  const size_t n = symbols.size();
  std::vector<int32_t> prev(n);
  std::vector<int32_t> next(n);
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int32_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
  }
  struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t left;
    int32_t right;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto push = [&](int32_t pos) {
    if (pos < 0 || next[static_cast<size_t>(pos)] < 0) return;
    const int32_t a = symbols[static_cast<size_t>(pos)];
    const int32_t b = symbols[static_cast<size_t>(next[static_cast<size_t>(pos)])];
    if (const auto* m = rank_of(a, b)) heap.push(Candidate{m->first, pos, a, b});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int32_t>(i));
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const auto pos = static_cast<size_t>(c.pos);
    if (!alive[pos] || next[pos] < 0) continue;
    const auto right = static_cast<size_t>(next[pos]);
    if (symbols[pos] != c.left || symbols[right] != c.right) continue;
    symbols[pos] = rank_of(c.left, c.right)->second;
    alive[right] = false;
    next[pos] = next[right];
    if (next[pos] >= 0) prev[static_cast<size_t>(next[pos])] = c.pos;
    push(prev[pos]);
    push(c.pos);
  }
  for (int32_t i = 0; i >= 0; i = next[static_cast<size_t>(i)]) out.push_back(symbols[static_cast<size_t>(i)]);
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_json(std::string_view json, const std::string& source) {
  auto impl = std::make_unique<Impl>();
  impl->serial = g_next_serial.fetch_add(1);
  impl->source = source;
  impl->sha256 = util::sha256_hex(json);
  const Json j = util::parse_json(json, SourceLocation{source});
  try {
    impl->load(j);
  } catch (const Json::exception& e) {
    throw Error(ErrorKind::input, fmt::format("unexpected tokenizer.json shape: {}", e.what()),
                SourceLocation{source});
  }
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_file(const std::string& path) {
  return from_json(util::read_file(path, limits::FileKind::tokenizer), path);
}

Encoding Tokenizer::encode(std::string_view text) const {
  const Impl& im = *impl_;
  if (auto bad = util::find_invalid_utf8(text)) {
    throw Error(ErrorKind::input, fmt::format("invalid UTF-8 at byte {}", *bad));
  }
  Encoding enc;
  enc.ids.reserve(text.size() / 3 + 4);
  enc.offsets.reserve(text.size() / 3 + 4);
  Scratch& s = scratch_for(im.serial);
  std::vector<std::pair<Piece, int32_t>> segments;
  im.split_added(text, segments);
  std::vector<Piece> pieces;
  std::string key;
  std::vector<int32_t> word_ids;
  for (const auto& [segment, added_id] : segments) {
    if (added_id >= 0) {
      enc.ids.push_back(added_id);
      enc.offsets.push_back(segment.start);
      continue;
    }
    const std::string_view raw = text.substr(segment.start, segment.len);
    const std::string norm = im.normalized(raw);
    const bool same = norm.size() == raw.size();
    im.pre_tokenize(norm, segment.start, pieces);
    for (const Piece& piece : pieces) {
      const std::string_view bytes = std::string_view(norm).substr(piece.start, piece.len);
      key.clear();
      key.push_back(piece.prefix_space ? '\x01' : '\x00');
      key.append(bytes);
      auto it = s.cache.find(key);
      if (it == s.cache.end()) {
        word_ids.clear();
        im.bpe(bytes, piece.prefix_space, word_ids);
        if (s.cache.size() >= kMaxCachedWords) s.cache.clear();
        it = s.cache.emplace(key, word_ids).first;
      }
      uint32_t cursor = 0;
      const uint32_t prefix = piece.prefix_space ? 1 : 0;
      for (int32_t id : it->second) {
        const uint32_t at = cursor > prefix ? cursor - prefix : 0;
        enc.ids.push_back(id);
        enc.offsets.push_back(same ? segment.start + piece.start + std::min(at, piece.len)
                                   : segment.start);
        cursor += im.token_bytes(id);
      }
    }
  }
  return enc;
}

std::vector<int32_t> Tokenizer::encode_ids(std::string_view text) const {
  return encode(text).ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
  const Impl& im = *impl_;
  if (!im.unsupported_decoder.empty()) {
    throw Error(ErrorKind::input,
                fmt::format("unsupported decoder '{}' (ladle decodes ByteLevel, ByteFallback and "
                            "Fuse)",
                            im.unsupported_decoder),
                SourceLocation{im.source, 0, 0, "decoder"});
  }
  std::string bytes;
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= im.id_to_token.size() ||
        im.id_to_token[static_cast<size_t>(id)].empty()) {
      throw Error(ErrorKind::input, fmt::format("token id {} is not in the vocabulary", id));
    }
    const std::string& token = im.id_to_token[static_cast<size_t>(id)];
    if (im.decode_byte_fallback && token.size() == 6 && token.rfind("<0x", 0) == 0 &&
        token.back() == '>') {
      bytes += static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16));
      continue;
    }
    if (im.decode_byte_level) {
      // Every character maps back to its byte; a token with a character outside the byte
      // alphabet (e.g. an added token) is taken as its own UTF-8 bytes, as Hugging Face does.
      std::string mapped;
      bool all_mapped = true;
      for (size_t i = 0; i < token.size();) {
        const size_t len = util::utf8_sequence_length(static_cast<unsigned char>(token[i]));
        char32_t cp = 0;
        const auto b0 = static_cast<unsigned char>(token[i]);
        if (len == 1) {
          cp = b0;
        } else if (len == 2 && i + 1 < token.size()) {
          cp = (static_cast<char32_t>(b0 & 0x1F) << 6) | (static_cast<unsigned char>(token[i + 1]) & 0x3F);
        } else {
          cp = 0x110000;  // three- and four-byte characters are never in the byte alphabet
        }
        auto it = im.char_to_byte.find(cp);
        if (it == im.char_to_byte.end()) {
          all_mapped = false;
          break;
        }
        mapped += static_cast<char>(it->second);
        i += len;
      }
      bytes += all_mapped ? mapped : token;
      continue;
    }
    bytes += token;
  }
  return util::decode_utf8_lossy(bytes);
}

std::string Tokenizer::normalize(std::string_view text) const { return impl_->normalized(text); }

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  const std::string key(token);
  if (auto it = impl_->added_by_content.find(key); it != impl_->added_by_content.end()) {
    return it->second;
  }
  if (auto it = impl_->vocab.find(key); it != impl_->vocab.end()) return it->second;
  return std::nullopt;
}

std::optional<std::string> Tokenizer::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= impl_->id_to_token.size()) return std::nullopt;
  const std::string& t = impl_->id_to_token[static_cast<size_t>(id)];
  if (t.empty()) return std::nullopt;
  return t;
}

size_t Tokenizer::vocab_size() const { return impl_->id_to_token.size(); }

const std::string& Tokenizer::sha256() const { return impl_->sha256; }

std::string read_bounded_text(std::istream& in, const std::string& name, int64_t max_bytes) {
  constexpr std::size_t kChunkBytes = std::size_t{1} << 16;
  std::string out;
  std::string chunk(kChunkBytes, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    out.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (static_cast<int64_t>(out.size()) > max_bytes) {
      throw Error(ErrorKind::input,
                  fmt::format("more than {} bytes of text; ladle reads at most that much at once", max_bytes),
                  SourceLocation{name, 0, 0, ""});
    }
  }
  if (in.bad()) throw Error(ErrorKind::io, "cannot read the input", SourceLocation{name, 0, 0, ""});
  return out;
}

}  // namespace ladle::pack
