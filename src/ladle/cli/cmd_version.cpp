// cmd_version.cpp: `ladle version` (and `ladle --version`), prints the version.
#include <CLI/CLI.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"

namespace ladle::cli {

const char* version_text() { return "ladle 0.1.0"; }

void add_version_command(CLI::App& command, Io& io) {
  command.callback([&io] { io.out << version_text() << "\n"; });
}

}  // namespace ladle::cli
