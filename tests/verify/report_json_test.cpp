// The JSON forms of score, convergence and diff results: absent figures are null, the prediction
// gives measured / predicted, a value's source names the file that wrote it.
#include <gtest/gtest.h>

#include "ladle/verify/config_diff_json.hpp"
#include "ladle/verify/convergence_json.hpp"
#include "ladle/verify/score_json.hpp"

namespace ladle::verify {
namespace {

TEST(ScoreJson, AbsentFiguresAreNullAndRunsListed) {
  ScoreReport r;
  r.inputs.gpus = 8;
  r.tokens_per_s_per_gpu = 1000;
  r.mfu = 0.4;
  RunScore run;
  run.path = "a.log";
  run.window = {4, 13};
  run.span_s = std::nullopt;
  r.runs = {run, run};
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["gpus"], 8);
  EXPECT_EQ(j["mfu"], 0.4);
  EXPECT_TRUE(j["usd_per_million_tokens"].is_null());
  EXPECT_TRUE(j["active_params"].is_null());
  EXPECT_TRUE(j["peak_memory_gib"].is_null());
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["window"], nlohmann::ordered_json::array({4, 13}));
  EXPECT_TRUE(j["runs"][0]["span_s"].is_null());
}

TEST(ScoreJson, PredictionGivesMeasuredOverPredicted) {
  Predicted p;
  p.planner = "ladle";
  p.tokens_per_s_per_gpu = 800;
  const nlohmann::ordered_json j = prediction_json(p, 1000);
  EXPECT_DOUBLE_EQ(j["measured_over_predicted"].get<double>(), 1.25);
  EXPECT_TRUE(j["tokens_per_s_per_gpu_low"].is_null());
}

TEST(ScoreJson, RlReportCarriesItsPhaseSplit) {
  RlScoreReport r;
  r.phase_split.rollout = 0.6;
  r.phase_split.train = 0.3;
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["phase_split"]["rollout"], 0.6);
  EXPECT_EQ(j["phase_split"].size(), 5u);
  EXPECT_TRUE(j["mfu"].is_null());
}

TEST(ConvergenceJson, VerdictAndPoints) {
  ConvergenceReport r;
  r.passed = false;
  r.reasons = {"correlation below 0.95"};
  r.points = {ConvergencePoint{.step = 1, .failed = true}, ConvergencePoint{.step = 2}};
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["result"], "fail");
  EXPECT_TRUE(j["correlation"].is_null());
  ASSERT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(j["points"][0]["failed"], true);
  EXPECT_EQ(j["points"][1]["step"], 2);
  EXPECT_TRUE(j["thresholds"].contains("source"));
}

TEST(ConfigDiffJson, SourceNamesTheFileThatWroteTheValue) {
  ConfigDiff diff;
  diff.a_path = "a.sh";
  diff.b_path = "b.sh";
  ArgDifference d;
  d.flag = "--lr";
  d.a = "1e-4";
  d.line_a = 3;                 // in a.sh itself
  d.file_b = "common.sh";       // in a file b.sh sources
  d.line_b = 7;
  diff.differences = {d};
  ArgDifference absent;
  absent.flag = "--seed";
  diff.unresolved = {absent};
  const nlohmann::ordered_json j = to_json(diff);
  EXPECT_EQ(j["differences"][0]["source_a"], "a.sh:3");
  EXPECT_EQ(j["differences"][0]["source_b"], "common.sh:7");
  EXPECT_TRUE(j["differences"][0]["b"].is_null());
  EXPECT_TRUE(j["unresolved"][0]["source_a"].is_null());
  EXPECT_TRUE(j["worst"].is_null());
}

}  // namespace
}  // namespace ladle::verify
