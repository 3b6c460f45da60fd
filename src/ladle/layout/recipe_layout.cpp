#include "ladle/layout/recipe_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <variant>

#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/recipe/recipe_fields.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

// Programs that start the training program; their own arguments are not training arguments.
constexpr std::string_view kLaunchers[] = {"torchrun", "srun", "ray", "mpirun", "mpiexec", "deepspeed",
                                           "accelerate", "python", "python3", "uv", "sbatch", "salloc"};

std::string rows_phrase(int64_t rows, int64_t row_tokens) {
  static const char* const kWords[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight"};
  const std::string count = rows < 9 ? kWords[rows] : std::to_string(rows);
  return fmt::format("{} {}-token row{} per microbatch", count, util::format_grouped(static_cast<long long>(row_tokens)),
                     rows == 1 ? "" : "s");
}

// The value a knob takes when no argument sets it, as spec text ("" = Layout's default).
std::string_view engine_default(const Knob& knob, Engine engine) {
  return engine == Engine::megatron || engine == Engine::bridge ? knob.megatron_default : knob.slime_default;
}

// The knob's engine default in `l`'s terms: "@key" follows another knob.
std::string engine_default_text(const Knob& knob, Engine engine, const Layout& l) {
  const std::string_view text = engine_default(knob, engine);
  if (text.empty()) {
    static const Layout kDefault;
    return knob_text(knob, kDefault);
  }
  if (text.front() == '@') return knob_text(*find_knob(text.substr(1)), l);
  return std::string(text);
}

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

// --- recipe block <-> layout, for the block's optional knob fields ---------------------------------

const Knob* find_knob_by_recipe(std::string_view field) {
  for (const Knob& knob : kKnobs) {
    if (knob.recipe == field && knob.spec != Written::folded) return &knob;
  }
  return nullptr;
}

std::string field_text(const std::string& v) { return v; }
std::string field_text(int64_t v) { return std::to_string(v); }
std::string field_text(double v) { return format_real(v); }
std::string field_text(bool v) { return v ? "on" : "off"; }
std::string field_text(const std::vector<std::string>& v) { return util::join(v, "+"); }
std::string field_text(const LayoutFieldValue& v) {
  return std::visit([](const auto& x) { return field_text(x); }, v);
}

// The value the block's absent field of `knob` reads as where another knob implies it (the row's
// recipe_implied, under its recipe_implied_when, in `l`), or nullopt (absent is the default).
std::optional<std::string> recipe_implied_text(const Knob& knob, const Layout& l) {
  if (knob.recipe_implied.empty()) return std::nullopt;
  const KnobWhen& when = knob.recipe_implied_when;
  if (!when.key.empty()) {
    const bool equal = knob_text(*find_knob(when.key), l) == when.value;
    if (equal == when.negate) return std::nullopt;
  }
  if (knob.recipe_implied.front() == '@') return knob_text(*find_knob(knob.recipe_implied.substr(1)), l);
  return std::string(knob.recipe_implied);
}

std::vector<std::string> set_members(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& name : util::split(text, '+')) {
    if (!name.empty()) out.push_back(name);
  }
  return out;
}

// The knob's value in `l` as its recipe field holds it (the row's kind decides the YAML type).
LayoutFieldValue field_value(const Knob& knob, const Layout& l) {
  switch (knob.kind) {
    case KnobKind::integer: return knob.get(l);
    case KnobKind::flag: return knob.get(l) != 0;
    case KnobKind::real: return knob.get_real(l);
    case KnobKind::set: return set_members(knob_text(knob, l));
    case KnobKind::choice:
    case KnobKind::text: break;
  }
  return knob_text(knob, l);
}

// Sets the knob of the recipe field `path` from its value; an error names "layout.<path>".
void set_from_field(const Knob& knob, Layout& l, const LayoutFieldValue& value, std::string_view path) {
  try {
    set_knob_text(knob, l, field_text(value), "");
  } catch (const Error& e) {
    throw Error(ErrorKind::input, e.message(), SourceLocation{"", 0, 0, "layout." + std::string(path)});
  }
}

