"""Executors: the registry, a custom one, and Dask on a small LocalCluster (same outputs as local)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuzklab.errors import SweepError
from cuzklab.sweep import Executor, available_executors, get_executor, register_executor, run_sweep
from cuzklab.sweep.runner import close_warm_worker

HERE = Path(__file__).parent
GRID = {"name": "ex", "notebook": str(HERE / "point.ipynb"), "timeout_s": 60,
        "points": [{"mode": "ok", "value": 3}, {"mode": "raise", "value": 2}]}


class InlineExecutor(Executor):
    """Runs points one after the other in this process: the one method an executor needs."""

    ran: list[str] = []

    def run(self, fn, jobs):
        for job in jobs:
            InlineExecutor.ran.append(job["id"])
            yield fn(job)


def _summary(result):
    t = result.table.set_index("label")
    return {label: (row["status"], row["square"] if row["status"] == "ok" else None)
            for label, row in t.iterrows()}


EXPECTED = {"mode=ok value=3": ("ok", 9), "mode=raise value=2": ("failed", None)}


def test_registry_and_a_custom_executor(tmp_path):
    assert {"local", "dask"} <= set(available_executors())
    register_executor("inline", InlineExecutor)
    assert get_executor("inline") is InlineExecutor
    with pytest.raises(SweepError, match="unknown executor 'nope'; available: .*local"):
        get_executor("nope")
    with pytest.raises(TypeError, match="subclass of cuzklab.sweep.Executor"):
        register_executor("bad", dict)
    try:
        result = run_sweep(GRID, out=tmp_path / "inline", executor="inline", progress=False,
                           report=False)
    finally:
        close_warm_worker()  # the inline executor kept a warm worker in this process
    assert _summary(result) == EXPECTED
    assert len(InlineExecutor.ran) == 2


def test_executor_options_are_checked():
    with pytest.raises(SweepError, match="needs --scheduler"):
        get_executor("dask")()
    with pytest.raises(SweepError, match="only applies to --executor dask"):
        get_executor("local")(scheduler="tcp://x:1")
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        get_executor("local")(jobs=0)


def test_dask_executor_on_a_local_cluster_gives_the_same_outputs(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        result = run_sweep(GRID, out=tmp_path / "dask", executor="dask",
                           scheduler=cluster.scheduler_address, progress=False, report=False)
    assert _summary(result) == EXPECTED
    local = run_sweep(GRID, out=tmp_path / "local", jobs=2, progress=False, report=False)
    assert _summary(local) == EXPECTED
    assert sorted(result.table["id"]) == sorted(local.table["id"])
    assert [c for c in result.table.columns if not c.startswith("run.")] == \
        [c for c in local.table.columns if not c.startswith("run.")]
    for r in (result, local):
        files = sorted(p.name for p in (r.out / "points").iterdir())
        assert files == sorted(f"{i}.{ext}" for i in r.table["id"] for ext in ("ipynb", "json"))
