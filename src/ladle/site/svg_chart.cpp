#include "ladle/site/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "ladle/site/html.hpp"
#include "ladle/util/text.hpp"

namespace ladle::site {
namespace {

constexpr double kWidth = 640;
constexpr double kTitleY = 22;
constexpr double kLegendY = 44;
constexpr double kPlotTop = 64;
constexpr double kAxisBottom = 52;  // room under the plot for tick labels and the axis label
constexpr double kCharWidth = 6.6;  // average width of a 12px sans-serif character
constexpr double kBarHeight = 18;
constexpr double kBarGap = 3;
constexpr double kGroupGap = 14;
constexpr double kValueRoom = 84;  // right of the longest bar, for its value label
constexpr size_t kMaxLabelChars = 34;
constexpr size_t kMaxMarkers = 60;  // above this many points a line has no dots
constexpr int kBarTicks = 5;
constexpr int kLineXTicks = 6;
constexpr int kLineYTicks = 5;
constexpr double kLineHeight = 330;
constexpr double kLineLeft = 70;
constexpr double kLineRight = 24;

// Colour and dash per series: colour is never the only difference between two series.
constexpr const char* kColors[] = {"#1f5fa8", "#c4561d", "#2f8a4a", "#7a4fa3"};
constexpr const char* kDashes[] = {"", "7 4", "2 3", "9 3 2 3"};
constexpr size_t kPalette = 4;

std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s == "-0.0") s = "0.0";
  return s;
}

int decimals_for_step(double step) {
  if (step <= 0 || step >= 1) return 0;
  return static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
}

std::string format_value(double v, int decimals) {
  std::string s = util::format_grouped(v, decimals);
  if (s.starts_with("-") && s.find_first_not_of("-0.,") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string clip_label(const std::string& label) {
  if (label.size() <= kMaxLabelChars) return label;
  size_t cut = kMaxLabelChars - 1;
  // Never cut inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;
  return label.substr(0, cut) + "\u2026";
}

std::string svg_open(const std::string& id, double height, const std::string& title,
                     const std::string& desc) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" "
      "height=\"{h}\" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" "
      "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" font-size=\"12\">\n"
      "<title id=\"{id}-title\">{title}</title>\n<desc id=\"{id}-desc\">{desc}</desc>\n"
      "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n"
      "<text x=\"12\" y=\"{ty}\" font-size=\"15\" font-weight=\"600\" fill=\"#111111\">{title}</text>\n",
      fmt::arg("w", num(kWidth)), fmt::arg("h", num(height)), fmt::arg("id", id),
      fmt::arg("title", escape_html(title)), fmt::arg("desc", escape_html(desc)),
      fmt::arg("ty", num(kTitleY)));
}

// One entry of a legend: a bar swatch, a line (with the series' dash), a square marker, a shaded
// band, or a dashed limit line.
enum class Key { bar, line, marker, band, limit };
struct LegendItem {
  std::string name;
  Key key = Key::bar;
  size_t series = 0;  // palette index
};

constexpr const char* kLimitColor = "#b3261e";
constexpr const char* kLimitDash = "5 3";
constexpr double kBandOpacity = 0.16;

// The legend row under the title; returns the SVG elements.
std::string legend(std::span<const LegendItem> items) {
  std::string out = "<g class=\"legend\">\n";
  double x = 12;
  for (const LegendItem& item : items) {
    const char* color = kColors[item.series % kPalette];
    const char* dash = kDashes[item.series % kPalette];
    switch (item.key) {
      case Key::line:
        out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"{}/>\n",
                           num(x), num(kLegendY - 4), num(x + 22), num(kLegendY - 4), color,
                           *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "");
        x += 28;
        break;
      case Key::limit:
        out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\" "
                           "stroke-dasharray=\"{}\"/>\n",
                           num(x), num(kLegendY - 4), num(x + 22), num(kLegendY - 4), kLimitColor, kLimitDash);
        x += 28;
        break;
      case Key::marker:
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"9\" height=\"9\" fill=\"{}\" stroke=\"#111111\"/>\n",
                           num(x + 1), num(kLegendY - 9), color);
        x += 16;
        break;
      case Key::band:
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\" fill-opacity=\"{}\" "
                           "stroke=\"{}\"/>\n",
                           num(x), num(kLegendY - 10), color, kBandOpacity * 2, color);
        x += 18;
        break;
      case Key::bar:
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", num(x),
                           num(kLegendY - 10), color);
        x += 18;
        break;
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#222222\">{}</text>\n", num(x), num(kLegendY),
                       escape_html(item.name));
    x += static_cast<double>(item.name.size()) * kCharWidth + 20;
  }
  return out + "</g>\n";
}

