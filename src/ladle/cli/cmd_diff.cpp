// cmd_diff.cpp: `ladle diff`, which launch-argument differences between two recipes or scripts
// can change the numerics.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/launch_options.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"
#include "ladle/verify/config_diff.hpp"
#include "ladle/verify/config_diff_json.hpp"

namespace ladle::cli {

namespace {

constexpr size_t kReportWidth = 120;
// GPUs per node nvidia-smi lists inside a diff's sandbox: diff names no cluster; 8 is the node of
// every GPU in data/ that scripts query this way.
constexpr int kDiffGpusPerNode = 8;

// `text` after two spaces, on lines of at most kReportWidth columns broken at spaces; later lines
// after `indent`.
std::string wrapped(const std::string& text, const std::string& indent) {
  std::string out;
  std::string line = "  ";
  bool fresh = true;  // nothing but indentation on `line` yet
  for (const std::string& word : util::split(text, ' ')) {
    if (word.empty()) continue;
    if (!fresh && line.size() + 1 + word.size() > kReportWidth) {
      out += line + "\n";
      line = indent;
      fresh = true;
    }
    if (!fresh) line += " ";
    line += word;
    fresh = false;
  }
  return out + line + "\n";
}

struct DiffOptions {
  std::string a;
  std::string b;
  std::string rules;
  bool json = false;
  bool static_read = false;  ///< --static: read scripts as text, without running them
  ScriptFlags script_flags;  ///< how bash runs a script side (--script-arg, --env, --launch)
};

// One side of the diff: a recipe's run block (or a catalog name's) read as text; a script file
// run by bash in the sandbox (as `predict --script` runs it), or read as text with --static.
args::LaunchArgs read_side(const std::string& side, const DiffOptions& options, Io& io) {
  std::error_code ec;
  if (!options.static_read && std::filesystem::is_regular_file(side, ec)) {
    const std::string text = util::read_file(side, limits::FileKind::launch_script);
    if (verify::read_launch_script(side) == text) {  // not a recipe: a launch script
      const args::ScriptReading reading =
          args::read_script(side, script_options(options.script_flags, kDiffGpusPerNode));
      if (!reading.note.empty()) io.err << reading.note << "\n";
      for (const std::string& w : reading.warnings) io.err << w << "\n";
      if (!reading.ran_bash || !options.script_flags.launch) return reading.launch;
      return args::select_launch(reading.launch, options.script_flags.launch, side);
    }
  }
  if (!options.script_flags.script_args.empty() || !options.script_flags.env.empty()) {
    throw_usage("--script-arg and --env go with a script that bash runs ({} is not one, or --static)", side);
  }
  // Either side may be a catalog name (resolve_launch_script in commands.cpp). A recipe's lines are
  // its run: block's: moved to the recipe file's own lines, so that A at / B at point into it.
  args::LaunchArgs launch = args::parse_launch_args(resolve_launch_script(side), side);
  std::string file_text;
  if (std::filesystem::is_regular_file(side, ec)) {
    file_text = util::read_file(side, limits::FileKind::launch_script);
  } else if (const auto embedded = util::find_embedded(recipe::find_recipe(side).path)) {
    file_text = std::string(*embedded);
  }
  if (!file_text.empty()) verify::shift_script_lines(launch, verify::launch_script_line_offset(file_text, side));
  return launch;
}

void run_diff(const DiffOptions& options, Io& io) {
  std::optional<verify::NumericsRules> custom;
  if (!options.rules.empty()) custom = verify::parse_numerics_rules(util::read_file(options.rules), options.rules);
  const verify::NumericsRules& rules = custom ? *custom : verify::default_numerics_rules();
  const auto a = read_side(options.a, options, io);
  const auto b = read_side(options.b, options, io);
  const verify::ConfigDiff diff = verify::diff_launch_args(a, b, rules, options.a, options.b);
  // Nothing compared is no answer: "the same" needs something to be the same.
  if (diff.flags_compared == 0 && diff.differences.empty()) {
    throw_input(SourceLocation{options.a, 0, 0, "launch"},
                "no launch argument to compare in {} or {} (no training launch passes any argument)", options.a,
                options.b);
  }
  const auto side = [](const std::optional<std::string>& v) { return v ? *v : std::string("(absent)"); };
  const std::string& a_path = options.a;
  const std::string& b_path = options.b;
  // Where a side's value is written: FILE:LINE (a file the script sources or runs, else the script
  // itself); "-" when that side has no value or it comes from no line (an --env, a default).
  const auto where = [](const std::string& file, const std::string& script, int line, bool present) {
    return present && line > 0 ? fmt::format("{}:{}", file.empty() ? script : file, line) : std::string("-");
  };
  if (options.json) {
    nlohmann::ordered_json out = verify::to_json(diff);
    out["rules"] = rules.file;
    io.out << out.dump(2) << "\n";
  } else {
    // Arguments, values and notes quote the scripts: escaped, so that none can drive the terminal.
    std::ostringstream text;
    text << fmt::format("A: {}\nB: {}\n", diff.a_path, diff.b_path);
    if (diff.differences.empty()) text << fmt::format("no differences in {} arguments\n", diff.flags_compared);
    const auto section = [&](const std::vector<verify::ArgDifference>& list, const std::string& name,
                             const std::string& title, bool with_class) {
      util::Table table;
      table.header = {"argument", "A", "B"};
      if (with_class) table.header.push_back("class");
      table.header.push_back("A at");
      table.header.push_back("B at");
      // The reasons go under the table, wrapped, so that it stays within the report width.
      std::string reasons;
      for (const auto& d : list) {
        if (!name.empty() && d.section != name) continue;
        std::vector<std::string> row = {d.launch ? fmt::format("{} (launch {})", d.flag, d.launch) : d.flag, side(d.a),
                                        side(d.b)};
        if (with_class) {
          row.push_back(verify::to_string(d.arg_class));
          if (!d.reason.empty()) reasons += wrapped(fmt::format("{}: {}", row.front(), d.reason), "    ");
        }
        row.push_back(where(d.file_a, a_path, d.line_a, d.a.has_value()));
        row.push_back(where(d.file_b, b_path, d.line_b, d.b.has_value()));
        table.rows.push_back(std::move(row));
      }
      if (table.rows.empty()) return;
      text << title << ":\n" << table.render();
      if (!reasons.empty()) text << "why:\n" << reasons;
    };
    section(diff.differences, "training", "training arguments", true);
    section(diff.differences, "launcher", "launcher arguments (ray, torchrun, srun, mpirun, deepspeed)", true);
    section(diff.differences, "environment", "environment", true);
    section(diff.unresolved, "", "unresolved (set outside the scripts; not compared)", false);
    for (const std::string& note : diff.notes) text << "note: " << note << "\n";
    text << fmt::format("verdict: {}\ncorrectness.configuration: {}\nrules: {}\n", diff.verdict, diff.configuration,
                        rules.file);
    io.out << util::terminal_safe(text.str());
  }
  io.exit_code = diff.configuration == "pass" ? kExitOk : kExitNo;
}

}  // namespace

void add_diff_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<DiffOptions>();
  command.add_option("a", options->a, "recipe (file or catalog name) or launch script A")->required();
  command.add_option("b", options->b, "recipe (file or catalog name) or launch script B")->required();
  command.add_option("--rules", options->rules, "argument classes to use instead of data/rules/numerics.yaml");
  command.add_flag("--static", options->static_read,
                   "read script files as text without running them (default: bash runs each in a sandbox whose "
                   "launchers record what they are given)");
  add_script_flags(command, options->script_flags);
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_diff(*options, io); });
}

}  // namespace ladle::cli
