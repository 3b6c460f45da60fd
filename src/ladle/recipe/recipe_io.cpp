#include "ladle/recipe/recipe_io.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <set>
#include <variant>

#include "ladle/recipe/recipe_fields.hpp"
#include "ladle/recipe/yaml_style.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"
#include "ladle/util/yaml_document.hpp"

namespace ladle::recipe {

SourceLocation FieldLocations::at(std::string_view field_path) const {
  std::string path(field_path);
  for (;;) {
    const auto it = by_path.find(path);
    if (it != by_path.end()) return it->second;
    const size_t cut = path.find_last_of(".[");
    if (cut == std::string::npos) break;
    path.resize(cut);
  }
  return SourceLocation{file, 0, 0, std::string(field_path)};
}

namespace {

using detail::FieldOptions;

const char* describe_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "nothing";
  }
}

std::string join_path(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

// The state shared by every level of one read: the file name and the locations found so far.
struct ReadContext {
  FieldLocations* where;

  SourceLocation at(const YAML::Node& node, const std::string& path) const {
    const YAML::Mark mark = node.Mark();
    return SourceLocation{where->file, mark.line + 1, mark.column + 1, path};
  }
};

[[noreturn]] void fail(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                       const std::string& message) {
  throw Error(ErrorKind::input, message, ctx.at(node, path));
}

bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

std::string scalar_text(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                        const char* expected) {
  if (!node.IsScalar()) fail(ctx, node, path, fmt::format("expected {}, got {}", expected, describe_kind(node)));
  return node.Scalar();
}

void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                int64_t& out, const FieldOptions& opt) {
  LADLE_ASSERT(opt.range != nullptr, "every integer field of a recipe names its range (recipe_fields.hpp)");
  const limits::IntegerRange& range = *opt.range;
  const std::string text = scalar_text(ctx, node, path, "an integer");
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (is_quoted(node) || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
      end != text.data() + text.size()) {
    fail(ctx, node, path, fmt::format("expected an integer, got '{}'", text));
  }
  if (ec == std::errc::result_out_of_range || value < range.min || value > range.max) {
    fail(ctx, node, path,
         fmt::format("expected an integer from {} to {} ({}), got '{}'", range.min, range.max, range.reason, text));
  }
  out = value;
}

void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                double& out, const FieldOptions& opt) {
  const std::string text = scalar_text(ctx, node, path, "a number");
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (is_quoted(node) || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    fail(ctx, node, path, fmt::format("expected a number, got '{}'", text));
  }
  if (opt.positive && !(value > 0)) {
    fail(ctx, node, path, fmt::format("expected a number greater than 0, got '{}'", text));
  }
  // A field of the layout block that is a real knob row takes the row's range, as the spec does.
  if (opt.knob != nullptr && opt.knob->kind == layout::KnobKind::real &&
      (value < opt.knob->min_real || value > opt.knob->max_real)) {
    fail(ctx, node, path,
         fmt::format("expected a number from {:g} to {:g}, got '{}'", opt.knob->min_real, opt.knob->max_real, text));
  }
  out = value;
}

void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path, bool& out,
                const FieldOptions&) {
  const std::string text = scalar_text(ctx, node, path, "true or false");
  if (!is_quoted(node) && (text == "true" || text == "True")) {
    out = true;
  } else if (!is_quoted(node) && (text == "false" || text == "False")) {
    out = false;
  } else {
    fail(ctx, node, path, fmt::format("expected true or false, got '{}'", text));
  }
}

bool is_date(std::string_view s) { return util::is_calendar_date(s); }

void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                std::string& out, const FieldOptions& opt) {
  if (node.IsNull()) fail(ctx, node, path, "expected a string, got null");
  out = scalar_text(ctx, node, path, "a string");
  if (opt.date && !is_date(out)) {
    fail(ctx, node, path, fmt::format("expected a date YYYY-MM-DD, got '{}'", out));
  }
  if (!opt.allowed.empty()) {
    for (const std::string_view allowed : opt.allowed) {
      if (out == allowed) return;
    }
    std::vector<std::string> names(opt.allowed.begin(), opt.allowed.end());
    fail(ctx, node, path,
         fmt::format("expected one of {}, got '{}'{}", util::join(names, ", "), out,
                     util::did_you_mean(out, names)));
  }
}