// The rows of the core members the block may leave out (omit_if_null: recompute.modules) that it
// states, in field order.
class StatedOptionalRows {
 public:
  template <class T>
  void field(std::string_view, T& member, const recipe::detail::FieldOptions& opt) {
    if constexpr (requires { member.has_value(); }) {
      if (opt.knob != nullptr && opt.omit_if_null && member.has_value()) rows.push_back(opt.knob);
    }
  }
  template <class T>
  void object(std::string_view, std::optional<T>& member, bool = false) {
    if (member) recipe::detail::visit_fields(*this, *member);
  }
  void knob_fields(std::vector<LayoutField>&) {}
  std::vector<const Knob*> rows;
};

// Reads the block's optional knob fields into `l` (the core members, recompute.modules among them,
// are from_recipe_layout's). Returns the knobs the block states beyond the fields it always holds:
// its optional core members, then its optional fields, in field order.
std::vector<const Knob*> read_knob_fields(const RecipeLayout& block, Layout& l) {
  StatedOptionalRows stated;
  RecipeLayout core = block;  // the visitor walks mutable members; reading never changes them
  recipe::detail::visit_fields(stated, core);
  std::vector<const Knob*> held = std::move(stated.rows);
  for (const LayoutField& field : block.knobs) {
    const Knob* knob = find_knob_by_recipe(field.name);
    if (knob == nullptr) continue;
    set_from_field(*knob, l, field.value, field.name);
    held.push_back(knob);
  }
  return held;
}

// --- recipe block <-> layout, for the block's core (typed) fields ---------------------------------
// Each core member is the recipe column of its knob row (recipe_fields.hpp gives the row with the
// member); these visitors move values between the member and the row, naming no knob.

// Sets the rows of the core members the block holds (an absent optional object or member, or an
// empty choice, sets nothing).
class CoreFieldReader {
 public:
  explicit CoreFieldReader(Layout& l) : l_(l) {}
  template <class T>
  void field(std::string_view, T& member, const recipe::detail::FieldOptions& opt) {
    if (opt.knob != nullptr) take(*opt.knob, member);
  }
  template <class T>
  void object(std::string_view, std::optional<T>& member, bool = false) {
    if (member) recipe::detail::visit_fields(*this, *member);
  }
  void knob_fields(std::vector<LayoutField>&) {}

 private:
  template <class T>
  void take(const Knob& knob, std::optional<T>& value) {
    if (value) take(knob, *value);
  }
  void take(const Knob& knob, int64_t value) { knob.set(l_, value); }
  void take(const Knob& knob, bool value) { knob.set(l_, value ? 1 : 0); }
  void take(const Knob& knob, double value) { knob.set_real(l_, value); }
  void take(const Knob& knob, const std::string& value) {
    if (!value.empty()) set_from_field(knob, l_, value, knob.recipe);
  }
  void take(const Knob& knob, const std::vector<std::string>& value) { set_from_field(knob, l_, value, knob.recipe); }

  Layout& l_;
};

// Fills the core members from `l`. An optional object is written when one of its rows that applies
// (its `when` holds) is away from its default, as the schema writes none of them as null
// (`recompute: null`); inside it, an optional member the block may leave out is written when away
// from its default, and one it writes as null when its row applies.
class CoreFieldWriter {
 public:
  explicit CoreFieldWriter(const Layout& l) : l_(l) {}
  template <class T>
  void field(std::string_view, T& member, const recipe::detail::FieldOptions& opt) {
    if (opt.knob == nullptr) return;
    const Knob& knob = *opt.knob;
    any_away_ = any_away_ || (knob_applies(knob, l_) && !knob_is_default(knob, l_));
    if constexpr (requires { member.reset(); }) {
      const bool held = opt.omit_if_null ? !knob_is_default(knob, l_) : knob_applies(knob, l_);
      if (!held) {
        member.reset();
        return;
      }
      member.emplace();
      give(knob, *member);
    } else {
      give(knob, member);
    }
  }
  template <class T>
  void object(std::string_view, std::optional<T>& member, bool = false) {
    CoreFieldWriter inner(l_);
    T value{};
    recipe::detail::visit_fields(inner, value);
    if (inner.any_away_) {
      member = std::move(value);
    } else {
      member.reset();
    }
  }
  void knob_fields(std::vector<LayoutField>&) {}

