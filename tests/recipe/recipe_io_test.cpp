#include "ladle/recipe/recipe_io.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"
#include "support/test_support.hpp"

namespace ladle::recipe {
namespace {

std::vector<std::string> catalog_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::source_path("recipes"))) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> seed_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(test::source_path("tests/data/recipe/seeds"))) {
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The keys of a YAML file in order, with their indentation, outside literal blocks.
std::vector<std::string> key_sequence(const std::string& text) {
  std::vector<std::string> keys;
  size_t block_indent = std::string::npos;
  for (const std::string& line : util::split(text, '\n')) {
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) continue;
    if (block_indent != std::string::npos && indent > block_indent) continue;
    block_indent = std::string::npos;
    size_t at = indent;
    if (line.compare(at, 2, "- ") == 0) at += 2;
    const size_t colon = line.find(':', at);
    if (colon == std::string::npos || line[at] == '#' || line[at] == '\'') continue;
    const std::string key = line.substr(at, colon - at);
    if (key.find(' ') != std::string::npos) continue;
    keys.push_back(std::string(indent, ' ') + key);
    if (line.ends_with(": |") || line.ends_with(": |-")) block_indent = indent;
  }
  return keys;
}

TEST(RecipeIo, WritingASeedKeepsItsFieldsKeyOrderAndLiteralBlocks) {
  const auto files = seed_files();
  ASSERT_EQ(files.size(), 3u);
  for (const std::string& file : files) {
    const std::string text = util::read_file(file);
    const Recipe seed = read_recipe(text, file).recipe;
    const std::string written = write_recipe(seed);
    EXPECT_EQ(read_recipe(written, "written.yaml").recipe, seed) << file;
    EXPECT_EQ(key_sequence(written), key_sequence(text)) << file;
    EXPECT_NE(written.find("\nrun: |\n  export CUDA_DEVICE_MAX_CONNECTIONS=1\n"), std::string::npos);
    // Canonical: writing what was written changes nothing.
    EXPECT_EQ(write_recipe(read_recipe(written, "written.yaml").recipe), written) << file;
  }
}

TEST(RecipeIo, CatalogHoldsTheSeedsFactsWithNotesInItsOwnWords) {
  for (const std::string& seed_file : seed_files()) {
    Recipe seed = read_recipe_file(seed_file).recipe;
    std::string name = std::filesystem::path(seed_file).filename().string();
    const size_t cut = name.find("-h200-");
    const std::string catalog_file = "recipes/" + name.substr(0, cut) + "/h200/" + name.substr(cut + 6);
    Recipe catalog = read_recipe_file(test::source_path(catalog_file)).recipe;
    EXPECT_EQ(seed.notes.empty(), catalog.notes.empty()) << catalog_file;
    if (!seed.notes.empty()) {
      EXPECT_NE(seed.notes, catalog.notes) << catalog_file << ": notes not restated";
    }
    seed.notes = catalog.notes;
    seed.header_comments = catalog.header_comments;
    EXPECT_EQ(catalog, seed) << catalog_file;
  }
}

TEST(RecipeIo, WritingACatalogRecipeReproducesItsFileByteForByte) {
  const auto files = catalog_files();
  ASSERT_GE(files.size(), 3u);
  for (const std::string& file : files) {
    const std::string text = util::read_file(file);
    const LoadedRecipe loaded = read_recipe(text, file);
    EXPECT_EQ(write_recipe(loaded.recipe), text) << file;
  }
}

TEST(RecipeIo, LoadWriteLoadGivesAnEqualRecipe) {
  for (const std::string& file : catalog_files()) {
    const Recipe first = read_recipe_file(file).recipe;
    const Recipe second = read_recipe(write_recipe(first), "again.yaml").recipe;
    EXPECT_EQ(first, second) << file;
  }
}

