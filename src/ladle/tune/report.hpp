#pragma once
// report.hpp: what a tuning run shows: DIR/report.md (rounds, trials predicted against measured,
// the calibration's movement, GPU-hours, the winner) with DIR/chart.svg (predicted and measured
// tokens/s per GPU of every trial, and the best so far), and the `tune status` table and JSON.

#include <string>

#include "ladle/tune/tune_db.hpp"
#include "ladle/tune/tuner.hpp"

namespace ladle::tune {

/// The report's Markdown.
std::string render_report(const TuneDb& db, const TuneSettings& settings,
                          const std::string& recipe_path);
/// The chart as a standalone SVG document.
std::string render_chart_svg(const TuneDb& db);
/// Writes DIR/report.md and DIR/chart.svg atomically.
void write_report(const TuneDb& db, const TuneSettings& settings, const std::string& recipe_path);

}  // namespace ladle::tune
