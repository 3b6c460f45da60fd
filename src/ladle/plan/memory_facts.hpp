#pragma once
// The memory facts the memory model adds live in hw/ (hw/memory_facts.hpp); the planner and the
// RL step name them as plan::, which these declarations keep.

#include "ladle/hw/memory_facts.hpp"

namespace ladle::plan {

using hw::deepep_buffer_bytes;
using hw::DeepEpFacts;
using hw::hybridep_buffer_bytes;
using hw::HybridEpFacts;
using hw::memory_facts;
using hw::MemoryFacts;

}  // namespace ladle::plan
