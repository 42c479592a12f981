// The Slurm job-array script of a sweep (`sapsim sweep --slurm-script FILE`;
// docs/studies.md, "Running on a cluster"): one array task per shard, each
// on one core (`--jobs 1`, OMP/BLAS threads 1) and resumable (`--resume`,
// so a requeued or pre-empted task keeps its finished runs), and the merge
// (`sapsim sweep-merge`) as a job that starts when every task succeeded
// (afterok). The file is a bash script that is also the array's batch
// script: `bash FILE [sbatch options]` submits both jobs and prints their
// ids; run by Slurm as an array task, it runs its shard.
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

struct SlurmArraySpec {
  /// Job name: sapsim-<name> (characters other than [A-Za-z0-9_.-]
  /// become '_').
  std::string name;
  /// Absolute path of the sapsim program the tasks run.
  std::string sapsim;
  /// The sweep's arguments before the per-task ones: e.g. {"sweep",
  /// "/abs/scene.yaml", "--vary", "time_step=1e-3,1e-2"} or {"study",
  /// "/abs/study.yaml"}. Each is shell-quoted.
  std::vector<std::string> sweep_args;
  /// Absolute output directory: task I writes OUT/shard-I, the merge OUT,
  /// Slurm's logs go to OUT/slurm/.
  std::string out;
  /// Array tasks (shards), >= 1.
  int tasks{1};
  /// Points of the whole sweep (for the comment).
  int points{0};
};

/// The script's text. @throws std::invalid_argument when tasks < 1 or a
/// path is not absolute.
std::string SlurmArrayScript(const SlurmArraySpec& spec);

}  // namespace sapcontact