template <class T>
void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                std::optional<T>& out, const FieldOptions& opt) {
  if (node.IsNull()) {
    out.reset();
    return;
  }
  T value{};
  read_value(ctx, node, path, value, opt);
  out = std::move(value);
}

void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                std::vector<int64_t>& out, const FieldOptions& opt) {
  if (!node.IsSequence()) fail(ctx, node, path, fmt::format("expected a list, got {}", describe_kind(node)));
  out.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = fmt::format("{}[{}]", path, i);
    ctx.where->by_path[item_path] = ctx.at(node[i], item_path);
    read_value(ctx, node[i], item_path, out.emplace_back(), opt);
  }
  if (opt.pair && out.size() != 2) {
    fail(ctx, node, path, fmt::format("expected a [first, last] pair, got {} values", out.size()));
  }
}

void read_value(const ReadContext& ctx, const YAML::Node& node, const std::string& path,
                std::vector<std::string>& out, const FieldOptions& opt) {
  if (!node.IsSequence()) fail(ctx, node, path, fmt::format("expected a list, got {}", describe_kind(node)));
  out.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = fmt::format("{}[{}]", path, i);
    ctx.where->by_path[item_path] = ctx.at(node[i], item_path);
    read_value(ctx, node[i], item_path, out.emplace_back(), opt);
  }
}

