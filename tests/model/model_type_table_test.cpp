// data/models/types.yaml, the model-type table: every row is a type parse_config reads and cites
// the configuration class (or engine model file) it follows; every refused type is refused with
// its reason.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

YAML::Node type_table() {
  return YAML::Load(util::read_file(test::source_path("data/models/types.yaml")));
}

TEST(ModelTypeTable, RowsAreTheSupportedTypesAndCiteTheirSource) {
  const YAML::Node table = type_table();
  std::set<std::string> rows;
  for (const YAML::Node& row : table["types"]) {
    const std::string type = row["model_type"].as<std::string>();
    EXPECT_TRUE(rows.insert(type).second) << type << " has two rows";
    const YAML::Node source = row["source"];
    ASSERT_TRUE(source) << type;
    for (const char* key : {"repo", "path", "commit"}) {
      EXPECT_TRUE(source[key] && !source[key].as<std::string>().empty()) << type << " source." << key;
    }
    EXPECT_EQ(source["commit"].as<std::string>().size(), 40u) << type;
  }
  const std::vector<std::string> supported = supported_model_types();
  EXPECT_EQ(std::set<std::string>(supported.begin(), supported.end()), rows);
  EXPECT_TRUE(std::is_sorted(supported.begin(), supported.end()));
}

TEST(ModelTypeTable, RefusedTypesAreRefusedWithTheirReason) {
  const YAML::Node table = type_table();
  int refused = 0;
  for (const YAML::Node& row : table["refused"]) {
    const std::string type = row["model_type"].as<std::string>();
    const std::string reason = row["reason"].as<std::string>();
    const std::string config = R"({"model_type": ")" + type + R"(", "num_hidden_layers": 2})";
    EXPECT_LADLE_ERROR(parse_config(config, "c.json", "c"), input,
                       "'" + type + "' is not supported: " + reason);
    ++refused;
  }
  EXPECT_GT(refused, 0);  // the types still refused (qwen3_5 among them); each checked above
}

}  // namespace
}  // namespace ladle::model
