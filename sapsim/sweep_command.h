// `sapsim sweep`, `sapsim study` and `sapsim sweep-merge`: parameter-regime
// studies (docs/studies.md). A sweep runs the Cartesian product of
// varied scene values (studies/sweep_spec.h) in parallel
// (studies/sweep_runner.h) and writes DIR/sweep.csv (studies/sweep_table.h),
// DIR/sweep.json (the study record, studies/sweep_study.h) and DIR/*.png
// (studies/sweep_plot.h); while it runs, DIR/sweep.journal
// (studies/sweep_journal.h: what --resume continues from) and
// DIR/sweep.partial.csv (the finished runs so far). --slurm-script writes a
// Slurm job-array script instead of running (studies/slurm_script.h). Exit
// status: 0 every run ok; 1 some run failed (error
// or failed solver steps), plotting failed, or merged shards are incomplete; 2
// bad input.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sapcontact {
struct SweepStudy;
}

namespace sapcontact::cli {

class SweepCommands {
 public:
  /// Adds the three subcommands to `app`.
  explicit SweepCommands(CLI::App& app);

  /// Whether one of them was selected on the command line.
  bool selected() const;
  /// Runs the selected one; returns the exit status.
  int Run() const;

 private:
  int RunSweepOrStudy(bool study) const;
  int RunMerge() const;
  int WriteSlurmScript(const char* cmd, bool from_file, const SweepStudy& study,
                       int points) const;

  CLI::App* sweep_{nullptr};
  CLI::App* study_{nullptr};
  CLI::App* merge_{nullptr};
  std::string scene_, study_file_, out_, shard_{"0/1"}, slurm_script_;
  std::vector<std::string> vary_, set_, metrics_, merge_dirs_;
  int jobs_{0}, slurm_tasks_{0};
  double window_fraction_{0.1};
  bool no_plots_{false}, quiet_{false}, resume_{false};
};

}  // namespace sapcontact::cli
