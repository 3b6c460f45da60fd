// cmd_diff.cpp: `ladle diff`, which launch-argument differences between two recipes or scripts
// can change the numerics.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/table.hpp"
#include "ladle/verify/config_diff.hpp"

namespace ladle::cli {

namespace {

struct DiffOptions {
  std::string a;
  std::string b;
  std::string rules;
  bool json = false;
};

void run_diff(const DiffOptions& options, Io& io) {
  std::optional<verify::NumericsRules> custom;
  if (!options.rules.empty()) custom = verify::parse_numerics_rules(util::read_file(options.rules), options.rules);
  const verify::NumericsRules& rules = custom ? *custom : verify::default_numerics_rules();
  // Either side may be a catalog name (resolve_launch_script in commands.cpp).
  const auto a = recipe::parse_launch_args(resolve_launch_script(options.a), options.a);
  const auto b = recipe::parse_launch_args(resolve_launch_script(options.b), options.b);
  const verify::ConfigDiff diff = verify::diff_launch_args(a, b, rules, options.a, options.b);
  const auto side = [](const std::optional<std::string>& v) { return v ? *v : std::string("(absent)"); };
  if (options.json) {
    nlohmann::ordered_json out;
    out["a"] = diff.a_path;
    out["b"] = diff.b_path;
    out["flags_compared"] = diff.flags_compared;
    nlohmann::ordered_json differences = nlohmann::ordered_json::array();
    for (const auto& d : diff.differences) {
      nlohmann::ordered_json j;
      j["flag"] = d.flag;
      j["a"] = d.a ? nlohmann::ordered_json(*d.a) : nullptr;
      j["b"] = d.b ? nlohmann::ordered_json(*d.b) : nullptr;
      j["class"] = verify::to_string(d.arg_class);
      j["reason"] = d.reason;
      j["line_a"] = d.line_a;
      j["line_b"] = d.line_b;
      differences.push_back(std::move(j));
    }
    out["differences"] = std::move(differences);
    out["worst"] = diff.worst ? nlohmann::ordered_json(verify::to_string(*diff.worst)) : nullptr;
    out["configuration"] = diff.configuration;
    out["verdict"] = diff.verdict;
    out["notes"] = diff.notes;
    out["rules"] = rules.file;
    io.out << out.dump(2) << "\n";
  } else {
    io.out << fmt::format("A: {}\nB: {}\n", diff.a_path, diff.b_path);
    if (diff.differences.empty()) {
      io.out << fmt::format("no differences in {} arguments\n", diff.flags_compared);
    } else {
      util::Table table;
      table.header = {"argument", "A", "B", "class", "why"};
      for (const auto& d : diff.differences) {
        table.rows.push_back({d.flag, side(d.a), side(d.b), verify::to_string(d.arg_class), d.reason});
      }
      io.out << table.render();
    }
    for (const std::string& note : diff.notes) io.out << "note: " << note << "\n";
    io.out << fmt::format("verdict: {}\ncorrectness.configuration: {}\nrules: {}\n", diff.verdict, diff.configuration,
                          rules.file);
  }
  io.exit_code = diff.configuration == "pass" ? kExitOk : kExitNo;
}

}  // namespace

void add_diff_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<DiffOptions>();
  command.add_option("a", options->a, "recipe (file or catalog name) or launch script A")->required();
  command.add_option("b", options->b, "recipe (file or catalog name) or launch script B")->required();
  command.add_option("--rules", options->rules, "argument classes to use instead of data/rules/numerics.yaml");
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_diff(*options, io); });
}

}  // namespace ladle::cli
