#include "ladle/check/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <variant>

#include "ladle/args/launch_args.hpp"
#include "ladle/args/numerics_rules.hpp"
#include "ladle/args/run_script.hpp"
#include "ladle/check/rl_rules.hpp"
#include "ladle/hw/catalog.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/recipe/pipeline_layout.hpp"
#include "ladle/recipe/yaml_style.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/shell_quote.hpp"
#include "ladle/util/text.hpp"

namespace ladle::check {

// The recipe and its launch script, as the rules read them.
using recipe::find_recipe;
using recipe::Finding;
using recipe::LoadedRecipe;
using recipe::parse_pipeline_layout;
using recipe::VirtualStage;
using args::LaunchArg;
using args::LaunchArgs;
using args::parse_launch_args;
using args::RunTimeWord;
using args::parse_run_script;
using args::RunArg;
using args::RunScript;
using args::ArgClass;
using args::default_numerics_rules;
using args::NumericsRule;
using args::NumericsRules;
using args::same_value;

const std::vector<RuleInfo>& recipe_rules() {
  static const std::vector<RuleInfo> kRules = {
      {"R1", "gpu.count = tp x pp x cp x dp"},
      {"R2", "gpu.count is a whole number of nodes of gpu.per_node GPUs"},
      {"R3", "the run's node count and GPUs per node agree with gpu.count and gpu.per_node"},
      {"R4", "the expert layout folds into the same GPUs: ep x etp divides tp x cp x dp"},
      {"R5", "layer_split: first + last + (pp - 2) x middle = the model's layers, every stage non-empty; a "
             "pipeline layout string: pp x vpp stages holding the model's layers"},
      {"R6", "result.window_tokens = (window end - start + 1) x global batch x row tokens"},
      {"R7", "the measured window lies inside the run's steps (0 .. steps_per_run - 1; Megatron-LM: 1 .. steps_per_run)"},
      {"R8", "the run's step count (--num-rollout or --train-iters) = result.steps_per_run"},
      {"R9", "result.mfu = 6 x N x tokens/s per GPU / the GPU's dense BF16 peak, to the digits printed"},
      {"R10", "result.active_params.count = N of the model (parameters a token multiplies through)"},
      {"R11", "usd_per_million_tokens = price per GPU-hour / (tokens/s per GPU x 3600) x 1e6, to the cent"},
      {"R12", "every launch argument that maps to a layout or workload field agrees with it"},
      {"R13", "env equals the export lines of run, in order"},
      {"R14", "max_tokens_per_gpu >= rows_per_microbatch x row_tokens"},
      {"R15", "the dataset build holds at least steps_per_run x global batch rows"},
      {"R16", "gpu_hours >= GPUs x the measured window's duration"},
      {"R17", "status verified needs a passing correctness block with a passing convergence check"},
      {"R18", "gpu and instance agree with the hardware catalog (GPU type, memory, GPUs per node)"},
      {"R19", "a planned recipe keeps every math-changing argument of its base (correctness.reference)"},
      {"R20", "every word of run's launches means its text: no $(...), backticks or special parameters that the run "
              "expands and ladle reads as written"},
  };
  // The RL rules (rl_rules.hpp) follow, in id order.
  static const std::vector<RuleInfo> kAll = [] {
    std::vector<RuleInfo> all = kRules;
    for (const RlRuleInfo& rule : rl_rules()) all.push_back({rule.id, rule.summary});
    return all;
  }();
  return kAll;
}

namespace {

// The run-length flag of each engine and the step number its log gives the run's first step:
// slime and miles print `step 0`, Megatron-LM's training loop `iteration 1/ N` (it counts
// iterations from 1, megatron/training/training.py).
struct RunLengthFlag {
  const char* flag;
  int64_t first_step;
};
constexpr RunLengthFlag kRunLengthFlags[] = {{"--num-rollout", 0}, {"--train-iters", 1}};

// Digits after the decimal point as the number would be printed in the file.
int printed_decimals(double value) {
  const std::string text = recipe::detail::python_float_repr(value);
  const size_t e = text.find('e');
  if (e != std::string::npos) {
    const int exponent = std::stoi(text.substr(e + 1));
    const std::string mantissa = text.substr(0, e);
    const size_t dot = mantissa.find('.');
    const int mantissa_decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
    return std::max(0, mantissa_decimals - exponent);
  }
  const size_t dot = text.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
}

// Whether `printed` is `exact` rounded to the digits `printed` shows.
bool matches_printed(double exact, double printed) {
  const int decimals = printed_decimals(printed);
  const double half_ulp = 0.5 * std::pow(10.0, -decimals);
  return std::fabs(exact - printed) <= half_ulp * (1 + 1e-9) + 1e-12;
}

std::string format_number(double value) { return recipe::detail::python_float_repr(value); }

class Checker {
 public:
  explicit Checker(const LoadedRecipe& loaded) : loaded_(loaded), r_(loaded.recipe) {
    report_.file = loaded.path;
    run_line_ = loaded.where.at("run").line;
    try {
      script_ = parse_run_script(r_.run, loaded.path);
    } catch (const Error& e) {
      // The script's line 1 is the line after `run: |`.
      throw Error(ErrorKind::input, e.message(),
                  SourceLocation{loaded.path, run_line_ + e.where().line, run_col(e.where().col), "run"});
    }
    model_ = model::find_model(r_.model);
  }

