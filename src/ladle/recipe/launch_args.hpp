#pragma once
// Transitional (issue 28): the launch reader moved to args/ (ladle/args/launch_args.hpp, args::).
// Code written before the move still names it here as recipe::; new code includes the args/ header.
// Remove this file once nothing includes it (scripts/house_metrics.py lists it as allowed).

#include "ladle/args/launch_args.hpp"

namespace ladle::recipe {

using args::is_variable_reference;
using args::kLauncherArg;
using args::Launch;
using args::LaunchArg;
using args::LaunchArgs;
using args::LaunchExport;
using args::parse_launch_args;
using args::RunTimeWord;
using args::variable_shell_word;

}  // namespace ladle::recipe
