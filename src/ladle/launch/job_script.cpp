#include "ladle/launch/job_script.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ladle/args/bridge_args.hpp"
#include "ladle/launch/engines.hpp"
#include "ladle/launch/model_args.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/shell_quote.hpp"
#include "ladle/util/text.hpp"

namespace ladle::launch {

namespace {

// The Megatron-Bridge override of a Megatron-LM flag: the knob table's for a layout knob, else
// data/launch/engines.yaml's.
// A switch that stands for one value of its knob (--moe-enable-deepep: backend deepep) sets that
// value.
struct BridgeOverride {
  std::string key;
  std::optional<std::string> value;
};

// The override of one argument of a knob row, or nullopt when the row has none.
std::optional<BridgeOverride> knob_override(const layout::Knob& knob, const layout::KnobArg& arg) {
  if (!arg.bridge.empty()) return BridgeOverride{std::string(arg.bridge), "true"};  // its own switch
  if (knob.bridge.empty()) return std::nullopt;
  BridgeOverride out{std::string(knob.bridge), std::nullopt};
  // A switch that turns its knob off (--no-gradient-accumulation-fusion) is its override false.
  if (arg.form == layout::ArgForm::on && knob.kind == layout::KnobKind::flag && arg.on_value == "off")
    out.value = "false";
  if (arg.form == layout::ArgForm::on && knob.kind != layout::KnobKind::flag && arg.on_value != "on") {
    // A boolean override named after one value (mixed_precision.grad_reduce_in_fp32) is true for
    // that value and false for the knob's other switch; otherwise the override takes the value.
    out.value = std::string(arg.on_value);
    if (out.key.find(arg.on_value) != std::string::npos) out.value = "true";
    for (const layout::KnobArg& other : knob.args) {
      if (&other != &arg && other.form == layout::ArgForm::on && out.key.find(other.on_value) != std::string::npos) {
        out.value = "false";
      }
    }
  }
  return out;
}

std::optional<BridgeOverride> bridge_key_of(const JobArg& a) {
  if (a.knob != nullptr) {
    if (auto out = knob_override(*a.knob, *a.spelling)) return out;
  }
  if (const BridgeKey* key = engine_table().bridge_key(a.flag))
    return BridgeOverride{key->key, std::nullopt};
  return std::nullopt;
}

// A string as Hydra reads it whole: bare when it is one plain word, else double-quoted (single
// where it holds a double quote). A bare a,b would be a sweep and (x) a function call.
std::string hydra_string(const std::string& text) {
  bool plain = !text.empty();
  for (char c : text) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                      std::string_view("_./-+$%*@{}").find(c) != std::string_view::npos);
  }
  if (plain) return text;
  return text.find('"') == std::string::npos ? "\"" + text + "\"" : "'" + text + "'";
}

// The Bridge value of a Megatron-LM argument: a switch is true; a knob's list (recompute modules,
// the hierarchical CP sizes) a Hydra list [a,b]; the data prefix a blend (the form of
// Megatron-Bridge's examples/models/gpt_oss/slurm_pretrain.sh: dataset.blend=[["prefix"],null]).
std::string bridge_value(const JobArg& a) {
  const std::vector<std::string>& values = a.values;
  if (values.empty()) return "true";
  if (a.flag == "--data-path") return "[[\"" + util::join(values, "\",\"") + "\"],null]";
  if (a.knob != nullptr && layout::knob_arg_is_list(*a.knob, *a.spelling)) {
    std::vector<std::string> words;
    for (const std::string& v : values) {
      for (const std::string& w : util::split(v, ' ')) {
        if (!w.empty()) words.push_back(w);
      }
    }
    return "[" + util::join(words, ",") + "]";
  }
  return hydra_string(util::join(values, " "));
}

// A precision as Megatron-Bridge takes it: the layout over its defaults, and the other fields as
// Megatron-LM flags ("--bf16="), sorted.
using PrecisionSetting = std::pair<Layout, std::vector<std::string>>;

