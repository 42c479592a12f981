"""examples/python: each program checks its own physics and exits 1 when it
is wrong; here they run as a user runs them."""

import os
import subprocess
import sys

import pytest


def run_example(source_dir, name, *args, cwd=None):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, str(source_dir / "examples" / "python" / name),
         *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_solver_example(source_dir):
    r = run_example(source_dir, "solve_box.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "status converged" in r.stdout
    assert "sum of normal impulses / (m g dt) = 1.000000000" in r.stdout


def test_study_example_draws_the_docs_picture(source_dir, tmp_path):
    png = tmp_path / "near_rigid_penetration.png"
    r = run_example(source_dir, "near_rigid_penetration.py", "--out",
                    str(png))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("13 runs") == 3
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 20000  # a drawn figure, not an empty one


def test_study_example_fails_loudly_on_a_missing_scene(source_dir,
                                                      tmp_path):
    r = run_example(source_dir, "near_rigid_penetration.py", "--scene",
                    str(tmp_path / "none.yaml"), "--out",
                    str(tmp_path / "x.png"))
    assert r.returncode != 0 and "none.yaml" in r.stderr
    assert not (tmp_path / "x.png").exists()


def test_controller_example_pushes_the_box_to_its_target(source_dir):
    r = run_example(source_dir, "push_box_to_target.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK: the box reached the target" in r.stdout
    final = [line for line in r.stdout.splitlines()
             if line.startswith("final:")]
    assert len(final) == 1 and "mm from the target" in final[0]
    millimetres = float(final[0].split(" mm from the target")[0].split()[-1])
    assert millimetres <= 20.0


def test_controller_example_fails_when_it_cannot_reach(source_dir):
    # Too little time to get there: the example must say so and exit 1.
    r = run_example(source_dir, "push_box_to_target.py", "--duration", "0.5")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAILED: the box did not reach the target" in r.stderr


def test_optimization_example_pushes_the_box_with_exact_gradients(
        source_dir):
    r = run_example(source_dir, "optimize_push.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK: the box ends at the target at rest" in r.stdout
    agreement = [line for line in r.stdout.splitlines()
                 if "largest difference" in line]
    assert len(agreement) == 1
    assert float(agreement[0].split("largest difference ")[1].split()[0]) \
        < 1e-4
    finals = [line for line in r.stdout.splitlines()
              if line.startswith("final (")]
    assert len(finals) == 2
    for line in finals:
        millimetres = float(line.split(" mm from the target")[0].split()[-1])
        assert millimetres < 1.0


ATLAS = "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf"


@pytest.mark.skipif(not os.path.exists(ATLAS),
                    reason="Debian package dart-doc")
def test_atlas_stands_under_gains_set_from_python(source_dir):
    r = run_example(source_dir, "atlas_stand.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Atlas: 27 joints" in r.stdout
    assert "OK: Atlas stood on its own" in r.stdout
    assert "overlap by" not in r.stdout  # the collision filter covers Atlas
    upright = float(r.stdout.split("upright for ")[1].split(" s")[0])
    assert upright >= 1.0


def test_work_precision_study_shows_error_control_winning_on_the_impact(
        source_dir, tmp_path):
    png = tmp_path / "wp.png"
    r = run_example(source_dir, "work_precision.py", "--out", str(png))
    assert r.returncode == 0, r.stdout + r.stderr
    assert png.stat().st_size > 10000
    rows = [line for line in r.stdout.splitlines()
            if line.startswith("| ball_bounce | error_controlled")]
    assert len(rows) == 3
    assert "error control reaches errors no cheaper fixed run reaches" \
        in r.stdout
