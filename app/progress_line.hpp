// The progress line on stderr: the phase (with "level k of N" in a multi-level merge),
// the phase's percent and, where the engine knows the whole job (a sort's or merge's
// plan: engine/whole_progress.hpp), the job's percent of the bytes it reads and writes,
// its rate and an overall ETA; else the phase's rate and ETA.
// On a terminal it is redrawn in place, at most 4 times a second. --progress draws it
// where stderr is not a terminal too (a log, a batch job's output, a test), as whole
// lines: at every new phase or level, at each phase's end and at most once a second.
#pragma once
#include <chrono>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unistd.h>

#include "gxsort/progress.hpp"

namespace gxsort::cli {

class ProgressLine {
 public:
  // quiet: -q; forced: --progress.
  ProgressLine(bool quiet, bool forced)
      : mode_(quiet ? Mode::off : ::isatty(2) ? Mode::terminal : forced ? Mode::lines : Mode::off) {}
  ~ProgressLine() { finish(); }

  void update(const Progress& p) {
    if (mode_ == Mode::off) return;
    std::lock_guard<std::mutex> l(m_);  // merge threads report at once
    const auto now = Clock::now();
    std::string label = p.phase;
    if (p.levels > 0) label += " level " + std::to_string(p.level) + " of " + std::to_string(p.levels);
    const bool changed = label != label_, ended = p.total && p.done >= p.total;
    if (changed) { label_ = label; phase_start_ = now; }
    const auto every = mode_ == Mode::lines ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(250);
    if (!changed && !ended && now - last_ < every) return;
    last_ = now;
    draw(label + phase_text(p, secs(phase_start_, now)) + job_text(p, secs(start_, now)));
  }
  void finish() {
    std::lock_guard<std::mutex> l(m_);
    if (drawn_ && mode_ == Mode::terminal) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  enum class Mode { off, terminal, lines };

  static double secs(Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double>(to - from).count(); }
  static std::string fmt(const char* f, double a, double b = 0, double c = 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
  }
  // This phase: its percent (a stream's length is not known yet: its MB so far); its
  // rate and ETA only when no job figures follow.
  static std::string phase_text(const Progress& p, double s) {
    const double rate = s > 0 ? double(p.done) / s : 0;
    if (p.total == 0) return fmt(" %.1f MB  %.1f MB/s", double(p.done) / 1e6, rate / 1e6);
    const double pct = 100.0 * double(std::min(p.done, p.total)) / double(p.total);
    if (p.job_total) return fmt(" %5.1f%%", pct);
    return fmt(" %5.1f%%  %8.1f MB/s  ETA %5.0fs", pct, rate / 1e6, rate > 0 ? double(p.total - std::min(p.done, p.total)) / rate : 0);
  }
  // The whole job: bytes read and written so far of the plan's total, its rate since
  // the command started, and the time left at that rate.
  static std::string job_text(const Progress& p, double s) {
    if (p.job_total == 0) return "";
    const double rate = s > 0 ? double(p.job_done) / s : 0, left = double(p.job_total - std::min(p.job_done, p.job_total));
    return fmt(" | job %5.1f%% of %.1f MB read+written", 100.0 * double(p.job_done) / double(p.job_total),
               double(p.job_total) / 1e6) +
           fmt("  %8.1f MB/s  ETA %5.0fs", rate / 1e6, rate > 0 ? left / rate : 0);
  }
  void draw(const std::string& text) {
    if (mode_ == Mode::terminal) std::fprintf(stderr, "\r\033[K%s", text.c_str());
    else std::fprintf(stderr, "gxsort: progress: %s\n", text.c_str());
    drawn_ = true;
  }

  const Mode mode_;
  bool drawn_ = false;
  std::string label_;
  Clock::time_point start_ = Clock::now(), phase_start_ = start_, last_{};
  std::mutex m_;
};

}  // namespace gxsort::cli
