// cmd_fmt.cpp: `ladle fmt`, rewrites recipes in ladle's canonical YAML form.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::cli {

namespace {
struct FmtOptions {
  std::vector<std::string> files;
  bool check = false;
  bool json = false;
};

int run_fmt(const FmtOptions& opt, Io& io) {
  std::vector<std::string> files;
  for (const std::string& path : opt.files) {
    for (std::string& file : recipe::recipe_files(path)) files.push_back(std::move(file));
  }
  // Every file is parsed before any is written, so a bad file leaves all of them untouched.
  struct Rewrite {
    std::string file;
    std::string text;  ///< what was read and parsed
    std::string canonical;
  };
  std::vector<Rewrite> rewrites;
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  int changed = 0;
  for (const std::string& file : files) {
    const std::string text = util::read_file(file);
    const std::string canonical = recipe::write_recipe(recipe::read_recipe(text, file).recipe);
    const bool canonical_already = canonical == text;
    report.push_back({{"file", file},
                      {"canonical", canonical_already},
                      {"rewritten", !canonical_already && !opt.check}});
    if (canonical_already) continue;
    ++changed;
    if (opt.check) {
      if (!opt.json) io.out << file << ": not in canonical form\n";
    } else {
      rewrites.push_back({file, text, canonical});
    }
  }
  // A file another process changed since it was read (a `score --write`) is not overwritten.
  for (const auto& [file, text, canonical] : rewrites) {
    recipe::replace_recipe_text(file, text, canonical);
    if (!opt.json) io.out << file << ": rewritten\n";
  }
  if (opt.json) {
    io.out << nlohmann::ordered_json{{"check", opt.check}, {"not_canonical", changed}, {"files", report}}.dump(2)
           << "\n";
  }
  return opt.check && changed ? kExitNo : kExitOk;
}
}  // namespace

void add_fmt_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<FmtOptions>();
  command.add_option("files", opt->files, "recipe files or folders")->required();
  command.add_flag("--check", opt->check, "only report files that are not in canonical form (exit 1)");
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_fmt(*opt, io); });
}

}  // namespace ladle::cli
