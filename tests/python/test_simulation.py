"""The simulator from Python: run_scene against `sapsim run`, Simulation
stepping against run_scene, and the physics of forces applied between
steps."""

import csv
import json
import math
import os
import subprocess

import numpy as np
import pytest

import sapcontact

TIMING_KEYS = {"wall_time_s", "solver_time_s", "collision_time_s"}
GRAVITY_30_DEGREES = [4.905, 0, -8.495709211]


def sapsim_run(sapsim, scene, out, overrides):
    command = [str(sapsim), "run", str(scene), "--out", str(out), "--quiet"]
    for key, value in overrides.items():
        text = json.dumps(value).replace(" ", "") if isinstance(
            value, list) else repr(value)
        command += ["--set", f"{key}={text}"]
    subprocess.run(command, check=True)
    with open(out / "summary.json") as f:
        summary = json.load(f)
    with open(out / "trajectory.csv") as f:
        rows = list(csv.reader(f))
    return summary, rows


def trajectory_rows(r):
    """run_scene's frames formatted as sapsim run writes trajectory.csv
    (sim/stepping/simulation.cc: time %.9g, the rest %.12g)."""
    rows = [["time", "body", "x", "y", "z", "qw", "qx", "qy", "qz", "vx",
             "vy", "vz", "wx", "wy", "wz"]]
    for i, t in enumerate(r.times):
        for b, name in enumerate(r.body_names):
            values = np.concatenate([r.positions[i, b], r.quaternions[i, b],
                                     r.velocities[i, b],
                                     r.angular_velocities[i, b]])
            rows.append(["%.9g" % t, name] + ["%.12g" % v for v in values])
    return rows


@pytest.mark.parametrize(
    "scene, overrides",
    [
        ("incline", {}),
        ("incline", {"gravity": GRAVITY_30_DEGREES}),
        ("stack", {"duration": 0.5}),
        ("box_slide", {"materials.default.model": "lagged"}),
        ("pendulum", {"duration": 0.5}),
    ],
)
def test_run_scene_matches_sapsim_run(sapsim, scenes_dir, tmp_path, scene,
                                      overrides):
    path = scenes_dir / f"{scene}.yaml"
    summary, rows = sapsim_run(sapsim, path, tmp_path, overrides)
    r = sapcontact.run_scene(str(path), overrides=overrides)
    assert r["summary"] is r.summary
    assert set(r.summary) == set(summary)
    for key, value in summary.items():
        if key not in TIMING_KEYS:
            # Parsed from JSON on both sides: doubles round-trip exactly.
            assert r.summary[key] == value, key
    assert trajectory_rows(r) == rows
    # The final frame is the summary's final state, bitwise.
    moving = [b for b in summary["bodies"] if not b["fixed"]]
    assert [b["name"] for b in moving] == r.body_names
    for k, body in enumerate(moving):
        assert r.positions[-1, k].tolist() == body["position"]
        assert r.quaternions[-1, k].tolist() == body["quaternion_wxyz"]
        assert r.velocities[-1, k].tolist() == body["velocity"]
    assert len(r.steps["time"]) == summary["steps"]
    assert r.steps["newton_iterations"].max() == \
        summary["max_newton_iterations"]
    assert r.steps["max_penetration"].max() == summary["max_penetration_m"]
    assert r.steps["contacts"].mean() == pytest.approx(
        summary["mean_contacts"], rel=1e-12)


def test_run_scene_writes_nothing_unless_asked(scenes_dir, tmp_path,
                                               monkeypatch, sapsim):
    monkeypatch.chdir(tmp_path)
    scene = scenes_dir / "box_rest.yaml"
    r = sapcontact.run_scene(scene, duration=0.05)
    assert r.output_dir is None and os.listdir(tmp_path) == []
    assert r.summary["steps"] == 50 and r.times[-1] == pytest.approx(0.05)
    out = tmp_path / "out"
    r = sapcontact.run_scene(scene, duration=0.05, output_dir=out,
                             write_steps=True, write_contacts=True)
    assert r.output_dir == str(out)
    assert sorted(os.listdir(out)) == ["contacts.csv", "steps.csv",
                                       "summary.json", "trajectory.csv"]
    with open(out / "steps.csv") as f:
        steps = list(csv.DictReader(f))
    assert [int(s["contacts"]) for s in steps] == r.steps["contacts"].tolist()
    # The same files as sapsim run.
    summary, rows = sapsim_run(sapsim, scene, tmp_path / "cli",
                               {"duration": 0.05})
    with open(out / "trajectory.csv") as f:
        assert list(csv.reader(f)) == rows


