#pragma once
// The hardware facts the time model prices with live in hw/ (hw/hw_facts.hpp); the planner and
// the RL step name them as plan::, which these declarations keep.

#include "ladle/hw/hw_facts.hpp"

namespace ladle::plan {

using hw::Collective;
using hw::CollectiveSweep;
using hw::fabric_facts;
using hw::fabric_for;
using hw::FabricFacts;
using hw::gemm_mamf_fraction;
using hw::host_link_bytes_per_s;
using hw::kernel_facts;
using hw::KernelFacts;
using hw::link_fraction;
using hw::nvlink_facts;
using hw::to_string;

}  // namespace ladle::plan
