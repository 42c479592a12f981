#!/usr/bin/env python3
"""Work against precision, the standard picture of time integration: fixed
steps over a range of dt and error-controlled steps over a range of
accuracies A (docs/theory.md §22, docs/scenes.md "Error-controlled steps")
on three shipped scenes, each run's error against its work: the contact
solves it took (one per fixed step, three per error-controlled attempt;
deterministic, unlike the wall time, which the table also gives):

  ball_bounce  the rebound apex against the contact law's ODE, integrated
               here by RK4 (m z'' = -m g + k (delta + tau_d delta')_+)
  box_slide    the stopping distance against v0^2 / (2 mu g)
  kr5_push     the pushed prism's final position against a fixed-step run
               at dt = 2e-5 s (a reference, not a closed form)

    PYTHONPATH=build/python /usr/bin/python3 \\
        examples/python/work_precision.py --out work_precision.png

Prints one row per run (scene, scheme, dt or A, error, solves, wall time,
steps, rejected steps) and draws the three panels with matplotlib. Exits 1
unless, on the ball, some error-controlled run reaches an error that the
fixed steps reach only with more solves (or not at all).
"""

import argparse
import math
import pathlib
import sys
from typing import Callable, List, Tuple

import numpy as np
import numpy.typing as npt

import sapcontact

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENES = ROOT / "config" / "scenes"


def ode_apex(k: float = 1e5, tau_d: float = 1e-3, r: float = 0.1,
             h0: float = 0.5, dt: float = 1e-6) -> float:
    """The ball's rebound apex above the floor [m] by RK4."""
    def acc(z: float, v: float) -> float:
        delta = r - z
        f = max(0.0, k * (delta - tau_d * v)) if delta > 0 else 0.0
        return -9.81 + f

    z, v, touched = r + h0, 0.0, False
    while True:
        k1z, k1v = v, acc(z, v)
        k2z, k2v = v + 0.5 * dt * k1v, acc(z + 0.5 * dt * k1z, v + 0.5 * dt * k1v)
        k3z, k3v = v + 0.5 * dt * k2v, acc(z + 0.5 * dt * k2z, v + 0.5 * dt * k2v)
        k4z, k4v = v + dt * k3v, acc(z + dt * k3z, v + dt * k3v)
        zn = z + dt / 6 * (k1z + 2 * k2z + 2 * k3z + k4z)
        vn = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        touched = touched or zn < r
        if touched and v > 0 >= vn:
            return z - r
        z, v = zn, vn


def run(scene: str, overrides: List[str]) -> sapcontact.RunResult:
    r = sapcontact.run_scene(SCENES / f"{scene}.yaml", overrides=overrides)
    if r.summary["failed_steps"]:
        sys.exit(f"{scene} {overrides}: {r.summary['first_failure']}")
    return r


def body_z(r: sapcontact.RunResult, name: str) -> npt.NDArray[np.float64]:
    return np.asarray(r.positions[:, r.body_names.index(name), 2])


def fixed(dt: float) -> List[str]:
    return [f"time_step={dt}", "output.every=1"]


def controlled(a: float) -> List[str]:
    return ["integrator.scheme=error_controlled", f"integrator.accuracy={a}",
            "output.every=1"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="work_precision.png")
    args = ap.parse_args()

    apex = ode_apex()
    mu, g, v0 = 0.5, 9.81, 1.0
    slide = v0 * v0 / (2 * mu * g)

    def ball_error(r: sapcontact.RunResult) -> float:
        z = body_z(r, "ball")
        lowest = int(z.argmin())
        return abs(float(z[lowest:].max()) - 0.1 - apex)

    def slide_error(r: sapcontact.RunResult) -> float:
        x = r.positions[:, r.body_names.index("box"), 0]
        return abs(float(x[-1] - x[0]) - slide)

    prism_ref: List[float] = []

    def prism_error(r: sapcontact.RunResult) -> float:
        i = [n for n in r.body_names if n != "ground"][0]
        p = [float(x) for x in r.positions[-1, r.body_names.index(i)]]
        return float(math.dist(p, prism_ref))

    Study = Tuple[str, Callable[[sapcontact.RunResult], float], List[float],
                  List[float], List[str]]
    studies: List[Study] = [
        ("ball_bounce", ball_error, [1e-3, 1e-4, 3e-5, 1e-5],
         [1e-5, 1e-6, 1e-7], []),
        ("box_slide", slide_error, [1e-2, 3e-3, 1e-3, 3e-4, 1e-4],
         [1e-3, 1e-4, 1e-5, 1e-6], []),
        ("kr5_push", prism_error, [2e-3, 1e-3, 5e-4, 2e-4],
         [1e-3, 1e-4, 1e-5], ["duration=1"]),
    ]
    # scene, scheme, dt or A, error, solves, wall time, steps, rejected
    rows: List[Tuple[str, str, float, float, float, float, int, int]] = []
    for scene, error, dts, accuracies, extra in studies:
        if scene == "kr5_push":
            ref = run(scene, fixed(2e-5) + extra)
            name = [n for n in ref.body_names if n != "ground"][0]
            prism_ref[:] = [float(x) for x in
                            ref.positions[-1, ref.body_names.index(name)]]
        for dt in dts:
            r = run(scene, fixed(dt) + extra)
            s = r.summary
            rows.append((scene, "fixed", dt, error(r), float(s["steps"]),
                         s["wall_time_s"], s["steps"], 0))
        for a in accuracies:
            r = run(scene, controlled(a) + extra)
            s = r.summary
            i = s["integrator"]
            rows.append((scene, "error_controlled", a, error(r),
                         i["solves_per_step"] * s["steps"], s["wall_time_s"],
                         s["steps"], i["rejected_steps"]))

    print("| scene | scheme | dt [s] or A | error [m] | solves | wall time "
          "[s] | steps | rejected |")
    print("|---|---|---|---|---|---|---|---|")
    for scene, scheme, x, err, solves, wall, steps, rej in rows:
        print(f"| {scene} | {scheme} | {x:g} | {err:.3g} | {solves:.0f} | "
              f"{wall:.4f} | {steps} | {rej} |")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    units = {"ball_bounce": "rebound apex error [m]",
             "box_slide": "stopping distance error [m]",
             "kr5_push": "prism position error [m]"}
    for ax, (scene, *_rest) in zip(axes, studies):
        for scheme, style in (("fixed", "o-"), ("error_controlled", "s-")):
            pts = [(w, max(e, 1e-12), x) for s, sc, x, e, w, _, _, _ in rows
                   if s == scene and sc == scheme]
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], style,
                      label=scheme)
            for w, e, x in pts:
                ax.annotate(f"{x:g}", (w, e), fontsize=7)
        ax.set_title(scene)
        ax.set_xlabel("contact solves")
        ax.set_ylabel(units[scene])
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")

    # Error control must win somewhere on the impact.
    ball = [r for r in rows if r[0] == "ball_bounce"]
    wins: List[float] = []
    for _, sc, a, err, solves, _, _, _ in ball:
        if sc != "error_controlled":
            continue
        reaching = [w for _, s2, _, e2, w, _, _, _ in ball
                    if s2 == "fixed" and e2 <= err]
        if not reaching or min(reaching) > solves:
            wins.append(a)
    print("ball_bounce: error control reaches errors no cheaper fixed run "
          f"reaches at A = {', '.join(f'{a:g}' for a in wins) or 'none'}")
    return 0 if wins else 1


if __name__ == "__main__":
    sys.exit(main())