  CheckReport run() {
    check_gpu_counts();
    check_expert_fold();
    check_layer_split();
    check_result();
    check_launch_arguments();
    check_env();
    check_workload();
    check_status();
    check_hardware();
    check_base();
    check_run_time_words();
    check_rl(loaded_, report_.findings);
    std::stable_sort(report_.findings.begin(), report_.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.line < b.line; });
    return std::move(report_);
  }

 private:
  template <typename... Args>
  void add(const char* rule, const std::string& field, fmt::format_string<Args...> format, Args&&... args) {
    add_at(rule, field, loaded_.where.at(field).line, fmt::format(format, std::forward<Args>(args)...));
  }
  void add_at(const char* rule, const std::string& field, int line, std::string message) {
    report_.findings.push_back({rule, loaded_.path, line, field, std::move(message)});
  }
  int script_line(const RunArg* arg) const { return arg ? run_line_ + arg->line : run_line_; }
  // The file's column of a column of the script: its block is indented two past `run:`, as
  // ladle writes recipes (0 stays unknown).
  int run_col(int script_col) const {
    return script_col > 0 ? script_col + loaded_.where.at("run").col + 1 : 0;
  }

  void check_gpu_counts() {
    const auto& l = r_.layout;
    const int64_t product = l.tp * l.pp * l.cp * l.dp;
    // A disaggregated RL recipe trains on the GPUs its engines leave (R21 checks them).
    const bool disaggregated = r_.workload.rl && r_.workload.rl->mode != "colocated_sync";
    if (product != r_.gpu.count && !disaggregated) {
      add("R1", "gpu.count", "gpu.count is {} but tp x pp x cp x dp = {} x {} x {} x {} = {}", r_.gpu.count, l.tp,
          l.pp, l.cp, l.dp, product);
    }
    if (r_.gpu.per_node <= 0 || r_.gpu.count % r_.gpu.per_node != 0) {
      add("R2", "gpu.per_node", "gpu.count {} is not a whole number of {}-GPU nodes", r_.gpu.count,
          r_.gpu.per_node);
      return;
    }
    const int64_t nodes = r_.gpu.count / r_.gpu.per_node;
    const RunArg* nodes_arg = script_.find("--actor-num-nodes");
    if (!nodes_arg) nodes_arg = script_.find("--nnodes");
    if (nodes_arg && nodes_arg->value && *nodes_arg->value != std::to_string(nodes)) {
      add_at("R3", "run", script_line(nodes_arg),
             fmt::format("{} {} but gpu.count / gpu.per_node = {}", nodes_arg->flag, *nodes_arg->value, nodes));
    }
    for (const char* flag : {"--actor-num-gpus-per-node", "--num-gpus-per-node", "--nproc_per_node",
                             "--nproc-per-node"}) {
      const RunArg* arg = script_.find(flag);
      if (arg && arg->value && *arg->value != std::to_string(r_.gpu.per_node)) {
        add_at("R3", "run", script_line(arg),
               fmt::format("{} {} but gpu.per_node is {}", flag, *arg->value, r_.gpu.per_node));
      }
    }
  }

