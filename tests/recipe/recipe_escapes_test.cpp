// A recipe value may hold characters YAML's printable set lacks, or reads as line breaks, when it
// arrives through a double-quoted escape ("\e", "\x07", "\u009b"): the writer gives every such
// value back as it was read (escaped, double-quoted), never as raw bytes that `check` refuses,
// in plain and literal-block fields alike.
#include <gtest/gtest.h>

#include <string>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::recipe {
namespace {

Recipe base() {
  const std::string path = test::source_path("recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml");
  return read_recipe(util::read_file(path), path).recipe;
}

// Whether `text` holds a byte that read_recipe refuses as a raw character (C0 but tab, LF, CR; DEL).
bool has_raw_control(const std::string& text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f) return true;
  }
  return false;
}

const std::string kValues[] = {
    "ATT\x1b]0;pwned\x07\x1b[2JUNE",  // ESC, BEL: retitle the terminal, clear the screen
    std::string("nul\0byte", 8),
    "del\x7f",
    "carriage\rreturn",               // a line break to YAML
    "csi\xc2\x9b" "2J",                // C1 CSI U+009B
    "next\xc2\x85line",               // NEL U+0085, a line break to YAML 1.1
    "line\xe2\x80\xa8separator",      // U+2028
    "two\nlines\x1b[0m\n",
    "\tleading tab\n\tand another",  // read back as indentation, were it written in a literal block
};

TEST(RecipeEscapes, PlainAndLiteralFieldsHoldingControlCharactersReadBackAsWritten) {
  for (const std::string& value : kValues) {
    Recipe recipe = base();
    recipe.author.name = value;
    recipe.notes = value;
    const std::string written = write_recipe(recipe);
    EXPECT_FALSE(has_raw_control(written)) << value;
    Recipe back;
    ASSERT_NO_THROW(back = read_recipe(written, "written.yaml").recipe) << value;
    EXPECT_EQ(back.author.name, value);
    EXPECT_EQ(back.notes, value);
  }
}

TEST(RecipeEscapes, ALiteralBlockWithoutSuchCharactersStaysALiteralBlock) {
  Recipe recipe = base();
  recipe.notes = "first line\nwith\ta tab\nlast line\n";
  const std::string written = write_recipe(recipe);
  EXPECT_NE(written.find("notes: |\n  first line\n  with\ta tab\n"), std::string::npos) << written;
  EXPECT_EQ(read_recipe(written, "written.yaml").recipe.notes, recipe.notes);
}

}  // namespace
}  // namespace ladle::recipe
