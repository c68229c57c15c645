"""The simulation notebook as a sweep point: its metrics are the simulator's own summary."""

from __future__ import annotations

from pathlib import Path

from cuzklab.model import PipelineConfig
from cuzklab.sim import simulate
from cuzklab.sweep import flatten, run_sweep
from cuzklab.trace import Trace

ROOT = Path(__file__).parents[2]

GRID = f"""
name = "pipeline"
notebook = "{ROOT / 'notebooks/sweep-pipeline.ipynb'}"
timeout_s = 120

[parameters]
proofs = 3
concurrency = 2
partition_workers = 4

[grid]
lock = ["interlock", "split_async"]
"""


def test_pipeline_points_record_the_simulated_summary_and_trace(tmp_path):
    result = run_sweep(GRID, out=tmp_path / "pipeline", jobs=2, progress=False)
    assert result.counts["ok"] == 2, result.table[["label", "status", "error"]]
    for _, row in result.table.iterrows():
        config = PipelineConfig(proofs=3, concurrency=2, partition_workers=4, lock=row["lock"])
        expected = flatten(simulate(config, profile="porep-32g").summary())
        for key, value in expected.items():
            # A metric named like a parameter (``proofs``) is stored as ``metric.proofs``.
            column = f"metric.{key}" if f"metric.{key}" in row.index else key
            if isinstance(value, float):
                assert abs(row[column] - value) < 1e-9, key
            elif value is not None:
                assert row[column] == value, key
        # the OOM risk over the notebook's default three seeds
        assert row["oom_seeds"] == 3 and row["oom_risk"] == 0.0
        trace = Trace.load(result.out / "points" / f"{row['id']}.trace.parquet")
        assert flatten(trace.summary())["seconds_per_proof"] == expected["seconds_per_proof"]
        assert trace.meta["config"]["lock"] == row["lock"]
    html = result.report.read_text()
    assert "Best seconds_per_proof" in html and "Plotly.newPlot" in html
    assert "oom_risk" in html
