// kimi_k3: moonshotai/Kimi-K3's real config (tests/data/model/real_kimi-k3.json, source beside
// it) is refused by its model_type, the message naming the layer kinds ladle does not read.
#include <gtest/gtest.h>

#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/util/error.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

TEST(KimiKThree, RealConfigIsRefusedForTheKindsNotRead) {
  try {
    (void)read_config_file(test::source_path("tests/data/model/real_kimi-k3.json"));
    FAIL() << "kimi_k3 was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field_path, "model_type");
    const std::string what = e.what();
    EXPECT_NE(what.find("kda_layers"), std::string::npos) << what;
    EXPECT_NE(what.find("routed_expert_hidden_size"), std::string::npos) << what;
    EXPECT_NE(what.find("attn_res_block_size"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ladle::model
