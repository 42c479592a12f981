"""Error-controlled stepping from Python (docs/theory.md §22): Simulation
steps land on multiples of time_step and follow the error control;
run_scene's summary reports the integrator's work; a tighter accuracy
brings a rebound closer to the ODE's apex (0.1991 m)."""

import pytest

import sapcontact

BALL = """time_step: 1.0e-3
duration: 0.75
collision: {margin: 0}
materials:
  ground: {stiffness: .inf, dissipation_time_scale: 0, model: sap}
  ball: {stiffness: 1.0e5, dissipation_time_scale: 1.0e-3, model: sap}
bodies:
  - {name: ground, fixed: true, shape: {type: plane}, material: ground}
  - {name: ball, shape: {type: sphere, radius: 0.1}, mass: 1.0,
     position: [0, 0, 0.6], material: ball}
"""


def controlled(accuracy):
    return ["integrator.scheme=error_controlled",
            f"integrator.accuracy={accuracy}"]


def test_simulation_steps_land_on_the_time_grid(tmp_path):
    scene = tmp_path / "ball.yaml"
    scene.write_text(BALL)
    sim = sapcontact.Simulation(scene, overrides=controlled(1e-4))
    sim.step(10)
    assert sim.time == pytest.approx(0.01, abs=1e-12)
    sim.step(490)
    assert sim.time == pytest.approx(0.5, abs=1e-12)


def test_a_tighter_accuracy_bounces_closer_to_the_ode(tmp_path):
    scene = tmp_path / "ball.yaml"
    scene.write_text(BALL)
    errors = []
    for accuracy in (1e-5, 1e-7):
        r = sapcontact.run_scene(scene, overrides=controlled(accuracy))
        s = r.summary["integrator"]
        assert s["scheme"] == "error_controlled"
        assert s["accuracy"] == accuracy
        assert s["solves_per_step"] >= 3
        assert s["min_step_s"] < s["max_step_s"] <= 1e-3 * (1 + 1e-9)
        assert s["accepted_steps"] == r.summary["steps"]
        # Frames on the output grid, as a fixed run's: 0, 10 ms, ..., 0.75 s
        # (output.every 10).
        assert len(r.times) == 76
        assert abs(r.times[-1] - 0.75) < 1e-12
        z = r.positions[:, r.body_names.index("ball"), 2]
        lowest = int(z.argmin())
        errors.append(abs(z[lowest:].max() - 0.1 - 0.1991))
    assert errors[1] < errors[0] / 3
    assert errors[1] < 0.01
