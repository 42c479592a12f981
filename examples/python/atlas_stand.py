#!/usr/bin/env python3
"""Atlas holds a standing pose under PD gains set from Python.

The scene (config/scenes/atlas_stand.yaml: Atlas of Debian's dart-doc on
flat ground, self-collision on with its collision filter) is loaded, then
this program gives all of Atlas's 27 joints implicit PD gains in one call
(``set_actuation_gains``) and the standing pose as targets in another
(``set_actuation_targets``). The PD rows are solved implicitly, at the end
of the step, so they are stable for any gains; there is no balance
controller, so the robot stands on its stiff joints until a small
asymmetry tips it over.

It prints the pelvis height and tilt every 0.25 s and the time Atlas stayed
upright (pelvis tilt below 30 degrees and height above 70 % of the start),
and exits 1 unless it stood for at least --min-upright seconds (1 s) with
no failed step.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/atlas_stand.py
"""

import argparse
import math
import pathlib
import sys

import numpy as np
import numpy.typing as npt

import sapcontact

REPO = pathlib.Path(__file__).resolve().parents[2]


def tilt_degrees(quaternion_wxyz: npt.NDArray[np.float64]) -> float:
    """Angle between the pelvis's z axis and the world's [deg]."""
    x, y = float(quaternion_wxyz[1]), float(quaternion_wxyz[2])
    up_z = 1.0 - 2.0 * (x * x + y * y)  # z component of the body z axis
    return math.degrees(math.acos(max(-1.0, min(1.0, up_z))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(
        REPO / "config" / "scenes" / "atlas_stand.yaml"))
    parser.add_argument("--kp", type=float, default=5000.0,
                        help="joint stiffness [N m/rad] (default 5000)")
    parser.add_argument("--kd", type=float, default=100.0,
                        help="joint damping [N m s/rad] (default 100)")
    parser.add_argument("--duration", type=float, default=2.0,
                        help="simulated time [s] (default 2)")
    parser.add_argument("--min-upright", type=float, default=1.0,
                        help="fail unless upright this long [s] (default 1)")
    args = parser.parse_args()

    sim = sapcontact.Simulation(args.scene)
    for warning in sim.warnings:
        print("warning:", warning)
    joints = sim.joint_names("atlas")
    n = len(joints)
    # Every joint's gains in one call, then the pose it starts in as the
    # targets of all of them.
    sim.set_actuation_gains("atlas", kp=np.full(n, args.kp),
                            kd=np.full(n, args.kd))
    stand = sim.robot_state("atlas")["q"].copy()
    sim.set_actuation_targets("atlas", stand)
    print(f"Atlas: {n} joints, kp = {args.kp:g} N m/rad, "
          f"kd = {args.kd:g} N m s/rad on every one")

    dt = sim.time_step
    steps = int(round(args.duration / dt))
    z0 = sim.robot_state("atlas")["base_q"][2]
    upright_until = None
    failed = 0
    for k in range(1, steps + 1):
        failed += int(sim.step()["failed"])
        base = sim.robot_state("atlas")["base_q"]
        z, tilt = base[2], tilt_degrees(base[3:7])
        if upright_until is None and (tilt > 30.0 or z < 0.7 * z0):
            upright_until = k * dt
        if k % int(round(0.25 / dt)) == 0:
            print(f"t = {k * dt:4.2f} s: pelvis at {z:.3f} m, "
                  f"tilt {tilt:5.1f} deg")
    upright = upright_until if upright_until is not None else steps * dt
    print(f"upright for {upright:.2f} s of {steps * dt:.2f} s; "
          f"failed steps {failed}")
    if failed or upright < args.min_upright:
        print(f"FAILED: Atlas stood {upright:.2f} s (needs "
              f"{args.min_upright:g} s) with {failed} failed steps",
              file=sys.stderr)
        return 1
    print("OK: Atlas stood on its own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