  void check_expert_fold() {
    const auto& l = r_.layout;
    const int64_t dense = l.tp * l.cp * l.dp;
    const int64_t expert = l.ep * l.etp;
    if (expert <= 0 || dense % expert != 0) {
      add("R4", "layout.ep", "ep x etp = {} x {} = {} does not divide tp x cp x dp = {}", l.ep, l.etp, expert, dense);
      return;
    }
    report_.expert_data_parallel = dense / expert;
  }

  void check_layer_split() {
    const auto& l = r_.layout;
    if (!model_) {
      report_.skipped.push_back(fmt::format("R5: model '{}' is not in the catalog", r_.model));
      if (l.layer_split && l.pp < 2) add("R5", "layout.layer_split", "layer_split needs pp >= 2, pp is {}", l.pp);
      return;
    }
    const int64_t layers = model_->num_layers;
    const LayoutFieldValue* layout_string = l.knob(knob_row("pipeline_layout").recipe);
    if (layout_string != nullptr && std::holds_alternative<std::string>(*layout_string)) {
      // The layout string places the layers itself: its stages must be pp x vpp, none of the
      // decoder layers missing or extra.
      std::vector<VirtualStage> stages;
      try {
        stages = parse_pipeline_layout(std::get<std::string>(*layout_string));
      } catch (const Error& e) {
        add("R5", "layout.pipeline_layout", "{}", e.message());
        return;
      }
      const auto count = static_cast<int64_t>(stages.size());
      int64_t decoder = 0;
      for (const VirtualStage& stage : stages) decoder += stage.decoder;
      if (l.pp < 1 || count % l.pp != 0) {
        add("R5", "layout.pipeline_layout", "the pipeline layout has {} stages, which pp {} does not divide", count,
            l.pp);
      } else if (l.vpp > 1 && count != l.pp * l.vpp) {
        add("R5", "layout.pipeline_layout", "the pipeline layout has {} stages, not pp {} x vpp {}", count, l.pp,
            l.vpp);
      } else if (decoder != layers) {
        add("R5", "layout.pipeline_layout", "the pipeline layout holds {} decoder layers (t), but {} has {}",
            decoder, model_->name, layers);
      }
      return;
    }
    if (!l.layer_split) {
      // --account-for-embedding/loss-in-pipeline-split count the embedding and the loss as one
      // layer each in the split (Megatron-LM's pipeline split rules).
      const auto stated = [&](std::string_view key) {
        const LayoutFieldValue* v = l.knob(knob_row(key).recipe);
        return v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
      };
      const int64_t counted = layers + (stated("account_embedding") ? 1 : 0) + (stated("account_loss") ? 1 : 0);
      if (l.pp > 0 && counted % l.pp != 0) {
        add("R5", "layout.pp",
            "{} layers of {} do not split evenly over pp {}; give layout.layer_split", layers,
            model_->name, l.pp);
      }
      return;
    }
    const auto& split = *l.layer_split;
    if (l.pp < 2) {
      add("R5", "layout.layer_split", "layer_split needs pp >= 2, pp is {}", l.pp);
      return;
    }
    if (split.first < 1 || split.last < 1) {
      add("R5", "layout.layer_split", "every pipeline stage needs a layer: first {} last {}", split.first, split.last);
      return;
    }
    const int64_t rest = layers - split.first - split.last;
    if (l.pp == 2) {
      if (rest != 0) add("R5", "layout.layer_split", "first {} + last {} != {} layers of {}", split.first, split.last, layers, model_->name);
      return;
    }
    if (rest < l.pp - 2 || rest % (l.pp - 2) != 0) {
      add("R5", "layout.layer_split",
          "first {} + last {} leave {} of {}'s {} layers, not a whole non-zero number per each of the {} middle stages",
          split.first, split.last, rest, model_->name, layers, l.pp - 2);
    }
  }

  // The run-length flag the run script sets, if any.
  const RunLengthFlag* run_length() const {
    for (const RunLengthFlag& f : kRunLengthFlags) {
      if (script_.find(f.flag)) return &f;
    }
    return nullptr;
  }

