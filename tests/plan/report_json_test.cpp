// The JSON form of the planner's value types: part names as snake_case keys, a layout's typed
// knobs, a header's optional keys left out when empty.
#include "ladle/plan/report_json.hpp"

#include <gtest/gtest.h>

#include "ladle/layout/layout_spec.hpp"

namespace ladle::plan {
namespace {

TEST(ReportJson, PartsAreSnakeCaseKeysRounded) {
  const std::vector<Part> parts = {{"EP all-to-all", 1.23456}, {"optimizer (GPU)", 0.0004}};
  const nlohmann::ordered_json j = parts_json(parts, 3);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_DOUBLE_EQ(j["ep_all_to_all"].get<double>(), 1.235);
  EXPECT_DOUBLE_EQ(j["optimizer_gpu"].get<double>(), 0.0);
  EXPECT_TRUE(parts_json({}, 2).is_object());
}

TEST(ReportJson, FitRowCarriesItsStepParts) {
  FitRow row;
  row.name = "run";
  row.measured = 100;
  row.step_parts = {{"dense GEMM", 1.5}, {"EP all-to-all", 0.25}};
  const nlohmann::ordered_json j = to_json(row);
  EXPECT_DOUBLE_EQ(j["step_parts_s"]["dense_gemm"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["step_parts_s"]["ep_all_to_all"].get<double>(), 0.25);
}

TEST(ReportJson, LayoutGivesSpecLabelAndTypedKnobs) {
  const Layout l = layout::parse_layout_spec("tp=2,pp=1,ep=8,recompute=full,dist_opt=off");
  const nlohmann::ordered_json j = to_json(l);
  EXPECT_EQ(j["spec"], layout::format_layout_spec(l));
  EXPECT_EQ(j["label"], layout::layout_label(l));
  EXPECT_EQ(j["tp"], 2);   // an integer knob as a number
  EXPECT_EQ(j["ep"], 8);
  EXPECT_EQ(j["dist_opt"], false);  // a flag away from its default, as a boolean
  EXPECT_EQ(j["recompute"], "full");
}

TEST(ReportJson, HeaderLeavesOutEmptyOptionalKeys) {
  ReportHeader h;
  h.model = "m";
  nlohmann::ordered_json j = to_json(h);
  EXPECT_EQ(j["model"], "m");
  EXPECT_FALSE(j.contains("not_priced"));
  EXPECT_FALSE(j.contains("chosen"));
  EXPECT_FALSE(j.contains("sources"));
  h.not_priced = std::vector<std::string>{"--seed"};
  h.sources = {{"global batch", "128", "--global-batch"}};
  j = to_json(h);
  EXPECT_EQ(j["not_priced"], nlohmann::ordered_json::array({"--seed"}));
  EXPECT_EQ(j["sources"][0]["source"], "--global-batch");
}

TEST(ReportJson, SweepPointHasNoLaunchArguments) {
  SweepPoint s;
  s.gpus = 16;
  s.best.layout = layout::parse_layout_spec("tp=2,pp=1");
  const nlohmann::ordered_json j = to_json(s);
  EXPECT_EQ(j["gpus"], 16);
  EXPECT_FALSE(j["best"].contains("args"));
  EXPECT_EQ(j["best"]["layout"]["tp"], 2);
}

}  // namespace
}  // namespace ladle::plan
