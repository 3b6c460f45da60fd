// GPT-3-style models (model_type gpt2): activation memory against Korthikanti et al. 2022's own
// count, and the FLOP conventions that depend on the MLP having two matrices.
#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/measurements.hpp"
#include "ladle/plan/predictor.hpp"

namespace ladle::plan {
namespace {

// Korthikanti et al. 2022 (arXiv 2205.05198), sec. 4.2.3, equation (6): with tensor and sequence
// parallelism and selective recomputation a layer keeps 34 s b h / t bytes, of which 2 s b h / t
// are the two dropout masks after attention and after the MLP (sec. 4.1: "sbh" each); ladle's
// recipes train without dropout, so 32 s b h / t. Appendix B: under the interleaved schedule the
// first pipeline rank holds L (1 + (p - 1) / (p m)) layers' worth, m virtual stages per rank.
TEST(GptMemory, ActivationsOfTheFirstStageAreKorthikantisCount) {
  const ModelSpec model = model::load_model("gpt3-175b");
  constexpr int64_t kGpus = 64;
  constexpr int64_t kSeq = 2048;
  constexpr int64_t kBatch = 64;
  const ModelCosts costs = model_costs(model, kSeq);
  const Cluster cluster = make_cluster("a100", kGpus);
  const layout::LayoutContext context{kGpus, 8, kSeq, kBatch};
  const Layout l = layout::resolve_layout(
      layout::parse_layout_spec(
          "tp=8,sp=on,pp=8,vpp=3,dp=1,recompute=selective,recompute_modules=core_attn,"
          "rows_per_mb=1,dist_opt=off"),
      context);
  ASSERT_EQ(layout::find_layout_violation(l, model, context), std::nullopt);
  const MemoryEstimate m =
      estimate_memory(costs, l, layout::stage_layers(l, model.num_layers),
                      layout::microbatches_per_step(l, context), cluster, Calibration{});
  const double s = kSeq;
  const double h = 12288;
  const double t = 8;
  const double p = 8;
  const double v = 3;
  const double layers = 96;
  const double expected = 32.0 * s * h / t * layers * (1.0 + (p - 1.0) / (p * v));
  const double ours = m.worst[static_cast<size_t>(MemoryPart::activations)];
  EXPECT_NEAR(ours / expected, 1.0, 0.01) << ours / (1024.0 * 1024.0 * 1024.0) << " GiB";
}

// Megatron-LM's count without --swiglu has two MLP matrices (its gated_linear_multiplier is 1),
// and then equals the paper's model-FLOP formula 72 l h^2 (1 + s/(6h) + V/(12 l h)) per token up
// to the causal half of the attention square (Korthikanti et al. 2022, sec. 6, counts it whole)
// and the QKV biases ladle does not count as FLOPs.
TEST(GptMemory, MegatronFlopsOfAGptModelHaveTwoMlpMatrices) {
  const ModelSpec model = model::load_model("gpt3-175b");
  const ModelCosts costs = model_costs(model, 2048);
  const double l = 96;
  const double h = 12288;
  const double s = 2048;
  const double vocab = 51200;
  const double paper_without_attention = 72.0 * l * h * h * (1.0 + vocab / (12.0 * l * h));
  const double causal_attention = 72.0 * l * h * h * s / (6.0 * h) / 2.0;
  EXPECT_NEAR(flops_per_token(costs, "megatron_lm") / (paper_without_attention + causal_attention),
              1.0, 1e-9);
  // Narayanan et al. 2021, equation (3): the same model with the forward run twice.
  EXPECT_DOUBLE_EQ(flops_per_token(costs, "narayanan_2021"),
                   96.0 * l * h * h * (1.0 + s / (6.0 * h) + vocab / (16.0 * l * h)));
}

}  // namespace
}  // namespace ladle::plan
