// data/schema/recipe.schema.yaml and the loader's field table describe the same format: this test
// walks both together and fails on any key, order, type, requiredness or allowed value that differs.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ladle/recipe/recipe_fields.hpp"
#include "ladle/util/embedded.hpp"

namespace ladle::recipe {
namespace {

using detail::FieldOptions;

// What the field table says about one key, in the schema's own words.
struct FieldFacts {
  std::string type;
  bool required = true;
  bool nullable = false;
  std::vector<std::string> allowed;
};

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
std::string type_name(const FieldOptions& opt) {
  if constexpr (is_optional<T>::value) {
    return type_name<typename T::value_type>(opt);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return "int";
  } else if constexpr (std::is_same_v<T, double>) {
    return "number";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return opt.date ? "date" : "string";
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    return opt.pair ? "pair of int" : "list of int";
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return "list of string";
  } else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, std::string>>>) {
    return "map of string";
  } else {
    static_assert(sizeof(T) == 0, "a field type the schema test does not know");
  }
}

// Walks the field table next to a `fields:` mapping of the schema, recording every difference.
class SchemaWalker {
 public:
  SchemaWalker(const YAML::Node& fields, std::string path, std::vector<std::string>& problems)
      : fields_(fields), path_(std::move(path)), problems_(problems) {}

  template <class T>
  void field(std::string_view name, T&, const FieldOptions& opt) {
    FieldFacts facts{.type = type_name<T>(opt)};
    facts.nullable = is_optional<T>::value;
    facts.required = !opt.omit_if_null && !opt.omit_if_empty;
    facts.allowed.assign(opt.allowed.begin(), opt.allowed.end());
    compare(name, facts);
  }

  template <class T>
  void object(std::string_view name, T&, bool omit_if_null = false) {
    FieldFacts facts{.type = "object", .required = !omit_if_null};
    if constexpr (is_optional<T>::value) {
      facts.nullable = true;
      walk_inner<typename T::value_type>(name, facts);
    } else {
      walk_inner<T>(name, facts);
    }
  }

  // The layout block's optional fields: the knob rows' recipe columns (recipe_fields.hpp).
  void knob_fields(std::vector<LayoutField>&) {
    for (const detail::KnobField& f : detail::layout_knob_fields()) {
      const FieldOptions opt = f.options();
      std::string type;
      switch (f.knob->kind) {
        case layout::KnobKind::integer: type = type_name<int64_t>(opt); break;
        case layout::KnobKind::flag: type = type_name<bool>(opt); break;
        case layout::KnobKind::real: type = type_name<double>(opt); break;
        case layout::KnobKind::set: type = type_name<std::vector<std::string>>(opt); break;
        case layout::KnobKind::choice:
        case layout::KnobKind::text: type = type_name<std::string>(opt); break;
      }
      FieldFacts facts{.type = type, .required = false, .nullable = true};
      facts.allowed.assign(opt.allowed.begin(), opt.allowed.end());
      compare(f.name, facts);
    }
  }

  template <class T>
  void list(std::string_view name, std::vector<T>&) {
    walk_inner<T>(name, FieldFacts{.type = "list of object"});
  }

  // Keys the schema has that the table never visited, and keys out of order.
  void finish() {
    std::vector<std::string> schema_keys;
    for (const auto& entry : fields_) schema_keys.push_back(entry.first.as<std::string>());
    for (const std::string& key : schema_keys) {
      if (std::find(visited_.begin(), visited_.end(), key) == visited_.end()) {
        problems_.push_back(where(key) + ": in the schema but not read by the loader");
      }
    }
    std::vector<std::string> common;
    for (const std::string& key : schema_keys) {
      if (std::find(visited_.begin(), visited_.end(), key) != visited_.end()) common.push_back(key);
    }
    std::vector<std::string> loader_order;
    for (const std::string& key : visited_) {
      if (std::find(schema_keys.begin(), schema_keys.end(), key) != schema_keys.end()) loader_order.push_back(key);
    }
    if (common != loader_order) problems_.push_back(path_ + ": keys are not in the loader's order");
  }

 private:
  std::string where(std::string_view name) const {
    return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
  }

  template <class T>
  void walk_inner(std::string_view name, const FieldFacts& facts) {
    const YAML::Node entry = compare(name, facts);
    if (!entry) return;
    const YAML::Node inner = entry["fields"];
    if (!inner || !inner.IsMap()) {
      problems_.push_back(where(name) + ": an object needs a `fields:` mapping");
      return;
    }
    SchemaWalker walker(inner, where(name), problems_);
    T value{};
    detail::visit_fields(walker, value);
    walker.finish();
  }