std::string data_table(const std::string& title, std::span<const std::string> header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<figcaption><details><summary>Data: " + escape_html(title) +
                    "</summary>\n<table class=\"chart-data\"><thead><tr>";
  for (const std::string& h : header) out += "<th scope=\"col\">" + escape_html(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      out += i == 0 ? "<th scope=\"row\">" + escape_html(row[i]) + "</th>"
                    : "<td>" + escape_html(row[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></details></figcaption>\n";
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (hi < lo) std::swap(lo, hi);
  target = std::max(target, 1);
  double range = hi - lo;
  if (range <= 0) range = lo == 0 ? 1 : std::fabs(lo) * 0.1;
  const double rough = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  const double normalized = rough / magnitude;
  double step = 10 * magnitude;
  if (normalized <= 1) {
    step = magnitude;
  } else if (normalized <= 2) {
    step = 2 * magnitude;
  } else if (normalized <= 5) {
    step = 5 * magnitude;
  }
  const double first = std::floor(lo / step + 1e-9);
  double last = std::ceil(hi / step - 1e-9);
  if (last <= first) last = first + 1;
  std::vector<double> ticks;
  for (double i = first; i <= last + 1e-9; i += 1) {
    // Multiply rather than accumulate so 0.1 steps stay exact in print.
    const double v = i * step;
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string render_bar_chart(const BarChart& chart) {
  const size_t n_series = std::max<size_t>(chart.series.size(), 1);
  double max_value = 0;
  size_t longest = 0;
  for (const std::string& c : chart.categories) {
    longest = std::max(longest, std::min(c.size(), kMaxLabelChars));
  }
  for (const BarSeries& s : chart.series) {
    for (const auto& v : s.values) {
      if (v && std::isfinite(*v)) max_value = std::max(max_value, *v);
    }
  }
  const bool has_limit = chart.limit && std::isfinite(*chart.limit) && *chart.limit > 0;
  if (has_limit) max_value = std::max(max_value, *chart.limit);
  const std::vector<double> ticks = nice_ticks(0, max_value, kBarTicks);
  const double scale_max = ticks.back();
  const int tick_decimals = decimals_for_step(ticks.size() > 1 ? ticks[1] - ticks[0] : 1);
  const double plot_left = std::clamp(static_cast<double>(longest) * kCharWidth + 16, 90.0, 250.0);
  const double plot_right = kWidth - kValueRoom;
  const double group_height =
      static_cast<double>(n_series) * kBarHeight + static_cast<double>(n_series - 1) * kBarGap;
  const double plot_height =
      std::max<double>(1, static_cast<double>(chart.categories.size())) * (group_height + kGroupGap);
  const double height = kPlotTop + plot_height + kAxisBottom;
  auto x_of = [&](double v) { return plot_left + (plot_right - plot_left) * v / scale_max; };

  // The text alternative: the description, then every value in words.
  std::string desc = chart.description;
  std::vector<std::vector<std::string>> rows;
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    std::vector<std::string> row{chart.categories[c]};
    for (const BarSeries& s : chart.series) {
      const auto v = c < s.values.size() ? s.values[c] : std::nullopt;
      const std::string text = v ? chart.value_prefix + format_value(*v, chart.decimals) : "no data";
      row.push_back(text);
      desc += fmt::format(" {} ({}): {}.", chart.categories[c], s.name, text);
    }
    rows.push_back(std::move(row));
  }
  if (has_limit) {
    desc += fmt::format(" Line: {}.", chart.limit_label);
    std::vector<std::string> row{chart.limit_label, chart.value_prefix + format_value(*chart.limit, chart.decimals)};
    row.resize(chart.series.size() + 1);
    rows.push_back(std::move(row));
  }

  std::string svg = svg_open(chart.id, height, chart.title, desc);
  std::vector<LegendItem> items;
  for (size_t i = 0; i < chart.series.size(); ++i) items.push_back({chart.series[i].name, Key::bar, i});
  if (has_limit) items.push_back({chart.limit_label, Key::limit, 0});
  svg += legend(items);

  // Grid, ticks and tick labels along the value axis.
  const double axis_y = kPlotTop + plot_height;
  svg += "<g class=\"axis\" fill=\"#444444\" text-anchor=\"middle\">\n";
  for (const double t : ticks) {
    const double x = x_of(t);
    svg += fmt::format(
        "<line x1=\"{x}\" y1=\"{top}\" x2=\"{x}\" y2=\"{bottom}\" stroke=\"#e3e3e3\"/>\n"
        "<line x1=\"{x}\" y1=\"{bottom}\" x2=\"{x}\" y2=\"{tick}\" stroke=\"#444444\"/>\n"
        "<text x=\"{x}\" y=\"{label}\">{text}</text>\n",
        fmt::arg("x", num(x)), fmt::arg("top", num(kPlotTop - 4)), fmt::arg("bottom", num(axis_y)),
        fmt::arg("tick", num(axis_y + 5)), fmt::arg("label", num(axis_y + 18)),
        fmt::arg("text", escape_html(chart.value_prefix + format_value(t, tick_decimals))));
  }
  svg += fmt::format(
      "<line x1=\"{l}\" y1=\"{y}\" x2=\"{r}\" y2=\"{y}\" stroke=\"#444444\"/>\n"
      "<line x1=\"{l}\" y1=\"{top}\" x2=\"{l}\" y2=\"{y}\" stroke=\"#444444\"/>\n"
      "<text x=\"{mid}\" y=\"{label}\" fill=\"#222222\">{text}</text>\n</g>\n",
      fmt::arg("l", num(plot_left)), fmt::arg("r", num(x_of(scale_max))), fmt::arg("y", num(axis_y)),
      fmt::arg("top", num(kPlotTop - 4)), fmt::arg("mid", num((plot_left + plot_right) / 2)),
      fmt::arg("label", num(axis_y + 40)), fmt::arg("text", escape_html(chart.value_label)));

  // Bars, with the category label on the left and the value at the end of each bar.
  svg += "<g class=\"bars\">\n";
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    const double group_top = kPlotTop + static_cast<double>(c) * (group_height + kGroupGap) + kGroupGap / 2;
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#222222\"><title>{}</title>{}</text>\n",
        num(plot_left - 8), num(group_top + group_height / 2 + 4), escape_html(chart.categories[c]),
        escape_html(clip_label(chart.categories[c])));
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const BarSeries& series = chart.series[s];
      const double y = group_top + static_cast<double>(s) * (kBarHeight + kBarGap);
      const auto v = c < series.values.size() ? series.values[c] : std::nullopt;
      if (!v || !std::isfinite(*v)) {
        svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#666666\" font-style=\"italic\">no data</text>\n",
                           num(plot_left + 6), num(y + kBarHeight - 5));
        continue;
      }
      const double w = std::max(0.0, x_of(std::max(0.0, *v)) - plot_left);
      const std::string text = chart.value_prefix + format_value(*v, chart.decimals);
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {} ({})</title></rect>\n"
          "<text x=\"{}\" y=\"{}\" fill=\"#111111\">{}</text>\n",
          num(plot_left), num(y), num(w), num(kBarHeight), kColors[s % kPalette],
          escape_html(chart.categories[c]), escape_html(text), escape_html(series.name),
          num(plot_left + w + 5), num(y + kBarHeight - 5), escape_html(text));
    }
  }
  svg += "</g>\n";
  if (has_limit) {
    svg += fmt::format(
        "<line class=\"limit\" x1=\"{x}\" y1=\"{top}\" x2=\"{x}\" y2=\"{bottom}\" stroke=\"{c}\" stroke-width=\"2\" "
        "stroke-dasharray=\"{d}\"><title>{t}</title></line>\n",
        fmt::arg("x", num(x_of(*chart.limit))), fmt::arg("top", num(kPlotTop - 4)), fmt::arg("bottom", num(axis_y)),
        fmt::arg("c", kLimitColor), fmt::arg("d", kLimitDash), fmt::arg("t", escape_html(chart.limit_label)));
  }
  svg += "</svg>\n";

  std::vector<std::string> header{"category"};
  for (const BarSeries& s : chart.series) header.push_back(s.name + " (" + chart.value_label + ")");
  return "<figure class=\"chart\" id=\"" + escape_html(chart.id) + "\">\n" + svg +
         data_table(chart.title, header, rows) + "</figure>\n";
}

