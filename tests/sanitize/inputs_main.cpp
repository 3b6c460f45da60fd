// ladle's input readers under AddressSanitizer and UBSan (built as ladle_inputs_asan).
//
// Feeds every input file under the given folders, then hundreds of damaged variants of each
// (truncated, bytes flipped, tabs, quotes and brackets inserted, lines dropped), to the reader
// of its kind: recipes (*.yaml: read_recipe, check_recipe, write_recipe), training logs (*.log,
// *.jsonl: read_log) and model configs (*.json holding "model_type": parse_config). Each input
// must either load or fail with one ladle::Error of one line; any other exception, a sanitizer
// report or a crash fails the test. Exit 0 when every input behaved.

#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ladle/model/config_json.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/check/rules.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace {

struct Tally {
  long loaded = 0;
  long rejected = 0;
  long wrong = 0;
};

enum class Kind { recipe, log, config };

void read_as(Kind kind, const std::string& text, const std::string& name) {
  switch (kind) {
    case Kind::recipe: {
      const ladle::recipe::LoadedRecipe loaded = ladle::recipe::read_recipe(text, name);
      (void)ladle::check::check_recipe(loaded);
      (void)ladle::recipe::write_recipe(loaded.recipe);
      break;
    }
    case Kind::log: (void)ladle::runlog::read_log(text, name); break;
    case Kind::config: (void)ladle::model::parse_config(text, name, "fuzz"); break;
  }
}

void feed(Kind kind, const std::string& text, const std::string& name, Tally& tally) {
  try {
    read_as(kind, text, name);
    ++tally.loaded;
  } catch (const ladle::Error& e) {
    if (e.describe().find('\n') != std::string::npos) {
      std::fprintf(stderr, "%s: error message spans lines: %s\n", name.c_str(), e.describe().c_str());
      ++tally.wrong;
    }
    ++tally.rejected;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: escaped as %s\n", name.c_str(), e.what());
    ++tally.wrong;
  }
}

// Deterministic damage: a small linear congruential generator, so a failure can be replayed.
void feed_damaged(Kind kind, const std::string& text, const std::string& file, Tally& tally) {
  uint64_t state = 0x9e3779b97f4a7c15ull ^ text.size();
  const auto next = [&](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return bound ? (state >> 33) % bound : 0;
  };
  const char kInserts[] = {'\t', ':', '[', '{', '\'', '"', '-', '#', '\n', '|', '&', '*', '!', '\0', '\xff'};
  for (int i = 0; i < 240; ++i) {
    std::string damaged = text;
    switch (i % 4) {
      case 0: damaged.resize(next(text.size())); break;
      case 1: damaged[next(damaged.size())] = static_cast<char>(next(256)); break;
      case 2: damaged.insert(next(damaged.size()), 1, kInserts[next(sizeof kInserts)]); break;
      case 3: {
        const size_t start = damaged.rfind('\n', next(damaged.size()));
        const size_t from = start == std::string::npos ? 0 : start + 1;
        const size_t end = damaged.find('\n', from);
        damaged.erase(from, end == std::string::npos ? std::string::npos : end - from + 1);
        break;
      }
    }
    feed(kind, damaged, file + "#" + std::to_string(i), tally);
  }
}

std::optional<Kind> kind_of(const std::filesystem::path& path, const std::string& text) {
  const std::string ext = path.extension().string();
  if (ext == ".yaml") return Kind::recipe;
  if (ext == ".log" || ext == ".jsonl") return Kind::log;
  if (ext == ".json" && text.find("\"model_type\"") != std::string::npos) return Kind::config;
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  Tally tally;
  long files = 0;
  for (int a = 1; a < argc; ++a) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[a])) {
      if (!entry.is_regular_file()) continue;
      const std::string file = entry.path().string();
      const std::string text = ladle::util::read_file(file);
      const std::optional<Kind> kind = kind_of(entry.path(), text);
      if (!kind) continue;
      ++files;
      feed(*kind, text, file, tally);
      feed_damaged(*kind, text, file, tally);
    }
  }
  std::printf("%ld files, %ld inputs: %ld loaded, %ld rejected with one error line, %ld misbehaved\n", files,
              tally.loaded + tally.rejected, tally.loaded, tally.rejected, tally.wrong);
  return files > 0 && tally.wrong == 0 ? 0 : 1;
}
