#include "ladle/plan/bobyqa.hpp"

#include <algorithm>

namespace ladle::plan {

nlopt_result minimise_bobyqa(nlopt_func objective, void* data, const BobyqaSettings& s, std::vector<double>& x) {
  const unsigned n = static_cast<unsigned>(x.size());
  nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, n);
  nlopt_set_lower_bounds(opt, s.lo->data());
  nlopt_set_upper_bounds(opt, s.hi->data());
  nlopt_set_min_objective(opt, objective, data);
  nlopt_set_xtol_rel(opt, s.xtol_rel);
  nlopt_set_maxeval(opt, s.max_evaluations);
  nlopt_set_initial_step(opt, s.step.data());
  double value = 0;
  const nlopt_result result = nlopt_optimize(opt, x.data(), &value);
  nlopt_destroy(opt);
  for (unsigned i = 0; i < n; ++i) x[i] = std::clamp(x[i], (*s.lo)[i], (*s.hi)[i]);
  return result;
}

}  // namespace ladle::plan