// What a mixed-precision recipe by name sets (data/launch/engines.yaml's bridge_mixed_precision,
// read as Megatron-Bridge reads the name).
PrecisionSetting preset_setting(const std::string& name) {
  const std::vector<args::LaunchArg> args = args::bridge_override_args("mixed_precision=" + name, "job", 0);
  const layout::ArgsLayout read = layout::read_layout_args(args, layout::Engine::bridge, "job");
  std::vector<std::string> rest;
  for (const args::LaunchArg& a : read.rest) rest.push_back(a.flag + "=" + util::join(a.values, " "));
  std::sort(rest.begin(), rest.end());
  return {read.layout, rest};
}

// What the job's mixed-precision arguments set, from their rows and values: each knob row's argument
// sets its knob as the row says (a switch its on_value, a list its members, else its value) over
// Megatron-Bridge's defaults; an argument beside the table is its flag and values.
PrecisionSetting job_precision_setting(const std::vector<const JobArg*>& from) {
  PrecisionSetting out{layout::read_layout_args({}, layout::Engine::bridge, "job").layout, {}};
  for (const JobArg* a : from) {
    if (a->knob == nullptr) {
      out.second.push_back(a->flag + "=" + util::join(a->values, " "));
      continue;
    }
    std::string text;
    if (a->spelling->form == layout::ArgForm::on) {
      text = std::string(a->spelling->on_value);
    } else if (a->knob->kind == layout::KnobKind::set) {
      text = util::join(a->values, "+");
    } else {
      text = util::join(a->values, " ");
    }
    layout::set_knob_text(*a->knob, out.first, text, a->flag);
  }
  std::sort(out.second.begin(), out.second.end());
  return out;
}

bool has_flag(const std::vector<JobArg>& args, std::string_view flag) {
  return std::any_of(args.begin(), args.end(), [&](const JobArg& a) { return a.flag == flag; });
}

// The $NAME / ${NAME} references a shell word expands: none inside single quotes or $'...' (the
// literal text util::shell_quote writes), nor escaped.
void collect_vars(const std::string& word, std::vector<std::string>& out) {
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '\\') {
      ++i;
      continue;
    }
    if (word[i] == '\'' || (word[i] == '$' && i + 1 < word.size() && word[i + 1] == '\'')) {
      const bool ansi_c = word[i] == '$';
      for (i += ansi_c ? 2 : 1; i < word.size() && word[i] != '\''; ++i) {
        if (ansi_c && word[i] == '\\') ++i;
      }
      continue;
    }
    if (word[i] != '$' || i + 1 >= word.size()) continue;
    size_t j = i + 1;
    const bool braced = word[j] == '{';
    if (braced) ++j;
    const size_t start = j;
    while (j < word.size() && (std::isalnum(static_cast<unsigned char>(word[j])) || word[j] == '_'))
      ++j;
    if (j == start || std::isdigit(static_cast<unsigned char>(word[start]))) continue;
    const std::string name = word.substr(start, j - start);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
}

// A name or title in a comment or an #SBATCH line: as it is, unless it holds a control character,
// which would end the comment and start a command: then quoted, on one line.
std::string comment_word(const std::string& text) {
  const bool control = std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  return control ? util::shell_quote(text) : text;
}

// Whether a script gave the job every word of `a` (its flag and each value).
bool has_words(const args::LaunchArg& a) { return a.shell.size() == a.values.size() + 1; }

// A word the reader kept is literal exactly when it is its text quoted.
bool is_literal(const std::string& text, const std::string& shell) { return shell == util::shell_quote(text); }

class Writer {
 public:
  explicit Writer(const JobRequest& r)
      : r_(r), table_(engine_table()), info_(table_.engine(r.engine)) {
    nodes_ = (r.gpus + r.gpus_per_node - 1) / r.gpus_per_node;
    per_node_ = std::min(r.gpus, r.gpus_per_node);
    args_ = job_args(r);
  }

  std::string write() {
    model_mode_ = model_mode();
    header();
    options();
    inputs();
    environment();
    if (info_.family == "slime") {
      slime_launch();
    } else {
      torchrun_launch();
    }
    return out_;
  }

