"""SapSolver.derivatives and SapSolver.vjp (docs/theory.md §20) against
central finite differences of whole solves from numpy, and reverse mode
against forward mode."""

import numpy as np
import pytest

import sapcontact

FRAME = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
CORNERS = [(-0.05, -0.05), (-0.05, 0.05), (0.05, -0.05), (0.05, 0.05)]


def ground_jacobian(p):
    skew = np.array(
        [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]]
    )
    return FRAME @ np.hstack([np.eye(3), -skew])


def box_problem(v_star, phi0=(-1e-4, -0.9e-4, -0.8e-4, -0.7e-4),
                friction=0.4, stiffness=1e5, tau=0.01, dt=1e-3):
    """A 1 kg, 10 cm box on its four bottom corners."""
    p = sapcontact.SapProblem(time_step=dt)
    t = p.add_tree(A=np.diag([1.0, 1, 1, 1 / 600, 1 / 600, 1 / 600]),
                   v_star=v_star)
    for k, (x, y) in enumerate(CORNERS):
        p.add_contact(tree=t, J=ground_jacobian([x, y, -0.05]),
                      phi0=phi0[k], stiffness=stiffness,
                      dissipation_time_scale=tau, friction=friction[k]
                      if np.ndim(friction) else friction)
    return p


SOLVER = sapcontact.SapSolver(rel_tolerance=1e-13, abs_tolerance=1e-16)


def solve(p, guess=None):
    r = SOLVER.solve(p, guess)
    assert r.converged, r.message
    return r


V_SLIDING = [0.8, 0.3, -9.81e-3, 0.0, 0.0, 0.2]


def test_derivatives_match_central_differences_of_whole_solves():
    p0 = box_problem(V_SLIDING)
    r0 = solve(p0)
    d = SOLVER.derivatives(p0, r0)
    assert d["dv_dvstar"].shape == (6, 6)
    assert d["dgamma_dvstar"].shape == (4, 3, 6)
    assert d["dv_dphi0"].shape == (6, 4)
    assert d["dgamma_dtime_step"].shape == (4, 3)
    assert d["region"] == ["sliding"] * 4
    assert np.all(d["boundary_distance"] > 1e-4)
    assert d["scaled_residual"] < 1e-10

    def fd(make, h):
        plus, minus = solve(make(h), r0.v), solve(make(-h), r0.v)
        return ((plus.v - minus.v) / (2 * h),
                (plus.gamma - minus.gamma) / (2 * h))

    def close(an, num):
        scale = max(np.linalg.norm(an), 1e-9)
        assert np.linalg.norm(an - num) <= 1e-6 * scale, (an, num)

    for j in range(6):
        def make(h, j=j):
            v = np.array(V_SLIDING)
            v[j] += h
            return box_problem(v)
        dv, dg = fd(make, 1e-7)
        close(d["dv_dvstar"][:, j], dv)
        close(d["dgamma_dvstar"][:, :, j], dg)
    base_phi0 = np.array([-1e-4, -0.9e-4, -0.8e-4, -0.7e-4])
    for k in range(4):
        def make(h, k=k):
            phi0 = base_phi0.copy()
            phi0[k] += h
            return box_problem(V_SLIDING, phi0=phi0)
        dv, dg = fd(make, 1e-9)
        close(d["dv_dphi0"][:, k], dv)
        close(d["dgamma_dphi0"][:, :, k], dg)

        def make(h, k=k):
            mu = np.full(4, 0.4)
            mu[k] += h
            return box_problem(V_SLIDING, friction=mu)
        dv, dg = fd(make, 1e-7)
        close(d["dv_dfriction"][:, k], dv)
        close(d["dgamma_dfriction"][:, :, k], dg)
    # The shared parameters move every contact: their Jacobians' row sums.
    dv, dg = fd(lambda h: box_problem(V_SLIDING, stiffness=1e5 + h), 0.1)
    close(d["dv_dstiffness"].sum(axis=1), dv)
    close(d["dgamma_dstiffness"].sum(axis=2), dg)
    dv, dg = fd(lambda h: box_problem(V_SLIDING, tau=0.01 + h), 1e-8)
    close(d["dv_ddissipation"].sum(axis=1), dv)
    dv, dg = fd(lambda h: box_problem(V_SLIDING, dt=1e-3 + h), 1e-9)
    close(d["dv_dtime_step"], dv)
    close(d["dgamma_dtime_step"], dg)


def test_vjp_is_the_transpose_of_the_jacobians():
    p = box_problem(V_SLIDING)
    r = solve(p)
    d = SOLVER.derivatives(p, r)
    rng = np.random.default_rng(3)
    a, c = rng.standard_normal(6), rng.standard_normal((4, 3))
    g = SOLVER.vjp(p, r, dL_dv=a, dL_dgamma=c)
    for name in ["vstar", "phi0", "stiffness", "dissipation", "friction"]:
        expected = (a @ d["dv_d" + name]
                    + np.einsum("ki,kij->j", c, d["dgamma_d" + name]))
        np.testing.assert_allclose(g["dL_d" + name], expected, rtol=1e-9,
                                   atol=1e-12 * np.abs(expected).max())
    expected = a @ d["dv_dtime_step"] + np.sum(c * d["dgamma_dtime_step"])
    assert g["dL_dtime_step"] == pytest.approx(expected, rel=1e-9)
    # Either gradient may be left out (zero); a flat dL_dgamma is accepted.
    only_v = SOLVER.vjp(p, r, dL_dv=a)
    np.testing.assert_allclose(only_v["dL_dvstar"], a @ d["dv_dvstar"],
                               rtol=1e-9, atol=1e-12)
    flat = SOLVER.vjp(p, r, dL_dgamma=c.reshape(-1))
    np.testing.assert_allclose(
        flat["dL_dfriction"], np.einsum("ki,kij->j", c, d["dgamma_dfriction"]),
        rtol=1e-9, atol=1e-12)


