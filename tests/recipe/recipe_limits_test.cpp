// Every integer a recipe holds is bounded by a named range (util/limits.hpp, named per field in
// recipe/recipe_fields.hpp): a value outside it is refused where it is read, at its line and
// column, with the range and its reason. One case per range.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "support/test_support.hpp"

namespace ladle::recipe {
namespace {

std::string base() {
  return util::read_file(test::source_path("recipes/glm-5.2-744b-a40b/h200/attune-tp8-pp4.yaml"));
}

// `text` with the first line equal to `line` replaced by `replacement`.
std::string replace_line(std::string text, const std::string& line, const std::string& replacement) {
  const size_t at = text.find("\n" + line + "\n");
  EXPECT_NE(at, std::string::npos) << line;
  if (at == std::string::npos) return text;
  return text.replace(at + 1, line.size(), replacement);
}

struct Case {
  const char* line;         ///< a line of the base recipe
  const char* replacement;  ///< the same key with a value out of range
  const char* field;        ///< the field the error names
  const limits::IntegerRange* range;
};

const Case kCases[] = {
    {"  count: 128", "  count: 2097152", "gpu.count", &limits::kGpuCountRange},
    {"  memory_gb: 141", "  memory_gb: 100000", "gpu.memory_gb", &limits::kGpuMemoryRange},
    {"  tp: 8", "  tp: 65536", "layout.tp", &limits::kParallelRange},
    {"    first: 18", "    first: 1000000", "layout.layer_split.first", &limits::kLayerCountRange},
    {"  row_tokens: 8192", "  row_tokens: 33554432", "workload.row_tokens", &limits::kRowTokensRange},
    {"  max_tokens_per_gpu: 8192", "  max_tokens_per_gpu: -1", "layout.max_tokens_per_gpu",
     &limits::kTokensPerGpuRange},
    {"  rows_per_microbatch: 1", "  rows_per_microbatch: 4611686018427387904", "layout.rows_per_microbatch",
     &limits::kBatchRowsRange},
    {"      rows: 12800", "      rows: 18014398509481985", "workload.dataset.build.rows", &limits::kDatasetCountRange},
    {"      parquet_bytes: 169929706", "      parquet_bytes: 9223372036854775807",
     "workload.dataset.build.parquet_bytes", &limits::kByteCountRange},
    {"      seed: 20260828", "      seed: -1", "workload.dataset.build.seed", &limits::kSeedRange},
    {"  steps_per_run: 20", "  steps_per_run: 0", "result.steps_per_run", &limits::kStepCountRange},
    {"    pointwise_failures: 0", "    pointwise_failures: 1099511627777", "correctness.convergence.pointwise_failures",
     &limits::kFailureCountRange},
    {"  runs: 1", "  runs: 0", "result.runs", &limits::kRunCountRange},
    {"  - 19", "  - 1099511627777", "result.window[1]", &limits::kStepIndexRange},
    {"    count: 40297758720", "    count: 2305843009213693953", "result.active_params.count",
     &limits::kParameterCountRange},
    {"schema_version: 1", "schema_version: 0", "schema_version", &limits::kSchemaVersionRange},
    // Beyond int64: the same message, not "expected an integer".
    {"  count: 128", "  count: 99999999999999999999", "gpu.count", &limits::kGpuCountRange},
};

TEST(RecipeLimits, EveryRangeRefusesAValueOutsideItWithItsReason) {
  const std::string text = base();
  ASSERT_NO_THROW(read_recipe(text, "recipe.yaml"));
  for (const Case& c : kCases) {
    const std::string bad = replace_line(text, c.line, c.replacement);
    try {
      read_recipe(bad, "recipe.yaml");
      ADD_FAILURE() << c.replacement << " was read";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.kind(), ErrorKind::input) << message;
      EXPECT_NE(message.find(std::string(c.field) + ": expected an integer from " + std::to_string(c.range->min) +
                             " to " + std::to_string(c.range->max) + " (" + std::string(c.range->reason) + ")"),
                std::string::npos)
          << message;
    }
  }
}

TEST(RecipeLimits, TheEdgesOfARangeAreRead) {
  const std::string text = base();
  const auto low = read_recipe(replace_line(text, "  runs: 1", "  runs: 1"), "recipe.yaml");
  EXPECT_EQ(low.recipe.result->runs, 1);
  const auto high =
      read_recipe(replace_line(text, "  count: 128", fmt::format("  count: {}", limits::kMaxGpus)), "recipe.yaml");
  EXPECT_EQ(high.recipe.gpu.count, limits::kMaxGpus);
}


// A real field of the layout block takes its knob row's range where it is read: the offload
// fraction (0 to 1) and an optional field such as the capacity factor (0 to 1024).
TEST(RecipeLimits, RealLayoutFieldsTakeTheirKnobRowsRange) {
  const std::string text = base();
  const auto refused = [&](const std::string& bad) -> std::string {
    try {
      read_recipe(bad, "recipe.yaml");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input);
      return e.what();
    }
    return "read";
  };
  EXPECT_NE(refused(replace_line(text, "    optimizer_fraction: 1.0", "    optimizer_fraction: 1.5"))
                .find("recipe.yaml:76:25: error: layout.offload.optimizer_fraction: expected a number from 0 to 1, "
                      "got '1.5'"),
            std::string::npos)
      << refused(replace_line(text, "    optimizer_fraction: 1.0", "    optimizer_fraction: 1.5"));
  const std::string capacity =
      replace_line(text, "  dispatcher: alltoall", "  dispatcher: alltoall\n  capacity_factor: 2000.0");
  EXPECT_NE(refused(capacity).find("layout.capacity_factor: expected a number from 0 to 1024, got '2000.0'"),
            std::string::npos)
      << refused(capacity);
  const std::string edge = replace_line(text, "  dispatcher: alltoall", "  dispatcher: alltoall\n  capacity_factor: 1024.0");
  EXPECT_EQ(refused(edge), "read");
}

}  // namespace
}  // namespace ladle::recipe