def test_simulation_steps_bitwise_as_run_scene(scenes_dir):
    scene = scenes_dir / "incline.yaml"
    overrides = {"gravity": GRAVITY_30_DEGREES, "duration": 0.3}
    r = sapcontact.run_scene(scene, overrides=overrides)
    sim = sapcontact.Simulation(scene, overrides=overrides)
    assert sim.body_names == ["incline", "box"]
    assert sim.time_step == 1e-3 and sim.duration == 0.3
    for _ in range(100):  # one step at a time, then many at once
        sim.step()
    info = sim.step(200)
    assert sim.steps_taken == 300 and sim.time == pytest.approx(0.3)
    assert info["contacts"] >= 2 and info["failed"] is False
    s = sim.state()
    assert s["fixed"] == [True, False]
    assert s["positions"][1].tobytes() == r.positions[-1, 0].tobytes()
    assert s["quaternions"][1].tobytes() == r.quaternions[-1, 0].tobytes()
    assert s["velocities"][1].tobytes() == r.velocities[-1, 0].tobytes()
    assert sim.kinetic_energy() == pytest.approx(
        r.summary["kinetic_energy_final_J"], rel=1e-14)


def bottom_centre(position, q):
    """World position of body point (0, 0, -0.1) (the box's bottom face
    centre) for quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    R = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])
    return position + R @ np.array([0.0, 0.0, -0.1])


def fitted_acceleration(t, x):
    """a of the least-squares fit x = c0 + c1 t + a t^2 / 2."""
    M = np.column_stack([np.ones_like(t), t, 0.5 * t * t])
    return np.linalg.lstsq(M, x, rcond=None)[0][2]


def test_incline_sticks_at_20_and_slides_with_coulomb_at_30_degrees(
        scenes_dir):
    scene = scenes_dir / "incline.yaml"
    mu, g, dt, sigma = 0.5, 9.81, 1e-3, 1e-3
    # 20 degrees: with the SAP paper's contact model the contact creeps at
    # most sigma mu g dt (SAP paper Eq. (31)); over 2 s that is 2e-5 m.
    r = sapcontact.run_scene(scene, overrides={"output.every": 1,
                                               "solver.contact_model": "sap"})
    p0 = bottom_centre(r.positions[0, 0], r.quaternions[0, 0])
    drift = max(np.linalg.norm((bottom_centre(x, q) - p0)[:2])
                for x, q in zip(r.positions[:, 0], r.quaternions[:, 0]))
    assert drift < sigma * mu * g * dt * r.times[-1] + 1e-6
    assert r.summary["failed_steps"] == 0
    # 30 degrees, the default (lagged) model: a = g (sin - mu cos) = 0.657
    # m/s^2 (within 2%, the C++ test's tolerance).
    r = sapcontact.run_scene(scene, overrides={"gravity": GRAVITY_30_DEGREES,
                                               "output.every": 1})
    theta = math.radians(30)
    expected = g * (math.sin(theta) - mu * math.cos(theta))
    a = fitted_acceleration(r.times, r.positions[:, 0, 0])
    assert a == pytest.approx(expected, rel=0.02)
    assert abs(r.positions[-1, 0, 1]) < 1e-9  # straight down the slope


def test_a_force_applied_between_steps_accelerates_a_box_by_coulomb(
        scenes_dir):
    # box_rest: 10 kg, mu = 0.5. A horizontal force F = 1.5 mu m g through
    # the centre of mass (below the tipping force m g / 2 ... h = w: F < m g
    # w / (2 h) = m g / 2) gives a = (F - mu m g) / m = 0.5 mu g.
    m, mu, g = 10.0, 0.5, 9.81
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml",
                                overrides={"duration": 10})
    sim.step(200)  # settle
    x0 = sim.state()["positions"][1, 0]
    sim.apply_force("box", [1.5 * mu * m * g, 0.0, 0.0])
    t, x = [], []
    for _ in range(50):
        sim.step(10)
        t.append(sim.time)
        x.append(sim.state()["positions"][1, 0] - x0)
    a = fitted_acceleration(np.array(t), np.array(x))
    assert a == pytest.approx(0.5 * mu * g, rel=0.02)
    # Released: friction stops it at deceleration mu g; then it stays.
    sim.clear_forces()
    v0 = sim.state()["velocities"][1, 0]
    sim.step(int(v0 / (mu * g) / sim.time_step) + 100)
    assert abs(sim.state()["velocities"][1, 0]) < 1e-3 * v0
    quaternion = sim.state()["quaternions"][1]
    assert quaternion[0] > 1 - 1e-6  # did not tip


def test_contacts_between_steps_carry_the_weight(scenes_dir):
    m, g = 10.0, 9.81
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml")
    sim.step(1000)
    c = sim.contacts()
    dt = sim.time_step
    assert len(c["body_a"]) == 4
    assert set(c["body_a"]) == {"ground"} and set(c["body_b"]) == {"box"}
    np.testing.assert_allclose(c["normal"], [[0, 0, 1]] * 4, atol=1e-9)
    assert np.all(c["phi"] < 0)
    # At rest the contacts carry the weight: sum of impulses = m g dt, up.
    total = c["impulse_world"].sum(axis=0)
    assert total[2] == pytest.approx(m * g * dt, rel=1e-6)
    assert np.abs(total[:2]).max() < 1e-9 * m * g * dt
    np.testing.assert_allclose(c["impulse"][:, 0], c["impulse_world"][:, 2],
                               rtol=1e-12)
    # The step's problem, solved again from Python, gives the same impulses
    # (to the solver's tolerance: the stepper warm-starts).
    problem = sim.last_problem()
    assert problem.num_contacts == 4
    r = sapcontact.SapSolver().solve(problem)
    np.testing.assert_allclose(r.gamma, c["impulse"], rtol=1e-5,
                               atol=1e-9 * m * g * dt)
    np.testing.assert_allclose(sim.last_results().gamma, c["impulse"],
                               rtol=0, atol=0)


def test_generalized_forces_on_a_robot(scenes_dir):
    # The pendulum with gravity switched off: a constant joint torque tau
    # turns it with angular acceleration tau / I (I about the pivot, from
    # the mass matrix the solver sees: A = M + dt D of its tree).
    overrides = {"gravity": [0, 0, 0], "duration": 1}
    sim = sapcontact.Simulation(scenes_dir / "pendulum.yaml", overrides)
    assert sim.robot_names == ["pendulum"]
    sim.step()
    I = sim.last_problem().tree(0)[0][0, 0]
    tau = 0.2
    sim.apply_generalized_forces("pendulum", [tau])
    q0 = sim.state()["robots"]["pendulum"]["q"][0]
    v0 = sim.state()["robots"]["pendulum"]["v"][0]
    assert v0 == 0.0
    sim.step(100)
    t = 100 * sim.time_step
    q = sim.state()["robots"]["pendulum"]["q"][0]
    v = sim.state()["robots"]["pendulum"]["v"][0]
    assert v == pytest.approx(tau / I * t, rel=1e-2)
    assert q - q0 == pytest.approx(0.5 * tau / I * t * t, rel=2e-2)


def test_overrides_spelled_as_python_values(scenes_dir):
    # Python's inf, bools, numpy scalars and arrays become YAML values.
    scene = scenes_dir / "box_rest.yaml"
    text = sapcontact.run_scene(scene, duration=0.02, overrides=[
        "materials.default.stiffness=.inf", "gravity=[0,0,-9.81]",
        "solver.stiction_prediction=false"])
    values = sapcontact.run_scene(scene, duration=np.float64(0.02),
                                  overrides={
        "materials.default.stiffness": float("inf"),
        "gravity": np.array([0.0, 0.0, -9.81]),
        "solver.stiction_prediction": False})
    assert values.positions.tobytes() == text.positions.tobytes()
    assert values.summary["max_penetration_m"] == \
        text.summary["max_penetration_m"]


def test_mesh_and_robot_warnings_reach_python(scenes_dir, tmp_path):
    """What loading approximated is in Simulation.warnings and in
    run_scene's summary['warnings'], as sapsim prints it; a mesh body from
    Python rests on the ground with its weight carried."""
    # An L-shaped (non-convex) closed mesh as an OBJ: three 0.1 m cubes.
    outline = [(0, 0), (0.2, 0), (0.2, 0.1), (0.1, 0.1), (0.1, 0.2), (0, 0.2)]
    lines = ["v %g 0 %g" % (x, z) for x, z in outline]
    lines += ["v %g 0.1 %g" % (x, z) for x, z in outline]
    lines += ["f 4 5 6 1 2 3", "f 10 9 8 7 12 11"]
    lines += ["f %d %d %d %d" % (i + 1, i + 7, (i + 1) % 6 + 7, (i + 1) % 6 + 1)
              for i in range(6)]
    (tmp_path / "ell.obj").write_text("\n".join(lines) + "\n")
    scene = tmp_path / "ell.yaml"
    scene.write_text(
        "time_step: 0.001\nduration: 0.5\nbodies:\n"
        "  - {name: ground, fixed: true, shape: {type: plane}}\n"
        "  - name: ell\n    shape: {type: mesh, file: ell.obj}\n"
        "    density: 1000\n    position: [0, 0, 0]\n")
    sim = sapcontact.Simulation(scene)
    assert len(sim.warnings) == 1
    assert sim.warnings[0].startswith(
        "bodies.ell.shape.file: mesh 'ell.obj' is not convex (mesh volume "
        "0.003 m^3, its hull's 0.0035 m^3)")
    sim.step(500)
    c = sim.contacts()
    m = 1000 * 0.003
    assert c["impulse_world"].sum(axis=0)[2] == pytest.approx(
        m * 9.81 * sim.time_step, rel=1e-6)
    result = sapcontact.run_scene(scene)
    assert result.summary["warnings"] == sim.warnings
    # A URDF's approximations, prefixed with the robot's field.
    kr5 = scenes_dir / "kr5_push.yaml"
    if not os.path.exists("/usr/share/doc/dart/data/urdf/KR5"):
        pytest.skip("Debian's dart-doc is not installed")
    robot = sapcontact.Simulation(kr5)
    assert len(robot.warnings) == 7
    assert all(w.startswith("robots.kr5: ") for w in robot.warnings)
