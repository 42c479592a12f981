#!/usr/bin/env python3
"""The study of docs/studies/near_rigid_penetration.png from Python: the box
of config/scenes/box_rest.yaml (10 kg, 4 corner contacts) on rigid ground
(k = inf, tau_d = 0), resting penetration versus time step dt for three
near-rigid thresholds beta, against the estimate (SAP paper §V-B,
docs/theory.md §9)

    -phi = (m g / n) dt (dt + tau_d) R_n,   R_n = beta^2 w / (4 pi^2),

with w the corner contacts' Delassus estimate of each run (the sweep's
contact_delassus_estimate_per_kg: the contact points move with the
penetration, so w of the deepest run differs by 0.4% from the undeformed
box's). The undeformed box's w is also computed here independently, from
a SapSolver solve of the box built in numpy, and must agree with the runs'
at the smallest dt. The runs are those of
config/studies/near_rigid_penetration.yaml, made by sapcontact.sweep; the
picture is drawn with matplotlib.

    PYTHONPATH=build/python /usr/bin/python3 \\
        examples/python/near_rigid_penetration.py --out near_rigid.png

Exits 1 when a measured penetration is off the estimate by more than 1e-5
relative (the sweep measures 9e-7 at most).
"""

import argparse
import math
import pathlib
import sys

import numpy as np

import sapcontact

ROOT = pathlib.Path(__file__).resolve().parents[2]
m, g, n, side = 10.0, 9.81, 4, 0.2  # box_rest's box: kg, m/s^2, contacts, m
BETAS = [0.1, 0.3, 1.0]


def corner_delassus_estimate() -> float:
    """w = ||W_kk||_F / 3 of a corner contact of the box, as the solver
    computes it (SapResults.w) [1/kg]."""
    inertia = m * side**2 / 6
    p = sapcontact.SapProblem(time_step=1e-3)
    p.add_tree(A=np.diag([m, m, m, inertia, inertia, inertia]),
               v_star=np.zeros(6))
    c = np.array([side / 2, side / 2, -side / 2])
    skew = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    frame = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]])
    p.add_contact(tree=0, J=frame @ np.hstack([np.eye(3), -skew]))
    return float(sapcontact.SapSolver().solve(p).w[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="near_rigid_penetration.png",
                        help="PNG to write")
    parser.add_argument("--scene", default=str(ROOT / "config" / "scenes" /
                                               "box_rest.yaml"))
    args = parser.parse_args()

    table = sapcontact.sweep(
        args.scene,
        vary={"solver.near_rigid_threshold": BETAS,
              "time_step": "1e-4:1e-1:13:log"},
        # The near-rigid floor of the SAP paper's contact model.
        fixed={"solver.contact_model": "sap",
               "materials.default.stiffness": math.inf,
               "materials.default.dissipation_time_scale": 0.0,
               "duration": 1.0},
        metrics=["resting_penetration_m"])
    if not np.all(table["status"] == "ok"):
        print("FAILED: runs did not finish:", table["error"], file=sys.stderr)
        return 1
    w = corner_delassus_estimate()
    smallest = table["time_step"] == table["time_step"].min()
    w_runs = table["contact_delassus_estimate_per_kg"][smallest]
    print(f"corner Delassus estimate w = {w:.7f} 1/kg from numpy, "
          f"{w_runs.min():.7f} to {w_runs.max():.7f} in the runs at "
          f"dt = 1e-4 (point mass 1/(sqrt(3) m) = "
          f"{1 / (math.sqrt(3) * m):.7f})")
    failures = []
    if np.abs(w_runs / w - 1).max() > 1e-5:
        failures.append("the runs' w differs from the box's")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.8, 6.8))
    worst = 0.0
    for beta, color in zip(BETAS, ["tab:blue", "tab:red", "tab:green"]):
        rows = table["solver.near_rigid_threshold"] == beta
        dt = table["time_step"][rows]
        measured = table["resting_penetration_m"][rows]
        w_run = table["contact_delassus_estimate_per_kg"][rows]
        estimate = (m * g / n) * dt * dt * beta**2 * w_run / (4 * math.pi**2)
        deviation = np.abs(measured / estimate - 1).max()
        worst = max(worst, deviation)
        print(f"beta = {beta}: {len(dt)} runs, largest relative deviation "
              f"from the estimate {deviation:.2e}")
        ax.loglog(dt, measured, "o", color=color,
                  label=f"measured, beta = {beta:g}")
        ax.loglog(dt, estimate, "-", color=color,
                  label=f"estimate (m g/n) dt (dt + tau_d) beta^2 w / "
                        f"(4 pi^2), beta = {beta:g}")
    ax.set_title("Near-rigid resting penetration: box (10 kg, 4 contacts) "
                 "on rigid ground, tau_d = 0", fontsize=10)
    ax.set_xlabel("time step dt [s]")
    ax.set_ylabel("resting penetration (mean over the last 10% of 1 s) [m]")
    ax.grid(True, which="major", linestyle=":", alpha=0.5)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")
    if worst > 1e-5:
        failures.append(f"deviation {worst:.2e} > 1e-5")
    for f in failures:
        print("FAILED:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
