"""Warm kernels: one kernel serves a worker's points, each from an empty namespace."""

from __future__ import annotations

import json
from pathlib import Path

from cuzklab.sweep import run_sweep

HERE = Path(__file__).parent
GRID = {"name": "warm", "notebook": str(HERE / "point.ipynb"), "timeout_s": 60,
        "grid": {"value": [1, 2, 3]}}


def _pids_and_counts(result):
    out = []
    for _, row in result.table.iterrows():
        nb = json.loads((result.out / row["notebook"]).read_text())
        counts = [c["execution_count"] for c in nb["cells"] if c["cell_type"] == "code"]
        out.append((int(row["kernel_pid"]), counts))
    return out


def test_one_warm_kernel_serves_every_point_of_a_worker(tmp_path):
    result = run_sweep(GRID, out=tmp_path / "warm", jobs=1, progress=False, report=False)
    # The notebook raises if a variable of an earlier point is still defined.
    assert result.counts["ok"] == 3
    runs = _pids_and_counts(result)
    assert len({pid for pid, _ in runs}) == 1
    # Numbering restarts at 1 in every point, as on a fresh kernel.
    assert all(counts == list(range(1, len(counts) + 1)) for _, counts in runs)
    reused = result.table["run.kernel_reused"].tolist()
    assert reused == [False, True, True]
    again = run_sweep(GRID, out=tmp_path / "warm", jobs=1, resume=True, progress=False,
                      report=False)
    assert (again.ran, again.skipped, again.counts["ok"]) == (0, 3, 3)


def test_fresh_kernels_when_asked(tmp_path):
    grid = {**GRID, "grid": {"value": [1, 2]}}
    result = run_sweep(grid, out=tmp_path / "fresh", jobs=1, progress=False, report=False,
                       reuse_kernels=False)
    assert result.counts["ok"] == 2
    assert len({pid for pid, _ in _pids_and_counts(result)}) == 2