 private:
  void give(const Knob& knob, int64_t& out) const { out = knob.get(l_); }
  void give(const Knob& knob, bool& out) const { out = knob.get(l_) != 0; }
  void give(const Knob& knob, double& out) const { out = knob.get_real(l_); }
  void give(const Knob& knob, std::string& out) const { out = knob_text(knob, l_); }
  void give(const Knob& knob, std::vector<std::string>& out) const { out = set_members(knob_text(knob, l_)); }

  const Layout& l_;
  bool any_away_ = false;
};

// The rows of the core members the block always holds: all but the members it may leave out
// (omit_if_null: recompute.modules), inside objects or not.
class RequiredRows {
 public:
  template <class T>
  void field(std::string_view, T&, const recipe::detail::FieldOptions& opt) {
    if (opt.knob != nullptr && !opt.omit_if_null) rows.push_back(opt.knob);
  }
  template <class T>
  void object(std::string_view, std::optional<T>&, bool = false) {
    T value{};
    recipe::detail::visit_fields(*this, value);
  }
  void knob_fields(std::vector<LayoutField>&) {}
  std::vector<const Knob*> rows;
};

// --- launch arguments -------------------------------------------------------------------------------

// Where a knob was set, for the error that names two arguments.
struct SetBy {
  std::string flag;
  int line = 0;
  std::string text;
};

std::string describe(const SetBy& s) { return fmt::format("{} (line {})", s.flag, s.line); }

// The argument as the script wrote it: a Megatron-Bridge override's key, else the flag.
const std::string& written(const args::LaunchArg& arg) { return arg.spelled.empty() ? arg.flag : arg.spelled; }

// The rows whose companion switch implies their value (the rows' companions): without the switch
// each holds its default whatever its own argument says; with the switch and no argument of its own
// (`was_set` false), the implied value. Returns the rows given the implied value.
template <class WasSet>
std::vector<const Knob*> settle_implied(Layout& l, const std::vector<const CompanionArg*>& switches, WasSet was_set) {
  std::vector<const Knob*> implied;
  for (const Knob& knob : kKnobs) {
    for (const CompanionArg& c : knob.companions) {
      if (c.implied.empty()) continue;
      if (std::find(switches.begin(), switches.end(), &c) == switches.end()) {
        static const Layout kDefault;
        set_knob_text(knob, l, knob_text(knob, kDefault), knob.key);
      } else if (!was_set(knob)) {
        set_knob_text(knob, l, c.implied, c.flag);
        implied.push_back(&knob);
      }
    }
  }
  return implied;
}

}  // namespace

uint8_t engine_mask(Engine engine) {
  switch (engine) {
    case Engine::slime: return kSlime;
    case Engine::miles: return kMiles;
    case Engine::megatron: return kMegatron;
    case Engine::bridge: return kMegatron | kBridgeOnly;  // Megatron-LM's knobs, and Megatron-Core's own
  }
  return kSlime;
}

const char* to_string(Engine engine) {
  switch (engine) {
    case Engine::slime: return "slime";
    case Engine::miles: return "miles";
    case Engine::megatron: return "megatron";
    case Engine::bridge: return "bridge";
  }
  return "slime";
}

Engine parse_engine(std::string_view name) {
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron, Engine::bridge}) {
    if (name == to_string(engine)) return engine;
  }
  const std::vector<std::string> names = {"slime", "miles", "megatron", "bridge"};
  throw_usage("unknown engine '{}'{}; expected one of: slime, miles, megatron, bridge", name,
              util::did_you_mean(name, names));
}

