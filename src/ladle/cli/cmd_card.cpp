// cmd_card.cpp: `ladle card import CARD.yaml [--out DIR]` turns a Megatron-Bridge model
// verification card into recipes; `ladle card export RECIPE [--out FILE]` writes a recipe as a
// card of one leaf (card/card.hpp).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/card/card.hpp"
#include "ladle/card/card_json.hpp"
#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

struct ImportOptions {
  std::string card;
  std::string out_dir;
  bool json = false;
};

struct ExportOptions {
  std::string recipe;
  std::string out;
};

int run_import(const ImportOptions& o, Io& io) {
  const card::CardImport imported = card::import_card(util::read_file(o.card), o.card);
  if (!o.out_dir.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(o.out_dir, ec);
    if (ec) throw Error(ErrorKind::io, "cannot create folder: " + ec.message(), {o.out_dir});
    // Check every target first: a file there that holds anything else is the user's, never replaced.
    for (const card::CardRecipe& r : imported.recipes) {
      const std::string path = (fs::path(o.out_dir) / r.file_name).string();
      if (fs::exists(path) && util::read_file(path) != recipe::write_recipe(r.recipe)) {
        throw_usage("--out: '{}' exists and holds something else; ladle does not replace it (move it away)", path);
      }
    }
    for (const card::CardRecipe& r : imported.recipes) {
      recipe::write_recipe_file((fs::path(o.out_dir) / r.file_name).string(), r.recipe);
    }
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["card"] = o.card;
    j["title"] = imported.title;
    j["out"] = o.out_dir.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.out_dir);
    j["recipes"] = nlohmann::ordered_json::array();
    for (const card::CardRecipe& r : imported.recipes) j["recipes"].push_back(card::to_json(r));
    j["skipped"] = imported.skipped;
    io.out << j.dump(2) << "\n";
    return kExitOk;
  }
  std::string text = "card " + imported.title + ": " + std::to_string(imported.recipes.size()) + " recipe" +
                     (imported.recipes.size() == 1 ? "" : "s") + (o.out_dir.empty() ? "" : " written to " + o.out_dir) + "\n";
  for (const card::CardRecipe& r : imported.recipes) {
    text += "  " + r.file_name + ": " + r.task + " on " + std::to_string(r.recipe.gpu.count) + " x " + r.hardware + ", " +
            r.recipe.layout.label + ", " + util::format_grouped(r.recipe.result->tokens_per_s_per_gpu, 2) +
            " tokens/s per GPU; " + r.claim + "\n";
  }
  for (const std::string& s : imported.skipped) text += "  skipped " + s + "\n";
  if (o.out_dir.empty()) text += "(no --out: nothing written)\n";
  io.out << util::terminal_safe(text);
  return kExitOk;
}

int run_export(const ExportOptions& o, Io& io) {
  const recipe::LoadedRecipe loaded = resolve_recipe(o.recipe);
  const std::string card = card::export_card(loaded.recipe, loaded.path.empty() ? o.recipe : loaded.path);
  if (o.out.empty()) {
    io.out << card;
  } else {
    util::write_file_atomic(o.out, card);
    io.out << "wrote " << o.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_card_command(CLI::App& command, Io& io) {
  command.require_subcommand(1, 1);
  auto in = std::make_shared<ImportOptions>();
  CLI::App* import =
      command.add_subcommand("import", "turn a Megatron-Bridge verification card into recipes (one per task and GPU)");
  import->add_option("card", in->card, "the card.yaml")->required();
  import->add_option("--out", in->out_dir, "folder to write the recipes into (created; existing other files kept)");
  add_json_flag(*import, in->json);
  import->callback([in, &io] { io.exit_code = run_import(*in, io); });
  auto ex = std::make_shared<ExportOptions>();
  CLI::App* exp = command.add_subcommand("export", "write a recipe as a Megatron-Bridge verification card (one leaf)");
  exp->add_option("recipe", ex->recipe, "recipe file or catalog name")->required();
  exp->add_option("--out", ex->out, "file to write the card into (default: standard output)");
  exp->callback([ex, &io] { io.exit_code = run_export(*ex, io); });
}

}  // namespace ladle::cli
