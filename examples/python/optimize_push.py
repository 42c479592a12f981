#!/usr/bin/env python3
"""Gradient-based trajectory optimization through contact: find the force
profile on a pusher that slides a box to a target and leaves it there.

A 0.3 kg ball (radius 3 cm) touches the face of a 0.1 m, 0.5 kg box on the
ground (mu = 0.4 between every pair). The horizontal force on the ball (through its centre) is
piecewise constant over SEGMENTS intervals of a 0.5 s horizon; the box must
end at x = TARGET at rest. The loss is

    L(f) = ((x_T - TARGET) / 1 mm)^2 + (v_T / 1 mm/s)^2 + ALPHA |f|^2,

a least-squares problem solved by Gauss-Newton with a backtracking line
search. Its Jacobian (how x_T and v_T move with each force segment) comes
two ways, side by side:

* exact step derivatives: one rollout that calls
  ``Simulation.step_derivatives()`` every step (A = dx+/dx, B = dx+/du of
  the step, docs/theory.md §21) and carries the sensitivities forward,
  S_(k+1) = A_k S_k + B_k E_k;
* central differences of whole rollouts: 2 SEGMENTS rollouts per Jacobian.

Both runs start from zero force. The program prints each iteration (loss,
final distance to the target), the iterations and wall time of each method,
and the largest difference between the two Jacobians at the start; it exits
1 unless both optimizations bring the box within 1 mm of the target at
under 2 mm/s, and the two Jacobians agree to 1e-4 relative.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/optimize_push.py
"""

import argparse
import pathlib
import sys
import tempfile
import time
from typing import Callable, List, Tuple

import numpy as np
import numpy.typing as npt

import sapcontact

Vector = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]

DT = 2e-3  # [s]
STEPS = 250  # a 0.5 s horizon
SEGMENTS = 25  # force segments of 20 ms
TARGET = 0.12  # [m], the box's final x
ALPHA = 1e-4  # force regularization [1/N^2]
X_SCALE, V_SCALE = 1e-3, 1e-3  # [m], [m/s]

SCENE = f"""
time_step: {DT}
duration: {STEPS * DT}
materials:
  default: {{stiffness: 1.0e5, dissipation_time_scale: 0.01, friction: 0.4}}
solver: {{contact_model: sap}}
bodies:
  - {{name: ground, fixed: true, shape: {{type: plane}}}}
  - name: box
    shape: {{type: box, size: [0.1, 0.1, 0.1]}}
    mass: 0.5
    position: [0, 0, 0.04998]
  - name: pusher
    shape: {{type: sphere, radius: 0.03}}
    mass: 0.3
    position: [-0.07999, 0, 0.02999]
"""


def rollout(scene: str, forces: Vector,
            derivatives: bool) -> Tuple[Vector, Matrix]:
    """Runs the horizon with the pusher's force profile; returns the box's
    final (x, v_x) and, with derivatives, their Jacobian with respect to the
    forces (2 x SEGMENTS) by forward sensitivities."""
    sim = sapcontact.Simulation(scene)
    box = sim.body_names.index("box")
    sensitivity: Matrix = np.zeros((0, SEGMENTS))
    rows: Tuple[int, int] = (0, 0)
    column = 0
    for k in range(STEPS):
        segment = k * SEGMENTS // STEPS
        sim.apply_force("pusher", [forces[segment], 0.0, 0.0])
        if derivatives:
            d = sim.step_derivatives()
            names: List[str] = d["coordinates"]
            nv = len(names)
            if k == 0:
                sensitivity = np.zeros((2 * nv, SEGMENTS))
                rows = (names.index("box/x"), nv + names.index("box/x"))
                column = names.index("pusher/x")
            sensitivity = d["A"] @ sensitivity
            sensitivity[:, segment] += d["B"][:, column]
        sim.step(1)
    s = sim.state()
    final = np.array([s["positions"][box][0], s["velocities"][box][0]])
    jacobian = (sensitivity[list(rows), :] if derivatives
                else np.zeros((2, SEGMENTS)))
    return final, jacobian


def residuals(final: Vector, forces: Vector) -> Vector:
    return np.concatenate([[(final[0] - TARGET) / X_SCALE,
                            final[1] / V_SCALE], np.sqrt(ALPHA) * forces])


