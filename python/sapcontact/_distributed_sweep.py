"""sapcontact.sweep(..., client=...): the points of a sweep mapped over a
Dask ``distributed`` client (docs/studies.md, "Running on a cluster").

Each point is one task: the worker imports sapcontact, runs the point in
its own process without the GIL (``_sweep_point``) and returns the row as
text with exact numbers; the client journals each row as it arrives (when
a journal is given) and builds the table. A worker that dies loses no
point: the scheduler runs its tasks again elsewhere.
"""

import importlib
import json
import os
from typing import Any, List, Optional, Sequence, Tuple, Union

from . import _sapcontact


def _run_point(
    point: Tuple[int, List[str], List[str]],
    scene: str,
    fixed: List[str],
    metrics: List[str],
    window: float,
) -> str:
    """One Dask task: the row of one point as text (on a worker)."""
    index, values, overrides = point
    return _sapcontact._sweep_point(
        scene, fixed, metrics, window, index, values, overrides
    )


def run_with_client(
    client: Any,
    scene: Union[str, "os.PathLike[str]"],
    specs: List[str],
    fixed: List[str],
    metrics: List[str],
    window: float,
    journal: Optional[str],
    resume: bool,
) -> Tuple[List[str], List[List[str]]]:
    """The (columns, rows) of the sweep, its points run as Dask tasks."""
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError as e:  # pragma: no cover (scripts/setup installs it)
        raise ImportError(
            "sweep(client=...) needs dask.distributed (Debian package "
            "python3-distributed)"
        ) from e
    path = os.path.abspath(os.fspath(scene))
    points = _sapcontact._sweep_points(path, specs, fixed, metrics, window)
    record = None
    rows: List[str] = []
    if journal is not None:
        record = _sapcontact._SweepJournal(
            journal, path, specs, fixed, metrics, window, resume
        )
        rows = list(record.recovered())
    done = {json.loads(r)["index"] for r in rows}
    pending: Sequence[Any] = [p for p in points if p[0] not in done]
    if pending:
        futures = client.map(
            _run_point, pending, scene=path, fixed=fixed, metrics=metrics,
            window=window, pure=False,
        )
        for future in distributed.as_completed(futures):
            row = future.result()
            if record is not None:
                record.append(row)
            rows.append(row)
            future.release()
    columns, cells = _sapcontact._sweep_table(specs, metrics, rows)
    return columns, cells