  void check_result() {
    if (!r_.result) return;
    const RecipeResult& res = *r_.result;
    const auto& w = res.window;
    if (w.size() == 2) {
      const int64_t expected = (w[1] - w[0] + 1) * r_.workload.global_batch * r_.workload.row_tokens;
      // An RL window counts samples x their measured mean length, not fixed rows.
      const bool rl = r_.workload.rl || res.rl;
      if (rl) report_.skipped.push_back("R6: an RL recipe's window tokens are samples x measured lengths");
      if (expected != res.window_tokens && !rl) {
        add("R6", "result.window_tokens", "window_tokens is {} but ({} - {} + 1) x {} x {} = {}", res.window_tokens,
            w[1], w[0], r_.workload.global_batch, r_.workload.row_tokens, expected);
      }
      // The window is in the log's step numbers, which start where the engine's do.
      const int64_t first = run_length() ? run_length()->first_step : 0;
      const int64_t last = first + res.steps_per_run - 1;
      if (w[0] < first || w[0] > w[1] || w[1] > last) {
        add("R7", "result.window", "window [{}, {}] is not inside steps {}..{} of the run", w[0], w[1], first, last);
      }
    }
    const RunArg* steps = run_length() ? script_.find(run_length()->flag) : nullptr;
    if (steps && steps->value && *steps->value != std::to_string(res.steps_per_run)) {
      add_at("R8", "result.steps_per_run", script_line(steps),
             fmt::format("{} {} but result.steps_per_run is {}", steps->flag, *steps->value, res.steps_per_run));
    }
    const auto gpu = hw::find_gpu(r_.gpu.type);
    if (gpu && gpu->bf16_dense_tflops > 0) {
      const double mfu = 6.0 * static_cast<double>(res.active_params.count) * res.tokens_per_s_per_gpu /
                         (gpu->bf16_dense_tflops * 1e12);
      if (!matches_printed(mfu, res.mfu)) {
        add("R9", "result.mfu", "mfu is {} but 6 x {} x {} / {} TFLOP/s = {:.{}f}", format_number(res.mfu),
            res.active_params.count, format_number(res.tokens_per_s_per_gpu), format_number(gpu->bf16_dense_tflops),
            mfu, printed_decimals(res.mfu) + 2);
      }
    } else {
      report_.skipped.push_back(fmt::format("R9: GPU '{}' is not in the catalog", r_.gpu.type));
    }
    if (model_) {
      const int64_t n = model::active_params(*model_);
      if (n != res.active_params.count) {
        add("R10", "result.active_params.count", "active_params.count is {} but {} has N = {}",
            util::format_grouped(static_cast<long long>(res.active_params.count)), model_->name,
            util::format_grouped(static_cast<long long>(n)));
      }
    } else {
      report_.skipped.push_back(fmt::format("R10: model '{}' is not in the catalog", r_.model));
    }
    const auto instance = hw::find_instance(r_.gpu.instance);
    if (instance && instance->usd_per_hour > 0 && res.tokens_per_s_per_gpu > 0) {
      const double usd = instance->usd_per_gpu_hour() / (res.tokens_per_s_per_gpu * 3600.0) * 1e6;
      if (std::fabs(usd - res.usd_per_million_tokens) > 0.005 + 1e-9) {
        add("R11", "result.usd_per_million_tokens",
            "usd_per_million_tokens is {} but {} at ${:.4f}/GPU-hour gives {:.4f}", format_number(res.usd_per_million_tokens),
            instance->name, instance->usd_per_gpu_hour(), usd);
      }
    } else if (!instance) {
      report_.skipped.push_back(fmt::format("R11: instance '{}' is not in the catalog", r_.gpu.instance));
    }
    if (res.tokens_per_s_per_gpu > 0) {
      const double window_hours =
          static_cast<double>(res.window_tokens) / res.tokens_per_s_per_gpu / 3600.0;  // GPUs x duration
      if (res.gpu_hours + 0.005 < window_hours) {
        add("R16", "result.gpu_hours", "gpu_hours {} is less than {} GPUs x the window's {:.3f} h = {:.2f}",
            format_number(res.gpu_hours), r_.gpu.count, window_hours / static_cast<double>(r_.gpu.count), window_hours);
      }
    }
  }

