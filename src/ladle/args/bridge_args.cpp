#include "ladle/args/bridge_args.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

// The knob table is constexpr data in a header: it is read here without the layout library.
#include "ladle/layout/knobs.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::args {

namespace {

using layout::ArgForm;
using layout::Knob;
using layout::KnobArg;
using layout::KnobKind;

struct Tables {
  std::map<std::string, std::string>
      flags;  ///< override key -> Megatron-LM flag (engines.yaml bridge:)
  std::map<std::string, std::string> options;  ///< run_recipe.py option -> override key
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> presets;
};

const Tables& tables() {
  static const Tables t = [] {
    Tables out;
    const auto text = util::find_embedded("data/launch/engines.yaml");
    if (!text) return out;
    const YAML::Node root = YAML::Load(std::string(*text));
    for (const auto& entry : root["bridge"]) {
      const std::string flag = entry.first.as<std::string>();
      if (entry.second.IsSequence()) {
        for (const auto& key : entry.second) out.flags[key.as<std::string>()] = flag;
      } else {
        out.flags[entry.second.as<std::string>()] = flag;
      }
    }
    for (const auto& entry : root["bridge_options"])
      out.options[entry.first.as<std::string>()] = entry.second.as<std::string>();
    for (const auto& entry : root["bridge_mixed_precision"]) {
      std::vector<std::pair<std::string, std::string>> fields;
      for (const auto& field : entry.second)
        fields.emplace_back(field.first.as<std::string>(), field.second.as<std::string>());
      out.presets.emplace_back(entry.first.as<std::string>(), std::move(fields));
    }
    return out;
  }();
  return t;
}

// Megatron-Bridge's PEFT schemes ladle prices, by name (NVIDIA-NeMo/Megatron-Bridge at
// 067f987df03b8355b03192d88d70f1709fedf51a): run_recipe.py's `--mode lora` (scripts/training/
// run_recipe.py, _load_selected_recipe hands it to the recipe as peft_scheme) and the override
// `peft=lora` name the scheme that recipes/utils/dataset_utils.py default_peft_config builds ("lora":
// LoRA(), "none": no adapters). The rank and alpha are LoRA's dataclass defaults (dim 32, alpha 32;
// src/megatron/bridge/peft/lora.py); a recipe may set its own (gemma3's peft recipes: dim 8), which
// ladle does not read: an explicit peft.dim=N / peft.alpha=N in the launch replaces them
// (settle_peft_defaults). DoRA (`--mode dora`, DoRA() adds a magnitude vector per linear) is not
// priced: it stays in the not-priced list.
struct PeftScheme {
  std::string_view name;
  std::string_view rank;
  std::string_view alpha;
};
constexpr PeftScheme kPeftSchemes[] = {{"lora", "32", "32"}};
// The scheme's spellings: the run_recipe.py option and the override key.
constexpr std::string_view kPeftOption = "--mode";
constexpr std::string_view kPeftKey = "peft";
// Without --mode, run_recipe.py takes the mode from the complete recipe's name
// (scripts/training/recipe_metadata.py infer_recipe_mode at 067f987d): the first of these markers
// in "_<name>_" decides; "" is no scheme ladle prices (pretrain, sft; DoRA is not priced).
// Megatron-Bridge's examples/models/gpt_oss/slurm_peft.sh runs `--recipe gpt_oss_20b_peft_config`
// with no --mode.
constexpr std::string_view kRecipeOption = "--recipe";
constexpr std::pair<std::string_view, std::string_view> kRecipeModeMarkers[] = {
    {"_pretrain_", ""}, {"_sft_", ""}, {"_finetune_", ""}, {"_dora_", ""}, {"_peft_", "lora"}, {"_lora_", "lora"}};

const PeftScheme* peft_scheme(std::string_view name) {
  for (const PeftScheme& scheme : kPeftSchemes) {
    if (scheme.name == name) return &scheme;
  }
  return nullptr;
}

const Knob* knob_of_key(std::string_view key) {
  for (const Knob& knob : layout::kKnobs) {
    if (!knob.bridge.empty() && knob.bridge == key) return &knob;
  }
  return nullptr;
}

// A switch with an override of its own (dist.use_torch_fsdp2), and its knob.
std::pair<const Knob*, const KnobArg*> switch_of_key(std::string_view key) {
  for (const Knob& knob : layout::kKnobs) {
    for (const KnobArg& arg : knob.args) {
      if (!arg.bridge.empty() && arg.bridge == key) return {&knob, &arg};
    }
  }
  return {nullptr, nullptr};
}

// The spellings a Bridge override stands for: Megatron-LM's, and the Bridge-only fields'.
bool megatron_spelling(const KnobArg& arg) {
  return (arg.engines & (layout::kMegatron | layout::kBridgeOnly)) != 0 && !arg.deprecated;
}

// The knob's argument that takes a value, and its switch for `value`.
const KnobArg* value_arg(const Knob& knob) {
  for (const KnobArg& arg : knob.args) {
    if (megatron_spelling(arg) && arg.form == ArgForm::value) return &arg;
  }
  return nullptr;
}
const KnobArg* switch_for(const Knob& knob, std::string_view value) {
  for (const KnobArg& arg : knob.args) {
    if (megatron_spelling(arg) && arg.form == ArgForm::on && arg.on_value == value) return &arg;
  }
  return nullptr;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return std::string(text.substr(b, e - b));
}

// A Hydra override value.
struct Value {
  enum Kind { scalar, quoted, boolean, null, list, dict, sweep } kind = scalar;
  std::string text;                ///< scalar and quoted: the string; list: as written
  bool truth = false;              ///< boolean
  std::vector<std::string> items;  ///< list: each element, trimmed and unquoted
};

bool is_quoted(std::string_view t) {
  return t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front();
}

std::string unquote(const std::string& t) { return is_quoted(t) ? t.substr(1, t.size() - 2) : t; }

class ValueReader {
 public:
  ValueReader(std::string key, const std::string& file, int line, int col)
      : key_(std::move(key)), file_(file), line_(line), col_(col) {}

