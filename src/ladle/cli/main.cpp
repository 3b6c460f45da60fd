// main.cpp: the `ladle` binary. The only place that catches ladle::Error and picks the exit code.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

int main(int argc, char** argv) {
  using namespace ladle::cli;  // NOLINT: function scope only
  Io io{std::cout, std::cerr};
  CLI::App app{"ladle: plans, checks, scores and publishes LLM training recipes", "ladle"};
  app.require_subcommand(1);
  app.fallthrough(false);
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    command.add(*sub, io);
  }
  // A misspelt command gets a suggestion instead of CLI11's "a subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const Command& command : commands()) names.emplace_back(command.name);
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::cerr << "ladle: error: unknown command '" << argv[1] << "'" << ladle::util::did_you_mean(argv[1], names)
                << "; see ladle --help\n";
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
  } catch (const CLI::ParseError& e) {
    std::cerr << "ladle: error: " << e.what() << "\n";
    return kExitError;
  } catch (const ladle::Error& e) {
    std::cout.flush();
    std::cerr << e.describe() << "\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "ladle: error: internal: " << e.what() << "\n";
    return kExitError;
  }
  std::cout.flush();
  return io.exit_code;
}
