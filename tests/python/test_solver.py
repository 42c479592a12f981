"""The solver from numpy: SapProblem, SapSolver, RigidQpSolver and
calc_inverse_dynamics, against the C++ API (bitwise) and against closed
forms."""

import json

import numpy as np
import pytest

import sapcontact
from conftest import assert_bitwise_equal, hex_array, problem_from_reference

# Rows (n, t1, t2) = (z, x, y) of a ground contact frame.
FRAME = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def ground_jacobian(p):
    """3 x 6 Jacobian of a ground contact at body-relative point p of a free
    body with velocity (v, w): rows (n, t1, t2) of v + w x p."""
    skew = np.array(
        [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]]
    )
    return FRAME @ np.hstack([np.eye(3), -skew])


def test_the_spelling_of_the_issue_solves_a_box_and_a_second_tree():
    m, g, dt = 10.0, 9.81, 1e-3
    A = np.diag([m, m, m, 0.1, 0.1, 0.1])
    v_star = np.array([0.0, 0.0, -g * dt, 0.0, 0.0, 0.0])
    p = sapcontact.SapProblem(time_step=1e-3)
    t = p.add_tree(A=A, v_star=v_star)
    assert t == 0
    J = ground_jacobian([0.0, 0.0, -0.1])
    p.add_contact(tree=t, J=J, phi0=-1e-5, stiffness=1e6,
                  dissipation_time_scale=0.01, friction=0.5)
    # A 1 kg box on top of the first one: a contact between the two trees.
    u = p.add_tree(A=np.diag([1.0, 1, 1, 0.01, 0.01, 0.01]),
                   v_star=[0, 0, -g * dt, 0, 0, 0])
    assert u == 1
    Ja = -ground_jacobian([0.0, 0.0, 0.1])
    Jb = ground_jacobian([0.0, 0.0, -0.05])
    assert p.add_contact(tree=t, J=Ja, second=(u, Jb), phi0=0.0) == 1
    r = sapcontact.SapSolver().solve(p)
    assert r.status == sapcontact.SapSolverStatus.converged and r.converged
    assert r.v.shape == (12,) and r.gamma.shape == (2, 3)
    assert r.v.dtype == np.float64 and r.gamma.dtype == np.float64
    # Momentum balance A (v - v*) = J' gamma, and J' gamma is what the
    # contacts' Jacobians make of gamma.
    A_all = np.zeros((12, 12))
    A_all[:6, :6] = A
    A_all[6:, 6:] = p.tree(1)[0]
    v_star_all = np.concatenate([v_star, p.tree(1)[1]])
    J_all = np.zeros((6, 12))
    J_all[0:3, 0:6] = J
    J_all[3:6, 0:6] = Ja
    J_all[3:6, 6:12] = Jb
    impulse = J_all.T @ r.gamma.reshape(-1)
    np.testing.assert_allclose(r.generalized_impulse, impulse, rtol=0,
                               atol=1e-15)
    scale = np.abs(A_all @ v_star_all).max()
    np.testing.assert_allclose(A_all @ (r.v - v_star_all), impulse, rtol=0,
                               atol=1e-6 * scale)
    np.testing.assert_allclose(r.v_c.reshape(-1), J_all @ r.v, rtol=0,
                               atol=1e-15)
    # Both contacts push (the upper box rests on the lower one, which the
    # ground carries): gamma_n > 0, and the ground carries more.
    assert r.gamma[0, 0] > r.gamma[1, 0] > 0
    # Statistics are plain Python values.
    s = r.statistics
    assert isinstance(s.newton_iterations, int) and s.newton_iterations >= 1
    assert isinstance(s.cost, list) and all(isinstance(c, float)
                                            for c in s.cost)
    d = s.as_dict()
    json.dumps(d)  # plain values only
    assert d["newton_iterations"] == s.newton_iterations
    assert d["final_cost"] == s.final_cost


REFERENCE_ARRAYS = ["v", "gamma", "v_c", "generalized_impulse", "w", "R_n",
                    "R_t", "effective_stiffness"]


