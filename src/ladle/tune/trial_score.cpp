#include "ladle/tune/trial_score.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"

namespace ladle::tune {

int64_t warmup_records(int64_t records) { return (records + 3) / 4; }

std::optional<TrialScore> score_trial_log(std::string_view log, const std::string& path,
                                          const ScoreShape& shape,
                                          std::optional<int64_t> max_records, int64_t min_window) {
  runlog::RunLog run;
  try {
    run = runlog::read_log(log, path);
  } catch (const Error&) {
    return std::nullopt;
  }
  std::vector<double> times;
  for (const Step& s : run.steps) {
    if (max_records && static_cast<int64_t>(times.size()) >= *max_records) break;
    if (!s.step_time_s || !std::isfinite(*s.step_time_s) || *s.step_time_s <= 0)
      return std::nullopt;
    times.push_back(*s.step_time_s);
  }
  TrialScore score;
  score.records = static_cast<int64_t>(times.size());
  const int64_t skip = warmup_records(score.records);
  std::vector<double> window(times.begin() + std::min<int64_t>(skip, score.records), times.end());
  score.window_records = static_cast<int64_t>(window.size());
  if (score.window_records < std::max<int64_t>(min_window, 1) || shape.gpus < 1)
    return std::nullopt;
  std::vector<double> sorted = window;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  score.median_step_time_s = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double mean = 0;
  for (double t : window) mean += t;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double t : window) var += (t - mean) * (t - mean);
  score.step_time_cv_percent = n > 1 ? 100 * std::sqrt(var / static_cast<double>(n - 1)) / mean : 0;
  score.tokens_per_s_per_gpu = static_cast<double>(shape.global_batch) *
                               static_cast<double>(shape.row_tokens) / score.median_step_time_s /
                               static_cast<double>(shape.gpus);
  double seconds = 0;
  for (double t : times) seconds += t;
  if (!max_records && run.span_s && *run.span_s > 0) seconds = *run.span_s;
  score.gpu_hours = static_cast<double>(shape.gpus) * seconds / 3600;
  return score;
}

}  // namespace ladle::tune