Layout from_recipe_layout(const RecipeLayout& block) {
  Layout l;
  RecipeLayout core = block;  // the visitor walks mutable members; reading never changes them
  CoreFieldReader reader(l);
  recipe::detail::visit_fields(reader, core);
  const std::vector<const Knob*> stated = read_knob_fields(block, l);
  // A field the block leaves out where another knob implies it takes the implied value.
  for (const Knob& knob : kKnobs) {
    if (knob.recipe_implied.empty() || std::find(stated.begin(), stated.end(), &knob) != stated.end()) continue;
    if (const std::optional<std::string> implied = recipe_implied_text(knob, l)) {
      set_knob_text(knob, l, *implied, knob.recipe);
    }
  }
  return l;
}

RecipeLayout to_recipe_layout(const Layout& l, int64_t row_tokens) {
  RecipeLayout block;
  block.label = layout_label(l);
  CoreFieldWriter writer(l);
  recipe::detail::visit_fields(writer, block);
  for (const recipe::detail::KnobField& field : recipe::detail::layout_knob_fields()) {
    const Knob& knob = *field.knob;
    // A field is left out at the value its absence reads as: the implied one, else the default.
    const std::optional<std::string> implied = recipe_implied_text(knob, l);
    const bool write = implied ? knob_text(knob, l) != *implied : !knob_is_default(knob, l);
    if (write) block.knobs.push_back({std::string(field.name), field_value(knob, l)});
  }

  std::string pp = fmt::format("PP {}", l.pp);
  if (l.first > 0 || l.last > 0) {
    pp += fmt::format(" (first stage {} layers, last {})", l.first, l.last);
  }
  if (l.vpp > 1) pp += fmt::format(", VPP {}", l.vpp);
  std::string summary = fmt::format("TP {}, {}, CP {}, EP {}, ETP {}, DP {}", l.tp, pp, l.cp, l.ep, l.etp, l.dp);
  if (l.sp) summary += ", sequence parallel";
  summary += "; " + rows_phrase(l.rows_per_mb, row_tokens);
  std::string recompute_text = "no recompute";
  if (l.recompute == RecomputeGranularity::selective) recompute_text = "selective recompute";
  if (l.recompute == RecomputeGranularity::full) {
    recompute_text = fmt::format("full recompute ({}, {} layer{})", to_string(l.recompute_method),
                                 l.recompute_layers, l.recompute_layers == 1 ? "" : "s");
  }
  summary += "; " + recompute_text;
  if (l.offload > 0) {
    summary += fmt::format("; CPU optimizer offload{}{}{}", l.offload < 1 ? fmt::format(" of {}", format_real(l.offload)) : "",
                           l.overlap ? " with overlapped copies" : "",
                           l.precision_aware ? " and the precision-aware optimizer" : "");
  } else {
    summary += l.precision_aware ? "; distributed optimizer with the precision-aware optimizer"
                                 : "; distributed optimizer";
  }
  summary += fmt::format("; {} dispatcher", to_string(l.dispatcher));
  if (l.offload == 0) summary += "; no offload";
  block.summary = summary;
  block.highlights = fmt::format("max {} tokens/GPU, {}{}", util::format_grouped(static_cast<long long>(l.max_tokens)),
                                 recompute_text, l.offload > 0 ? ", CPU optimizer offload" : ", no offload");
  return block;
}

