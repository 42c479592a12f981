"""Robot dynamics in Python (docs/robots.md "Robot dynamics"): the mass
matrix, bias and gravity forces and the centre of mass against finite
differences of the simulator's own energies and kinematics, and gravity
compensation holding the KR5 of Debian's dart-doc still for 2 s. (The
same algorithms agree with Orocos KDL to 1e-10 on these robots:
tests/multibody/kdl_comparison_test.cc.)"""

import pathlib

import numpy as np
import pytest

import sapcontact

KR5 = pathlib.Path("/usr/share/doc/dart/data/urdf/KR5/KR5 sixx R650.urdf")


def arm_scene(tmp_path, scenes_dir, floating):
    """arm7 without ground or actuation, at a bent pose."""
    urdf = scenes_dir / "robots" / "arm7.urdf"
    text = f"""time_step: 1.0e-3
duration: 1.0
robots:
  - name: arm
    urdf: {urdf}
    base: {{position: [0.1, -0.2, 1.0], rpy: [0.3, -0.2, 0.5], fixed: {str(not floating).lower()}}}
"""
    path = tmp_path / f"arm_{floating}.yaml"
    path.write_text(text)
    return sapcontact.Simulation(path)


def set_joints(sim, q, v=None):
    sim.set_robot_state("arm", q=q, v=v)


