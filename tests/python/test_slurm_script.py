"""The Slurm job-array script of `sapsim sweep --slurm-script` driven by a
stand-in `sbatch` that runs each job at once (so this runs everywhere; the
real Slurm daemons run in tests/slurm/slurm_localhost_test.sh): the tasks
run their shards with one job each and resumable, sbatch options reach
both jobs, the merge waits for the array (afterok) and its table equals the
unsharded run's (timing columns aside)."""

import csv
import os
import re
import subprocess

TIMINGS = {"wall_time_s", "solver_time_s", "collision_time_s", "us_per_step"}

# Runs an array job's tasks one after the other (SLURM_ARRAY_TASK_ID set,
# the --array range read from the script's #SBATCH line), or a --wrap job
# with sh; writes the job's output to --output (%a: the task); logs its
# arguments; prints a job id as --parsable does.
FAKE_SBATCH = r"""#!/bin/bash
set -eu
echo "$*" >>"$FAKE_SBATCH_LOG"
id=$(( $(wc -l <"$FAKE_SBATCH_LOG") + 100 ))
wrap="" script="" output=""
for a in "$@"; do
  case $a in
    --wrap=*) wrap=${a#--wrap=} ;;
    --output=*) output=${a#--output=} ;;
    -*) ;;
    *) script=$a ;;
  esac
done
if [[ -n $wrap ]]; then
  sh -c "$wrap" >"$output" 2>&1
else
  range=$(sed -n 's/^#SBATCH --array=//p' "$script")
  for ((i = ${range%-*}; i <= ${range#*-}; ++i)); do
    SLURM_ARRAY_TASK_ID=$i bash "$script" >"${output//%a/$i}" 2>&1
  done
fi
echo "$id"
"""


def untimed(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, c in enumerate(rows[0]) if c not in TIMINGS]
    return [[row[i] for i in keep] for row in rows]


def test_job_array_script_runs_shards_then_merges(sapsim, scenes_dir,
                                                   tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(FAKE_SBATCH)
    (bin_dir / "sbatch").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
               FAKE_SBATCH_LOG=str(tmp_path / "sbatch.log"))
    args = [str(sapsim), "sweep", str(scenes_dir / "box_slide.yaml"),
            "--vary", "materials.default.friction=0.1,0.3,0.5",
            "--vary", "time_step=1e-3,2e-3,3e-3,4e-3",
            "--set", "duration=0.5"]
    whole = subprocess.run(args + ["--out", str(tmp_path / "whole"),
                                   "--no-plots", "-q"],
                           capture_output=True, text=True, timeout=600)
    assert whole.returncode == 0, whole.stderr

    out = tmp_path / "out dir"  # a space: the paths are quoted
    script = tmp_path / "friction.sbatch"
    wrote = subprocess.run(
        args + ["--out", str(out), "--slurm-script", str(script),
                "--slurm-tasks", "4"],
        capture_output=True, text=True, timeout=60)
    assert wrote.returncode == 0, wrote.stderr
    assert "a Slurm job array of 4 tasks over 12 points" in wrote.stdout
    text = script.read_text()
    assert "#SBATCH --array=0-3\n" in text
    assert "#SBATCH --cpus-per-task=1\n" in text
    assert "--jobs 1 --resume --no-plots" in text
    assert os.access(script, os.X_OK)
    assert not out.exists()  # nothing runs before submission

    submitted = subprocess.run(["bash", str(script), "--partition=test"],
                               capture_output=True, text=True, env=env,
                               timeout=600, cwd=tmp_path)
    assert submitted.returncode == 0, submitted.stderr
    assert re.search(r"submitted: job array 101 \(4 tasks\), merge job 102",
                     submitted.stdout), submitted.stdout
    calls = (tmp_path / "sbatch.log").read_text().splitlines()
    assert len(calls) == 2
    assert calls[0].startswith(f"--parsable --output={out}/slurm/task-%a.out "
                               "--partition=test ")
    assert "--partition=test" in calls[1]
    assert "--dependency=afterok:101" in calls[1]
    for i in range(4):
        assert (out / f"shard-{i}" / "sweep.csv").is_file()
        assert (out / "slurm" / f"task-{i}.out").is_file()
    assert "merged 4 directories: 12 of 12 runs" in \
        (out / "slurm" / "merge.out").read_text()
    assert untimed(out / "sweep.csv") == untimed(tmp_path / "whole" /
                                                 "sweep.csv")

    # A requeued task resumes: its journal holds every run, none reruns.
    again = subprocess.run(["bash", str(script)], capture_output=True,
                           text=True, timeout=600,
                           env=dict(env, SLURM_ARRAY_TASK_ID="2"))
    assert again.returncode == 0, again.stderr
    assert "3 from the journal, 0 run in" in again.stdout, again.stdout


def test_slurm_script_options_are_checked(sapsim, scenes_dir, tmp_path):
    scene = str(scenes_dir / "box_rest.yaml")
    run = subprocess.run(
        [str(sapsim), "sweep", scene, "--vary", "time_step=1e-3,2e-3",
         "--out", str(tmp_path / "o"), "--slurm-script",
         str(tmp_path / "s.sbatch"), "--shard", "0/2"],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--shard: not with --slurm-script" in run.stderr
    run = subprocess.run(
        [str(sapsim), "sweep", scene, "--vary", "time_step=1e-3,2e-3",
         "--out", str(tmp_path / "o"), "--slurm-tasks", "2"],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--slurm-tasks: needs --slurm-script" in run.stderr
    # By default one task per point, at most 100.
    run = subprocess.run(
        [str(sapsim), "sweep", scene, "--vary", "time_step=1e-3,2e-3",
         "--out", str(tmp_path / "o"), "--slurm-script",
         str(tmp_path / "s.sbatch")],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "#SBATCH --array=0-1\n" in (tmp_path / "s.sbatch").read_text()
