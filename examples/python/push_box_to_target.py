#!/usr/bin/env python3
"""A closed-loop controller written in Python: a planar arm pushes a box to
a target.

The scene (examples/python/scara_push.yaml) has a 2-DOF arm whose joints
turn about the vertical axis (examples/python/scara_pusher.urdf, no scene
actuation) and a 0.1 m, 0.5 kg box on the ground (mu = 0.5). Every time
step this program reads the state through the controller API of
``sapcontact.Simulation`` and sets the arm's joint torques:

* the pusher tip's world position and velocity come from ``link_pose`` and
  ``link_jacobian`` (J v) of the arm's last link;
* a pushing policy picks a desired pusher position: first an approach point
  behind the box on the line from the target through the box, then a point
  a few centimetres into the box's near face, so that the push drives the
  box towards the target (re-aimed every step as the box turns and drifts;
  back to the approach when the pusher slips off the line);
* a task-space PD law F = Kp (p_d - p) - Kd v_p in the horizontal plane
  becomes joint torques tau = J' F (``set_joint_torques``).

It prints the box's distance to the target as it goes and exits 1 unless the
box ends within TOLERANCE (20 mm) of the target, pushed there by the arm
(its contact force on the box, from ``contact_wrench``, exceeds the
friction mu m g). About 5 s of simulated time, a few
seconds of wall time.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/push_box_to_target.py
"""

import argparse
import math
import pathlib
import sys
from typing import Tuple

import numpy as np
import numpy.typing as npt

import sapcontact

Vector = npt.NDArray[np.float64]

HERE = pathlib.Path(__file__).resolve().parent
SCENE = HERE / "scara_push.yaml"

L1, L2 = 0.5, 0.4  # link lengths [m] (scara_pusher.urdf)
PUSHER = np.array([0.4, 0.0, -0.12])  # pusher axis point in link2 [m]
BOX_HALF = 0.05  # [m]
PUSHER_RADIUS = 0.02  # [m]
TARGET = np.array([0.72, 0.18])  # [m], world x, y
TOLERANCE = 0.02  # [m]
KP, KD = 400.0, 40.0  # task-space gains [N/m], [N s/m]
MAX_ERROR = 0.03  # the PD's position error is clipped to this [m]
STANDOFF = BOX_HALF + PUSHER_RADIUS  # pusher axis to box centre at contact


def inverse_kinematics(x: float, y: float) -> Tuple[float, float]:
    """Joint angles (elbow negative) putting the pusher axis at (x, y)."""
    c2 = (x * x + y * y - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    q2 = -math.acos(max(-1.0, min(1.0, c2)))
    q1 = math.atan2(y, x) - math.atan2(L2 * math.sin(q2),
                                       L1 + L2 * math.cos(q2))
    return q1, q2


def rotate(quaternion: Vector, vector: Vector) -> Vector:
    """The vector turned by the unit quaternion (w, x, y, z)."""
    w, r = quaternion[0], np.asarray(quaternion[1:])
    turned = vector + 2 * np.cross(r, np.cross(r, vector) + w * vector)
    return np.asarray(turned, dtype=np.float64)


def clip(v: Vector, limit: float) -> Vector:
    n = np.linalg.norm(v)
    return v if n <= limit else v * (limit / n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=6.0,
                        help="simulated seconds at most (default 6)")
    args = parser.parse_args()

    sim = sapcontact.Simulation(SCENE)
    joints = sim.joint_names("arm")
    box = sim.body_names.index("box")
    # Start with the pusher 0.2 m behind the box, away from the target.
    box_xy = sim.state()["positions"][box, :2]
    u = (TARGET - box_xy) / np.linalg.norm(TARGET - box_xy)
    start = box_xy - 0.2 * u + 0.05 * np.array([-u[1], u[0]])
    q1, q2 = inverse_kinematics(*start)
    sim.set_robot_state("arm", q={"joint1": q1, "joint2": q2})
    print(f"{joints}: start q = ({q1:.3f}, {q2:.3f}) rad; box at "
          f"({box_xy[0]:.3f}, {box_xy[1]:.3f}) m, target "
          f"({TARGET[0]:.3f}, {TARGET[1]:.3f}) m")

    phase, steps, pushed = "approach", 0, 0.0
    max_steps = int(args.duration / sim.time_step)
    distance = float("inf")
    while steps < max_steps:
        b = sim.state()["positions"][box, :2]
        to_target = TARGET - b
        distance = float(np.linalg.norm(to_target))
        position, quaternion = sim.link_pose("arm", "link2")
        p = (position + rotate(quaternion, PUSHER))[:2]  # pusher, world
        J = sim.link_jacobian("arm", "link2", PUSHER)[:2]  # its x, y rows
        v = sim.robot_state("arm")["v"]
        v_p = J @ v
        u = to_target / max(distance, 1e-9)
        behind = b - STANDOFF * u
        lateral = p - behind - np.dot(p - behind, u) * u
        if distance < TOLERANCE / 2:
            phase = "hold"
        elif phase == "approach":
            p_d = b - (STANDOFF + 0.05) * u
            if np.linalg.norm(p - p_d) < 0.01 and np.linalg.norm(v_p) < 0.05:
                phase = "push"
        elif phase == "push" and (np.linalg.norm(lateral) > 0.03
                                  or np.dot(p - b, u) > -0.03):
            phase = "approach"
        if phase == "push":
            depth = min(0.03, 0.5 * distance + 0.005)
            p_d = behind + depth * u
        elif phase == "hold":
            p_d = b - (STANDOFF + 0.03) * u
        force = KP * clip(p_d - p, MAX_ERROR) - KD * v_p
        tau = J.T @ force
        sim.set_joint_torques("arm", dict(zip(joints, tau)))
        sim.step()
        steps += 1
        # The pusher's contact force on the box: minus the box's on it.
        on_box = -sim.contact_wrench("arm/link2")["force"]
        pushed = max(pushed, float(np.linalg.norm(on_box[:2])))
        if steps % 250 == 0:
            print(f"t = {sim.time:5.2f} s  {phase:8s} box at "
                  f"({b[0]:.3f}, {b[1]:.3f}) m, {distance * 1000:6.1f} mm "
                  f"from the target; pusher force on the box "
                  f"{np.linalg.norm(on_box[:2]):5.2f} N")
        if phase == "hold" and np.linalg.norm(sim.state()["velocities"][box]) \
                < 1e-3:
            break

    b = sim.state()["positions"][box, :2]
    distance = float(np.linalg.norm(TARGET - b))
    print(f"final: t = {sim.time:.2f} s, box at ({b[0]:.4f}, {b[1]:.4f}) m, "
          f"{distance * 1000:.1f} mm from the target (tolerance "
          f"{TOLERANCE * 1000:.0f} mm)")
    # Coulomb: moving the box takes at least mu m g = 2.45 N of push.
    print(f"largest horizontal pusher force {pushed:.2f} N (mu m g = "
          f"{0.5 * 0.5 * 9.81:.2f} N)")
    if distance > TOLERANCE or pushed < 0.5 * 0.5 * 9.81:
        print("FAILED: the box did not reach the target", file=sys.stderr)
        return 1
    print("OK: the box reached the target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