std::vector<EngineArg> layout_engine_args(const Layout& l, Engine engine, int64_t row_tokens) {
  std::vector<EngineArg> args;
  auto add = [&args](std::string_view flag, std::optional<std::string> value = std::nullopt) {
    std::vector<std::string> words;
    if (value) words.push_back(*value);
    args.push_back(EngineArg{std::string(flag), std::move(value), nullptr, nullptr, std::move(words)});
  };
  // An argument of a knob row: its words as the row writes them.
  auto add_knob = [&args, &l](const Knob& knob, const KnobArg& arg) {
    if (arg.form == ArgForm::on) {
      args.push_back(EngineArg{std::string(arg.flag), std::nullopt, &knob, &arg, {}});
      return;
    }
    std::vector<std::string> words = knob_arg_words(knob, arg, l);
    if (words.empty() || (words.size() == 1 && words.front().empty())) return;
    args.push_back(EngineArg{std::string(arg.flag), util::join(words, " "), &knob, &arg, std::move(words)});
  };
  // A value the engine has no argument for cannot become its job.
  const uint8_t bit = engine_mask(engine);
  if (const std::optional<std::string_view> refusal = engine_refusal(l, bit)) throw_usage("{}", *refusal);
  for (const Knob& knob : kKnobs) {
    if (knob.args.empty() || !knob_applies(knob, l)) continue;
    const std::string text = knob_text(knob, l);
    const bool not_default = text != engine_default_text(knob, engine, l);
    // The row's companion arguments: the switches that go before its own argument and the values
    // that go after it, for the engines that take them.
    const std::span<const CompanionArg> companions = knob.companions;
    auto add_companions = [&](bool before) {
      for (const CompanionArg& c : companions) {
        if (c.before != before || (c.engines & bit) == 0) continue;
        if (c.when == CompanionWhen::not_default && !not_default) continue;
        if (c.value == CompanionValue::row_tokens) {
          add(c.flag, std::to_string(row_tokens));
        } else {
          add(c.flag);
        }
      }
    };
    add_companions(true);
    // A companion switch that implies the row's value stands for it; the row's own argument is
    // then left out at that value, and with the switch off the row says nothing.
    bool implied = false;
    bool switched_off = false;
    for (const CompanionArg& c : companions) {
      if (c.implied.empty() || (c.engines & bit) == 0) continue;
      if (c.when == CompanionWhen::not_default && !not_default) switched_off = true;
      if (text == c.implied) implied = true;
    }
    if (switched_off) continue;
    // A count below its range (max_tokens 0: derive it) has no argument.
    if (knob.kind == KnobKind::integer && knob.get(l) < knob.min) continue;
    const bool write = !implied && (knob.engine == Written::always || not_default);
    if (write) {
      const KnobArg* chosen = nullptr;
      for (const KnobArg& arg : knob.args) {
        if ((arg.engines & bit) == 0 || arg.deprecated) continue;
        if (arg.form == ArgForm::on && arg.on_value == text) {
          chosen = &arg;
          break;
        }
        if (arg.form == ArgForm::value && chosen == nullptr) chosen = &arg;
      }
      // A flag knob is written only by its switch: off has no argument.
      if (chosen != nullptr && (chosen->form == ArgForm::on || knob.kind != KnobKind::flag)) add_knob(knob, *chosen);
    }
    add_companions(false);
  }
  return args;
}

std::vector<args::LaunchArg> training_args(const args::LaunchArgs& script) {
  // For each engine call, the index of the argument whose values hold the training script (the
  // launcher's own arguments come before it), if any.
  std::vector<std::optional<size_t>> script_arg(script.commands.size());
  std::vector<bool> head_has_script(script.commands.size(), false);
  std::vector<bool> launcher(script.commands.size(), false);
  for (size_t c = 0; c < script.commands.size(); ++c) {
    const std::vector<std::string> words = util::split(script.commands[c], ' ');
    for (const std::string& word : words) {
      if (ends_with(word, ".py")) head_has_script[c] = true;
    }
    if (!words.empty()) {
      const std::string_view program = std::string_view(words.front()).substr(words.front().rfind('/') + 1);
      for (std::string_view name : kLaunchers) launcher[c] = launcher[c] || program == name;
    }
  }
  for (size_t i = 0; i < script.args.size(); ++i) {
    const args::LaunchArg& arg = script.args[i];
    if (arg.command >= script_arg.size() || head_has_script[arg.command] || script_arg[arg.command]) continue;
    for (const std::string& value : arg.values) {
      if (ends_with(value, ".py")) script_arg[arg.command] = i;
    }
  }
  std::vector<args::LaunchArg> out;
  for (size_t i = 0; i < script.args.size(); ++i) {
    const args::LaunchArg& arg = script.args[i];
    if (arg.command >= script_arg.size()) continue;
    const std::optional<size_t> start = script_arg[arg.command];
    if (start && i <= *start) continue;
    // A launcher call with no training script (ray start, srun hostname) passes no training argument.
    if (!start && !head_has_script[arg.command] && launcher[arg.command]) continue;
    out.push_back(arg);
  }
  return out;
}

