#include "ladle/site/site_loader.hpp"

#include <filesystem>
#include <optional>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/predicted_block.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/site/html.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::site {
namespace fs = std::filesystem;
namespace {

// The text of a file named relative to the recipe, from the same place the recipe came from.
// Whether `path` stays inside `root` (lexically and after symbolic links are followed).
bool inside(const fs::path& root, const fs::path& path) {
  const auto below = [](const fs::path& base, const fs::path& p) {
    const fs::path rel = p.lexically_relative(base);
    return !rel.empty() && *rel.begin() != "..";
  };
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  const fs::path real_path = fs::weakly_canonical(path, ec);
  return below(root.lexically_normal(), path) && !ec && below(real_root, real_path);
}

std::optional<std::string> read_beside(const recipe::LoadedRecipe& loaded, const std::string& relative,
                                       const CatalogSource& source, const std::string& field) {
  const fs::path path = (fs::path(loaded.path).parent_path() / relative).lexically_normal();
  // A published site shows the logs it reads: only files inside the catalog folder are read.
  const fs::path root = source.embedded ? fs::path(loaded.path).parent_path() : fs::path(source.dir);
  if (fs::path(relative).is_absolute() || (!source.embedded && !inside(root, path))) {
    throw_input(loaded.where.at(field), "log '{}' is outside the recipes folder '{}'; a site publishes only "
                "logs inside it, named relative to the recipe", relative, root.string());
  }
  if (source.embedded) {
    const auto bytes = util::find_embedded(path.generic_string());
    if (!bytes) return std::nullopt;
    return std::string(*bytes);
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  return util::read_file(path.string(), limits::FileKind::any);
}

std::optional<runlog::RunLog> read_arm(const recipe::LoadedRecipe& loaded, const std::optional<std::string>& log,
                                       const std::string& field, const CatalogSource& source) {
  if (!log || log->empty() || safe_link_url(*log)) return std::nullopt;
  const auto text = read_beside(loaded, *log, source, field);
  if (!text) {
    throw_input(loaded.where.at(field), "cannot read log '{}' (relative to the recipe's folder)", *log);
  }
  const std::string name = (fs::path(loaded.path).parent_path() / *log).lexically_normal().generic_string();
  return runlog::read_log(*text, name);
}

std::vector<LinePoint> loss_series(const runlog::RunLog& log) {
  std::vector<LinePoint> out;
  for (const Step& s : log.steps) {
    if (s.loss) out.push_back({static_cast<double>(s.step), *s.loss});
  }
  return out;
}

std::vector<LinePoint> step_time_series(const runlog::RunLog& log) {
  std::vector<LinePoint> out;
  for (const Step& s : log.steps) {
    if (s.step_time_s) out.push_back({static_cast<double>(s.step), *s.step_time_s});
  }
  return out;
}

// What the planner predicts for a measured recipe's layout today; none when it cannot price it
// (a model or GPU the catalog does not know, a layout it rejects): the page then shows no
// prediction rather than failing the site.
std::optional<Predicted> recompute_prediction(const recipe::LoadedRecipe& item) {
  try {
    const plan::Calibration& calibration = plan::default_calibration();
    const plan::Measurement m = plan::measurement_from_recipe(item);
    const Prediction p = plan::predict(m.costs, m.model, m.layout, m.cluster, m.workload, calibration);
    return plan::predicted_block(p, calibration);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<SiteRecipe> load_site_recipes(const std::vector<recipe::LoadedRecipe>& loaded,
                                          const CatalogSource& source, const TrialReader& read_trials) {
  std::vector<SiteRecipe> out;
  for (const recipe::LoadedRecipe& item : loaded) {
    SiteRecipe site;
    site.recipe = item.recipe;
    if (source.embedded) {
      site.source_path = item.path;
      const auto bytes = util::find_embedded(item.path);
      site.yaml = bytes ? std::string(*bytes) : recipe::write_recipe(item.recipe);
    } else {
      // Name pages by the path inside the catalog folder, whatever the folder is called.
      std::string dir = source.dir;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      const std::string relative = fs::path(item.path).lexically_relative(dir).generic_string();
      site.source_path = "recipes/" + (relative.empty() || relative.starts_with("..")
                                           ? fs::path(item.path).filename().generic_string()
                                           : relative);
      site.yaml = item.path.empty() ? recipe::write_recipe(item.recipe) : util::read_file(item.path);
    }
    if (item.recipe.correctness && item.recipe.correctness->convergence) {
      const Convergence& c = *item.recipe.correctness->convergence;
      const auto reference = read_arm(item, c.reference_log, "correctness.convergence.reference_log", source);
      const auto candidate = read_arm(item, c.candidate_log, "correctness.convergence.candidate_log", source);
      if (reference) site.reference_loss = loss_series(*reference);
      if (candidate) {
        site.candidate_loss = loss_series(*candidate);
        site.step_time_s = step_time_series(*candidate);
      }
    }
    site.prediction = item.recipe.predicted;
    if (!site.prediction && item.recipe.result) {
      site.prediction = recompute_prediction(item);
      site.prediction_recomputed = site.prediction.has_value();
    }
    if (read_trials && !source.embedded && !item.path.empty()) {
      const fs::path db = fs::path(item.path).parent_path() / kTuneDbName;
      std::error_code ec;
      if (fs::is_regular_file(db, ec)) site.trials = read_trials(db.string());
    }
    out.push_back(std::move(site));
  }
  return out;
}

}  // namespace ladle::site