def check_sap_equal(r, ref, what):
    assert r.status.name == ref["status"], what
    assert r.statistics.newton_iterations == ref["newton_iterations"], what
    for name in REFERENCE_ARRAYS:
        expected = hex_array(ref[name])
        actual = getattr(r, name)
        if name in ("gamma", "v_c"):
            assert actual.shape == (len(expected) // 3, 3)
        assert_bitwise_equal(actual.reshape(-1), expected, f"{what}: {name}")
    assert_bitwise_equal(r.statistics.cost, hex_array(ref["cost"]),
                         f"{what}: cost")


CASES = ["pizza_saver_stiction", "pizza_saver_sliding", "two_point_masses",
         "box_on_four_contacts"]


@pytest.mark.parametrize("name", CASES)
def test_solves_are_bitwise_the_cpp_results(cpp_reference, name):
    case = next(c for c in cpp_reference["cases"] if c["name"] == name)
    p = problem_from_reference(case["problem"])
    solver = sapcontact.SapSolver()
    check_sap_equal(solver.solve(p), case["sap"], name)
    # The same solver again, from a guess (the C++ reference did the same).
    r = solver.solve(p, v_guess=hex_array(case["v_guess"]))
    check_sap_equal(r, case["sap_from_guess"], name + " from v_guess")
    # Other parameters, as keywords.
    r = sapcontact.SapSolver(rel_tolerance=1e-10, near_rigid_threshold=0.5,
                             line_search="backtracking").solve(p)
    check_sap_equal(r, case["sap_parameters"], name + " other parameters")
    # Inverse dynamics at the C++ solution.
    v = hex_array(case["sap"]["v"])
    inv = sapcontact.calc_inverse_dynamics(p, v)
    assert_bitwise_equal(inv.gamma.reshape(-1),
                         hex_array(case["inverse_dynamics"]["gamma"]),
                         name + ": inverse dynamics gamma")
    assert_bitwise_equal(
        inv.generalized_impulse,
        hex_array(case["inverse_dynamics"]["generalized_impulse"]),
        name + ": inverse dynamics J' gamma")
    if "rigid" in case:
        q = sapcontact.RigidQpSolver().solve(p)
        ref = case["rigid"]
        assert int(q.status) == ref["status"] and q.solved
        assert q.iterations == ref["iterations"]
        assert_bitwise_equal(q.impulses.reshape(-1),
                             hex_array(ref["impulses"]), name + ": rigid")
        assert_bitwise_equal(q.velocities, hex_array(ref["velocities"]),
                             name + ": rigid velocities")
        assert q.objective == float(hex_array(ref["objective"]))


# The pizza saver of tests/solver/sap/test_problems.h.
PIZZA = dict(m=1.5, r=0.2, g=9.81, dt=1e-3, I_z=0.03, mu=0.5)


def pizza_case(cpp_reference, name):
    case = next(c for c in cpp_reference["cases"] if c["name"] == name)
    return case, problem_from_reference(case["problem"])


def test_pizza_saver_sticks_below_the_friction_torque(cpp_reference):
    # Closed form (tests/solver/sap/pizza_saver_test.cc): v = (0,..,0, w)
    # with w (I_z + 3 r^2 / R_t) = tau dt, gamma_n = m g dt / 3.
    _, p = pizza_case(cpp_reference, "pizza_saver_stiction")
    c = PIZZA
    r = sapcontact.SapSolver().solve(p)
    assert r.converged
    tau = p.tree(0)[1][5] * c["I_z"] / c["dt"]
    assert tau == pytest.approx(0.5 * c["mu"] * c["m"] * c["g"] * c["r"],
                                rel=1e-12)
    R_t = r.R_t[0]
    w = tau * c["dt"] / (c["I_z"] + 3 * c["r"] ** 2 / R_t)
    assert r.v[5] == pytest.approx(w, rel=1e-9)
    np.testing.assert_allclose(r.v[:5], 0.0, atol=1e-9 * c["g"] * c["dt"])
    gn = c["m"] * c["g"] * c["dt"] / 3
    np.testing.assert_allclose(r.gamma[:, 0], gn, rtol=1e-8)
    slip = np.linalg.norm(r.gamma[:, 1:], axis=1)
    np.testing.assert_allclose(slip, c["r"] * w / R_t, rtol=0,
                               atol=1e-8 * gn)
    assert np.all(slip < c["mu"] * r.gamma[:, 0])  # inside the cone


def test_pizza_saver_slides_on_the_cone_above_the_friction_torque(
        cpp_reference):
    _, p = pizza_case(cpp_reference, "pizza_saver_sliding")
    r = sapcontact.SapSolver().solve(p)
    assert r.converged
    mu = PIZZA["mu"]
    np.testing.assert_allclose(np.linalg.norm(r.gamma[:, 1:], axis=1),
                               mu * r.gamma[:, 0], rtol=1e-10)
    # Friction opposes slip; the convex relaxation lifts the sliding body.
    assert np.all(np.sum(r.v_c[:, 1:] * r.gamma[:, 1:], axis=1) < 0)
    assert r.v[2] > 0 and r.v[5] > 0


def test_an_optimal_guess_costs_no_newton_iteration(cpp_reference):
    _, p = pizza_case(cpp_reference, "pizza_saver_sliding")
    solver = sapcontact.SapSolver()
    r = solver.solve(p)
    again = solver.solve(p, v_guess=r.v)
    assert again.converged and again.statistics.newton_iterations == 0
    assert_bitwise_equal(again.v, r.v, "v from the optimal guess")


def test_inverse_dynamics_at_the_solution_is_the_momentum_change(
        cpp_reference):
    _, p = pizza_case(cpp_reference, "pizza_saver_stiction")
    r = sapcontact.SapSolver(rel_tolerance=1e-12).solve(p)
    inv = sapcontact.CalcInverseDynamics(p, r.v)
    A, v_star = p.tree(0)
    momentum = A @ (r.v - v_star)
    np.testing.assert_allclose(inv.generalized_impulse, momentum, rtol=0,
                               atol=1e-10 * np.abs(A @ v_star).max())
    np.testing.assert_allclose(inv.gamma, r.gamma, rtol=1e-9)


def test_rigid_qp_is_the_stiff_limit_of_sap(cpp_reference):
    # With beta = sigma = s -> 0 SAP approaches the rigid QP (docs/theory.md
    # §10): the velocities agree to O(s).
    case, _ = pizza_case(cpp_reference, "pizza_saver_stiction")
    data = json.loads(json.dumps(case["problem"]))
    for c in data["contacts"]:  # rigid contact at zero distance
        c.update(stiffness="inf", dissipation_time_scale="0x0p+0",
                 phi0="0x0p+0")
    p = problem_from_reference(data)
    q = sapcontact.RigidQpSolver(sapcontact.RigidQpSolverOptions()).solve(p)
    assert q.solved and q.impulses.shape == (3, 3)
    errors = []
    for s in [1e-1, 1e-2, 1e-3]:
        r = sapcontact.SapSolver(near_rigid_threshold=s,
                                 friction_regularization=s,
                                 rel_tolerance=1e-12).solve(p)
        assert r.converged
        errors.append(np.abs(r.v - q.velocities).max())
    assert errors[2] < errors[1] < errors[0]
    assert errors[2] < 1e-3 * np.abs(p.tree(0)[1]).max()


def test_joint_limit_actuation_and_weld_constraints():
    dt = 1e-3
    # A joint limit g = q >= 0 on a 1-DOF tree moving towards it at 1 m/s
    # from g0 = 0: the near-rigid limit stops it (v ~ 0), with the impulse
    # that momentum balance needs.
    p = sapcontact.SapProblem(time_step=dt)
    t = p.add_tree(A=[[2.0]], v_star=[-1.0])
    p.add_limit(tree=t, J=[[1.0]], g0=[0.0])
    r = sapcontact.SapSolver().solve(p)
    assert r.converged
    assert abs(r.v[0]) < 0.05
    assert r.constraint_impulses[0] == pytest.approx(2.0 * (r.v[0] + 1.0),
                                                     rel=1e-9)
    # Implicit PD actuation: A (v - v*) = dt (-kp (q0 + dt v - target)
    # - kd v), linear in v while below the effort limit.
    kp, kd, q0, target, A, v_star = 10.0, 1.0, 0.2, 0.0, 1.0, 0.0
    p = sapcontact.SapProblem(time_step=dt)
    t = p.add_tree(A=[[A]], v_star=[v_star])
    p.add_actuation(tree=t, J=[[1.0]], position=[q0], target=[target],
                    kp=[kp], kd=[kd])
    r = sapcontact.SapSolver(rel_tolerance=1e-12).solve(p)
    v = (A * v_star - dt * kp * (q0 - target)) / (A + dt * (kp * dt + kd))
    assert r.converged and r.v[0] == pytest.approx(v, rel=1e-9)
    assert r.constraint_impulses[0] == pytest.approx(A * (v - v_star),
                                                     rel=1e-9)
    # A weld between two 1-DOF trees (g = q_b - q_a = 0) moving apart:
    # momentum is conserved and the relative velocity all but vanishes.
    p = sapcontact.SapProblem(time_step=dt)
    a = p.add_tree(A=[[1.0]], v_star=[1.0])
    b = p.add_tree(A=[[3.0]], v_star=[-1.0])
    p.add_holonomic(tree=a, J=[[-1.0]], second=(b, [[1.0]]), g0=[0.0])
    r = sapcontact.SapSolver().solve(p)
    assert r.converged
    assert 1.0 * r.v[0] + 3.0 * r.v[1] == pytest.approx(-2.0, rel=1e-9)
    assert abs(r.v[1] - r.v[0]) < 0.01 * 2.0


def test_parameters_have_the_cpp_defaults_and_take_keywords():
    d = sapcontact.SapSolverParameters()
    assert d.near_rigid_threshold == 1.0
    assert d.friction_regularization == 1e-3
    assert d.soft_norm_tolerance == 1e-8
    assert d.rel_tolerance == 1e-6 and d.abs_tolerance == 1e-14
    assert d.cost_stall_tolerance == 1e-14 and d.max_iterations == 100
    assert d.line_search == "exact" and d.line_search_slope_ratio == 0.9
    assert d.linear_solver == "auto" and d.stiction_prediction is True
    assert d.supported_delassus_estimate is True
    p = sapcontact.SapSolverParameters(max_iterations=7, linear_solver="dense")
    assert p.max_iterations == 7 and p.linear_solver == "dense"
    s = sapcontact.SapSolver(p, rel_tolerance=1e-9)
    assert s.parameters.max_iterations == 7
    assert s.parameters.rel_tolerance == 1e-9
    # The solver keeps a copy.
    p.max_iterations = 9
    assert s.parameters.max_iterations == 7


def test_problem_accessors_and_copy():
    p = sapcontact.SapProblem(time_step=2e-3)
    p.add_tree(A=np.eye(6), v_star=np.zeros(6), name="box")
    p.add_tree(A=np.eye(3) * 2, v_star=[1, 2, 3])
    p.add_contact(tree=1, J=np.eye(3), phi0=-1e-4, name="c0")
    assert (p.num_trees, p.num_contacts, p.num_velocities) == (2, 1, 9)
    assert p.tree_offsets == [0, 6]
    A, v_star = p.tree(1)
    np.testing.assert_array_equal(A, 2 * np.eye(3))
    np.testing.assert_array_equal(v_star, [1.0, 2.0, 3.0])
    assert p.time_step == 2e-3
    q = p.copy()
    q.add_tree(A=[[1.0]], v_star=[0.0])
    assert (p.num_trees, q.num_trees) == (2, 3)
    p.validate()
    assert "2 trees" in repr(p) and "1 contacts" in repr(p)
    # Integer and list inputs are converted to float64 (copies).
    A_int = np.eye(2, dtype=np.int32)
    p.add_tree(A=A_int, v_star=[0, 0])
    A_int[0, 0] = 5
    assert p.tree(2)[0][0, 0] == 1.0