@pytest.mark.parametrize("floating", [False, True])
def test_mass_matrix_is_the_kinetic_energy(tmp_path, scenes_dir, floating):
    sim = arm_scene(tmp_path, scenes_dir, floating)
    rng = np.random.default_rng(3)
    n = len(sim.joint_names("arm"))
    set_joints(sim, rng.uniform(-1.5, 1.5, n))
    M = sim.mass_matrix("arm")
    nv = M.shape[0]
    assert nv == n + (6 if floating else 0)
    assert np.allclose(M, M.T, rtol=0, atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > 0
    for _ in range(3):
        v = rng.uniform(-1, 1, nv)
        set_joints(sim, None, v)
        ke = 0.5 * v @ M @ v
        assert abs(ke - sim.kinetic_energy()) <= 1e-12 * max(1.0, ke)


def test_gravity_forces_are_the_potential_energys_gradient(tmp_path,
                                                           scenes_dir):
    sim = arm_scene(tmp_path, scenes_dir, floating=False)
    rng = np.random.default_rng(4)
    q = rng.uniform(-1.5, 1.5, len(sim.joint_names("arm")))
    set_joints(sim, q, np.zeros_like(q))
    g = sim.gravity_forces("arm")
    h = 1e-6
    fd = np.zeros_like(q)
    for i in range(len(q)):
        e = np.zeros_like(q)
        e[i] = h
        set_joints(sim, q + e)
        plus = sim.potential_energy()
        set_joints(sim, q - e)
        fd[i] = (plus - sim.potential_energy()) / (2 * h)
    assert np.max(np.abs(g - fd)) <= 1e-7 * max(1.0, np.max(np.abs(g)))
    # bias_forces at v = 0 is the gravity part.
    set_joints(sim, q, np.zeros_like(q))
    assert np.array_equal(sim.bias_forces("arm"), sim.gravity_forces("arm"))


def test_bias_forces_are_the_christoffel_terms(tmp_path, scenes_dir):
    # c(q, v) - g(q) = dM/dt v - 1/2 d(v' M v)/dq, with dM/dt and the
    # gradient by central differences of mass_matrix.
    sim = arm_scene(tmp_path, scenes_dir, floating=False)
    rng = np.random.default_rng(5)
    n = len(sim.joint_names("arm"))
    q, v = rng.uniform(-1.5, 1.5, n), rng.uniform(-2, 2, n)
    h = 1e-6

    def mass(x):
        set_joints(sim, x)
        return sim.mass_matrix("arm")

    dM = [(mass(q + h * np.eye(n)[i]) - mass(q - h * np.eye(n)[i])) / (2 * h)
          for i in range(n)]
    Mdot = sum(dM[i] * v[i] for i in range(n))
    grad = np.array([v @ dM[i] @ v for i in range(n)])
    expected = Mdot @ v - 0.5 * grad
    set_joints(sim, q, v)
    coriolis = sim.bias_forces("arm") - sim.gravity_forces("arm")
    assert np.max(np.abs(coriolis - expected)) <= 1e-7 * max(
        1.0, np.max(np.abs(expected)))


@pytest.mark.parametrize("floating", [False, True])
def test_center_of_mass_jacobian(tmp_path, scenes_dir, floating):
    sim = arm_scene(tmp_path, scenes_dir, floating)
    rng = np.random.default_rng(6)
    n = len(sim.joint_names("arm"))
    set_joints(sim, rng.uniform(-1.5, 1.5, n))
    J = sim.center_of_mass_jacobian("arm")
    # The centre of mass moves with J v: one step of the kinematics, by
    # central differences of set_robot_state along v (joints only; a
    # floating base's columns against its linear velocity).
    masses = sim.link_inertias("arm")["mass"]
    assert J.shape == (3, len(sim.mass_matrix("arm")))
    q0 = sim.robot_state("arm")["q"]
    v = rng.uniform(-1, 1, n)
    h = 1e-6
    set_joints(sim, q0 + h * v)
    plus = sim.center_of_mass("arm")
    set_joints(sim, q0 - h * v)
    fd = (plus - sim.center_of_mass("arm")) / (2 * h)
    assert np.max(np.abs(J[:, -n:] @ v - fd)) <= 1e-8
    if floating:
        # A translation of the base moves the centre of mass with it.
        assert np.allclose(J[:, :3], np.eye(3), rtol=0, atol=1e-12)
    assert masses.sum() > 0


def test_limits_and_inertias_are_the_urdfs(tmp_path, scenes_dir):
    sim = arm_scene(tmp_path, scenes_dir, floating=False)
    limits = sim.joint_limits("arm")
    assert limits["joints"] == sim.joint_names("arm")
    assert np.all(limits["lower"] < limits["upper"])
    assert np.all(limits["velocity"] > 0) and np.all(limits["effort"] > 0)
    inertias = sim.link_inertias("arm")
    assert inertias["links"] == sim.link_names("arm")
    assert inertias["com"].shape == (len(inertias["links"]), 3)
    assert inertias["inertia"].shape == (len(inertias["links"]), 3, 3)
    # The docstring's 17.5 kg that moves (config/scenes/arm_hold.yaml).
    assert inertias["mass"][1:].sum() == pytest.approx(17.5, abs=0.05)


@pytest.mark.skipif(not KR5.exists(), reason="Debian package dart-doc")
def test_gravity_compensation_holds_the_kr5(tmp_path):
    text = f"""time_step: 1.0e-3
duration: 2.0
robots:
  - name: kr5
    urdf: "{KR5}"
    base: {{position: [0, 0, 0.5], rpy: [1.57, 0, 0], fixed: true}}
    joints:
      shoulder_yaw: {{position: 0.4}}
      shoulder_pitch: {{position: 0.8}}
      elbow_pitch: {{position: -0.5}}
      wrist_pitch: {{position: 0.6}}
"""
    path = tmp_path / "kr5_hold.yaml"
    path.write_text(text)
    sim = sapcontact.Simulation(path)
    q0 = sim.robot_state("kr5")["q"].copy()
    for _ in range(2000):
        sim.apply_generalized_forces("kr5", sim.gravity_forces("kr5"))
        sim.step()
    drift = np.max(np.abs(sim.robot_state("kr5")["q"] - q0))
    # Without it the arm falls: checked over a tenth of the time.
    free = sapcontact.Simulation(path)
    free.step(100)
    fall = np.max(np.abs(free.robot_state("kr5")["q"] - q0))
    print(f"[gravity compensation, KR5] drift over 2 s {drift:.2e} rad; "
          f"without it {fall:.2e} rad after 0.1 s")
    assert drift <= 1e-6
    assert fall > 1e-2
