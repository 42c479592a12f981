"""The controller API of sapcontact.Simulation (docs/python.md "Controller
API"): names with nearest-candidate errors, joint and link state against
closed forms, wrenches at points and on links, joint torques, contacts and
contact wrenches against the physics they imply."""

import math

import numpy as np
import pytest

import sapcontact

G = 9.81


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rotation(quaternion):
    w, x, y, z = quaternion
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def test_wrong_names_list_the_nearest_candidates(scenes_dir):
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    with pytest.raises(ValueError, match=r"^target: no body named 'box_d' "
                       r"\(nearest: box_a, box_b, box_c, ground\)$"):
        sim.apply_force("box_d", [1, 0, 0])
    with pytest.raises(ValueError, match=r"no body named 'bx_b' \(nearest: "
                       r"box_b, box_a, box_c, ground\)"):
        sim.set_body_state("bx_b", position=[0, 0, 1])
    with pytest.raises(ValueError, match=r"no body named 'grund'"
                       r" \(nearest: ground, "):
        sim.contact_wrench("grund")
    with pytest.raises(ValueError, match=r"^robot: no robot named 'pushr' "
                       r"\(nearest: pusher\)$"):
        sim.joint_names("pushr")
    with pytest.raises(ValueError, match=r"^link: no link of robot 'pusher' "
                       r"named 'link4' \(nearest: link0, link1, link2, "
                       r"link3\)$"):
        sim.link_pose("pusher", "link4")
    with pytest.raises(ValueError, match=r"no link of robot 'pusher' named "
                       r"'lnk3' \(nearest: link3, "):
        sim.apply_force("pusher/lnk3", [1, 0, 0])
    with pytest.raises(ValueError, match=r"^joint: no joint of robot "
                       r"'pusher' named 'joint_2' \(nearest: joint2, joint1, "
                       r"joint3\)$"):
        sim.set_joint_torques("pusher", {"joint_2": 1.0})
    with pytest.raises(ValueError, match=r"'pusher' is a robot: name one of "
                       r"its links as 'pusher/LINK'"):
        sim.apply_force("pusher", [1, 0, 0])
    with pytest.raises(ValueError, match=r"'ground' is fixed"):
        sim.apply_force("ground", [1, 0, 0])
    with pytest.raises(ValueError, match=r"frame: 'local' is not one of"):
        sim.apply_force("box_a", [1, 0, 0], frame="local")
    # Many candidates: five shown, the rest counted.
    sim = sapcontact.Simulation(scenes_dir / "pile.yaml")
    names = [n for n in sim.body_names if n != "ground"]
    wrong = names[0][:-1] + "x"
    with pytest.raises(ValueError, match=r"and %d more\)$" % (
            len(sim.body_names) - 5)):
        sim.apply_force(wrong, [1, 0, 0])