  [[noreturn]] void fail(const std::string& what, const std::string& raw) const {
    throw_input(SourceLocation{file_, line_, col_, key_}, "expected {}, got '{}'", what, raw);
  }

  // The elements of a bracketed list at depth 1, or fails naming the key.
  std::vector<std::string> split_list(const std::string& raw) const {
    std::vector<std::string> items;
    int depth = 0;
    char quote = 0;
    std::string item;
    for (size_t i = 0; i < raw.size(); ++i) {
      const char c = raw[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
        item += c;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        item += c;
        continue;
      }
      if (c == '[' || c == '{') {
        if (depth++ > 0) item += c;
        continue;
      }
      if (c == ']' || c == '}') {
        if (--depth < 0) fail("a list with balanced brackets such as [a,b]", raw);
        if (depth > 0) {
          item += c;
          continue;
        }
        if (i + 1 != raw.size()) fail("nothing after the list's closing ']'", raw);
        continue;
      }
      if (c == ',' && depth == 1) {
        items.push_back(unquote(trim(item)));
        item.clear();
        continue;
      }
      item += c;
    }
    if (quote != 0) fail("a list whose quotes are closed", raw);
    if (depth != 0) fail("a list closed by ']' such as [a,b]", raw);
    const std::string last = trim(item);
    if (!last.empty() || !items.empty()) items.push_back(unquote(last));
    return items;
  }

  Value read(const std::string& raw_in) const {
    const std::string raw = trim(raw_in);
    Value v;
    v.text = raw;
    if (raw.empty()) return v;
    if (raw.front() == '[' || raw.front() == '{') {
      v.kind = raw.front() == '[' ? Value::list : Value::dict;
      v.items = split_list(raw);
      return v;
    }
    if (is_quoted(raw)) {
      v.kind = Value::quoted;
      v.text = raw.substr(1, raw.size() - 2);
      return v;
    }
    if (raw.front() == '\'' || raw.front() == '"') fail("a closed quote", raw);
    const std::string l = lower(raw);
    if (l == "true" || l == "false") {
      v.kind = Value::boolean;
      v.truth = l == "true";
      return v;
    }
    if (l == "null") {
      v.kind = Value::null;
      return v;
    }
    if (raw.find(',') != std::string::npos) v.kind = Value::sweep;
    return v;
  }

