// main.cpp: the `ladle` binary. The only place that catches ladle::Error and picks the exit code.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/util/checked_output.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/filesystem_error.hpp"
#include "ladle/util/text.hpp"

namespace {

int run(int argc, char** argv) {
  using namespace ladle::cli;  // NOLINT: function scope only
  Io io{std::cout, std::cerr};
  CLI::App app{"ladle: plans, checks, scores and publishes LLM training recipes", "ladle"};
  app.require_subcommand(1);
  app.fallthrough(false);
  app.set_version_flag("--version", version_text(), "print ladle's version and exit");
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    command.add(*sub, io);
  }
  // A misspelt command gets a suggestion instead of CLI11's "a subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const Command& command : commands()) names.emplace_back(command.name);
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::cerr << "ladle: error: unknown command '" << ladle::util::terminal_safe(argv[1]) << "'"
                << ladle::util::did_you_mean(argv[1], names) << "; see ladle --help\n";
      return kExitError;
    }
  }
  // `--args "--tensor-model-parallel-size 2 ..."`: a value that begins with dashes is still the
  // value of --args (CLI11 would read it as an option); pass it on as --args=VALUE.
  std::vector<std::string> words(argv, argv + argc);
  for (size_t i = 1; i + 1 < words.size(); ++i) {
    if (words[i] == "--args") {
      words[i] = "--args=" + words[i + 1];
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  std::vector<char*> word_ptrs;
  for (std::string& w : words) word_ptrs.push_back(w.data());
  try {
    app.parse(static_cast<int>(word_ptrs.size()), word_ptrs.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "ladle: error: " << ladle::util::terminal_safe(e.what()) << "\n";
    return kExitError;
  } catch (const ladle::Error& e) {
    std::cout.flush();
    // "No" is an answer, not a failure: its reason without "error:".
    if (e.kind() == ladle::ErrorKind::no) {
      std::cerr << "ladle: " << ladle::util::terminal_safe(e.message()) << "\n";
      return kExitNo;
    }
    std::cerr << ladle::util::terminal_safe(e.describe()) << "\n";
    return kExitError;
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder that cannot be read mid-walk is the user's to fix, not ladle's bug.
    std::cout.flush();
    std::cerr << "ladle: error: " << ladle::util::describe_filesystem_error(e) << "\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "ladle: error: internal: " << ladle::util::terminal_safe(e.what()) << "\n";
    return kExitError;
  }
  std::cout.flush();
  return io.exit_code;
}

}  // namespace

// Standard output goes through a CheckedOutput so that output lost to a full disk or a closed
// socket ends in exit 2 with the reason, for every command, instead of exit 0.
int main(int argc, char** argv) {
  ladle::util::CheckedOutput stdout_buffer(STDOUT_FILENO);
  std::streambuf* const stdio_buffer = std::cout.rdbuf(&stdout_buffer);
  int code = run(argc, argv);
  std::cout.rdbuf(stdio_buffer);  // the exit-time flush of std::cout must not reach a dead buffer
  if (!stdout_buffer.finish()) {
    std::cerr << "ladle: error: writing standard output: " << std::strerror(stdout_buffer.error()) << "\n";
    code = ladle::cli::kExitError;
  }
  return code;
}