def test_sticking_and_separated_contacts_report_their_regions():
    sticking = box_problem([0.001, 0.0, -9.81e-3, 0, 0, 0])
    d = SOLVER.derivatives(sticking, solve(sticking))
    assert d["region"] == ["stiction"] * 4
    lifted = box_problem(V_SLIDING, phi0=(1e-2,) * 4)
    d = SOLVER.derivatives(lifted, solve(lifted))
    assert d["region"] == ["no_contact"] * 4
    np.testing.assert_allclose(d["dv_dvstar"], np.eye(6), atol=1e-12)
    assert not d["dv_dphi0"].any()


def test_bad_input_raises_value_error():
    p = box_problem(V_SLIDING)
    r = solve(p)
    with pytest.raises(ValueError, match="dL_dv"):
        SOLVER.vjp(p, r, dL_dv=np.zeros(5))
    unconverged = sapcontact.SapSolver(max_iterations=1,
                                       rel_tolerance=1e-15).solve(p)
    assert not unconverged.converged
    with pytest.raises(ValueError, match="converge"):
        SOLVER.derivatives(p, unconverged)


def box_with_pd(target):
    """The sliding box with PD actuation of its yaw rate (a 1-row
    actuation on coordinate 5)."""
    p = box_problem(V_SLIDING)
    J = np.zeros((1, 6))
    J[0, 5] = 1.0
    p.add_actuation(tree=0, J=J, position=[0.1], target=[target], kp=[5.0],
                    kd=[0.05], feedforward=[0.01])
    return p


def test_derivatives_with_respect_to_a_pd_target():
    p = box_with_pd(0.3)
    r = solve(p)
    d = SOLVER.derivatives(p, r)
    assert d["dv_dactuation_target"].shape == (6, 1)
    assert d["dgamma_dactuation_target"].shape == (4, 3, 1)
    h = 1e-7
    plus, minus = solve(box_with_pd(0.3 + h), r.v), solve(box_with_pd(0.3 - h),
                                                          r.v)
    fd = (plus.v - minus.v) / (2 * h)
    np.testing.assert_allclose(d["dv_dactuation_target"][:, 0], fd,
                               rtol=1e-6, atol=1e-6 * np.abs(fd).max())
    assert np.abs(fd).max() > 1e-3
    g = SOLVER.vjp(p, r, dL_dv=np.ones(6))
    assert g["dL_dactuation_target"] == pytest.approx(
        d["dv_dactuation_target"][:, 0].sum(), rel=1e-9)


def test_step_derivatives_match_whole_steps(scenes_dir):
    """Simulation.step_derivatives: the implicit method (contacts moved in
    closed form) against central differences of whole steps, and the keys
    it reports."""
    sim = sapcontact.Simulation(scenes_dir / "box_slide.yaml")
    sim.step(20)
    d = sim.step_derivatives()
    fd = sim.step_derivatives(method="finite_differences", position_step=1e-7,
                              velocity_step=1e-7, force_step=1e-4)
    nv = len(d["coordinates"])
    assert d["A"].shape == (2 * nv, 2 * nv) and d["B"].shape == (2 * nv, nv)
    for key in ("A", "B"):
        for j in range(d[key].shape[1]):
            scale = max(np.linalg.norm(d[key][:, j]), 1e-6)
            assert np.linalg.norm(d[key][:, j] - fd[key][:, j]) <= 1e-6 * scale
    # A box on a plane: its corners move in closed form.
    assert len(d["region"]) == 4
    assert list(d["differenced_contacts"]) == []
    assert list(d["one_sided"]) == [] and list(d["held_contacts"]) == []


def test_step_derivatives_with_respect_to_pd_targets(scenes_dir):
    """B_targets on the pushing arm (docs/python.md): against whole steps
    with the targets moved, and the columns the document reads."""
    sim = sapcontact.Simulation(scenes_dir / "arm_push.yaml")
    sim.step(1000)
    d = sim.step_derivatives()
    fd = sim.step_derivatives(method="finite_differences", position_step=1e-7,
                              velocity_step=1e-7)
    assert d["targets"] == ["pusher/joint1 target", "pusher/joint2 target",
                            "pusher/joint3 target"]
    nv = len(d["coordinates"])
    assert nv == 21 and d["coordinates"][18:] == [
        "pusher/joint1", "pusher/joint2", "pusher/joint3"]
    assert d["B_targets"].shape == (2 * nv, 3)
    for j in range(3):
        scale = max(np.linalg.norm(d["B_targets"][:, j]), 1e-6)
        assert np.linalg.norm(d["B_targets"][:, j] -
                              fd["B_targets"][:, j]) <= 1e-6 * scale
    # Moving joint1's target forward speeds joint1 up this step.
    dx = d["B_targets"] @ [0.01, 0, 0]
    assert dx[nv + 18] > 0
    # The configuration columns (forward differences of the problem's data)
    # agree with central ones.
    c = sim.step_derivatives(central_differences=True)
    assert np.linalg.norm(d["A"] - c["A"]) <= 1e-6 * np.linalg.norm(c["A"])