 private:
  void line(const std::string& text = "") { out_ += text + "\n"; }

  void header() {
    line("#!/bin/bash");
    if (r_.slurm) {
      line(fmt::format("#SBATCH --job-name={}", comment_word("ladle-" + r_.model->name)));
      line(fmt::format("#SBATCH --nodes={}", nodes_));
      line("#SBATCH --ntasks-per-node=1");
      line(fmt::format("#SBATCH --gpus-per-node={}", per_node_));
      line("#SBATCH --exclusive");
      line(fmt::format("#SBATCH --time={}", comment_word(r_.time_limit)));
      line("#SBATCH --output=ladle-%x-%j.out");
    }
    line("# " + comment_word(r_.title));
    line(fmt::format("# Engine: {} ({}); base: {}.", layout::to_string(r_.engine), info_.repository,
                     base_words()));
    for (const std::string& note : r_.base->notes) line("# Note: " + comment_word(note));
    if (model_mode_ == ModelMode::inline_args) {
      line("# Model: the architecture arguments (MODEL_ARGS) are ladle's, from " + comment_word(r_.model->source) + ".");
    } else if (model_mode_ == ModelMode::file && !model_unsupported_.empty()) {
      line("# Model: ladle writes no architecture arguments for " + comment_word(model_unsupported_) +
           "; MODEL_ARGS_FILE gives them.");
    }
    line(fmt::format("# {} node{} x {} GPUs. Job shape after {}.", nodes_, nodes_ == 1 ? "" : "s",
                     per_node_, info_.source));
    line("set -euo pipefail");
    line();
  }

  void options() {
    if (nodes_ == 1 && info_.family != "slime") return;  // one node: no rendezvous to give
    line("# Options: --master-addr HOST (the first node, when not under Slurm).");
    line("while [[ $# -gt 0 ]]; do");
    line("  case $1 in");
    line("    --master-addr) MASTER_ADDR=$2; shift 2 ;;");
    line(
        "    *) echo \"ladle job: unknown option '$1' (expected --master-addr HOST)\" >&2; exit 2 "
        ";;");
    line("  esac");
    line("done");
    line();
  }

  // Where the job's MODEL_ARGS come from.
  enum class ModelMode { none, inline_args, source, helper, file };

  ModelMode model_mode() {
    const bool wanted = std::any_of(args_.begin(), args_.end(),
                                    [](const JobArg& a) { return a.placeholder && a.flag == "${MODEL_ARGS[@]}"; });
    if (!wanted || info_.model_args == "recipe") return ModelMode::none;
    // slime and miles keep their own checkout's model description where they name the model.
    if (info_.model_args == "helper" && table_.model_name(r_.model->name, r_.engine)) return ModelMode::helper;
    if (info_.model_args == "source" && slime_model()) return ModelMode::source;
    const ModelArgs from_model = model_arch_args(*r_.model);
    if (from_model.unsupported.empty()) {
      model_words_ = from_model.words;
      return ModelMode::inline_args;
    }
    model_unsupported_ = fmt::format("{} ({})", r_.model->name, from_model.unsupported);
    return ModelMode::file;
  }

  std::string base_words() const {
    const Base& b = *r_.base;
    switch (b.kind) {
      case BaseKind::job:
        return fmt::format("the job {} (every argument that sets no layout knob is the job's, verbatim)",
                           comment_word(b.name));
      case BaseKind::recipe:
        return fmt::format("the recipe {} (every argument that sets no layout knob is the recipe's)",
                           comment_word(b.name));
      case BaseKind::defaults:
        break;
    }
    return comment_word(b.name) + " (no job or recipe was given)";
  }

