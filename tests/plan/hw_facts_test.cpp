#include "ladle/hw/hw_facts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ladle/hw/catalog.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

TEST(HwFacts, FabricsAreMatchedByTheInstancesFabricName) {
  EXPECT_EQ(hw::fabric_for("EFAv3").name, "efa");
  EXPECT_EQ(hw::fabric_for("InfiniBand NDR").name, "infiniband");
  EXPECT_EQ(hw::fabric_for("RoCE v2").name, "ethernet");
  EXPECT_EQ(hw::nvlink_facts().name, "nvlink");
  // Per-call latencies are tens of microseconds to a little over a hundred, never milliseconds.
  for (const hw::FabricFacts& f : hw::fabric_facts()) {
    EXPECT_GE(f.latency_s, 5e-6) << f.name;
    EXPECT_LE(f.latency_s, 2e-4) << f.name;
  }
}

TEST(HwFacts, LinkFractionFollowsThePublishedSweep) {
  const hw::FabricFacts& efa = hw::fabric_for("EFAv2");
  // 2-node all-reduce of 8 GiB on p5: busbw 477.71 GB/s over 16 ranks is an algbw of
  // 477.71 x 16 / 30 = 254.78 GB/s; the node moves 2 x 1/2 of the buffer: 254.78 / 400 GB/s.
  EXPECT_NEAR(hw::link_fraction(efa, hw::Collective::all_reduce, 8589934592.0, 2), 477.71 * 16 / 30 / 400, 1e-9);
  // Held at the ends: larger than published is the largest point, smaller the smallest.
  EXPECT_DOUBLE_EQ(hw::link_fraction(efa, hw::Collective::all_reduce, 1e12, 2),
                   hw::link_fraction(efa, hw::Collective::all_reduce, 8589934592.0, 2));
  // Between sizes, log-linear: halfway (in log size) between 32 MiB and 128 MiB.
  const double low = hw::link_fraction(efa, hw::Collective::all_reduce, 33554432.0, 2);
  const double high = hw::link_fraction(efa, hw::Collective::all_reduce, 134217728.0, 2);
  EXPECT_NEAR(hw::link_fraction(efa, hw::Collective::all_reduce, 67108864.0, 2), 0.5 * (low + high), 1e-12);
  // Larger messages move a larger fraction; more nodes a smaller one at 8 GiB (published).
  EXPECT_LT(low, high);
  EXPECT_GT(hw::link_fraction(efa, hw::Collective::all_to_all, 2147483648.0, 2),
            hw::link_fraction(efa, hw::Collective::all_to_all, 2147483648.0, 32));
  // All-gather has its own EFA sweep (2 nodes, 2 GiB: busbw 328.58 over 16 ranks, the node
  // moves half the buffer), and reduce-scatter, the same ring traffic, takes it.
  EXPECT_NEAR(hw::link_fraction(efa, hw::Collective::all_gather, 2147483648.0, 2),
              328.58 * 16 / 15 / 2 / 400, 1e-9);
  EXPECT_DOUBLE_EQ(hw::link_fraction(efa, hw::Collective::reduce_scatter, 3e8, 8),
                   hw::link_fraction(efa, hw::Collective::all_gather, 3e8, 8));
  EXPECT_NE(hw::link_fraction(efa, hw::Collective::all_gather, 3e8, 8),
            hw::link_fraction(efa, hw::Collective::all_reduce, 3e8, 8));
  // InfiniBand's all-to-all is DeepEP's: 43 GB/s of RDMA per GPU at EP16, 8 GPUs per node,
  // over 8 x 50 GB/s; its ring collectives its own published sweep (CoreWeave H100 NDR: 2 nodes
  // 440.58 GB/s at 8 GiB), not EFA's.
  const hw::FabricFacts& ib = hw::fabric_for("InfiniBand NDR");
  EXPECT_NEAR(hw::link_fraction(ib, hw::Collective::all_to_all, 234881024.0, 2), 43.0 * 8 / 400, 1e-9);
  EXPECT_NEAR(hw::link_fraction(ib, hw::Collective::all_reduce, 8589934592.0, 2), 440.58 * 16 / 30 / 400,
              1e-9);
  EXPECT_NE(hw::link_fraction(ib, hw::Collective::all_reduce, 1e9, 4),
            hw::link_fraction(efa, hw::Collective::all_reduce, 1e9, 4));
  // Inside a node, NVLink's all-reduce is message-size dependent (DGX H100 sweep): 100 MB, a
  // TP all-gather of one 8,192-token microbatch, moves a smaller fraction than 1 GiB.
  const hw::FabricFacts& nvl = hw::nvlink_facts();
  EXPECT_LT(hw::link_fraction(nvl, hw::Collective::all_gather, 1e8, 1),
            hw::link_fraction(nvl, hw::Collective::all_gather, 1073741824.0, 1));
  EXPECT_NEAR(hw::link_fraction(nvl, hw::Collective::all_reduce, 134217728.0, 1), 400.53 / 450, 1e-9);
}

