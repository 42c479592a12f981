#include "sapsim/sweep_progress.h"

#include <cstdio>

namespace sapcontact::cli {

SweepProgress::SweepProgress(bool terminal, double line_interval_s)
    : terminal_(terminal),
      line_interval_s_(line_interval_s),
      start_(std::chrono::steady_clock::now()) {}

void SweepProgress::Update(int done, int total, int recovered) {
  reported_ = true;
  done_ = done;
  total_ = total;
  recovered_ = recovered;
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  if (terminal_ || t - last_line_s_ >= line_interval_s_) {
    last_line_s_ = t;
    Print();
  }
}

void SweepProgress::Finish() {
  if (!reported_) return;
  if (!terminal_) {
    Print();
  } else if (printed_) {
    std::fprintf(stderr, "\n");
  }
}

void SweepProgress::Print() {
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  const int ran = done_ - recovered_;
  const double rate = t > 0 && ran > 0 ? ran / t : 0.0;
  char left[48] = "";
  if (done_ >= total_) {
    std::snprintf(left, sizeof(left), "done in %.1f s", t);
  } else if (rate > 0) {
    std::snprintf(left, sizeof(left), "%.0f s left", (total_ - done_) / rate);
  } else {
    std::snprintf(left, sizeof(left), "time left unknown");
  }
  const int percent = total_ ? 100 * done_ / total_ : 100;
  if (terminal_) {
    const int width = 40, filled = total_ ? width * done_ / total_ : width;
    std::fprintf(stderr, "\r[%.*s%*s] %3d%%  %d/%d runs  %.2f runs/s  %s   ",
                 filled,
                 "========================================", width - filled, "",
                 percent, done_, total_, rate, left);
  } else {
    std::fprintf(stderr, "sapsim: %d/%d runs (%d%%), %.2f runs/s, %s\n", done_,
                 total_, percent, rate, left);
  }
  std::fflush(stderr);
  printed_ = true;
}

}  // namespace sapcontact::cli
