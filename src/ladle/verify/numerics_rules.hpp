#pragma once
// numerics_rules.hpp: the argument classes of data/rules/numerics.yaml, read in the recipe module
// (recipe/numerics_rules.hpp, where `ladle check` uses them too) and named here for `ladle diff`.

#include "ladle/recipe/numerics_rules.hpp"

namespace ladle::verify {

using recipe::ArgClass;
using recipe::default_numerics_rules;
using recipe::EnvRule;
using recipe::NumericsRule;
using recipe::NumericsRules;
using recipe::parse_arg_class;
using recipe::parse_numerics_rules;
using recipe::to_string;

}  // namespace ladle::verify
