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

/// The efficiency of one GEMM (or one expert's GEMM in a grouped GEMM) from its shape: the tile
/// quantisation of its rows (`rows`: the tokens, or those routed to the expert) and of its output
/// width `n` against the 128-wide tiles of cuBLAS's and CUTLASS's Hopper and Blackwell GEMMs, in
/// [kMinShapeEfficiency, 1].
double gemm_shape_efficiency(double rows, double n);

/// The efficiency of a flash-attention kernel over a causal sliding window of `window` tokens
/// (0: full causal attention, 1): a query tile visits every key tile the band touches, the
/// partly-masked ones too. In [kMinShapeEfficiency, 1].
double windowed_attention_efficiency(double window);

/// The floor of the shape efficiencies above (a shape never costs more than twice its FLOPs).
inline constexpr double kMinShapeEfficiency = 0.5;

}  // namespace ladle::plan
