"""sapcontact: compliant and near-rigid frictional contact with SAP.

The convex formulation of Castro, Permenter and Han ("An Unconstrained
Convex Formulation of Compliant Contact", IEEE T-RO 2023), from Python:

* the solver: ``SapProblem`` (trees and contacts from numpy arrays),
  ``SapSolver`` (Newton with an exact line search), ``RigidQpSolver`` (the
  rigid-contact cone QP, the stiff limit), ``calc_inverse_dynamics``;
* FCLib problem files: ``read_fclib``, ``solve_fclib``;
* the simulator: ``run_scene`` (a YAML scene to numpy arrays and a summary
  dict), ``Simulation`` (step a scene, read contacts, apply forces);
* parameter studies: ``sweep`` (numpy columns, or a pandas DataFrame).

Conventions (the C++ API's, contact_model/conventions.h): SI units (dt [s],
stiffness [N/m], impulses [N*s]); per-contact vectors are rows (n, t1, t2)
of (num_contacts, 3) arrays in the contact frame, the normal n pointing
from body A into body B, v_c = J v the velocity of B relative to A. C++
``std::invalid_argument`` errors arrive as ``ValueError`` with the same
message; arrays of the wrong shape or type raise ``ValueError`` or
``TypeError`` naming the argument. Solves and runs release the GIL.

Example::

    import numpy as np, sapcontact
    p = sapcontact.SapProblem(time_step=1e-3)
    t = p.add_tree(A=np.eye(3), v_star=[0, 0, -0.01])
    p.add_contact(tree=t, J=[[0, 0, 1], [1, 0, 0], [0, 1, 0]], phi0=-1e-5)
    r = sapcontact.SapSolver().solve(p)
    print(r.status, r.v, r.gamma)
"""

import math as _math
import os
import sys as _sys
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Union,
)

try:
    import numpy as _np
    import numpy.typing as _npt
except ImportError as _e:  # e.g. a pyenv python3 without numpy
    raise ImportError(
        f"sapcontact needs numpy, which {_sys.executable} does not have: use "
        "Debian's /usr/bin/python3 (package python3-numpy), or add "
        "/usr/lib/python3/dist-packages to PYTHONPATH (docs/python.md)"
    ) from _e

try:
    from . import _sapcontact as _extension  # noqa: F401
except ImportError as _e:
    raise ImportError(
        f"the compiled part of sapcontact does not load in "
        f"{_sys.executable} (Python {_sys.version.split()[0]}): it is built "
        "for the interpreter CMake found (Python_EXECUTABLE, by default "
        "/usr/bin/python3); see docs/python.md"
    ) from _e

from ._sapcontact import (  # noqa: F401  (re-exported)
    __version__,
    CalcInverseDynamics,
    FclibProblem,
    FclibResults,
    InverseDynamics,
    RigidQpResults,
    RigidQpSolver,
    RigidQpSolverOptions,
    RigidQpStatus,
    RunResult,
    SapIslandStatistics,
    SapProblem,
    SapResults,
    SapSolver,
    SapSolverParameters,
    SapSolverStatistics,
    SapSolverStatus,
    Simulation,
    SimulationError,
    calc_inverse_dynamics,
    read_fclib,
    run_scene,
    solve_fclib,
)
from . import _sapcontact

__all__ = [
    "__version__",
    "CalcInverseDynamics",
    "FclibProblem",
    "FclibResults",
    "InverseDynamics",
    "RigidQpResults",
    "RigidQpSolver",
    "RigidQpSolverOptions",
    "RigidQpStatus",
    "RunResult",
    "SapIslandStatistics",
    "SapProblem",
    "SapResults",
    "SapSolver",
    "SapSolverParameters",
    "SapSolverStatistics",
    "SapSolverStatus",
    "Simulation",
    "SimulationError",
    "SweepResult",
    "calc_inverse_dynamics",
    "read_fclib",
    "run_scene",
    "solve_fclib",
    "sweep",
]


