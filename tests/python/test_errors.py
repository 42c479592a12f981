"""Bad input: C++ std::invalid_argument arrives as ValueError with the C++
message unchanged; wrong dtypes and shapes are errors naming the argument;
scene errors name file, line and field."""

import numpy as np
import pytest

import sapcontact


def two_dofs(A, v_star=(0.0, 0.0)):
    p = sapcontact.SapProblem()
    p.add_tree(A=A, v_star=v_star, name="arm")
    return p


def raised(f):
    try:
        f()
    except ValueError as e:
        return str(e)
    return ""


def test_cpp_messages_arrive_unchanged(cpp_reference):
    expected = cpp_reference["errors"]
    nonsymmetric = [[1.0, 0.5], [0.0, 1.0]]
    solve = sapcontact.SapSolver().solve
    assert raised(lambda: solve(two_dofs(nonsymmetric))) == \
        expected["nonsymmetric_A"]
    # C++ does not check the matrix of a tree without contacts for positive
    # definiteness (it is not factored); neither does Python.
    assert expected["indefinite_A"] == ""
    assert raised(lambda: solve(two_dofs([[1.0, 2.0], [2.0, 1.0]]))) == ""
    assert raised(lambda: solve(two_dofs(np.eye(2), [0.0, np.nan]))) == \
        expected["nan_v_star"]
    # Contact parameters are checked when the contact is added, with the
    # message C++ gives at the solve.
    p = two_dofs(np.eye(2))
    J = np.zeros((3, 2))
    J[0, 0] = 1.0
    assert raised(lambda: p.add_contact(tree=0, J=J, friction=-1.0,
                                        name="corner")) == \
        expected["negative_friction"]
    assert p.num_contacts == 0  # nothing added
    rigid = sapcontact.RigidQpSolver().solve
    assert raised(lambda: rigid(two_dofs(nonsymmetric))) == \
        expected["rigid_nonsymmetric_A"]
    assert raised(lambda: sapcontact.SapSolver(rel_tolerance=-1.0)) == \
        expected["negative_rel_tolerance"]
    assert raised(lambda: sapcontact.SapSolverParameters(
        near_rigid_threshold=-2.0)) == expected["negative_near_rigid_threshold"]
    assert raised(lambda: sapcontact.SapProblem(time_step=0.0)) == \
        expected["zero_time_step"]
    with pytest.raises(ValueError, match="time_step"):
        sapcontact.SapProblem().time_step = float("inf")


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda p: p.add_tree(A=np.eye(3), v_star=np.zeros(2)), ValueError,
         r"v_star: expected a 1-D array of shape \(3,\), got shape \(2,\)"),
        (lambda p: p.add_tree(A=np.ones(3), v_star=np.zeros(3)), ValueError,
         r"A: expected a 2-D array of shape \(n, n\), got shape \(3,\)"),
        (lambda p: p.add_tree(A=np.ones((2, 3)), v_star=np.zeros(2)),
         ValueError, r"A: expected a square 2-D array"),
        (lambda p: p.add_tree(A=np.eye(2, dtype=complex), v_star=[0, 0]),
         TypeError, r"A: expected an array of real numbers .* got dtype "
                    r"complex128"),
        (lambda p: p.add_tree(A=np.eye(2), v_star=["a", "b"]), TypeError,
         r"v_star: expected an array of real numbers .* got dtype <U1"),
        (lambda p: p.add_tree(A=None, v_star=[0.0]), TypeError,
         r"A: expected an array of real numbers, got None"),
        (lambda p: p.add_tree(A=np.eye(2, dtype=bool), v_star=[0, 0]),
         TypeError, r"A: expected an array of real numbers .* got dtype "
                    r"bool"),
        (lambda p: p.add_contact(tree=0, J=np.zeros((3, 5))), ValueError,
         r"J: expected a 2-D array of shape \(3, 6\), got shape \(3, 5\)"),
        (lambda p: p.add_contact(tree=4, J=np.zeros((3, 6))), ValueError,
         r"tree: 4 is not a tree index \(the problem has 1 trees"),
        (lambda p: p.add_contact(tree=0, J=np.zeros((3, 6)),
                                 second=(0, np.zeros((3, 6)))), ValueError,
         r"second\[0\] \(tree\): the second tree must differ"),
        (lambda p: p.add_contact(tree=0, J=np.zeros((3, 6)),
                                 second=np.zeros((3, 6))), TypeError,
         r"second: expected a pair \(tree, J\)"),
        (lambda p: p.add_contact(tree=0, J=np.zeros((3, 6)), model="soft"),
         ValueError, r"model: 'soft' is not one of 'sap', 'similar', "
                     r"'lagged'"),
        (lambda p: p.add_contact(tree=0, J=np.zeros((3, 6)), stiffness=0.0),
         ValueError, r"contact 0: invalid stiffness = 0 \(must be > 0 N/m"),
        (lambda p: sapcontact.SapSolver().solve(p, v_guess=np.zeros(5)),
         ValueError, r"v_guess: expected a 1-D array of shape \(6,\), got "
                     r"shape \(5,\)"),
        (lambda p: sapcontact.calc_inverse_dynamics(p, v=[0.0]), ValueError,
         r"v: expected a 1-D array of shape \(6,\)"),
        (lambda p: sapcontact.SapSolver(max_iterations="ten"), TypeError,
         r"SapSolverParameters: max_iterations: expected int, got str"),
        (lambda p: sapcontact.SapSolver(rel_tol=1e-3), TypeError,
         r"SapSolverParameters: unknown parameter 'rel_tol'"),
        (lambda p: sapcontact.SapSolver(linear_solver="lu"), ValueError,
         r"linear_solver: 'lu' is not one of 'auto', 'dense', "
         r"'block_sparse', 'cholmod'"),
        (lambda p: sapcontact.RigidQpSolver(max_iters=3), TypeError,
         r"RigidQpSolverOptions: unknown parameter 'max_iters'"),
    ],
)
def test_bad_arguments_name_the_argument(call, error, message):
    p = sapcontact.SapProblem()
    p.add_tree(A=np.eye(6), v_star=np.zeros(6))
    with pytest.raises(error, match=message):
        call(p)


