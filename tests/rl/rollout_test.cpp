// The rollout model of SGLang engines: its fidelity against published serving measurements
// (data/inference/serving.yaml, each source predicted by the fit without it), the layouts it
// refuses, and the directions its answers must move in.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "ladle/hw/catalog.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/rl/rollout.hpp"
#include "ladle/rl/serving_data.hpp"
#include "ladle/util/error.hpp"

namespace ladle::rl {
namespace {

ModelSpec model_named(const char* name) {
  const std::optional<ModelSpec> m = model::find_model(name);
  EXPECT_TRUE(m.has_value()) << name;
  return *m;
}

EngineLayout engine(int tp, double mem = 0.85) {
  EngineLayout e;
  e.gpus = e.tp = tp;
  e.mem_fraction = mem;
  return e;
}

// Expects `f` to throw an Error of `kind` whose message names `field`.
template <typename F>
void expect_error(F f, ErrorKind kind, const std::string& field) {
  try {
    f();
    ADD_FAILURE() << "expected an error naming " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.message();
    EXPECT_NE(e.message().find(field), std::string::npos) << e.message();
  }
}

TEST(RolloutFidelity, PublishedMeasurementsCoverThreeSourcesAndTwentyRows) {
  const std::vector<ServingMeasurement>& rows = serving_measurements();
  std::set<std::string> sources;
  for (const ServingMeasurement& r : rows) {
    sources.insert(r.from);
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_GT(r.measured, 0) << r.id;
  }
  EXPECT_GE(rows.size(), 20u);
  EXPECT_GE(sources.size(), 3u);
}

TEST(RolloutFidelity, LeaveOneSourceOutMedianErrorWithinFifteenPercent) {
  const ServingFit fit = fit_serving(serving_measurements());
  ASSERT_GE(fit.sources.size(), 3u);
  EXPECT_LE(fit.median_abs_error_held_out, 0.15);
  for (const ServingFitRow& r : fit.rows) {
    EXPECT_GT(r.held_out, 0) << r.row->id;
    EXPECT_LE(r.lo, r.held_out) << r.row->id;
    EXPECT_GE(r.hi, r.held_out) << r.row->id;
  }
  // The constants stay inside their physical bounds.
  EXPECT_GT(fit.constants.hbm_fraction, 0.3);
  EXPECT_LE(fit.constants.hbm_fraction, 1.0);
  EXPECT_GE(fit.constants.step_overhead_s, 0.0);
}

TEST(RolloutFidelity, EmbeddedFitIsTheFitOfTheEmbeddedData) {
  const ServingFit fit = fit_serving(serving_measurements());
  const ServingConstants& k = serving_constants();
  EXPECT_NEAR(k.hbm_fraction, fit.constants.hbm_fraction, 1e-4 + 1e-3 * fit.constants.hbm_fraction)
      << "refit: ladle rollout --calibrate --out data/inference/fit.yaml";
  EXPECT_NEAR(k.step_overhead_s, fit.constants.step_overhead_s, 1e-6 + 1e-3 * fit.constants.step_overhead_s);
  EXPECT_NEAR(k.log_lo, fit.constants.log_lo, 1e-4);
  EXPECT_NEAR(k.log_hi, fit.constants.log_hi, 1e-4);
}

TEST(RolloutLayout, TpNotDividingHeadsIsAUsageErrorNamingTp) {
  const ModelSpec m = model_named("llama-3.1-8b");  // 32 attention heads
  const GpuSpec gpu = hw::require_gpu("h200");
  expect_error([&] { estimate_serving(m, gpu, engine(3), ServingPoint{8, 128, 128}); }, ErrorKind::usage,
               "engine.tp");
  expect_error([&] { estimate_rollout(m, gpu, engine(3), 1, RolloutWorkload{8, 1, 128, 128, 256}); },
               ErrorKind::usage, "engine.tp");
}

TEST(RolloutLayout, EpNotDividingExpertsAndGpusNotTpAreUsageErrors) {
  const ModelSpec m = model_named("qwen3-30b-a3b");  // 128 routed experts, 32 heads
  const GpuSpec gpu = hw::require_gpu("h200");
  EngineLayout e = engine(8);
  e.ep = 3;
  expect_error([&] { engine_memory(m, gpu, e); }, ErrorKind::usage, "engine.ep");
  EngineLayout dense = engine(8);
  dense.ep = 8;
  expect_error([&] { engine_memory(model_named("llama-3.1-8b"), gpu, dense); }, ErrorKind::usage, "engine.ep");
  EngineLayout odd = engine(8);
  odd.gpus = 16;
  expect_error([&] { engine_memory(m, gpu, odd); }, ErrorKind::usage, "engine.tp");
  EngineLayout dp = engine(8);
  dp.dp_attention = 3;
  expect_error([&] { engine_memory(m, gpu, dp); }, ErrorKind::usage, "engine.dp_attention");
}

TEST(RolloutLayout, WeightsNotFittingIsNo) {
  const ModelSpec m = model_named("llama-3.1-405b");
  const GpuSpec gpu = hw::require_gpu("h100");
  expect_error([&] { estimate_rollout(m, gpu, engine(1), 1, RolloutWorkload{8, 1, 128, 128, 256}); }, ErrorKind::no,
               "mem_fraction");
  expect_error([&] { estimate_serving(m, gpu, engine(2), ServingPoint{1, 128, 128}); }, ErrorKind::no, "mem_fraction");
}

TEST(RolloutLayout, BadWorkloadIsAUsageErrorNamingTheField) {
  const ModelSpec m = model_named("llama-3.1-8b");
  const GpuSpec gpu = hw::require_gpu("h200");
  expect_error([&] { estimate_rollout(m, gpu, engine(1), 1, RolloutWorkload{8, 1, 128, 512, 256}); },
               ErrorKind::usage, "response_max");
  expect_error([&] { estimate_rollout(m, gpu, engine(1), 0, RolloutWorkload{8, 1, 128, 128, 256}); },
               ErrorKind::usage, "engines");
  expect_error([&] { estimate_serving(m, gpu, engine(1), ServingPoint{0, 128, 128}); }, ErrorKind::usage,
               "concurrency");
}

TEST(RolloutModel, MoreKvCapacityNeverSlowsDecode) {
  const GpuSpec gpu = hw::require_gpu("h100");
  for (const char* name : {"llama-3.1-8b", "qwen3-30b-a3b", "glm-4.7-flash"}) {
    const ModelSpec m = model_named(name);
    double last_rate = 0;
    double last_seconds = 1e300;
    for (double mem = 0.5; mem <= 0.951; mem += 0.05) {
      const ServingEstimate s = estimate_serving(m, gpu, engine(2, mem), ServingPoint{4096, 1024, 4096});
      EXPECT_GE(s.output_tokens_per_s, last_rate * (1 - 1e-12)) << name << " mem " << mem;
      last_rate = s.output_tokens_per_s;
      const RolloutEstimate r = estimate_rollout(m, gpu, engine(2, mem), 1, RolloutWorkload{256, 16, 512, 2048, 8192});
      EXPECT_LE(r.seconds, last_seconds * (1 + 1e-12)) << name << " mem " << mem;
      last_seconds = r.seconds;
    }
  }
}

TEST(RolloutModel, MlaHoldsLessKvPerTokenThanGqaAtEqualWidth) {
  const ModelSpec mla = model_named("deepseek-v3");
  ModelSpec gqa = mla;  // same layers, heads and width; keys and values per head instead of the latent
  gqa.attention = AttentionKind::gqa;
  gqa.num_kv_heads = 8;
  gqa.head_dim = mla.qk_nope_head_dim;
  const EngineLayout e = engine(1);
  EXPECT_LT(kv_bytes_per_sequence(mla, e, 4096), kv_bytes_per_sequence(gqa, e, 4096));
  // MLA's latent is whole on every rank: more TP does not shrink it; GQA's heads split.
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(mla, engine(1), 4096), kv_bytes_per_sequence(mla, engine(8), 4096));
  EXPECT_LT(kv_bytes_per_sequence(gqa, engine(8), 4096), kv_bytes_per_sequence(gqa, engine(1), 4096));
}

TEST(RolloutModel, DpAttentionMultipliesTheSequencesAnMlaEngineHolds) {
  // Under plain TP every rank holds every sequence's latent; DP attention gives each of its groups
  // its own sequences, at the price of replicating the attention weights.
  const ModelSpec m = model_named("deepseek-v3");
  const GpuSpec gpu = hw::require_gpu("h200");
  EngineLayout tp = engine(8);
  tp.weight_bits = 8;
  EngineLayout dp = tp;
  dp.dp_attention = 8;
  dp.ep = 8;
  const RolloutMemory a = engine_memory(m, gpu, tp);
  const RolloutMemory b = engine_memory(m, gpu, dp);
  EXPECT_GT(b.weights_bytes, a.weights_bytes);
  EXPECT_LT(b.kv_bytes, a.kv_bytes);
  EXPECT_GT(b.kv_tokens, 4 * a.kv_tokens);
}

TEST(RolloutModel, SlidingWindowAndLinearLayersHoldBoundedState) {
  // gpt-oss alternates 128-token sliding-window layers with full ones: past the window only the
  // full layers grow.
  const ModelSpec oss = model_named("gpt-oss-120b");
  const EngineLayout e = engine(1);
  const double a = kv_bytes_per_sequence(oss, e, 10'000);
  const double b = kv_bytes_per_sequence(oss, e, 20'000);
  const double c = kv_bytes_per_sequence(oss, e, 30'000);
  EXPECT_NEAR(c - b, b - a, 1e-6 * c);
  ModelSpec full = oss;
  full.sliding_window.assign(full.sliding_window.size(), 0);
  EXPECT_LT(c, kv_bytes_per_sequence(full, e, 30'000));
  // Qwen3.5's Gated DeltaNet layers keep a fixed state: a sequence holds more than nothing at
  // no context, and grows only by its attention layers.
  const ModelSpec q = model_named("qwen3.5-397b-a17b");
  ASSERT_GT(q.count_linear_attention(), 0);
  EXPECT_GT(kv_bytes_per_sequence(q, engine(8), 0), 0);
}

TEST(RolloutModel, LongerResponseMaxNeverShortensARollout) {
  const GpuSpec gpu = hw::require_gpu("h200");
  for (const char* name : {"llama-3.1-8b", "glm-4.7-flash", "deepseek-v3"}) {
    const ModelSpec m = model_named(name);
    const EngineLayout e = std::string(name) == "deepseek-v3" ? [] {
      EngineLayout x = engine(8);
      x.weight_bits = 8;
      return x;
    }() : engine(1);
    double last = 0;
    for (int64_t max = 1024; max <= 32768; max += 1024) {
      const RolloutEstimate r = estimate_rollout(m, gpu, e, 2, RolloutWorkload{64, 8, 1024, 1024, max});
      EXPECT_GE(r.seconds, last * (1 - 1e-12)) << name << " response_max " << max;
      EXPECT_GT(r.decode_seconds, 0);
      EXPECT_LE(r.seconds_lo, r.seconds);
      EXPECT_GE(r.seconds_hi, r.seconds);
      last = r.seconds;
    }
  }
}

TEST(RolloutModel, TailWaveLastsAtLeastTheLongestResponse) {
  // A synchronous rollout runs until its longest response ends: at least response_max decode
  // steps, each no faster than the fitted per-step overhead.
  const ModelSpec m = model_named("llama-3.1-8b");
  const GpuSpec gpu = hw::require_gpu("h200");
  const RolloutEstimate r = estimate_rollout(m, gpu, engine(1), 1, RolloutWorkload{32, 4, 256, 512, 16384});
  EXPECT_GE(r.decode_seconds, 16384 * serving_constants().step_overhead_s);
  const RolloutEstimate flat = estimate_rollout(m, gpu, engine(1), 1, RolloutWorkload{32, 4, 256, 512, 512});
  EXPECT_GT(r.seconds, flat.seconds);
}

TEST(ServingData, BadRowIsAnInputErrorAtItsLine) {
  const std::string yaml =
      "sources:\n"
      "  - {id: a, url: https://example.org/a}\n"
      "rows:\n"
      "  - {id: r1, from: a, model: llama-3.1-8b, gpu: h200, engine: x, tp: 1, weight_bits: 8,\n"
      "     mem_fraction: 0.8, concurrency: 0, input: 1, output: 1, output_tokens_per_s_per_gpu: 1}\n";
  try {
    parse_serving_measurements(yaml, "bad.yaml");
    ADD_FAILURE() << "expected an input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.where().file, "bad.yaml");
    EXPECT_EQ(e.where().field_path, "rows[0].concurrency");
    EXPECT_GE(e.where().line, 4);
  }
}

}  // namespace
}  // namespace ladle::rl
