// What the unfused gated activation (swiglu_fusion=off) keeps for backward beyond the fused
// kernel (plan/memory_activations.cpp): autograd's silu output and x_linear + offset (two BF16
// tensors of the half width) for a dense MLP, and for each routed copy also the glu's output that
// the multiply by the routing probabilities keeps. Counted by hand per token.
#include "ladle/plan/memory_activations.hpp"

#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"

namespace ladle::plan {
namespace {

struct Case {
  ModelCosts costs;
  Layout layout;
};

Case setup(const std::string& model_name, const std::string& spec) {
  Case s;
  s.costs = model_costs(model::load_model(model_name), 4096);
  const layout::LayoutContext context{8, 8, 4096, 64};
  s.layout = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  return s;
}

double per_token(const Case& s) {
  return mem::layer_activation_bytes(s.costs, s.costs.kinds.at(0), s.layout, mem::storage_of(s.layout), 1.0);
}

double unfused_extra(Case s) {
  const double fused = per_token(s);
  s.layout.swiglu_fusion = false;
  return per_token(s) - fused;
}

// Llama-3.1-8B at TP 2: 2 x 2 bytes x 14,336 / 2 per token.
TEST(MemoryActivations, UnfusedSwigluKeepsTwoMoreHalfWidthTensors) {
  const Case s = setup("llama-3.1-8b", "tp=2,sp=on,pp=1,dp=4,recompute=none,rows_per_mb=1");
  ASSERT_EQ(s.costs.ffn, 14336);
  EXPECT_DOUBLE_EQ(unfused_extra(s), 2 * 2 * 14336.0 / 2);
}

// Under activation_func_fp8_input_store the fused kernel keeps fc1's output (2 x 14,336 / 2) in
// one byte; unfused, autograd keeps it in BF16: one more byte an element besides the two tensors.
TEST(MemoryActivations, UnfusedSwigluStoresNoFp8Input) {
  Case s = setup("llama-3.1-8b", "tp=2,sp=on,pp=1,dp=4,recompute=none,rows_per_mb=1");
  s.layout.act_fp8_store = true;
  EXPECT_DOUBLE_EQ(unfused_extra(s), 2 * 14336.0 / 2 + 2 * 2 * 14336.0 / 2);
}

// Recomputing the MLP keeps only its input, fused or not.
TEST(MemoryActivations, RecomputedMlpKeepsNoUnfusedIntermediates) {
  const Case s = setup("llama-3.1-8b", "tp=2,sp=on,pp=1,dp=4,recompute=selective,recompute_modules=mlp,rows_per_mb=1");
  EXPECT_DOUBLE_EQ(unfused_extra(s), 0.0);
}

// Qwen3-30B-A3B at EP 8: top-8 routed copies per token, each keeping three more BF16 tensors of
// the 768-wide expert half width; none under recompute_modules=moe_act.
TEST(MemoryActivations, UnfusedRoutedActivationKeepsThreeMoreTensorsPerCopy) {
  const Case s = setup("qwen3-30b-a3b", "tp=1,pp=1,ep=8,etp=1,recompute=none,rows_per_mb=1");
  ASSERT_TRUE(s.costs.kinds.at(0).moe);
  ASSERT_EQ(s.costs.shared_ffn, 0);
  ASSERT_EQ(s.costs.moe_ffn, 768);
  ASSERT_EQ(s.costs.top_k, 8);
  EXPECT_DOUBLE_EQ(unfused_extra(s), 8 * 3 * 2 * 768.0);
  const Case act = setup("qwen3-30b-a3b", "tp=1,pp=1,ep=8,etp=1,recompute=selective,recompute_modules=moe_act,rows_per_mb=1");
  EXPECT_DOUBLE_EQ(unfused_extra(act), 0.0);
}

// DeepSeek's own trainer (schedule=dualpipe) on a DeepSeek-V3 MoE layer at EP 8, one token, the
// routed copies at their mean (8): what the DeepSeek-V3 report says it stores beyond the layout's
// Megatron-LM recompute. Under FP8 the routed SwiGLU inputs (8 copies of 2 x 2,048) in FP8 tiles of
// 1 + 4/128 bytes instead of BF16 (section 3.3.3), the attention output (128 heads x 128) in E5M6
// tiles of 1.5 + 4/128 bytes instead of 2 (3.3.3), and, with the RMSNorms and up-projections
// recomputed, no normed latents (1,536 + 512 in BF16; 3.2.3). In BF16 only the last.
TEST(MemoryActivations, DeepSeekTrainerStoresWhatItsReportStates) {
  const std::string recompute = "tp=1,pp=2,ep=8,recompute=selective,recompute_modules=moe_act+layernorm+mla_up_proj";
  const auto layer = [](const Case& s) {
    for (const LayerKind& kind : s.costs.kinds) {
      if (kind.moe) return mem::layer_activation_bytes(s.costs, kind, s.layout, mem::storage_of(s.layout), 1.0);
    }
    ADD_FAILURE() << "no MoE layer";
    return 0.0;
  };
  const std::string fp8 = ",fp8=e4m3,fp8_recipe=blockwise";
  const Case megatron = setup("deepseek-v3", recompute + fp8);
  const Case deepseek = setup("deepseek-v3", recompute + fp8 + ",schedule=dualpipe");
  ASSERT_EQ(megatron.costs.top_k, 8);
  ASSERT_EQ(megatron.costs.moe_ffn, 2048);
  ASSERT_EQ(megatron.costs.heads, 128);
  ASSERT_EQ(megatron.costs.v_head_dim, 128);
  ASSERT_EQ(megatron.costs.q_lora_rank + megatron.costs.kv_lora_rank, 2048);
  const double swiglu = 8 * 2 * 2048 * (2 - (1 + 4.0 / 128));
  const double attention_output = 128 * 128 * (2 - (1.5 + 4.0 / 128));
  const double latents = 2 * 2048.0;
  EXPECT_DOUBLE_EQ(layer(megatron) - layer(deepseek), swiglu + attention_output + latents);
  const Case megatron_bf16 = setup("deepseek-v3", recompute);
  const Case deepseek_bf16 = setup("deepseek-v3", recompute + ",schedule=dualpipe");
  EXPECT_DOUBLE_EQ(layer(megatron_bf16) - layer(deepseek_bf16), latents);
}

}  // namespace
}  // namespace ladle::plan