def test_scene_errors_name_file_line_and_field(scenes_dir, tmp_path):
    box_rest = scenes_dir / "box_rest.yaml"
    with pytest.raises(ValueError, match=r"duration"):
        sapcontact.run_scene(box_rest, overrides={"duration": 1e308})
    with pytest.raises(ValueError, match=r"materials\.default\.frictio"):
        sapcontact.run_scene(box_rest,
                             overrides={"materials.default.frictio": 0.3})
    bad = tmp_path / "bad.yaml"
    bad.write_text("time_step: 1.0e-3\nduration: 0.01\nbodies:\n"
                   "  - name: box\n    mass: -1\n"
                   "    shape: {type: box, size: [1, 1, 1]}\n")
    with pytest.raises(ValueError, match=r"bad\.yaml:5.*mass"):
        sapcontact.Simulation(bad)
    with pytest.raises(ValueError, match=r"missing\.yaml"):
        sapcontact.run_scene(tmp_path / "missing.yaml")
    with pytest.raises(TypeError, match=r"path: expected a path"):
        sapcontact.run_scene(3)
    with pytest.raises(TypeError, match=r"overrides: expected a dict"):
        sapcontact.run_scene(box_rest, overrides="duration=1")
    with pytest.raises(TypeError, match=r"duration: expected a number"):
        sapcontact.run_scene(box_rest, duration="1")
    with pytest.raises(ValueError, match=r"output_dir: an empty path"):
        sapcontact.run_scene(box_rest, duration=0.01, output_dir="")
    sim = sapcontact.Simulation(box_rest)
    with pytest.raises(ValueError, match=r"^target: no body named 'crate' "
                                         r"\(nearest: ground, box\)$"):
        sim.apply_force("crate", [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^body: no body named 'bx' "
                                         r"\(nearest: box, ground\)$"):
        sim.set_body_state("bx", velocity=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"force: expected a 1-D array of "
                                         r"shape \(3,\)"):
        sim.apply_force("box", [1.0, 0.0])
    with pytest.raises(ValueError, match=r"'ground' is fixed|does not move"):
        sim.apply_force("ground", [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"n: must be >= 0"):
        sim.step(-1)


def test_a_step_that_cannot_go_on_raises_simulation_error(scenes_dir):
    sim = sapcontact.Simulation(scenes_dir / "box_rest.yaml")
    sim.set_body_state("box", velocity=[np.inf, 0.0, 0.0])
    with pytest.raises(sapcontact.SimulationError, match=r"step 1") as e:
        sim.step(3)
    assert isinstance(e.value, RuntimeError)
    assert "box" in str(e.value)


def test_bad_fclib_files_name_the_file(tmp_path):
    damaged = tmp_path / "damaged.hdf5"
    damaged.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(ValueError, match=r"damaged\.hdf5"):
        sapcontact.read_fclib(damaged)
    with pytest.raises(ValueError, match=r"nothing\.hdf5"):
        sapcontact.read_fclib(tmp_path / "nothing.hdf5")
    with pytest.raises(ValueError, match=r"solver: 'ipopt' is not one of"):
        sapcontact.solve_fclib(damaged, solver="ipopt")


def test_sweep_metric_names_list_what_there_is(scenes_dir):
    scene = scenes_dir / "box_slide.yaml"
    with pytest.raises(ValueError,
                       match=r"metrics: 'penetration': unknown metric "
                             r"\(known: max_penetration_m, .*"
                             r"body\.NAME\.position, body\.NAME\.velocity"):
        sapcontact.sweep(scene, vary={"duration": [0.01]},
                         metrics=["penetration"])
    with pytest.raises(ValueError,
                       match=r"'body\.box\.pos': not a body metric: "
                             r"body\.NAME\.position or body\.NAME\.velocity"):
        sapcontact.sweep(scene, vary={"duration": [0.01]},
                         metrics=["body.box.pos"])
