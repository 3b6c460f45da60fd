// report_json.hpp: the JSON form of the planner's value types, as `ladle predict --json`, `ladle
// plan --json` and `ladle calibrate --json` print them (key order is the output order; figures
// rounded to fixed decimals so that the output is byte-stable). report_render composes them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/plan/search.hpp"

namespace ladle::plan {

/// What a report is about: model, GPU, GPU count, instance, workload, precision, calibration, and
/// (when present) the GEMM-rate fallback, unpriced arguments, chosen values and value sources.
nlohmann::ordered_json to_json(const ReportHeader& header);

/// A layout: its spec, its label, and the knobs the spec always writes (full recompute's method and
/// layers with it) and every other one away from its default, with typed values.
nlohmann::ordered_json to_json(const Layout& layout);

/// Parts as one object, each name as a snake_case key ("EP all-to-all" -> "ep_all_to_all"),
/// values rounded to `decimals`.
nlohmann::ordered_json parts_json(const std::vector<Part>& parts, int decimals);

/// One pipeline stage's memory, GiB, with its parts.
nlohmann::ordered_json to_json(const StageMemory& stage);

/// A prediction: layout, the engine's launch arguments when `header` gives them (null with the
/// reason when the engine does not run the layout), throughput, cost, memory by stage, step-time
/// parts.
nlohmann::ordered_json to_json(const Prediction& prediction, const ReportHeader& header);

/// A layout the plan rejected, with its speed and why.
nlohmann::ordered_json to_json(const Rejected& rejected);

/// A watched layout: where the search left it and its rank.
nlohmann::ordered_json to_json(const WatchResult& watched);

/// The plan's counts, top layouts (each with its same-speed count), best rejected and watched
/// layouts; `header` gives the top layouts' launch arguments.
nlohmann::ordered_json to_json(const PlanReport& report, const ReportHeader& header);

/// One GPU count of a sweep; its best layout without launch arguments (they depend on the count).
nlohmann::ordered_json to_json(const SweepPoint& point);

/// One calibration run: measured, fitted, leave-one-out and leave-one-source-out predictions.
nlohmann::ordered_json to_json(const FitRow& row);

/// One source's leave-one-source-out errors.
nlohmann::ordered_json to_json(const SourceFit& source);

/// A calibration fit: rows, sources, summary errors, constants with ranges and intervals, the
/// covariance and the memory fit.
nlohmann::ordered_json to_json(const CalibrationFit& fit);

/// What `plan --json` and `plan --rl --json` print when no layout fits: the question asked (model,
/// GPU, GPU count), `fits: false`, and the reason, which names the limit that binds.
nlohmann::ordered_json no_fit_json(std::string_view model, std::string_view gpu, int64_t gpus,
                                   std::string_view reason);

}  // namespace ladle::plan
