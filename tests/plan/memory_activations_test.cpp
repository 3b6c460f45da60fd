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

}  // namespace
}  // namespace ladle::plan
