// cmd_calibrate.cpp: `ladle calibrate`, fits the time model's free constants to measured recipes.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> recipes;
  std::string out;
  std::string prior;
  bool json = false;
};

int run_calibrate(const CalibrateOptions& o, Io& io) {
  std::vector<recipe::LoadedRecipe> loaded;
  if (o.recipes.empty()) {
    for (recipe::LoadedRecipe& r : recipe::load_embedded_catalog()) {
      if (r.recipe.result) loaded.push_back(std::move(r));
    }
  } else {
    for (const std::string& name : o.recipes) loaded.push_back(recipe::find_recipe(name));
  }
  std::vector<plan::Measurement> measurements;
  for (const recipe::LoadedRecipe& r : loaded) measurements.push_back(plan::measurement_from_recipe(r));
  // Fit from the built-in priors (not from a previous fit), so that refitting is reproducible.
  const plan::Calibration prior = o.prior.empty() ? plan::Calibration{} : plan::read_calibration_file(o.prior);
  plan::CalibrationFit fit = plan::fit_calibration(measurements, prior);
  fit.calibration.fitted_note =
      "fitted by `ladle calibrate` from the built-in priors: least squares on log(predicted / measured) "
      "tokens/s per GPU over the recipes above, with a weak pull to the priors, Nelder-Mead in log space";
  io.out << (o.json ? plan::fit_json(fit) : plan::render_fit(fit));
  if (!o.out.empty()) {
    util::write_file_atomic(
        o.out, plan::write_calibration(
                   fit.calibration,
                   {"Calibration of ladle's time model, written by `ladle calibrate`.",
                    "Fitted constants are achieved fractions of published peaks and a few fixed costs; fixed",
                    "ones come from public measurements named beside them. Refit: ladle calibrate --out FILE"}));
    if (!o.json) io.out << "\nwrote " << o.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<CalibrateOptions>();
  command.add_option("recipes", options->recipes, "measured recipes (files or catalog names); default: the catalog");
  command.add_option("--out", options->out, "write the fitted calibration YAML here");
  command.add_option("--prior", options->prior, "calibration YAML to start from (default: built-in priors)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_calibrate(*options, io); });
}

}  // namespace ladle::cli
