// cmd_pack.cpp: `ladle pack`, builds fixed-length training rows with a loss mask from conversations
// and writes them with a manifest.
#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/pack/chat_template.hpp"
#include "ladle/pack/pack_writer.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/progress.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {


struct PackCliOptions {
  std::string tokenizer_path;
  std::string tokenizer_label;
  std::string family;
  std::string input;
  std::string out;
  std::string name;
  int64_t row_tokens = 8192;
  int64_t rows = 0;
  uint64_t seed = 0;
  std::optional<int64_t> threads;
  bool json = false;
  bool quiet = false;
  std::string into;
};

// The manifest as the recipe's workload.dataset.build block. ladle writes Megatron .bin/.idx and
// JSONL, not Parquet: the Parquet fields are kept only when the rows are the same rows as before.
void write_build_into(const pack::PackManifest& m, const std::string& path) {
  // Under the recipe's lock, on what the file holds now, so a concurrent score or converge
  // --write of the same recipe is not lost.
  recipe::update_recipe_file(path, [&](Recipe& recipe) {
    RecipeDataset& dataset = recipe.workload.dataset;
    DatasetBuild build = m.build;
    if (dataset.build && dataset.rows_sha256 == m.rows_sha256) {
      build.parquet_sha256 = dataset.build->parquet_sha256;
      build.parquet_bytes = dataset.build->parquet_bytes;
    }
    build.supervised_token_ratio = std::round(build.supervised_token_ratio * 1000) / 1000;  // as the manifest prints it
    dataset.build = build;
    dataset.rows_sha256 = m.rows_sha256;
  });
}

std::string render_summary(const pack::PackManifest& m, const std::string& out_dir) {
  util::Table table;
  table.header = {"field", "value"};
  table.rows = {
      {"rows", util::format_grouped(static_cast<long long>(m.build.rows))},
      {"row_tokens", util::format_grouped(static_cast<long long>(m.build.row_tokens))},
      {"supervised_token_ratio", fmt::format("{:.3f}", m.build.supervised_token_ratio)},
      {"rows_skipped", util::format_grouped(static_cast<long long>(m.stats.rows_skipped))},
      {"conversations_used", fmt::format("{} of {}", m.stats.conversations_used,
                                         m.stats.source_conversations)},
      {"rows_sha256", m.rows_sha256},
  };
  for (const pack::OutputFile& f : m.files) table.rows.push_back({f.name, f.sha256});
  return fmt::format("packed {} rows into {}\n{}", m.build.rows, out_dir, table.render());
}

int run_pack(const PackCliOptions& opt, Io& io) {
  pack::PackOptions options;
  options.input_path = opt.input;
  options.family = pack::parse_template_family(opt.family);
  options.row_tokens = opt.row_tokens;
  options.rows = opt.rows;
  options.seed = opt.seed;
  options.threads = util::thread_count(opt.threads, "--threads");
  // A tokenizer.json, a checkpoint folder or a Hugging Face repo id (resolve_hf_file in commands.cpp).
  const std::string tokenizer_file = resolve_hf_file(opt.tokenizer_path, "tokenizer.json");
  const pack::Tokenizer tokenizer = pack::Tokenizer::from_file(tokenizer_file);
  // The model's own chat template (chat_template.jinja or tokenizer_config.json beside the
  // tokenizer) renders every conversation, checked against the family rule whose loss mask applies.
  options.chat_template = pack::find_model_chat_template(tokenizer_file);
  if (options.chat_template && !opt.quiet && !opt.json) {
    io.err << fmt::format("pack: chat template {}, checked against the {} rule on every conversation\n",
                          options.chat_template->source, pack::to_string(options.family));
  }
  pack::PackOutput output;
  output.dir = opt.out;
  const std::filesystem::path out_path(opt.out);
  output.name = opt.name.empty() ? out_path.filename().string() : opt.name;
  if (!opt.tokenizer_label.empty()) {
    output.tokenizer_label = opt.tokenizer_label;
  } else {
    // Named after the tokenizer's folder; a repo id names itself.
    std::error_code ec;
    const bool local = std::filesystem::exists(opt.tokenizer_path, ec);
    const std::filesystem::path t(tokenizer_file);
    const std::string parent = t.parent_path().filename().string();
    output.tokenizer_label = !local ? opt.tokenizer_path : parent.empty() ? t.filename().string() : parent;
  }
  // The shared progress report (util/progress.hpp): a bar on a terminal, lines otherwise.
  std::unique_ptr<util::Progress> bar;
  pack::ProgressSink progress = [&](int64_t done, int64_t total) {
    if (!bar) {
      bar = std::make_unique<util::Progress>(
          io.err, "pack", "rows", total, util::progress_style(util::stderr_is_terminal(), opt.quiet || opt.json));
    }
    bar->update(done);
    if (done == total) bar->finish();
  };
  // The recipe is read first: a bad recipe fails before anything is written.
  std::optional<recipe::LoadedRecipe> into;
  if (!opt.into.empty()) into = recipe::read_recipe_file(opt.into);
  const pack::PackManifest manifest = pack::write_pack(tokenizer, options, output, progress);
  if (into) write_build_into(manifest, opt.into);
  if (opt.json) {
    io.out << pack::render_manifest_json(manifest);
  } else {
    io.out << render_summary(manifest, opt.out);
  }
  return kExitOk;
}

}  // namespace

void add_pack_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<PackCliOptions>();
  command.add_option("--tokenizer", opt->tokenizer_path, "a tokenizer.json, a folder holding one, or a Hugging Face repo id in the cache")->required();
  command.add_option("--tokenizer-label", opt->tokenizer_label,
                     "what build.tokenizer calls the tokenizer (default: its folder's name)");
  command.add_option("--template", opt->family, "chat template and loss mask: glm5, qwen3, llama3, "
                                                "deepseek_v3")
      ->required();
  command.add_option("--input", opt->input, "conversations, one JSON object per line")->required();
  command.add_option("--row-tokens", opt->row_tokens, "tokens per row")->capture_default_str();
  command.add_option("--rows", opt->rows, "rows to build")->required();
  command.add_option("--seed", opt->seed, "seed of the conversation permutation (0 to 2^63 - 1)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, static_cast<uint64_t>(INT64_MAX)).description(""));  // the help says the range
  command.add_option("--out", opt->out, "output folder (replaced whole when complete)")->required();
  command.add_option("--name", opt->name, "the row set's name (default: the output folder's name)");
  command.add_option("--threads", opt->threads,
                     "tokenizer threads, 1 or more (default: all cores; more than the cores are clamped to them); the "
                     "output does not depend on it");
  command.add_option("--into", opt->into,
                     "write the manifest into this recipe's workload.dataset (build block and rows_sha256)");
  add_quiet_flag(command, opt->quiet);
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_pack(*opt, io); });
}

}  // namespace ladle::cli