def residual_jacobian(jacobian: Matrix) -> Matrix:
    scaled = jacobian / np.array([[X_SCALE], [V_SCALE]])
    return np.vstack([scaled, np.sqrt(ALPHA) * np.eye(SEGMENTS)])


def exact_jacobian(scene: str, forces: Vector) -> Tuple[Vector, Matrix]:
    return rollout(scene, forces, derivatives=True)


def differenced_jacobian(scene: str, forces: Vector) -> Tuple[Vector, Matrix]:
    final, _ = rollout(scene, forces, derivatives=False)
    jacobian = np.zeros((2, SEGMENTS))
    h = 1e-3  # [N]
    for j in range(SEGMENTS):
        step = np.zeros(SEGMENTS)
        step[j] = h
        plus, _ = rollout(scene, forces + step, derivatives=False)
        minus, _ = rollout(scene, forces - step, derivatives=False)
        jacobian[:, j] = (plus - minus) / (2 * h)
    return final, jacobian


def gauss_newton(scene: str,
                 jacobian_of: Callable[[str, Vector], Tuple[Vector, Matrix]],
                 label: str, max_iterations: int) -> Tuple[Vector, int, float]:
    """Minimizes L; returns the forces, the iterations and the wall time."""
    start = time.perf_counter()
    forces = np.zeros(SEGMENTS)
    final, jacobian = jacobian_of(scene, forces)
    r = residuals(final, forces)
    for iteration in range(1, max_iterations + 1):
        J = residual_jacobian(jacobian)
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        loss = float(r @ r)
        alpha = 1.0
        while True:  # backtracking on the true loss
            trial = forces + alpha * step
            trial_final, _ = rollout(scene, trial, derivatives=False)
            trial_r = residuals(trial_final, trial)
            if trial_r @ trial_r < loss or alpha < 1e-3:
                break
            alpha *= 0.5
        forces = trial
        final, jacobian = jacobian_of(scene, forces)
        r = residuals(final, forces)
        print(f"  {label} iteration {iteration:2d}: loss {float(r @ r):10.4g},"
              f" box at {1e3 * (final[0] - TARGET):+8.3f} mm from the target,"
              f" {1e3 * final[1]:+7.3f} mm/s, step {alpha:g}")
        if abs(final[0] - TARGET) < 2e-4 and abs(final[1]) < 1e-3:
            break
    return forces, iteration, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-iterations", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scene = str(pathlib.Path(tmp) / "push.yaml")
        pathlib.Path(scene).write_text(SCENE)

        # The two Jacobians at a nonzero force profile.
        probe = np.linspace(6.0, 0.0, SEGMENTS)
        _, exact = exact_jacobian(scene, probe)
        _, differenced = differenced_jacobian(scene, probe)
        agreement = float(np.abs(exact - differenced).max() /
                          np.abs(exact).max())
        print(f"Jacobians of (x_T, v_T) with respect to {SEGMENTS} force "
              f"segments at a probe profile: largest difference "
              f"{agreement:.2e} of the largest entry")

        print("Gauss-Newton with exact step derivatives:")
        f_exact, it_exact, t_exact = gauss_newton(
            scene, exact_jacobian, "exact", args.max_iterations)
        print("Gauss-Newton with central differences of rollouts:")
        f_fd, it_fd, t_fd = gauss_newton(
            scene, differenced_jacobian, "differences", args.max_iterations)

        ok = agreement < 1e-4
        for label, forces in (("exact", f_exact), ("differences", f_fd)):
            final, _ = rollout(scene, forces, derivatives=False)
            error = abs(final[0] - TARGET)
            print(f"final ({label}): box {1e3 * error:.3f} mm from the "
                  f"target at {1e3 * abs(final[1]):.3f} mm/s; peak force "
                  f"{np.abs(forces).max():.2f} N")
            ok = ok and error < 1e-3 and abs(final[1]) < 2e-3
        print(f"exact derivatives: {it_exact} iterations in {t_exact:.2f} s; "
              f"central differences: {it_fd} iterations in {t_fd:.2f} s "
              f"({t_fd / t_exact:.1f}x the time)")
    if not ok:
        print("FAILED: the optimization did not bring the box to the target, "
              "or the Jacobians disagree", file=sys.stderr)
        return 1
    print("OK: the box ends at the target at rest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
