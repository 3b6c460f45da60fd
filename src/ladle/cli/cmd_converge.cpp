// cmd_converge.cpp: `ladle converge`, does a candidate run's loss follow its reference run's?
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <filesystem>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/util/table.hpp"
#include "ladle/verify/convergence.hpp"
#include "ladle/verify/convergence_json.hpp"
#include "ladle/verify/log_identity.hpp"

namespace ladle::cli {

namespace {

struct ConvergeOptions {
  std::string reference;
  std::string candidate;
  std::optional<int64_t> steps;
  std::string format;
  std::string write;
  bool keep_logs = false;
  bool json = false;
};

namespace fs = std::filesystem;

// Where the recipe at `recipe_path` finds `log`: its path relative to the recipe's folder, or with
// `keep` a copy beside the recipe (RECIPE-STEM.logs/NAME), written through a temporary and a rename.
std::string recorded_log(const std::string& log, const std::string& recipe_path, bool keep, const char* arm) {
  const fs::path folder = fs::absolute(recipe_path).parent_path();
  if (!keep) return fs::absolute(log).lexically_normal().lexically_relative(folder).generic_string();
  const fs::path dir = folder / (fs::path(recipe_path).stem().string() + ".logs");
  const fs::path copy = dir / (std::string(arm) + "-" + fs::path(log).filename().string());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::io, fmt::format("{}: cannot create the folder: {}", dir.string(), ec.message()));
  if (!fs::equivalent(log, copy, ec)) {
    // A copy through a temporary beside it and a rename: a reader sees the old copy or the new one.
    const fs::path partial = copy.string() + ".tmp";
    fs::copy_file(log, partial, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(partial, copy, ec);
    if (ec) {
      std::error_code ignored;
      fs::remove(partial, ignored);
      throw Error(ErrorKind::io, fmt::format("{}: cannot copy the log to {}: {}", log, copy.string(), ec.message()));
    }
  }
  return copy.lexically_relative(folder).generic_string();
}

void print_json(const verify::ConvergenceReport& r, Io& io) { io.out << verify::to_json(r).dump(2) << "\n"; }

void print_table(const verify::ConvergenceReport& r, Io& io) {
  io.out << fmt::format("reference: {}\ncandidate: {}\n", r.reference_path, r.candidate_path);
  util::Table table;
  table.header = {"step", "reference", "candidate", "difference", "tolerance", ""};
  for (const auto& p : r.points) {
    std::string mark = p.failed ? "outside" : "";
    if (p.outlier) mark += mark.empty() ? "3-sigma outlier" : ", 3-sigma outlier";
    table.rows.push_back({fmt::format("{}", p.step), fmt::format("{:.6f}", p.reference), fmt::format("{:.6f}", p.candidate),
                          fmt::format("{:.3f}%", 100 * p.relative_difference), fmt::format("{:g}%", 100 * p.tolerance),
                          mark});
  }
  io.out << table.render();
  io.out << fmt::format("correlation: {}  (pass >= {:g}, Pearson)\n",
                        r.correlation ? fmt::format("{:.6f}", *r.correlation) : "undefined", r.thresholds.correlation_min);
  io.out << fmt::format("final loss difference: {}  (pass <= {:g}%)\n",
                        r.final_loss_difference ? fmt::format("{:.5f}", *r.final_loss_difference) : "-",
                        100 * r.thresholds.final_loss_tolerance);
  io.out << fmt::format("pointwise failures: {} of {}  (pass <= {:g}%)\n", r.pointwise_failures, r.steps,
                        100 * r.thresholds.max_failure_ratio);
  io.out << fmt::format("result: {}\n", r.passed ? "pass" : "fail");
  for (const std::string& reason : r.reasons) io.out << "reason: " << reason << "\n";
  io.out << "thresholds: " << r.thresholds.source << "\n";
}

void run_converge(const ConvergeOptions& options, Io& io) {
  std::optional<runlog::LogFormat> forced;
  if (!options.format.empty()) forced = runlog::parse_log_format(options.format);
  if (options.steps && *options.steps <= 0) throw_usage("--steps must be at least 1");
  if (options.keep_logs && options.write.empty()) throw_usage("--keep-logs needs --write RECIPE");
  std::optional<recipe::LoadedRecipe> loaded;
  // --write takes a path or a catalog name (resolve_recipe_file in commands.cpp).
  const std::string write_path = options.write.empty() ? "" : resolve_recipe_file(options.write);
  if (!write_path.empty()) loaded = recipe::read_recipe_file(write_path);  // fail early on a bad recipe
  const runlog::RunLog reference = runlog::read_log_file(options.reference, forced);
  const runlog::RunLog candidate = runlog::read_log_file(options.candidate, forced);
  // Loss curves of different models do not converge to each other; the candidate is the recipe's
  // run, the reference may have had another engine or layout.
  verify::check_logs_same_model(reference, candidate);
  if (loaded) {
    verify::check_log_matches_recipe(reference, loaded->recipe, write_path, verify::LogIdentity::model);
    verify::check_log_matches_recipe(candidate, loaded->recipe, write_path, verify::LogIdentity::run);
  }
  const verify::ConvergenceReport report = verify::check_convergence(reference, candidate, options.steps,
                                                                     verify::default_convergence_thresholds());
  if (options.json) {
    print_json(report, io);
  } else {
    print_table(report, io);
  }
  if (loaded) {
    // Re-read under a lock, so a `score --write` of the same recipe meanwhile is kept.
    // The page draws both loss curves and the candidate's step times from these logs.
    const std::string reference_log = recorded_log(options.reference, write_path, options.keep_logs, "reference");
    const std::string candidate_log = recorded_log(options.candidate, write_path, options.keep_logs, "candidate");
    recipe::update_recipe_file(write_path, [&](Recipe& r) {
      Correctness correctness = r.correctness.value_or(Correctness{"pending", "", "", "pending", {}, {}, ""});
      correctness.convergence = verify::update_convergence(correctness.convergence, report);
      correctness.convergence->reference_log = reference_log;
      correctness.convergence->candidate_log = candidate_log;
      r.correctness = std::move(correctness);
    });
    io.err << fmt::format("wrote correctness.convergence to {}\n", options.write);
  }
  io.exit_code = report.passed ? kExitOk : kExitNo;
}

}  // namespace

void add_converge_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<ConvergeOptions>();
  command.add_option("--reference", options->reference, "log of the reference run")->required();
  command.add_option("--candidate", options->candidate, "log of the candidate run")->required();
  command.add_option("--steps", options->steps, "compare the reference's first N steps (default: all, same lengths)");
  command.add_option("--log-format", options->format, "read both logs as this format (default: detect)");
  command.add_option("--write", options->write,
                     "write the result into this recipe's correctness.convergence, with both logs' paths relative to "
                     "the recipe");
  command.add_flag("--keep-logs", options->keep_logs,
                   "with --write: copy both logs beside the recipe (RECIPE.logs/) and record the copies");
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_converge(*options, io); });
}

}  // namespace ladle::cli
