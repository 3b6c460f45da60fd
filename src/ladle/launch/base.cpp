#include "ladle/launch/base.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ladle/launch/engines.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/shell_quote.hpp"

namespace ladle::launch {

namespace {

// An argument the run would expand into what ladle cannot read is refused: a job carries the text
// ladle read, which would not be what the script runs, and must not run a command it names.
void refuse_run_time(const args::LaunchArg& arg, const SourceLocation& where) {
  if (arg.runs.empty()) return;
  throw_input(where, "{} expands {} when the job runs; a job ladle writes expands only its inputs ($NAME): "
              "single-quote the word for a literal",
              util::shell_quote(arg.flag), util::shell_quote(arg.runs));
}

// The flags of every knob of the knob table (every engine's spelling, old spellings too), the
// switches layout_engine_args writes beside them, the cluster shape, and slime's CP switch.
std::set<std::string> knob_flags() {
  std::set<std::string> flags;
  for (const layout::Knob& knob : layout::kKnobs) {
    for (const layout::KnobArg& arg : knob.args) flags.insert(std::string(arg.flag));
  }
  Layout all;
  all.offload = 0.5;
  for (layout::Engine engine : {layout::Engine::slime, layout::Engine::megatron}) {
    for (const layout::EngineArg& arg : layout::layout_engine_args(all, engine, 8192))
      flags.insert(arg.flag);
  }
  for (const char* flag : {"--actor-num-nodes", "--actor-num-gpus-per-node", "--num-gpus-per-node",
                           "--allgather-cp"}) {
    flags.insert(flag);
  }
  return flags;
}

layout::Engine engine_of(const recipe::LoadedRecipe& loaded, const args::Launch& launch) {
  const std::string& entry = launch.entry;
  if (entry.find("run_recipe.py") != std::string::npos) return layout::Engine::bridge;
  if (entry.find("pretrain_gpt.py") != std::string::npos ||
      entry.find("pretrain_mamba.py") != std::string::npos) {
    return layout::Engine::megatron;
  }
  if (loaded.recipe.stack.framework.rfind("miles", 0) == 0) return layout::Engine::miles;
  if (entry.find("train.py") != std::string::npos ||
      entry.find("train_async.py") != std::string::npos) {
    return loaded.recipe.stack.framework.rfind("slime", 0) == 0 ||
                   entry.find("train_async") != std::string::npos
               ? layout::Engine::slime
               : layout::Engine::miles;
  }
  throw_input(SourceLocation{loaded.path, loaded.where.at("run").line + launch.line, 0, "run"},
              "the launch of '{}' drives no engine ladle knows (slime, miles, megatron, bridge)",
              launch.command);
}

std::string family(layout::Engine engine) { return engine_table().engine(engine).family; }

bool same_model(const std::string& recipe_model, const ModelSpec& model) {
  const auto found = model::find_model(recipe_model);
  return found && found->name == model.name;
}

}  // namespace

bool is_layout_flag(const std::string& flag) {
  static const std::set<std::string> flags = knob_flags();
  return flags.count(flag) > 0;
}

Base base_from_recipe(const recipe::LoadedRecipe& loaded, const std::string& name) {
  const int run_line = loaded.where.at("run").line;
  args::LaunchArgs launch;
  try {
    launch = args::parse_launch_args(loaded.recipe.run, loaded.path);
  } catch (const Error& e) {
    // The script's columns are the file's past the block's indentation (two past `run:`).
    const int col = e.where().col > 0 ? e.where().col + loaded.where.at("run").col + 1 : 0;
    throw Error(ErrorKind::input, e.message(), SourceLocation{loaded.path, run_line + e.where().line, col, "run"});
  }
  if (launch.launches.empty()) {
    throw_input(SourceLocation{loaded.path, run_line, 0, "run"},
                "the base's run launches nothing ladle can read");
  }
  Base b;
  b.name = name;
  b.from_recipe = true;
  b.kind = BaseKind::recipe;
  b.layout = layout::layout_from_recipe(loaded.recipe);
  b.engine = engine_of(loaded, launch.launches.front());
  b.workload = loaded.recipe.workload;
  for (const args::LaunchArg& arg : launch.launches.front().args) {
    if (is_layout_flag(arg.flag)) continue;
    if (arg.flag == "--loss-type" && !arg.values.empty() && arg.values[0] == "sft_loss")
      b.sft = true;
    refuse_run_time(arg, SourceLocation{loaded.path, run_line + arg.line,
                                        arg.col > 0 ? arg.col + loaded.where.at("run").col + 1 : 0, "run"});
    b.args.push_back(arg);
  }
  for (const args::LaunchExport& e : launch.exports) {
    b.env.emplace_back(e.name, e.value);
    b.env_words.push_back(e.shell.empty() ? util::shell_quote(e.value) : e.shell);
  }
  return b;
}

void carry_job_args(Base& base, const std::vector<args::LaunchArg>& job_args, const std::string& file) {
  for (const args::LaunchArg& arg : job_args) {
    // An array expansion's words are the user's script's, which the job does not have.
    if (arg.placeholder || is_layout_flag(arg.flag)) continue;
    refuse_run_time(arg, SourceLocation{file, arg.line, arg.col, ""});
    const auto same = std::find_if(base.args.begin(), base.args.end(),
                                   [&](const args::LaunchArg& a) { return a.flag == arg.flag; });
    if (same == base.args.end()) {
      base.args.push_back(arg);
    } else {
      same->values = arg.values;
      same->unresolved = arg.unresolved;
      same->shell = arg.shell;  // the flag's text is the same; its values are the user's words
      same->runs = arg.runs;
    }
  }
}

Base base_from_job(const args::LaunchArgs& launch, layout::Engine job_engine, layout::Engine engine,
                   const std::string& file, const Workload& workload) {
  if (family(job_engine) != family(engine)) {
    throw_input(SourceLocation{file, 0, 0, "engine"},
                "the job drives {}; a {} job cannot take its arguments (they have no {} spelling): leave "
                "--engine out to plan for the job's own engine, or give --base a {} recipe",
                layout::to_string(job_engine), layout::to_string(engine), layout::to_string(engine),
                layout::to_string(engine));
  }
  Base b;
  b.name = file;
  b.kind = BaseKind::job;
  b.engine = engine;
  b.workload = workload;
  if (b.workload.rows.empty()) b.workload.rows = family(engine) == "slime" ? "SFT conversations" : "pretraining documents";
  for (const args::LaunchArg& arg : layout::training_args(launch)) {
    if (is_layout_flag(arg.flag)) {  // the plan's
      b.job_layout_flags.push_back(arg.flag);
      const layout::CompanionArg* companion = layout::find_companion(arg.flag);
      if (companion != nullptr && companion->value != layout::CompanionValue::none) b.job_companion_values.push_back(arg);
      continue;
    }
    if (arg.placeholder) {
      // The model's arguments: the job sets MODEL_ARGS from the model. Another array's words are
      // the script's, which the job does not have.
      if (arg.flag == "${MODEL_ARGS[@]}") {
        b.args.push_back(arg);
      } else {
        b.notes.push_back(fmt::format("{}:{}: {} is not carried: its words are set outside the job",
                                      file, arg.line, arg.flag));
      }
      continue;
    }
    refuse_run_time(arg, SourceLocation{file, arg.line, arg.col, ""});
    if (arg.flag == "--loss-type" && !arg.values.empty() && arg.values[0] == "sft_loss") b.sft = true;
    b.args.push_back(arg);
  }
  // The environment: the exports, then the launch's own switches (KEY=VALUE prefixes and a Ray
  // job's runtime env), the first of each name; the job writes its own PYTHONPATH and MASTER_ADDR.
  const auto add_env = [&](const args::LaunchExport& e) {
    if (e.name == "PYTHONPATH" || e.name == "MASTER_ADDR") return;
    for (const auto& [name, value] : b.env) {
      if (name == e.name) return;
    }
    b.env.emplace_back(e.name, e.value);
    b.env_words.push_back(e.shell.empty() ? util::shell_quote(e.value) : e.shell);
  };
  for (const args::LaunchExport& e : launch.exports) add_env(e);
  if (!launch.launches.empty()) {
    for (const args::LaunchExport& e : launch.launches.front().env) add_env(e);
  }
  // The plan priced workload.global_batch rows per step and the recipe says so (`ladle check` R12):
  // a job that gives no global batch gets that one, said in a note.
  const bool has_batch = std::any_of(b.args.begin(), b.args.end(),
                                     [](const args::LaunchArg& a) { return a.flag == "--global-batch-size"; });
  if (!has_batch && engine != layout::Engine::bridge && workload.global_batch > 0) {
    b.args.push_back(args::LaunchArg{"--global-batch-size", {std::to_string(workload.global_batch)}, false, false, 0});
    b.notes.push_back(fmt::format("{}: gives no --global-batch-size; the job sets the planned {}", file,
                                  workload.global_batch));
  }
  return b;
}

Base default_base(const ModelSpec& model, layout::Engine engine, int64_t row_tokens,
                  int64_t global_batch) {
  const EngineTable& table = engine_table();
  const EngineInfo* info = &table.engine(engine);
  // An engine without its own defaults (Megatron-Bridge) takes its family's.
  for (const auto& [name, row] : table.engines) {
    if (info->defaults.empty() && row.family == info->family && !row.defaults.empty()) info = &row;
  }
  Base b;
  b.name = fmt::format("ladle defaults ({})", layout::to_string(engine));
  b.engine = engine;
  b.workload.row_tokens = row_tokens;
  b.workload.global_batch = global_batch;
  b.workload.precision = "bf16";
  b.workload.rows = family(engine) == "slime" ? "SFT conversations" : "pretraining documents";
  (void)model;
  if (engine != layout::Engine::bridge)
    b.args.push_back(args::LaunchArg{"${MODEL_ARGS[@]}", {}, true, true, 0});
  for (const std::string& word : info->defaults) {
    const std::string value = word == "$GLOBAL_BATCH" ? std::to_string(global_batch) : word;
    if (value.rfind("--", 0) == 0) {
      b.args.push_back(args::LaunchArg{value, {}, false, false, 0});
    } else if (!b.args.empty() && b.args.back().flag != "") {
      b.args.back().values.push_back(value);
      b.args.back().unresolved = b.args.back().unresolved || value.find('$') != std::string::npos;
    }
    if (value == "sft_loss") b.sft = true;
  }
  // The layout's knobs come from the plan, not from the defaults.
  std::erase_if(
      b.args, [](const args::LaunchArg& a) { return !a.placeholder && is_layout_flag(a.flag); });
  b.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  return b;
}

Base resolve_base(const std::string& option, const ModelSpec& model, layout::Engine engine,
                  int64_t row_tokens, int64_t global_batch) {
  Base b;
  std::string where;
  if (!option.empty()) {
    const recipe::LoadedRecipe loaded = recipe::find_recipe(option);
    b = base_from_recipe(loaded, option);
    where = fmt::format("{}:{}", loaded.path, loaded.where.at("run").line);
  } else {
    for (const recipe::LoadedRecipe& loaded : recipe::load_embedded_catalog()) {
      if (!same_model(loaded.recipe.model, model)) continue;
      std::string name = loaded.path;
      if (name.rfind("recipes/", 0) == 0) name = name.substr(8);
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0)
        name.resize(name.size() - 5);
      Base candidate = base_from_recipe(loaded, name);
      if (family(candidate.engine) == family(engine)) return candidate;
    }
    return default_base(model, engine, row_tokens, global_batch);
  }
  if (family(b.engine) != family(engine)) {
    const size_t colon = where.rfind(':');
    throw_input(
        SourceLocation{where.substr(0, colon), std::stoi(where.substr(colon + 1)), 0, "run"},
        "the base drives {} ({}); it cannot be converted to {}: its arguments have no {} "
        "spelling{}",
        layout::to_string(b.engine), b.sft ? "an SFT rollout loop" : "its own entry point",
        layout::to_string(engine), layout::to_string(engine),
        family(b.engine) == "slime" ? "; give --base a Megatron-LM recipe, or leave --base out"
                                    : "");
  }
  return b;
}

}  // namespace ladle::launch