  void inputs() {
    std::vector<std::string> names = {info_.checkout};
    if (model_mode_ == ModelMode::source || model_mode_ == ModelMode::file) names.push_back("MODEL_ARGS_FILE");
    for (const JobArg& a : args_) {
      if (a.placeholder) continue;  // an array the job sets (MODEL_ARGS) or the base's own
      for (const std::string& word : job_arg_words(a, r_.engine)) collect_vars(word, names);
    }
    for (size_t i = 0; i < r_.base->env.size(); ++i) collect_vars(env_word(i), names);
    if (std::find(names.begin(), names.end(), "OUTPUT_DIR") == names.end())
      names.push_back("OUTPUT_DIR");
    line("# Inputs: every one is checked before anything starts; all that are missing are named, one");
    line("# line each, and the job stops (exit 2).");
    line("missing=()");
    line("outputs=()");
    line("need() {  # need NAME KIND WHAT");
    line("  local value=${!1:-}");
    line("  if [[ -z \"$value\" ]]; then missing+=(\"$1 is not set: $3\"); return; fi");
    line("  case $2 in");
    line("    dir) [[ -d \"$value\" ]] || missing+=(\"$1=$value is not a folder: $3\") ;;");
    line("    file) [[ -f \"$value\" ]] || missing+=(\"$1=$value is not a file: $3\") ;;");
    line("    prefix) [[ -f \"$value.bin\" && -f \"$value.idx\" ]] || missing+=(\"$1=$value has no $value.bin and $value.idx: $3\") ;;");
    line("    out) outputs+=(\"$1\") ;;");
    line("  esac");
    line("}");
    for (const std::string& name : names) {
      if (name == "MODEL_ARGS" || name == "GLOBAL_BATCH") continue;
      const auto it = table_.inputs.find(name);
      const std::string what =
          it == table_.inputs.end() ? "an input of the base" : it->second.what;
      const std::string kind = it == table_.inputs.end() ? "any" : it->second.kind;
      if (kind == "derived") {
        line(fmt::format("{}=$({})", name, it->second.command));
        continue;
      }
      if (name == "MODEL_ARGS_FILE" && model_mode_ == ModelMode::source) {
        line(fmt::format("MODEL_ARGS_FILE=\"${{MODEL_ARGS_FILE:-${{SLIME_DIR:-}}/scripts/models/{}.sh}}\"",
                         *slime_model()));
      }
      line(fmt::format("need {} {} {}", name, kind, util::shell_quote(what)));
    }
    if (nodes_ > 1) hosts();
    line("if (( ${#missing[@]} > 0 )); then");
    line("  printf 'ladle job: %s\\n' \"${missing[@]}\" >&2");
    line("  exit 2");
    line("fi");
    line("for name in \"${outputs[@]}\"; do");
    line("  mkdir -p \"${!name}\" || { echo \"ladle job: $name=${!name} cannot be created\" >&2; exit 2; }");
    line("done");
    line();
  }

  std::optional<std::string> slime_model() const {
    return table_.model_name(r_.model->name, layout::Engine::slime);
  }

  void hosts() {
    line(fmt::format("NNODES={}", nodes_));
    if (info_.family == "slime") {
      line(
          "# Hosts: Slurm's allocation, else HOSTFILE (one host per line); the first is the Ray "
          "head.");
      line("if [[ -n \"${SLURM_JOB_NODELIST:-}\" ]]; then");
      line("  mapfile -t HOSTS < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")");
      line("elif [[ -f \"${HOSTFILE:-}\" ]]; then");
      line("  mapfile -t HOSTS < <(awk 'NF && $1 !~ /^#/ {print $1}' \"$HOSTFILE\")");
      line("else");
      line("  HOSTS=()");
      line("  need HOSTFILE file \"a file with one host per line (or run under Slurm): $NNODES nodes are needed\"");
      line("fi");
      line("if [[ ${#HOSTS[@]} -gt 0 && ${#HOSTS[@]} -lt $NNODES ]]; then");
      line("  missing+=(\"$NNODES nodes are needed, ${#HOSTS[@]} given\")");
      line("fi");
      line("MASTER_ADDR=${MASTER_ADDR:-${HOSTS[0]:-}}");
    } else {
      line("# Rendezvous: --master-addr, else the first node of Slurm's allocation.");
      line("if [[ -z \"${MASTER_ADDR:-}\" && -n \"${SLURM_JOB_NODELIST:-}\" ]]; then");
      line("  mapfile -t HOSTS < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")");
      line("  MASTER_ADDR=${HOSTS[0]}");
      line("fi");
      line("need MASTER_ADDR any 'the first node (give --master-addr HOST, or run under Slurm)'");
    }
  }

