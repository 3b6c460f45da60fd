#include "ladle/rl/rl_job.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include "ladle/launch/engines.hpp"
#include "ladle/launch/job_script.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/args/launch_args.hpp"
#include "ladle/rl/rl_plan.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/shell_quote.hpp"
#include "ladle/util/text.hpp"

namespace ladle::rl {

namespace {

constexpr const char* kJobData = "data/rl/job.yaml";

struct JobData {
  std::string sync_entry;
  std::string async_entry;
  std::vector<std::pair<std::string, YAML::Node>> inputs;
  std::vector<std::string> args;
  std::vector<std::string> kl;
  std::string source;
};

const JobData& job_data() {
  static const JobData data = [] {
    const auto bytes = util::find_embedded(kJobData);
    LADLE_ASSERT(bytes.has_value(), "data/rl/job.yaml is embedded");
    const YAML::Node root = YAML::Load(std::string(*bytes));
    JobData d;
    d.source = root["source"].as<std::string>();
    d.sync_entry = root["entry"]["sync"].as<std::string>();
    d.async_entry = root["entry"]["async"].as<std::string>();
    for (const auto& in : root["inputs"]) d.inputs.emplace_back(in.first.as<std::string>(), in.second);
    for (const auto& w : root["args"]) d.args.push_back(w.as<std::string>());
    for (const auto& w : root["kl"]) d.kl.push_back(w.as<std::string>());
    return d;
  }();
  return data;
}

// A word of ladle's data or plan: its $NAME inputs expanded, everything else literal.
std::string data_word(const std::string& w) {
  return w.find('$') != std::string::npos ? args::variable_shell_word(w) : util::shell_quote(w);
}

}  // namespace

std::string rl_entry_point(Mode mode) {
  return mode == Mode::async ? job_data().async_entry : job_data().sync_entry;
}

std::vector<std::string> rl_entry_args(const RlJobRequest& r) {
  LADLE_ASSERT(r.model != nullptr, "an RL job needs its model");
  std::vector<std::string> words = {"${MODEL_ARGS[@]}"};
  for (std::string& w : rl_job_args(r.step, r.work, r.gpus_per_node)) words.push_back(std::move(w));
  // The trainer's layout, through the knob table, as every job ladle writes carries it.
  const Layout& trainer = r.step.setup.trainer;
  for (const layout::EngineArg& a :
       launch::job_layout_args(trainer, *r.model, r.engine, r.step.train_workload.row_tokens)) {
    // The split and colocation are the RL job's own (above).
    if (a.flag == "--colocate" || a.flag == "--sglang-mem-fraction-static") continue;
    const layout::Knob* knob = layout::find_knob_by_flag(a.flag);
    const bool list = knob != nullptr && (knob->kind == layout::KnobKind::set || knob->key == "cp_inner");
    words.push_back(a.flag);
    if (!a.value) continue;
    if (list) {
      for (const std::string& w : util::split(*a.value, ' ')) {
        if (!w.empty()) words.push_back(w);
      }
    } else {
      words.push_back(*a.value);
    }
  }
  const JobData& d = job_data();
  words.insert(words.end(), d.args.begin(), d.args.end());
  if (r.work.ref_logprobs) words.insert(words.end(), d.kl.begin(), d.kl.end());
  return words;
}

std::string rl_job_script(const RlJobRequest& r) {
  LADLE_ASSERT(r.model != nullptr, "an RL job needs its model");
  if (r.engine != layout::Engine::slime && r.engine != layout::Engine::miles) {
    throw_usage("--engine: an RL job runs on slime or miles, not {}", layout::to_string(r.engine));
  }
  const launch::EngineTable& table = launch::engine_table();
  const launch::EngineInfo& info = table.engine(r.engine);
  const auto name = table.model_name(r.model->name, r.engine);
  if (!name) {
    throw_usage("--engine: {} has no model arguments for {} (data/launch/engines.yaml models)",
                layout::to_string(r.engine), r.model->name);
  }
  const RlStep& s = r.step;
  const int64_t trainer = s.setup.trainer_gpus;
  const int64_t total = s.setup.mode == Mode::colocated ? trainer : trainer + s.setup.rollout_gpus;
  const int64_t per_node = std::min<int64_t>(total, r.gpus_per_node);
  const int64_t nodes = (total + r.gpus_per_node - 1) / r.gpus_per_node;
  std::string out;
  const auto line = [&](const std::string& text = {}) { out += text + "\n"; };
  line("#!/usr/bin/env bash");
  line("# " + util::join(util::split(r.title, '\n'), " "));
  line(fmt::format("# {} RL job written by ladle plan --rl: {} ({}), {} GPUs in {} node{}.", layout::to_string(r.engine),
                   describe(s.setup.mode), s.setup.mode == Mode::colocated
                                               ? fmt::format("{} GPUs", trainer)
                                               : fmt::format("{} rollout + {} trainer GPUs", s.setup.rollout_gpus, trainer),
                   total, nodes, nodes == 1 ? "" : "s"));
  line(fmt::format("# Predicted: {:.2f} samples/s, {:.0f} trained tokens/s per GPU, step {:.1f} s.", s.samples_per_s,
                   s.trained_tokens_per_s_per_gpu, s.step_s));
  line(fmt::format("# Arguments besides the plan's: {} (data/rl/job.yaml).", job_data().source));
  line("set -euo pipefail");
  line();
  line("# Inputs: every one is checked before anything starts; all that are missing are named.");
  line("missing=()");
  line("need() {  # NAME KIND WHAT");
  line("  local value=${!1:-}");
  line("  if [[ -z \"$value\" ]]; then missing+=(\"$1 is not set: $3\"); return; fi");
  line("  case $2 in");
  line("    dir) [[ -d \"$value\" ]] || missing+=(\"$1=$value is not a folder: $3\") ;;");
  line("    file) [[ -f \"$value\" ]] || missing+=(\"$1=$value is not a file: $3\") ;;");
  line("    out) mkdir -p \"$value\" || missing+=(\"$1=$value cannot be created: $3\") ;;");
  line("  esac");
  line("}");
  line(fmt::format("need {} dir {}", info.checkout,
                   util::shell_quote(fmt::format("a {} checkout ({})", layout::to_string(r.engine), info.repository))));
  for (const auto& [var, node] : job_data().inputs) {
    line(fmt::format("need {} {} {}", var, node["kind"].as<std::string>(),
                     util::shell_quote(node["what"].as<std::string>())));
  }
  if (nodes > 1) {
    line(fmt::format("NNODES={}", nodes));
    line("if [[ -n \"${SLURM_JOB_NODELIST:-}\" ]]; then");
    line("  mapfile -t HOSTS < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")");
    line("elif [[ -n \"${HOSTFILE:-}\" && -f \"$HOSTFILE\" ]]; then");
    line("  mapfile -t HOSTS < <(awk 'NF && $1 !~ /^#/ {print $1}' \"$HOSTFILE\")");
    line("else");
    line("  HOSTS=()");
    line("  missing+=(\"HOSTFILE is not set: a file with one host per line (or run under Slurm): $NNODES nodes are needed\")");
    line("fi");
    line("if [[ ${#HOSTS[@]} -gt 0 && ${#HOSTS[@]} -lt $NNODES ]]; then");
    line("  missing+=(\"$NNODES nodes are needed, ${#HOSTS[@]} given\")");
    line("fi");
    line("MASTER_ADDR=${MASTER_ADDR:-${HOSTS[0]:-}}");
  } else {
    line("MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}");
  }
  line("if (( ${#missing[@]} > 0 )); then");
  line("  printf 'ladle job: %s\\n' \"${missing[@]}\" >&2");
  line("  exit 2");
  line("fi");
  line();
  if (info.model_args == "helper") {
    line(fmt::format("MODEL_ARGS_LINE=\"$(python3 \"${}/miles/utils/external_utils/model_args_utils.py\" {})\"",
                     info.checkout, util::shell_quote(*name)));
    line("read -ra MODEL_ARGS <<< \"$MODEL_ARGS_LINE\"");
  } else {
    line("# shellcheck source=/dev/null");
    line(fmt::format("source \"${}/scripts/models/\"{}  # sets MODEL_ARGS", info.checkout,
                     util::shell_quote(*name + ".sh")));
  }
  line();
  line("RAY_PORT=${RAY_PORT:-6379}");
  line("RAY_DASHBOARD_PORT=${RAY_DASHBOARD_PORT:-8265}");
  line("# The Ray head on this node; only the processes this job starts are its own (nothing is killed).");
  line(fmt::format("ray start --head --node-ip-address \"$MASTER_ADDR\" --port \"$RAY_PORT\" --num-gpus {} "
                   "--disable-usage-stats --dashboard-host=0.0.0.0 --dashboard-port=\"$RAY_DASHBOARD_PORT\"",
                   per_node));
  if (nodes > 1) {
    line("for host in \"${HOSTS[@]:1:$((NNODES - 1))}\"; do");
    line("  if [[ -n \"${SLURM_JOB_ID:-}\" ]]; then");
    line(fmt::format("    srun --nodes=1 --ntasks=1 --overlap -w \"$host\" ray start --address=\"$MASTER_ADDR:$RAY_PORT\" "
                     "--num-gpus {} --disable-usage-stats --block &",
                     per_node));
    line("  else");
    line(fmt::format("    ssh \"$host\" ray start --address=\"$MASTER_ADDR:$RAY_PORT\" --num-gpus {} --disable-usage-stats",
                     per_node));
    line("  fi");
    line("done");
  }
  line(fmt::format("RUNTIME_ENV_JSON=\"{{\\\"env_vars\\\": {{\\\"PYTHONPATH\\\": "
                   "\\\"${{MEGATRON_DIR:-/root/Megatron-LM}}:${}\\\", \\\"MASTER_ADDR\\\": \\\"${{MASTER_ADDR}}\\\"}}}}\"",
                   info.checkout));
  line(fmt::format("cd \"${}\"", info.checkout));
  line("ray job submit --address=\"http://127.0.0.1:$RAY_DASHBOARD_PORT\" \\");
  line("  --runtime-env-json=\"${RUNTIME_ENV_JSON}\" \\");
  line(fmt::format("  -- python3 {} \\", util::shell_quote(rl_entry_point(s.setup.mode))));
  const std::vector<std::string> words = rl_entry_args(r);
  std::string args = "  \"${MODEL_ARGS[@]}\"";
  for (size_t i = 1; i < words.size(); ++i) {
    const bool flag = words[i].rfind("--", 0) == 0;
    args += (flag ? " \\\n  " : " ") + data_word(words[i]);
  }
  line(args + " 2>&1 | tee \"$OUTPUT_DIR/train.log\"");
  return out;
}

}  // namespace ladle::rl
