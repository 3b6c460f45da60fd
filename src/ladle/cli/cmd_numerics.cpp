// cmd_numerics.cpp: `ladle numerics adam`, the optimizer component test against an FP64 reference.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <limits>
#include <charconv>
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <ostream>
#include <thread>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/numerics/adam_check.hpp"
#include "ladle/numerics/adam_check_io.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/progress.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {

struct NumericsAdamOptions {
  std::string shape;
  double scale = 1.0;
  std::string steps = "1,3";
  double lr = 1e-5;
  std::string betas = "0.9,0.98";
  double wd = 0.1;
  double eps = 1e-8;
  uint64_t seed = 1234;
  std::optional<int64_t> threads;  // absent: one per hardware thread
  std::string main_grads_dtype = "fp32";
  std::string exp_avg_dtype = "fp32";
  std::string exp_avg_sq_dtype = "fp32";
  std::string device = "cpu";
  bool no_self_test = false;
  std::string entry;
  std::string into;
  std::string date;
  std::string gpu;
  bool json = false;
};

std::pair<double, double> parse_betas(const std::string& text) {
  const std::vector<std::string> parts = util::split(text, ',');
  double values[2] = {0.0, 0.0};
  bool ok = parts.size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) {
    const std::string item(util::trim(parts[i]));
    const char* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, values[i]);
    ok = !item.empty() && ec == std::errc() && ptr == end;
  }
  if (!ok) throw_usage("--betas: expected two numbers like 0.9,0.98, got '{}'", text);
  return {values[0], values[1]};
}

