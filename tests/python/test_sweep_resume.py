"""Sweeps that survive a kill (docs/studies.md, "Resuming"): `sapsim sweep`
killed with SIGKILL at a random point and resumed with --resume ends with
the table of an uninterrupted run (bitwise, timing columns aside), and so
does sapcontact.sweep(journal=..., resume=True)."""

import csv
import json
import os
import random
import signal
import subprocess
import time

import numpy as np
import pytest

import sapcontact

TIMINGS = {"wall_time_s", "solver_time_s", "collision_time_s", "us_per_step"}
# 12 runs of box_rest (2000 to 500 steps each).
VARY = ["time_step=1e-3,2e-3,4e-3",
        "materials.default.stiffness=1e5,1e6,1e7,.inf"]
FIXED = ["duration=2"]


def untimed(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, c in enumerate(rows[0]) if c not in TIMINGS]
    return [[row[i] for i in keep] for row in rows]


def journal_records(path):
    try:
        with open(path, "rb") as f:
            return max(f.read().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def sweep_command(sapsim, scenes_dir, out, *extra):
    command = [str(sapsim), "sweep", str(scenes_dir / "box_rest.yaml")]
    for v in VARY:
        command += ["--vary", v]
    for s in FIXED:
        command += ["--set", s]
    return command + ["--out", str(out), "--jobs", "2", "--no-plots", *extra]


def children_of(pid):
    """Processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def test_sigkill_at_a_random_point_then_resume_equals_an_uninterrupted_run(
        sapsim, scenes_dir, tmp_path):
    whole = tmp_path / "whole"
    done = subprocess.run(sweep_command(sapsim, scenes_dir, whole),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    expected = untimed(whole / "sweep.csv")
    assert len(expected) == 13

    seed = int(os.environ.get("SAPCONTACT_TEST_SEED", time.time_ns() % 10**6))
    kill_after = random.Random(seed).randint(1, 10)
    print(f"seed {seed}: SIGKILL after {kill_after} of 12 runs")
    out = tmp_path / "killed"
    process = subprocess.Popen(sweep_command(sapsim, scenes_dir, out),
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    journal = out / "sweep.journal"
    deadline = time.monotonic() + 600
    while journal_records(journal) < kill_after:
        assert process.poll() is None, "the sweep ended before the kill"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    workers = children_of(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    killed_at = journal_records(journal)
    assert 1 <= killed_at < 12, killed_at
    # The workers die with the sweep (no orphan keeps running).
    deadline = time.monotonic() + 30
    while any(os.path.exists(f"/proc/{w}") and
              open(f"/proc/{w}/stat").read().rsplit(")", 1)[1].split()[0]
              not in "ZX" for w in workers):
        assert time.monotonic() < deadline, "orphaned workers"
        time.sleep(0.05)
    # The partial table holds the journaled runs.
    with open(out / "sweep.partial.csv", newline="") as f:
        partial = list(csv.reader(f))
    # (a row joins it just after its record: one may be missing)
    assert len(partial) - 1 >= killed_at - 1
    assert not (out / "sweep.csv").exists()

    resumed = subprocess.run(
        sweep_command(sapsim, scenes_dir, out, "--resume"),
        capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{killed_at} from the journal, {12 - killed_at} run" in \
        resumed.stdout, resumed.stdout
    assert untimed(out / "sweep.csv") == expected
    assert not (out / "sweep.partial.csv").exists()
    assert journal_records(journal) == 12

    # A resume of another sweep in the same directory is refused (exit 2).
    other = subprocess.run(
        sweep_command(sapsim, scenes_dir, out, "--resume", "--set",
                      "materials.default.friction=0.3"),
        capture_output=True, text=True, timeout=600)
    assert other.returncode == 2
    assert "another sweep: the fixed overrides (--set)" in other.stderr


def test_python_sweep_resumes_from_its_journal(scenes_dir, tmp_path):
    scene = scenes_dir / "box_rest.yaml"
    journal = tmp_path / "sweep.journal"
    whole = sapcontact.sweep(scene, VARY, FIXED, jobs=2, journal=journal)
    text = journal.read_bytes()
    lines = text.split(b"\n")
    # Killed after 5 records, in the middle of the 6th.
    journal.write_bytes(b"\n".join(lines[:6]) + b"\n" + lines[6][:25])
    resumed = sapcontact.sweep(scene, VARY, FIXED, jobs=2, journal=journal,
                               resume=True)
    assert resumed.columns == whole.columns
    for column in whole.columns:
        if column not in TIMINGS:
            np.testing.assert_array_equal(resumed[column], whole[column],
                                          err_msg=column)
    # The five recovered rows are the journaled ones, timings included.
    recovered = [json.loads(line.split(b" ", 1)[1]) for line in lines[1:6]]
    for row in recovered:
        assert resumed["wall_time_s"][row["index"]] == float(
            dict(row["summary"])["wall_time_s"])
    with pytest.raises(ValueError, match="another sweep"):
        sapcontact.sweep(scene, VARY, ["duration=0.3"], journal=journal,
                         resume=True)
    with pytest.raises(ValueError, match="resume: True needs journal"):
        sapcontact.sweep(scene, VARY, FIXED, resume=True)
