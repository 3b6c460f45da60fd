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

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ladle::pack {

namespace detail {
struct JinjaNode;
}

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
  std::string render(const nlohmann::ordered_json& context) const;

 private:
  std::string name_;
  std::unique_ptr<detail::JinjaNode> root_;
};

}  // namespace ladle::pack
