// Pairs of runs that differ only in GPU or only in precision are predicted in their measured
// order. The measured order is the one public measurement that holds everything else fixed: the
// Maximum Achievable Matmul FLOPS table of stas00/ml-engineering (compute/accelerator/README.md @
// 744d01e18b79512572f64a6bbd8b5f4a725203a7; torch matmul, BF16 and float8_e4m3fn):
//   BF16: B200 1745.0 < B300 1769.0 < GB200 1822.0 TFLOP/s
//   FP8:  B300 3353.3 < B200 3432.5 < GB200 3615.6 TFLOP/s, and FP8 above BF16 on each GPU.
// A GEMM-bound dense layout (Llama 3.1 8B, full recompute, DP over one 8-GPU NVLink domain,
// 1,024-token rows so that attention, where Blackwell Ultra's faster softmax puts B300 ahead, stays
// a few percent of the step, eight rows per microbatch so that the GEMMs and not the host set the
// pace: GB200's Grace host takes 2.75 times an x86 host's time per operation) must keep that order. The peak-only model that came before this file put
// GB200 11% above B200 and B300 level with B200 at both precisions.
#include <gtest/gtest.h>

#include <string>

#include "ladle/hw/catalog.hpp"
#include "ladle/hw/hw_facts.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/cost_gemm_shape.hpp"
#include "ladle/plan/time_rates.hpp"
#include "support/measurement_support.hpp"