  const std::string& key() const { return key_; }

 private:
  std::string key_;
  const std::string& file_;
  int line_;
  int col_;
};

LaunchArg make_arg(std::string_view flag, std::vector<std::string> values,
                   const std::string& spelled, int line, bool unresolved) {
  LaunchArg arg;
  arg.flag = std::string(flag);
  arg.values = std::move(values);
  arg.unresolved = unresolved;
  arg.line = line;
  arg.spelled = spelled;
  arg.bridge = true;
  return arg;
}

// The knob's arguments for one override value (the spelling its writer uses).
std::vector<LaunchArg> knob_args(const Knob& knob, const Value& v, const ValueReader& r, int line,
                                 bool unresolved) {
  const std::string& key = r.key();
  auto one = [&](std::string_view flag, std::vector<std::string> values) {
    return std::vector<LaunchArg>{make_arg(flag, std::move(values), key, line, unresolved)};
  };
  // The argument that takes the value (every counted, listed or text knob has one).
  auto valued = [&]() -> std::string_view {
    if (const KnobArg* arg = value_arg(knob)) return arg->flag;
    // A knob only another engine spells (LoRA: miles' --lora-rank) is read under that spelling, so
    // that the Bridge job's reader prices it; writing it for Megatron-Bridge is refused
    // (knob.no_engine), as ladle writes no --mode lora.
    for (const KnobArg& arg : knob.args) {
      if (arg.form == ArgForm::value && !arg.deprecated) return arg.flag;
    }
    r.fail("a switch, which " + std::string(knob.key) + " is not", v.text);
  };
  if (v.kind == Value::null) return {};  // None: the knob keeps its default
  if (v.kind == Value::dict) r.fail("a value of " + std::string(knob.key), v.text);
  const std::string names =
      util::join(std::vector<std::string>(knob.names.begin(), knob.names.end()), ", ");
  switch (knob.kind) {
    case KnobKind::flag: {
      if (v.kind != Value::boolean) r.fail("true or false", v.text);
      if (const KnobArg* sw = switch_for(knob, "on"))
        return one(sw->flag, v.truth ? std::vector<std::string>{} : std::vector<std::string>{"false"});
      // A knob on by default whose one switch turns it off (--no-gradient-accumulation-fusion):
      // true keeps the default, false is the switch.
      if (const KnobArg* off = switch_for(knob, "off")) {
        if (v.truth) return {};
        return one(off->flag, {});
      }
      r.fail("a knob with a switch", v.text);
    }
    case KnobKind::choice: {
      // A boolean named after one value (mixed_precision.grad_reduce_in_fp32,
      // ddp.use_megatron_fsdp).
      const std::string_view field = std::string_view(key).substr(key.rfind('.') + 1);
      for (const KnobArg& arg : knob.args) {
        if (!megatron_spelling(arg) || arg.form != ArgForm::on || arg.on_value == "on") continue;
        if (field.find(arg.on_value) == std::string_view::npos) continue;
        if (v.kind != Value::boolean) r.fail("true or false", v.text);
        if (v.truth) return one(arg.flag, {});
        // False: the knob's other value when it takes two, else its default.
        std::vector<std::string_view> allowed;
        for (size_t i = 0; i < knob.names.size(); ++i) {
          if (knob.allowed == 0 || ((knob.allowed >> i) & 1) != 0) allowed.push_back(knob.names[i]);
        }
        if (allowed.size() == 2) {
          const std::string_view other = allowed[0] == arg.on_value ? allowed[1] : allowed[0];
          if (const KnobArg* sw = switch_for(knob, other)) return one(sw->flag, {});
          if (const KnobArg* va = value_arg(knob)) return one(va->flag, {std::string(other)});
        }
        return one(arg.flag, {"false"});
      }
      if (v.kind != Value::scalar && v.kind != Value::quoted) r.fail("one of: " + names, v.text);
      if (const KnobArg* va = value_arg(knob)) return one(va->flag, {v.text});
      if (const KnobArg* sw = switch_for(knob, v.text)) return one(sw->flag, {});
      r.fail("one of: " + names, v.text);
    }
    case KnobKind::set: {
      if (v.kind != Value::list)
        r.fail("a list such as [" +
                   util::join(std::vector<std::string>(
                                  knob.names.begin(),
                                  knob.names.begin() + std::min<size_t>(2, knob.names.size())),
                              ",") +
                   "]",
               v.text);
      if (v.items.empty()) return {};
      return one(valued(), v.items);
    }
    case KnobKind::integer:
      if (knob.key == "cp_inner") {
        if (v.kind != Value::list || v.items.size() != 2)
          r.fail("two sizes [all-to-all,p2p]", v.text);
        return one(valued(), v.items);
      }
      if (v.kind != Value::scalar) r.fail("an integer", v.text);
      return one(valued(), {v.text});
    case KnobKind::real:
      if (v.kind != Value::scalar) r.fail("a number", v.text);
      return one(valued(), {v.text});
    case KnobKind::text:
      if (knob.key == "lora_targets") {
        // LoRA.target_modules is a list of module names (peft/lora.py); ladle's knob holds them
        // comma-separated, as miles' --target-modules does. [] keeps LoRA's default targets.
        if (v.kind != Value::list) r.fail("a list of module names such as [linear_qkv,linear_proj]", v.text);
        if (v.items.empty()) return {};
        return one(valued(), {util::join(v.items, ",")});
      }
      if (v.kind != Value::scalar && v.kind != Value::quoted)
        r.fail("a pipeline layout string such as Et|tL", v.text);
      return one(valued(), {v.text});
  }
  return {};
}

// Any other key's arguments: engines.yaml's flag, or the key itself (not priced).
std::vector<LaunchArg> other_args(const std::string& key, const Value& v,
                                  const std::string& spelled, int line, bool unresolved) {
  const auto it = tables().flags.find(key);
  std::vector<std::string> values;
  switch (v.kind) {
    case Value::boolean:
      if (it != tables().flags.end()) {
        if (!v.truth) return {};  // a switch left off
        break;
      }
      values.push_back(v.truth ? "true" : "false");
      break;
    case Value::null:
      if (it != tables().flags.end()) return {};
      values.push_back("null");
      break;
    case Value::list:
      // dataset.blend=[["prefix", ...],null]: the prefixes.
      if (!v.items.empty() && !v.items.front().empty() && v.items.front().front() == '[') {
        for (std::string item :
             util::split(v.items.front().substr(1, v.items.front().size() - 2), ',')) {
          item = unquote(trim(item));
          if (!item.empty()) values.push_back(item);
        }
      } else {
        values = v.items;
      }
      break;
    default:
      values.push_back(v.text);
  }
  if (it == tables().flags.end())
    return {make_arg(spelled, std::move(values), "", line, unresolved)};
  return {make_arg(it->second, std::move(values), spelled, line, unresolved)};
}

// The LoRA knobs' arguments a scheme stands for (its rank and alpha), spelled as the scheme was.
std::vector<LaunchArg> peft_args(const PeftScheme& scheme, std::string_view spelled, int line,
                                 bool unresolved) {
  std::vector<LaunchArg> out;
  for (const auto& [key, value] : {std::pair{"lora_rank", scheme.rank}, std::pair{"lora_alpha", scheme.alpha}}) {
    const Knob* knob = nullptr;
    for (const Knob& k : layout::kKnobs) {
      if (k.key == key) knob = &k;
    }
    const KnobArg* flag = nullptr;
    for (const KnobArg& arg : knob->args) {
      if (flag == nullptr && arg.form == ArgForm::value && !arg.deprecated) flag = &arg;
    }
    out.push_back(make_arg(flag->flag, {std::string(value)}, std::string(spelled), line, unresolved));
  }
  return out;
}

std::vector<LaunchArg> override_args(const std::string& word, const std::string& file, int line,
                                     bool unresolved, int col);

}  // namespace