// One mapping of the file: hands out its values by key and reports keys nobody asked for.
class MapReader {
 public:
  MapReader(const ReadContext& ctx, const YAML::Node& node, std::string path)
      : ctx_(ctx), node_(node), path_(std::move(path)) {
    if (!node.IsMap()) {
      fail(ctx, node, path_.empty() ? "" : path_,
           fmt::format("expected a mapping, got {}", describe_kind(node)));
    }
    std::set<std::string> seen;
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      if (!seen.insert(key).second) {
        fail(ctx, entry.first, join_path(path_, key), "duplicate key");
      }
      entries_.push_back({key, entry.first, entry.second});
    }
  }

  template <class T>
  void field(std::string_view name, T& member, const FieldOptions& opt) {
    known_.emplace_back(name);
    const Entry* entry = find(name);
    const std::string path = join_path(path_, name);
    if (!entry) {
      if constexpr (requires { member.reset(); }) {
        member.reset();
        if (opt.omit_if_null) return;
      }
      if constexpr (std::is_same_v<T, std::string>) {
        if (opt.omit_if_empty) {
          member.clear();
          return;
        }
      }
      missing(name);
      return;
    }
    ctx_.where->by_path[path] = ctx_.at(entry->key_node, path);
    read_value(ctx_, entry->value, path, member, opt);
  }

  // env: a mapping of names to scalar strings, order kept.
  void field(std::string_view name, std::vector<std::pair<std::string, std::string>>& member,
             const FieldOptions&) {
    known_.emplace_back(name);
    const Entry* entry = find(name);
    if (!entry) return missing(name);
    const std::string path = join_path(path_, name);
    ctx_.where->by_path[path] = ctx_.at(entry->key_node, path);
    member.clear();
    if (entry->value.IsNull()) return;
    MapReader inner(ctx_, entry->value, path);
    for (const Entry& e : inner.entries_) {
      const std::string item_path = join_path(path, e.key);
      ctx_.where->by_path[item_path] = ctx_.at(e.key_node, item_path);
      std::string value;
      read_value(ctx_, e.value, item_path, value, {});
      member.emplace_back(e.key, std::move(value));
    }
  }

  // The layout block's optional knob fields (recipe_fields.hpp, layout_knob_fields): each read as its
  // knob row's kind says, with the row's names and range.
  void knob_fields(std::vector<LayoutField>& member) {
    member.clear();
    for (const detail::KnobField& f : detail::layout_knob_fields()) {
      known_.emplace_back(f.name);
      const Entry* entry = find(f.name);
      if (!entry || entry->value.IsNull()) continue;
      const std::string path = join_path(path_, f.name);
      ctx_.where->by_path[path] = ctx_.at(entry->key_node, path);
      member.push_back({std::string(f.name), read_knob_value(f, entry->value, path)});
    }
  }

  template <class T>
  void object(std::string_view name, T& member, bool omit_if_null = false) {
    known_.emplace_back(name);
    const Entry* entry = find(name);
    const std::string path = join_path(path_, name);
    if constexpr (requires { member.reset(); }) {
      if (!entry && omit_if_null) {
        member.reset();
        return;
      }
      if (!entry) return missing(name);
      ctx_.where->by_path[path] = ctx_.at(entry->key_node, path);
      if (entry->value.IsNull()) {
        member.reset();
        return;
      }
      member.emplace();
      read_object(entry->value, path, *member);
    } else {
      if (!entry) return missing(name);
      ctx_.where->by_path[path] = ctx_.at(entry->key_node, path);
      read_object(entry->value, path, member);
    }
  }

  template <class T>
  void list(std::string_view name, std::vector<T>& member) {
    known_.emplace_back(name);
    const Entry* entry = find(name);
    if (!entry) return missing(name);
    const std::string path = join_path(path_, name);
    ctx_.where->by_path[path] = ctx_.at(entry->key_node, path);
    if (!entry->value.IsSequence()) {
      fail(ctx_, entry->value, path, fmt::format("expected a list, got {}", describe_kind(entry->value)));
    }
    member.clear();
    for (size_t i = 0; i < entry->value.size(); ++i) {
      const std::string item_path = fmt::format("{}[{}]", path, i);
      ctx_.where->by_path[item_path] = ctx_.at(entry->value[i], item_path);
      read_object(entry->value[i], item_path, member.emplace_back());
    }
  }

  void finish() const {
    for (const Entry& e : entries_) {
      if (std::find(known_.begin(), known_.end(), e.key) == known_.end()) {
        fail(ctx_, e.key_node, join_path(path_, e.key),
             fmt::format("unknown key '{}'{}", e.key, util::did_you_mean(e.key, known_)));
      }
    }
    if (!missing_.empty()) {
      fail(ctx_, node_, join_path(path_, missing_),
           fmt::format("missing required key '{}'{}", missing_,
                       path_.empty() ? std::string() : fmt::format(" in '{}'", path_)));
    }
  }

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };

  LayoutFieldValue read_knob_value(const detail::KnobField& f, const YAML::Node& node, const std::string& path) {
    const FieldOptions opt = f.options();
    const auto read = [&]<class T>(T value) -> LayoutFieldValue {
      read_value(ctx_, node, path, value, opt);
      return value;
    };
    switch (f.knob->kind) {
      case layout::KnobKind::integer: return read(int64_t{0});
      case layout::KnobKind::flag: return read(false);
      case layout::KnobKind::real: return read(0.0);
      case layout::KnobKind::set: return read(std::vector<std::string>());
      case layout::KnobKind::choice:
      case layout::KnobKind::text: break;
    }
    return read(std::string());
  }

  template <class T>
  void read_object(const YAML::Node& node, const std::string& path, T& out) {
    MapReader inner(ctx_, node, path);
    detail::visit_fields(inner, out);
    inner.finish();
  }

  const Entry* find(std::string_view name) const {
    for (const Entry& e : entries_) {
      if (e.key == name) return &e;
    }
    return nullptr;
  }

  // Remembers the first missing key; finish() reports it after any unknown key.
  void missing(std::string_view name) {
    if (missing_.empty()) missing_ = name;
  }

  const ReadContext& ctx_;
  YAML::Node node_;
  std::string path_;
  std::vector<Entry> entries_;
  std::vector<std::string> known_;
  std::string missing_;
};

