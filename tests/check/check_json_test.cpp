// The JSON form of `ladle check`'s report: ok when nothing was found, the fold null when not whole.
#include "ladle/check/check_json.hpp"

#include <gtest/gtest.h>

namespace ladle::check {
namespace {

TEST(CheckJson, CleanReportIsOkWithNullFold) {
  CheckReport r;
  r.file = "a.yaml";
  r.skipped = {"R5: model unknown"};
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["ok"], true);
  EXPECT_TRUE(j["expert_data_parallel"].is_null());
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_TRUE(j["findings"].empty());
  EXPECT_EQ(j["skipped"][0], "R5: model unknown");
}

TEST(CheckJson, FindingsKeepRuleLineFieldMessage) {
  CheckReport r;
  r.file = "a.yaml";
  r.expert_data_parallel = 4;
  r.findings = {recipe::Finding{"R1", "a.yaml", 12, "layout.tp", "tp does not divide the heads"}};
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["expert_data_parallel"], 4);
  const nlohmann::ordered_json& f = j["findings"][0];
  EXPECT_EQ(f, to_json(r.findings[0]));
  EXPECT_EQ(f["rule"], "R1");
  EXPECT_EQ(f["line"], 12);
  EXPECT_EQ(f["field"], "layout.tp");
  EXPECT_FALSE(f.contains("file"));  // the report's
}

}  // namespace
}  // namespace ladle::check
