#include "ladle/util/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ostream>

#include "ladle/util/text.hpp"

namespace ladle::util {
namespace {

// The bar redraws at most this often: enough to look live, cheap on a slow terminal.
constexpr double kRedrawInterval_s = 0.1;

double steady_now_s() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

std::string duration_text(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

ProgressStyle progress_style(bool terminal, bool quiet) {
  if (quiet) return ProgressStyle::quiet;
  return terminal ? ProgressStyle::bar : ProgressStyle::lines;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

std::string render_progress_bar(const std::string& label, const std::string& unit, int64_t done,
                                int64_t total, double elapsed_s, int width) {
  const int64_t clamped = std::clamp<int64_t>(done, 0, std::max<int64_t>(total, 0));
  const int filled = total > 0 ? static_cast<int>(width * clamped / total) : width;
  std::string out = fmt::format("{} [{}{}] {}/{} {}", label, std::string(static_cast<size_t>(filled), '#'),
                                std::string(static_cast<size_t>(width - filled), ' '),
                                format_grouped(static_cast<long long>(clamped)),
                                format_grouped(static_cast<long long>(total)), unit);
  if (elapsed_s > 0 && clamped > 0) {
    const double rate = static_cast<double>(clamped) / elapsed_s;
    out += rate >= 10 ? fmt::format("  {:.0f} {}/s", rate, unit) : fmt::format("  {:.2f} {}/s", rate, unit);
    if (clamped < total) out += fmt::format("  {} left", duration_text(static_cast<double>(total - clamped) / rate));
  }
  return out;
}

std::string render_progress_line(const std::string& label, const std::string& unit, int64_t done,
                                 int64_t total) {
  const int64_t percent = total > 0 ? 100 * std::clamp<int64_t>(done, 0, total) / total : 100;
  return fmt::format("{}: {}/{} {} ({}%)", label, format_grouped(static_cast<long long>(done)),
                     format_grouped(static_cast<long long>(total)), unit, percent);
}

Progress::Progress(std::ostream& out, std::string label, std::string unit, int64_t total, ProgressStyle style,
                   std::function<double()> now_s)
    : out_(out),
      label_(std::move(label)),
      unit_(std::move(unit)),
      total_(std::max<int64_t>(total, 0)),
      style_(style),
      now_s_(now_s ? std::move(now_s) : std::function<double()>(steady_now_s)) {
  start_s_ = now_s_();
}

Progress::~Progress() {
  // An exception left the loop: end the bar's line so the error starts on its own.
  if (!finished_ && style_ == ProgressStyle::bar && last_draw_s_ >= 0) out_ << "\n" << std::flush;
}

void Progress::update(int64_t done) {
  if (finished_ || style_ == ProgressStyle::quiet) return;
  done_ = std::clamp<int64_t>(done, done_, total_);
  if (style_ == ProgressStyle::lines) {
    const int tenth = total_ > 0 ? static_cast<int>(10 * done_ / total_) : 10;
    if (tenth > last_tenth_ && tenth < 10) {
      last_tenth_ = tenth;
      out_ << render_progress_line(label_, unit_, done_, total_) << "\n" << std::flush;
    }
    return;
  }
  const double now = now_s_();
  if (last_draw_s_ >= 0 && now - last_draw_s_ < kRedrawInterval_s) return;
  last_draw_s_ = now;
  out_ << "\r" << render_progress_bar(label_, unit_, done_, total_, now - start_s_) << "\x1b[K" << std::flush;
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (style_ == ProgressStyle::quiet) return;
  if (style_ == ProgressStyle::lines) {
    out_ << render_progress_line(label_, unit_, done_, total_) << "\n" << std::flush;
    return;
  }
  out_ << "\r" << render_progress_bar(label_, unit_, done_, total_, now_s_() - start_s_) << "\x1b[K\n"
       << std::flush;
}

}  // namespace ladle::util
