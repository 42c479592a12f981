#include "sapcontact/studies/slurm_script.h"

#include <stdexcept>

#include "sapcontact/studies/shell_quote.h"

namespace sapcontact {
namespace {

std::string JobName(const std::string& name) {
  std::string out = "sapsim-";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    out += ok ? c : '_';
  }
  return out;
}

}  // namespace

std::string SlurmArrayScript(const SlurmArraySpec& spec) {
  if (spec.tasks < 1) {
    throw std::invalid_argument("slurm script: tasks must be >= 1");
  }
  for (const std::string* path : {&spec.sapsim, &spec.out}) {
    if (path->empty() || (*path)[0] != '/') {
      throw std::invalid_argument("slurm script: '" + *path +
                                  "' is not an absolute path");
    }
  }
  if (spec.out.find('\n') != std::string::npos) {
    throw std::invalid_argument(
        "slurm script: the output directory has a "
        "line break");
  }
  const std::string job = JobName(spec.name);
  const std::string tasks = std::to_string(spec.tasks);
  std::string args;
  for (const std::string& a : spec.sweep_args) args += " " + ShellQuote(a);
  std::string s;
  s += "#!/bin/bash\n";
  s += "# Slurm job array of the sweep '" + job.substr(7) +
       "': " + std::to_string(spec.points) + " points in " + tasks +
       " shards, one array\n";
  s += "# task per shard on one core, then `sapsim sweep-merge` into the "
       "output\n";
  s += "# directory once every task has succeeded (afterok). Written by "
       "`sapsim\n";
  s += "# sweep --slurm-script`; docs/studies.md, \"Running on a "
       "cluster\".\n";
  s += "#\n";
  s += "# Submit (from a machine that runs sbatch):\n";
  s += "#   bash THIS_FILE [sbatch options, e.g. --partition=P "
       "--time=2:00:00]\n";
  s += "# The options go to the tasks and to the merge. Results: "
       "OUT/sweep.csv and\n";
  s += "# plots; each shard in OUT/shard-I; Slurm's logs in OUT/slurm/. A "
       "task that\n";
  s += "# is requeued or pre-empted resumes its shard from its journal "
       "(--resume).\n";
  s += "#SBATCH --job-name=" + job + "\n";
  s += "#SBATCH --array=0-" + std::to_string(spec.tasks - 1) + "\n";
  s += "#SBATCH --ntasks=1\n";
  s += "#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --requeue\n";
  s += "set -euo pipefail\n";
  s += "export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1\n";
  s += "sapsim=" + ShellQuote(spec.sapsim) + "\n";
  s += "out=" + ShellQuote(spec.out) + "\n";
  s += "tasks=" + tasks + "\n";
  s += "if [[ -n \"${SLURM_ARRAY_TASK_ID:-}\" ]]; then\n";
  s += "  # An array task: its shard, one run at a time.\n";
  s += "  i=$SLURM_ARRAY_TASK_ID\n";
  s += "  exec \"$sapsim\"" + args +
       " --out \"$out/shard-$i\" \\\n"
       "    --shard \"$i/$tasks\" --jobs 1 --resume --no-plots\n";
  s += "fi\n";
  s += "# Submission: the array, then the merge, which waits for it.\n";
  s += "quote() { printf \"'%s'\" \"${1//\\'/\\'\\\\\\'\\'}\"; }\n";
  s += "merge=\"exec $(quote \"$sapsim\") sweep-merge\"\n";
  s += "for ((i = 0; i < tasks; ++i)); do merge+=\" $(quote "
       "\"$out/shard-$i\")\"; done\n";
  s += "merge+=\" --out $(quote \"$out\")\"\n";
  s += "mkdir -p \"$out/slurm\"\n";
  s += "# Slurm expands '%' in --output: a literal one is '%%'.\n";
  s += "logs=${out//%/%%}/slurm\n";
  s += "array=$(sbatch --parsable --output=\"$logs/task-%a.out\" \"$@\" "
       "\"$0\")\n";
  s += "array=${array%%;*}\n";
  s += "merge_job=$(sbatch --parsable \"$@\" --job-name=" + job +
       "-merge \\\n"
       "  --dependency=\"afterok:$array\" --ntasks=1 --cpus-per-task=1 \\\n"
       "  --output=\"$logs/merge.out\" --wrap=\"$merge\")\n";
  s += "echo \"submitted: job array $array ($tasks tasks), merge job "
       "${merge_job%%;*} (after the array succeeds); results: "
       "$out/sweep.csv\"\n";
  return s;
}

}  // namespace sapcontact
