// The progress report of `sapsim sweep` and `sapsim study` on stderr: runs
// done of the shard's total, the rate of this invocation's runs and the
// estimated time left. On a terminal, one bar redrawn in place (the style
// of `sapsim run`); otherwise (a batch job's log) one line at most every
// `line_interval_s` seconds and one at the end, so that logs stay short.
#pragma once

#include <chrono>

namespace sapcontact::cli {

class SweepProgress {
 public:
  /// `terminal`: stderr is a terminal.
  explicit SweepProgress(bool terminal, double line_interval_s = 10.0);

  /// `done` of `total` runs finished, `recovered` of them read from a
  /// journal (not run by this invocation: not part of the rate). The
  /// clock starts at construction.
  void Update(int done, int total, int recovered);
  /// Ends the bar's line (terminal) or prints the last line.
  void Finish();

 private:
  void Print();

  bool terminal_;
  double line_interval_s_;
  std::chrono::steady_clock::time_point start_;
  double last_line_s_{-1e300};
  int done_{0}, total_{0}, recovered_{0};
  bool reported_{false};
  bool printed_{false};
};

}  // namespace sapcontact::cli
