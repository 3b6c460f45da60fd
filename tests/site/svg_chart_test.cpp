#include "ladle/site/svg_chart.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

namespace ladle::site {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

BarChart throughput_chart() {
  BarChart chart;
  chart.id = "chart-tokens";
  chart.title = "Tokens/s per GPU, GLM-5.2";
  chart.description = "Throughput per layout.";
  chart.value_label = "tokens/s per GPU";
  chart.decimals = 2;
  chart.categories = {"TP4 PP4 EP32 DP8", "TP8 PP4 EP32 DP4"};
  chart.series = {{"measured", {161.79, 131.12}}, {"predicted", {170.0, std::nullopt}}};
  return chart;
}

TEST(NiceTicks, CoverTheRangeWithRoundSteps) {
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {0, 6178.46}, {0, 0.36}, {1.71, 1.93}, {5, 19}, {0, 1}, {-3, 7}, {2, 2}, {0, 0}}) {
    const std::vector<double> ticks = nice_ticks(lo, hi, 5);
    ASSERT_GE(ticks.size(), 2u) << lo << " " << hi;
    EXPECT_LE(ticks.front(), lo);
    EXPECT_GE(ticks.back(), hi);
    const double step = ticks[1] - ticks[0];
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 5) < 1e-6)
        << "step " << step;
    for (size_t i = 1; i < ticks.size(); ++i) EXPECT_NEAR(ticks[i] - ticks[i - 1], step, step * 1e-9);
    EXPECT_LE(ticks.size(), 12u);
  }
  EXPECT_EQ(nice_ticks(0, 6178.46, 5), (std::vector<double>{0, 2000, 4000, 6000, 8000}));
}

TEST(BarChart, HasTitleTextAlternativeAxesTicksLegendAndData) {
  const std::string svg = render_bar_chart(throughput_chart());
  EXPECT_NE(svg.find("role=\"img\" aria-labelledby=\"chart-tokens-title chart-tokens-desc\""), std::string::npos);
  EXPECT_NE(svg.find("<title id=\"chart-tokens-title\">Tokens/s per GPU, GLM-5.2</title>"), std::string::npos);
  // The description names every value, so the chart reads without the picture.
  EXPECT_NE(svg.find("Throughput per layout. TP4 PP4 EP32 DP8 (measured): 161.79. TP4 PP4 EP32 DP8 (predicted): "
                     "170.00. TP8 PP4 EP32 DP4 (measured): 131.12. TP8 PP4 EP32 DP4 (predicted): no data."),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">tokens/s per GPU</text>"), std::string::npos);  // axis label with unit
  for (const char* tick : {">0</text>", ">50</text>", ">100</text>", ">150</text>", ">200</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(count(svg, "<g class=\"legend\">"), 1u);
  EXPECT_NE(svg.find(">measured</text>"), std::string::npos);
  EXPECT_NE(svg.find(">predicted</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "<rect x="), 1u + 2u + 3u);  // background, two swatches, three bars
  EXPECT_NE(svg.find("<th scope=\"row\">TP8 PP4 EP32 DP4</th><td>131.12</td><td>no data</td>"), std::string::npos);
  EXPECT_EQ(count(svg, "<svg"), count(svg, "</svg>"));
}

TEST(BarChart, BarLengthsAreProportionalToValues) {
  BarChart chart = throughput_chart();
  chart.series.resize(1);
  const std::string svg = render_bar_chart(chart);
  const std::regex bar("<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\" height=\"18.0\"");
  std::vector<double> widths;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it) {
    widths.push_back(std::stod((*it)[2]));
  }
  ASSERT_EQ(widths.size(), 2u);
  EXPECT_NEAR(widths[0] / widths[1], 161.79 / 131.12, 0.01);
}

TEST(BarChart, EscapesEveryLabel) {
  BarChart chart = throughput_chart();
  chart.title = "<script>alert(1)</script>";
  chart.categories[0] = "\"><img src=x onerror=alert(2)>";
  chart.series[0].name = "</text><script>";
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<img"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

TEST(LineChart, DrawsEachSeriesTheWindowAndTheData) {
  LineChart chart;
  chart.id = "chart-loss";
  chart.title = "Loss by step";
  chart.x_label = "step";
  chart.y_label = "loss";
  chart.y_decimals = 3;
  chart.series = {{"reference", {{1, 1.9}, {2, 1.8}, {3, 1.75}}}, {"candidate", {{1, 1.91}, {2, 1.79}, {3, 1.74}}}};
  chart.band = XBand{2, 3, "measured window"};
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 6u);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // series differ by more than colour
  EXPECT_NE(svg.find(">measured window</text>"), std::string::npos);
  EXPECT_NE(svg.find(">step</text>"), std::string::npos);
  EXPECT_NE(svg.find("rotate(-90"), std::string::npos);  // the y axis label
  EXPECT_NE(svg.find("reference: 3 points, step 1 to 3, first 1.900, last 1.750, lowest 1.750, highest 1.900."),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<th scope=\"row\">2</th><td>1.800</td><td>1.790</td>"), std::string::npos);
}

TEST(Charts, AreDeterministic) {
  EXPECT_EQ(render_bar_chart(throughput_chart()), render_bar_chart(throughput_chart()));
}

TEST(Charts, EmptyChartsStillRender) {
  BarChart bars;
  bars.id = "empty";
  bars.title = "Nothing";
  EXPECT_NE(render_bar_chart(bars).find("</svg>"), std::string::npos);
  LineChart lines;
  lines.id = "empty-lines";
  lines.series = {{"none", {}}};
  const std::string svg = render_line_chart(lines);
  EXPECT_NE(svg.find("none: no points."), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace ladle::site
