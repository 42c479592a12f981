"""sweep() against `sapsim sweep`, and FCLib files written by `sapsim run
--export-fclib`, read and solved from Python."""

import csv
import math
import subprocess

import numpy as np
import pytest

import sapcontact

VARY = {"materials.default.stiffness": [1e4, 1e5, 1e6]}
# The SAP paper's contact model, whose resting penetration is m g / (n k).
FIXED = {"duration": 0.5, "solver.contact_model": "sap"}
METRICS = ["resting_penetration_m", "max_penetration_m"]


def sapsim_sweep(sapsim, scene, out):
    subprocess.run(
        [str(sapsim), "sweep", str(scene), "--vary",
         "materials.default.stiffness=1e4,1e5,1e6", "--set", "duration=0.5",
         "--set", "solver.contact_model=sap",
         "--metric", METRICS[0], "--metric", METRICS[1], "--out", str(out),
         "--no-plots", "--quiet", "--jobs", "2"],
        check=True)
    with open(out / "sweep.csv") as f:
        return list(csv.DictReader(f))


def test_sweep_matches_sapsim_sweep(sapsim, scenes_dir, tmp_path):
    scene = scenes_dir / "box_rest.yaml"
    rows = sapsim_sweep(sapsim, scene, tmp_path)
    r = sapcontact.sweep(scene, vary=VARY, fixed=FIXED, metrics=METRICS,
                         jobs=2)
    # summary.json's fields are exact in sweep.csv too; metrics and
    # estimates have 9 digits there.
    summary_fields = set(sapcontact.run_scene(scene, duration=1e-3).summary)
    assert r.columns == list(rows[0].keys()) and len(r) == len(rows) == 3
    assert r["index"].dtype == np.int64
    assert r["status"].tolist() == ["ok"] * 3
    for name in r.columns:
        column = r[name]
        for i, row in enumerate(rows):
            cell = row[name]
            if name in ("wall_time_s", "solver_time_s", "collision_time_s"):
                continue
            if column.dtype.kind == "f":
                value = column[i]
                if cell == "":
                    assert math.isnan(value), name
                elif name in summary_fields and name not in METRICS:
                    assert float(cell) == value, name
                else:  # sweep.csv has 9 digits; Python the exact value
                    assert float(cell) == float("%.9g" % value), name
            else:
                assert str(column[i]) == cell, name


def test_sweep_physics_and_threads_equal_processes(scenes_dir):
    # Resting penetration of the compliant box: m g / (n k_pair) with the
    # pair stiffness k / 2 (both bodies' material in series).
    scene = scenes_dir / "box_rest.yaml"
    processes = sapcontact.sweep(scene, vary=VARY, fixed=FIXED,
                                 metrics=METRICS)
    threads = sapcontact.sweep(scene, vary=VARY, fixed=FIXED,
                               metrics=METRICS, workers="threads", jobs=3)
    k_pair = np.array(VARY["materials.default.stiffness"]) / 2
    expected = 10.0 * 9.81 / (4 * k_pair)
    np.testing.assert_allclose(processes["resting_penetration_m"], expected,
                               rtol=2e-3)
    np.testing.assert_allclose(
        processes["estimate_compliant_penetration_m"], expected, rtol=1e-12)
    for name in processes.columns:
        if name.endswith("time_s") and "hover" not in name:
            continue
        a, b = processes[name], threads[name]
        if a.dtype.kind == "f":
            assert a.tobytes() == b.tobytes(), name
        else:
            assert a.tolist() == b.tolist(), name
    df = processes.to_pandas()
    assert list(df.columns) == processes.columns and len(df) == 3
    assert df["resting_penetration_m"].tolist() == \
        processes["resting_penetration_m"].tolist()
    assert processes.dataframe is not None


def test_sweep_axes_spelled_three_ways_and_bad_input(scenes_dir):
    scene = scenes_dir / "box_rest.yaml"
    linked = sapcontact.sweep(
        scene, vary={("solver.near_rigid_threshold", "solver.friction_regularization"):
                     [1.0, 0.5]},
        fixed=["duration=0.05"], metrics=["max_penetration_m"])
    assert linked["solver.near_rigid_threshold"].tolist() == [1.0, 0.5]
    assert linked["solver.friction_regularization"].tolist() == [1.0, 0.5]
    spans = sapcontact.sweep(scene, vary=["time_step=1e-3:4e-3:3:log"],
                             fixed={"duration": 0.02},
                             metrics="max_penetration_m")
    np.testing.assert_allclose(spans["time_step"], [1e-3, 2e-3, 4e-3],
                               rtol=1e-12)
    with pytest.raises(ValueError, match="bodies.crate"):
        sapcontact.sweep(scene, vary={"bodies.crate.mass": [1, 2]})
    with pytest.raises(ValueError, match="no_such_metric"):
        sapcontact.sweep(scene, vary={"time_step": [1e-3]},
                         metrics=["no_such_metric"])
    with pytest.raises(ValueError, match=r"window: 0 is not in \(0, 1\]"):
        sapcontact.sweep(scene, vary={"time_step": [1e-3]}, window=0)
    with pytest.raises(ValueError, match=r"workers: 'fibers'"):
        sapcontact.sweep(scene, vary={"time_step": [1e-3]}, workers="fibers")
    with pytest.raises(TypeError, match=r"vary\['time_step'\]: expected"):
        sapcontact.sweep(scene, vary={"time_step": [object()]})
    with pytest.raises(KeyError, match="not a column"):
        spans["no_such_column"]
    # A run that fails is a row with its error.
    r = sapcontact.sweep(scene, vary={"bodies.box.mass": [1.0, -1.0]},
                         fixed={"duration": 0.02},
                         metrics=["max_penetration_m"])
    assert r["status"].tolist() == ["ok", "error"]
    rigid = sapcontact.sweep(scene, vary={"time_step": [1e-3]},
                             fixed={"materials.default.stiffness": math.inf,
                                    "duration": 0.02},
                             metrics=["max_penetration_m"])
    assert rigid["status"].tolist() == ["ok"]
    assert 0 < rigid["max_penetration_m"][0] < 1e-4  # near-rigid floor
    assert "mass" in r["error"][1] and r["error"][0] == ""
    assert math.isnan(r["max_penetration_m"][1])


