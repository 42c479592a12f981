#!/usr/bin/env python3
"""One SAP solve from numpy: a 10 kg box (0.2 m cube) resting on its four
bottom corners, built by hand as sapcontact.SapProblem, solved by
sapcontact.SapSolver, and checked against physics: momentum balance
A (v - v*) = J' gamma, every impulse in its friction cone, the four normal
impulses carrying the weight m g dt, and the rigid-contact QP (the stiff
limit) of the box touching the ground carrying the weight too.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/solve_box.py

Exits 1 when a check fails (examples/README.md). Units: SI. Conventions:
contact frame rows (n, t1, t2), n from the ground (body A) into the box
(body B); v_c = J v is the box's velocity relative to the ground.
"""

import sys
from typing import Sequence

import numpy as np
import numpy.typing as npt

import sapcontact

m, side, g, dt = 10.0, 0.2, 9.81, 1e-3  # kg, m, m/s^2, s
k, tau_d, mu = 1e6, 0.01, 0.5  # N/m, s, -


def corner_jacobian(p: Sequence[float]) -> npt.NDArray[np.float64]:
    """3 x 6 Jacobian of a ground contact at body-relative point p for the
    box's generalized velocity (v, w) (world frame): rows (n, t1, t2) =
    (z, x, y) of the point velocity v + w x p."""
    skew = np.array(
        [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]]
    )
    frame = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    J: npt.NDArray[np.float64] = frame @ np.hstack([np.eye(3), -skew])
    return J


def main() -> int:
    inertia = m * side**2 / 6  # kg m^2
    A = np.diag([m, m, m, inertia, inertia, inertia])
    v_star = np.array([0.0, 0.0, -g * dt, 0.0, 0.0, 0.0])  # free motion
    # Resting penetration of four springs in parallel carrying m g.
    phi0 = -m * g / (4 * k)

    problem = sapcontact.SapProblem(time_step=dt)
    box = problem.add_tree(A=A, v_star=v_star, name="box")
    jacobians = []
    for x in (-side / 2, side / 2):
        for y in (-side / 2, side / 2):
            J = corner_jacobian([x, y, -side / 2])
            jacobians.append(J)
            problem.add_contact(tree=box, J=J, phi0=phi0, stiffness=k,
                                dissipation_time_scale=tau_d, friction=mu)

    r = sapcontact.SapSolver().solve(problem)
    print(f"status {r.status.name}, {r.statistics.newton_iterations} Newton "
          f"iterations, {r.statistics.time_total * 1e6:.0f} us")
    print("v [m/s, rad/s] =", np.array2string(r.v, precision=3))
    print("gamma (n, t1, t2) [N*s] =\n", r.gamma)
    print("R_n [(m/s)/(N*s)] =", r.R_n)

    J_all = np.vstack(jacobians)
    impulse = J_all.T @ r.gamma.reshape(-1)
    failures = []
    if not r.converged:
        failures.append(f"not converged: {r.message}")
    if np.abs(A @ (r.v - v_star) - impulse).max() > 1e-9 * m * g * dt:
        failures.append("momentum balance A (v - v*) = J' gamma")
    if np.any(np.linalg.norm(r.gamma[:, 1:], axis=1) >
              mu * r.gamma[:, 0] * (1 + 1e-12)):
        failures.append("an impulse outside its friction cone")
    weight = r.gamma[:, 0].sum() / (m * g * dt)
    print(f"sum of normal impulses / (m g dt) = {weight:.9f}")
    if abs(weight - 1) > 1e-4:
        failures.append(f"the contacts carry {weight:.6f} m g dt, not m g dt")
    # The rigid-contact QP of the same box touching the ground (phi0 = 0,
    # so no push-out velocity -phi0 / (dt + tau_d)): it stops the box, and
    # the contacts carry the weight exactly.
    touching = sapcontact.SapProblem(time_step=dt)
    touching.add_tree(A=A, v_star=v_star)
    for J in jacobians:
        touching.add_contact(tree=0, J=J, phi0=0.0, friction=mu)
    rigid = sapcontact.RigidQpSolver().solve(touching)
    rigid_weight = rigid.impulses[:, 0].sum() / (m * g * dt)
    print(f"rigid QP: {rigid.status.name}, sum of normal impulses / "
          f"(m g dt) = {rigid_weight:.9f}")
    if not rigid.solved or abs(rigid_weight - 1) > 1e-6:
        failures.append("the rigid QP does not carry the weight")
    for f in failures:
        print("FAILED:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