// YAML forbids tabs in indentation; yaml-cpp's own message for them is unclear, so look first.
void reject_tabs(std::string_view text, const std::string& path) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      const std::string_view content = text.substr(line_start, i - line_start);
      const size_t first = content.find_first_not_of(' ');
      if (first != std::string_view::npos && content[first] == '\t') {
        throw Error(ErrorKind::input, "tab character in indentation: YAML indents with spaces",
                    {path, line, static_cast<int>(first) + 1, ""});
      }
      // YAML's character set has no C0 control characters but tab, LF and CR, and no DEL; a
      // recipe holding one could not be written back as it was read.
      for (size_t k = 0; k < content.size(); ++k) {
        const unsigned char c = static_cast<unsigned char>(content[k]);
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
          throw Error(ErrorKind::input, fmt::format("control character U+{:04X}: YAML allows only printable characters", c),
                      {path, line, static_cast<int>(k) + 1, ""});
        }
      }
      ++line;
      line_start = i + 1;
    }
  }
}

std::vector<std::string> leading_comments(std::string_view text) {
  std::vector<std::string> comments;
  for (const std::string& line : util::split(text, '\n')) {
    if (!line.starts_with("#")) break;
    std::string_view body(line);
    body.remove_prefix(1);
    if (body.starts_with(" ")) body.remove_prefix(1);
    comments.emplace_back(body);
  }
  return comments;
}

// Emits the fields in visit order, in the style described in recipe_io.hpp.
class Writer {
 public:
  explicit Writer(std::string& out, size_t indent = 0) : out_(out), indent_(indent) {}

  void field(std::string_view name, std::string& value, const FieldOptions& opt) {
    if (opt.omit_if_empty && value.empty()) return;
    const size_t column = begin_key(name);
    if (opt.literal_block) {
      detail::append_literal(out_, value, indent_ + 2);
      return;
    }
    detail::append_scalar(out_, value, column, indent_ + 2, opt.date);
    out_ += '\n';
  }
  void field(std::string_view name, int64_t& value, const FieldOptions&) {
    begin_key(name);
    out_ += fmt::format(" {}\n", value);
  }
  void field(std::string_view name, double& value, const FieldOptions&) {
    begin_key(name);
    out_ += " " + detail::python_float_repr(value) + "\n";
  }
  void field(std::string_view name, bool& value, const FieldOptions&) {
    begin_key(name);
    out_ += value ? " true\n" : " false\n";
  }
  template <class T>
  void field(std::string_view name, std::optional<T>& value, const FieldOptions& opt) {
    if (!value) {
      if (opt.omit_if_null) return;
      begin_key(name);
      out_ += " null\n";
      return;
    }
    field(name, *value, opt);
  }
  template <class T>
  void field(std::string_view name, std::vector<T>& values, const FieldOptions& opt) {
    if (!begin_sequence(name, values.empty())) return;
    for (T& value : values) {
      out_.append(indent_, ' ');
      out_ += "-";
      write_item(value, opt);
    }
  }
  void field(std::string_view name, std::vector<std::pair<std::string, std::string>>& values,
             const FieldOptions&) {
    begin_key(name);
    if (values.empty()) {
      out_ += " {}\n";
      return;
    }
    out_ += '\n';
    for (auto& [key, value] : values) {
      out_.append(indent_ + 2, ' ');
      out_ += key + ":";
      detail::append_scalar(out_, value, indent_ + 2 + key.size() + 1, indent_ + 4);
      out_ += '\n';
    }
  }

  // The layout block's optional knob fields, in knob-table order, each as its value's type writes.
  void knob_fields(std::vector<LayoutField>& values) {
    for (const detail::KnobField& f : detail::layout_knob_fields()) {
      for (LayoutField& value : values) {
        if (value.name != f.name) continue;
        const FieldOptions opt = f.options();
        std::visit([&](auto& v) { field(f.name, v, opt); }, value.value);
      }
    }
  }

  template <class T>
  void object(std::string_view name, T& value, bool omit_if_null = false) {
    if constexpr (requires { value.reset(); }) {
      if (!value) {
        if (omit_if_null) return;
        begin_key(name);
        out_ += " null\n";
        return;
      }
      object(name, *value);
    } else {
      begin_key(name);
      out_ += '\n';
      Writer inner(out_, indent_ + 2);
      detail::visit_fields(inner, value);
    }
  }

