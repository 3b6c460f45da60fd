// The tensor-parallel collectives of one layer (plan/time_tp.cpp): under sequence parallelism an
// FP8 or FP4 recipe all-gathers the quantized GEMM input and, in backward, the quantized output
// gradient, while the reduce-scatters stay BF16. Counted by hand for Llama-3.1-8B's layer
// (hidden 4,096; one gather and one reduce-scatter around attention and around the MLP) on 8
// B200s, one 8,192-token row per microbatch.
#include "ladle/plan/time_tp.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ladle/hw/hw_facts.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/time_collective.hpp"
#include "ladle/plan/time_rates.hpp"

namespace ladle::plan {
namespace {

constexpr double kTokens = 8192;
constexpr double kHidden = 4096;
constexpr double kTp = 8;

struct LayerCase {
  ModelSpec model;
  ModelCosts costs;
  Cluster cluster;
  Layout layout;
  Workload workload;
  timing::Rates rates;
};

LayerCase setup(const std::string& spec, Precision precision, Stack stack) {
  LayerCase s;
  s.model = model::load_model("llama-3.1-8b");
  s.costs = model_costs(s.model, 8192);
  s.cluster = make_cluster("b200", 8);
  const layout::LayoutContext context{8, 8, 8192, 64};
  s.layout = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  s.workload.precision = precision;
  s.workload.stack = stack;
  return s;
}

struct TpSeconds {
  double fwd = 0, bwd = 0;
};

TpSeconds tp_seconds(LayerCase& s) {
  s.rates = timing::time_rates(s.layout, s.cluster, s.workload, Calibration{});
  const bool fp8 = s.workload.precision == Precision::fp8 || s.layout.fp4 != Fp4Format::none;
  const timing::KindInputs in{.c = s.costs,
                              .kind = s.costs.kinds.at(0),
                              .l = s.layout,
                              .r = s.rates,
                              .w = s.workload,
                              .tokens = kTokens,
                              .tp = kTp,
                              .sp_div = s.layout.sp ? kTp : 1.0,
                              .h = kHidden,
                              .fp8 = fp8,
                              .per_gemm = fp8 ? 2.0 : 1.0};
  return {timing::tp_forward(in), timing::tp_backward(in)};
}

// Two pairs (attention, MLP) of an all-gather moving `gather` bytes per element of the 8,192 x
// 4,096 tensor and a BF16 reduce-scatter.
double pairs(const timing::Rates& r, double gather) {
  const double elements = kTokens * kHidden;
  return 2 * (timing::collective_time(r, hw::Collective::all_gather, gather * elements, kTp, kTp) +
              timing::collective_time(r, hw::Collective::reduce_scatter, 2 * elements, kTp, kTp));
}

constexpr const char* kSp = "tp=8,sp=on,pp=1,dp=1,rows_per_mb=1";

TEST(TimeTp, Bf16GathersTwoBytesBothWays) {
  LayerCase s = setup(kSp, Precision::bf16, Stack::megatron);
  const TpSeconds t = tp_seconds(s);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(s.rates, 2));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, 2));
}

// Delayed and current scaling: one byte per element, one scale per tensor; the backward gathers
// the row-wise gradient only and transposes it after.
TEST(TimeTp, PerTensorFp8GathersOneByteBothWays) {
  for (Fp8Recipe recipe : {Fp8Recipe::delayed, Fp8Recipe::tensorwise}) {
    LayerCase s = setup(kSp, Precision::fp8, Stack::megatron);
    s.layout.fp8_recipe = recipe;
    const TpSeconds t = tp_seconds(s);
    EXPECT_DOUBLE_EQ(t.fwd, pairs(s.rates, 1));
    EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, 1));
    EXPECT_LT(t.fwd, pairs(s.rates, 2));
  }
}

// MXFP8: an E8M0 scale per 32 elements; the backward gathers the row-wise and the column-wise
// copies of the gradient, unless Userbuffers overlap moves one.
TEST(TimeTp, Mxfp8GathersBothGradientCopiesInBackward) {
  LayerCase s = setup(kSp, Precision::fp8, Stack::megatron);
  s.layout.fp8_recipe = Fp8Recipe::mxfp8;
  const double one = 1 + 1.0 / 32;
  TpSeconds t = tp_seconds(s);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(s.rates, one));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, 2 * one));
  s.layout.tp_overlap = true;
  t = tp_seconds(s);
  EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, one));
}

// Blockwise: an FP32 scale per 1x128 block. NVFP4: E2M1 (half a byte) and an E4M3 scale per 16.
TEST(TimeTp, BlockwiseAndNvfp4CountTheirScales) {
  LayerCase block = setup(kSp, Precision::fp8, Stack::megatron);
  block.layout.fp8_recipe = Fp8Recipe::blockwise;
  TpSeconds t = tp_seconds(block);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(block.rates, 1 + 4.0 / 128));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(block.rates, 2 * (1 + 4.0 / 128)));
  LayerCase fp4 = setup(kSp, Precision::bf16, Stack::megatron);
  fp4.layout.fp4 = Fp4Format::e2m1;
  t = tp_seconds(fp4);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(fp4.rates, 0.5 + 1.0 / 16));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(fp4.rates, 2 * (0.5 + 1.0 / 16)));
}

