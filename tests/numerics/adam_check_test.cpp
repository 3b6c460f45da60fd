#include "ladle/numerics/adam_check.hpp"

#include <gtest/gtest.h>

#include "ladle/numerics/adam_check_io.hpp"
#include "support/test_support.hpp"

namespace ladle::numerics {
namespace {

// A small layer: 16 experts at EP 4 (4 local), hidden 128, FFN 64, shared FFN 32.
AdamCheckOptions small_options() {
  AdamCheckOptions o;
  o.shape = parse_layer_shape("hidden=128,experts=16,topk=2,ffn=64,shared_ffn=32,ep=4,tokens=256,name=test");
  o.self_test = false;
  o.threads = 2;
  return o;
}

const PathReport& path_of(const AdamCheckReport& r, AdamPath p) {
  for (const PathReport& x : r.paths) {
    if (x.path == p) return x;
  }
  throw std::logic_error("path missing");
}

TEST(AdamCheck, DefaultShapeIsTheSeedsRankShard) {
  const LayerShape shape;
  const std::vector<TensorSpec> tensors = layer_tensors(shape, 1.0);
  ASSERT_EQ(tensors.size(), 4u + 2u * 64u);
  int64_t elements = 0;
  for (const TensorSpec& t : tensors) elements += t.elements();
  EXPECT_EQ(elements, 819'990'528);
  EXPECT_EQ(kept_experts(shape, 1.0 / 64), 1);
  EXPECT_EQ(layer_tensors(shape, 0.125).size(), 4u + 2u * 8u);
  EXPECT_EQ(describe_shape(shape, 1.0),
            "one Qwen3.5-397B-A17B MoE layer: hidden 4,096, 512 experts, top-10, expert FFN 1,024, "
            "shared expert FFN 1,024, EP 8, ETP 1, 4,096 tokens per rank");
}

TEST(AdamCheck, RejectsBadShapesAndSteps) {
  EXPECT_LADLE_ERROR(parse_layer_shape("hiden=4"), usage, "unknown key 'hiden' (did you mean 'hidden'?)");
  EXPECT_LADLE_ERROR(parse_layer_shape("experts=10,ep=4"), usage, "experts (10) must be divisible by ep (4)");
  EXPECT_LADLE_ERROR(parse_layer_shape("ffn=-3"), usage, "ffn: expected a positive integer");
  EXPECT_LADLE_ERROR(parse_layer_shape("hidden"), usage, "expected key=value, got 'hidden'");
  EXPECT_EQ(parse_step_list("3,1,3"), (std::vector<int>{1, 3}));
  EXPECT_LADLE_ERROR(parse_step_list("1,x"), usage, "--steps: expected step counts");
  EXPECT_LADLE_ERROR(parse_step_list("0"), usage, "--steps");
  AdamCheckOptions o = small_options();
  o.scale = 0.0;
  EXPECT_LADLE_ERROR(run_adam_check(o), usage, "--scale: expected a fraction in (0, 1]");
}

TEST(AdamCheck, PathsPassControlsFailMastersMatch) {
  const AdamCheckReport r = run_adam_check(small_options());
  EXPECT_TRUE(r.passed) << render_adam_check_text(r);
  EXPECT_EQ(r.bitwise_mismatches, 0u);
  EXPECT_EQ(r.bitwise_compared, static_cast<uint64_t>(r.elements) * 3u);
  for (const PathReport& p : r.paths) {
    EXPECT_EQ(p.passed, !is_control(p.path)) << to_string(p.path);
    ASSERT_EQ(p.steps.size(), 2u);
  }
  // The good paths are well inside the bound; FP32 masters carry ~1e-4 relative error of a 1e-5
  // update, and the precision-aware masters are the explicit ones bit for bit.
  const PathReport& aware = path_of(r, AdamPath::precision_aware);
  const PathReport& explicit_arm = path_of(r, AdamPath::explicit_master);
  EXPECT_LT(aware.steps[0].rel_l2, 1e-3);
  EXPECT_GT(aware.steps[0].rel_l2, 0.0);
  EXPECT_EQ(aware.steps[0].rel_l2, explicit_arm.steps[0].rel_l2);
  EXPECT_EQ(aware.steps[1].rel_l2, path_of(r, AdamPath::default_mixed).steps[1].rel_l2);
  EXPECT_EQ(aware.steps[1].bound, 2.0 * path_of(r, AdamPath::default_mixed).steps[1].rel_l2 + 1e-3);
  // Each control fails for its own reason.
  EXPECT_GT(path_of(r, AdamPath::control_remainders_dropped).steps[0].rel_l2, 0.1);
  EXPECT_GT(path_of(r, AdamPath::control_truncating_split).bf16_mismatch, 0.1);
  EXPECT_GT(path_of(r, AdamPath::control_no_bias_correction).steps[0].rel_l2, 0.1);
}

TEST(AdamCheck, ResultsDoNotDependOnTheThreadCount) {
  AdamCheckOptions one = small_options();
  one.threads = 1;
  AdamCheckOptions three = small_options();
  three.threads = 3;
  const AdamCheckReport a = run_adam_check(one);
  const AdamCheckReport b = run_adam_check(three);
  EXPECT_EQ(render_adam_check_json(a), render_adam_check_json(b));
  EXPECT_EQ(render_adam_check_text(a), render_adam_check_text(b));
}

TEST(AdamCheck, LowPrecisionStatesKeepMastersBitwiseButLoseAccuracy) {
  AdamCheckOptions o = small_options();
  o.exp_avg_dtype = StateDtype::bf16;
  o.exp_avg_sq_dtype = StateDtype::fp16;
  o.main_grads_dtype = StateDtype::bf16;
  const AdamCheckReport r = run_adam_check(o);
  EXPECT_EQ(r.bitwise_mismatches, 0u);
  const PathReport& aware = path_of(r, AdamPath::precision_aware);
  const PathReport& fp32 = path_of(r, AdamPath::default_mixed);
  EXPECT_GT(aware.steps[1].rel_l2, fp32.steps[1].rel_l2);
}

TEST(AdamCheck, SeedChangesTheData) {
  AdamCheckOptions o = small_options();
  const AdamCheckReport a = run_adam_check(o);
  o.seed = 99;
  const AdamCheckReport b = run_adam_check(o);
  EXPECT_NE(path_of(a, AdamPath::default_mixed).steps[0].rel_l2,
            path_of(b, AdamPath::default_mixed).steps[0].rel_l2);
}

TEST(AdamCheck, EntryHasTheSeedsFields) {
  const AdamCheckReport r = run_adam_check(small_options());
  const std::string yaml = render_component_test_entry(r, {"2026-11-30", "none (CPU)"});
  for (const char* key : {"- test: ", "  shape: ", "  gpu: none (CPU)", "  date: 2026-11-30",
                          "  result: pass", "  detail: ", "  note: "}) {
    EXPECT_NE(yaml.find(key), std::string::npos) << key << "\n" << yaml;
  }
}

TEST(AdamCheck, EntryFieldsFollowTheSeedsOrderAndReportFailure) {
  AdamCheckOptions o = small_options();
  o.exp_avg_dtype = StateDtype::bf16;  // BF16 moments miss the BF16 weight bound on this layer
  o.exp_avg_sq_dtype = StateDtype::fp16;
  o.main_grads_dtype = StateDtype::bf16;
  const AdamCheckReport r = run_adam_check(o);
  const auto fields = component_test_fields(r, {"2026-11-30", "H200"});
  std::vector<std::string> keys;
  for (const auto& [key, value] : fields) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"test", "shape", "gpu", "date", "result", "detail", "note"}));
  EXPECT_EQ(fields[4].second, r.passed ? "pass" : "fail");
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.controls_failed);
}

TEST(AdamCheck, CudaWithoutKernelsIsAnError) {
  AdamCheckOptions o = small_options();
  o.device = Device::cuda;
#ifndef LADLE_HAVE_CUDA
  EXPECT_LADLE_ERROR(run_adam_check(o), io, "--device cuda: this ladle was built without CUDA");
#endif
  o.exp_avg_dtype = StateDtype::fp16;
  o.exp_avg_sq_dtype = StateDtype::fp16;
  EXPECT_LADLE_ERROR(run_adam_check(o), usage, "both moments in fp32 or both in bf16");
}

}  // namespace
}  // namespace ladle::numerics