Engine guess_engine(const args::LaunchArgs& script) {
  bool miles = false;
  for (const std::string& command : script.commands) {
    if (command.find("run_recipe.py") != std::string::npos) return Engine::bridge;  // Megatron-Bridge's runner
    if (command.find("pretrain_") != std::string::npos) return Engine::megatron;
    if (command.find("miles") != std::string::npos) miles = true;
  }
  if (!script.unset_overrides.empty()) return Engine::bridge;  // model.x=null sets nothing, yet is an override
  for (const args::LaunchArg& arg : script.args) {
    if (arg.bridge) return Engine::bridge;  // an override: run_recipe.py's syntax alone
    for (const std::string& value : arg.values) {
      if (value.find("pretrain_") != std::string::npos && ends_with(value, ".py")) return Engine::megatron;
    }
  }
  return miles ? Engine::miles : Engine::slime;
}

void require_bridge_engine(const args::LaunchArg& arg, Engine engine, const std::string& file) {
  if (!arg.bridge || engine == Engine::bridge) return;
  // run_recipe.py's overrides and options reach no other engine: Megatron-LM's, slime's and
  // miles' parsers stop at the first word they do not know.
  const bool mapped = arg.flag.rfind("--", 0) == 0 && arg.flag != written(arg);
  throw_input(SourceLocation{file, arg.line, arg.col, written(arg)},
              "a Megatron-Bridge override, which a {} job does not take{}", to_string(engine),
              mapped ? fmt::format(" (its argument is {})", arg.flag) : std::string());
}