// torchtitan gathers float8 only for torchao's tensorwise recipe; MXFP8 and the others in BF16.
TEST(TimeTp, TorchtitanGathersFp8OnlyTensorwise) {
  LayerCase s = setup(kSp, Precision::fp8, Stack::torchtitan);
  s.layout.fp8_recipe = Fp8Recipe::tensorwise;
  TpSeconds t = tp_seconds(s);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(s.rates, 1));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, 1));
  s.layout.fp8_recipe = Fp8Recipe::mxfp8;
  t = tp_seconds(s);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(s.rates, 2));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, 2));
}

// torchtitan's per-op selective checkpointing does not save the sequence-parallel all-gathers
// (only matmuls, attention, reduce-scatters and max), so the backward reruns each forward gather,
// at the forward's bytes, before the recomputed ops; Megatron-LM's selective recompute and a
// torchtitan run without checkpointing gather no more. A full recompute reruns the forward in the
// time model, not here.
TEST(TimeTp, TorchtitanSelectiveCheckpointingRegathers) {
  const std::string spec = std::string(kSp) + ",recompute=selective";
  LayerCase s = setup(spec, Precision::fp8, Stack::torchtitan);
  s.layout.fp8_recipe = Fp8Recipe::tensorwise;
  ASSERT_EQ(s.layout.recompute, RecomputeGranularity::selective);
  TpSeconds t = tp_seconds(s);
  const double gather_fp8 = timing::collective_time(s.rates, hw::Collective::all_gather, kTokens * kHidden, kTp, kTp);
  EXPECT_DOUBLE_EQ(t.fwd, pairs(s.rates, 1));
  EXPECT_DOUBLE_EQ(t.bwd, pairs(s.rates, 1) + 2 * gather_fp8);
  LayerCase bf16 = setup(spec, Precision::bf16, Stack::torchtitan);
  t = tp_seconds(bf16);
  const double gather_bf16 =
      timing::collective_time(bf16.rates, hw::Collective::all_gather, 2 * kTokens * kHidden, kTp, kTp);
  EXPECT_DOUBLE_EQ(t.bwd, pairs(bf16.rates, 2) + 2 * gather_bf16);
  LayerCase megatron = setup(spec, Precision::bf16, Stack::megatron);
  t = tp_seconds(megatron);
  EXPECT_DOUBLE_EQ(t.bwd, pairs(megatron.rates, 2));
  LayerCase plain = setup(std::string(kSp) + ",recompute=none", Precision::bf16, Stack::torchtitan);
  t = tp_seconds(plain);
  EXPECT_DOUBLE_EQ(t.bwd, pairs(plain.rates, 2));
}

// Without sequence parallelism: one BF16 all-reduce per pair each way whatever the recipe, at the
// all-reduce's own rate.
TEST(TimeTp, AllReducesStayBf16) {
  LayerCase s = setup("tp=8,sp=off,pp=1,dp=1,rows_per_mb=1", Precision::fp8, Stack::megatron);
  s.layout.fp8_recipe = Fp8Recipe::tensorwise;
  const TpSeconds t = tp_seconds(s);
  const double ar = timing::collective_time(s.rates, hw::Collective::all_reduce, 2 * kTokens * kHidden, kTp, kTp);
  EXPECT_DOUBLE_EQ(t.fwd, 2 * ar);
  EXPECT_DOUBLE_EQ(t.bwd, 2 * ar);
}

// Inside an NVSwitch domain the all-reduce's measured busbw (to 480 GB/s on H100's 450 GB/s
// links) is NVLink SHARP's in-switch reduction; a TP all-gather or reduce-scatter moves at most
// NCCL's ring ceiling, 370 GB/s (data/hw/collectives.yaml). Llama-3.1-8B's gather of a 12-row
// microbatch at TP 8, 805 MB in BF16, is at the ceiling, below the all-reduce of the same bytes.
TEST(TimeTp, NvlinkGathersMoveAtTheRingCeilingNotNvlinkSharp) {
  const hw::FabricFacts& nvl = hw::nvlink_facts();
  const double bytes = 2.0 * 12 * 8192 * 4096;
  const double ceiling = 370.0 / 450;
  EXPECT_NEAR(hw::link_fraction(nvl, hw::Collective::all_gather, bytes, 1), ceiling, 1e-9);
  EXPECT_NEAR(hw::link_fraction(nvl, hw::Collective::reduce_scatter, bytes, 1), ceiling, 1e-9);
  EXPECT_GT(hw::link_fraction(nvl, hw::Collective::all_reduce, bytes, 1), 1.05 * ceiling);
}

}  // namespace
}  // namespace ladle::plan