namespace ladle::plan {
namespace {

constexpr const char* kDense = "tp=1,pp=1,dp=8,recompute=full,rows_per_mb=8";

double tokens_per_s(const std::string& gpu, Precision precision, const std::string& extra = "") {
  Measurement m = test::run_of("llama-3.1-8b", gpu, 8, std::string(kDense) + extra, 128, 1024);
  m.workload.precision = precision;
  return predict_tokens_per_s(m, default_calibration());
}

TEST(GpuPrecisionOrder, Bf16FollowsTheMeasuredMatmulOrder) {
  const double b200 = tokens_per_s("b200", Precision::bf16);
  const double b300 = tokens_per_s("b300", Precision::bf16);
  const double gb200 = tokens_per_s("gb200", Precision::bf16);
  EXPECT_LT(b200, b300);
  EXPECT_LT(b300, gb200);
  // GB200's lead over B200 is its measured 4.4%, not its peak's 11%.
  EXPECT_LT(gb200 / b200, 1.08) << gb200 << " vs " << b200;
}

// At FP8 the B300's matmul lead is 2.3% behind the B200 and its faster softmax (BF16 attention
// beside FP8 GEMMs) outweighs that in a whole step, so the order is asserted on the GEMM rate the
// time model prices with.
TEST(GpuPrecisionOrder, Fp8FollowsTheMeasuredMatmulOrder) {
  Workload w;
  w.precision = Precision::fp8;
  const Layout l = layout::parse_layout_spec("tp=1,dp=8,fp8=e4m3");
  auto gemm = [&](const char* gpu) {
    return timing::time_rates(l, make_cluster(gpu, 8), w, default_calibration()).gemm_flops;
  };
  EXPECT_LT(gemm("b300"), gemm("b200"));
  EXPECT_LT(gemm("b200"), gemm("gb200"));
  EXPECT_LT(tokens_per_s("b200", Precision::fp8), tokens_per_s("gb200", Precision::fp8));
}

TEST(GpuPrecisionOrder, Fp8AboveBf16OnEveryBlackwell) {
  for (const char* gpu : {"b200", "b300", "gb200", "gb300"}) {
    EXPECT_GT(tokens_per_s(gpu, Precision::fp8), tokens_per_s(gpu, Precision::bf16)) << gpu;
  }
}

// The FP8 recipes and NVFP4 are priced apart on one GPU: NVFP4's GEMMs at their measured rate
// (1.43 times FP8's on a B200, kernels.yaml), MXFP8's on the block-scaled tensor cores at theirs
// (0.94 of per-tensor FP8's), current scaling's extra amax pass over each quantized input and the
// block recipes' scales as bytes (time_model.cpp quantize_bytes_per_element). So MXFP8 comes out
// behind current scaling on a B200, as torchtitan measured it on one node of B200s (bench/heldout:
// float8 tensorwise 10,417 against MXFP8 9,969 tokens/s per GPU, with an FP8 all-gather on the
// tensorwise side as well).
TEST(GpuPrecisionOrder, RecipesArePricedApart) {
  const double bf16 = tokens_per_s("b200", Precision::bf16);
  const double delayed = tokens_per_s("b200", Precision::fp8);
  const double current = tokens_per_s("b200", Precision::fp8, ",fp8_recipe=tensorwise");
  const double mxfp8 = tokens_per_s("b200", Precision::fp8, ",fp8_recipe=mxfp8");
  const double nvfp4 = tokens_per_s("b200", Precision::fp8, ",fp4=e2m1");
  EXPECT_GT(nvfp4, delayed);
  EXPECT_GT(delayed, current);  // current scaling reads each input once more for its amax
  EXPECT_GT(current, mxfp8);  // block-scaled GEMMs at 0.94 of per-tensor FP8's, E8M0 scales beside
  EXPECT_GT(mxfp8, bf16);
}

TEST(GpuPrecisionOrder, PricedPrecisionNamesTheRecipe) {
  Layout l;
  Workload w;
  EXPECT_EQ(priced_precision(l, w), "bf16");
  w.precision = Precision::fp8;
  l.fp8_recipe = Fp8Recipe::mxfp8;
  EXPECT_EQ(priced_precision(l, w), "fp8 (mxfp8)");
  l.fp4 = Fp4Format::e2m1;
  EXPECT_EQ(priced_precision(l, w), "nvfp4");
  l.fp4_recipe = Fp4Recipe::mxfp4;
  EXPECT_EQ(priced_precision(l, w), "mxfp4");
}

// Primus's MXFP4 on CDNA 4 at AMD's measured rates (kernels.yaml mi355x): its GEMMs 1.61 times the
// FP8 ones (one harness's MXFP4 over BF8), not the peaks' 2 times; NVFP4's fraction where a GPU
// has no MXFP4 row (Blackwell: one FP4 MMA for both).
TEST(GpuPrecisionOrder, Mxfp4GemmsRunAtTheirMeasuredRate) {
  Workload w;
  w.precision = Precision::bf16;
  Cluster mi355x = make_cluster("h100", 8);
  mi355x.gpu = hw::require_gpu("mi355x");
  auto gemm = [&](const Cluster& cluster, const char* spec) {
    return timing::time_rates(layout::parse_layout_spec(spec), cluster, w, default_calibration()).gemm_flops;
  };
  const double bf16 = gemm(mi355x, "tp=1,dp=8");
  w.precision = Precision::fp8;
  const double fp8 = gemm(mi355x, "tp=1,dp=8,fp8=e4m3");
  const double mxfp4 = gemm(mi355x, "tp=1,dp=8,fp4=e2m1,fp4_recipe=mxfp4");
  EXPECT_NEAR(mxfp4 / fp8, 5255.0 / 3257.0, 0.01);
  EXPECT_GT(fp8, bf16);
  const Cluster b200 = make_cluster("b200", 8);
  EXPECT_DOUBLE_EQ(gemm(b200, "tp=1,dp=8,fp4=e2m1,fp4_recipe=mxfp4"), gemm(b200, "tp=1,dp=8,fp4=e2m1"));
}

// Blackwell Ultra doubles the SFU's exponential rate and NVIDIA measured FP8 attention forward 35%
// faster on GB300 than GB200 (kernels.yaml softmax_exp). That makes the exponential wait 0.35 /
// (1 - 1.35 / 2) = 1.077 FP8 MMA times; BF16's MMA is twice FP8's, so a BF16 forward takes
// (2 + 1.077 / 2) / (2 + 1.077) = 0.825 of Blackwell's time and a backward (2.5 times the MMA)
// (5 + 0.538) / (5 + 1.077) = 0.911. Blackwell (GB200, B200) is unchanged.
TEST(GpuPrecisionOrder, BlackwellUltraRunsTheSoftmaxFaster) {
  const Layout l = layout::parse_layout_spec("tp=1,dp=8");
  Workload w;
  const Calibration cal = default_calibration();
  auto rates = [&](const char* gpu, const Workload& work, const Layout& layout) {
    return timing::time_rates(layout, make_cluster(gpu, 8), work, cal);
  };
  const timing::Rates gb200 = rates("gb200", w, l);
  const timing::Rates gb300 = rates("gb300", w, l);
  EXPECT_DOUBLE_EQ(gb200.attention_backward, 2.5);
  EXPECT_NEAR(gb200.attention_flops / gb300.attention_flops, 0.825, 0.001);
  EXPECT_NEAR(gb300.attention_backward * gb200.attention_flops / gb300.attention_flops, 2.5 * 0.911, 0.002);
  EXPECT_NEAR(rates("b200", w, l).attention_flops / rates("b300", w, l).attention_flops, 0.825, 0.001);
  // FP8 attention (fp8_dot_product_attention): the published forward figure itself.
  Workload fp8 = w;
  fp8.precision = Precision::fp8;
  const Layout dpa = layout::parse_layout_spec("tp=1,dp=8,fp8=e4m3,fp8_dpa=on");
  EXPECT_NEAR(rates("gb300", fp8, dpa).attention_flops / rates("gb200", fp8, dpa).attention_flops, 1.35, 1e-9);
}

TEST(CostGemmShape, TilesBoundTheEfficiency) {
  EXPECT_DOUBLE_EQ(tile_fraction(4096, 128), 1.0);
  EXPECT_DOUBLE_EQ(tile_fraction(2880, 128), 2880.0 / 2944.0);  // gpt-oss's expert width: 22.5 tiles
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(1, 1), kMinShapeEfficiency);  // bounded below
  EXPECT_DOUBLE_EQ(windowed_attention_efficiency(0), 1.0);
  EXPECT_DOUBLE_EQ(windowed_attention_efficiency(128), 0.5);  // two key tiles for one tile of band
  EXPECT_GT(windowed_attention_efficiency(4096), 0.95);
}

}  // namespace
}  // namespace ladle::plan

