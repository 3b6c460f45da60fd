#include "ladle/layout/layout_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <utility>

#include "ladle/layout/knobs.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

[[noreturn]] void fail(std::string_view key, const std::string& message) {
  throw Error(ErrorKind::usage, message, SourceLocation{"", 0, 0, fmt::format("layout.{}", key)});
}

template <typename F>
auto rekey(std::string_view key, F&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const Error& e) {
    fail(key, e.message());
  }
}

int64_t parse_count(std::string_view key, std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) fail(key, fmt::format("expected an integer, got '{}'", text));
  if (value < 1 || value > kMaxParallel) fail(key, fmt::format("{} is out of range 1..{}", value, kMaxParallel));
  return value;
}

// recompute=none | selective | full[:uniform|block[:layers]]: the granularity with the full
// recompute method and layer count folded in.
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
  if (parts.size() > 2) layout.recompute_layers = parse_count("recompute", parts[2]);
}

// Whether the spec writes this knob for `l`.
bool spec_writes(const Knob& knob, const Layout& l) {
  if (knob.spec == Written::folded) return false;
  if (knob.spec == Written::always) return true;
  // moments= sets both Adam moments; moments_sq is written only when the two differ.
  if (knob.key == "moments_sq") return l.moments_sq != l.moments;
  return !knob_is_default(knob, l);
}

// The label form `ls` and `show` print ("TP4 PP4 EP16 DP4", any case, spaces or commas): the
// sizes it names, each key appended to `given`. Returns false when `text` is not a label, so
// key=value specs keep their own errors.
bool parse_layout_label(std::string_view text, Layout& layout, std::vector<std::string>& given) {
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
    given.push_back(key);
    const int64_t size = parse_count(key, value);
    if (key == "tp") layout.tp = size;
    else if (key == "pp") layout.pp = size;
    else if (key == "vpp") layout.vpp = size;
    else if (key == "cp") layout.cp = size;
    else if (key == "ep") layout.ep = size;
    else if (key == "etp") layout.etp = size;
    else layout.dp = size;
    any = true;
  }
  return any;
}

}  // namespace

std::vector<std::string> layout_spec_keys() {
  std::vector<std::string> keys;
  for (const Knob& knob : kKnobs) {
    if (knob.spec != Written::folded) keys.emplace_back(knob.key);
  }
  return keys;
}

bool PartialLayout::names(std::string_view key) const {
  return std::find(given.begin(), given.end(), key) != given.end();
}

Layout parse_layout_spec(std::string_view spec) {
  const std::string_view trimmed = util::trim(spec);
  std::vector<std::string> label_keys;
  Layout label;
  if (!trimmed.empty() && parse_layout_label(trimmed, label, label_keys)) {
    // What `plan` would choose for what a label leaves out.
    label.sp = label.tp > 1;
    label.precision_aware = true;
    return label;
  }
  return parse_partial_layout_spec(spec).layout;
}

PartialLayout parse_partial_layout_spec(std::string_view spec) {
  PartialLayout out;
  Layout& layout = out.layout;
  const std::vector<std::string> keys = layout_spec_keys();
  const std::string_view trimmed = util::trim(spec);
  if (trimmed.empty()) throw_usage("layout spec is empty; expected key=value pairs such as 'tp=2,ep=8'");
  if (parse_layout_label(trimmed, layout, out.given)) return out;
  std::vector<std::pair<const Knob*, std::string>> given;
  for (const std::string& item : util::split(trimmed, ',')) {
    const std::string_view pair = util::trim(item);
    const size_t eq = pair.find('=');
    if (pair.empty() || eq == std::string_view::npos) {
      throw_usage("layout spec: expected key=value, got '{}'", pair);
    }
    const std::string key(util::trim(pair.substr(0, eq)));
    const std::string_view value = util::trim(pair.substr(eq + 1));
    const Knob* knob = find_knob(key);
    if (knob == nullptr || knob->spec == Written::folded) {
      throw_usage("layout spec: unknown key '{}'{}; keys: {}", key, util::did_you_mean(key, keys),
                  util::join(keys, ","));
    }
    for (const auto& [seen, text] : given) {
      if (seen == knob) fail(key, "given twice");
    }
    given.emplace_back(knob, std::string(value));
    out.given.push_back(key);
  }
  // Applied in table order, so that moments= comes before moments_sq=.
  for (const Knob& knob : kKnobs) {
    for (const auto& [k, value] : given) {
      if (k != &knob) continue;
      if (knob.key == "recompute") {
        parse_recompute(value, layout);
      } else {
        set_knob_text(knob, layout, value, fmt::format("layout.{}", knob.key));
      }
      if (knob.key == "moments") layout.moments_sq = layout.moments;
    }
  }
  return out;
}

std::string format_layout_spec(const Layout& l) {
  std::string out;
  for (const Knob& knob : kKnobs) {
    if (!spec_writes(knob, l)) continue;
    if (!out.empty()) out += ',';
    out += knob.key;
    out += '=';
    out += knob_text(knob, l);
    if (knob.key == "recompute" && l.recompute == RecomputeGranularity::full) {
      out += fmt::format(":{}:{}", to_string(l.recompute_method), l.recompute_layers);
    }
  }
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