bool is_bridge_override(std::string_view word) {
  size_t start = 0;
  if (word.rfind("++", 0) == 0) {
    start = 2;
  } else if (!word.empty() && (word.front() == '+' || word.front() == '~')) {
    start = 1;
  }
  const size_t eq = word.find('=');
  const std::string_view key =
      word.substr(start, eq == std::string_view::npos ? word.size() - start : eq - start);
  if (key.empty() || !std::islower(static_cast<unsigned char>(key.front()))) return false;
  if (eq == std::string_view::npos && word.front() != '~') return false;
  if (key.find('.') == std::string_view::npos && key != "mixed_precision" && key != kPeftKey) return false;
  for (char c : key) {
    if (!std::islower(static_cast<unsigned char>(c)) &&
        !std::isdigit(static_cast<unsigned char>(c)) && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

std::vector<LaunchArg> bridge_override_args(const std::string& word, const std::string& file,
                                            int line, bool unresolved, int col) {
  std::vector<LaunchArg> out = override_args(word, file, line, unresolved, col);
  for (LaunchArg& a : out) a.col = col;
  return out;
}

namespace {

std::vector<LaunchArg> override_args(const std::string& word, const std::string& file, int line,
                                     bool unresolved, int col) {
  size_t start = 0;
  if (word.rfind("++", 0) == 0) {
    start = 2;
  } else if (!word.empty() && word.front() == '+') {
    start = 1;
  } else if (!word.empty() && word.front() == '~') {
    // Deleting a key: what the recipe had is unknown here, so nothing ladle prices follows.
    return {make_arg(word, {}, "", line, unresolved)};
  }
  const size_t eq = word.find('=');
  const std::string key = word.substr(start, eq - start);
  const ValueReader reader(key, file, line, col);
  const Value v = reader.read(word.substr(eq + 1));
  if (v.kind == Value::sweep)
    reader.fail("one value, or a list such as [a,b] (a,b is a Hydra sweep)", v.text);
  if (key == "mixed_precision") {
    if (v.kind != Value::scalar && v.kind != Value::quoted)
      reader.fail("a mixed-precision recipe name", v.text);
    std::string name = v.text;
    for (char& c : name) c = c == '-' ? '_' : c;  // get_mixed_precision_config reads either
    for (const auto& [preset, fields] : tables().presets) {
      if (preset != name) continue;
      std::vector<LaunchArg> out;
      for (const auto& [field, value] : fields) {
        for (LaunchArg& arg :
             override_args("mixed_precision." + field + "=" + value, file, line, unresolved, col)) {
          arg.spelled = key + "=" + preset;  // its fields are named by the recipe
          out.push_back(std::move(arg));
        }
      }
      return out;
    }
    return {make_arg(key, {v.text}, "", line, unresolved)};  // a recipe ladle does not price
  }
  if (key == kPeftKey) {
    if (v.kind == Value::null) return {};  // no adapters: full fine-tuning
    if (v.kind != Value::scalar && v.kind != Value::quoted) reader.fail("a PEFT scheme name such as lora", v.text);
    const std::string name = lower(v.text);
    if (name == "none") return {};  // default_peft_config("none"): no adapters
    if (const PeftScheme* scheme = peft_scheme(name)) return peft_args(*scheme, key, line, unresolved);
    return {make_arg(key, {v.text}, "", line, unresolved)};  // a scheme ladle does not price (dora)
  }
  if (const Knob* knob = knob_of_key(key)) return knob_args(*knob, v, reader, line, unresolved);
  if (const auto [knob, sw] = switch_of_key(key); sw != nullptr) {
    if (v.kind == Value::null) return {};
    if (v.kind != Value::boolean) reader.fail("true or false", v.text);
    return {make_arg(sw->flag,
                     v.truth ? std::vector<std::string>{} : std::vector<std::string>{"false"}, key,
                     line, unresolved)};
  }
  return other_args(key, v, key, line, unresolved);
}

}  // namespace

std::optional<std::vector<LaunchArg>> bridge_option_args(const LaunchArg& arg,
                                                         const std::string& file) {
  if (arg.flag == kPeftOption) {
    // --mode lora: LoRA adapters; pretrain, sft and the schemes ladle does not price stay as written.
    const PeftScheme* scheme = arg.values.size() == 1 ? peft_scheme(arg.values.front()) : nullptr;
    if (scheme == nullptr) return std::nullopt;
    std::vector<LaunchArg> out = peft_args(*scheme, arg.flag, arg.line, arg.unresolved);
    for (LaunchArg& a : out) {
      a.col = arg.col;
      a.command = arg.command;
    }
    return out;
  }
  const auto it = tables().options.find(arg.flag);
  if (it == tables().options.end()) return std::nullopt;
  if (arg.values.size() != 1) {
    throw_input(SourceLocation{file, arg.line, arg.col, arg.flag},
                "expected one value after {} (it sets {}), got {}", arg.flag, it->second,
                arg.values.size());
  }
  std::vector<LaunchArg> out = bridge_override_args(it->second + "=" + arg.values.front(), file,
                                                    arg.line, arg.unresolved, arg.col);
  for (LaunchArg& a : out) {
    a.spelled = arg.flag;
    a.command = arg.command;
    a.bridge = true;
  }
  return out;
}

std::vector<std::string> bridge_mixed_precision_names() {
  std::vector<std::string> out;
  for (const auto& [name, fields] : tables().presets) out.push_back(name);
  return out;
}

void settle_peft_defaults(std::vector<LaunchArg>& args) {
  const auto is_lora_flag = [](const std::string& flag) {
    for (const Knob& knob : layout::kKnobs) {
      if (knob.key != "lora_rank" && knob.key != "lora_alpha") continue;
      for (const KnobArg& arg : knob.args)
        if (arg.flag == flag) return true;
    }
    return false;
  };
  const auto from_scheme = [&](const LaunchArg& a) {
    return is_lora_flag(a.flag) && (a.spelled == kPeftOption || a.spelled == kPeftKey || a.spelled == kRecipeOption);
  };
  // No --mode: the complete recipe's name says the mode, as run_recipe.py infers it.
  const bool mode_given = std::any_of(args.begin(), args.end(), [](const LaunchArg& a) {
    return a.flag == kPeftOption || a.spelled == kPeftOption;
  });
  if (!mode_given) {
    std::vector<LaunchArg> inferred;
    for (const LaunchArg& a : args) {
      if (a.flag != kRecipeOption || a.values.size() != 1) continue;
      const std::string name = "_" + lower(a.values.front()) + "_";
      for (const auto& [marker, scheme_name] : kRecipeModeMarkers) {
        if (name.find(marker) == std::string::npos) continue;
        if (const PeftScheme* scheme = peft_scheme(scheme_name)) {
          for (LaunchArg& arg : peft_args(*scheme, kRecipeOption, a.line, a.unresolved)) {
            arg.col = a.col;
            arg.command = a.command;
            inferred.push_back(std::move(arg));
          }
        }
        break;
      }
    }
    args.insert(args.end(), inferred.begin(), inferred.end());
  }
  std::vector<LaunchArg> kept;
  for (const LaunchArg& a : args) {
    const bool replaced = from_scheme(a) && std::any_of(args.begin(), args.end(), [&](const LaunchArg& other) {
                            return other.flag == a.flag && other.command == a.command && !from_scheme(other);
                          });
    if (!replaced) kept.push_back(a);
  }
  args = std::move(kept);
}

}  // namespace ladle::args
