// recipe_fuzz.cpp: recipe YAML. What reads must write and read back to the same recipe, and the
// consistency rules must run on it.
#include "fuzz_common.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/check/rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const ladle::recipe::LoadedRecipe loaded = ladle::recipe::read_recipe(text, "fuzz.yaml");
    const std::string written = ladle::recipe::write_recipe(loaded.recipe);
    ladle::recipe::LoadedRecipe again;
    try {
      again = ladle::recipe::read_recipe(written, "rewritten.yaml");
    } catch (const ladle::Error&) {
      __builtin_trap();  // ladle wrote a recipe it then rejects
    }
    (void)ladle::check::check_recipe(loaded);
  });
}