ArgsLayout read_layout_args(std::span<const args::LaunchArg> args, Engine engine, const std::string& file) {
  ArgsLayout out;
  for (const args::LaunchArg& arg : args) out.opaque = out.opaque || arg.placeholder;
  Layout& l = out.layout;
  std::map<const Knob*, SetBy> set_by;
  std::vector<const CompanionArg*> switches;  // the companion switches the arguments hold
  const args::LaunchArg* deprecated_full_iteration = nullptr;
  auto set = [&](const Knob& knob, const args::LaunchArg& arg, const std::string& text) {
    const SetBy here{written(arg), arg.line, text};
    if (auto it = set_by.find(&knob); it != set_by.end()) {
      if (it->second.text != text) {
        throw_input(SourceLocation{file, arg.line, arg.col, written(arg)}, "contradicts {}: both set {}",
                    describe(it->second), knob.key);
      }
      return;
    }
    try {
      set_knob_text(knob, l, text, written(arg));
    } catch (const Error& e) {
      throw Error(ErrorKind::input, e.message(), SourceLocation{file, arg.line, arg.col, written(arg)});
    }
    set_by.emplace(&knob, here);
  };
  for (const args::LaunchArg& arg : args) {
    if (arg.placeholder) continue;
    require_bridge_engine(arg, engine, file);
    if (const CompanionArg* c = find_companion(arg.flag); c != nullptr && c->value == CompanionValue::none) {
      switches.push_back(c);
      continue;
    }
    const Knob* knob = find_knob_by_flag(arg.flag);
    if (knob == nullptr) {
      out.rest.push_back(arg);
      continue;
    }
    const KnobArg* spelling = nullptr;
    for (const KnobArg& a : knob->args) {
      if (a.flag == arg.flag) spelling = &a;
    }
    if (spelling->form == ArgForm::on) {
      // A Megatron-Bridge override that turns the switch off (bridge_args.hpp): the knob's off value.
      const bool off = !arg.spelled.empty() && arg.values.size() == 1 && arg.values.front() == "false";
      if (off) {
        static const Layout kDefault;
        const std::string text = knob->kind == KnobKind::flag ? std::string("off") : knob_text(*knob, kDefault);
        set(*knob, arg, text);
        continue;
      }
      set(*knob, arg, std::string(spelling->on_value));
      continue;
    }
    if (arg.values.empty()) {
      throw_input(SourceLocation{file, arg.line, arg.col, written(arg)}, "expected a value after {}", written(arg));
    }
    std::string text = arg.values.front();
    if (knob->kind == KnobKind::set) {
      std::vector<std::string> words;
      for (const std::string& word : arg.values) {
        if (word == "full") continue;  // --cuda-graph-scope full: whole layers, no region
        if (word == "full_iteration" && knob->key == "graph_modules") {
          deprecated_full_iteration = &arg;  // migrated after the loop, as Megatron-LM does
          continue;
        }
        words.push_back(word);
      }
      text = util::join(words, "+");
    } else if (!spelling->of.empty()) {
      // Group sizes (--hierarchical-context-parallel-sizes A B: the all-to-all group A inside p2p
      // rings of B): the knob is A.
      if (arg.values.size() != 2) {
        throw_input(SourceLocation{file, arg.line, arg.col, written(arg)}, "expected two sizes (all-to-all, p2p), got {}",
                    arg.values.size());
      }
    } else if (arg.values.size() > 1) {
      // --cp-comm-type may give one type per layer; ladle prices one type for all layers.
      for (const std::string& word : arg.values) {
        if (word != text) {
          throw_input(SourceLocation{file, arg.line, arg.col, written(arg)},
                      "expected one value, got '{}'; ladle prices one value for every layer",
                      util::join(arg.values, " "));
        }
      }
    }
    set(*knob, arg, text);
  }
  // --cuda-graph-scope full_iteration (deprecated) becomes --cuda-graph-impl full_iteration when
  // the impl is none, local or full_iteration, and is refused with any other impl (Megatron-LM's
  // megatron/core/transformer/cuda_graph_config.py,
  // validate_deprecated_cuda_graph_modules_migration_inputs).
  if (deprecated_full_iteration != nullptr) {
    const Knob& graph = *find_knob("cuda_graph");
    if (auto it = set_by.find(&graph); it != set_by.end()) {
      if (it->second.text != "none" && it->second.text != "local" &&
          it->second.text != "full_iteration") {
        throw_input(SourceLocation{file, deprecated_full_iteration->line, deprecated_full_iteration->col,
                                   deprecated_full_iteration->flag},
                    "contradicts {}: full_iteration cannot be combined with cuda_graph_impl={}",
                    describe(it->second), it->second.text);
      }
      set_by.erase(it);
    }
    set(graph, *deprecated_full_iteration, "full_iteration");
  }
  // Knobs no argument set: the engine's default (the spec's behind an opaque expansion).
  for (const Knob& knob : kKnobs) {
    if (knob.args.empty() || set_by.count(&knob) > 0) continue;
    const std::string_view text = engine_default(knob, engine);
    if (text.empty() || (out.opaque && text.front() != '@')) continue;
    set_knob_text(knob, l, engine_default_text(knob, engine, l), knob.key);
  }
  const std::vector<const Knob*> implied = settle_implied(l, switches, [&](const Knob& k) { return set_by.count(&k) > 0; });
  for (const Knob& knob : kKnobs) {
    if (set_by.count(&knob) > 0) out.set.push_back(&knob);
  }
  // Megatron-LM disables sequence parallel without tensor parallel (arguments.py warns and clears it).
  if (l.tp == 1) l.sp = false;
  out.set.insert(out.set.end(), implied.begin(), implied.end());
  // --main-grads-dtype bf16 without a gradient flag reduces in bf16 (arguments.py leaves
  // accumulate_allreduce_grads_in_fp32 off).
  if (l.main_grads == StateDtype::bf16 && set_by.count(find_knob("grad_reduce")) == 0) l.grad_reduce = StateDtype::bf16;
  // slime and miles turn the allgather dispatcher into alltoall (variable-length rows).
  if ((engine == Engine::slime || engine == Engine::miles) && l.dispatcher == MoeDispatcher::allgather) {
    l.dispatcher = MoeDispatcher::alltoall;
  }
  l.dp = 0;
  return out;
}

