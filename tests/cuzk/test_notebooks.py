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


def test_sweep_notebook_records_a_point(tmp_path):
    result = tmp_path / "pt.result.json"
    run("sweep-cuzk-bench.ipynb", tmp_path, proofs=3, concurrency=2, result_path=str(result),
        **STANDINS)
    metrics = json.loads(result.read_text())
    assert metrics["proofs"] == 3 and metrics["run_failed"] is False
    assert metrics["bench.completed"] == 3 and metrics["stage_s.ntt_h"] > 0
    for name in ("trace.parquet", "daemon.log", "bench.out", "cuzk.toml"):
        assert (tmp_path / f"pt.{name}").exists(), name
    assert Trace.load(tmp_path / "pt.trace.parquet").summary()["proofs"] == 3


def test_sweep_notebook_records_a_failed_start(tmp_path):
    result = tmp_path / "pt.result.json"
    params = dict(STANDINS, daemon_cmd=STANDINS["daemon_cmd"] + " --mode exit-at-start")
    run("sweep-cuzk-bench.ipynb", tmp_path, proofs=2, concurrency=1, start_tries=1,
        result_path=str(result), **{k: v for k, v in params.items()})
    metrics = json.loads(result.read_text())
    assert metrics["run_failed"] is True and metrics["failure_reason"] == "daemon_start"
    assert "failed to load config" in metrics["failure_message"]


def test_the_sweep_runner_drives_the_notebook(tmp_path):
    from cuzklab.sweep import run_sweep
    grid = {"name": "cuzk-standin", "notebook": str(NOTEBOOKS / "sweep-cuzk-bench.ipynb"),
            "timeout_s": 60, "parameters": dict(STANDINS, concurrency=1),
            "grid": {"proofs": [1, 2]}}
    run_sweep(grid, out=tmp_path / "sweep", jobs=2, progress=False, report=False)
    table = pd.read_csv(tmp_path / "sweep" / "results.csv")
    assert list(table.status) == ["ok", "ok"]
    assert sorted(table["bench.completed"]) == [1, 2]
    assert not table.run_failed.any()
