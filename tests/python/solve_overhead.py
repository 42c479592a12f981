#!/usr/bin/env python3
"""The cost of a Python solve call against the same call in C++:
one SapSolver solving the 4-contact box of tests/python/cpp_reference.cc
(box_on_four_contacts, the exact problem) over and over, median over
batches of the time per call. Not a test (no timing assertions); run by
hand, from the repository root:

    PYTHONPATH=build/python /usr/bin/python3 tests/python/solve_overhead.py \\
        --reference build/bin/python_cpp_reference
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import sapcontact

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from conftest import problem_from_reference  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", required=True,
                        help="the python_cpp_reference program")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=31)
    args = parser.parse_args()
    cases = json.loads(subprocess.run([args.reference, "cases"], check=True,
                                      capture_output=True, text=True).stdout)
    case = next(c for c in cases["cases"]
                if c["name"] == "box_on_four_contacts")
    problem = problem_from_reference(case["problem"])
    solver = sapcontact.SapSolver()
    r = solver.solve(problem)
    assert r.converged and r.statistics.newton_iterations >= 1
    per_call = []
    for _ in range(args.batches):
        start = time.perf_counter()
        for _ in range(args.calls):
            solver.solve(problem)
        per_call.append((time.perf_counter() - start) / args.calls)
    python = statistics.median(per_call)
    cpp = float(subprocess.run(
        [args.reference, "overhead", str(args.calls), str(args.batches)],
        check=True, capture_output=True, text=True).stdout)
    print(f"box on 4 contacts (6 DOFs, {r.statistics.newton_iterations} "
          f"Newton iteration(s)), median of {args.batches} batches of "
          f"{args.calls} calls:")
    print(f"  C++    SapSolver::Solve         {cpp * 1e6:8.2f} us per call")
    print(f"  Python SapSolver().solve(p)     {python * 1e6:8.2f} us per call")
    print(f"  overhead {1e6 * (python - cpp):.2f} us per call, ratio "
          f"{python / cpp:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