TEST(HwFacts, GemmCeilingsArePublishedFractions) {
  EXPECT_DOUBLE_EQ(hw::gemm_mamf_fraction("h100-sxm", false), 0.801);
  EXPECT_DOUBLE_EQ(hw::gemm_mamf_fraction("h200", true), 0.734);
  // Each Blackwell GPU has its own measured row: GB200 (1,200 W) reaches less of its peak than B200.
  EXPECT_DOUBLE_EQ(hw::gemm_mamf_fraction("gb200", false), 0.729);
  EXPECT_LT(hw::gemm_mamf_fraction("gb200", false), hw::gemm_mamf_fraction("b200", false));
  // GB300: GB200's rate times the GB300 / GB200 ratio measured in one harness.
  EXPECT_DOUBLE_EQ(hw::gemm_mamf_fraction("gb300", false), 0.795);
  EXPECT_DOUBLE_EQ(hw::gemm_nvfp4_fraction("gb200"), 0.535);
  EXPECT_DOUBLE_EQ(hw::gemm_mamf_fraction("h100-sxm", true), 0.709);
  EXPECT_DOUBLE_EQ(hw::gemm_mamf_fraction("a100", true), hw::kernel_facts().fp8_default);  // no FP8 row
  EXPECT_GT(hw::kernel_facts().attention_fa3, hw::kernel_facts().attention_fa2);
}

// The exponential wait is derived once, where the facts load: the published 35% FP8 forward
// speedup at twice the SFU rate gives 0.35 / (1 - 1.35 / 2) FP8 MMA times, and putting it back
// into forward = MMA + wait gives the speedup again.
TEST(HwFacts, SoftmaxWaitIsDerivedFromThePublishedSpeedup) {
  const hw::KernelFacts& k = hw::kernel_facts();
  EXPECT_NEAR(k.softmax_exp_wait, 0.35 / (1 - 1.35 / 2), 1e-12);
  EXPECT_NEAR((1 + k.softmax_exp_wait) / (1 + k.softmax_exp_wait / k.softmax_sfu_ratio), k.softmax_fp8_forward_speedup,
              1e-12);
}

// The FlashAttention-3 paper's forward figure (H100, causal, 8k): cuDNN 379 / 529 / 497 and
// FlashAttention-2 295 / 333 / 297 TFLOP/s at heads of 64 / 128 / 256. Narrower heads take their
// measured share, linear between sizes and held below the narrowest; from 128 up, 1.
TEST(HwFacts, AttentionHeadsNarrowerThan128RunAtTheirMeasuredRate) {
  const hw::KernelFacts& k = hw::kernel_facts();
  EXPECT_NEAR(hw::attention_head_dim_efficiency(k.head_dim_fa3, 64), 379.0 / 529, 1e-12);
  EXPECT_NEAR(hw::attention_head_dim_efficiency(k.head_dim_fa3, 96), (379.0 + 529) / 2 / 529, 1e-12);
  EXPECT_NEAR(hw::attention_head_dim_efficiency(k.head_dim_fa3, 32), 379.0 / 529, 1e-12);
  EXPECT_DOUBLE_EQ(hw::attention_head_dim_efficiency(k.head_dim_fa3, 128), 1.0);
  EXPECT_DOUBLE_EQ(hw::attention_head_dim_efficiency(k.head_dim_fa3, 192), 1.0);
  EXPECT_DOUBLE_EQ(hw::attention_head_dim_efficiency(k.head_dim_fa3, 256), 1.0);
  EXPECT_NEAR(hw::attention_head_dim_efficiency(k.head_dim_fa2, 64), 295.0 / 333, 1e-12);
}