  // The base's i-th export as the job writes it: as its script wrote it (a command substitution
  // of the base runs in the job as in the base), else its literal text.
  std::string env_word(size_t i) const {
    const Base& base = *r_.base;
    return i < base.env_words.size() ? base.env_words[i] : util::shell_quote(base.env[i].second);
  }

  void environment() {
    line("# Environment of the base.");
    for (size_t i = 0; i < r_.base->env.size(); ++i) {
      const std::string word = env_word(i);
      if (word.rfind("$(", 0) == 0)
        line("# shellcheck disable=SC2155  # the value is the command's output, as in the base");
      line(fmt::format("export {}={}", r_.base->env[i].first, word));
    }
    line();
  }

  void model_args() {
    const auto name = table_.model_name(r_.model->name, r_.engine);
    if (model_mode_ == ModelMode::none) return;
    if (model_mode_ == ModelMode::inline_args) {
      line("# The model's architecture arguments (Megatron-LM's names), from its config.");
      line("MODEL_ARGS=(");
      for (size_t i = 0; i < model_words_.size(); ++i) {
        const bool value = i + 1 < model_words_.size() && model_words_[i + 1].rfind("--", 0) != 0;
        line("  " + util::shell_quote(model_words_[i]) + (value ? " " + util::shell_quote(model_words_[i + 1]) : ""));
        if (value) ++i;
      }
      line(")");
      return;
    }
    if (model_mode_ == ModelMode::helper && name) {
      line(
          fmt::format("MODEL_ARGS_LINE=\"$(python3 "
                      "\"$MILES_DIR/miles/utils/external_utils/model_args_utils.py\" {})\"",
                      *name));
      line("read -ra MODEL_ARGS <<< \"$MODEL_ARGS_LINE\"");
      return;
    }
    line("# shellcheck source=/dev/null");
    line("source \"$MODEL_ARGS_FILE\"  # sets MODEL_ARGS");
  }

  std::string args_block(const std::string& indent) const {
    std::string text;
    for (size_t i = 0; i < args_.size(); ++i) {
      text += indent + util::join(job_arg_words(args_[i], r_.engine), " ") + (i + 1 < args_.size() ? " \\\n" : "");
    }
    return text;
  }

  void slime_launch() {
    model_args();
    line();
    const std::string head_addr = nodes_ > 1 ? "$MASTER_ADDR" : "${MASTER_ADDR:-127.0.0.1}";
    if (nodes_ == 1) line("MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}");
    line("RAY_PORT=${RAY_PORT:-6379}");
    line("RAY_DASHBOARD_PORT=${RAY_DASHBOARD_PORT:-8265}");
    line(
        "# The Ray head on this node; only the processes this job starts are its own (nothing is "
        "killed).");
    line(
        fmt::format("ray start --head --node-ip-address \"{}\" --port \"$RAY_PORT\" --num-gpus {} "
                    "--disable-usage-stats "
                    "--dashboard-host=0.0.0.0 --dashboard-port=\"$RAY_DASHBOARD_PORT\"",
                    head_addr == "$MASTER_ADDR" ? "$MASTER_ADDR" : "$MASTER_ADDR", per_node_));
    if (nodes_ > 1) {
      line(
          "# A Ray worker on every other node: through Slurm inside an allocation, else over ssh.");
      line("for host in \"${HOSTS[@]:1:$((NNODES - 1))}\"; do");
      line("  if [[ -n \"${SLURM_JOB_ID:-}\" ]]; then");
      line(
          fmt::format("    srun --nodes=1 --ntasks=1 --overlap -w \"$host\" ray start "
                      "--address=\"$MASTER_ADDR:$RAY_PORT\" "
                      "--num-gpus {} --disable-usage-stats --block &",
                      per_node_));
      line("  else");
      line(
          fmt::format("    ssh \"$host\" ray start --address=\"$MASTER_ADDR:$RAY_PORT\" --num-gpus "
                      "{} --disable-usage-stats",
                      per_node_));
      line("  fi");
      line("done");
    }
    line();
    // The runtime environment: the base's exports and the module path, for every Ray worker.
    std::string json = "{\\\"env_vars\\\": {";
    json += fmt::format("\\\"PYTHONPATH\\\": \\\"${{MEGATRON_DIR:-/root/Megatron-LM}}:${}\\\"",
                        info_.checkout);
    for (const auto& [name, value] : r_.base->env)
      json += fmt::format(", \\\"{0}\\\": \\\"${{{0}}}\\\"", name);
    json += fmt::format(", \\\"MASTER_ADDR\\\": \\\"${{MASTER_ADDR}}\\\"");
    json += "}}";
    line(fmt::format("RUNTIME_ENV_JSON=\"{}\"", json));
    line(fmt::format("cd \"${}\"", info_.checkout));
    line("ray job submit --address=\"http://127.0.0.1:$RAY_DASHBOARD_PORT\" \\");
    line("  --runtime-env-json=\"${RUNTIME_ENV_JSON}\" \\");
    line(fmt::format("  -- python3 {} \\", info_.entry));
    line(args_block("  ") + " 2>&1 | tee \"$OUTPUT_DIR/train.log\"");
  }

