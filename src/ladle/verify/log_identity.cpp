#include "ladle/verify/log_identity.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string_view>
#include <vector>

#include "ladle/model/catalog.hpp"
#include "ladle/runlog/log_lines.hpp"
#include "ladle/runlog/log_settings.hpp"
#include "ladle/util/error.hpp"

namespace ladle::verify {

namespace {

// The Megatron-LM arguments that give a model's shape.
constexpr std::array<std::string_view, 7> kModelKeys = {"hidden_size",     "num_layers",          "num_attention_heads",
                                                        "ffn_hidden_size", "num_experts",         "moe_ffn_hidden_size",
                                                        "moe_router_topk"};

// One value a log may state, as the recipe has it.
struct Expected {
  std::string_view key;
  int64_t value = 0;
  std::string source;  ///< where the recipe has it, for the message
  std::string_view of = "model";  ///< what a log that differs is of another of
};

// The engines ladle reads logs of, as a recipe's stack.framework names them.
enum class Engine { megatron_lm, megatron_bridge, slime, miles, nemo };

std::string_view engine_name(Engine engine) {
  switch (engine) {
    case Engine::megatron_lm:
      return "Megatron-LM";
    case Engine::megatron_bridge:
      return "Megatron-Bridge";
    case Engine::slime:
      return "slime";
    case Engine::miles:
      return "miles";
    case Engine::nemo:
      return "NeMo";
  }
  return "";
}

// The engine stack.framework names ("slime 0.3.0 with local patches", "miles 0.1.0 (... a slime
// fork)"), the most specific first; nullopt for one ladle does not know.
std::optional<Engine> framework_engine(std::string_view framework) {
  std::string lower(framework);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto has = [&](std::string_view word) { return lower.find(word) != std::string::npos; };
  if (has("miles")) return Engine::miles;
  if (has("slime")) return Engine::slime;
  if (has("bridge")) return Engine::megatron_bridge;
  if (has("nemo")) return Engine::nemo;
  if (has("megatron")) return Engine::megatron_lm;
  return std::nullopt;
}

// Whether a log of `format` can come from `engine`. slime and miles train with Megatron-LM, whose
// iteration lines they may print; Megatron-LM's CI golden values are Megatron-LM's and Bridge's.
bool format_fits(runlog::LogFormat format, Engine engine) {
  switch (format) {
    case runlog::LogFormat::megatron:
      return engine != Engine::nemo;
    case runlog::LogFormat::megatron_bridge:
      return engine == Engine::megatron_bridge;
    case runlog::LogFormat::slime:
    case runlog::LogFormat::miles:
      return engine == Engine::slime || engine == Engine::miles;
    case runlog::LogFormat::nemo:
      return engine == Engine::nemo;
    case runlog::LogFormat::megatron_golden:
      return engine == Engine::megatron_lm || engine == Engine::megatron_bridge;
    case runlog::LogFormat::jsonl:
      return true;  // ladle's own format: any engine's steps
  }
  return true;
}

std::string_view format_engine(runlog::LogFormat format) {
  switch (format) {
    case runlog::LogFormat::megatron:
      return "Megatron-LM";
    case runlog::LogFormat::megatron_bridge:
      return "Megatron-Bridge";
    case runlog::LogFormat::slime:
      return "slime";
    case runlog::LogFormat::miles:
      return "miles";
    case runlog::LogFormat::nemo:
      return "NeMo 2.0";
    case runlog::LogFormat::megatron_golden:
      return "Megatron-LM CI golden values";
    case runlog::LogFormat::jsonl:
      return "ladle JSONL";
  }
  return "";
}

void check_engine(const runlog::RunLog& log, const Recipe& recipe, const std::string& recipe_path) {
  const auto engine = framework_engine(recipe.stack.framework);
  if (!engine || format_fits(log.format, *engine)) return;
  const int line = log.steps.empty() ? 0 : log.steps.front().line;
  throw_input(SourceLocation{log.path, line, 0, "format"},
              "a {} log ({}), but {} runs {} (stack.framework '{}'): the log is of another engine",
              format_engine(log.format), runlog::to_string(log.format), recipe_path, engine_name(*engine),
              recipe.stack.framework);
}

std::vector<Expected> model_values(const Recipe& recipe) {
  std::vector<Expected> out;
  const std::optional<ModelSpec> spec = model::find_model(recipe.model);
  if (!spec) return out;
  const std::string of = fmt::format("the recipe's model {}", recipe.model);
  out.push_back({"hidden_size", spec->hidden_size, of});
  out.push_back({"num_layers", spec->num_layers, of});
  out.push_back({"num_attention_heads", spec->num_heads, of});
  // Megatron-LM's ffn_hidden_size is the dense MLP's width; a model of MoE layers only may set it
  // to anything.
  if (spec->count_mlp(MlpKind::dense) > 0) out.push_back({"ffn_hidden_size", spec->intermediate_size, of});
  if (spec->num_experts > 0) {
    out.push_back({"num_experts", spec->num_experts, of});
    out.push_back({"moe_ffn_hidden_size", spec->moe_intermediate_size, of});
    out.push_back({"moe_router_topk", spec->experts_per_token, of});
  }
  return out;
}

std::vector<Expected> run_values(const Recipe& recipe) {
  std::vector<Expected> out;
  if (recipe.workload.global_batch > 0) {
    out.push_back({"global_batch_size", recipe.workload.global_batch, "the recipe's workload.global_batch", "batch"});
  }
  out.push_back({"tensor_model_parallel_size", recipe.layout.tp, "the recipe's layout.tp", "layout"});
  out.push_back({"pipeline_model_parallel_size", recipe.layout.pp, "the recipe's layout.pp", "layout"});
  out.push_back({"context_parallel_size", recipe.layout.cp, "the recipe's layout.cp", "layout"});
  out.push_back({"expert_model_parallel_size", recipe.layout.ep, "the recipe's layout.ep", "layout"});
  return out;
}

// The number a setting states, or nullopt ("None", "True", a list).
std::optional<int64_t> stated(const runlog::LogSetting& setting) {
  if (setting.value.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const auto number = runlog::parse_integer(setting.value);
  return number ? std::optional<int64_t>(*number) : std::nullopt;
}

}  // namespace

void check_log_matches_recipe(const runlog::RunLog& log, const Recipe& recipe, const std::string& recipe_path,
                              LogIdentity what) {
  if (what == LogIdentity::run) {
    check_engine(log, recipe, recipe_path);
    // Tokens would be the recipe's batch assumed for a CI run that may be of another one.
    if (log.format == runlog::LogFormat::megatron_golden) {
      throw_input(SourceLocation{log.path, 0, 0, "format"},
                  "CI golden values state no batch or tokens per step: no throughput of {} can be computed from "
                  "them without assuming its batch; compare their loss with `ladle converge` instead",
                  recipe_path);
    }
  }
  std::vector<Expected> expected = model_values(recipe);
  if (what == LogIdentity::run) {
    for (Expected& e : run_values(recipe)) expected.push_back(std::move(e));
  }
  for (const Expected& e : expected) {
    const runlog::LogSetting* setting = runlog::find_setting(log, e.key);
    if (setting == nullptr) continue;
    const auto value = stated(*setting);
    if (!value || *value == e.value) continue;
    throw_input(SourceLocation{log.path, setting->line, 0, std::string(e.key)},
                "the log states {}, but {} ({}) has {}: the log is of another {}", *value, e.source, recipe_path,
                e.value, e.of);
  }
}

void check_logs_same_model(const runlog::RunLog& reference, const runlog::RunLog& candidate) {
  for (const std::string_view key : kModelKeys) {
    const runlog::LogSetting* ours = runlog::find_setting(reference, key);
    const runlog::LogSetting* theirs = runlog::find_setting(candidate, key);
    if (ours == nullptr || theirs == nullptr) continue;
    const auto a = stated(*ours);
    const auto b = stated(*theirs);
    if (!a || !b || *a == *b) continue;
    throw_input(SourceLocation{candidate.path, theirs->line, 0, std::string(key)},
                "the candidate states {}, the reference {} ({}:{}): runs of different models", *b, *a, reference.path,
                ours->line);
  }
}

}  // namespace ladle::verify
