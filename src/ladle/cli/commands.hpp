#pragma once

#include <iosfwd>
#include <span>

namespace CLI {
class App;
class Validator;
}

namespace ladle::cli {

/// Where a command writes, and the exit code its callback leaves for main().
struct Io {
  std::ostream& out;
  std::ostream& err;
  int exit_code = 0;
};

/// One row of the subcommand table: `add` binds the flags on `command` and sets its callback.
struct Command {
  const char* name;
  const char* summary;
  void (*add)(CLI::App& command, Io& io);
};

/// Every subcommand, in the order `ladle --help` lists them.
std::span<const Command> commands();

/// Adds `--json` (machine-readable output) to a subcommand; defined once for every command.
void add_json_flag(CLI::App& command, bool& json);

/// A CLI11 check that accepts an integer >= 1 and otherwise says "expected a positive integer".
const CLI::Validator& positive_integer();

}  // namespace ladle::cli
