#pragma once
// tuner.hpp: the closed loop of `ladle tune`. Round after round it proposes the layouts of highest
// expected improvement, runs each as a short job on a scheduler, scores it from its log, refits
// the calibration on every measurement and decides whether to go on; then it runs the winner for
// the base recipe's run length (the confirmation run) beside the base layout (the reference run)
// and writes the winner's recipe. Every step is read from and written to the tuning database, so
// the loop can be killed at any moment and resumed from it: a trial whose submission may have
// happened is looked up on the scheduler by its job name before anything is submitted again.

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"
#include "ladle/sched/scheduler.hpp"
#include "ladle/tune/tune_db.hpp"

namespace ladle::tune {

/// Everything that defines a tuning run; kept in the database (meta "settings", JSON).
struct TuneSettings {
  std::string run_id;  ///< 8 hex digits; jobs are named ladle-<run_id>-<trial>
  std::string model;   ///< model name or config.json path
  std::string gpu;
  int64_t gpus = 0;
  std::string instance;
  std::string engine = "slime";  ///< slime | miles | megatron
  std::string objective = "throughput";
  sched::SchedulerOptions scheduler;
  std::string out_dir;
  std::string base_path;    ///< the base recipe ("" : the planner's best layout is the base)
  std::string base_layout;  ///< canonical spec of the base layout (measured first)
  /// The user's own job (`tune --script`), as text, and the file it was read from: the base of every
  /// trial's job (launch::base_from_job); empty without one.
  std::string job_script;
  std::string job_file;
  int64_t row_tokens = 8192;
  int64_t global_batch = 128;
  std::string precision = "bf16";
  int64_t budget = 12;         ///< exploration trials at most
  double gpu_hours_limit = 0;  ///< 0: no limit
  int64_t steps = 10;          ///< run length of an exploration trial
  int64_t confirm_steps = 20;  ///< run length of the confirmation and reference runs
  int64_t per_round = 4;       ///< trials proposed per round
  double threshold = 0.03;     ///< stop when the best expected improvement is below this ...
  int64_t patience = 3;  ///< ... (and below 2 x CV), or after this many rounds without improvement
  /// The residual spread of the fidelity fit (belief.hpp) counts as this many trial residuals.
  double prior_weight = 2;
  double early_stop_fraction =
      0.7;                         ///< cancel a trial whose first steps give < this x the incumbent
  int64_t trial_time_limit_s = 0;  ///< 0: the default of trial_time_limit_s() below
  /// The default limit: this many times a trial's predicted run time, ...
  double time_limit_factor = 10;
  int64_t time_limit_floor_s = 1800;  ///< ... and never under this
  int64_t max_running = 0;         ///< trials running at once; 0: as many as proposed (local: 1)
  double poll_s = 0.2;
  std::string engine_program;  ///< runs in place of python3 / torchrun (tests, dry runs)
  bool operator==(const TuneSettings&) const = default;
};

/// The seconds a trial may run (counted from when it is seen running, not from its submission)
/// before it is cancelled as a timeout: --time-limit when given, else the default
///   max(time_limit_floor_s, time_limit_factor x steps x predicted step time),
/// predicted step time = global_batch x row_tokens / (predicted tokens/s per GPU x gpus).
/// The factor (10) covers a prediction that is far off and a slow first step (compilation, the
/// first all-to-all); the floor (30 minutes) covers start-up: loading the model and checkpoint,
/// starting Ray, building the dataset. A trial that hangs is thus ended on every back-end.
int64_t trial_time_limit_s(const TuneSettings& settings, const Trial& trial, int64_t gpus);

/// Why `ladle check` rejects `recipe` (the recipe rules and the layout block's agreement with its
/// script, check/rules.hpp) as one line "R7: ...; R16: ...", or nullopt when it passes; `path`
/// names the file in the messages. A tuned recipe is marked verified only when this passes.
std::optional<std::string> check_rejection(const Recipe& recipe, const std::string& path);

/// JSON text of the settings and back (throws Error(input) for a malformed text).
std::string settings_to_json(const TuneSettings& settings);
TuneSettings settings_from_json(const std::string& text, const std::string& path);

/// What a call to run() ended with.
enum class TuneOutcome {
  finished,     ///< DIR/recipe.yaml, report.md and chart.svg are written
  interrupted,  ///< stopped by the interrupt flag; running trials were cancelled and will rerun on
                ///< resume
  cancelled,    ///< the run was cancelled (tune cancel)
};

/// The loop over one database and one scheduler.
class Tuner {
 public:
  struct Problem;  ///< the model, costs, cluster and workload derived from the settings

  /// `progress` (may be null) gets one line per event (proposal, submission, end of a trial,
  /// round).
  Tuner(TuneDb& db, sched::Scheduler& scheduler, TuneSettings settings, std::ostream* progress);

  /// Creates round 1 (the base layout and the best proposals) when the database has no trial yet.
  /// Throws Error(usage) when nothing can be proposed.
  void start();
  /// Runs until finished, cancelled or `interrupt` is set. Throws Error(input) when the scheduler
  /// rejects the first submission of the run (nothing else has been submitted then).
  TuneOutcome run(const std::atomic<bool>& interrupt);
  /// Cancels every submitted trial and marks the run cancelled.
  void cancel_run();

  /// The proposals round 1 would make, without touching the database or the scheduler (--dry-run).
  std::vector<Trial> preview_first_round() const;
  /// The script of a trial.
  std::string script_for(const Trial& trial) const;

 private:
  void say(const std::string& line) const;
  void refresh(Trial& trial);
  void submit(Trial& trial, bool first_of_run);
  /// Marks an exploration trial stopped early (with its first steps' score) when those steps give
  /// less than early_stop_fraction x the incumbent; false otherwise (the trial is untouched).
  bool stop_early(Trial& trial, const std::string& log) const;
  void finish_trial(Trial& trial, const sched::JobStatus& status, const std::string& log);
  bool end_round();
  void finalize();
  void interrupt_running();

  TuneDb& db_;
  sched::Scheduler& scheduler_;
  TuneSettings settings_;
  std::ostream* progress_;
  std::shared_ptr<const Problem> problem_;
  std::map<int64_t, double> running_since_;  ///< trial id -> when this process saw it running
};

/// The JSON `tune status --json` prints: settings, trials (layout, state, predicted and measured
/// tokens/s per GPU, ...), rounds and the best trial.
std::string status_json(const TuneDb& db);
/// The table `tune status` prints.
std::string status_table(const TuneDb& db);

}  // namespace ladle::tune
