// The recipe loader and rules under AddressSanitizer and UBSan (built as ladle_recipe_asan).
//
// Feeds every recipe file under the given folders, then thousands of damaged variants of each
// (truncated, bytes flipped, tabs and colons inserted, lines dropped), to read_recipe and
// check_recipe. Each input must either load or fail with one ladle::Error; any other exception, a
// sanitizer report or a crash fails the test. Exit 0 when every input behaved.

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/recipe/rules.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace {

struct Tally {
  long loaded = 0;
  long rejected = 0;
  long wrong = 0;
};

void feed(const std::string& text, const std::string& name, Tally& tally) {
  try {
    const ladle::recipe::LoadedRecipe loaded = ladle::recipe::read_recipe(text, name);
    (void)ladle::recipe::check_recipe(loaded);
    (void)ladle::recipe::write_recipe(loaded.recipe);
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
void feed_damaged(const std::string& text, const std::string& file, Tally& tally) {
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
    feed(damaged, file + "#" + std::to_string(i), tally);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Tally tally;
  long files = 0;
  for (int a = 1; a < argc; ++a) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[a])) {
      if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
      const std::string file = entry.path().string();
      const std::string text = ladle::util::read_file(file);
      ++files;
      feed(text, file, tally);
      feed_damaged(text, file, tally);
    }
  }
  std::printf("%ld files, %ld inputs: %ld loaded, %ld rejected with one error line, %ld misbehaved\n", files,
              tally.loaded + tally.rejected, tally.loaded, tally.rejected, tally.wrong);
  return files > 0 && tally.wrong == 0 ? 0 : 1;
}