  void torchrun_launch() {
    if (info_.model_args != "recipe") model_args();
    line();
    const bool precision_fields = std::any_of(args_.begin(), args_.end(), [](const JobArg& a) {
      return a.flag.rfind("mixed_precision.", 0) == 0;
    });
    if (r_.engine == layout::Engine::bridge && precision_fields) {
      // No mixed-precision recipe by name sets these fields (mixed_precision.py at 067f987d).
      line("# The precision is given field by field (no mixed-precision recipe by name matches it):");
      line("# Megatron-Bridge takes the fields when the recipe holds a MixedPrecisionConfig and refuses");
      line("# them at start when the recipe names its mixed precision (mixed_precision=\"bf16_mixed\").");
    }
    std::string launcher;
    if (r_.slurm && nodes_ > 1)
      launcher = fmt::format("srun --nodes={} --ntasks-per-node=1 --kill-on-bad-exit=1 ", nodes_);
    std::string rendezvous =
        nodes_ > 1 ? " --rdzv-backend c10d --rdzv-endpoint \"$MASTER_ADDR:${MASTER_PORT:-29500}\" "
                     "--rdzv-id \"${SLURM_JOB_ID:-ladle}\""
                   : " --standalone";
    if (nodes_ > 1 && !r_.slurm)
      line("# Run this on every node (or under srun), with the same MASTER_ADDR.");
    line(fmt::format("cd \"${}\"", info_.checkout));
    line(fmt::format("{}torchrun --nnodes {} --nproc-per-node {}{} {} \\", launcher,
                     nodes_ > 1 ? std::string("\"$NNODES\"") : std::string("1"), per_node_,
                     rendezvous, info_.entry));
    line(args_block("  ") + " 2>&1 | tee \"$OUTPUT_DIR/train.log\"");
  }

  const JobRequest& r_;
  const EngineTable& table_;
  const EngineInfo& info_;
  int64_t nodes_ = 1;
  int64_t per_node_ = 8;
  std::vector<JobArg> args_;
  std::string out_;
  ModelMode model_mode_ = ModelMode::none;
  std::vector<std::string> model_words_;
  std::string model_unsupported_;
};

}  // namespace

std::vector<std::string> job_arg_words(const JobArg& a, layout::Engine engine) {
  if (a.placeholder) return {"\"" + a.flag + "\""};
  const auto value_word = [&](const std::string& text) {
    return a.expands ? args::variable_shell_word(text) : util::shell_quote(text);
  };
  if (engine == layout::Engine::bridge && a.flag.rfind("--", 0) != 0) {
    return {value_word(a.flag + "=" + util::join(a.values, ","))};  // one override word
  }
  if (a.shell.size() == a.values.size() + 1) return a.shell;
  std::vector<std::string> words = {util::shell_quote(a.flag)};
  for (const std::string& v : a.values) words.push_back(value_word(v));
  return words;
}

