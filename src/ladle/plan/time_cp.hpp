#pragma once
// time_cp.hpp: the context-parallel key/value exchange of one layer, less what attention hides.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// Seconds of the layer's forward CP exchange not hidden behind its `attention_s` of attention.
double cp_forward(const KindInputs& in, double attention_s);

}  // namespace ladle::plan::timing
