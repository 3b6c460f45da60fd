// cmd_calibrate.cpp: `ladle calibrate`, fits the time model's free constants to measured recipes.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/measurements.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> recipes;
  std::vector<std::string> measurements;
  std::string out;
  std::string prior;
  bool json = false;
};

int run_calibrate(const CalibrateOptions& o, Io& io) {
  // With no arguments: the embedded public training set (data/measurements/, the catalog's
  // measured recipes included); otherwise the recipes and measurement files given.
  std::vector<plan::Measurement> measurements;
  if (o.recipes.empty() && o.measurements.empty()) {
    measurements = plan::embedded_measurements().runs;
  } else {
    for (const std::string& name : o.recipes) {
      measurements.push_back(plan::measurement_from_recipe(recipe::find_recipe(name)));
    }
    plan::MeasurementSet set;
    for (const std::string& path : o.measurements) plan::merge_measurements(set, plan::read_measurements_path(path));
    for (plan::Measurement& m : set.runs) measurements.push_back(std::move(m));
  }
  // Fit from the built-in priors (not from a previous fit), so that refitting is reproducible.
  const plan::Calibration prior = o.prior.empty() ? plan::Calibration{} : plan::read_calibration_file(o.prior);
  plan::CalibrationFit fit = plan::fit_calibration(measurements, prior);
  fit.calibration.fitted_note =
      "fitted by `ladle calibrate` from the built-in priors: bounded least squares on log(predicted / measured) "
      "tokens/s per GPU over the runs above, with a weak pull to the priors (NLopt BOBYQA in log space); the "
      "interval half-width from the leave-one-source-out residuals";
  io.out << (o.json ? plan::fit_json(fit) : plan::render_fit(fit));
  if (!o.out.empty()) {
    util::write_file_atomic(
        o.out, plan::write_calibration(
                   fit.calibration,
                   {"Calibration of ladle's time model, written by `ladle calibrate` on the public training set",
                    "of data/measurements/. Fitted constants are dimensionless fractions of published peaks and",
                    "one host overhead, each within a physical range; fixed ones come from public measurements",
                    "named beside them. Refit: ladle calibrate --out data/calibration.yaml"}));
    if (!o.json) io.out << "\nwrote " << o.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<CalibrateOptions>();
  command.add_option("recipes", options->recipes,
                     "measured recipes (files or catalog names); default: the embedded training set");
  command.add_option("--measurements", options->measurements,
                     "measurement files or folders (data/measurements format) to fit on");
  command.add_option("--out", options->out, "write the fitted calibration YAML here");
  command.add_option("--prior", options->prior, "calibration YAML to start from (default: built-in priors)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_calibrate(*options, io); });
}

}  // namespace ladle::cli