TEST(RecipeIo, ReadsEveryFieldOfASeed) {
  const Recipe r =
      read_recipe_file(test::source_path("recipes/glm-5.2-744b-a40b/h200/attune-tp4-pp4.yaml")).recipe;
  EXPECT_EQ(r.model, "GLM-5.2-744B-A40B");
  EXPECT_EQ(r.gpu.count, 128);
  EXPECT_EQ(r.layout.tp, 4);
  ASSERT_TRUE(r.layout.layer_split.has_value());
  EXPECT_EQ(r.layout.layer_split->first, 18);
  EXPECT_EQ(r.layout.layer_split->last, 20);
  ASSERT_TRUE(r.layout.offload.has_value());
  EXPECT_DOUBLE_EQ(r.layout.offload->optimizer_fraction, 1.0);
  ASSERT_TRUE(r.result.has_value());
  EXPECT_DOUBLE_EQ(r.result->tokens_per_s_per_gpu, 161.79);
  EXPECT_EQ(r.result->window, (std::vector<int64_t>{4, 13}));
  EXPECT_EQ(r.result->active_params.count, 40297758720);
  EXPECT_EQ(r.env.size(), 3u);
  EXPECT_EQ(r.env[2].first, "NCCL_NVLS_ENABLE");
  EXPECT_EQ(r.env[0].second, "1");
  EXPECT_TRUE(r.run.starts_with("export CUDA_DEVICE_MAX_CONNECTIONS=1\n"));
  EXPECT_FALSE(r.predicted.has_value());
}

TEST(RecipeIo, RecordsTheLineOfEveryField) {
  const LoadedRecipe loaded =
      read_recipe_file(test::source_path("recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"));
  EXPECT_EQ(loaded.where.at("schema_version").line, 3);
  EXPECT_EQ(loaded.where.at("gpu.count").line, 8);
  EXPECT_EQ(loaded.where.at("result.window[1]").line, 91);
  // A path below a recorded one falls back to its parent's location.
  EXPECT_EQ(loaded.where.at("gpu.count.nothing").line, 8);
}

struct BadInput {
  const char* name;
  std::string text;
  std::string expected;  // a substring of the one-line error
};