@pytest.fixture(scope="module")
def stack_fclib(sapsim, scenes_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("fclib")
    subprocess.run([str(sapsim), "run", str(scenes_dir / "stack.yaml"),
                    "--set", "duration=0.003",
                    "--set", "solver.contact_model=sap",  # a friction cone
                    "--out", str(out / "run"),
                    "--export-fclib", str(out / "stack"), "--quiet"],
                   check=True)
    files = sorted(out.glob("stack-step*.hdf5"))
    assert len(files) == 3
    return files[-1]


def test_fclib_problems_read_and_solved_from_python(stack_fclib):
    p = sapcontact.read_fclib(stack_fclib)
    assert p.kind == "local" and p.num_contacts == 40  # 10 boxes x 4
    W = p.dense("W")
    assert W.shape == (120, 120)
    np.testing.assert_allclose(W, W.T, rtol=0, atol=1e-12 * np.abs(W).max())
    data, indices, indptr, shape = p.csc("W")
    dense = np.zeros(shape)
    for j in range(shape[1]):
        dense[indices[indptr[j]:indptr[j + 1]], j] = \
            data[indptr[j]:indptr[j + 1]]
    assert dense.tobytes() == W.tobytes()
    assert p.q.shape == (120,) and p.f is None and p.mu.shape == (40,)
    assert p.solution is not None  # SAP's impulses of the step
    # The stored impulses solve the stored problem: SAP's regularization is
    # part of W, so they are its rigid-contact solution (to SAP's
    # tolerance), and the rigid QP finds the same impulses.
    rigid = sapcontact.solve_fclib(p, solver="rigid")
    assert rigid.success and rigid.coulomb_residual < 1e-8
    r_sap = np.asarray(p.solution["r"])
    scale = np.abs(r_sap).max()
    np.testing.assert_allclose(rigid.r, r_sap, rtol=0, atol=1e-5 * scale)
    sap = sapcontact.solve_fclib(str(stack_fclib), solver="sap")
    assert sap.success and sap.coulomb_residual < 1e-6
    np.testing.assert_allclose(sap.r, r_sap, rtol=0, atol=1e-5 * scale)
    tighter = sapcontact.solve_fclib(p, solver="sap",
                                     sap_parameters={"rel_tolerance": 1e-12})
    assert tighter.success
    assert tighter.coulomb_residual < sap.coulomb_residual
    # A whole SapSolverParameters brings SAP's compliant defaults (beta =
    # 1): far from the stiff limit, the Coulomb residual is large.
    compliant = sapcontact.solve_fclib(
        p, solver="sap", sap_parameters=sapcontact.SapSolverParameters(),
        continuation=False)
    assert compliant.coulomb_residual > 1e3 * sap.coulomb_residual
    # Normal impulses carry the stack: the 4 ground contacts carry the
    # weight of 10 boxes of 1 kg over one step (1e-3 s), to 1%.
    normal = rigid.r[0::3]
    assert normal.min() >= -1e-12
    with pytest.raises(ValueError, match=r"'M' is not a matrix"):
        p.dense("M")
    with pytest.raises(TypeError, match="sap_parameters: expected "
                                        "SapSolverParameters or a dict"):
        sapcontact.solve_fclib(p, solver="sap", sap_parameters=[1e-3])
    with pytest.raises(TypeError, match="unknown parameter 'rel_tol'"):
        sapcontact.solve_fclib(p, solver="sap",
                               sap_parameters={"rel_tol": 1e-3})
    with pytest.raises(ValueError, match="rel_tolerance"):
        sapcontact.solve_fclib(p, solver="sap",
                               sap_parameters={"rel_tolerance": -1.0})


def test_sweep_body_metrics_give_the_coulomb_stopping_distance(scenes_dir):
    # box_slide: the box launched at v0 = 1 m/s stops after v0^2 / (2 mu g)
    # (Coulomb friction, deceleration mu g); body.box.position gives its
    # final position as three columns, body.box.velocity.x one.
    v0, g = 1.0, 9.81
    mu = [0.2, 0.35, 0.5]
    r = sapcontact.sweep(
        scenes_dir / "box_slide.yaml",
        vary={"materials.default.friction": mu},
        metrics=["body.box.position", "body.box.velocity.x"],
        workers="threads", jobs=2)
    assert r["status"].tolist() == ["ok"] * 3
    for axis in "xyz":
        assert f"body.box.position.{axis}" in r.columns
    assert "body.box.velocity.x" in r.columns
    assert "body.box.velocity.y" not in r.columns
    x = r["body.box.position.x"]
    assert np.all(np.diff(x) < 0)  # more friction, shorter slide
    np.testing.assert_allclose(x, [v0 * v0 / (2 * m * g) for m in mu],
                               rtol=1e-2)
    np.testing.assert_allclose(r["body.box.position.y"], 0, atol=1e-9)
    np.testing.assert_allclose(r["body.box.position.z"], 0.1, atol=1e-3)
    np.testing.assert_allclose(r["body.box.velocity.x"], 0, atol=1e-3)
    with pytest.raises(ValueError, match=r"'bx'.*box"):
        sapcontact.sweep(scenes_dir / "box_slide.yaml",
                         vary={"materials.default.friction": [0.5]},
                         metrics=["body.bx.position"])