  // Returns the schema entry of `name` (a null node when it is missing).
  YAML::Node compare(std::string_view name, const FieldFacts& facts) {
    visited_.emplace_back(name);
    const std::string at = where(name);
    const YAML::Node entry = fields_[std::string(name)];
    if (!entry || !entry.IsMap()) {
      problems_.push_back(at + ": read by the loader but not described in the schema");
      return YAML::Node();
    }
    static const std::set<std::string> kKeys = {"type", "required", "nullable", "unit", "allowed", "meaning", "fields"};
    for (const auto& key : entry) {
      if (!kKeys.contains(key.first.as<std::string>())) {
        problems_.push_back(at + ": unknown schema key '" + key.first.as<std::string>() + "'");
      }
    }
    const auto text = [&](const char* key) { return entry[key] ? entry[key].as<std::string>() : std::string(); };
    const auto flag = [&](const char* key) { return entry[key] && entry[key].as<bool>(); };
    if (text("type") != facts.type) {
      problems_.push_back(at + ": schema type '" + text("type") + "', loader type '" + facts.type + "'");
    }
    if (!entry["required"]) problems_.push_back(at + ": says nothing about `required`");
    if (flag("required") != facts.required) {
      problems_.push_back(at + ": schema required " + text("required") + ", loader " +
                          (facts.required ? "true" : "false"));
    }
    if (flag("nullable") != facts.nullable) {
      problems_.push_back(at + ": schema nullable " + (flag("nullable") ? "true" : "false") + ", loader " +
                          (facts.nullable ? "true" : "false"));
    }
    std::vector<std::string> allowed;
    if (entry["allowed"]) allowed = entry["allowed"].as<std::vector<std::string>>();
    if (allowed != facts.allowed) problems_.push_back(at + ": allowed values differ from the loader's");
    if (text("meaning").empty()) problems_.push_back(at + ": has no meaning");
    return entry;
  }

