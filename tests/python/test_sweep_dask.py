"""sapcontact.sweep(..., client=...) on a Dask LocalCluster of two worker
processes (docs/studies.md, "Running on a cluster"): the table equals the
serial sweep's (timings aside), and a worker killed in the middle of the
sweep loses no point (the scheduler runs its tasks again)."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import sapcontact

distributed = pytest.importorskip(
    "distributed", reason="Dask needs python3-distributed (scripts/setup)")

TIMINGS = {"wall_time_s", "solver_time_s", "collision_time_s", "us_per_step"}
VARY = {"time_step": [1e-3, 2e-3, 4e-3],
        "materials.default.stiffness": [1e5, 1e6, 1e7, float("inf")]}
FIXED = {"duration": 2.0}  # stack: 0.05 to 0.2 s per run


def assert_same_table(a, b):
    assert a.columns == b.columns
    for column in a.columns:
        if column not in TIMINGS:
            np.testing.assert_array_equal(a[column], b[column],
                                          err_msg=column)


@pytest.fixture(scope="module")
def client():
    # The recipe of docs/studies.md: worker processes with one thread each
    # (the nanny pins OMP/BLAS threads to 1).
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True,
        dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def omp_threads():
    return os.environ.get("OMP_NUM_THREADS"), os.environ.get(
        "OPENBLAS_NUM_THREADS")


def test_dask_sweep_equals_the_serial_sweep(client, scenes_dir, tmp_path):
    # One thread per worker, BLAS and OpenMP pinned to one thread.
    assert set(client.nthreads().values()) == {1}
    assert set(client.run(omp_threads).values()) == {("1", "1")}
    scene = scenes_dir / "stack.yaml"
    serial = sapcontact.sweep(scene, VARY, FIXED, jobs=1)
    dask = sapcontact.sweep(scene, VARY, FIXED, client=client,
                            journal=tmp_path / "sweep.journal")
    assert len(dask) == 12
    assert_same_table(dask, serial)
    # Resuming the finished journal submits nothing and gives the same.
    again = sapcontact.sweep(scene, VARY, FIXED, client=client,
                             journal=tmp_path / "sweep.journal", resume=True)
    assert_same_table(again, serial)
    np.testing.assert_array_equal(again["wall_time_s"], dask["wall_time_s"])


def test_a_worker_killed_mid_sweep_loses_no_point(client, scenes_dir):
    scene = scenes_dir / "stack.yaml"
    serial = sapcontact.sweep(scene, VARY, FIXED, jobs=1)
    pids = client.run(os.getpid)
    result = {}

    def run():
        result["table"] = sapcontact.sweep(scene, VARY, FIXED, client=client)

    thread = threading.Thread(target=run)
    thread.start()
    # Kill a worker while it runs a point.
    deadline = time.monotonic() + 120
    victim = None
    while victim is None:
        assert time.monotonic() < deadline, "no task started"
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            victim = busy[0]
        else:
            time.sleep(0.01)
    assert thread.is_alive(), "the sweep ended before the kill"
    os.kill(pids[victim], signal.SIGKILL)
    thread.join(timeout=600)
    assert not thread.is_alive()
    assert "table" in result
    assert len(result["table"]) == 12
    assert_same_table(result["table"], serial)
    # The nanny started a new worker in place of the killed one.
    client.wait_for_workers(2, timeout=60)
    assert pids[victim] not in client.run(os.getpid).values()
