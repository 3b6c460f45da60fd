// cmd_version.cpp: `ladle version`, prints the version.
#include <CLI/CLI.hpp>
#include <ostream>

#include "ladle/cli/commands.hpp"

namespace ladle::cli {

void add_version_command(CLI::App& command, Io& io) {
  command.callback([&io] { io.out << "ladle 0.1.0\n"; });
}

}  // namespace ladle::cli