  template <class T>
  void list(std::string_view name, std::vector<T>& values) {
    if (!begin_sequence(name, values.empty())) return;
    for (T& value : values) {
      // PyYAML's indentless sequence: "- " at the mapping's indent, the item's keys 2 further.
      out_.append(indent_, ' ');
      out_ += "- ";
      Writer inner(out_, indent_ + 2);
      inner.pending_dash_ = true;
      detail::visit_fields(inner, value);
    }
  }

 private:
  void write_item(int64_t value, const FieldOptions&) { out_ += fmt::format(" {}\n", value); }
  void write_item(std::string& value, const FieldOptions& opt) {
    const size_t column = out_.size() - (out_.rfind('\n') + 1);
    detail::append_scalar(out_, value, column, indent_ + 2, opt.date);
    out_ += '\n';
  }

  // Writes "key:" at this level's indent and returns the column after the colon.
  // "name:" then " []" for an empty sequence; returns whether items follow on the next lines.
  bool begin_sequence(std::string_view name, bool empty) {
    begin_key(name);
    out_ += empty ? " []\n" : "\n";
    return !empty;
  }

  size_t begin_key(std::string_view name) {
    if (pending_dash_) {
      pending_dash_ = false;  // the "- " is already written on this line
    } else {
      out_.append(indent_, ' ');
    }
    out_.append(name);
    out_ += ':';
    return out_.size() - (out_.rfind('\n') + 1);
  }

  std::string& out_;
  size_t indent_;
  bool pending_dash_ = false;
};

}  // namespace

LoadedRecipe read_recipe(std::string_view text, const std::string& path) {
  LoadedRecipe loaded;
  loaded.path = path;
  loaded.where.file = path;
  reject_tabs(text, path);
  // One document of UTF-8 text whose aliases stay small (util/yaml_document.hpp).
  const YAML::Node root = util::load_yaml_document(text, path);
  if (!root || root.IsNull()) {
    throw Error(ErrorKind::input, "empty file: expected a recipe mapping", {path, 1, 1, ""});
  }
  ReadContext ctx{&loaded.where};
  MapReader reader(ctx, root, "");
  detail::visit_fields(reader, loaded.recipe);
  reader.finish();
  if (loaded.recipe.schema_version != 1) {
    throw Error(ErrorKind::input,
                fmt::format("expected schema_version 1, got {}", loaded.recipe.schema_version),
                loaded.where.at("schema_version"));
  }
  loaded.recipe.header_comments = leading_comments(text);
  return loaded;
}

LoadedRecipe read_recipe_file(const std::string& path) {
  return read_recipe(util::read_file(path, limits::FileKind::recipe), path);
}

std::string write_recipe(const Recipe& recipe) {
  Recipe copy = recipe;  // the visitor walks mutable references; writing never changes them
  std::string out;
  for (const std::string& comment : copy.header_comments) {
    out += comment.empty() ? "#\n" : "# " + comment + "\n";
  }
  Writer writer(out);
  detail::visit_fields(writer, copy);
  return out;
}

void write_recipe_file(const std::string& path, const Recipe& recipe) {
  const std::string text = write_recipe(recipe);
  // A value ladle would reject on reading (an infinite price, an impossible date) is never written.
  try {
    read_recipe(text, path);
  } catch (const Error& e) {
    throw Error(ErrorKind::input, "refusing to write a recipe ladle would reject: " + e.message(),
                SourceLocation{path, 0, 0, e.where().field_path});
  }
  util::write_file_atomic(path, text);
}

void update_recipe_file(const std::string& path, const std::function<void(Recipe&)>& change) {
  const util::PathLock lock(path);  // a concurrent update waits here, then re-reads what this one wrote
  LoadedRecipe loaded = read_recipe_file(path);
  change(loaded.recipe);
  write_recipe_file(path, loaded.recipe);
}

void replace_recipe_text(const std::string& path, std::string_view expected, std::string_view text) {
  const util::PathLock lock(path);
  if (util::read_file(path, limits::FileKind::recipe) != expected) {
    throw Error(ErrorKind::io, "changed by another process while ladle read it; nothing written, run again", {path});
  }
  util::write_file_atomic(path, text);
}

}  // namespace ladle::recipe
