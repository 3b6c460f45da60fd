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

std::vector<Candidate> propose(const std::vector<Prediction>& predictions, const std::set<std::string>& tried,
                               double best, double sigma, int64_t count) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  for (const Prediction& p : predictions) {
    Candidate c;
    c.spec = layout::format_layout_spec(p.layout);
    if (tried.count(c.spec) || !seen.insert(c.spec).second) continue;
    c.prediction = p;
    c.sigma = sigma;
    c.expected_improvement = expected_improvement(p.tokens_per_s_per_gpu, sigma, best);
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.expected_improvement != b.expected_improvement) return a.expected_improvement > b.expected_improvement;
    if (a.prediction.tokens_per_s_per_gpu != b.prediction.tokens_per_s_per_gpu) {
      return a.prediction.tokens_per_s_per_gpu > b.prediction.tokens_per_s_per_gpu;
    }
    return a.spec < b.spec;
  });
  if (static_cast<int64_t>(out.size()) > count) out.resize(static_cast<size_t>(std::max<int64_t>(count, 0)));
  return out;
}

}  // namespace ladle::tune
