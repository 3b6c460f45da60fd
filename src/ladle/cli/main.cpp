// main.cpp: the `ladle` binary: standard output and error around run_cli (in_process.hpp), which
// parses the command line, runs the command and turns every error into its line and exit code.
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/in_process.hpp"
#include "ladle/util/checked_output.hpp"

// Standard output goes through a CheckedOutput so that output lost to a full disk or a closed
// socket ends in exit 2 with the reason, for every command, instead of exit 0.
int main(int argc, char** argv) {
  ladle::util::CheckedOutput stdout_buffer(STDOUT_FILENO);
  std::streambuf* const stdio_buffer = std::cout.rdbuf(&stdout_buffer);
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  int code = ladle::cli::run_cli(args, std::cout, std::cerr).exit_code;
  std::cout.flush();
  std::cout.rdbuf(stdio_buffer);  // the exit-time flush of std::cout must not reach a dead buffer
  if (!stdout_buffer.finish()) {
    std::cerr << "ladle: error: writing standard output: " << std::strerror(stdout_buffer.error()) << "\n";
    code = ladle::cli::kExitError;
  }
  return code;
}
