"""MuJoCo MJCF models from Python (docs/robots.md "Running MJCF files"):
Simulation("model.xml") runs the file as its scene, with its time step,
warnings for what it does not apply, and its robots' dynamics; a broken
file is a ValueError naming the line."""

import gzip
import pathlib

import numpy as np
import pytest

import sapcontact

GYM = pathlib.Path("/usr/share/doc/dart/data/mjcf/openai")


def test_inverted_double_pendulum_runs_with_its_time_step_and_warnings():
    sim = sapcontact.Simulation(GYM / "inverted_double_pendulum.xml")
    assert sim.time_step == pytest.approx(0.01)
    assert sim.robot_names == ["cart"]
    # Its one motor drives the cart's slider: gear 500, control in [-1, 1].
    assert sim.actuator_names("cart") == ["slide"]
    with pytest.raises(ValueError, match="has 1 actuator, not 2"):
        sim.set_controls("cart", [0.0, 0.0])
    sim.set_controls("cart", [3.0])
    assert sim.controls("cart").tolist() == [3.0]
    for _ in range(50):
        sim.step()
    assert sim.time == pytest.approx(0.5)
    # Pushed along +x by 500 N (the control clamped to 1).
    assert sim.robot_state("cart")["q"][0] > 0.1
    # The cart slides on its rail (a prismatic joint from the welded world
    # link), the two poles hinge: M is 3 x 3, symmetric positive definite.
    m = sim.mass_matrix("cart")
    assert m.shape == (3, 3)
    assert np.allclose(m, m.T)
    assert np.all(np.linalg.eigvalsh(m) > 0)


def test_humanoid_falls(tmp_path):
    xml = tmp_path / "humanoid.xml"
    xml.write_bytes(gzip.decompress((GYM / "humanoid.xml.gz").read_bytes()))
    sim = sapcontact.Simulation(xml, overrides=["duration=0.5"])
    z0 = sim.center_of_mass("torso")[2]
    n = 30  # 0.09 s at the file's 3 ms: the feet (0.107 m up) still fly
    for _ in range(n):
        sim.step()
    z = sim.center_of_mass("torso")[2]
    # Free fall of the centre of mass, stepped: v_k = k g dt, so the drop
    # is g dt^2 n (n + 1) / 2 (the knees, which start outside their range,
    # move inside the body without moving its centre of mass). To 1e-4:
    # positions follow the joints' rotations, not the centre of mass's
    # velocity (measured 1.8e-5).
    dt = sim.time_step
    assert z0 - z == pytest.approx(9.81 * dt * dt * n * (n + 1) / 2,
                                   rel=1e-4)


def test_a_broken_file_names_its_line(tmp_path):
    xml = tmp_path / "broken.xml"
    xml.write_text("<mujoco>\n<worldbody>\n<body pos='1 x 0'><joint/>"
                   "<geom size='1'/></body></worldbody></mujoco>\n")
    with pytest.raises(ValueError, match=r"broken.xml:3: <body>: "
                       r"pos=\"1 x 0\" is not 3 finite numbers"):
        sapcontact.Simulation(xml)
