#pragma once
// numerics_rules.hpp: the argument classes of data/rules/numerics.yaml, read in the args module
// (args/numerics_rules.hpp, where `ladle check` uses them too) and named here for `ladle diff`.

#include "ladle/args/numerics_rules.hpp"

namespace ladle::verify {

using args::ArgClass;
using args::default_numerics_rules;
using args::EnvRule;
using args::NumericsRule;
using args::NumericsRules;
using args::parse_arg_class;
using args::parse_numerics_rules;
using args::to_string;

}  // namespace ladle::verify
