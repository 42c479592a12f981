#!/usr/bin/env python3
"""Checks the numbers the documentation quotes about shipped scenes.

The numbers are read from the documents themselves, so that a test fails
both when a run drifts away from what a document says and when a document is
edited without re-measuring:

* Tables introduced by the line ``<!-- doc-numbers -->`` in the Markdown
  files named on the command line. Their header is

      | scene | `--set` | quantity | value | tolerance |

  scene: a file config/scenes/NAME.yaml (backquotes allowed); `--set`:
  overrides, each in backquotes, or "-"; quantity: see QUANTITIES below;
  value: a number (a trailing unit word is ignored); tolerance: an absolute
  number in the value's unit or "N %" of the value.

* Blocks introduced by ``<!-- doc-numbers: run ARGS -->`` followed by a
  ```text fence holding what `sapsim run ARGS --out DIR` prints: every
  number in the block must equal the fresh run's number at the same place
  (relative 1e-3, absolute 1e-12), except the wall, solver and collision
  times and the paths (words containing '/').

Each distinct (scene, overrides) is run once, with `sapsim run --out` into a
temporary directory. Exit status 0 when every number matches, 1 otherwise
(every mismatch printed, naming the document and line), 2 on a malformed
table or block.

Usage: doc_numbers_test.py --sapsim BUILD/bin/sapsim --source-dir SRC DOC.md...
"""

import argparse
import csv
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

MARKER_TABLE = "<!-- doc-numbers -->"
MARKER_RUN = re.compile(r"^<!-- doc-numbers: run (.*) -->$")
HEADER = ["scene", "--set", "quantity", "value", "tolerance"]


class DocError(Exception):
    pass


def body(summary, name):
    for b in summary["bodies"]:
        if b["name"] == name:
            return b
    raise DocError("no body named '%s' in summary.json" % name)


def rebound_z(summary, name):
    """The highest z of body NAME in trajectory.csv after its lowest."""
    zs = []
    with open(os.path.join(summary["_dir"], "trajectory.csv")) as f:
        for row in csv.DictReader(f):
            if row["body"] == name:
                zs.append(float(row["z"]))
    if not zs:
        raise DocError("no rows of body '%s' in trajectory.csv" % name)
    lowest = zs.index(min(zs))
    return max(zs[lowest:])


def norm(v):
    return math.sqrt(sum(x * x for x in v))


# quantity name -> function(summary, argument) -> float. "NAME:ARG" passes
# ARG (a body name).
QUANTITIES = {
    # summary.json fields
    "energy_max_increase_rel": lambda s, a: s["energy_max_increase_rel"],
    "max_hover_m": lambda s, a: s["max_hover_m"],
    "max_penetration_m": lambda s, a: s["max_penetration_m"],
    "mean_newton_iterations": lambda s, a: s["mean_newton_iterations"],
    "failed_steps": lambda s, a: s["failed_steps"],
    "kinetic_energy_final_J": lambda s, a: s["kinetic_energy_final_J"],
    "steps": lambda s, a: s["steps"],
    # how the steps were chosen (summary.json's integrator)
    "accepted_steps": lambda s, a: s["integrator"]["accepted_steps"],
    "rejected_steps": lambda s, a: s["integrator"]["rejected_steps"],
    "max_step_s": lambda s, a: s["integrator"]["max_step_s"],
    # the highest centre z of a body after its lowest (trajectory.csv)
    "rebound_z": lambda s, a: rebound_z(s, a),
    # the final state of a body
    "final_x": lambda s, a: body(s, a)["position"][0],
    "final_z": lambda s, a: body(s, a)["position"][2],
    "final_speed": lambda s, a: norm(body(s, a)["velocity"]),
}


def parse_number(text, where):
    m = re.match(r"^\s*([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)", text)
    if not m:
        raise DocError("%s: '%s' is not a number" % (where, text))
    return float(m.group(1))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_tables(path, lines):
    """[(where, scene, overrides, quantity, argument, value, tol, rel)]."""
    checks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != MARKER_TABLE:
            i += 1
            continue
        head = i + 1
        if head >= len(lines) or [c.strip("`") for c in cells(lines[head])] != HEADER:
            raise DocError("%s:%d: a doc-numbers table must start with the "
                           "header | %s |" % (path, head + 1, " | ".join(HEADER)))
        i = head + 2  # past the header and |---| row
        while i < len(lines) and lines[i].startswith("|"):
            where = "%s:%d" % (path, i + 1)
            row = cells(lines[i])
            if len(row) != 5:
                raise DocError("%s: expected 5 cells, found %d" % (where, len(row)))
            scene = row[0].strip("`")
            overrides = re.findall(r"`([^`]*)`", row[1])
            if not overrides and row[1] not in ("-", ""):
                raise DocError("%s: overrides must be in backquotes or '-'" % where)
            quantity, _, argument = row[2].strip("`").partition(":")
            if quantity not in QUANTITIES:
                raise DocError("%s: unknown quantity '%s' (known: %s)" %
                               (where, quantity, ", ".join(sorted(QUANTITIES))))
            value = parse_number(row[3], where)
            rel = row[4].endswith("%")
            tol = parse_number(row[4].rstrip("% "), where)
            checks.append((where, scene, tuple(overrides), quantity, argument,
                           value, tol, rel))
            i += 1
    return checks


