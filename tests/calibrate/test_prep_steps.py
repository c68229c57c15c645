"""What a live prep_msm's thread did over the call: its CPU seconds and switches."""

from __future__ import annotations

import pytest

from cuzklab.calibrate.compare import prep_steps_s, row_errors, worker_cycle_text
from cuzklab.live import run
from cuzklab.model import PipelineConfig
from cuzklab.trace import TraceBuilder, load

#: two proofs of two partitions, one GPU worker, b_g2_msm on the prep_msm thread's pool
CFG = PipelineConfig(proofs=2, concurrency=2, partitions=2, partition_workers=2,
                     gpu_workers_per_device=1, gpu_threads=2, synthesis_threads=2,
                     lock="split_async", seed=3)


def test_a_live_run_records_every_prep_msm_call_and_its_thread(tmp_path):
    trace = run(CFG, log2_constraints=4, backend="cpu", verify=False, progress=False,
                slow={"prep_msm": 0.03})
    rows = trace.meta["prep_steps"]
    s = trace.spans[trace.spans["stage"] == "prep_msm"]
    spans = {(int(r.proof), int(r.partition)): r.end - r.start for r in s.itertuples()}
    assert sorted((p, k) for p, k, *_ in rows) == sorted(spans)
    for p, k, own, cpu, faults, preempted, waited in rows:
        # its own seconds leave out the slowed start (0.03 s) its span holds
        assert 0 < own <= spans[(p, k)] - 0.03 + 1e-3
        assert 0 < cpu <= own + 2e-3
        assert all(isinstance(n, int) and n >= 0 for n in (faults, preempted, waited))
    means = prep_steps_s(trace)
    assert means["own"] == pytest.approx(sum(r[2] for r in rows) / len(rows), abs=1e-6)
    assert means["thread_cpu"] == pytest.approx(sum(r[3] for r in rows) / len(rows), abs=1e-6)
    assert means["waited"] == pytest.approx(sum(r[6] for r in rows) / len(rows), abs=0.06)
    trace.save(tmp_path / "t.parquet")
    assert load(tmp_path / "t.parquet").meta["prep_steps"] == rows


def test_a_trace_without_them_has_none_and_older_rows_give_what_they_hold():
    tb = TraceBuilder(source="sim")
    tb.span(0, 0, "prep_msm", "gpu0.w0.cpu", 0.0, 0.02)
    assert prep_steps_s(tb.build()) is None
    old = TraceBuilder(source="live")
    old.span(0, 0, "prep_msm", "gpu0.w0.cpu", 0.0, 0.02)
    # a row of three usage columns (no voluntary switches): no "waited"
    means = prep_steps_s(old.build(prep_steps=[[0, 0, 0.02, 0.01, 5, 2],
                                               [0, 1, 0.04, 0.01, 7, 4]]))
    assert means == {"own": 0.03, "thread_cpu": 0.01, "page_faults": 6.0, "preempted": 3.0}


def test_the_cycle_line_says_where_a_slow_prep_msm_went():
    base = {"seconds_per_proof": 1.0, "proof_latency_s_mean": 2.0, "peak_rss_gib": 3.0,
            "gpu_busy_fraction": 0.2, "bottleneck": "cpu_pool"}
    model = dict(base, stage_s={"prep_msm": 0.03}, worker_cycle_s=0.05)
    live = dict(base, stage_s={"prep_msm": 0.07}, worker_cycle_s=0.11,
                prep_steps_s={"own": 0.068, "thread_cpu": 0.021, "page_faults": 3.0,
                              "preempted": 40.0, "waited": 6.0})
    cfg = {"lock": "split_async", "gpu_workers_per_device": 1, "partition_workers": 12}
    row = {"config": cfg, "witness_work": 0.0, "model": model, "live": live,
           "error": row_errors(model, live)}
    line = worker_cycle_text({"rows": [row]})[1]
    assert ("prep_msm 30|70 ms (its own 68 ms, its thread's CPU 21 ms, switched out 40 "
            "times, waited 6 times)") in line