std::string today_utc() {
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{days};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

void check_date(const std::string& date) {
  const bool shape = date.size() == 10 && date[4] == '-' && date[7] == '-';
  bool digits = shape;
  for (size_t i = 0; digits && i < date.size(); ++i) {
    digits = (i == 4 || i == 7) || std::isdigit(static_cast<unsigned char>(date[i]));
  }
  if (!digits || !util::is_calendar_date(date)) throw_usage("--date: expected YYYY-MM-DD, got '{}'", date);
}

// Every size of --shape within the named limits, and the elements updated within what a run can do.
void check_shape_limits(const numerics::LayerShape& shape, double scale) {
  const std::pair<const char*, std::pair<int64_t, int64_t>> bounds[] = {
      {"hidden", {shape.hidden, limits::kMaxModelDimension}},
      {"ffn", {shape.expert_ffn, limits::kMaxModelDimension}},
      {"shared_ffn", {shape.shared_ffn, limits::kMaxModelDimension}},
      {"experts", {shape.experts, limits::kMaxExperts}},
      {"topk", {shape.topk, limits::kMaxExperts}},
      {"ep", {shape.ep, limits::kMaxExperts}},
      {"etp", {shape.etp, limits::kMaxModelDimension}},
      {"tokens", {shape.tokens, limits::kMaxSequenceTokens}},
  };
  for (const auto& [key, value_limit] : bounds) {
    if (value_limit.first > value_limit.second) {
      throw_usage("--shape: {}: {} is more than the limit {} (see src/ladle/util/limits.hpp)", key,
                  value_limit.first, value_limit.second);
    }
  }
  int64_t total = 0;
  for (const numerics::TensorSpec& t : numerics::layer_tensors(shape, scale)) {
    const auto elements = util::checked_mul(t.rows, t.cols);
    const auto sum = elements ? util::checked_add(total, *elements) : std::nullopt;
    if (!sum || *sum > limits::kMaxNumericsElements) {
      throw_usage("--shape: the layer has more than {} elements to update, the limit of one run",
                  limits::kMaxNumericsElements);
    }
    total = *sum;
  }
}

numerics::AdamCheckOptions to_check_options(const NumericsAdamOptions& opt) {
  numerics::AdamCheckOptions o;
  if (!opt.shape.empty()) o.shape = numerics::parse_layer_shape(opt.shape);
  o.scale = opt.scale;
  if (o.scale > 0 && o.scale <= 1) check_shape_limits(o.shape, o.scale);
  o.steps = numerics::parse_step_list(opt.steps);
  o.hyper.lr = opt.lr;
  std::tie(o.hyper.beta1, o.hyper.beta2) = parse_betas(opt.betas);
  o.hyper.weight_decay = opt.wd;
  o.hyper.eps = opt.eps;
  o.seed = opt.seed;
  // Absent: every hardware thread; given: checked by the component test (1 to its own limit).
  // A count beyond int keeps the user's figure in the error (a clamped one would print another).
  if (opt.threads && (*opt.threads < std::numeric_limits<int>::min() || *opt.threads > std::numeric_limits<int>::max())) {
    throw_usage("--threads: {} is beyond any machine's thread count", *opt.threads);
  }
  o.threads = opt.threads ? static_cast<int>(*opt.threads) : util::thread_count(std::nullopt, "--threads");
  o.main_grads_dtype = numerics::parse_state_dtype(opt.main_grads_dtype, "--main-grads-dtype");
  o.exp_avg_dtype = numerics::parse_state_dtype(opt.exp_avg_dtype, "--exp-avg-dtype");
  o.exp_avg_sq_dtype = numerics::parse_state_dtype(opt.exp_avg_sq_dtype, "--exp-avg-sq-dtype");
  if (opt.device == "cpu") {
    o.device = numerics::Device::cpu;
  } else if (opt.device == "cuda") {
    o.device = numerics::Device::cuda;
  } else {
    throw_usage("--device: expected cpu or cuda, got '{}'", opt.device);
  }
  o.self_test = !opt.no_self_test;
  return o;
}

int run_numerics_adam(const NumericsAdamOptions& opt, Io& io) {
  numerics::AdamCheckOptions options = to_check_options(opt);
  // The shared progress report (util/progress.hpp); slices finish on worker threads.
  std::mutex progress_mutex;
  std::unique_ptr<util::Progress> bar;
  options.progress = [&](int64_t done, int64_t total) {
    const std::lock_guard<std::mutex> lock(progress_mutex);
    if (!bar) {
      bar = std::make_unique<util::Progress>(io.err, "numerics adam", "slices", total,
                                             util::progress_style(util::stderr_is_terminal(), opt.json));
    }
    bar->update(done);
    if (done == total) bar->finish();
  };
  if (!opt.date.empty()) check_date(opt.date);
  // The recipe is read before the run, so a bad recipe fails fast and nothing is written.
  std::optional<recipe::LoadedRecipe> into;
  if (!opt.into.empty()) into = recipe::read_recipe_file(opt.into);
  const numerics::AdamCheckReport report = numerics::run_adam_check(options);

  // Runtime memory goes to stderr: it depends on the thread count, the results must not.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  io.err << fmt::format(
      "numerics adam: {} threads, working buffers {:.1f} MiB, peak resident {:.1f} MiB\n",
      options.threads,
      static_cast<double>(numerics::adam_check_working_bytes(options)) / (1024.0 * 1024.0),
      static_cast<double>(usage.ru_maxrss) / 1024.0);

  const bool entry_to_stdout = opt.entry == "-";
  numerics::EntryContext context;
  context.date = opt.date.empty() ? today_utc() : opt.date;
  context.gpu = !opt.gpu.empty() ? opt.gpu
                : options.device == numerics::Device::cuda ? report.device_detail
                                                            : "none (CPU)";
  if (into) {
    // Replaces the recipe's entry for the same test, or appends one; every other field stays.
    ComponentTest entry;
    for (const auto& [key, value] : numerics::component_test_fields(report, context)) {
      if (key == "test") entry.test = value;
      if (key == "shape") entry.shape = value;
      if (key == "gpu") entry.gpu = value;
      if (key == "date") entry.date = value;
      if (key == "result") entry.result = value;
      if (key == "detail") entry.detail = value;
      if (key == "note") entry.note = value;
    }
    // Under the recipe's lock, on what the file holds now, so a concurrent write is not lost.
    bool replaced = false;
    recipe::update_recipe_file(opt.into, [&](Recipe& r) {
      if (!r.correctness) {
        r.correctness = Correctness{.result = "pending", .configuration = "pending"};
      }
      auto& tests = r.correctness->component_tests;
      const auto same =
          std::find_if(tests.begin(), tests.end(), [&](const ComponentTest& t) { return t.test == entry.test; });
      replaced = same != tests.end();
      if (replaced) {
        *same = entry;
      } else {
        tests.push_back(entry);
      }
    });
    io.err << fmt::format("numerics adam: {} the component test in {}\n", replaced ? "replaced" : "added", opt.into);
  }
  if (!opt.entry.empty()) {
    const std::string yaml = numerics::render_component_test_entry(report, context);
    if (entry_to_stdout) {
      io.out << yaml;
    } else {
      util::write_file_atomic(opt.entry, yaml);
    }
  }
  if (!entry_to_stdout) {
    io.out << (opt.json ? numerics::render_adam_check_json(report)
                        : numerics::render_adam_check_text(report));
  }
  return report.passed ? kExitOk : kExitNo;
}

}  // namespace

