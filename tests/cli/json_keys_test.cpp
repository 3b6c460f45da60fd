// Every command's --json speaks one dialect: keys are snake_case names (never data such as a file
// name or a part's display name), memory is in GiB and says so (`_gib`), and MFU is a fraction.
// Walks the JSON of every golden case that asks for it (tests/cli/*/*/args with --json) and of a
// run of each reporting command on the embedded catalog.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every way a key breaks the dialect, with its path.
void walk(const json& value, const std::string& path, std::vector<std::string>& problems) {
  static const std::regex kSnake("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) walk(value[i], path + "[" + std::to_string(i) + "]", problems);
    return;
  }
  if (!value.is_object()) return;
  for (const auto& [key, item] : value.items()) {
    const std::string at = path + "." + key;
    if (!std::regex_match(key, kSnake)) problems.push_back(at + ": key is not snake_case");
    // A GPU's HBM as marketed (hbm_gb, decimal GB) is a published fact, not a memory figure of ladle's.
    if (item.is_number() && (key.ends_with("_gb") || key == "memory") && key != "hbm_gb") {
      problems.push_back(at + ": memory must be in GiB with a _gib key");
    }
    if (item.is_number() && (key == "mfu" || key.starts_with("mfu_")) && item.get<double>() > 1) {
      problems.push_back(at + ": MFU in JSON is a fraction");
    }
    walk(item, at, problems);
  }
}

std::vector<std::string> check_text(const std::string& text, const std::string& what) {
  std::vector<std::string> problems;
  const json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_discarded()) {
    walk(parsed, what, problems);
    return problems;
  }
  // JSON Lines: one document per line.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const json doc = json::parse(line, nullptr, false);
    if (doc.is_discarded()) return {what + ": not JSON"};
    walk(doc, what, problems);
  }
  return problems;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 65536> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  pclose(pipe);
  return out;
}

TEST(JsonKeys, GoldenCasesWithJsonUseOneDialect) {
  int cases = 0;
  for (const auto& command : fs::directory_iterator(fs::path(LADLE_SOURCE_DIR) / "tests/cli")) {
    if (!command.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(command.path())) {
      std::ifstream args_file(c.path() / "args");
      std::stringstream args;
      args << args_file.rdbuf();
      if (args.str().find("--json") == std::string::npos || !fs::exists(c.path() / "stdout")) continue;
      std::ifstream out_file(c.path() / "stdout");
      std::stringstream out;
      out << out_file.rdbuf();
      if (out.str().empty()) continue;
      ++cases;
      for (const std::string& p : check_text(out.str(), c.path().filename().string())) ADD_FAILURE() << p;
    }
  }
  EXPECT_GE(cases, 15);
}

TEST(JsonKeys, EveryReportingCommandUsesOneDialect) {
  const ladle::test::TempDir tmp;
  const std::string ladle = LADLE_BINARY;
  const std::string src = LADLE_SOURCE_DIR;
  const std::vector<std::string> commands{
      "ls --json",
      "show attune-tp4-pp4 --json",
      "model glm-4.7-flash --json",
      "model glm-5.2-744b-a40b --json",
      "gpu --json",
      "gpu h200 --json",
      "check " + src + "/recipes --json",
      "fmt --check " + src + "/recipes --json",
      "plan glm-4.7-flash --gpu h200 --gpus 8 --json",
      "plan glm-4.7-flash --gpu h200 --gpus 8,16 --json",
      "predict --recipe attune-tp4-pp4 --json",
      "predict --model glm-4.7-flash --gpu h200 --gpus 8 --layout 'tp=1,ep=8,recompute=full' --json",
      "site --out " + tmp.file("site") + " --json",
  };
  for (const std::string& c : commands) {
    const std::string out = run(ladle + " " + c + " 2>/dev/null");
    ASSERT_FALSE(out.empty()) << c;
    for (const std::string& p : check_text(out, c)) ADD_FAILURE() << p;
  }
}

TEST(JsonKeys, TheCheckCatchesEachBreak) {
  EXPECT_EQ(check_text(R"({"optimizer states": 1})", "x").size(), 1u);
  EXPECT_EQ(check_text(R"({"files": {"rows.bin": {"bytes": 1}}})", "x").size(), 1u);
  EXPECT_EQ(check_text(R"({"memory_gb": 12.5})", "x").size(), 1u);
  EXPECT_EQ(check_text(R"({"a": [{"mfu": 13.4}]})", "x").size(), 1u);
  EXPECT_TRUE(check_text(R"({"memory_gib": 12.5, "mfu": 0.134, "hbm_gb": 141})", "x").empty());
}

}  // namespace