  // R12: one finding per launch argument that disagrees with its field. The argument and the
  // recipe field of each knob are its row of the knob table (layout/knobs.hpp, read as data, as
  // bridge_args.cpp reads it): a flag renamed there is checked under its new name here.
  static const layout::Knob& knob_row(std::string_view key) {
    for (const layout::Knob& k : layout::kKnobs) {
      if (k.key == key) return k;
    }
    LADLE_ASSERT(false, "R12 names a knob the table does not hold");
    return layout::kKnobs[0];
  }
  static std::string flag_of(std::string_view key) { return std::string(knob_row(key).args.front().flag); }
  static std::string field_of(std::string_view key) { return "layout." + std::string(knob_row(key).recipe); }

  void expect_arg(const std::string& flag, const std::string& field, const std::string& expected,
                  const std::string& default_value) {
    const RunArg* arg = script_.find(flag);
    if (!arg) {
      if (expected == default_value || script_.has_opaque_args) return;
      add_at("R12", field, run_line_,
             fmt::format("{} is {} but run has no {} (default {})", field, expected, flag, default_value));
      return;
    }
    const std::string actual = arg->value.value_or("");
    if (actual != expected) {
      add_at("R12", field, script_line(arg), fmt::format("{} {} but {} is {}", flag, actual, field, expected));
    }
  }
  // The knob's own argument against its own field.
  void expect_knob(std::string_view key, const std::string& expected, const std::string& default_value) {
    expect_arg(flag_of(key), field_of(key), expected, default_value);
  }
  void expect_flag(const std::string& flag, const std::string& field, bool expected) {
    const RunArg* arg = script_.find(flag);
    if (expected && !arg && !script_.has_opaque_args) {
      add_at("R12", field, run_line_, fmt::format("{} is true but run has no {}", field, flag));
    } else if (!expected && arg) {
      add_at("R12", field, script_line(arg), fmt::format("{} is given but {} is false or null", flag, field));
    }
  }

  void check_launch_arguments() {
    const auto& l = r_.layout;
    const auto str = [](int64_t v) { return std::to_string(v); };
    expect_knob("tp", str(l.tp), "1");
    expect_knob("pp", str(l.pp), "1");
    expect_knob("cp", str(l.cp), "1");
    expect_knob("ep", str(l.ep), "1");
    // etp sizes the experts' tensor parallelism: a model of the catalog with no experts has none, so
    // its recipe's etp is not an argument the run must give (the job reader sets it to 1 for them).
    const bool no_experts = model_ && model_->num_experts == 0;
    if (script_.has(flag_of("etp")) || (l.etp != l.tp && !no_experts)) expect_knob("etp", str(l.etp), str(l.tp));
    expect_flag(flag_of("sp"), field_of("sp"), l.sequence_parallel);
    // vpp by its own argument, unless the script gives the chunk size (vpp_layers) instead.
    if (script_.has(flag_of("vpp")) || (l.vpp > 1 && !script_.has(flag_of("vpp_layers")))) {
      expect_knob("vpp", str(l.vpp), "1");
    }
    if (l.layer_split) {
      expect_knob("first", str(l.layer_split->first), "none");
      expect_knob("last", str(l.layer_split->last), "none");
    } else {
      expect_flag(flag_of("first"), "layout.layer_split", false);
      expect_flag(flag_of("last"), "layout.layer_split", false);
    }
    if (l.recompute) {
      expect_knob("recompute", l.recompute->granularity, "none");
      if (l.recompute->method) expect_knob("recompute_method", *l.recompute->method, "none");
      if (l.recompute->num_layers) expect_knob("recompute_layers", str(*l.recompute->num_layers), "none");
    } else {
      expect_flag(flag_of("recompute"), "layout.recompute", false);
    }
    // slime's and miles' dynamic batching: the token budget, and the switch that turns it on.
    if (script_.has(flag_of("max_tokens")) || script_.has("--use-dynamic-batch-size")) {
      expect_knob("max_tokens", str(l.max_tokens_per_gpu), "none");
    }
    // Megatron-LM's switch for the host optimizer; the knob's fraction and overlap rows go with it.
    expect_flag("--optimizer-cpu-offload", "layout.offload", l.offload.has_value());
    if (l.offload) {
      expect_flag(flag_of("overlap"), field_of("overlap"), l.offload->overlap_d2h_h2d);
      const std::string flag = flag_of("offload");
      const std::string field = field_of("offload");
      const RunArg* fraction = script_.find(flag);
      const double given = fraction && fraction->value ? std::atof(fraction->value->c_str()) : 1.0;
      if (std::fabs(given - l.offload->optimizer_fraction) > 1e-9) {
        add_at("R12", field, script_line(fraction),
               fmt::format("{} {} but {} is {}", flag, format_number(given), field,
                           format_number(l.offload->optimizer_fraction)));
      }
    } else {
      expect_flag(flag_of("overlap"), "layout.offload", false);
    }
    // Megatron-LM's default dispatcher (the knob's megatron_default: allgather).
    expect_knob("dispatcher", l.dispatcher, std::string(knob_row("dispatcher").megatron_default));
    expect_arg("--global-batch-size", "workload.global_batch", str(r_.workload.global_batch), "none");
  }

