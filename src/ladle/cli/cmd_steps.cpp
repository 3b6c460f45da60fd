// cmd_steps.cpp: `ladle steps`, prints a log's step series exactly as ladle reads it, so a user can
// see what was understood before trusting a score.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/runlog/run_log_json.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {

struct StepsOptions {
  std::vector<std::string> logs;
  std::string format;
  bool json = false;
};

std::string cell(const std::optional<double>& value, const char* spec) {
  if (!value) return "-";
  if (std::isnan(*value)) return "nan";
  if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
  return fmt::format(fmt::runtime(spec), *value);
}

std::string cell(const std::optional<int64_t>& value) { return value ? fmt::format("{}", *value) : "-"; }

std::string memory_line(const runlog::RunLog& log) {
  int64_t worst_rank = -1;
  double worst = -1;
  for (const runlog::MemoryReport& r : log.memory) {
    if (r.max_reserved_mib > worst) {
      worst = r.max_reserved_mib;
      worst_rank = r.rank;
    }
  }
  return fmt::format("memory, GiB: {} line{}; peak max allocated {:.2f}, peak max reserved {:.2f}{}\n",
                     log.memory.size(), log.memory.size() == 1 ? "" : "s", runlog::peak_allocated_gib(log.memory),
                     runlog::peak_reserved_gib(log.memory),
                     worst_rank >= 0 ? fmt::format(" (rank {})", worst_rank) : std::string());
}

void run_steps(const StepsOptions& options, Io& io) {
  std::optional<runlog::LogFormat> forced;
  if (!options.format.empty()) forced = runlog::parse_log_format(options.format);
  std::vector<runlog::RunLog> logs;
  for (const std::string& path : options.logs) logs.push_back(runlog::read_log_file(path, forced));

  if (options.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const runlog::RunLog& log : logs) out.push_back(runlog::to_json(log));
    io.out << out.dump(2) << "\n";
    io.exit_code = kExitOk;
    return;
  }
  // Paths and notes quote the logs: escaped, so that a log line cannot drive the terminal.
  std::ostringstream text;
  bool first = true;
  for (const runlog::RunLog& log : logs) {
    if (!first) text << "\n";
    first = false;
    text << fmt::format("{}: {}, {} record{}", log.path, runlog::to_string(log.format), log.steps.size(),
                        log.steps.size() == 1 ? "" : "s");
    if (log.log_interval > 1) text << fmt::format(", one every {} steps (times and losses are averages)", log.log_interval);
    text << "\n";
    if (log.first_timestamp) {
      text << fmt::format("timestamps: {} to {}\n", *log.first_timestamp, *log.last_timestamp);
    }
    util::Table table;
    table.header = {"step", "step time (s)", "loss", "grad norm", "learning rate", "samples", "tokens"};
    for (const Step& step : log.steps) {
      table.rows.push_back({fmt::format("{}", step.step), cell(step.step_time_s, "{:.4f}"), cell(step.loss, "{:.6f}"),
                            cell(step.grad_norm, "{:.4f}"), cell(step.learning_rate, "{:.4e}"), cell(step.samples),
                            cell(step.tokens)});
    }
    text << table.render();
    if (!log.memory.empty()) text << memory_line(log);
    for (const std::string& note : log.notes) text << "note: " << note << "\n";
  }
  io.out << util::terminal_safe(text.str());
  io.exit_code = kExitOk;
}

}  // namespace

void add_steps_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<StepsOptions>();
  command.add_option("logs", options->logs, "training logs (Megatron-LM, Megatron-Bridge, slime, miles, NeMo 2.0, ladle JSONL)")
      ->required();
  command.add_option("--log-format", options->format,
                     "read every log as this format: megatron, megatron_bridge, slime, miles, nemo, jsonl");
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_steps(*options, io); });
}

}  // namespace ladle::cli
