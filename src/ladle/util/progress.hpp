#pragma once
// progress.hpp: progress of long work (numerics adam, pack, plan sweeps, site, tune), written one
// way by every command: a bar with rate and time left on a terminal, plain lines when the stream
// is not a terminal, nothing with --json or --quiet.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace ladle::util {

/// How a Progress reports.
enum class ProgressStyle {
  bar,    ///< one line redrawn in place: label, bar, done/total, rate, time left
  lines,  ///< a plain line at every tenth of the work and at the end (logs, CI)
  quiet,  ///< nothing (--json, --quiet)
};

/// bar when `terminal`, else lines; quiet whenever `quiet` (the command prints JSON or was told
/// to be quiet).
ProgressStyle progress_style(bool terminal, bool quiet);

/// Whether standard error is a terminal.
bool stderr_is_terminal();

/// One line of the bar style for `done` of `total` units after `elapsed_s` seconds, e.g.
/// "pack [#########           ] 450/1,000 rows  90.0 rows/s  6s left"; `width` is the bar's.
std::string render_progress_bar(const std::string& label, const std::string& unit, int64_t done,
                                int64_t total, double elapsed_s, int width = 24);

/// One line of the lines style, e.g. "pack: 450/1,000 rows (45%)".
std::string render_progress_line(const std::string& label, const std::string& unit, int64_t done,
                                 int64_t total);

/// Reports the progress of `total` units of work to `out`. Not thread-safe: call update from one
/// thread (the one that owns the loop).
class Progress {
 public:
  /// `now_s` gives seconds on a steady clock (a test passes its own).
  Progress(std::ostream& out, std::string label, std::string unit, int64_t total, ProgressStyle style,
           std::function<double()> now_s = {});
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();

  /// `done` units are finished (monotone, at most total). The bar redraws at most every 0.1 s.
  void update(int64_t done);
  /// Ends the report: the bar's final line and newline, or the last plain line. Idempotent.
  void finish();

 private:
  std::ostream& out_;
  std::string label_;
  std::string unit_;
  int64_t total_;
  ProgressStyle style_;
  std::function<double()> now_s_;
  double start_s_ = 0;
  double last_draw_s_ = -1;
  int64_t done_ = 0;
  int last_tenth_ = 0;
  bool finished_ = false;
};

}  // namespace ladle::util
