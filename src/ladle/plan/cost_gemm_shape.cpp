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

namespace ladle::plan {
namespace {

constexpr double kGemmTile = 128;       // output tile edge of Hopper / Blackwell GEMMs
constexpr double kAttentionTile = 128;  // FlashAttention-2/3 key tile (head dim <= 128)

}  // namespace

std::string priced_precision(const Layout& l, const Workload& w) {
  if (l.fp4 != Fp4Format::none) return "nvfp4";
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
  const double e = tile_fraction(rows, kGemmTile) * tile_fraction(n, kGemmTile);
  return std::clamp(e, kMinShapeEfficiency, 1.0);
}

double windowed_attention_efficiency(double window) {
  if (!(window > 0)) return 1.0;
  const double visited = (std::ceil(window / kAttentionTile) + 1) * kAttentionTile;
  return std::clamp(window / visited, kMinShapeEfficiency, 1.0);
}

}  // namespace ladle::plan
