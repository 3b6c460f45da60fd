// cmd_check.cpp: `ladle check`, applies the recipe rules to files, folders or the embedded catalog.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/plan/scenario.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/check/check_json.hpp"
#include "ladle/check/rules.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {

struct CheckOptions {
  std::vector<std::string> paths;
  bool json = false;
  bool list_rules = false;
};

// A recipe whose precision its GPU cannot run (MXFP8 on Hopper) is refused as predict and plan
// refuse it: through the checking context of the recipe's scenario (plan::scenario_from_recipe), as
// an error at the knob's field. Nothing when the model, GPU or instance is not in the catalog (R5
// and R18 say so) or the layout cannot be read (the rules report it).
void require_runnable_precision(const recipe::LoadedRecipe& loaded) {
  plan::Scenario scenario;
  Layout layout;
  try {
    scenario = plan::scenario_from_recipe(loaded);
    layout = layout::layout_from_recipe(loaded.recipe);
  } catch (const Error&) {
    return;
  }
  const std::optional<layout::LayoutViolation> v = layout::precision_violation(layout, scenario.context());
  if (!v) return;
  const layout::Knob* knob = layout::find_knob(v->knob);
  const std::string field = knob && !knob->recipe.empty() ? "layout." + std::string(knob->recipe) : "layout";
  throw Error(ErrorKind::input, v->message, loaded.where.at(field));
}

int run_check(const CheckOptions& opt, Io& io) {
  if (opt.list_rules) {
    for (const check::RuleInfo& rule : check::recipe_rules()) io.out << rule.id << "\t" << rule.summary << "\n";
    return kExitOk;
  }
  std::vector<check::CheckReport> reports;
  std::vector<std::string> errors;
  const auto check_all = [&](const std::vector<recipe::LoadedRecipe>& recipes) {
    for (const auto& loaded : recipes) {
      try {
        require_runnable_precision(loaded);
      } catch (const Error& e) {
        errors.push_back(e.describe());
        continue;
      }
      check::CheckReport report = check::check_recipe(loaded);
      // The block's optional knob fields against the script, through the knob table (the rules
      // compare the core fields).
      for (recipe::Finding& f : layout::block_disagreements(loaded)) report.findings.push_back(std::move(f));
      reports.push_back(std::move(report));
    }
  };
  if (opt.paths.empty()) {
    check_all(recipe::load_embedded_catalog());
  }
  for (const std::string& path : opt.paths) {
    // A file that does not parse is reported and the others are still checked.
    try {
      check_all(recipe::load_catalog_dir(path));
    } catch (const Error& e) {
      errors.push_back(e.describe());
    }
  }
  size_t violations = 0;
  for (const auto& report : reports) violations += report.findings.size();
  if (opt.json) {
    nlohmann::ordered_json j;
    j["recipes"] = nlohmann::ordered_json::array();
    for (const auto& report : reports) j["recipes"].push_back(check::to_json(report));
    j["violations"] = violations;
    j["errors"] = errors;
    io.out << j.dump(2) << "\n";
  } else {
    // Findings quote the recipe (names, values, script words): escaped, so that a field holding
    // an escape sequence cannot drive the terminal.
    using util::terminal_safe;
    for (const auto& report : reports) {
      for (const auto& f : report.findings) {
        io.out << terminal_safe(f.file) << ":" << f.line << ": " << f.rule << ": " << terminal_safe(f.message) << "\n";
      }
      for (const auto& s : report.skipped) io.out << terminal_safe(report.file) << ": note: not checked: " << terminal_safe(s) << "\n";
      if (report.findings.empty()) {
        io.out << terminal_safe(report.file) << ": ok";
        if (report.expert_data_parallel) io.out << " (expert data-parallel size " << *report.expert_data_parallel << ")";
        io.out << "\n";
      }
    }
    for (const std::string& e : errors) io.err << terminal_safe(e) << "\n";
    // When nothing could be read, the error lines say it all.
    if (!reports.empty()) {
      io.out << "checked " << reports.size() << (reports.size() == 1 ? " recipe: " : " recipes: ") << violations
             << (violations == 1 ? " violation" : " violations");
      if (!errors.empty()) io.out << ", " << errors.size() << (errors.size() == 1 ? " file" : " files") << " unreadable";
      io.out << "\n";
    }
  }
  if (!errors.empty()) return kExitError;
  return violations ? kExitNo : kExitOk;
}

}  // namespace

void add_check_command(CLI::App& command, Io& io) {
  auto opt = std::make_shared<CheckOptions>();
  command.add_option("paths", opt->paths, "recipe files or folders (default: the embedded catalog)");
  command.add_flag("--list-rules", opt->list_rules, "print every rule id with what it checks");
  add_json_flag(command, opt->json);
  command.callback([opt, &io] { io.exit_code = run_check(*opt, io); });
}

}  // namespace ladle::cli
