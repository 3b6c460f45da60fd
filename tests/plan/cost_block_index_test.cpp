// MiniMax-M3's block index as Megatron runs it (plan/model_costs): NVIDIA-NeMo/Megatron-Bridge's
// minimax_m3_bridge.py @ 0bb6ef4a maps no index weights and runs full causal attention on every
// layer, so the planner's layer kinds hold neither the index nor its scoring, and every layer (and
// the MTP layer) attends to all causal keys. On the real config of tests/data/model/ (its
// .source.txt names where it came from); expectations by hand from the config in the comments.
#include <gtest/gtest.h>

#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/plan/model_costs.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

ModelSpec minimax_m3() {
  return model::read_config_file(test::source_path("tests/data/model/real_minimax-m3.json"));
}

TEST(CostBlockIndex, MegatronBuildsNoIndexAndAttendsToEveryKey) {
  const ModelSpec spec = minimax_m3();
  ASSERT_EQ(spec.count_indexers(), 57);  // the model itself has the index on 57 layers
  const ModelCosts c = model_costs(spec, 8192);
  // 2 x 64 heads x (128 + 128) x the mean causal context of 8192 tokens, 4096.5 keys.
  const double dense = 2.0 * 64 * 256 * model::mean_causal_context(8192, 0);
  for (const LayerKind& k : c.kinds) {
    EXPECT_FALSE(k.indexer) << k.name;
    EXPECT_EQ(k.indexer_flops, 0.0) << k.name;
    EXPECT_DOUBLE_EQ(k.attention_flops, dense) << k.name;
    for (const Gemm& g : k.gemms) EXPECT_NE(g.module, GemmModule::indexer) << k.name;
  }
  // Three dense-MLP layers and 57 MoE layers: two kinds, the MoE one without the index.
  ASSERT_EQ(c.kinds.size(), 2u);
  EXPECT_EQ(c.kinds[0].name, "gqa+dense");
  EXPECT_EQ(c.kinds[1].name, "gqa+moe");
  // Per MoE layer, what every TP rank holds whole: two layer norms (2 x 6,144), the q/k norms
  // (2 x 128), the router (128 x 6,144) and its correction bias (128): 799,104; without the
  // index's 4 x 128 + 128 + 2 x 128 projections and norms (3,932,416) it would have held.
  EXPECT_DOUBLE_EQ(c.kinds[1].replicated_params, 2.0 * 6144 + 2 * 128 + 128.0 * 6144 + 128);
  // The MTP layer is Megatron's too: no index, every causal key.
  EXPECT_EQ(c.num_mtp_layers, 1);
  EXPECT_FALSE(c.mtp.indexer);
  EXPECT_DOUBLE_EQ(c.mtp.attention_flops, dense);
}

}  // namespace
}  // namespace ladle::plan
