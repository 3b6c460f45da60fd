#include "ladle/plan/measurements.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ladle/model/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

// A valid file; each test breaks one thing in it.
const std::string kHead =
    "source:\n"
    "  id: test\n"
    "  publisher: Tester\n"
    "  repo: NVIDIA/Megatron-LM\n"
    "  path: examples/llama/README.md\n"
    "  commit: d98e8a64ddf34856e74b24714e3bedb2f5a39553\n"
    "system:\n"
    "  gpu: h100-sxm\n"
    "  gpus_per_node: 8\n"
    "  network_gbps: 3200\n"
    "runs:\n";

std::string run(const std::string& measured, const std::string& layout = "layout: tp=1,cp=2,dp=4") {
  return "  - id: r1\n"
         "    model: llama-3.1-8b\n"
         "    gpus: 8\n"
         "    " +
         layout +
         "\n"
         "    row_tokens: 8192\n"
         "    global_batch: 128\n"
         "    precision: fp8\n"
         "    measured: " +
         measured + "\n";
}

TEST(Measurements, ReadsTheFigureInEachUnit) {
  const MeasurementSet tokens =
      read_measurements(kHead + run("{value: 13812, unit: tokens/s/gpu}"), "m.yaml");
  ASSERT_EQ(tokens.runs.size(), 1u);
  const Measurement& m = tokens.runs[0];
  EXPECT_EQ(m.name, "r1");
  EXPECT_EQ(m.source, "Tester");
  EXPECT_EQ(m.layout.cp, 2);
  EXPECT_EQ(m.layout.dp, 4);
  EXPECT_EQ(m.cluster.gpus_per_node(), 8);
  EXPECT_DOUBLE_EQ(m.measured_tokens_per_s_per_gpu, 13812);
  // A step of 128 rows x 8,192 tokens on 8 GPUs in 10 s.
  const MeasurementSet step =
      read_measurements(kHead + run("{value: 10, unit: step_time_s}"), "m.yaml");
  EXPECT_DOUBLE_EQ(step.runs[0].measured_tokens_per_s_per_gpu, 128.0 * 8192 / 10 / 8);
  const MeasurementSet hours = read_measurements(
      kHead + run("{value: 180000, unit: gpu_hours_per_trillion_tokens}"), "m.yaml");
  EXPECT_NEAR(hours.runs[0].measured_tokens_per_s_per_gpu, 1e12 / (180000.0 * 3600), 1e-9);
  const MeasurementSet flops = read_measurements(
      kHead + run("{value: 400, unit: tflops/s/gpu, flop_convention: 6n}"), "m.yaml");
  EXPECT_NEAR(flops.runs[0].measured_tokens_per_s_per_gpu, 400e12 / (6 * m.costs.n_params), 1e-6);
  const MeasurementSet attention = read_measurements(
      kHead + run("{value: 400, unit: tflops/s/gpu, flop_convention: 6n_plus_attention}"),
      "m.yaml");
  // Llama 3.1 8B at 8,192 tokens: 12 x 32 layers x 32 heads x 128 x 8192 more FLOPs per token.
  EXPECT_NEAR(400e12 / attention.runs[0].measured_tokens_per_s_per_gpu - 6 * m.costs.n_params,
              12.0 * 32 * 32 * 128 * 8192, 1.0);
}

// Megatron-LM's num_floating_point_operations (training.py) written out for two published
// configs: the figure its "TFLOP/s/GPU" log line divides by, per token.
TEST(Measurements, MegatronLmFlopConvention) {
  const MeasurementSet set = read_measurements(
      kHead + run("{value: 400, unit: tflops/s/gpu, flop_convention: megatron_lm}"), "m.yaml");
  // Llama 3.1 8B, 8,192-token rows: h 4096, 32 layers, 32 heads of 128, 8 KV heads, SwiGLU 14336,
  // vocabulary 128256.
  const double h = 4096, s = 8192, layers = 32, q = 32 * 128, kv = 8 * 128;
  const double llama = 6 * h * 3 * 14336 * layers + 6 * (h * (q + 2 * kv) + q * h) * layers +
                       6 * h * 128256 + 6 * s * q * layers;
  EXPECT_NEAR(400e12 / set.runs[0].measured_tokens_per_s_per_gpu, llama, 1.0);
  EXPECT_NEAR(flops_per_token(set.runs[0].costs, "megatron_lm"), llama, 1.0);
  // DeepSeek-V3, 4,096-token rows: 3 dense layers (18432) and 58 MoE layers (top 8 of 2048 plus
  // one shared 2048), one MTP layer (an MoE layer, its norms and eh projection, its logits);
  // MLA with q rank 1536, kv rank 512, 128 heads of 128 + 64 rope, v 128; vocabulary 129280.
  const ModelSpec dsv3 = *model::find_model("deepseek-v3");
  const ModelCosts c = model_costs(dsv3, 4096);
  const double H = 7168, S = 4096, n = 128;
  const double mla = 6 * (1536 * (H + n * (128 + 64) + 1) + 512 * (H + n * (128 + 128) + 1) +
                          H * 64 + n * 128 * H);
  const double core = 6 * (n * (128 + 64) / 2 + n * 128 / 2);
  const double dsv3_flops = 6 * H * (3 * 18432 * 3 + 3 * 2048 * 8 * 59 + 3 * 2048 * 59) + mla * 62 +
                            6 * (3 * H + 2 * H * H) + 6 * H * 129280 * 2 + S * core * 62;
  EXPECT_NEAR(flops_per_token(c, "megatron_lm") / dsv3_flops, 1.0, 1e-12);
}