void add_numerics_command(CLI::App& command, Io& io) {
  command.require_subcommand(1);
  CLI::App* adam = command.add_subcommand(
      "adam", "precision-aware Adam and CPU optimizer offload against an FP64 reference");
  auto opt = std::make_shared<NumericsAdamOptions>();
  adam->add_option("--shape", opt->shape,
                   "MoE layer as key=value,...: hidden, experts, topk, ffn, shared_ffn, ep, etp, "
                   "tokens, name (default: one Qwen3.5-397B-A17B layer at EP 8)");
  adam->add_option("--scale", opt->scale, "fraction of the rank's local experts kept (default 1)");
  adam->add_option("--steps", opt->steps, "step counts reported, e.g. 1,3 (default)");
  adam->add_option("--lr", opt->lr, "learning rate (default 1e-5, the seed recipe's)");
  adam->add_option("--betas", opt->betas, "beta1,beta2 (default 0.9,0.98, the seed recipe's)");
  adam->add_option("--wd", opt->wd, "weight decay (default 0.1, the seed recipe's)");
  adam->add_option("--eps", opt->eps, "Adam epsilon (default 1e-8, Megatron-LM's --adam-eps)");
  adam->add_option("--seed", opt->seed, "seed of the synthetic weights and gradients (default 1234)");
  adam->add_option("--threads", opt->threads,
                   "worker threads (default: one per hardware thread)");
  adam->add_option("--main-grads-dtype", opt->main_grads_dtype,
                   "precision-aware path's main grads: fp32 (default) or bf16");
  adam->add_option("--exp-avg-dtype", opt->exp_avg_dtype,
                   "precision-aware path's first moment: fp32 (default), bf16 or fp16");
  adam->add_option("--exp-avg-sq-dtype", opt->exp_avg_sq_dtype,
                   "precision-aware path's second moment: fp32 (default), bf16 or fp16");
  adam->add_option("--device", opt->device, "where the GPU paths run: cpu (default) or cuda");
  adam->add_flag("--no-self-test", opt->no_self_test, "skip the remainder and conversion self-test");
  adam->add_option("--entry", opt->entry,
                   "write the component_tests entry as YAML to this file ('-': print only it)");
  adam->add_option("--into", opt->into, "add the component_tests entry to this recipe (replacing one of the same test)");
  adam->add_option("--date", opt->date, "date of the entry, YYYY-MM-DD (default: today, UTC)");
  adam->add_option("--gpu", opt->gpu, "gpu field of the entry (default: the device used)");
  add_json_flag(*adam, opt->json);
  adam->callback([opt, &io] { io.exit_code = run_numerics_adam(*opt, io); });
}

}  // namespace ladle::cli
