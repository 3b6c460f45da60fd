#pragma once
// Charts drawn as inline SVG: horizontal bar charts (one group per category, one bar per series)
// and line charts (one line per series over a numeric x axis). Each chart comes out as a <figure>
// holding the SVG (role="img" with <title> and <desc>), visible axes, ticks, tick labels, axis
// labels with units, a legend and a title, followed by the data as a table in a <details>, which is
// the text alternative a screen reader or a reader without SVG can use. Output is deterministic.

#include <optional>
#include <string>
#include <vector>

namespace ladle::site {

/// One series of a bar chart: a value (or none) per category, in category order.
struct BarSeries {
  std::string name;                         ///< legend text, e.g. "measured"
  std::vector<std::optional<double>> values;  ///< one per category; nullopt draws no bar
  bool operator==(const BarSeries&) const = default;
};

struct BarChart {
  std::string id;           ///< unique within the page; [a-z0-9-] (used for element ids)
  std::string title;        ///< e.g. "Tokens/s per GPU by layout"
  std::string description;  ///< one or two sentences for the text alternative
  std::string value_label;  ///< axis label with its unit, e.g. "tokens/s per GPU"
  std::string value_prefix;  ///< printed before values, e.g. "$"
  int decimals = 0;          ///< decimals of value labels
  std::vector<std::string> categories;  ///< one group of bars each, top to bottom
  std::vector<BarSeries> series;
  /// A value drawn as a labelled vertical line across every group, e.g. the GPU's usable memory;
  /// the value axis always reaches it.
  std::optional<double> limit;
  std::string limit_label;  ///< legend and data-table text of the line, e.g. "usable HBM, 133.4 GiB"
  bool operator==(const BarChart&) const = default;
};

struct LinePoint {
  double x = 0;
  double y = 0;
  bool operator==(const LinePoint&) const = default;
};

struct LineSeries {
  std::string name;
  std::vector<LinePoint> points;  ///< in x order
  /// An interval around the line: its low and high ends at the same x values as `points` (both
  /// empty: none), drawn as a shaded band and listed in the data table.
  std::vector<LinePoint> low;
  std::vector<LinePoint> high;
  bool markers_only = false;  ///< points with no line between them (measurements, not a curve)
  bool operator==(const LineSeries&) const = default;
};

/// A shaded x range with a label, e.g. the measured window of a run.
struct XBand {
  double from = 0;
  double to = 0;
  std::string label;
  bool operator==(const XBand&) const = default;
};

struct LineChart {
  std::string id;
  std::string title;
  std::string description;
  std::string x_label;  ///< with unit, e.g. "step"
  std::string y_label;  ///< with unit, e.g. "loss" or "step time (s)"
  int y_decimals = 2;   ///< decimals of y values in the data table
  std::vector<LineSeries> series;
  std::optional<XBand> band;
  /// x on a base-2 logarithmic axis with a tick at each power of two (GPU counts); every x > 0.
  bool x_log2 = false;
  bool operator==(const LineChart&) const = default;
};

/// About `target` round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten),
/// from the last tick at or below lo to the first at or above hi. lo == hi gives one tick each side.
std::vector<double> nice_ticks(double lo, double hi, int target);

/// The chart as a <figure> element (see the file comment). Throws nothing; an empty chart says so.
std::string render_bar_chart(const BarChart& chart);

/// The chart as a <figure> element (see the file comment).
std::string render_line_chart(const LineChart& chart);

}  // namespace ladle::site