TEST(Measurements, ReadsPeakMemoryAndLaunchArguments) {
  const MeasurementSet set =
      read_measurements(kHead +
                            run("{value: 1, unit: tokens/s/gpu}",
                                "args: '--tensor-model-parallel-size 2 "
                                "--expert-tensor-parallel-size 1 --sequence-parallel'") +
                            "    peak_memory: {value: 81920, unit: MiB, kind: max reserved}\n",
                        "m.yaml");
  EXPECT_EQ(set.runs[0].layout.tp, 2);
  EXPECT_TRUE(set.runs[0].layout.sp);
  EXPECT_DOUBLE_EQ(set.runs[0].peak_memory_gib, 80.0);
  EXPECT_EQ(set.runs[0].peak_memory_kind, "max reserved");
}

TEST(Measurements, ResolvesLayersPerVirtualStageFromTheModel) {
  // Llama 3.1 8B's 32 layers on 2 pipeline ranks of 8-layer virtual stages: 2 chunks per rank.
  const MeasurementSet set =
      read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}",
                                    "args: '--pipeline-model-parallel-size 2 "
                                    "--num-layers-per-virtual-pipeline-stage 8'"),
                        "m.yaml");
  EXPECT_EQ(set.runs[0].layout.pp, 2);
  EXPECT_EQ(set.runs[0].layout.vpp, 2);
}

// A Megatron-Bridge run written as Megatron-LM arguments names beside them, as `layout`, what
// Megatron-LM has no argument for (fp8_dot_product_attention); a knob the arguments can say is
// theirs to say.
TEST(Measurements, ALayoutBesideArgsNamesOnlyKnobsMegatronLmHasNoArgumentFor) {
  const std::string args = "args: '--tensor-model-parallel-size 2 --expert-tensor-parallel-size 1 --sequence-parallel'";
  const MeasurementSet set =
      read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}", args + "\n    layout: fp8_dpa=on"), "m.yaml");
  EXPECT_EQ(set.runs[0].layout.tp, 2);
  EXPECT_TRUE(set.runs[0].layout.fp8_dpa);
  EXPECT_FALSE(read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}", args), "m.yaml").runs[0].layout.fp8_dpa);
  EXPECT_LADLE_ERROR(
      read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}", args + "\n    layout: fp8_dpa=on,tp=4"), "m.yaml"),
      input,
      "m.yaml:16:13: error: runs[0].layout: tp: the args say it; beside args, layout names only knobs Megatron-LM has "
      "no argument for (max_tokens, act_fp8_store, fp8_dpa, lora_rank");
}