  void check_env() {
    const auto& exports = script_.exports;
    const size_t n = std::max(exports.size(), r_.env.size());
    for (size_t i = 0; i < n; ++i) {
      if (i >= exports.size()) {
        add("R13", "env." + r_.env[i].first, "env has {} but run exports no such variable", r_.env[i].first);
      } else if (i >= r_.env.size()) {
        add_at("R13", "env", run_line_ + exports[i].line,
               fmt::format("run exports {} but env does not list it", exports[i].name));
      } else if (exports[i].name != r_.env[i].first || exports[i].value != r_.env[i].second) {
        add("R13", "env." + r_.env[i].first, "env {}={} but run line {} exports {}={}", r_.env[i].first,
            r_.env[i].second, exports[i].line, exports[i].name, exports[i].value);
      }
    }
  }

  void check_workload() {
    const auto& l = r_.layout;
    // Checked products: a huge rows_per_microbatch must not wrap around and pass.
    const auto needed = util::checked_mul(l.rows_per_microbatch, r_.workload.row_tokens);
    const auto capacity = util::checked_mul(l.max_tokens_per_gpu, std::max<int64_t>(1, l.cp));
    if (l.rows_per_microbatch < 1) {
      add("R14", "layout.rows_per_microbatch", "rows_per_microbatch {} must be at least 1", l.rows_per_microbatch);
    } else if (!needed || !capacity) {
      add("R14", "layout.rows_per_microbatch", "rows_per_microbatch {} x row_tokens {} (or max_tokens_per_gpu x cp) "
          "does not fit in 64 bits", l.rows_per_microbatch, r_.workload.row_tokens);
    } else if (*capacity < *needed) {
      add("R14", "layout.max_tokens_per_gpu", "max_tokens_per_gpu {} x cp {} < rows_per_microbatch {} x row_tokens {} = {}",
          l.max_tokens_per_gpu, l.cp, l.rows_per_microbatch, r_.workload.row_tokens, *needed);
    }
    const auto& build = r_.workload.dataset.build;
    if (build && r_.result) {
      const auto checked_rows = util::checked_mul(r_.result->steps_per_run, r_.workload.global_batch);
      const int64_t rows_needed = checked_rows.value_or(INT64_MAX);
      if (build->rows < rows_needed) {
        add("R15", "workload.dataset.build.rows", "the build holds {} rows but {} steps x global batch {} need {}",
            build->rows, r_.result->steps_per_run, r_.workload.global_batch, rows_needed);
      }
    }
  }

  void check_status() {
    if (r_.status != "verified") return;
    const auto& c = r_.correctness;
    if (!c || c->result != "pass") {
      add("R17", c ? "correctness.result" : "correctness", "status verified needs correctness.result pass");
    } else if (!c->convergence || c->convergence->result != "pass") {
      add("R17", "correctness.convergence", "status verified needs a passing convergence check");
    }
  }

