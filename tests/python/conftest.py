"""Shared fixtures of the Python module's tests (tests/python/README.md).

The suite runs under CTest (python.pytest, tests/python/CMakeLists.txt),
which sets the environment below; by hand, from the repository root:

    PYTHONPATH=build/python SAPCONTACT_SAPSIM=build/bin/sapsim \\
    SAPCONTACT_CPP_REFERENCE=build/bin/python_cpp_reference \\
    /usr/bin/python3 -m pytest -q tests/python

SAPCONTACT_SOURCE_DIR defaults to the repository holding this file;
SAPCONTACT_SAPSIM and SAPCONTACT_CPP_REFERENCE default to build/bin/ of it.
"""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import sapcontact

SOURCE_DIR = pathlib.Path(
    os.environ.get(
        "SAPCONTACT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]
    )
)


def _program(variable, name):
    path = pathlib.Path(
        os.environ.get(variable, SOURCE_DIR / "build" / "bin" / name)
    )
    if not path.is_file():
        pytest.fail(
            f"{path} not found: build it (cmake --build build --target {name}) "
            f"or set {variable}"
        )
    return path


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


@pytest.fixture(scope="session")
def scenes_dir():
    return SOURCE_DIR / "config" / "scenes"


@pytest.fixture(scope="session")
def sapsim():
    return _program("SAPCONTACT_SAPSIM", "sapsim")


@pytest.fixture(scope="session")
def cpp_reference():
    """What tests/python/cpp_reference.cc prints: the reference problems
    solved by the C++ API, every double exact."""
    program = _program("SAPCONTACT_CPP_REFERENCE", "python_cpp_reference")
    out = subprocess.run(
        [str(program), "cases"], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out)


@pytest.fixture(scope="session")
def cpp_reference_program():
    return _program("SAPCONTACT_CPP_REFERENCE", "python_cpp_reference")


def hex_array(values):
    """A float64 array from (nested lists of) C99 hex float strings."""
    if isinstance(values, str):
        return np.float64(float.fromhex(values))
    return np.array(
        [hex_array(v) for v in values], dtype=np.float64
    ).reshape(np.shape(values))


def problem_from_reference(data):
    """A sapcontact.SapProblem with the exact inputs of a reference case."""
    p = sapcontact.SapProblem(time_step=float(hex_array(data["time_step"])))
    for tree in data["trees"]:
        p.add_tree(A=hex_array(tree["A"]), v_star=hex_array(tree["v_star"]))
    for c in data["contacts"]:
        second = None
        if "second_tree" in c:
            second = (c["second_tree"], hex_array(c["second_J"]))
        p.add_contact(
            tree=c["tree"],
            J=hex_array(c["J"]),
            second=second,
            phi0=float(hex_array(c["phi0"])),
            stiffness=float(hex_array(c["stiffness"])),
            dissipation_time_scale=float(
                hex_array(c["dissipation_time_scale"])
            ),
            friction=float(hex_array(c["friction"])),
        )
    return p


def assert_bitwise_equal(actual, expected, what):
    """Same shape and the same bits in every entry (not merely ==: -0.0 and
    0.0 differ, NaN equals NaN)."""
    actual = np.ascontiguousarray(actual, dtype=np.float64)
    expected = np.ascontiguousarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape}, expected {expected.shape}"
    )
    if actual.tobytes() != expected.tobytes():
        diff = np.max(np.abs(actual - expected))
        raise AssertionError(
            f"{what}: not bitwise equal (max |difference| {diff:.3e})\n"
            f"actual   {actual!r}\nexpected {expected!r}"
        )
