#include "ladle/cli/commands.hpp"

#include <charconv>

#include <CLI/CLI.hpp>

namespace ladle::cli {

// Each subcommand lives in cmd_<name>.cpp and is listed here once.
void add_version_command(CLI::App& command, Io& io);
void add_predict_command(CLI::App& command, Io& io);
void add_plan_command(CLI::App& command, Io& io);
void add_calibrate_command(CLI::App& command, Io& io);
void add_site_command(CLI::App& command, Io& io);
void add_model_command(CLI::App& command, Io& io);
void add_gpu_command(CLI::App& command, Io& io);
void add_numerics_command(CLI::App& command, Io& io);
void add_check_command(CLI::App& command, Io& io);
void add_ls_command(CLI::App& command, Io& io);
void add_show_command(CLI::App& command, Io& io);
void add_fmt_command(CLI::App& command, Io& io);
void add_steps_command(CLI::App& command, Io& io);
void add_score_command(CLI::App& command, Io& io);
void add_converge_command(CLI::App& command, Io& io);
void add_diff_command(CLI::App& command, Io& io);
void add_tokenize_command(CLI::App& command, Io& io);
void add_pack_command(CLI::App& command, Io& io);
void add_tune_command(CLI::App& command, Io& io);  // tune (issue 16)

namespace {
constexpr Command kCommands[] = {
    {"version", "print ladle's version", add_version_command},
    {"plan", "search every layout of a model on a cluster; rank by predicted speed or cost", add_plan_command},
    {"predict", "predict one layout's memory per stage and step time by part", add_predict_command},
    {"calibrate", "fit the time model's constants to measured recipes", add_calibrate_command},
    {"site", "write the catalog as a static site with charts", add_site_command},
    {"model", "print a model's architecture, parameter counts, N and FLOPs per token", add_model_command},
    {"gpu", "print the GPU and instance catalog (peaks, memory, links, prices)", add_gpu_command},
    {"numerics", "optimizer numerics component tests against an FP64 reference", add_numerics_command},
    {"check", "check recipes against the schema and the consistency rules", add_check_command},
    {"ls", "list the recipe catalog", add_ls_command},
    {"show", "show one recipe as its page", add_show_command},
    {"fmt", "rewrite recipe files in canonical form", add_fmt_command},
    {"steps", "print the step series ladle reads from training logs", add_steps_command},
    {"score", "measure a run from its logs: tokens/s per GPU, CV, MFU, $ per 1M tokens", add_score_command},
    {"converge", "check that a candidate run's loss follows its reference run's", add_converge_command},
    {"diff", "classify the launch-argument differences of two recipes or scripts", add_diff_command},
    {"tokenize", "print the token ids of standard input (or decode ids)", add_tokenize_command},
    {"pack", "build fixed-length training rows with a loss mask from conversations", add_pack_command},
    {"tune", "tune a layout on a real scheduler: propose, run, score, recalibrate, stop", add_tune_command},
};
}  // namespace

std::span<const Command> commands() { return kCommands; }

const CLI::Validator& positive_integer() {
  static const CLI::Validator check(
      [](std::string& text) -> std::string {
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || value < 1) {
          return "expected a positive integer, got '" + text + "'";
        }
        return {};
      },
      "INT>=1");
  return check;
}

void add_json_flag(CLI::App& command, bool& json) {
  command.add_flag("--json", json, "print machine-readable JSON instead of a table");
}

}  // namespace ladle::cli