TEST(Measurements, RejectsWhatItCannotTrust) {
  const std::string ok = run("{value: 1, unit: tokens/s/gpu}");
  std::string no_source = kHead;
  const size_t commit = no_source.find("  commit:");
  no_source.erase(commit, no_source.find('\n', commit) + 1 - commit);
  EXPECT_LADLE_ERROR(
      read_measurements(no_source + ok, "m.yaml"), input,
      "m.yaml:2:3: error: source: expected url, or repo + path + commit (40 hex digits)");
  EXPECT_LADLE_ERROR(
      read_measurements(kHead + run("{value: 1}"), "m.yaml"), input,
      "m.yaml:19:15: error: runs[0].measured.unit: missing; expected one of tokens/s/gpu");
  EXPECT_LADLE_ERROR(read_measurements(kHead + run("{value: 1, unit: tok/s}"), "m.yaml"), input,
                     "m.yaml:19:32: error: runs[0].measured.unit: unknown unit 'tok/s'");
  EXPECT_LADLE_ERROR(
      read_measurements(kHead + run("{value: 400, unit: tflops/s/gpu}"), "m.yaml"), input,
      "m.yaml:19:15: error: runs[0].measured.flop_convention: missing; TFLOP/s needs its FLOP "
      "convention: one of 6n, 6n_plus_attention, megatron_lm");
  EXPECT_LADLE_ERROR(
      read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}", "layout: tp=1,cq=2"),
                        "m.yaml"),
      input, "m.yaml:15:13: error: runs[0].layout:");
  EXPECT_LADLE_ERROR(
      read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}", "layout: tp=3"), "m.yaml"),
      input, "m.yaml:15:13: error: runs[0].layout:");
  EXPECT_LADLE_ERROR(
      read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}", "args: '--tp \"2'"),
                        "m.yaml"),
      input, "runs[0].args:");
  // A peak memory must say what it counts: max reserved, max allocated or device used.
  EXPECT_LADLE_ERROR(read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}") +
                                           "    peak_memory: {value: 80, unit: GiB, kind: peak}\n",
                                       "m.yaml"),
                     input, "runs[0].peak_memory.kind: expected max reserved, max allocated or device used, got 'peak'");
  EXPECT_LADLE_ERROR(read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}") +
                                           "    peak_memory: {value: 80, unit: GiB}\n",
                                       "m.yaml"),
                     input, "runs[0].peak_memory.kind: missing; expected max reserved, max allocated or device used");
  EXPECT_LADLE_ERROR(read_measurements(kHead + ok + ok, "m.yaml"), input,
                     "runs[1].id: run id 'r1' repeats");
  std::string bad_model = kHead + ok;
  bad_model.replace(bad_model.find("llama-3.1-8b"), 12, "llama-9b");
  EXPECT_LADLE_ERROR(read_measurements(bad_model, "m.yaml"), input,
                     "runs[0].model: unknown model 'llama-9b'");
  EXPECT_LADLE_ERROR(read_measurements(kHead + ok + "    speed: 3\n", "m.yaml"), input,
                     "runs[0].speed: unknown key");
  // Megatron-LM's count is written out here for softmax attention only: GLM-5.2's DSA indexer
  // (and linear attention, an output gate) is refused rather than miscounted.
  std::string dsa = kHead + run("{value: 400, unit: tflops/s/gpu, flop_convention: megatron_lm}",
                                "layout: tp=1,dp=8");
  dsa.replace(dsa.find("llama-3.1-8b"), 12, "glm-5.2");
  EXPECT_LADLE_ERROR(read_measurements(dsa, "m.yaml"), input,
                     "runs[0].measured.flop_convention: megatron_lm is counted here for softmax "
                     "attention without a DSA indexer or output gate; glm-5.2 has one");
}

TEST(Measurements, EmbeddedTrainingSetHasThirtyRunsFromFiveSources) {
  const MeasurementSet& set = embedded_measurements();
  EXPECT_GE(set.runs.size(), 30u);
  std::set<std::string> publishers;
  for (const MeasurementSource& s : set.sources) {
    publishers.insert(s.publisher);
    EXPECT_TRUE(!s.url.empty() || (!s.repo.empty() && !s.path.empty())) << s.id;
  }
  EXPECT_GE(publishers.size(), 5u);
  for (const Measurement& m : set.runs) {
    EXPECT_TRUE(std::isfinite(m.measured_tokens_per_s_per_gpu) &&
                m.measured_tokens_per_s_per_gpu > 0)
        << m.name;
    EXPECT_EQ(publishers.count(m.source), 1u) << m.name;
  }
}

// A source may state the Transformer Engine release its runs used: it sets their host cost per
// Transformer Engine module (stacks.yaml transformer_engine_host); a release the table does not
// cover is one line naming the field.
TEST(Measurements, ASourceStatesItsTransformerEngine) {
  std::string head = kHead;
  head.insert(head.find("system:"), "  transformer_engine: '2.9'\n");
  const MeasurementSet set = read_measurements(head + run("{value: 1, unit: tokens/s/gpu}"), "m.yaml");
  EXPECT_EQ(set.sources[0].transformer_engine, "2.9");
  EXPECT_DOUBLE_EQ(set.runs[0].workload.te_module_host_ratio, 2.69);
  EXPECT_DOUBLE_EQ(read_measurements(kHead + run("{value: 1, unit: tokens/s/gpu}"), "m.yaml")
                       .runs[0]
                       .workload.te_module_host_ratio,
                   0.0);  // not stated: the stack's
  std::string bad = kHead;
  bad.insert(bad.find("system:"), "  transformer_engine: newest\n");
  EXPECT_LADLE_ERROR(read_measurements(bad + run("{value: 1, unit: tokens/s/gpu}"), "m.yaml"), input,
                     "m.yaml:7:23: error: source.transformer_engine: expected a Transformer Engine release, e.g. '2.9', got 'newest'");
}

}  // namespace
}  // namespace ladle::plan
