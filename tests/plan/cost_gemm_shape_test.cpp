// The shape term against the grouped GEMMs measured on one H200 (data/hw/gemm_shapes.yaml).
#include "ladle/plan/cost_gemm_shape.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

struct Measured {
  double rows = 0;
  double share = 0;  // TFLOP/s over the shape's full rate
  double n = 0;
  double k = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// The measured rows below the full-rate threshold, each over its shape's full rate (the median of
// its rows from `full_rate_rows` up), read from the data file the fit was made on.
std::vector<Measured> measured_rows() {
  const YAML::Node root = YAML::LoadFile(test::source_path("data/hw/gemm_shapes.yaml"));
  const YAML::Node g = root["grouped_gemm_h200"];
  const double full_from = g["full_rate_rows"].as<double>();
  std::vector<Measured> out;
  for (const YAML::Node& s : g["shapes"]) {
    const auto rows = s["rows"].as<std::vector<double>>();
    const auto tflops = s["tflops"].as<std::vector<double>>();
    EXPECT_EQ(rows.size(), tflops.size());
    std::vector<double> full;
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i] >= full_from) full.push_back(tflops[i]);
    EXPECT_GE(full.size(), 3u);
    const double rate = median(full);
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i] < full_from) out.push_back({rows[i], tflops[i] / rate, s["n"].as<double>(), s["k"].as<double>()});
  }
  return out;
}

TEST(CostGemmShape, RowTermReproducesTheMeasuredGroupedGemms) {
  const std::vector<Measured> rows = measured_rows();
  ASSERT_EQ(rows.size(), 30u);  // six shapes at 64, 128, 200, 256 and 300 rows per expert
  std::vector<double> errors;
  for (const Measured& m : rows) {
    const double e = gemm_row_efficiency(m.rows);
    const double error = std::abs(e / m.share - 1);
    errors.push_back(error);
    // Worst tolerated: 15% (the fit's worst is 14.4%, 128 rows of n 4096, k 7168).
    EXPECT_LT(error, 0.15) << m.rows << " rows, n " << m.n << ", k " << m.k << ": priced " << e
                           << ", measured " << m.share;
  }
  // Median tolerated: 5% (the fit's median is 4.4%; run to run the grouped rows vary by 3%).
  EXPECT_LT(median(errors), 0.05);
}

TEST(CostGemmShape, RowTermIsTheTileQuantisationTheMeasurementsShow) {
  // 300 rows per expert compute two 256-row tiles: the old 128-row term said 0.78.
  EXPECT_NEAR(gemm_row_efficiency(300), 300.0 / 512.0, 1e-12);
  EXPECT_DOUBLE_EQ(gemm_row_efficiency(256), 1.0);
  EXPECT_DOUBLE_EQ(gemm_row_efficiency(4096), 1.0);
  // Below one tile, the half-height tiles at their rate.
  EXPECT_NEAR(gemm_row_efficiency(128), gemm_row_fit().small_tile_rate, 1e-12);
  EXPECT_DOUBLE_EQ(gemm_row_efficiency(0), 1.0);
}

TEST(CostGemmShape, RowTermIsMonotoneWhereItMustBe) {
  // Inside every half-height tile more rows waste less of it, so the term rises between
  // half-tile edges, and it is 1 at every whole tile. (It may fall past the first half tile: 129
  // rows leave the half-height kernel for a full tile, 0.56 to 0.50.)
  const double tile = gemm_row_fit().row_tile;
  for (double t = 0; t < 16; ++t) {
    double last = 0;
    for (double r = t * tile / 2 + 1; r <= (t + 1) * tile / 2; r += 1) {
      const double e = gemm_row_efficiency(r);
      EXPECT_GE(e, last - 1e-12) << r << " rows";
      EXPECT_GT(e, 0.0);
      EXPECT_LE(e, 1.0);
      last = e;
    }
    if (static_cast<int>(t) % 2 == 1) {
      EXPECT_DOUBLE_EQ(last, 1.0);
    }
  }
  // The time of an expert's GEMM (rows over efficiency) never falls as its rows grow.
  double last_time = 0;
  for (double r = 1; r <= 4096; r += 1) {
    const double time = r / gemm_shape_efficiency(r, 4096);
    EXPECT_GE(time, last_time - 1e-9) << r << " rows";
    last_time = time;
  }
  // The width term: whole 128-wide tiles lose nothing, gpt-oss's 2,880 loses its half tile.
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(4096, 3072), 1.0);
  EXPECT_NEAR(gemm_shape_efficiency(4096, 2880), 2880.0 / 2944.0, 1e-12);
}

}  // namespace
}  // namespace ladle::plan
