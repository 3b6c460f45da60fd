// cmd_site.cpp: `ladle site`, writes the static site of a recipe catalog (index, a page per recipe
// and per model, inline SVG charts) into a folder, replacing the pages of an old site there.
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <ostream>

#include "ladle/card/card.hpp"
#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/site/site.hpp"
#include "ladle/site/site_json.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/site/site_loader.hpp"
#include "ladle/tune/tune_db.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

struct SiteOptions {
  std::string recipes_dir;
  std::string out_dir;
  std::string cards_dir;  // Megatron-Bridge verification cards shown beside the catalog
  std::string sweep = "default";  // GPU counts of each model page's sweep, or "none"
  bool json = false;
};

// --sweep: "default" (powers of two to 512), "none", or a comma-separated list of GPU counts.
std::vector<int64_t> parse_sweep(const std::string& text) {
  if (text == "default") return site::default_sweep_counts();
  if (text == "none") return {};
  std::vector<int64_t> out;
  for (const std::string& part : util::split(text, ',')) {
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
    if (ec != std::errc() || end != part.data() + part.size() || n < 1 || n > limits::kMaxGpus) {
      throw_usage("--sweep: expected 'default', 'none' or GPU counts 1 to {} separated by commas, got '{}'",
                  limits::kMaxGpus, text);
    }
    out.push_back(n);
  }
  return out;
}

std::string render_site_json(const site::SiteCatalog& catalog, const std::vector<site::SiteFile>& files,
                             const std::string& out_dir) {
  nlohmann::ordered_json j;
  j["out"] = out_dir;
  j.update(site::to_json(catalog));
  j["files"] = nlohmann::ordered_json::array();
  for (const site::SiteFile& f : files) j["files"].push_back(f.path);
  return j.dump(2) + "\n";
}

// The trials of a tuning run, from its database, as a tuned recipe's page shows them.
std::vector<site::SiteTrial> read_tune_trials(const std::string& db_path) {
  std::vector<site::SiteTrial> out;
  for (const tune::Trial& t : tune::TuneDb::open(db_path).trials()) {
    out.push_back({t.id, t.round, tune::to_string(t.kind), layout::layout_label(layout::parse_layout_spec(t.layout)),
                   tune::to_string(t.state), t.predicted_tokens_per_s_per_gpu, t.measured_tokens_per_s_per_gpu});
  }
  return out;
}

// The recipes of every card (*.yaml) in `dir`, in file-name order, labelled as imported cards.
std::vector<site::SiteRecipe> card_recipes(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw_usage("--cards: '{}' is not a folder", dir);
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) files.push_back(it->path().string());
  }
  if (ec) throw Error(ErrorKind::io, "cannot read: " + ec.message(), {dir});
  std::sort(files.begin(), files.end());
  std::vector<site::SiteRecipe> out;
  for (const std::string& file : files) {
    for (card::CardRecipe& r : card::import_card(util::read_file(file), file).recipes) {
      site::SiteRecipe item;
      item.source_path = "recipes/cards/" + r.file_name;
      item.yaml = recipe::write_recipe(r.recipe);
      item.card_source = fs::path(file).filename().string() + ", item " + r.task + "." + r.hardware + " (" + r.claim + ")";
      item.recipe = std::move(r.recipe);
      out.push_back(std::move(item));
    }
  }
  return out;
}

int run_site(const SiteOptions& opt, Io& io) {
  const bool embedded = opt.recipes_dir.empty();
  const std::vector<recipe::LoadedRecipe> loaded =
      embedded ? recipe::load_embedded_catalog() : recipe::load_catalog_dir(opt.recipes_dir);
  const std::vector<int64_t> sweep = parse_sweep(opt.sweep);
  std::vector<site::SiteRecipe> recipes = site::load_site_recipes(loaded, {embedded, opt.recipes_dir}, read_tune_trials);
  if (!opt.cards_dir.empty()) {
    for (site::SiteRecipe& card : card_recipes(opt.cards_dir)) recipes.push_back(std::move(card));
  }
  site::SiteCatalog catalog = site::make_site_catalog(std::move(recipes));
  if (!sweep.empty()) catalog.sweeps = site::sweep_models(loaded, sweep);
  const std::vector<site::SiteFile> files = site::build_site(catalog);
  site::write_site(files, opt.out_dir);
  if (opt.json) {
    io.out << render_site_json(catalog, files, opt.out_dir);
  } else {
    io.out << "wrote " << files.size() << " files to " << opt.out_dir << ": " << catalog.recipes.size()
           << " recipe pages, " << catalog.models.size() << " model pages, index.html\n";
  }
  return kExitOk;
}

}  // namespace

void add_site_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<SiteOptions>();
  command.add_option("--recipes", opt->recipes_dir, "read the catalog from this folder instead of the embedded one");
  command.add_option("--out", opt->out_dir, "folder to write the site into; an old site's pages there are replaced, files you added kept")
      ->required();
  command.add_option("--cards", opt->cards_dir,
                     "a folder of Megatron-Bridge verification cards (*.yaml) to show beside the catalog, labelled "
                     "as imported cards");
  command.add_option("--sweep", opt->sweep,
                     "GPU counts each model page's planner sweep covers: 'default' (1 to 512, powers of two), "
                     "'none', or counts such as 8,16,32")
      ->capture_default_str();
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_site(*opt, io); });
}

}  // namespace ladle::cli