std::string render_line_chart(const LineChart& chart) {
  double x_min = 0;
  double x_max = 1;
  double y_min = 0;
  double y_max = 1;
  bool any = false;
  for (const LineSeries& s : chart.series) {
    for (const LinePoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      if (!any) {
        x_min = x_max = p.x;
        y_min = y_max = p.y;
        any = true;
      }
      x_min = std::min(x_min, p.x);
      x_max = std::max(x_max, p.x);
      y_min = std::min(y_min, p.y);
      y_max = std::max(y_max, p.y);
    }
    for (const auto* ends : {&s.low, &s.high}) {
      for (const LinePoint& p : *ends) {
        if (!any || !std::isfinite(p.y)) continue;
        y_min = std::min(y_min, p.y);
        y_max = std::max(y_max, p.y);
      }
    }
  }
  if (chart.band) {
    x_min = std::min(x_min, chart.band->from);
    x_max = std::max(x_max, chart.band->to);
  }
  // One x value (a model measured at one GPU count) sits in the middle, not on the axis.
  if (any && x_min == x_max && !(chart.x_log2 && x_min > 0)) {
    x_min -= 1;
    x_max += 1;
  }
  // Steps are whole numbers: never tick or label them at halves.
  bool x_integral = true;
  for (const LineSeries& s : chart.series) {
    for (const LinePoint& p : s.points) x_integral = x_integral && p.x == std::floor(p.x);
  }
  const bool log_x = chart.x_log2 && any && x_min > 0;
  std::vector<double> x_ticks = nice_ticks(x_min, x_max, kLineXTicks);
  if (log_x) {
    // A tick at every power of two from below the least x to above the greatest.
    x_ticks.clear();
    const double first = std::floor(std::log2(x_min) + 1e-9);
    const double last = std::max(std::ceil(std::log2(x_max) - 1e-9), first + 1);
    for (double e = first; e <= last + 1e-9; e += 1) x_ticks.push_back(std::exp2(e));
  } else if (x_integral && x_ticks[1] - x_ticks[0] < 1) {
    x_ticks.clear();
    for (double x = std::floor(x_min); x <= std::max(std::ceil(x_max), std::floor(x_min) + 1); x += 1) {
      x_ticks.push_back(x);
    }
  }
  const std::vector<double> y_ticks = nice_ticks(y_min, y_max, kLineYTicks);
  const double x_lo = x_ticks.front();
  const double x_hi = x_ticks.back();
  const double y_lo = y_ticks.front();
  const double y_hi = y_ticks.back();
  const int x_decimals = log_x ? 0 : decimals_for_step(x_ticks[1] - x_ticks[0]);
  const int y_decimals = decimals_for_step(y_ticks[1] - y_ticks[0]);
  const double plot_left = kLineLeft;
  const double plot_right = kWidth - kLineRight;
  const double plot_top = kPlotTop;
  const double plot_bottom = kLineHeight - kAxisBottom;
  auto x_of = [&](double x) {
    if (log_x) {
      return plot_left + (plot_right - plot_left) * (std::log2(x) - std::log2(x_lo)) / (std::log2(x_hi) - std::log2(x_lo));
    }
    return plot_left + (plot_right - plot_left) * (x - x_lo) / (x_hi - x_lo);
  };
  auto y_of = [&](double y) { return plot_bottom - (plot_bottom - plot_top) * (y - y_lo) / (y_hi - y_lo); };

  std::string desc = chart.description;
  for (const LineSeries& s : chart.series) {
    if (s.points.empty()) {
      desc += fmt::format(" {}: no points.", s.name);
      continue;
    }
    double lo = s.points.front().y;
    double hi = lo;
    for (const LinePoint& p : s.points) {
      lo = std::min(lo, p.y);
      hi = std::max(hi, p.y);
    }
    desc += fmt::format(" {}: {} points, {} {} to {}, first {}, last {}, lowest {}, highest {}.", s.name,
                        s.points.size(), chart.x_label, format_value(s.points.front().x, x_decimals),
                        format_value(s.points.back().x, x_decimals),
                        format_value(s.points.front().y, chart.y_decimals),
                        format_value(s.points.back().y, chart.y_decimals),
                        format_value(lo, chart.y_decimals), format_value(hi, chart.y_decimals));
    if (!s.low.empty()) desc += fmt::format(" Shaded around {}: its 80% interval.", s.name);
  }
  if (chart.band) {
    desc += fmt::format(" Shaded: {}, {} {} to {}.", chart.band->label, chart.x_label,
                        format_value(chart.band->from, x_decimals), format_value(chart.band->to, x_decimals));
  }

  std::string svg = svg_open(chart.id, kLineHeight, chart.title, desc);
  std::vector<LegendItem> items;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    items.push_back({chart.series[i].name, chart.series[i].markers_only ? Key::marker : Key::line, i});
  }
  svg += legend(items);
  if (chart.band) {
    const double lx = 12 + [&] {
      double x = 0;
      for (const LegendItem& item : items) {
        x += (item.key == Key::marker ? 16 : 28) + static_cast<double>(item.name.size()) * kCharWidth + 20;
      }
      return x;
    }();
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"#f1e7c4\" stroke=\"#c9b26b\"/>\n"
        "<text x=\"{}\" y=\"{}\" fill=\"#222222\">{}</text>\n",
        num(lx), num(kLegendY - 10), num(lx + 18), num(kLegendY), escape_html(chart.band->label));
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f1e7c4\"/>\n",
                       num(x_of(chart.band->from)), num(plot_top),
                       num(x_of(chart.band->to) - x_of(chart.band->from)), num(plot_bottom - plot_top));
  }

  svg += "<g class=\"axis\" fill=\"#444444\">\n";
  for (const double t : y_ticks) {
    const double y = y_of(t);
    svg += fmt::format(
        "<line x1=\"{l}\" y1=\"{y}\" x2=\"{r}\" y2=\"{y}\" stroke=\"#e3e3e3\"/>\n"
        "<line x1=\"{t}\" y1=\"{y}\" x2=\"{l}\" y2=\"{y}\" stroke=\"#444444\"/>\n"
        "<text x=\"{lx}\" y=\"{ly}\" text-anchor=\"end\">{text}</text>\n",
        fmt::arg("l", num(plot_left)), fmt::arg("r", num(plot_right)), fmt::arg("y", num(y)),
        fmt::arg("t", num(plot_left - 5)), fmt::arg("lx", num(plot_left - 8)), fmt::arg("ly", num(y + 4)),
        fmt::arg("text", format_value(t, y_decimals)));
  }
  for (const double t : x_ticks) {
    const double x = x_of(t);
    svg += fmt::format(
        "<line x1=\"{x}\" y1=\"{b}\" x2=\"{x}\" y2=\"{t}\" stroke=\"#444444\"/>\n"
        "<text x=\"{x}\" y=\"{ly}\" text-anchor=\"middle\">{text}</text>\n",
        fmt::arg("x", num(x)), fmt::arg("b", num(plot_bottom)), fmt::arg("t", num(plot_bottom + 5)),
        fmt::arg("ly", num(plot_bottom + 18)), fmt::arg("text", format_value(t, x_decimals)));
  }
  svg += fmt::format(
      "<line x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#444444\"/>\n"
      "<line x1=\"{l}\" y1=\"{top}\" x2=\"{l}\" y2=\"{b}\" stroke=\"#444444\"/>\n"
      "<text x=\"{mid}\" y=\"{xl}\" text-anchor=\"middle\" fill=\"#222222\">{x_label}</text>\n"
      "<text x=\"14\" y=\"{ymid}\" text-anchor=\"middle\" fill=\"#222222\" "
      "transform=\"rotate(-90 14 {ymid})\">{y_label}</text>\n</g>\n",
      fmt::arg("l", num(plot_left)), fmt::arg("r", num(plot_right)), fmt::arg("b", num(plot_bottom)),
      fmt::arg("top", num(plot_top)), fmt::arg("mid", num((plot_left + plot_right) / 2)),
      fmt::arg("xl", num(plot_bottom + 40)), fmt::arg("ymid", num((plot_top + plot_bottom) / 2)),
      fmt::arg("x_label", escape_html(chart.x_label)), fmt::arg("y_label", escape_html(chart.y_label)));

  svg += "<g class=\"intervals\">\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& s = chart.series[i];
    if (s.low.empty() || s.low.size() != s.high.size()) continue;
    std::string points;
    auto add = [&](const LinePoint& p) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) return;
      if (!points.empty()) points += ' ';
      points += num(x_of(p.x)) + "," + num(y_of(p.y));
    };
    for (const LinePoint& p : s.high) add(p);
    for (auto it = s.low.rbegin(); it != s.low.rend(); ++it) add(*it);
    svg += fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"none\"><title>{}: 80% "
                       "interval</title></polygon>\n",
                       points, kColors[i % kPalette], kBandOpacity, escape_html(s.name));
  }
  svg += "</g>\n<g class=\"lines\" fill=\"none\">\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& s = chart.series[i];
    if (s.markers_only) {
      for (const LinePoint& p : s.points) {
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
        svg += fmt::format("<rect class=\"marker\" x=\"{}\" y=\"{}\" width=\"9\" height=\"9\" fill=\"{}\" "
                           "stroke=\"#111111\"><title>{}: {} {}, {}</title></rect>\n",
                           num(x_of(p.x) - 4.5), num(y_of(p.y) - 4.5), kColors[i % kPalette], escape_html(s.name),
                           format_value(p.x, x_decimals), escape_html(chart.x_label),
                           format_value(p.y, chart.y_decimals));
      }
      continue;
    }
    std::string points;
    for (const LinePoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      if (!points.empty()) points += ' ';
      points += num(x_of(p.x)) + "," + num(y_of(p.y));
    }
    const char* dash = kDashes[i % kPalette];
    svg += fmt::format("<polyline points=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}><title>{}</title></polyline>\n",
                       points, kColors[i % kPalette],
                       *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "", escape_html(s.name));
    if (s.points.size() <= kMaxMarkers) {
      for (const LinePoint& p : s.points) {
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
        svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"/>\n", num(x_of(p.x)),
                           num(y_of(p.y)), kColors[i % kPalette]);
      }
    }
  }
  svg += "</g>\n</svg>\n";

  // Data table: one row per x value present in any series, one column per series.
  std::vector<double> xs;
  for (const LineSeries& s : chart.series) {
    for (const LinePoint& p : s.points) xs.push_back(p.x);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::vector<std::vector<std::string>> rows;
  for (const double x : xs) {
    std::vector<std::string> row{format_value(x, x_decimals)};
    for (const LineSeries& s : chart.series) {
      const auto it = std::find_if(s.points.begin(), s.points.end(), [x](const LinePoint& p) { return p.x == x; });
      row.push_back(it == s.points.end() ? "" : format_value(it->y, chart.y_decimals));
      if (s.low.empty()) continue;
      const size_t at = static_cast<size_t>(it - s.points.begin());
      row.push_back(it == s.points.end() || at >= s.low.size() || at >= s.high.size()
                        ? ""
                        : format_value(s.low[at].y, chart.y_decimals) + " to " +
                              format_value(s.high[at].y, chart.y_decimals));
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::string> header{chart.x_label};
  for (const LineSeries& s : chart.series) {
    header.push_back(s.name + " (" + chart.y_label + ")");
    if (!s.low.empty()) header.push_back(s.name + ", 80% interval");
  }
  return "<figure class=\"chart\" id=\"" + escape_html(chart.id) + "\">\n" + svg +
         data_table(chart.title, header, rows) + "</figure>\n";
}

}  // namespace ladle::site
