#include "ladle/layout/layout_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

constexpr int64_t kMaxParallel = 65536;
constexpr int64_t kMaxTokens = int64_t{1} << 32;

const char* const kKeys[] = {"tp",        "pp",          "cp",       "ep",        "etp",
                             "dp",        "sp",          "vpp",      "first",     "last",
                             "recompute", "offload",     "overlap",  "precision_aware",
                             "moments",   "max_tokens",  "rows_per_mb", "dispatcher"};

[[noreturn]] void fail(std::string_view key, const std::string& message) {
  throw Error(ErrorKind::usage, message, SourceLocation{"", 0, 0, fmt::format("layout.{}", key)});
}

int64_t parse_int(std::string_view key, std::string_view text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    fail(key, fmt::format("expected an integer, got '{}'", text));
  }
  if (value < min || value > max) {
    fail(key, fmt::format("{} is out of range {}..{}", value, min, max));
  }
  return value;
}

double parse_fraction(std::string_view key, std::string_view text) {
  std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
    fail(key, fmt::format("expected a number from 0 to 1, got '{}'", text));
  }
  if (value < 0 || value > 1) fail(key, fmt::format("{} is out of range 0..1", text));
  return value;
}

bool parse_bool(std::string_view key, std::string_view text) {
  if (text == "on" || text == "true" || text == "1") return true;
  if (text == "off" || text == "false" || text == "0") return false;
  fail(key, fmt::format("expected on or off, got '{}'", text));
}

template <typename F>
auto rekey(std::string_view key, F&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const Error& e) {
    fail(key, e.message());
  }
}

void parse_recompute(std::string_view text, Layout& layout) {
  const std::vector<std::string> parts = util::split(text, ':');
  layout.recompute = rekey("recompute", [&] { return parse_recompute_granularity(parts[0]); });
  if (parts.size() > 1 && layout.recompute != RecomputeGranularity::full) {
    fail("recompute", fmt::format("only full recompute takes a method and layer count, got '{}'", text));
  }
  if (parts.size() > 3) {
    fail("recompute", fmt::format("expected full[:uniform|block[:layers]], got '{}'", text));
  }
  layout.recompute_method = RecomputeMethod::uniform;
  layout.recompute_layers = 1;
  if (parts.size() > 1) {
    layout.recompute_method = rekey("recompute", [&] { return parse_recompute_method(parts[1]); });
  }
  if (parts.size() > 2) layout.recompute_layers = parse_int("recompute", parts[2], 1, kMaxParallel);
}

std::string format_fraction(double value) {
  std::string text = fmt::format("{:.3f}", value);
  while (text.size() > 3 && text.back() == '0' && text[text.size() - 2] != '.') text.pop_back();
  return text;
}

// The label form `ls` and `show` print ("TP4 PP4 EP16 DP4", any case, spaces or commas): the
// sizes it names, and what `plan` would choose for the rest (sequence parallel wherever tp > 1,
// the precision-aware optimizer). Returns false when `text` is not a label, so key=value specs
// keep their own errors.
bool parse_layout_label(std::string_view text, Layout& layout) {
  if (text.find('=') != std::string_view::npos) return false;
  std::string words(text);
  for (char& ch : words) {
    if (ch == ',') ch = ' ';
  }
  std::set<std::string, std::less<>> seen;
  bool any = false;
  for (const std::string& word : util::split(words, ' ')) {
    if (word.empty()) continue;
    std::size_t digits = 0;
    while (digits < word.size() && !std::isdigit(static_cast<unsigned char>(word[digits]))) ++digits;
    const std::string key = util::to_lower(word.substr(0, digits));
    const std::string value = word.substr(digits);
    static const char* const kLabelKeys[] = {"tp", "pp", "vpp", "cp", "ep", "etp", "dp"};
    if (std::find(std::begin(kLabelKeys), std::end(kLabelKeys), key) == std::end(kLabelKeys) || value.empty()) {
      if (!any) return false;
      throw_usage("layout label: expected sizes such as 'TP4 PP4 EP16 DP4', got '{}'", word);
    }
    if (!seen.insert(key).second) fail(key, "given twice");
    const int64_t size = parse_int(key, value, 1, kMaxParallel);
    if (key == "tp") layout.tp = size;
    else if (key == "pp") layout.pp = size;
    else if (key == "vpp") layout.vpp = size;
    else if (key == "cp") layout.cp = size;
    else if (key == "ep") layout.ep = size;
    else if (key == "etp") layout.etp = size;
    else layout.dp = size;
    any = true;
  }
  if (!any) return false;
  layout.sp = layout.tp > 1;
  layout.precision_aware = true;
  return true;
}

}  // namespace

