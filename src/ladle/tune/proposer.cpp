#include "ladle/tune/proposer.hpp"

#include <algorithm>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/tune/belief.hpp"

namespace ladle::tune {

std::vector<Candidate> propose(const std::vector<Prediction>& predictions,
                               const std::vector<double>& sigmas,
                               const std::set<std::string>& tried, double best, int64_t count,
                               const std::vector<double>& fit_probabilities) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < predictions.size(); ++i) {
    const Prediction& p = predictions[i];
    const double sigma = i < sigmas.size() ? sigmas[i] : 0;
    Candidate c;
    c.spec = layout::format_layout_spec(p.layout);
    if (tried.count(c.spec) || !seen.insert(c.spec).second) continue;
    c.prediction = p;
    c.sigma = sigma;
    c.fit_probability = i < fit_probabilities.size() ? fit_probabilities[i] : 1.0;
    c.expected_improvement = c.fit_probability * expected_improvement(p.tokens_per_s_per_gpu, sigma, best);
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.expected_improvement != b.expected_improvement)
      return a.expected_improvement > b.expected_improvement;
    if (a.prediction.tokens_per_s_per_gpu != b.prediction.tokens_per_s_per_gpu) {
      return a.prediction.tokens_per_s_per_gpu > b.prediction.tokens_per_s_per_gpu;
    }
    return a.spec < b.spec;
  });
  // One layout per parallel shape (tp, pp, cp, ep, etp) in a round while others are left: the
  // round's trials then tell the refit about different terms instead of the same one twice.
  std::vector<Candidate> picked;
  std::set<std::string> shapes;
  for (int pass = 0; pass < 2 && static_cast<int64_t>(picked.size()) < count; ++pass) {
    for (Candidate& c : out) {
      if (static_cast<int64_t>(picked.size()) >= count) break;
      if (c.spec.empty()) continue;
      const std::string shape = layout::layout_label(c.prediction.layout);
      if (pass == 0 && !shapes.insert(shape).second) continue;
      picked.push_back(c);
      c.spec.clear();  // taken
    }
  }
  return picked;
}

}  // namespace ladle::tune
