// The progress line on stderr: drawn only when stderr is a terminal, at most a few
// times a second: phase, percent, MB/s, ETA.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace gxsort::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && ::isatty(2)) {}
  ~ProgressLine() { finish(); }

  void update(const char* phase, uint64_t done, uint64_t total) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (phase != phase_) { phase_ = phase; phase_start_ = now; }
    if (now - last_ < std::chrono::milliseconds(250) && (done < total || total == 0)) return;
    last_ = now;
    double secs = std::chrono::duration<double>(now - phase_start_).count();
    double rate = secs > 0 ? double(done) / secs : 0;
    if (total == 0) {  // a stream: its length is not known yet
      std::fprintf(stderr, "\r\033[K%s %10.1f MB  %8.1f MB/s", phase, double(done) / 1e6, rate / 1e6);
      drawn_ = true;
      return;
    }
    double pct = total ? 100.0 * double(done) / double(total) : 100.0;
    double eta = rate > 0 ? double(total - done) / rate : 0;
    std::fprintf(stderr, "\r\033[K%s %5.1f%%  %8.1f MB/s  ETA %5.0fs", phase, pct, rate / 1e6, eta);
    drawn_ = true;
  }
  void finish() {
    if (drawn_) { std::fprintf(stderr, "\r\033[K"); drawn_ = false; }
  }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string phase_;
  std::chrono::steady_clock::time_point phase_start_{}, last_{};
};

}  // namespace gxsort::cli