  void check_hardware() {
    const auto gpu = hw::find_gpu(r_.gpu.type);
    if (!gpu) {
      std::vector<std::string> names = hw::gpu_names();
      add("R18", "gpu.type", "GPU '{}' is not in the hardware catalog{}", r_.gpu.type, util::did_you_mean(r_.gpu.type, names));
      return;
    }
    if (std::llround(gpu->hbm_gb) != r_.gpu.memory_gb) {
      add("R18", "gpu.memory_gb", "gpu.memory_gb is {} but the {} has {} GB", r_.gpu.memory_gb, gpu->display_name,
          format_number(gpu->hbm_gb));
    }
    const auto instance = hw::find_instance(r_.gpu.instance);
    if (!instance) return;
    if (!hw::find_gpu(instance->gpu) || hw::find_gpu(instance->gpu)->name != gpu->name) {
      add("R18", "gpu.instance", "{} carries {} GPUs, not {}", instance->name, instance->gpu, r_.gpu.type);
    }
    // A run on part of one node starts fewer ranks than the node holds (gpu.count = gpu.per_node).
    const bool part_of_one_node = r_.gpu.per_node < instance->gpu_count && r_.gpu.count == r_.gpu.per_node;
    if (instance->gpu_count != r_.gpu.per_node && !part_of_one_node) {
      add("R18", "gpu.per_node", "gpu.per_node is {} but {} has {} GPUs", r_.gpu.per_node, instance->name,
          instance->gpu_count);
    }
  }

  // R19: what `ladle diff BASE THIS` would call math-changing, a planned recipe must not drop.
  void check_base() {
    if (r_.status != "planned" || !r_.correctness || r_.correctness->reference.empty()) return;
    const std::string& reference = r_.correctness->reference;
    std::optional<LoadedRecipe> base;
    for (const std::string& candidate :
         {reference, (std::filesystem::path(loaded_.path).parent_path() / reference).string()}) {
      try {
        base = find_recipe(candidate);
        break;
      } catch (const Error&) {
        // Not this spelling: try the next.
      }
    }
    if (!base) {
      report_.skipped.push_back(fmt::format("R19: the base '{}' is not a recipe ladle can find", reference));
      return;
    }
    LaunchArgs mine;
    LaunchArgs theirs;
    try {
      mine = parse_launch_args(r_.run, loaded_.path);
      theirs = parse_launch_args(base->recipe.run, base->path);
    } catch (const Error& e) {
      report_.skipped.push_back(fmt::format("R19: {}", e.message()));
      return;
    }
    if (mine.launches.empty() || theirs.launches.empty()) return;
    const NumericsRules& rules = default_numerics_rules();
    const std::vector<LaunchArg>& have = mine.launches.front().args;
    for (const LaunchArg& arg : theirs.launches.front().args) {
      const NumericsRule* rule = arg.placeholder ? nullptr : rules.find(arg.flag);
      if (!rule || rule->arg_class != ArgClass::math_changing) continue;
      const auto it = std::find_if(have.begin(), have.end(), [&](const LaunchArg& a) { return a.flag == arg.flag; });
      const std::string want = arg.values.empty() ? "(set)" : util::join(arg.values, " ");
      if (it == have.end()) {
        const auto default_value = rules.default_of(arg.flag);
        if (default_value && arg.values.size() == 1 && same_value(arg.values[0], *default_value)) continue;
        add_at("R19", "run", run_line_,
               fmt::format("the base {} passes {} {} but run drops it: {}", reference, arg.flag, want, rule->reason));
        continue;
      }
      bool same = it->values.size() == arg.values.size();
      for (size_t i = 0; same && i < arg.values.size(); ++i) same = same_value(it->values[i], arg.values[i]);
      if (!same) {
        add_at("R19", "run", run_line_ + it->line,
               fmt::format("{} {} but the base {} passes {}: {}", arg.flag,
                           it->values.empty() ? "(set)" : util::join(it->values, " "), reference, want, rule->reason));
      }
    }
  }

  // R20: a word the run expands ($(...), backticks, $1, $$) is compared, planned from and tuned as
  // its text, so what check passes is not what runs; one finding per word.
  void check_run_time_words() {
    for (const RunTimeWord& w : script_.run_time_words) {
      const std::string column = w.col > 0 ? fmt::format("column {}: ", run_col(w.col)) : "";
      add_at("R20", "run", run_line_ + w.line,
             fmt::format("{}{} expands {} when the job runs, but ladle reads it as written: single-quote it for "
                         "a literal, or pass the value in a variable",
                         column, util::shell_quote(w.word), util::shell_quote(w.expansion)));
    }
  }

  const LoadedRecipe& loaded_;
  const Recipe& r_;
  CheckReport report_;
  RunScript script_;
  int run_line_ = 0;
  std::optional<ModelSpec> model_;
};

}  // namespace

CheckReport check_recipe(const LoadedRecipe& loaded) { return Checker(loaded).run(); }

}  // namespace ladle::check
