"""SDFormat worlds and models from Python (docs/robots.md "Running SDFormat
files"): Simulation("world.world") runs the file as its scene, with its
step size and static models; <include>s resolve through SDF_PATH; a
broken file is a ValueError naming the line."""

import pathlib

import numpy as np
import pytest

import sapcontact

SDF = pathlib.Path("/usr/share/doc/dart/data/sdf")
MODELS = pathlib.Path(__file__).resolve().parents[2] / "config" / "sdf_models"

pytestmark = pytest.mark.skipif(not SDF.exists(), reason="dart-doc missing")


def test_double_pendulum_world_swings(monkeypatch):
    monkeypatch.setenv("SDF_PATH", str(MODELS))
    sim = sapcontact.Simulation(SDF / "double_pendulum_with_base.world")
    assert sim.time_step == pytest.approx(0.001)
    assert sim.robot_names == ["double_pendulum_with_base"]
    assert any("<light> ignored" in w for w in sim.warnings)
    s0 = sim.robot_state("double_pendulum_with_base")
    assert s0["joints"] == ["upper_joint", "lower_joint"]
    for _ in range(200):
        sim.step()
    s = sim.robot_state("double_pendulum_with_base")
    # The base (a free link) rests on the ground plane; the two revolute
    # joints swing.
    assert np.abs(s["base_q"][:3] - s0["base_q"][:3]).max() < 1e-3
    assert np.abs(s["q"] - s0["q"]).max() > 0.1


def test_an_unresolved_include_names_its_line(monkeypatch):
    monkeypatch.delenv("SDF_PATH", raising=False)
    with pytest.raises(ValueError,
                       match=r"double_pendulum.world:6: .*model://sun"):
        sapcontact.Simulation(SDF / "double_pendulum.world")


def test_a_broken_file_names_its_line(tmp_path):
    sdf = tmp_path / "broken.sdf"
    sdf.write_text('<?xml version="1.0"?>\n<sdf version="1.9">\n'
                   '<model name="m"><link name="a">\n'
                   '<collision name="p"><geometry><plane><normal>0 0 1'
                   '</normal></plane></geometry></collision>\n'
                   '</link></model></sdf>\n')
    with pytest.raises(ValueError, match=r"broken.sdf:4: <collision "
                       r"name='p'>: a <plane> on a moving link"):
        sapcontact.Simulation(sdf)


def test_a_screw_joint_loads_as_fixed_with_a_warning(tmp_path):
    sdf = tmp_path / "screw.sdf"
    sdf.write_text('<?xml version="1.0"?>\n<sdf version="1.9">\n'
                   '<model name="m"><link name="a"/><link name="b"/>\n'
                   '<joint name="s" type="screw"><parent>a</parent>'
                   '<child>b</child><axis><xyz>0 0 1</xyz></axis></joint>\n'
                   '</model></sdf>\n')
    sim = sapcontact.Simulation(sdf)
    assert any("screw.sdf:4: <joint name='s'>: this joint type" in w
               for w in sim.warnings)
