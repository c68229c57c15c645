"""The daemon notebooks run headless under papermill, and the sweep runner drives one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pandas as pd
import papermill as pm
import pytest

from cuzklab.trace import Trace

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
HERE = Path(__file__).resolve().parent
PY = sys.executable
STANDINS = {
    "daemon_cmd": f"{PY} {HERE / 'standin_daemon.py'} --port {{port}} --partitions 2",
    "bench_cmd": f"{PY} {HERE / 'standin_bench.py'}",
    "bench_addr": "127.0.0.1:{port}",
    "partitions": 2, "partition_workers": 4, "ready_timeout_s": 10.0,
}

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(),
                                reason="the harness reads /proc (Linux)")


def run(name, tmp_path, **parameters):
    out = tmp_path / name
    pm.execute_notebook(str(NOTEBOOKS / name), str(out), parameters=parameters,
                        kernel_name="python3", progress_bar=False, cwd=str(tmp_path),
                        execution_timeout=120)
    nb = nbformat.read(out, as_version=4)
    assert not nb.metadata["papermill"].get("exception")
    return nb


def outputs(nb) -> str:
    chunks = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            chunks.append(o.get("text", ""))
            for mime in ("text/plain", "text/html"):
                chunks.append(str(o.get("data", {}).get(mime, "")))
    return "\n".join(chunks)


def test_logs_notebook_reads_the_samples_and_compares_with_the_simulator(tmp_path):
    trace_path = tmp_path / "sample.parquet"
    nb = run("03-cuzk-logs.ipynb", tmp_path, trace_path=str(trace_path))
    text = outputs(nb)
    assert "simulated" in text and "daemon log" in text
    assert "timeline" in text and "malformed" in text
    figures = [o for c in nb.cells for o in c.get("outputs", [])
               if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figures) >= 3                      # timeline, breakdown, comparison
    t = Trace.load(trace_path)
    assert t.source == "cuzk-log" and t.summary()["proofs"] == 2


def test_the_sweep_runner_drives_the_notebook(tmp_path):
    # Two points that work and one whose daemon does not start: all three are recorded.
    from cuzklab.sweep import run_sweep
    failing = dict(proofs=1, concurrency=1, start_tries=1,
                   daemon_cmd=STANDINS["daemon_cmd"] + " --mode exit-at-start")
    grid = {"name": "cuzk-standin", "notebook": str(NOTEBOOKS / "sweep-cuzk-bench.ipynb"),
            "timeout_s": 60, "parameters": dict(STANDINS),
            "points": [dict(proofs=2, concurrency=1), dict(proofs=3, concurrency=2), failing]}
    out = tmp_path / "sweep"
    run_sweep(grid, out=out, jobs=2, progress=False, report=False)
    table = pd.read_csv(out / "results.csv").sort_values("proofs")
    assert list(table.status) == ["ok", "ok", "ok"]           # the notebooks all ran
    assert list(table.run_failed) == [True, False, False]
    assert table.failure_reason.iloc[0] == "daemon_start"
    assert list(table["bench.completed"].iloc[1:]) == [2, 3]
    assert (table["stage_s.ntt_h"].iloc[1:] > 0).all()
    points = out / "points"
    for name in ("trace.parquet", "daemon.log", "bench.out", "cuzk.toml"):
        assert len(list(points.glob(f"*.{name}"))) >= 2, name
    for f in points.glob("*.trace.parquet"):
        t = Trace.load(f)
        assert t.source == "cuzk-log"
