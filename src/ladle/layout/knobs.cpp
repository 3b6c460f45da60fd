#include "ladle/layout/knobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

[[noreturn]] void fail(std::string_view what, const std::string& message) {
  throw Error(ErrorKind::usage, message, SourceLocation{"", 0, 0, std::string(what)});
}

bool allowed(const Knob& knob, size_t index) {
  return knob.allowed == 0 || ((knob.allowed >> index) & 1) != 0;
}

std::vector<std::string> allowed_names(const Knob& knob) {
  std::vector<std::string> out;
  for (size_t i = 0; i < knob.names.size(); ++i) {
    if (allowed(knob, i)) out.emplace_back(knob.names[i]);
  }
  return out;
}

int64_t name_index(const Knob& knob, std::string_view name, std::string_view what) {
  for (size_t i = 0; i < knob.names.size(); ++i) {
    if (knob.names[i] == name && allowed(knob, i)) return static_cast<int64_t>(i);
  }
  const std::vector<std::string> names = allowed_names(knob);
  fail(what, fmt::format("unknown {} '{}'{}; expected one of: {}", knob.key, name,
                         util::did_you_mean(name, names), util::join(names, ", ")));
}

int64_t parse_integer(const Knob& knob, std::string_view text, std::string_view what) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    fail(what, fmt::format("expected an integer, got '{}'", text));
  }
  if (value < knob.min || value > knob.max) {
    fail(what, fmt::format("{} is out of range {}..{}", value, knob.min, knob.max));
  }
  return value;
}

double parse_real(const Knob& knob, std::string_view text, std::string_view what) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
    fail(what, fmt::format("expected a number from {:g} to {:g}, got '{}'", knob.min_real,
                           knob.max_real, text));
  }
  if (value < knob.min_real || value > knob.max_real) {
    fail(what, fmt::format("{} is out of range {:g}..{:g}", text, knob.min_real, knob.max_real));
  }
  return value;
}

bool parse_flag(std::string_view text, std::string_view what) {
  if (text == "on" || text == "true" || text == "1") return true;
  if (text == "off" || text == "false" || text == "0") return false;
  fail(what, fmt::format("expected on or off, got '{}'", text));
}

}  // namespace

std::string format_real(double value) {
  // {fmt}'s shortest representation that reads back to the same double, with ".0" on a whole
  // number so that a real never reads as an integer.
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

const Knob* find_knob(std::string_view key) {
  for (const Knob& knob : kKnobs) {
    if (knob.key == key) return &knob;
  }
  return nullptr;
}

const Knob* find_knob_by_flag(std::string_view flag) {
  for (const Knob& knob : kKnobs) {
    for (const KnobArg& arg : knob.args) {
      if (arg.flag == flag) return &knob;
    }
  }
  return nullptr;
}

std::string knob_text(const Knob& knob, const Layout& layout) {
  switch (knob.kind) {
    case KnobKind::integer:
      return std::to_string(knob.get(layout));
    case KnobKind::flag:
      return knob.get(layout) != 0 ? "on" : "off";
    case KnobKind::real:
      return format_real(knob.get_real(layout));
    case KnobKind::choice: {
      const auto index = static_cast<size_t>(knob.get(layout));
      return index < knob.names.size() ? std::string(knob.names[index]) : std::string();
    }
    case KnobKind::set: {
      const auto bits = static_cast<uint64_t>(knob.get(layout));
      std::string out;
      for (size_t i = 0; i < knob.names.size(); ++i) {
        if (((bits >> i) & 1) == 0) continue;
        if (!out.empty()) out += '+';
        out += knob.names[i];
      }
      return out;
    }
    case KnobKind::text:
      return knob.get_text(layout);
  }
  return {};
}

void set_knob_text(const Knob& knob, Layout& layout, std::string_view text, std::string_view what) {
  switch (knob.kind) {
    case KnobKind::integer:
      knob.set(layout, parse_integer(knob, text, what));
      return;
    case KnobKind::flag:
      knob.set(layout, parse_flag(text, what) ? 1 : 0);
      return;
    case KnobKind::real:
      knob.set_real(layout, parse_real(knob, text, what));
      return;
    case KnobKind::choice:
      knob.set(layout, name_index(knob, text, what));
      return;
    case KnobKind::set: {
      int64_t bits = 0;
      std::string words(text);
      for (char& c : words) {
        if (c == '+' || c == ' ') c = ',';
      }
      for (const std::string& word : util::split(words, ',')) {
        const std::string_view name = util::trim(word);
        if (name.empty()) continue;
        bits |= int64_t{1} << name_index(knob, name, what);
      }
      knob.set(layout, bits);
      return;
    }
    case KnobKind::text:
      knob.set_text(layout, text);
      return;
  }
}

bool knob_arg_is_list(const Knob& knob, const KnobArg& arg) {
  return knob.kind == KnobKind::set || !arg.of.empty();
}

std::vector<std::string> knob_arg_words(const Knob& knob, const KnobArg& arg, const Layout& layout) {
  if (!arg.of.empty()) {
    const int64_t size = knob.get(layout);
    const int64_t whole = find_knob(arg.of)->get(layout);
    return {std::to_string(size), std::to_string(size > 0 ? whole / size : 0)};
  }
  const std::string text = knob_text(knob, layout);
  if (knob.kind != KnobKind::set) return {text};
  std::vector<std::string> words;
  for (const std::string& word : util::split(text, '+')) {
    if (!word.empty()) words.push_back(word);
  }
  return words;
}

bool knob_is_default(const Knob& knob, const Layout& layout) {
  static const Layout kDefault;
  return knob_text(knob, layout) == knob_text(knob, kDefault);
}

std::optional<std::string_view> engine_refusal(const Layout& layout, uint8_t engines) {
  for (const Knob& knob : kKnobs) {
    if (!knob.foreign_choice.empty() && knob_applies(knob, layout) && knob_text(knob, layout) == knob.foreign_choice) {
      return knob.foreign_line;
    }
    if (knob.no_engine.empty() || knob_is_default(knob, layout)) continue;
    const bool taken = std::any_of(knob.args.begin(), knob.args.end(),
                                   [engines](const KnobArg& arg) { return (arg.engines & engines) != 0; });
    if (!taken) return knob.no_engine;
  }
  return std::nullopt;
}

bool knob_applies(const Knob& knob, const Layout& layout) {
  if (knob.when.key.empty()) return true;
  const Knob* other = find_knob(knob.when.key);
  if (other == nullptr) return true;
  const bool equal = knob_text(*other, layout) == knob.when.value;
  return knob.when.negate ? !equal : equal;
}

}  // namespace ladle::layout
