#pragma once
// pipeline_layout.hpp: Megatron-LM's --pipeline-model-parallel-layout strings, as the layout module
// names them. The parser lives in the recipe module (recipe/pipeline_layout.hpp), whose rule R5
// reads a recipe's layout string too.

#include "ladle/recipe/pipeline_layout.hpp"

namespace ladle::layout {

using recipe::parse_pipeline_layout;
using recipe::VirtualStage;

}  // namespace ladle::layout
