"""Concurrency: solves and runs release the GIL, and threads of a
concurrent.futures.ThreadPoolExecutor give bitwise the results of the same
calls made one after the other (the C++ thread-safety promise, README
"Threads")."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import sapcontact

FRAME = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def point_jacobian(p):
    skew = np.array(
        [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]]
    )
    return FRAME @ np.hstack([np.eye(3), -skew])


def box_rows(seed, rows=6, columns=6):
    """Boxes (6-DOF trees) in stacks of `rows` on the ground, in `columns`
    stacks, each on its 4 corners, with random masses, sizes, penetrations
    and velocities: 4 contacts per box, between neighbours in a stack."""
    rng = np.random.default_rng(seed)
    dt = 1e-3
    p = sapcontact.SapProblem(time_step=dt)
    for c in range(columns):
        below = None
        for r in range(rows):
            m = rng.uniform(0.5, 5.0)
            s = rng.uniform(0.1, 0.3)
            I = m * s * s / 6
            v_star = np.concatenate([
                rng.normal(0.0, 0.05, 3) + [0.0, 0.0, -9.81 * dt],
                rng.normal(0.0, 0.2, 3),
            ])
            t = p.add_tree(A=np.diag([m, m, m, I, I, I]), v_star=v_star)
            for x in (-s / 2, s / 2):
                for y in (-s / 2, s / 2):
                    J = point_jacobian([x, y, -s / 2])
                    phi0 = -rng.uniform(0.0, 1e-4)
                    mu = rng.uniform(0.2, 0.8)
                    if below is None:
                        p.add_contact(tree=t, J=J, phi0=phi0, friction=mu)
                    else:
                        Ja = -point_jacobian([x, y, below[1] / 2])
                        p.add_contact(tree=below[0], J=Ja, second=(t, J),
                                      phi0=phi0, friction=mu)
            below = (t, s)
    return p


PARAMETERS = [
    {},
    {"linear_solver": "cholmod"},
    {"linear_solver": "block_sparse", "islands": False},
    {"near_rigid_threshold": 0.1, "friction_regularization": 1e-4},
]


def solve_all(problems, parameters):
    solver = sapcontact.SapSolver(**parameters)
    return [solver.solve(p) for p in problems]


def test_parallel_solves_equal_serial_solves_bitwise():
    problems = [box_rows(seed) for seed in range(3)]
    serial = [solve_all(problems, k) for k in PARAMETERS]
    for results in serial:
        assert all(r.converged for r in results)
    for _ in range(2):
        with ThreadPoolExecutor(max_workers=4) as pool:
            parallel = list(pool.map(lambda k: solve_all(problems, k),
                                     PARAMETERS))
        for s_list, p_list in zip(serial, parallel):
            for s, p in zip(s_list, p_list):
                assert p.v.tobytes() == s.v.tobytes()
                assert p.gamma.tobytes() == s.gamma.tobytes()
                assert (p.statistics.newton_iterations ==
                        s.statistics.newton_iterations)


def test_parallel_rigid_and_inverse_dynamics_equal_serial():
    problems = [box_rows(seed, rows=2, columns=2) for seed in range(4)]
    rigid = sapcontact.RigidQpSolver()
    serial = [rigid.solve(p) for p in problems]
    v = [np.asarray(sapcontact.SapSolver().solve(p).v) for p in problems]
    serial_id = [sapcontact.calc_inverse_dynamics(p, x)
                 for p, x in zip(problems, v)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(rigid.solve, problems))
        parallel_id = list(pool.map(sapcontact.calc_inverse_dynamics,
                                    problems, v))
    for s, p in zip(serial, parallel):
        assert s.solved and p.impulses.tobytes() == s.impulses.tobytes()
    for s, p in zip(serial_id, parallel_id):
        assert p.gamma.tobytes() == s.gamma.tobytes()


def test_a_solve_releases_the_gil():
    # While a solve runs in a worker thread, the main thread runs Python
    # code: it sees the problem marked as being solved (changing it then
    # raises), which it can only see if the solve let go of the GIL: the
    # mark is set and cleared while the worker holds the GIL.
    problem = box_rows(0, rows=8, columns=8)
    solver = sapcontact.SapSolver(linear_solver="cholmod")
    done = threading.Event()
    seen = []

    def worker():
        for _ in range(200):
            solver.solve(problem)
            if seen:
                break
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    while not done.is_set() and not seen:
        try:
            problem.time_step = problem.time_step
        except RuntimeError as e:
            seen.append(str(e))
    thread.join()
    assert seen, "the main thread never ran during a solve"
    assert "being solved in another thread" in seen[0]


def test_a_shared_solver_serializes_its_solves():
    # One solver object used by several threads: the solves take turns
    # (the C++ object is not reentrant) and every one converges to the
    # serial answer (to the tolerance: the warm data of a shared solver
    # depends on the order).
    problems = [box_rows(seed, rows=3, columns=3) for seed in range(6)]
    serial = [sapcontact.SapSolver().solve(p) for p in problems]
    shared = sapcontact.SapSolver()
    with ThreadPoolExecutor(max_workers=3) as pool:
        parallel = list(pool.map(shared.solve, problems))
    for s, p in zip(serial, parallel):
        assert p.converged
        np.testing.assert_allclose(p.v, s.v, rtol=0,
                                   atol=1e-6 * np.abs(s.v).max())


TIMING = {"wall_time_s", "solver_time_s", "collision_time_s"}


def test_parallel_runs_equal_serial_runs(scenes_dir):
    jobs = [
        ("incline.yaml", {"gravity": [4.905, 0, -8.495709211]}),
        ("stack.yaml", {"duration": 0.3}),
        ("box_slide.yaml", {}),
        ("pendulum.yaml", {"duration": 0.3}),
    ]

    def run(job):
        return sapcontact.run_scene(scenes_dir / job[0], overrides=job[1])

    serial = [run(j) for j in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(run, jobs))
    for s, p in zip(serial, parallel):
        assert p.positions.tobytes() == s.positions.tobytes()
        assert p.velocities.tobytes() == s.velocities.tobytes()
        assert ({k: v for k, v in p.summary.items() if k not in TIMING} ==
                {k: v for k, v in s.summary.items() if k not in TIMING})


def test_simulations_step_in_parallel_threads(scenes_dir):
    def advance(n):
        sim = sapcontact.Simulation(scenes_dir / "box_slide.yaml")
        sim.step(n)
        return sim.state()["positions"]

    serial = [advance(n) for n in (300, 400, 500)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        parallel = list(pool.map(advance, (300, 400, 500)))
    for s, p in zip(serial, parallel):
        assert p.tobytes() == s.tobytes()


def test_solver_threads_give_bitwise_the_one_thread_solve():
    # 36 stacks of 2 boxes: 36 islands, solved on 1, 2 and 3 threads.
    problems = [box_rows(seed, rows=2, columns=36) for seed in range(2)]
    for parameters in ({}, {"linear_solver": "cholmod"}):
        one = solve_all(problems, parameters)
        assert all(r.converged for r in one)
        assert one[0].statistics.islands == 36
        for threads in (2, 3):
            many = solve_all(problems, dict(parameters, threads=threads))
            for s, p in zip(one, many):
                assert p.v.tobytes() == s.v.tobytes()
                assert p.gamma.tobytes() == s.gamma.tobytes()
                assert (p.statistics.newton_iterations ==
                        s.statistics.newton_iterations)
    with pytest.raises(ValueError, match="threads"):
        sapcontact.SapSolver(threads=0)


def test_scene_threads_give_bitwise_the_one_thread_run(scenes_dir):
    runs = [
        sapcontact.run_scene(scenes_dir / "pile.yaml",
                             overrides={"duration": 0.2,
                                        "solver.threads": threads})
        for threads in (1, 2)
    ]
    assert runs[1].positions.tobytes() == runs[0].positions.tobytes()
    assert runs[1].velocities.tobytes() == runs[0].velocities.tobytes()
    sim = sapcontact.Simulation(scenes_dir / "pile.yaml",
                                overrides={"solver.threads": 2})
    sim.step(200)
    state = sim.state()
    moving = ~np.array(state["fixed"])  # run_scene lists moving bodies only
    assert (state["positions"][moving].tobytes() ==
            runs[0].positions[-1].tobytes())