std::vector<layout::EngineArg> job_layout_args(const Layout& l, const ModelSpec& model,
                                               layout::Engine engine, int64_t row_tokens) {
  std::vector<layout::EngineArg> out;
  // Megatron-Bridge sets Megatron-LM's knobs (and Megatron-Core's Bridge-only fields): job_args
  // writes them in its override syntax.
  for (layout::EngineArg& arg : layout::layout_engine_args(l, engine, row_tokens)) {
    if (model.num_experts == 0 && arg.knob != nullptr && arg.knob->experts)
      continue;  // a dense model has no experts to place
    out.push_back(std::move(arg));
  }
  // slime and miles read a DSA model's context-parallel shards with --allgather-cp (slime
  // slime/backends/megatron_utils/arguments.py: only DSA architectures support it).
  if (l.cp > 1 && (engine == layout::Engine::slime || engine == layout::Engine::miles) &&
      model.count_indexers() > 0) {
    out.push_back(layout::EngineArg{"--allgather-cp", std::nullopt});
  }
  return out;
}

// Whether a base argument's Bridge override expands its values' $NAME inputs: one override word
// is written either with its variables expanded or wholly literal, so values that mix a variable
// with a literal `$` cannot be converted.
bool bridge_expands(const JobArg& a, const std::string& base) {
  if (a.shell.empty()) return a.expands;
  bool open = false;
  bool literal_dollar = false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const bool literal = is_literal(a.values[i], a.shell[i + 1]);
    open = open || !literal;
    literal_dollar = literal_dollar || (literal && a.values[i].find('$') != std::string::npos);
  }
  if (open && literal_dollar) {
    throw_input(SourceLocation{base, 0, 0, a.flag},
                "the values mix a literal '$' with a variable, which one Megatron-Bridge override word cannot "
                "keep apart; give the literal through a variable");
  }
  return open;
}

// An argument read from text (a base's script, data/launch/engines.yaml) with its knob row, found
// once where the text enters; the layout's own arguments carry theirs from layout_engine_args.
JobArg with_row(JobArg a) {
  const layout::Knob* knob = layout::find_knob_by_flag(a.flag);
  if (knob == nullptr) return a;
  for (const layout::KnobArg& spelling : knob->args) {
    if (spelling.flag != a.flag) continue;
    a.knob = knob;
    a.spelling = &spelling;
  }
  return a;
}

