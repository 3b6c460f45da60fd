// bobyqa.hpp: a bounded, derivative-free minimisation with NLopt's BOBYQA, shared by the
// calibration fit (plan/calibrate.cpp) and the tuning refit (tune/belief.cpp).
#pragma once

#include <vector>

#include <nlopt.h>

namespace ladle::plan {

/// The box, first step and stopping rule of one minimisation.
struct BobyqaSettings {
  const std::vector<double>* lo = nullptr;
  const std::vector<double>* hi = nullptr;
  std::vector<double> step;  ///< initial step per coordinate
  double xtol_rel = 1e-7;
  int max_evaluations = 4000;
};

/// Minimises `objective` (NLopt's signature, `data` passed through) from `x` inside the box;
/// `x` ends at the minimum found, clamped to the box. Returns NLopt's result code for the
/// caller to judge.
nlopt_result minimise_bobyqa(nlopt_func objective, void* data, const BobyqaSettings& s, std::vector<double>& x);

}  // namespace ladle::plan