// A GPU's own measured attention (kernels.yaml attention_gpus) scales the calibrated fraction by
// its share of its peak over cuDNN's on the H100 (529 of the H100's peak): AITER's 1,173.2 of
// the MI355X's 2,516.6 and 956.59 of the MI350X's 2,306.9; a GPU without a row is priced as the H100.
TEST(HwFacts, AGpusOwnAttentionMeasurementScalesItsFraction) {
  const double h100 = hw::require_gpu("h100-sxm").bf16_dense_tflops;
  EXPECT_NEAR(hw::attention_gpu_ratio(hw::require_gpu("mi355x")), (1173.2 / 2516.6) / (529 / h100), 1e-9);
  EXPECT_NEAR(hw::attention_gpu_ratio(hw::require_gpu("mi350x")), (956.59 / 2306.9) / (529 / h100), 1e-9);
  EXPECT_DOUBLE_EQ(hw::attention_gpu_ratio(hw::require_gpu("h200")), 1.0);
  EXPECT_DOUBLE_EQ(hw::attention_gpu_ratio(hw::require_gpu("mi325x")), 1.0);
  // The MI350X measures no narrower head: the H100's ratio prices its narrow heads.
  EXPECT_FALSE(hw::gpu_attention("mi350x")->curve.has_narrow_head());
  EXPECT_TRUE(hw::gpu_attention("mi355x")->curve.has_narrow_head());
}

// cuDNN's gpt-oss windows (128 tokens, heads of 64) against its causal heads of 128, in one run
// per GPU; a sibling GPU takes the row, any other window, head size or GPU none.
TEST(HwFacts, MeasuredSlidingWindowsAreRatesOverTheSameRunsCausalOnes) {
  const hw::KernelFacts::WindowAttention* gb300 = hw::window_attention("gb300", 128, 64);
  ASSERT_NE(gb300, nullptr);
  EXPECT_NEAR(gb300->forward, 179.0 / 1991, 1e-12);
  EXPECT_NEAR(gb300->backward, 198.0 / 1448, 1e-12);
  EXPECT_EQ(hw::window_attention("b300", 128, 64), gb300);
  EXPECT_NEAR(hw::window_attention("b200", 128, 64)->forward, 166.0 / 1646, 1e-12);
  EXPECT_EQ(hw::window_attention("h100-sxm", 128, 64), nullptr);
  EXPECT_EQ(hw::window_attention("gb300", 256, 64), nullptr);
  EXPECT_EQ(hw::window_attention("gb300", 128, 128), nullptr);
}

// cuDNN 9.19's causal attention by sequence length, one harness on three GPUs (kernels.yaml
// attention_length): each pass at L tokens over its rate at 8,192; log-linear between measured
// lengths, held above the longest, a fixed cost per query tile below the shortest; a sibling takes
// its GPU's row and a GPU without one the first (the H200's).
TEST(HwFacts, AttentionRunsAtItsMeasuredRateForTheLengthItAttendsOver) {
  const hw::AttentionLengthRatio at8k = hw::attention_length_ratio("gb200", 8192);
  EXPECT_DOUBLE_EQ(at8k.forward, 1.0);
  EXPECT_DOUBLE_EQ(at8k.backward, 1.0);
  EXPECT_EQ(at8k.measured_on, "gb200");
  EXPECT_NEAR(hw::attention_length_ratio("gb200", 4096).forward, 1335.0 / 1598, 1e-12);
  EXPECT_NEAR(hw::attention_length_ratio("b200", 2048).backward, 836.0 / 1311, 1e-12);
  EXPECT_NEAR(hw::attention_length_ratio("h200", 2048).forward, 484.0 / 644, 1e-12);
  // Halfway in log length between 4k and 8k: halfway in rate.
  EXPECT_NEAR(hw::attention_length_ratio("gb300", 4096 * std::sqrt(2.0)).forward, (1672.0 + 1887) / 2 / 1887, 1e-12);
  EXPECT_NEAR(hw::attention_length_ratio("gb300", 1 << 20).forward, 2014.0 / 1887, 1e-12);
  // Below 2k: the rate proportional to L / (L + c), c from 2k and 4k ((2048 + c) / (4096 + c) = q).
  const double q = 591.0 / 484 * 2048 / 4096;
  const double c = (q * 4096 - 2048) / (1 - q);
  EXPECT_NEAR(hw::attention_length_ratio("h100-sxm", 1024).forward,
              484.0 / 644 * (1024 / (1024 + c)) * ((2048 + c) / 2048), 1e-12);
  EXPECT_LT(hw::attention_length_ratio("h100-sxm", 1024).forward, 484.0 / 644);
  EXPECT_GT(hw::attention_length_ratio("h100-sxm", 1024).forward, 0.25);
  const hw::AttentionLengthRatio a100 = hw::attention_length_ratio("a100", 2048);
  EXPECT_EQ(a100.measured_on, "h200");
  EXPECT_NEAR(a100.backward, 370.0 / 541, 1e-12);
}