std::vector<JobArg> job_args(const JobRequest& r) {
  const EngineTable& table = engine_table();
  const int64_t nodes = (r.gpus + r.gpus_per_node - 1) / r.gpus_per_node;
  const int64_t per_node = std::min(r.gpus, r.gpus_per_node);
  std::vector<JobArg> args;
  if (table.engine(r.engine).family == "slime") {
    args.push_back({"--actor-num-nodes", {std::to_string(nodes)}});
    args.push_back({"--actor-num-gpus-per-node", {std::to_string(per_node)}});
  }
  for (const args::LaunchArg& a : r.base->args) {
    // ladle's defaults name the job's inputs ($HF_CKPT) without a script's words.
    args.push_back(with_row({a.flag, a.values, a.placeholder, has_words(a) ? a.shell : std::vector<std::string>{},
                             !has_words(a) && a.unresolved}));
  }
  for (const layout::EngineArg& a :
       job_layout_args(r.layout, *r.model, r.engine, r.base->workload.row_tokens)) {
    // A switch whose value Megatron-LM gives a BF16 run without it (the row's bf16_default): a
    // user's job that left it out keeps leaving it out.
    if (r.base->kind == BaseKind::job && r.precision == "bf16" && a.spelling != nullptr && a.spelling->bf16_default &&
        std::find(r.base->job_layout_flags.begin(), r.base->job_layout_flags.end(), a.flag) ==
            r.base->job_layout_flags.end()) {
      continue;
    }
    // A list (--recompute-modules moe_act layernorm) is one word per member, as argparse takes it:
    // the row's words.
    args.push_back({a.flag, a.words, false, {}, false, a.knob, a.spelling});
  }
  // The job's companion values the engine's layout arguments do not write (slime's --seq-length).
  for (const args::LaunchArg& a : r.base->job_companion_values) {
    if (has_flag(args, a.flag)) continue;
    args.push_back(with_row({a.flag, a.values, false, has_words(a) ? a.shell : std::vector<std::string>{}, false}));
  }
  // The precision's flags (engines.yaml), unless the job gives the first, the format, already.
  if (r.precision == "fp8" && !table.fp8_flags.empty() && !has_flag(args, table.fp8_flags.front())) {
    for (const std::string& word : table.fp8_flags) {
      if (word.rfind("--", 0) == 0) {
        args.push_back(with_row({word, {}}));
      } else {
        args.back().values.push_back(word);
      }
    }
  }
  if (r.engine != layout::Engine::bridge) return args;
  // Megatron-Bridge: the recipe holds the model; every other argument becomes its override.
  const auto stem = table.model_name(r.model->name, r.engine);
  if (!stem) {
    throw_input(SourceLocation{"data/launch/engines.yaml", 0, 0, "models"},
                "Megatron-Bridge has no library recipe listed for model '{}'", r.model->name);
  }
  // A model stem picks <stem>_pretrain_config; a complete recipe function (a name ending in
  // _config, run_recipe.py's --recipe) is taken whole, and the pipeline layout it pins for its own
  // pipeline size is cleared unless the plan sets one (run_recipe.py rebuilds only layouts a
  // recipe builds, recipe_runner.py sync_model_pipeline_layout).
  const bool complete = stem->ends_with("_config");
  std::vector<JobArg> out = {{complete ? "--recipe" : "--model", {*stem}},
                             {"--mode", {"pretrain"}}};
  if (complete && r.layout.pipeline_layout.empty())
    out.push_back({"model.pipeline_model_parallel_layout", {"null"}});
  std::vector<JobArg> precision;            // the mixed_precision.* fields
  std::vector<const JobArg*> precision_of;  // the argument each of them writes
  std::vector<JobArg> rest;
  for (const JobArg& a : args) {
    if (a.placeholder) continue;
    const auto key = bridge_key_of(a);
    if (!key) {
      throw_input(SourceLocation{r.base->name, 0, 0, a.flag},
                  "the base's {} has no Megatron-Bridge override (knob table or "
                  "data/launch/engines.yaml); it "
                  "cannot be converted",
                  a.flag);
    }
    JobArg o{key->key, {key->value ? *key->value : bridge_value(a)}, false, {},
             bridge_expands(a, r.base->name)};
    if (key->key.rfind("mixed_precision.", 0) == 0) {
      precision.push_back(std::move(o));
      precision_of.push_back(&a);
    } else {
      rest.push_back(std::move(o));
    }
  }
  // The precision: a mixed-precision recipe by name where one sets exactly these fields (a name is
  // what every recipe takes: replacing a recipe's MixedPrecisionConfig or its name), else the fields
  // themselves, which Megatron-Bridge applies to a recipe that holds a MixedPrecisionConfig.
  // The choice is made from the arguments' rows and values, not from the override words written.
  const PrecisionSetting wanted = job_precision_setting(precision_of);
  bool named = false;
  for (const std::string& name : args::bridge_mixed_precision_names()) {
    if (preset_setting(name) == wanted) {
      out.push_back({"mixed_precision", {name}});
      named = true;
      break;
    }
  }
  if (!named) out.insert(out.end(), precision.begin(), precision.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::string job_args_line(const JobRequest& r) {
  std::vector<std::string> words;
  for (const JobArg& a : job_args(r)) {
    for (std::string& w : job_arg_words(a, r.engine)) words.push_back(std::move(w));
  }
  return util::join(words, " ");
}

std::string job_script(const JobRequest& request) {
  LADLE_ASSERT(request.base && request.model, "a job needs its base and model");
  return Writer(request).write();
}

}  // namespace ladle::launch
