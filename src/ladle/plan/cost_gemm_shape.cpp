// cost_gemm_shape.cpp: kernel efficiency from shapes (see the header).
//
// Tile quantisation: a GEMM's output is computed in whole tiles, so an extent that is not a
// multiple of the tile size computes the last tile in full (NVIDIA, "Matrix Multiplication
// Background User's Guide", docs.nvidia.com/deeplearning/performance/
// dl-performance-matrix-multiplication, "Tile Quantization"). Hopper's and Blackwell's cuBLAS and
// CUTLASS GEMMs tile the output in 128-wide tiles (CUTLASS's SM90 / SM100 kernel schedules:
// 128 x 128, 128 x 256, and 256 x 128 for Blackwell's two-SM MMA), and a grouped GEMM tiles each
// expert's rows on their own, so an expert whose routed rows are not whole tiles computes its last
// tile in full. gpt-oss's expert width, 2,880, is 22.5 tiles: its down-projection computes 23.
//
// Rows: measured on one H200 (data/hw/gemm_shapes.yaml, bench/results/h200-gemm-shapes.json),
// grouped GEMMs lose to their rows per expert what 256-row tiles predict (200 rows: 0.69-0.82 of
// the full rate, 300 rows: 0.56-0.60), and below one tile do better than a 256-row tile would
// (128 rows: 0.55-0.65) because small M takes half-height tiles, which run slower. The row term
// takes the better of the two, with the tile and the half-tile rate fitted to those rows
// (gemm_shapes.yaml `row_fit`: 256 rows, 0.56; 0.57 +/- 0.04 from the single rows). The width
// term keeps the 128-wide tiles above; it does not explain why the square 2,880 expert GEMM runs
// at 83-93% of the 3,072 one (it says 98%).
//
// Sliding windows: FlashAttention-2 and -3 walk key tiles of 128 for head dimensions up to 128
// (FlashAttention-3, Shah et al. 2024, arXiv 2407.08608, section 3 and its hdim-64/128 tile
// configurations: kBlockN = 128), and a query tile of 128 rows over a causal window of w keys
// visits ceil(w / 128) + 1 key tiles, of which w / 128 tiles' worth is inside the band. The
// priced FLOPs of a windowed layer are already counted over the window (model::mean_causal_context);
// this is what the kernel spends beyond them.

#include "ladle/plan/cost_gemm_shape.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {
namespace {

constexpr const char* kGemmShapesFile = "data/hw/gemm_shapes.yaml";
constexpr double kGemmTile = 128;       // output width tile of Hopper / Blackwell GEMMs
constexpr double kAttentionTile = 128;  // FlashAttention-2/3 key tile (head dim <= 128)

[[noreturn]] void bad(const YAML::Node& node, const std::string& path, const std::string& what) {
  throw_input(SourceLocation{kGemmShapesFile, node.Mark().line + 1, node.Mark().column + 1, path}, "{}", what);
}

// A number of the fit in [lo, hi].
double bounded(const YAML::Node& parent, const char* key, double lo, double hi) {
  const YAML::Node node = parent[key];
  const std::string path = std::string("row_fit.") + key;
  double v = 0;
  if (!node || !node.IsScalar() || !YAML::convert<double>::decode(node, v) || !(v >= lo && v <= hi))
    bad(node ? node : parent, path, fmt::format("expected a number in [{}, {}]", lo, hi));
  return v;
}

GemmRowFit load_fit() {
  const std::optional<std::string_view> text = util::find_embedded(kGemmShapesFile);
  LADLE_ASSERT(text.has_value(), "the embedded GEMM shape table is missing");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(*text));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{kGemmShapesFile, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  if (!root["source"]) bad(root, "source", "missing; expected where the figures were measured");
  const YAML::Node fit = root["row_fit"];
  if (!fit || !fit.IsMap()) bad(root, "row_fit", "missing; expected row_tile and small_tile_rate");
  // The bounds of the fit's search (gemm_shapes.yaml): tiles of 64 to 512 rows, a half-tile rate
  // of 0.3 to the full rate.
  return GemmRowFit{bounded(fit, "row_tile", 64, 512), bounded(fit, "small_tile_rate", 0.3, 1.0)};
}

}  // namespace

const GemmRowFit& gemm_row_fit() {
  static const GemmRowFit fit = load_fit();
  return fit;
}

double gemm_row_efficiency(double rows, const GemmRowFit& fit) {
  if (!(rows > 0)) return 1.0;
  return std::max(tile_fraction(rows, fit.row_tile),
                  fit.small_tile_rate * tile_fraction(rows, fit.row_tile / 2));
}

std::string priced_precision(const Layout& l, const Workload& w) {
  if (l.fp4 != Fp4Format::none) return l.fp4_recipe == Fp4Recipe::mxfp4 ? "mxfp4" : "nvfp4";
  // FP16 (--fp16) runs at BF16's rate but is its own precision, with loss scaling (cost_fp16.hpp).
  if (w.precision != Precision::fp8) return l.fp16 || w.precision == Precision::fp16 ? "fp16" : "bf16";
  switch (l.fp8_recipe) {
    case Fp8Recipe::delayed: return "fp8 (delayed scaling)";
    case Fp8Recipe::tensorwise: return "fp8 (current scaling)";
    case Fp8Recipe::blockwise: return "fp8 (blockwise)";
    case Fp8Recipe::mxfp8: return "fp8 (mxfp8)";
  }
  return "fp8";
}

double tile_fraction(double extent, double tile) {
  if (!(extent > 0) || !(tile > 0)) return 1.0;
  return extent / (std::ceil(extent / tile) * tile);
}

double gemm_shape_efficiency(double rows, double n) {
  const double e = gemm_row_efficiency(rows) * tile_fraction(n, kGemmTile);
  return std::clamp(e, kMinShapeEfficiency, 1.0);
}

double windowed_attention_efficiency(double window) {
  if (!(window > 0)) return 1.0;
  const double visited = (std::ceil(window / kAttentionTile) + 1) * kAttentionTile;
  return std::clamp(window / visited, kMinShapeEfficiency, 1.0);
}

}  // namespace ladle::plan