  YAML::Node fields_;
  std::string path_;
  std::vector<std::string>& problems_;
  std::vector<std::string> visited_;
};

YAML::Node embedded_schema() {
  const auto bytes = util::find_embedded("data/schema/recipe.schema.yaml");
  EXPECT_TRUE(bytes.has_value()) << "data/schema/recipe.schema.yaml is not embedded";
  return bytes ? YAML::Load(std::string(*bytes)) : YAML::Node();
}

std::vector<std::string> differences(const YAML::Node& schema) {
  std::vector<std::string> problems;
  SchemaWalker walker(schema["fields"], "", problems);
  Recipe recipe;
  detail::visit_fields(walker, recipe);
  walker.finish();
  return problems;
}

TEST(RecipeSchema, DescribesExactlyTheFieldsTheLoaderReads) {
  const YAML::Node schema = embedded_schema();
  ASSERT_TRUE(schema["fields"]);
  EXPECT_EQ(schema["schema_version"].as<int>(), Recipe{}.schema_version);
  const std::vector<std::string> problems = differences(schema);
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

// The comparison itself can fail: each kind of drift is caught.
TEST(RecipeSchema, NoticesEveryKindOfDrift) {
  const auto drift = [](auto edit) {
    YAML::Node schema = YAML::Clone(embedded_schema());
    edit(schema["fields"]);
    return differences(schema);
  };
  EXPECT_EQ(drift([](YAML::Node f) { f["gpu"]["fields"]["count"]["type"] = "number"; }),
            std::vector<std::string>{"gpu.count: schema type 'number', loader type 'int'"});
  EXPECT_EQ(drift([](YAML::Node f) { f["notes"]["required"] = true; }),
            std::vector<std::string>{"notes: schema required true, loader false"});
  EXPECT_EQ(drift([](YAML::Node f) { f["layout"]["fields"]["offload"]["nullable"] = false; }),
            std::vector<std::string>{"layout.offload: schema nullable false, loader true"});
  EXPECT_EQ(drift([](YAML::Node f) { f["status"]["allowed"].push_back("retired"); }),
            std::vector<std::string>{"status: allowed values differ from the loader's"});
  EXPECT_EQ(drift([](YAML::Node f) { f["author"]["fields"].remove("url"); }),
            std::vector<std::string>{"author.url: read by the loader but not described in the schema"});
  EXPECT_EQ(drift([](YAML::Node f) { f["author"]["fields"]["email"] = f["author"]["fields"]["url"]; }),
            std::vector<std::string>{"author.email: in the schema but not read by the loader"});
  EXPECT_EQ(drift([](YAML::Node f) { f["model"]["meaning"] = ""; }), std::vector<std::string>{"model: has no meaning"});
}


// The layout block has one vocabulary, the knob table's recipe column: every field of the block but
// its three texts is one row's column, under the column's last part, and every row with a recipe
// column is exactly one field of the block (a core member or an optional field).
class LayoutColumns {
 public:
  template <class T>
  void field(std::string_view name, T&, const FieldOptions& opt) {
    if (opt.knob == nullptr) {
      texts.emplace_back(prefix_ + std::string(name));
      return;
    }
    columns.emplace_back(opt.knob->recipe);
    keys.emplace_back(prefix_ + std::string(name));
  }
  template <class T>
  void object(std::string_view name, std::optional<T>&, bool = false) {
    LayoutColumns inner;
    inner.prefix_ = prefix_ + std::string(name) + ".";
    T value{};
    detail::visit_fields(inner, value);
    for (auto* list : {&inner.columns, &inner.keys, &inner.texts}) {
      auto& mine = list == &inner.columns ? columns : list == &inner.keys ? keys : texts;
      mine.insert(mine.end(), list->begin(), list->end());
    }
  }
  void knob_fields(std::vector<LayoutField>&) {
    for (const detail::KnobField& f : detail::layout_knob_fields()) {
      columns.emplace_back(f.knob->recipe);
      keys.emplace_back(f.name);
      EXPECT_EQ(f.options().knob, f.knob);
    }
  }
  std::vector<std::string> columns;  ///< the rows' recipe columns, in visit order
  std::vector<std::string> keys;     ///< the keys the block reads them under
  std::vector<std::string> texts;    ///< fields that are no row's

 private:
  std::string prefix_;
};

TEST(RecipeLayoutBlock, EveryFieldIsAKnobRowsRecipeColumnAndEveryColumnAField) {
  LayoutColumns walker;
  RecipeLayout block;
  detail::visit_fields(walker, block);
  EXPECT_EQ(walker.texts, (std::vector<std::string>{"label", "summary", "highlights"}));
  EXPECT_EQ(walker.keys, walker.columns);  // each key is its row's column, nested under its object
  std::vector<std::string> rows;
  for (const layout::Knob& knob : layout::kKnobs) {
    if (!knob.recipe.empty()) rows.emplace_back(knob.recipe);
  }
  std::vector<std::string> sorted_columns = walker.columns;
  std::sort(sorted_columns.begin(), sorted_columns.end());
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(sorted_columns, rows);
  EXPECT_TRUE(std::adjacent_find(sorted_columns.begin(), sorted_columns.end()) == sorted_columns.end());
}

// The options of every core (typed) field of the layout block, with its key.
struct CoreFieldProbe {
  std::vector<std::pair<std::string, FieldOptions>> seen;
  template <class T>
  void field(std::string_view name, T&, const FieldOptions& opt) {
    if (opt.knob != nullptr) seen.emplace_back(std::string(name), opt);
  }
  template <class T>
  void object(std::string_view, std::optional<T>&, bool = false) {
    T value{};
    detail::visit_fields(*this, value);
  }
  void knob_fields(std::vector<LayoutField>&) {}
};

// A core field's names and range are its row's: the names of its choice or set (recompute's
// granularity but none, the object's absence) and its recipe range (the row's .recipe_range), which
// is limits.hpp's bound each field was read under before the ranges moved into the rows.
TEST(RecipeLayoutBlock, CoreFieldsTakeTheirRowsNamesAndRanges) {
  CoreFieldProbe probe;
  RecipeLayout block;
  detail::visit_fields(probe, block);
  ASSERT_EQ(probe.seen.size(), 19u);  // tp ... sequence_parallel, layer_split 2, batching 2, recompute 4, offload 2, dispatcher
  for (const auto& [name, opt] : probe.seen) {
    const layout::Knob& knob = *opt.knob;
    if (knob.kind == layout::KnobKind::integer) {
      EXPECT_EQ(opt.range, knob.recipe_range) << name;
      ASSERT_NE(opt.range, nullptr) << name;
      const std::string_view key = knob.key;
      const limits::IntegerRange* expected = &limits::kParallelRange;  // tp, pp, cp, ep, etp, dp, vpp
      if (key == "first" || key == "last" || key == "recompute_layers") expected = &limits::kLayerCountRange;
      if (key == "max_tokens") expected = &limits::kTokensPerGpuRange;
      if (key == "rows_per_mb") expected = &limits::kBatchRowsRange;
      EXPECT_EQ(opt.range, expected) << name;
    }
    if (knob.kind == layout::KnobKind::choice || knob.kind == layout::KnobKind::set) {
      std::vector<std::string_view> names(knob.names.begin(), knob.names.end());
      if (name == "granularity") names.erase(names.begin());  // none is `recompute: null`
      EXPECT_EQ(std::vector<std::string_view>(opt.allowed.begin(), opt.allowed.end()), names) << name;
    }
  }
  EXPECT_EQ(probe.seen.front().second.range, &limits::kParallelRange);  // tp
}

}  // namespace
}  // namespace ladle::recipe