def parse_run_blocks(path, lines):
    """[(where, args, quoted output text)]."""
    blocks = []
    for i, line in enumerate(lines):
        m = MARKER_RUN.match(line.strip())
        if not m:
            continue
        if i + 1 >= len(lines) or lines[i + 1].strip() != "```text":
            raise DocError("%s:%d: a doc-numbers run marker must be followed "
                           "by a ```text block" % (path, i + 1))
        end = i + 2
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        blocks.append(("%s:%d" % (path, i + 1), shlex.split(m.group(1)),
                       "\n".join(lines[i + 2:end])))
    return blocks


NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# Parts of sapsim's output that change from run to run or machine to machine.
VOLATILE = [
    re.compile(r"in [0-9.e+-]+ s wall time \(solver [0-9.e+-]+ s, collision [0-9.e+-]+ s\)"),
    re.compile(r"\S*/\S*"),
]


def numbers(text):
    for pattern in VOLATILE:
        text = pattern.sub("", text)
    return [float(x) for x in NUMBER.findall(text)]


def run_sapsim(sapsim, source_dir, args, out_dir):
    command = [sapsim, "run"] + list(args) + ["--out", out_dir]
    proc = subprocess.run(command, cwd=source_dir, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise DocError("%s exited with %d: %s" %
                       (" ".join(command), proc.returncode, proc.stderr.strip()))
    return proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sapsim", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("docs", nargs="+")
    a = parser.parse_args()

    checks, blocks = [], []
    try:
        for doc in a.docs:
            with open(os.path.join(a.source_dir, doc), encoding="utf-8") as f:
                lines = f.read().splitlines()
            checks += parse_tables(doc, lines)
            blocks += parse_run_blocks(doc, lines)
    except DocError as e:
        print("doc_numbers: error: %s" % e)
        return 2
    if not checks and not blocks:
        print("doc_numbers: error: no doc-numbers table or block in %s" %
              ", ".join(a.docs))
        return 2

    failures = 0
    with tempfile.TemporaryDirectory(prefix="doc_numbers_") as tmp:
        summaries = {}
        for (where, scene, overrides, quantity, argument, value, tol,
             rel) in checks:
            key = (scene, overrides)
            if key not in summaries:
                out = os.path.join(tmp, "run%d" % len(summaries))
                args = ["config/scenes/%s.yaml" % scene, "--quiet"]
                for o in overrides:
                    args += ["--set", o]
                try:
                    run_sapsim(a.sapsim, a.source_dir, args, out)
                except DocError as e:
                    print("FAIL %s: %s" % (where, e))
                    failures += 1
                    summaries[key] = None
                    continue
                with open(os.path.join(out, "summary.json")) as f:
                    summaries[key] = json.load(f)
                summaries[key]["_dir"] = out
            summary = summaries[key]
            if summary is None:
                failures += 1
                continue
            try:
                got = float(QUANTITIES[quantity](summary, argument))
            except DocError as e:
                print("FAIL %s: %s" % (where, e))
                failures += 1
                continue
            allowed = tol * abs(value) / 100 if rel else tol
            name = quantity + (":" + argument if argument else "")
            label = "%s %s %s" % (scene, " ".join(overrides), name)
            if abs(got - value) <= allowed:
                print("ok   %s: %s = %.6g (doc %.6g +- %.3g)" %
                      (where, label, got, value, allowed))
            else:
                print("FAIL %s: %s = %.6g, the doc says %.6g +- %.3g: "
                      "re-measure and update the doc" %
                      (where, label, got, value, allowed))
                failures += 1

        for where, args, quoted in blocks:
            out = os.path.join(tmp, "block%d" % blocks.index((where, args, quoted)))
            try:
                printed = run_sapsim(a.sapsim, a.source_dir, args, out)
            except DocError as e:
                print("FAIL %s: %s" % (where, e))
                failures += 1
                continue
            want, got = numbers(quoted), numbers(printed)
            if len(want) != len(got):
                print("FAIL %s: the quoted output has %d numbers, the run "
                      "printed %d:\n--- doc\n%s\n--- run\n%s" %
                      (where, len(want), len(got), quoted, printed))
                failures += 1
                continue
            bad = [(w, g) for w, g in zip(want, got)
                   if abs(w - g) > 1e-3 * abs(w) + 1e-12]
            if bad:
                print("FAIL %s: quoted numbers differ from the run's (doc, "
                      "run): %s\n--- run\n%s" % (where, bad, printed))
                failures += 1
            else:
                print("ok   %s: sapsim run %s: %d numbers as quoted" %
                      (where, " ".join(args), len(want)))
    print("doc_numbers: %d checks and %d quoted outputs, %d failed" %
          (len(checks), len(blocks), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