class SweepResult:
    """The table of a sweep (the columns of ``sweep.csv``) as numpy arrays.

    ``result["time_step"]`` is one column: float64 for numeric columns (an
    empty cell, e.g. an undefined metric, is NaN), ``str`` for text
    (``status``, ``error``, non-numeric varied values); ``index`` is int.
    ``columns`` lists the names in table order: ``index``, the varied keys,
    ``status``, ``error``, the scalar ``summary.json`` fields, the metrics
    and the estimates (docs/studies.md). ``to_pandas()`` (or
    ``dataframe``) gives a pandas DataFrame when pandas is installed.
    """

    def __init__(self, columns: List[str], rows: List[List[str]]):
        self.columns: List[str] = list(columns)
        self._data: Dict[str, _npt.NDArray[Any]] = {}
        for j, name in enumerate(self.columns):
            cells = [row[j] for row in rows]
            self._data[name] = _column_array(name, cells)

    def __getitem__(self, name: str) -> _npt.NDArray[Any]:
        try:
            return self._data[name]
        except KeyError:
            raise KeyError(
                f"{name!r} is not a column of this sweep (columns: "
                f"{', '.join(self.columns)})"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._data

    def __len__(self) -> int:
        return len(self._data["index"]) if "index" in self._data else 0

    def keys(self) -> List[str]:
        return list(self.columns)

    def as_dict(self) -> Dict[str, _npt.NDArray[Any]]:
        """The columns as a dict of numpy arrays, in table order."""
        return dict(self._data)

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (raises ImportError without
        pandas; Debian package python3-pandas)."""
        try:
            import pandas  # type: ignore[import]
        except ImportError as e:
            raise ImportError(
                "SweepResult.to_pandas needs pandas (Debian package "
                "python3-pandas); the numpy columns work without it"
            ) from e
        return pandas.DataFrame(self._data, columns=self.columns)

    @property
    def dataframe(self) -> Any:
        """A pandas DataFrame of the table, or None when pandas is not
        installed."""
        try:
            return self.to_pandas()
        except ImportError:
            return None

    def __repr__(self) -> str:
        return (
            f"<sapcontact.SweepResult {len(self)} rows, "
            f"{len(self.columns)} columns>"
        )


def _column_array(name: str, cells: List[str]) -> _npt.NDArray[Any]:
    if name == "index":
        return _np.array([int(c) for c in cells], dtype=_np.int64)
    if name in ("status", "error"):
        return _np.array(cells, dtype=str)
    values = []
    for c in cells:
        if c == "":
            values.append(_np.nan)
            continue
        try:
            values.append(float(c))
        except ValueError:
            return _np.array(cells, dtype=str)
    return _np.array(values, dtype=_np.float64)


def _value_text(value: Any, what: str) -> str:
    """A scene value as override text: bools true/false, numbers exact
    (repr; infinity as YAML's .inf), sequences as YAML flow lists, strings
    as they are."""
    if isinstance(value, (bool, _np.bool_)):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, _np.integer)):
        return str(int(value))
    if isinstance(value, (float, _np.floating)):
        x = float(value)
        if _math.isinf(x):  # YAML spells infinity .inf
            return ".inf" if x > 0 else "-.inf"
        return ".nan" if _math.isnan(x) else repr(x)
    if isinstance(value, (list, tuple, _np.ndarray)):
        return "[" + ",".join(_value_text(v, what) for v in value) + "]"
    raise TypeError(
        f"{what}: expected numbers, bools, strings or lists as values, got "
        f"{type(value).__name__}"
    )


def _axis_spec(keys: Union[str, Sequence[str]], values: Any) -> str:
    if isinstance(keys, (tuple, list)):
        key = ",".join(keys)
    else:
        key = str(keys)
    if isinstance(values, str):  # "START:STOP:COUNT[:log]" or "a,b,c"
        return f"{key}={values}"
    if isinstance(values, _np.ndarray):
        values = values.tolist()
    if not isinstance(values, (list, tuple)) or len(values) == 0:
        raise ValueError(
            f"vary[{keys!r}]: expected a non-empty list of values or a range "
            f"'START:STOP:COUNT[:log]'"
        )
    return f"{key}=" + ",".join(
        _value_text(v, f"vary[{keys!r}]") for v in values
    )


def sweep(
    scene: Union[str, "os.PathLike[str]"],
    vary: Union[Mapping[Any, Any], Iterable[str]],
    fixed: Optional[Union[Mapping[str, Any], Iterable[str]]] = None,
    metrics: Optional[Sequence[str]] = None,
    jobs: int = 0,
    workers: str = "processes",
    window: float = 0.1,
    journal: Optional[Union[str, "os.PathLike[str]"]] = None,
    resume: bool = False,
    client: Any = None,
) -> SweepResult:
    """Runs a parameter sweep of a scene (``sapsim sweep``) and returns the
    table as numpy columns (``SweepResult``).

    scene: the YAML scene file.
    vary: the varied scene values, one axis per entry, the first varying
    slowest: a dict ``{key: [v1, v2, ...]}`` or ``{key: "START:STOP:COUNT"}``
    (``":log"`` for log spacing), a tuple of keys for linked keys that take
    the same values (``{("solver.near_rigid_threshold",
    "solver.friction_regularization"): [1, 0.1]}``), or a list of
    ``sapsim sweep --vary`` strings (``"time_step=1e-3,1e-2"``). Keys are
    the override keys of docs/scenes.md.
    fixed: overrides applied to every run (as in ``run_scene``).
    metrics: metric names (docs/studies.md); default all but the
    expensive rigid_qp_* ones, as ``sapsim sweep``.
    jobs: parallel runs (<= 0: one per core). workers: "processes" (each
    run in a forked child, as ``sapsim sweep``; the default) or "threads"
    (in this process: the same numbers, docs/solver.md, "Threads").
    window: fraction of each run at its end over which the resting metrics
    are averaged (``sapsim sweep --window``), in (0, 1].
    journal: a file every finished run is appended to durably as it
    completes (the format of ``sapsim sweep``'s ``sweep.journal``); with
    ``resume=True`` only the points it does not hold run (the same scene
    content, values and metrics are required: ValueError otherwise; a
    missing file starts a new journal). Without ``resume`` the file is
    replaced.
    client: a ``dask.distributed.Client``: each point is one task on its
    workers (``jobs`` and ``workers`` are then unused). Start workers with
    one thread each; a worker that dies loses no point (the scheduler runs
    its tasks again). docs/studies.md, "Running on a cluster".

    The columns are those of ``sweep.csv`` with exact numbers (the CSV
    rounds metrics to 9 digits). Raises ValueError for a bad axis, key,
    value or metric name, before any run starts; a run that fails is a row
    whose ``status`` is "error" (its ``error`` says why); a run with failed
    solver steps has ``status`` "failed_steps". The GIL is released while
    the runs go on.
    """
    if not (0.0 < float(window) <= 1.0):
        raise ValueError(f"window: {window!r} is not in (0, 1]")
    if isinstance(vary, Mapping):
        specs = [_axis_spec(k, v) for k, v in vary.items()]
    elif isinstance(vary, str):
        specs = [vary]
    else:
        specs = [str(s) for s in vary]
    if isinstance(fixed, Mapping) or fixed is None:
        fixed_list = [
            f"{k}={_value_text(v, f'fixed[{k!r}]')}"
            for k, v in (fixed or {}).items()
        ]
    else:
        fixed_list = [str(s) for s in fixed]
    if isinstance(metrics, str):
        metrics = [metrics]
    if resume and journal is None:
        raise ValueError("resume: True needs journal=PATH (the file to "
                         "resume from)")
    if client is not None:
        from ._distributed_sweep import run_with_client

        columns, rows = run_with_client(
            client, scene, specs, fixed_list, list(metrics or []),
            float(window), None if journal is None else os.fspath(journal),
            bool(resume),
        )
    else:
        columns, rows = _sapcontact._sweep(
            scene, specs, fixed_list, list(metrics or []), int(jobs), workers,
            float(window), "" if journal is None else os.fspath(journal),
            bool(resume),
        )
    return SweepResult(columns, rows)
