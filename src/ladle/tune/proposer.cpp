#include "ladle/tune/proposer.hpp"

#include <algorithm>
#include <cmath>

#include "ladle/layout/layout_spec.hpp"

namespace ladle::tune {

double expected_improvement(double mean, double sigma, double best) {
  if (best <= 0) return 0;
  const double s = sigma * mean;
  if (s <= 0) return std::max(0.0, mean - best) / best;
  const double z = (mean - best) / s;
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  return ((mean - best) * cdf + s * pdf) / best;
}

double pooled_sigma(double prior_sigma, double prior_weight, const std::vector<double>& residuals) {
  double sum = prior_weight * prior_sigma * prior_sigma;
  for (double r : residuals) sum += r * r;
  return std::sqrt(sum / (prior_weight + static_cast<double>(residuals.size())));
}

std::map<std::string, double> part_exposure(const std::vector<Prediction>& measured) {
  std::map<std::string, double> out;
  for (const Prediction& m : measured) {
    if (m.step_time_s <= 0) continue;
    for (const Part& part : m.step_parts) {
      double& e = out[part.name];
      e = std::max(e, part.value / m.step_time_s);
    }
  }
  return out;
}

double unexplored_share(const Prediction& p, const std::map<std::string, double>& exposure) {
  if (p.step_time_s <= 0) return 0;
  double share = 0;
  for (const Part& part : p.step_parts) {
    const auto it = exposure.find(part.name);
    share += std::max(0.0, part.value / p.step_time_s - (it == exposure.end() ? 0.0 : it->second));
  }
  return std::min(share, 1.0);
}

double candidate_sigma(double pooled, double prior_sigma, double unexplored) {
  return std::sqrt(pooled * pooled + prior_sigma * prior_sigma * unexplored);
}

std::vector<Candidate> propose(const std::vector<Prediction>& predictions,
                               const std::vector<double>& sigmas,
                               const std::set<std::string>& tried, double best, int64_t count) {
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
    c.expected_improvement = expected_improvement(p.tokens_per_s_per_gpu, sigma, best);
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