std::vector<std::string> layout_spec_keys() { return {std::begin(kKeys), std::end(kKeys)}; }

Layout parse_layout_spec(std::string_view spec) {
  Layout layout;
  std::set<std::string, std::less<>> seen;
  const std::vector<std::string> keys = layout_spec_keys();
  const std::string_view trimmed = util::trim(spec);
  if (trimmed.empty()) throw_usage("layout spec is empty; expected key=value pairs such as 'tp=2,ep=8'");
  if (parse_layout_label(trimmed, layout)) return layout;
  for (const std::string& item : util::split(trimmed, ',')) {
    const std::string_view pair = util::trim(item);
    const size_t eq = pair.find('=');
    if (pair.empty() || eq == std::string_view::npos) {
      throw_usage("layout spec: expected key=value, got '{}'", pair);
    }
    const std::string key(util::trim(pair.substr(0, eq)));
    const std::string_view value = util::trim(pair.substr(eq + 1));
    bool known = false;
    for (const std::string& k : keys) known = known || k == key;
    if (!known) {
      throw_usage("layout spec: unknown key '{}'{}; keys: {}", key, util::did_you_mean(key, keys),
                  util::join(keys, ","));
    }
    if (!seen.insert(key).second) fail(key, "given twice");
    if (key == "tp") layout.tp = parse_int(key, value, 1, kMaxParallel);
    else if (key == "pp") layout.pp = parse_int(key, value, 1, kMaxParallel);
    else if (key == "cp") layout.cp = parse_int(key, value, 1, kMaxParallel);
    else if (key == "ep") layout.ep = parse_int(key, value, 1, kMaxParallel);
    else if (key == "etp") layout.etp = parse_int(key, value, 1, kMaxParallel);
    else if (key == "dp") layout.dp = parse_int(key, value, 1, kMaxParallel);
    else if (key == "sp") layout.sp = parse_bool(key, value);
    else if (key == "vpp") layout.vpp = parse_int(key, value, 1, kMaxParallel);
    else if (key == "first") layout.first = parse_int(key, value, 1, kMaxParallel);
    else if (key == "last") layout.last = parse_int(key, value, 1, kMaxParallel);
    else if (key == "recompute") parse_recompute(value, layout);
    else if (key == "offload") layout.offload = parse_fraction(key, value);
    else if (key == "overlap") layout.overlap = parse_bool(key, value);
    else if (key == "precision_aware") layout.precision_aware = parse_bool(key, value);
    else if (key == "moments") layout.moments = rekey(key, [&] { return parse_state_dtype(value); });
    else if (key == "max_tokens") layout.max_tokens = parse_int(key, value, 1, kMaxTokens);
    else if (key == "rows_per_mb") layout.rows_per_mb = parse_int(key, value, 1, kMaxParallel);
    else if (key == "dispatcher") layout.dispatcher = rekey(key, [&] { return parse_moe_dispatcher(value); });
  }
  return layout;
}

std::string format_layout_spec(const Layout& l) {
  std::string out = fmt::format("tp={},pp={},cp={},ep={},etp={},", l.tp, l.pp, l.cp, l.ep, l.etp);
  if (l.dp > 0) out += fmt::format("dp={},", l.dp);
  out += fmt::format("sp={},vpp={},", l.sp ? "on" : "off", l.vpp);
  if (l.first > 0) out += fmt::format("first={},", l.first);
  if (l.last > 0) out += fmt::format("last={},", l.last);
  out += "recompute=";
  out += to_string(l.recompute);
  if (l.recompute == RecomputeGranularity::full) {
    out += fmt::format(":{}:{}", to_string(l.recompute_method), l.recompute_layers);
  }
  out += fmt::format(",offload={},overlap={},precision_aware={},", format_fraction(l.offload),
                     l.overlap ? "on" : "off", l.precision_aware ? "on" : "off");
  if (l.moments != StateDtype::fp32) out += fmt::format("moments={},", to_string(l.moments));
  if (l.max_tokens > 0) out += fmt::format("max_tokens={},", l.max_tokens);
  out += fmt::format("rows_per_mb={},dispatcher={}", l.rows_per_mb, to_string(l.dispatcher));
  return out;
}

std::string layout_label(const Layout& l) {
  std::string out = fmt::format("TP{} PP{}", l.tp, l.pp);
  if (l.vpp > 1) out += fmt::format(" VPP{}", l.vpp);
  if (l.cp > 1) out += fmt::format(" CP{}", l.cp);
  out += fmt::format(" EP{}", l.ep);
  if (l.etp > 1) out += fmt::format(" ETP{}", l.etp);
  out += fmt::format(" DP{}", l.dp);
  return out;
}

}  // namespace ladle::layout