namespace ladle::plan {
namespace {

// Every GPU in the catalog that runs NVFP4 has its own measured GEMM row (GB300's from its ratio to
// GB200 in one harness, kernels.yaml); a GPU with none takes the lowest published fraction and
// says so, never silently.
TEST(GpuPrecisionOrder, AnUnpublishedMatmulFractionIsNamedAsAFallback) {
  for (const char* gpu : {"b200", "b300", "gb200", "gb300"})
    EXPECT_EQ(hw::gemm_mamf_fallback(gpu), "") << gpu;
  EXPECT_NE(hw::gemm_mamf_fallback("no-such-gpu").find("lowest published"), std::string::npos);
  // GB300's 1,400 W against GB200's 1,200 W at the same BF16 and FP8 peaks: measured faster.
  EXPECT_GT(hw::gemm_mamf_fraction("gb300", false), hw::gemm_mamf_fraction("gb200", false));
  EXPECT_GT(hw::gemm_mamf_fraction("gb300", true), hw::gemm_mamf_fraction("gb200", true));
}

// NVFP4 GEMMs as measured: faster than FP8 but by less than the peaks' 2x (Blackwell) and 3x
// (Blackwell Ultra), and Blackwell Ultra's NVFP4 ahead of Blackwell's.
TEST(GpuPrecisionOrder, Nvfp4GemmsRunAtTheirMeasuredRate) {
  auto rate = [](const char* name, bool fp4) {
    const GpuSpec g = hw::require_gpu(name);
    return fp4 ? g.fp4_dense_tflops * hw::gemm_nvfp4_fraction(name)
               : g.fp8_dense_tflops * hw::gemm_mamf_fraction(name, true);
  };
  for (const char* name : {"b200", "b300", "gb200", "gb300"}) {
    const double ratio = rate(name, true) / rate(name, false);
    EXPECT_GT(ratio, 1.3) << name;
    EXPECT_LT(ratio, 1.9) << name;
  }
  EXPECT_GT(rate("b300", true), rate("b200", true));
  EXPECT_GT(rate("gb300", true), rate("gb200", true));
  // A GPU whose row has no NVFP4 figure prices it at its FP8 fraction.
  EXPECT_DOUBLE_EQ(hw::gemm_nvfp4_fraction("h100-sxm"), hw::gemm_mamf_fraction("h100-sxm", true));
}

}  // namespace
}  // namespace ladle::plan
