#include "ladle/cli/commands.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "ladle/recipe/catalog.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"
#include "ladle/verify/config_diff.hpp"

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
void add_mcp_command(CLI::App& command, Io& io);   // mcp (issue 35)
void add_card_command(CLI::App& command, Io& io);  // card (issue 35)
void add_rollout_command(CLI::App& command, Io& io);  // rollout (issue 34)

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
    {"mcp", "serve model, gpu, predict, plan, check, score, show, diff and tune status to agents (MCP over stdio)",
     add_mcp_command},
    {"card", "import a Megatron-Bridge verification card as recipes, or export a recipe as one", add_card_command},
    {"rollout", "predict SGLang engines' serving throughput and an RL rollout's time and memory", add_rollout_command},
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
      "",  // the option's help says what it takes; no CLI11 type noise
      fmt::format("integer_in:1:{}", std::numeric_limits<long long>::max()));  // read by in_process.cpp
  return check;
}

CLI::Validator integer_in(long long low, long long high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) {
          return fmt::format("expected an integer from {} to {}, got '{}'", util::format_grouped(low),
                             util::format_grouped(high), text);
        }
        return {};
      },
      "", fmt::format("integer_in:{}:{}", low, high));  // the bounds a tool's schema gives (in_process.cpp)
}

CLI::Validator one_of(std::vector<std::string> names) {
  std::string name = "one_of:" + util::join(names, "|");  // the enum a tool's schema gives (in_process.cpp)
  return CLI::Validator(
      [names = std::move(names)](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end()) return {};
        return fmt::format("expected {}, got '{}'{}", util::join(names, ", "), text, util::did_you_mean(text, names));
      },
      "", std::move(name));
}

recipe::LoadedRecipe resolve_recipe(const std::string& name_or_path) {
  return recipe::find_recipe(name_or_path);
}

std::string resolve_recipe_file(const std::string& name_or_path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return name_or_path;
  const recipe::LoadedRecipe loaded = recipe::find_recipe(name_or_path);
  if (std::filesystem::is_regular_file(loaded.path, ec)) return loaded.path;
  throw_usage("catalog recipe '{}' is built into ladle; to write into it, run from the repository "
              "root (where {} is) or give the file's path",
              name_or_path, loaded.path);
}

std::string resolve_launch_script(const std::string& name_or_path) {
  std::error_code ec;
  if (std::filesystem::exists(name_or_path, ec)) return verify::read_launch_script(name_or_path);
  const recipe::LoadedRecipe loaded = recipe::find_recipe(name_or_path);
  if (loaded.recipe.run.empty()) throw_usage("recipe '{}' has no run: block to compare", name_or_path);
  return loaded.recipe.run;
}

namespace {

// Hugging Face's cache folder for a repo id: models--<org>--<name>/snapshots/<revision>, the
// revision refs/main names when present, else the only snapshot.
std::string hf_cache_snapshot(const std::string& repo_id) {
  std::vector<std::filesystem::path> roots;
  if (const char* hub = std::getenv("HF_HUB_CACHE"); hub != nullptr && *hub != 0) roots.emplace_back(hub);
  if (const char* home = std::getenv("HF_HOME"); home != nullptr && *home != 0) {
    roots.push_back(std::filesystem::path(home) / "hub");
  }
  if (const char* user = std::getenv("HOME"); user != nullptr && *user != 0) {
    roots.push_back(std::filesystem::path(user) / ".cache" / "huggingface" / "hub");
  }
  std::string folder = "models--" + repo_id;
  for (std::size_t at = folder.find('/'); at != std::string::npos; at = folder.find('/')) {
    folder.replace(at, 1, "--");
  }
  std::error_code ec;
  for (const std::filesystem::path& root : roots) {
    const std::filesystem::path repo = root / folder;
    if (!std::filesystem::is_directory(repo / "snapshots", ec)) continue;
    std::string revision;
    if (std::filesystem::is_regular_file(repo / "refs" / "main", ec)) {
      revision = util::trim(util::read_file((repo / "refs" / "main").string()));
    }
    if (!revision.empty() && std::filesystem::is_directory(repo / "snapshots" / revision, ec)) {
      return (repo / "snapshots" / revision).string();
    }
    // Each step takes `ec`: an unreadable entry (a symlink loop) is not a snapshot, not a crash.
    std::vector<std::string> snapshots;
    for (std::filesystem::directory_iterator it(repo / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec)) snapshots.push_back(it->path().string());
    }
    if (snapshots.size() == 1) return snapshots[0];
  }
  return {};
}

}  // namespace

std::string resolve_hf_file(const std::string& path, const std::string& file) {
  std::error_code ec;
  // A file of any kind is the reader's to accept or refuse (a FIFO or /dev/zero is refused there).
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) return path;
  if (std::filesystem::is_directory(path, ec)) {
    const std::filesystem::path inside = std::filesystem::path(path) / file;
    if (std::filesystem::is_regular_file(inside, ec)) return inside.string();
    throw_usage("folder '{}' holds no {}", path, file);
  }
  // "org/name" with no such folder here: the Hugging Face cache.
  const bool repo_id = std::count(path.begin(), path.end(), '/') == 1 && path.front() != '/' &&
                       path.front() != '.';
  if (repo_id) {
    const std::string snapshot = hf_cache_snapshot(path);
    if (!snapshot.empty()) {
      const std::filesystem::path inside = std::filesystem::path(snapshot) / file;
      if (std::filesystem::is_regular_file(inside, ec)) return inside.string();
      throw_usage("the Hugging Face cache copy of '{}' ({}) holds no {}", path, snapshot, file);
    }
    throw_usage("'{}' is neither a file, a folder, nor a Hugging Face repo id in the cache "
                "($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub); download it first "
                "(e.g. huggingface-cli download {} {})",
                path, path, file);
  }
  throw_usage("no such file or folder '{}' (expected a {} or a folder holding one)", path, file);
}

void add_quiet_flag(CLI::App& command, bool& quiet) {
  command.add_flag("--quiet", quiet, "print no progress on standard error");
}

void add_json_flag(CLI::App& command, bool& json) {
  command.add_flag("--json", json, "print machine-readable JSON instead of a table");
}

}  // namespace ladle::cli
