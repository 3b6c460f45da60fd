#pragma once
// jinja.hpp: the subset of Jinja that Hugging Face chat templates use, rendered as transformers
// renders them (Python Jinja with trim_blocks and lstrip_blocks). Debian packages no C++ Jinja
// engine that runs these templates, so ladle has its own; tests/pack/jinja_test.cpp checks it
// against @huggingface/jinja on every template ladle ships.
//
// Supported: {{ }}, {% %}, {# #} with `-` whitespace control; if/elif/else, for (one or two
// targets, loop.index/index0/first/last/length, loop over lists, strings and dict items), set
// (a name or a namespace attribute), macro with defaults and its calls; literals (strings with
// escapes, integers, floats, true/false/none in either case, lists, dicts), names, attribute and
// item access, slices, calls, filters (length, count, trim, tojson, string, lower, upper, first,
// last, join, default, list, items, reverse), tests (defined, undefined, none, string, number,
// integer, boolean, mapping, iterable, sequence, true, false, even, odd), `in`/`not in`,
// comparisons, and/or/not, + - * / // %, ~, `x if c else y`; the string methods startswith,
// endswith, split, strip, lstrip, rstrip, upper, lower, replace, title; dict methods items, keys,
// values, get; namespace() and raise_exception().
//
// A chat template is downloaded input, so the engine has limits (each a one-line Error(input) naming
// the template and line, never a crash or a hang): expressions and statements nest at most
// kMaxJinjaNesting levels, macro calls kMaxJinjaMacroDepth; integer arithmetic is checked (Python
// would give a big integer; ladle says the result does not fit in 64 bits) with Python's signs for
// `//` and `%`; and a render has the budgets of JinjaLimits.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ladle::pack {

namespace detail {
struct JinjaNode;
}

/// Levels an expression or a block of statements may nest (parentheses, lists, operators, filters,
/// if/for/macro bodies). The chat templates published nest fewer than 10; Python's Jinja gives up
/// around a few hundred (its recursion limit).
inline constexpr int kMaxJinjaNesting = 128;
/// Macro calls in progress at once (recursion). Templates that recurse (tool schemas) go a few deep.
inline constexpr int kMaxJinjaMacroDepth = 64;
/// Levels a list or mapping built or read by a template may nest.
inline constexpr int kMaxJinjaValueDepth = 256;
/// The most spaces of `tojson(indent=N)`: far above the 2 or 4 templates use.
inline constexpr int64_t kMaxJinjaJsonIndent = 64;

/// The budgets of one render; a render that would exceed one stops with an error saying which.
struct JinjaLimits {
  /// Expressions evaluated, statements run and loop iterations: the four shipped templates take 24
  /// to 54 per message, so this is about 40,000 messages; a step takes about a microsecond, so a
  /// render that exhausts the budget stops within seconds.
  int64_t max_steps = int64_t{1} << 21;
  /// Bytes of values the template builds, iterates over or compares (strings' bytes, 16 per list or
  /// mapping entry; reading a variable is free, its value is shared): bounds the time a render
  /// spends moving data. The shipped templates use a few times the conversation's size.
  int64_t max_value_bytes = int64_t{1} << 30;
  /// The rendered text, and any one string the template builds (64 MiB, one conversation line's
  /// limit).
  int64_t max_output_bytes = int64_t{64} << 20;
};

/// A parsed template.
class JinjaTemplate {
 public:
  /// Parses `source`; `name` labels errors. Throws Error(input) "name:line:col: error: ..." for a
  /// syntax error or a construct outside the subset above.
  JinjaTemplate(std::string_view source, std::string name);
  ~JinjaTemplate();
  JinjaTemplate(JinjaTemplate&&) noexcept;
  JinjaTemplate& operator=(JinjaTemplate&&) noexcept;

  /// Renders with the variables of `context` (a JSON object: messages, add_generation_prompt,
  /// bos_token, ...). Throws Error(input) naming the template for a runtime error (a call of an
  /// unknown function, raise_exception, a type error).
  /// Throws the same error when the render exceeds one of `limits`.
  std::string render(const nlohmann::ordered_json& context, const JinjaLimits& limits = {}) const;

 private:
  std::string name_;
  std::unique_ptr<detail::JinjaNode> root_;
};

}  // namespace ladle::pack