def test_joint_and_link_names_and_state(scenes_dir):
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    assert sim.joint_names("pusher") == ["joint1", "joint2", "joint3"]
    assert sim.link_names("pusher") == ["link0", "link1", "link2", "link3"]
    s = sim.robot_state("pusher")
    assert s["joints"] == ["joint1", "joint2", "joint3"]
    np.testing.assert_array_equal(s["q"], [-0.8, 0.138, -0.138])
    np.testing.assert_array_equal(s["v"], [0, 0, 0])
    np.testing.assert_array_equal(s["effort"], [0, 0, 0])  # no step yet
    assert "base_q" not in s
    sim.set_robot_state("pusher", q=[0.1, 0.2, 0.3], v={"joint2": 0.5})
    s = sim.robot_state("pusher")
    np.testing.assert_array_equal(s["q"], [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(s["v"], [0, 0.5, 0])
    sim.set_robot_state("pusher", q={"joint3": -0.4})
    np.testing.assert_array_equal(sim.robot_state("pusher")["q"],
                                  [0.1, 0.2, -0.4])
    robots = sim.state()["robots"]["pusher"]
    assert robots["joints"] == ["joint1", "joint2", "joint3"]
    np.testing.assert_array_equal(robots["q"], [0.1, 0.2, -0.4])
    assert robots["effort"].shape == (3,)
    with pytest.raises(ValueError, match=r"q: expected 3 values"):
        sim.set_robot_state("pusher", q=[0.1, 0.2])


def test_link_pose_velocity_and_jacobian_match_closed_forms(scenes_dir):
    # pusher_arm.urdf: joint1 about z at height 0.1, joint2 about y 0.15
    # above it, joint3 about y 0.4 along link2's x. Link3's origin is
    # Rz(q1) [(0, 0, 0.25) + Ry(q2) (0.4, 0, 0)], its rotation
    # Rz(q1) Ry(q2 + q3).
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    q = np.array([0.7, -0.3, 0.9])
    v = np.array([0.4, -1.1, 0.6])
    sim.set_robot_state("pusher", q=q, v=v)

    def origin(q):
        return rz(q[0]) @ (np.array([0, 0, 0.25]) + ry(q[1]) @ [0.4, 0, 0])

    position, quaternion = sim.link_pose("pusher", "link3")
    np.testing.assert_allclose(position, origin(q), atol=1e-14)
    np.testing.assert_allclose(rotation(quaternion),
                               rz(q[0]) @ ry(q[1] + q[2]), atol=1e-14)
    # Velocity: the closed form's derivative (central differences) and the
    # angular velocity w = q1' z + (q2' + q3') Rz(q1) y.
    h = 1e-6
    expected_v = (origin(q + h * v) - origin(q - h * v)) / (2 * h)
    expected_w = v[0] * np.array([0, 0, 1]) + (v[1] + v[2]) * rz(q[0]) @ [
        0, 1, 0]
    linear, angular = sim.link_velocity("pusher", "link3")
    np.testing.assert_allclose(linear, expected_v, atol=1e-8)
    np.testing.assert_allclose(angular, expected_w, atol=1e-14)
    # The Jacobian at the pusher tip (0.4, 0, -0.175) in link3.
    tip = np.array([0.4, 0, -0.175])
    J = sim.link_jacobian("pusher", "link3", tip)
    assert J.shape == (6, 3)

    def tip_world(q):
        return origin(q) + rz(q[0]) @ ry(q[1] + q[2]) @ tip

    for k in range(3):
        dq = np.zeros(3)
        dq[k] = h
        column = (tip_world(q + dq) - tip_world(q - dq)) / (2 * h)
        np.testing.assert_allclose(J[:3, k], column, atol=1e-8)
    np.testing.assert_allclose(J[3:] @ v, expected_w, atol=1e-14)
    np.testing.assert_allclose(sim.link_jacobian("pusher", "link3") @ v,
                               np.concatenate([linear, angular]), atol=1e-14)


def test_contact_wrench_of_a_resting_box_is_its_weight(scenes_dir):
    m = 10.0
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml")
    sim.step(1000)
    box = sim.contact_wrench("box")
    np.testing.assert_allclose(box["force"], [0, 0, m * G], rtol=1e-6,
                               atol=1e-9 * m * G)
    # Four symmetric corners: no torque about the centre of mass.
    np.testing.assert_allclose(box["torque"], 0, atol=1e-6 * m * G * 0.1)
    ground = sim.contact_wrench("ground")
    np.testing.assert_allclose(ground["force"], -box["force"], rtol=1e-15)
    c = sim.contacts()
    assert c["slip_speed"].shape == (4,)
    assert np.all(c["slip_speed"] < 1e-6)


def test_slip_speed_of_a_sliding_box_is_its_speed(scenes_dir):
    sim = sapcontact.Simulation(scenes_dir / "box_slide.yaml")
    sim.step(50)
    vx = sim.state()["velocities"][1, 0]
    assert 0.5 < vx < 1.0
    np.testing.assert_allclose(sim.contacts()["slip_speed"], vx, rtol=1e-3)


def test_a_force_at_an_offset_point_adds_r_cross_f(scenes_dir):
    # No gravity, the box (10 kg, 0.2 m cube: I = m s^2 / 6) floating: a
    # force f at point r from the centre of mass gives a = f / m and
    # angular acceleration (r x f) / I.
    m, I = 10.0, 10.0 * 0.04 / 6
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml",
                                {"gravity": [0, 0, 0]})
    sim.set_body_state("box", position=[0, 0, 1])
    f, r = np.array([0.0, 0.0, 2.0]), np.array([0.1, 0.0, 0.0])
    sim.apply_force("box", f, point=r)
    n = 20
    sim.step(n)
    t = n * sim.time_step
    state = sim.state()
    np.testing.assert_allclose(state["velocities"][1], f / m * t, rtol=1e-9,
                               atol=1e-12)
    # The point turns with the box (angle 1e-3 rad here): first order.
    np.testing.assert_allclose(state["angular_velocities"][1],
                               np.cross(r, f) / I * t, rtol=2e-3,
                               atol=1e-12)
    # A body-frame force turns with the body: the box turned 90 degrees
    # about z pushed along its x moves along the world's y.
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml",
                                {"gravity": [0, 0, 0]})
    half = math.sqrt(0.5)
    sim.set_body_state("box", position=[0, 0, 1],
                       quaternion=[half, 0, 0, half])
    sim.apply_force("box", [3.0, 0, 0], torque=[0, 0.5, 0], frame="body")
    sim.step(n)
    state = sim.state()
    # (The torque turns the box by 1.5e-3 rad about x meanwhile, and the
    # force with it: a z velocity of 3e-6 m/s.)
    np.testing.assert_allclose(state["velocities"][1], [0, 3.0 / m * t, 0],
                               atol=1e-5)
    assert abs(state["velocities"][1][2]) > 1e-6
    np.testing.assert_allclose(state["angular_velocities"][1],
                               [-0.5 / I * t, 0, 0], rtol=1e-9, atol=1e-12)


