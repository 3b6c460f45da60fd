#pragma once
// cost_gemm_shape.hpp: kernel efficiency from shapes. What a (grouped) GEMM loses to its tiles when
// its rows per expert or its output width are not whole tiles, what a flash-attention kernel loses
// over a short sliding window, and the precision a layout's GEMMs are priced at.

#include <string>

#include "ladle/layout/layout.hpp"
#include "ladle/plan/cluster.hpp"

namespace ladle::plan {

/// The precision a layout's GEMMs are priced at, as `predict` and `plan` print it: "nvfp4"
/// (--fp4-format e2m1), "fp8 (mxfp8)" and the other FP8 recipes, or "bf16".
std::string priced_precision(const Layout& l, const Workload& w);

/// The share of a tiled extent that does useful work: extent over the extent rounded up to whole
/// tiles, in (0, 1]; 1 for an extent of whole tiles or an extent <= 0.
double tile_fraction(double extent, double tile);

/// The two fitted constants of the row term (data/hw/gemm_shapes.yaml `row_fit`).
struct GemmRowFit {
  double row_tile = 0;         ///< rows per tile of a grouped GEMM's experts (256)
  double small_tile_rate = 0;  ///< the rate of half-height tiles over the full rate (0.56 +/- 0.04)
};

/// The embedded fit (parsed once; a malformed table is an input error at its line).
const GemmRowFit& gemm_row_fit();

/// The share of the full rate a GEMM keeps from its rows alone (`rows`: the tokens, or those
/// routed to one expert of a grouped GEMM): whole tiles of `row_tile` rows, or half-height tiles at
/// `small_tile_rate` when those waste less, whichever is faster. In (0, 1]; 1 for rows <= 0.
double gemm_row_efficiency(double rows, const GemmRowFit& fit = gemm_row_fit());

/// The efficiency of one GEMM (or one expert's GEMM in a grouped GEMM) from its shape: the row
/// term above times the tile quantisation of its output width `n` against the 128-wide tiles of
/// cuBLAS's and CUTLASS's Hopper and Blackwell GEMMs, in [kMinShapeEfficiency, 1].
double gemm_shape_efficiency(double rows, double n);

/// The efficiency of a flash-attention kernel over a causal sliding window of `window` tokens
/// (0: full causal attention, 1): a query tile visits every key tile the band touches, the
/// partly-masked ones too. In [kMinShapeEfficiency, 1].
double windowed_attention_efficiency(double window);

/// The floor of the shape efficiencies above (a shape never costs more than four times its FLOPs).
/// Measured grouped GEMMs of 64 rows per expert run at 0.25-0.28 of their full rate
/// (data/hw/gemm_shapes.yaml), so the earlier floor of 0.5 priced them up to twice too fast; 0.25
/// is the lowest measured share rounded down, binding only below the measured range.
inline constexpr double kMinShapeEfficiency = 0.25;

}  // namespace ladle::plan