// The time model gives Blackwell the attention fraction of peak calibrated on Hopper. The one
// release measured on both in one harness agrees: a GB200's 8k causal rate is 0.98 (forward) and
// 0.96 (backward) of the H200's share of its peak.
TEST(HwFacts, BlackwellRunsAttentionAtHoppersShareOfItsPeakInOneRelease) {
  const auto at8k = [](std::string_view gpu, bool forward) {
    for (const hw::KernelFacts::AttentionLength& row : hw::kernel_facts().attention_length) {
      if (row.gpus.front() != gpu) continue;
      const auto i = static_cast<size_t>(std::find(row.tokens.begin(), row.tokens.end(), 8192.0) - row.tokens.begin());
      return (forward ? row.forward : row.backward)[i] / hw::find_gpu(gpu)->bf16_dense_tflops;
    }
    return 0.0;
  };
  for (bool forward : {true, false}) {
    ASSERT_GT(at8k("h200", forward), 0);
    EXPECT_NEAR(at8k("gb200", forward) / at8k("h200", forward), 1.0, 0.05) << forward;
  }
}

TEST(HwFacts, CovarianceWidensTheIntervalOfALayoutThatDependsOnAnUncertainConstant) {
  const Calibration& cal = default_calibration();
  ASSERT_FALSE(cal.covariance_names.empty());
  // The written calibration reads back with its covariance.
  const Calibration back = read_calibration(write_calibration(cal, {"header"}), "c.yaml");
  EXPECT_EQ(back.covariance_names, cal.covariance_names);
  ASSERT_EQ(back.covariance.size(), cal.covariance.size());
  // Without a covariance the interval is the residual half-width; with it, never narrower.
  Calibration plain = cal;
  plain.covariance_names.clear();
  plain.covariance.clear();
  const ModelSpec model = model::load_model("glm-4.7-flash");
  const ModelCosts costs = model_costs(model, 8192);
  const Cluster cluster = make_cluster("h200", 8);
  Workload w;
  const Layout l = layout::resolve_layout(layout::parse_layout_spec("tp=1,ep=8,recompute=full,rows_per_mb=2"),
                                          layout::LayoutContext{8, 8, 8192, 128});
  const std::vector<int64_t> stages = layout::stage_layers(l, costs.num_layers);
  const int64_t m = layout::microbatches_per_step(l, layout::LayoutContext{8, 8, 8192, 128});
  EXPECT_DOUBLE_EQ(interval_log_halfwidth(costs, l, stages, m, cluster, w, plain), plain.interval_log_halfwidth);
  EXPECT_GE(interval_log_halfwidth(costs, l, stages, m, cluster, w, cal), cal.interval_log_halfwidth);
}

TEST(HwFacts, RankP10OrdersByTheIntervalsLowerEnd) {
  PlanRequest r;
  r.model = model::load_model("glm-4.7-flash");
  r.cluster = make_cluster("h200", 8);
  r.calibration = default_calibration();
  r.top = 4;
  r.rank = Rank::p10;
  const PlanReport report = plan_layouts(r);
  ASSERT_EQ(report.top.size(), 4u);
  EXPECT_EQ(report.rank, Rank::p10);
  for (size_t i = 1; i < report.top.size(); ++i) {
    EXPECT_GE(report.top[i - 1].tokens_per_s_low, report.top[i].tokens_per_s_low);
  }
  EXPECT_LADLE_ERROR(parse_rank("p5"), usage, "unknown rank 'p5'; expected median or p10");
}

}  // namespace
}  // namespace ladle::plan