def test_a_force_on_a_link_is_its_torque_about_the_joint(scenes_dir):
    # The pendulum without gravity: a horizontal force f on the bob's link
    # at the bob (0.5 m below the pivot, link frame) turns it about the
    # pivot's y axis with torque (r x f) . y; it must move as a joint
    # torque of that size does, and as set_joint_torques does.
    overrides = {"gravity": [0, 0, 0], "duration": 1}
    f = np.array([0.3, 0.0, 0.0])
    r = np.array([0.0, 0.0, -0.5])
    tau = float(np.cross(r, f)[1])
    runs = []
    for how in ("link force", "generalized", "joint torque"):
        sim = sapcontact.Simulation(scenes_dir / "pendulum.yaml", overrides)
        sim.set_robot_state("pendulum", q={"pivot": 0.0})
        if how == "link force":
            sim.apply_force("pendulum/bob", f, point=r)
        elif how == "generalized":
            sim.apply_generalized_forces("pendulum", [tau])
        else:
            sim.set_joint_torques("pendulum", {"pivot": tau})
        sim.step(5)
        runs.append(sim.robot_state("pendulum"))
    assert tau == pytest.approx(-0.15)
    # The angle is 1e-4 rad: the lever arm changes by 1e-8 relative.
    np.testing.assert_allclose(runs[0]["v"], runs[1]["v"], rtol=1e-7)
    assert runs[1]["v"].tobytes() == runs[2]["v"].tobytes()
    assert runs[2]["effort"][0] == tau


def test_joint_torques_and_pd_effort(scenes_dir):
    # The pusher arm held by its PD at q2 = -q3 = 0.138 (forearm level):
    # the shoulder's effort carries the weight of the upper arm (2 kg, COM
    # 0.252 m out along it) and the forearm (1.5 kg, COM 0.2666 m along it
    # and 0.015 m down), whose moment about the shoulder axis is
    # g (2 * 0.252 cos q2 + 1.5 (0.4 cos q2 + 0.2666)).
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    sim.step(300)
    s = sim.robot_state("pusher")
    q2 = s["q"][1]
    moment = G * (2 * 0.252 * math.cos(q2) +
                  1.5 * (0.4 * math.cos(q2) + 0.2666 * math.cos(
                      q2 + s["q"][2]) + 0.015 * math.sin(q2 + s["q"][2])))
    assert -s["effort"][1] == pytest.approx(moment, rel=1e-3)
    assert abs(s["v"]).max() < 1e-3
    # A joint torque adds to the effort and moves the joint.
    sim.set_joint_torques("pusher", {"joint1": 5.0})
    sim.step(1)
    assert sim.robot_state("pusher")["v"][0] > 0
    sim.clear_forces()
    assert sim.robot_state("pusher")["effort"][0] != 5.0


def test_set_actuation_target_drives_a_joint_to_the_target(scenes_dir):
    # arm_push's yaw joint1 (PD kp 300 N m/rad, kd 30 N m s/rad, no gravity
    # torque about the vertical axis) turned away from the boxes: from
    # -0.8 rad to a held target of -1.2 rad, instead of the scene's sweep.
    # The PD settles there: kd / (2 sqrt(kp I)) > 1 for the arm's yaw
    # inertia I < 0.75 kg m^2, so it does not overshoot.
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    sim.set_actuation_target("pusher", "joint1", -1.2)
    q1 = []
    for _ in range(30):
        sim.step(100)
        q1.append(sim.robot_state("pusher")["q"][0])
    assert q1[-1] == pytest.approx(-1.2, abs=1e-4)
    assert min(q1) > -1.2 - 1e-4  # no overshoot
    assert abs(sim.robot_state("pusher")["effort"][0]) < 1e-2
    # A velocity target with the matching feed-forward: the joint follows.
    sim.set_actuation_target("pusher", "joint1", -1.2, velocity=0.0,
                             feedforward=2.0)
    sim.step(2000)
    # Steady state: kp (q_d - q) + u0 = 0, so q = q_d + u0 / kp.
    assert sim.robot_state("pusher")["q"][0] == pytest.approx(
        -1.2 + 2.0 / 300.0, abs=1e-4)
    # Back to the scene's target function (the sweep to +0.8 rad by 3.5 s).
    sim.clear_actuation_targets("pusher")
    with pytest.raises(ValueError, match=r"pivot"):
        sapcontact.Simulation(scenes_dir / "pendulum.yaml") \
            .set_actuation_target("pendulum", "pivot", 0.1)