std::string seed_text() {
  return util::read_file(test::source_path("recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"));
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(RecipeIo, BadInputGetsOneLineWithFileLineColumnAndField) {
  const std::string seed = seed_text();
  const std::vector<BadInput> cases = {
      {"empty", "", "x.yaml:1:1: error: empty file"},
      {"comment only", "# nothing\n", "empty file"},
      {"not a mapping", "- a\n- b\n", "x.yaml:1:1: error: expected a mapping, got a list"},
      {"malformed", "model: [unclosed\n", "x.yaml:2:1: error: malformed YAML"},
      {"tab", replace_once(seed, "  type: H200", "\ttype: H200"), "x.yaml:6:1: error: tab character"},
      {"wrong type", replace_once(seed, "  count: 8\n", "  count: eight\n"),
       "x.yaml:8:10: error: gpu.count: expected an integer, got 'eight'"},
      {"quoted number", replace_once(seed, "  count: 8\n", "  count: '8'\n"),
       "gpu.count: expected an integer, got '8'"},
      {"float for int", replace_once(seed, "  tp: 1\n", "  tp: 1.5\n"),
       "layout.tp: expected an integer, got '1.5'"},
      {"bool", replace_once(seed, "  sequence_parallel: false", "  sequence_parallel: no way"),
       "layout.sequence_parallel: expected true or false, got 'no way'"},
      {"unknown key", replace_once(seed, "  per_node: 8", "  per_nodes: 8"),
       "x.yaml:9:3: error: gpu.per_nodes: unknown key 'per_nodes' (did you mean 'per_node'?)"},
      {"missing key", replace_once(seed, "  per_node: 8\n", ""),
       "x.yaml:6:3: error: gpu.per_node: missing required key 'per_node' in 'gpu'"},
      {"missing top key", replace_once(seed, "status: verified\n", ""),
       "error: status: missing required key 'status'"},
      {"enum", replace_once(seed, "status: verified", "status: verifed"),
       "status: expected one of planned, measured, verified, got 'verifed' (did you mean 'verified'?)"},
      {"date", replace_once(seed, "measured: 2026-10-15", "measured: last week"),
       "result.measured: expected a date YYYY-MM-DD, got 'last week'"},
      {"pair", replace_once(seed, "  - 19\n", "  - 19\n  - 20\n"),
       "result.window: expected a [first, last] pair, got 3 values"},
      {"duplicate", replace_once(seed, "  per_node: 8\n", "  per_node: 8\n  per_node: 8\n"),
       "x.yaml:10:3: error: gpu.per_node: duplicate key"},
      {"mapping expected", replace_once(seed, "author:\n  name: ATTUNE\n  url: https://arxiv.org/abs/2610.17528\n",
                                        "author: ATTUNE\n"),
       "author: expected a mapping, got a scalar"},
      {"null string", replace_once(seed, "model: GLM-4.7-Flash", "model: null"),
       "model: expected a string, got null"},
      {"schema version", replace_once(seed, "schema_version: 1", "schema_version: 2"),
       "schema_version: expected schema_version 1, got 2"},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_LADLE_ERROR(read_recipe(c.text, "x.yaml"), input, c.expected);
  }
}

TEST(RecipeIo, WriteIsAtomicAndReadable) {
  test::TempDir dir;
  const Recipe r = read_recipe(seed_text(), "seed.yaml").recipe;
  const std::string path = dir.file("out.yaml");
  write_recipe_file(path, r);
  EXPECT_EQ(read_recipe_file(path).recipe, r);
  EXPECT_LADLE_ERROR(read_recipe_file(dir.file("missing.yaml")), io, "missing.yaml: error: cannot open");
}

TEST(RecipeIo, OptionalBlocksRoundTripWhenPresentOrAbsent) {
  Recipe r = read_recipe(seed_text(), "seed.yaml").recipe;
  r.result.reset();
  r.predicted = Predicted{"ladle 0.1.0", 6000.5, 21.8, 0.13, 0.37, 3437.1, 10474.3, 120.25,
                          {{"compute", 15.0}, {"ep_all_to_all", 3.5}}, {{"weights", 7.2}},
                          {{"stage 0", 120.25}, {"stage 1", 98.5}}};
  r.notes = "a note: with a colon\nand a line\n";
  const std::string text = write_recipe(r);
  EXPECT_NE(text.find("\nresult: null\n"), std::string::npos);
  EXPECT_NE(text.find("\npredicted:\n  planner: ladle 0.1.0\n"), std::string::npos);
  EXPECT_NE(text.find("  step_time_breakdown:\n  - name: compute\n    value: 15.0\n"), std::string::npos);
  EXPECT_NE(text.find("  tokens_per_s_per_gpu_low: 3437.1\n  tokens_per_s_per_gpu_high: 10474.3\n  memory_gib: 120.25\n"),
            std::string::npos);
  EXPECT_EQ(read_recipe(text, "again.yaml").recipe, r);
  // A recipe written before the planner gave an interval reads without one.
  r.predicted->tokens_per_s_per_gpu_low.reset();
  r.predicted->tokens_per_s_per_gpu_high.reset();
  const std::string older = write_recipe(r);
  EXPECT_EQ(older.find("tokens_per_s_per_gpu_low"), std::string::npos);
  EXPECT_EQ(read_recipe(older, "older.yaml").recipe, r);
}

TEST(RecipeIo, MeasuredPeakMemoryIsOptionalPositiveAndRoundTrips) {
  Recipe r = read_recipe(seed_text(), "seed.yaml").recipe;
  ASSERT_TRUE(r.result.has_value());
  EXPECT_FALSE(r.result->peak_memory_gib.has_value());  // the seeds record none, and keep no key
  EXPECT_EQ(write_recipe(r).find("peak_memory_gib"), std::string::npos);
  r.result->peak_memory_gib = 101.25;
  const std::string text = write_recipe(r);
  EXPECT_NE(text.find("\n  peak_memory_gib: 101.25\n"), std::string::npos);
  EXPECT_EQ(read_recipe(text, "again.yaml").recipe, r);
  const std::string zero = replace_once(text, "  peak_memory_gib: 101.25\n", "  peak_memory_gib: 0\n");
  EXPECT_LADLE_ERROR(read_recipe(zero, "x.yaml"), input, "result.peak_memory_gib: expected a number greater than 0, got '0'");
  const std::string word = replace_once(text, "  peak_memory_gib: 101.25\n", "  peak_memory_gib: lots\n");
  EXPECT_LADLE_ERROR(read_recipe(word, "x.yaml"), input, "result.peak_memory_gib: expected a number, got 'lots'");
}

}  // namespace
}  // namespace ladle::recipe
