#pragma once
// trial_score.hpp: a trial's throughput from its log: warm-up steps dropped, the median step
// time of the rest and its coefficient of variation. The median keeps one slow step (a
// checkpoint, a straggler) from moving the score of a short run.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ladle::tune {

/// What scoring needs besides the log.
struct ScoreShape {
  int64_t gpus = 0;
  int64_t row_tokens = 0;
  int64_t global_batch = 0;
  bool operator==(const ScoreShape&) const = default;
};

/// One trial's score.
struct TrialScore {
  int64_t records = 0;         ///< step records in the log
  int64_t window_records = 0;  ///< after the warm-up
  double median_step_time_s = 0;
  double step_time_cv_percent = 0;  ///< 100 x sample sd / mean over the window
  double tokens_per_s_per_gpu = 0;  ///< global batch x row tokens / median step time / GPUs
  double gpu_hours = 0;  ///< GPUs x (the log's timestamp span, else the steps' time) / 3600
  bool operator==(const TrialScore&) const = default;
};

/// Warm-up records dropped from `records`: ceil(records / 4), as score.hpp's default window.
int64_t warmup_records(int64_t records);

/// Scores the first `max_records` step records of a log (all when nullopt). Returns nullopt when
/// the log has no readable steps or fewer than `min_window` records after the warm-up (a log that
/// ladle cannot read is a failed trial, not an error of the loop).
std::optional<TrialScore> score_trial_log(std::string_view log, const std::string& path,
                                          const ScoreShape& shape,
                                          std::optional<int64_t> max_records = std::nullopt,
                                          int64_t min_window = 2);

}  // namespace ladle::tune