def test_a_resting_box_sleeps_and_a_force_wakes_it(scenes_dir):
    # solver.sleep: the box at rest falls asleep after sleep_time of
    # stillness, then has no contacts; apply_force wakes it and it slides
    # with a = F/m - mu g (box_rest: m = 10 kg, mu = 0.5).
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml",
                                {"solver.sleep": True,
                                 "solver.sleep_time": 0.1})
    assert sim.step(300)["sleeping_bodies"] == 1
    assert sim.sleeping == ["box"]
    assert sim.step()["contacts"] == 0
    z = sim.state()["positions"][1, 2]
    sim.apply_force("box", [80.0, 0, 0])
    assert sim.sleeping == []
    sim.step(100)
    vx = sim.state()["velocities"][1, 0]
    # (the first step goes from sticking to sliding)
    assert vx == pytest.approx((80.0 / 10.0 - 0.5 * G) * 0.1, rel=5e-3)
    assert sim.state()["positions"][1, 2] == pytest.approx(z, abs=1e-6)
    sim.clear_forces()
    sim.step(500)
    assert sim.sleeping == ["box"]
    sim.wake_up("box")
    assert sim.sleeping == []
    with pytest.raises(ValueError, match="no body named 'bx'"):
        sim.wake_up("bx")


def test_run_scene_counts_the_sleeping_bodies_per_step(scenes_dir):
    r = sapcontact.run_scene(scenes_dir / "box_rest.yaml",
                             overrides={"solver.sleep": True}, duration=0.5)
    asleep = r.steps["sleeping_bodies"]
    assert asleep.shape == (500,)
    # Still from the start (released at rest on the ground): asleep once
    # sleep_time (0.2 s) has passed, then no contacts and no iterations.
    assert asleep[0] == 0 and asleep[-1] == 1
    first = int(np.argmax(asleep == 1))
    assert 200 <= first < 300
    assert np.all(r.steps["contacts"][first + 1:] == 0)
    assert np.all(r.steps["newton_iterations"][first + 1:] == 0)


def test_gains_and_targets_for_every_joint_at_run_time(source_dir):
    # The SCARA arm of examples/python has no actuation in its scene: gains
    # for both joints in one call, then targets for both; the implicit PD
    # brings the arm (joints about the vertical: no gravity load) to them.
    sim = sapcontact.Simulation(source_dir / "examples" / "python" /
                                "scara_push.yaml")
    assert sim.joint_names("arm") == ["joint1", "joint2"]
    with pytest.raises(ValueError, match="has no actuation: give it gains"):
        sim.set_actuation_targets("arm", [0.0, 0.0])
    sim.set_actuation_gains("arm", kp=400.0, kd=np.full(2, 40.0))
    target = np.array([0.3, -0.4])
    sim.set_actuation_targets("arm", target)
    sim.step(1000)
    state = sim.robot_state("arm")
    assert np.max(np.abs(state["q"] - target)) < 1e-4
    assert np.max(np.abs(state["v"])) < 1e-3
    sim.set_actuation_gains("arm", 900.0, 60.0, joint="joint1")
    with pytest.raises(ValueError, match=r"kp \+ kd > 0"):
        sim.set_actuation_gains("arm", 0.0, 0.0, joint="joint2")
    with pytest.raises(ValueError, match="nearest: joint2"):
        sim.set_actuation_gains("arm", 1.0, 1.0, joint="jiont2")


def test_run_scene_returns_link_frames(scenes_dir):
    # RunResult.robots[name]: link poses per output frame, the Simulation's
    # link_pose at the same state.
    run = sapcontact.run_scene(scenes_dir / "arm_push.yaml",
                               overrides={"output.every": 50}, duration=0.2)
    arm = run.robots["pusher"]
    nf, nl = len(run.times), len(arm["links"])
    assert arm["link_positions"].shape == (nf, nl, 3)
    assert arm["link_quaternions"].shape == (nf, nl, 4)
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    sim.set_robot_state("pusher", q=arm["q"][-1], v=arm["v"][-1])
    for k, link in enumerate(arm["links"]):
        p, quat = sim.link_pose("pusher", link)
        assert np.allclose(arm["link_positions"][-1, k], p, rtol=0,
                           atol=1e-12)
        assert np.allclose(arm["link_quaternions"][-1, k] * np.sign(
            arm["link_quaternions"][-1, k] @ quat), quat, rtol=0, atol=1e-12)
