// cmd_site.cpp: `ladle site`, writes the static site of a recipe catalog (index, a page per recipe
// and per model, inline SVG charts) into a folder, replacing the pages of an old site there.
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/site/site.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/site/site_loader.hpp"
#include "ladle/tune/tune_db.hpp"

namespace ladle::cli {
namespace {

struct SiteOptions {
  std::string recipes_dir;
  std::string out_dir;
  bool json = false;
};

std::string render_site_json(const site::SiteCatalog& catalog, const std::vector<site::SiteFile>& files,
                             const std::string& out_dir) {
  nlohmann::ordered_json j;
  j["out"] = out_dir;
  j["recipes"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < catalog.recipes.size(); ++i) {
    const Recipe& r = catalog.recipes[i].recipe;
    nlohmann::ordered_json item;
    item["model"] = r.model;
    item["gpu"] = r.gpu.type;
    item["gpu_count"] = r.gpu.count;
    item["layout"] = r.layout.label;
    item["status"] = r.status;
    item["tokens_per_s_per_gpu"] = r.result ? nlohmann::ordered_json(r.result->tokens_per_s_per_gpu) : nullptr;
    item["page"] = catalog.paths[i].page;
    item["yaml"] = catalog.paths[i].yaml;
    item["model_page"] = catalog.paths[i].model_page;
    item["loss_chart"] = !catalog.recipes[i].reference_loss.empty() && !catalog.recipes[i].candidate_loss.empty();
    item["step_time_chart"] = !catalog.recipes[i].step_time_s.empty();
    item["predicted_tokens_per_s_per_gpu"] = catalog.recipes[i].prediction
                                                 ? nlohmann::ordered_json(catalog.recipes[i].prediction->tokens_per_s_per_gpu)
                                                 : nullptr;
    item["tune_trials"] = catalog.recipes[i].trials.size();
    j["recipes"].push_back(std::move(item));
  }
  j["models"] = nlohmann::ordered_json::array();
  for (const std::string& model : catalog.models) {
    j["models"].push_back({{"name", model}, {"page", catalog.model_page(model)}});
  }
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

int run_site(const SiteOptions& opt, Io& io) {
  const bool embedded = opt.recipes_dir.empty();
  const std::vector<recipe::LoadedRecipe> loaded =
      embedded ? recipe::load_embedded_catalog() : recipe::load_catalog_dir(opt.recipes_dir);
  const site::SiteCatalog catalog =
      site::make_site_catalog(site::load_site_recipes(loaded, {embedded, opt.recipes_dir}, read_tune_trials));
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
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_site(*opt, io); });
}

}  // namespace ladle::cli
