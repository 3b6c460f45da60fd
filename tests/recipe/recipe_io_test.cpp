#include "ladle/recipe/recipe_io.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

namespace ladle::recipe {
namespace {

// Ten levels of ten aliases each: 10^10 nodes once expanded, in 20 lines ("billion laughs").
std::string alias_bomb(const std::string& head) {
  std::string text = head + "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    text += fmt::format("l{}: &l{} [", level, level);
    for (int i = 0; i < 10; ++i) text += fmt::format("{}*l{}", i ? ", " : "", level - 1);
    text += "]\n";
  }
  return text;
}

TEST(RecipeIo, AliasesThatExpandBeyondTheBudgetAreRefusedAtTheAlias) {
  // The first alias past 100,000 expanded nodes: the 8th of level 4 (each *l3 adds 11,111).
  EXPECT_LADLE_ERROR(read_recipe(alias_bomb(""), "bomb.yaml"), input,
                     "bomb.yaml:5:45: error: aliases expand to more than 100000 nodes");
  EXPECT_LADLE_ERROR(read_recipe(alias_bomb(seed_text()), "bomb.yaml"), input, "aliases expand to more than");
  // An alias inside the node it names would make a cycle.
  EXPECT_LADLE_ERROR(read_recipe(seed_text() + "loop: &a [*a]\n", "x.yaml"), input,
                     "alias *a refers to a node that contains it");
}

// Few aliases of one long string: each copies the string, so 40 copies of 600 KB are 24 MB (a
// 954 KB file of them took 3 GB and ended as std::bad_alloc).
TEST(RecipeIo, AliasesThatCopyTooMuchTextAreRefused) {
  std::string patches = "patches:\n- &long " + std::string(600'000, 'x') + "\n";
  for (int i = 0; i < 40; ++i) patches += "- *long\n";
  const std::string text = replace_once(seed_text(), "patches: []\n", patches);
  EXPECT_LADLE_ERROR(read_recipe(text, "x.yaml"), input, "aliases expand to more than 16777216 bytes of text");
}

TEST(RecipeIo, AFewAliasesStillRead) {
  const std::string text =
      replace_once(replace_once(seed_text(), "  count: 8\n", "  count: &eight 8\n"), "  per_node: 8\n", "  per_node: *eight\n");
  const Recipe r = read_recipe(text, "x.yaml").recipe;
  EXPECT_EQ(r.gpu.count, 8);
  EXPECT_EQ(r.gpu.per_node, 8);
}

TEST(RecipeIo, ASecondDocumentIsRefusedWhereItStarts) {
  const std::string seed = seed_text();
  const int lines = static_cast<int>(std::count(seed.begin(), seed.end(), '\n'));
  EXPECT_LADLE_ERROR(read_recipe(seed + "---\nmodel: other\n", "x.yaml"), input,
                     fmt::format("x.yaml:{}:1: error: a second YAML document", lines + 1));
  EXPECT_LADLE_ERROR(read_recipe(seed + "...\n---\n", "x.yaml"), input, "a second YAML document");
  // One document, explicitly started and ended, is a recipe.
  EXPECT_EQ(read_recipe("---\n" + seed + "...\n", "x.yaml").recipe.layout, read_recipe(seed, "x.yaml").recipe.layout);
}

TEST(RecipeIo, BytesThatAreNotUtf8AreRefusedWithTheirLineAndColumn) {
  const std::string seed = seed_text();
  const std::vector<BadInput> cases = {
      {"stray byte", replace_once(seed, "model: GLM-4.7-Flash", "model: GLM\xff"), "x.yaml:4:11: error: byte 0xFF is not UTF-8"},
      {"overlong slash", replace_once(seed, "model: GLM-4.7-Flash", "model: a\xc0\xaf"), "x.yaml:4:9: error: byte 0xC0"},
      {"surrogate", replace_once(seed, "model: GLM-4.7-Flash", "model: \xed\xa0\x80"), "x.yaml:4:8: error: byte 0xED"},
      {"cut short", replace_once(seed, "model: GLM-4.7-Flash", "model: \xe2\x82"), "x.yaml:4:8: error: byte 0xE2"},
      {"in a comment", "# caf\xe9\n" + seed, "x.yaml:1:6: error: byte 0xE9 is not UTF-8"},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_LADLE_ERROR(read_recipe(c.text, "x.yaml"), input, c.expected);
  }
  const std::string accented = replace_once(seed, "model: GLM-4.7-Flash", "model: GLM-4.7-Flash \xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80");
  EXPECT_EQ(read_recipe(accented, "x.yaml").recipe.model, "GLM-4.7-Flash \xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80");
}

// `score --write` and `converge --write` of one recipe at once: each update re-reads under a lock,
// so every update of every process lands (without the lock about half of them were lost).
TEST(RecipeIo, ConcurrentUpdatesOfOneRecipeAllLand) {
  test::TempDir dir;
  const std::string path = dir.file("r.yaml");
  write_recipe_file(path, read_recipe(seed_text(), "seed.yaml").recipe);
  constexpr int kWriters = 3;
  constexpr int kUpdates = 25;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int i = 0; i < kUpdates; ++i) {
          update_recipe_file(path, [&](Recipe& r) { r.notes += fmt::format("writer {} update {}\n", w, i); });
        }
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const std::string notes = read_recipe_file(path).recipe.notes;
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kUpdates; ++i) {
      EXPECT_NE(notes.find(fmt::format("writer {} update {}\n", w, i)), std::string::npos) << w << " " << i;
    }
  }
}

// Whole writes of one file at once (no re-read) each land whole: a writer's clean-up of temporary
// files never takes another's just-created one (that failed with "cannot write: No such file").
TEST(RecipeIo, ConcurrentWholeWritesOfOneRecipeAllSucceed) {
  test::TempDir dir;
  const std::string path = dir.file("r.yaml");
  const Recipe seed = read_recipe(seed_text(), "seed.yaml").recipe;
  write_recipe_file(path, seed);
  std::vector<pid_t> children;
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int i = 0; i < 40; ++i) write_recipe_file(path, seed);
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(read_recipe_file(path).recipe, seed);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(RecipeIo, ReplacingTextRefusesAFileChangedSinceItWasRead) {
  test::TempDir dir;
  const std::string path = dir.file("r.yaml");
  util::write_file_atomic(path, "old\n");
  EXPECT_LADLE_ERROR(replace_recipe_text(path, "what fmt read\n", "canonical\n"), io,
                     "r.yaml: error: changed by another process");
  EXPECT_EQ(util::read_file(path), "old\n");
  replace_recipe_text(path, "old\n", "canonical\n");
  EXPECT_EQ(util::read_file(path), "canonical\n");
}

// `fmt` run by root on another user's private recipe: the rewritten file is still theirs, 0600.
TEST(RecipeIo, ReplacingTextKeepsTheFilesModeAndOwner) {
  test::TempDir dir;
  const std::string path = dir.file("r.yaml");
  util::write_file_atomic(path, "old\n");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  const bool root = ::geteuid() == 0;
  constexpr uid_t kNobody = 65534;
  if (root) {
    ASSERT_EQ(::chown(path.c_str(), kNobody, kNobody), 0);
  }
  replace_recipe_text(path, "old\n", "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  if (!root) GTEST_SKIP() << "giving a file to another user needs root";
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_gid, kNobody);
}

}  // namespace
}  // namespace ladle::recipe
