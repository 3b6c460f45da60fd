// cmd_show.cpp: `ladle show`, one recipe as its page.
#include <CLI/CLI.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/recipe/page.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {
struct ShowOptions {
  std::string recipe;
  std::string format = "md";
};

int run_show(const ShowOptions& opt, Io& io) {
  const recipe::LoadedRecipe loaded = recipe::find_recipe(opt.recipe);
  const recipe::RecipePage page = recipe::build_page(loaded.recipe);
  // Text from the recipe reaches a terminal: its control characters are shown, not obeyed.
  if (opt.format == "md") io.out << util::terminal_safe(recipe::render_page_markdown(page));
  if (opt.format == "text") io.out << util::terminal_safe(recipe::render_page_text(page));
  if (opt.format == "json") io.out << recipe::render_page_json(page);
  if (opt.format == "yaml") io.out << util::terminal_safe(page.yaml);
  return kExitOk;
}
}  // namespace

void add_show_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<ShowOptions>();
  command.add_option("recipe", opt->recipe, "a recipe file, or a catalog name (file stem or model/gpu/stem)")->required();
  command.add_option("--format", opt->format, "md, text (the published page layout), json or yaml")
      ->check(one_of({"md", "text", "json", "yaml"}));
  // --json as every reporting command has it: the same as --format json.
  command.add_flag_callback("--json", [opt] { opt->format = "json"; }, "print the page as JSON (--format json)");
  command.callback([opt, &io] { io.exit_code = run_show(*opt, io); });
}

}  // namespace ladle::cli