Layout layout_from_run_args(const args::RunScript& script) {
  std::vector<args::LaunchArg> args;
  for (const args::RunArg& a : script.args) {
    args::LaunchArg arg;
    arg.flag = a.flag;
    if (a.value) arg.values.push_back(*a.value);
    arg.line = a.line;
    args.push_back(std::move(arg));
  }
  if (script.has_opaque_args) {
    args::LaunchArg opaque;
    opaque.flag = "${ARGS[@]}";
    opaque.placeholder = true;
    args.push_back(opaque);
  }
  return read_layout_args(args, Engine::megatron).layout;
}

namespace {

// The knobs of the block's required fields and objects, which it always holds.
bool is_required_field(const Knob& knob) {
  static const std::vector<const Knob*> required = [] {
    RequiredRows rows;
    RecipeLayout scratch;
    recipe::detail::visit_fields(rows, scratch);
    return rows.rows;
  }();
  return std::find(required.begin(), required.end(), &knob) != required.end();
}

// The knobs of the optional fields the block states, in field order.
std::vector<const Knob*> optional_fields_held(const RecipeLayout& block) {
  Layout scratch;
  return read_knob_fields(block, scratch);
}

}  // namespace

Layout layout_from_recipe(const Recipe& recipe) {
  Layout l = from_recipe_layout(recipe.layout);
  const args::LaunchArgs script = args::parse_launch_args(recipe.run, "run");
  const std::vector<args::LaunchArg> args = training_args(script);
  const Layout from_args = read_layout_args(args, guess_engine(script)).layout;
  const std::vector<const Knob*> held = optional_fields_held(recipe.layout);
  for (const Knob& knob : kKnobs) {
    const bool in_block = is_required_field(knob) || std::find(held.begin(), held.end(), &knob) != held.end();
    if (in_block || knob.args.empty()) continue;
    if (knob.kind == KnobKind::real) {
      knob.set_real(l, knob.get_real(from_args));
    } else if (knob.kind == KnobKind::text) {
      knob.set_text(l, knob.get_text(from_args));
    } else {
      knob.set(l, knob.get(from_args));
    }
  }
  return l;
}

std::vector<recipe::Finding> block_disagreements(const recipe::LoadedRecipe& loaded) {
  const Recipe& r = loaded.recipe;
  std::vector<recipe::Finding> out;
  Layout block;
  std::vector<const Knob*> held;
  std::vector<args::LaunchArg> args;
  ArgsLayout script;
  try {
    block = from_recipe_layout(r.layout);
    held = optional_fields_held(r.layout);
    const args::LaunchArgs launch = args::parse_launch_args(r.run, loaded.path);
    args = training_args(launch);
    script = read_layout_args(args, guess_engine(launch), loaded.path);
  } catch (const Error&) {
    return out;  // a block or script ladle cannot read: the rules and `check` report it
  }
  const int run_line = loaded.where.at("run").line;
  for (const Knob* knob : held) {
    if (is_required_field(*knob) || knob->args.empty() || !knob_applies(*knob, block)) continue;
    const std::string stated = knob_text(*knob, block);
    const std::string ran = knob_text(*knob, script.layout);
    if (stated == ran) continue;
    const bool set = std::find(script.set.begin(), script.set.end(), knob) != script.set.end();
    if (!set && script.opaque) continue;
    const args::LaunchArg* arg = nullptr;
    for (const args::LaunchArg& a : args) {
      if (!a.placeholder && find_knob_by_flag(a.flag) == knob) arg = &a;
    }
    recipe::Finding f;
    f.rule = "R12";
    f.file = loaded.path;
    f.field = "layout." + std::string(knob->recipe);
    if (arg != nullptr) {
      f.line = run_line + arg->line;
      f.message = fmt::format("{} sets {}={} but {} is {}", written(*arg), knob->key, ran, f.field, stated);
    } else {
      f.line = run_line;
      f.message = fmt::format("{} is {} but run sets no {} (its default: {}={})", f.field, stated,
                              knob->args.front().flag, knob->key, ran);
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ladle::layout
