#pragma once
// time_tp.hpp: the tensor-parallel collectives of one layer's forward pass.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// Seconds of the layer's forward TP collectives (the backward repeats them).
double tp_forward(const KindInputs& in);

}  // namespace ladle::plan::timing
