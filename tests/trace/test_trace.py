"""The Trace: validation, summary, bottleneck, Parquet and Perfetto export."""

import json
import math

import pandas as pd
import pytest

from cuzklab.errors import TraceError
from cuzklab.trace import Trace, TraceBuilder, load, union_length
from cuzklab.trace.summary import time_weighted_mean


def _gpu_bound_trace() -> Trace:
    b = TraceBuilder(source="sim")
    # two proofs, two partitions each; the GPU is busy back to back
    t = 0.0
    for proof in range(2):
        for part in range(2):
            b.span(proof, part, "synth", f"synth.{part}", proof * 2.0, proof * 2.0 + 1.0)
            b.span(proof, part, "ntt_h", "gpu0.w0", 1.0 + t, 2.0 + t, gpu=0)
            b.span(proof, part, "b_g2_msm", "gpu0.w0.cpu", 2.0 + t, 2.1 + t, slowdown=1.5)
            t += 1.0
    b.counter(0.0, "rss_gib", 70.0)
    b.counter(1.0, "rss_gib", 100.0)
    b.counter(4.0, "rss_gib", 80.0)
    return b.build(proofs=[{"proof": 0, "submitted": 0.0, "started": 0.0, "completed": 3.1},
                           {"proof": 1, "submitted": 0.0, "started": 2.0, "completed": 5.1}],
                   resources={"gpus": 1, "synthesis_slots": 2})


def test_union_length_and_time_weighted_mean():
    assert union_length([0, 1, 5], [2, 3, 6]) == pytest.approx(4.0)
    assert union_length([], []) == 0.0
    assert union_length([0, 0.5], [10, 1]) == pytest.approx(10)
    assert time_weighted_mean([0, 1], [10, 20], 0, 2) == pytest.approx(15)
    assert math.isnan(time_weighted_mean([], [], 0, 1))


def test_summary_names_and_values():
    s = _gpu_bound_trace().summary()
    for key in ("proofs", "failed", "wall_s", "seconds_per_proof", "proof_latency_s_mean",
                "peak_rss_gib", "gpu_busy_fraction", "stage_s", "bottleneck", "oom"):
        assert key in s
    assert s["proofs"] == 2 and s["failed"] == 0
    assert s["wall_s"] == pytest.approx(5.1)
    assert s["seconds_per_proof"] == pytest.approx(2.55)
    assert s["proof_latency_s_mean"] == pytest.approx(4.1)
    assert s["peak_rss_gib"] == 100.0
    assert s["gpu_busy_fraction"] == pytest.approx(4 / 5.1, rel=1e-3)
    assert s["stage_s"]["ntt_h"] == pytest.approx(1.0)
    assert s["bottleneck"]["resource"] == "gpu"
    assert s["bottleneck"]["evidence"]["mean_slowdown"] == pytest.approx(1.5)
    json.dumps(s)  # JSON-able


def test_proofs_are_derived_from_spans_without_a_proof_table():
    b = TraceBuilder(source="cuzk-log")
    b.span(0, 0, "synth", "synth.0", 1.0, 3.0)
    b.span(0, 0, "ntt_h", "gpu0.w0", 3.0, 4.0, gpu=0)
    p = b.build().proofs()
    assert p.loc[0, "submitted"] == 1.0 and p.loc[0, "completed"] == 4.0


def test_failed_run_summary():
    b = TraceBuilder(source="sim")
    b.span(0, 0, "synth", "synth.0", 0, 5)
    tr = b.build(failed=True, failure={"reason": "oom", "message": "x"},
                 proofs=[{"proof": 0, "submitted": 0.0, "completed": None, "status": "failed"}])
    s = tr.summary()
    assert s["oom"] and s["failed"] == 1 and s["proofs"] == 0 and s["seconds_per_proof"] is None
    assert s["bottleneck"]["resource"] == "host_memory"


def test_validation_errors():
    with pytest.raises(TraceError, match="unknown stage names"):
        Trace(spans=pd.DataFrame({"proof": [0], "partition": [0], "stage": ["compile"],
                                  "lane": ["x"], "start": [0.0], "end": [1.0]}))
    with pytest.raises(TraceError, match="end before they start"):
        Trace(spans=pd.DataFrame({"proof": [0], "partition": [0], "stage": ["synth"],
                                  "lane": ["x"], "start": [2.0], "end": [1.0]}))
    with pytest.raises(TraceError, match="lack required columns"):
        Trace(spans=pd.DataFrame({"proof": [0]}))
    with pytest.raises(TraceError, match="meta.source"):
        Trace(meta={"source": "guess"})
    with pytest.raises(ValueError, match="stage must be one of"):
        Trace().stage("nope")


def test_parquet_round_trip(tmp_path):
    tr = _gpu_bound_trace()
    path = tmp_path / "run.parquet"
    tr.save(path)
    back = load(path)
    pd.testing.assert_frame_equal(back.spans, tr.spans)
    pd.testing.assert_frame_equal(back.counters, tr.counters)
    assert back.meta["source"] == "sim" and back.summary() == tr.summary()
    assert not list(tmp_path.glob(".*.tmp"))  # atomic write left nothing behind


def test_load_errors(tmp_path):
    with pytest.raises(TraceError, match="not found"):
        load(tmp_path / "missing.parquet")
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(TraceError, match="not a readable Parquet trace"):
        load(tmp_path / "junk.parquet")
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "other.parquet")
    with pytest.raises(TraceError, match="not a cuzklab trace"):
        load(tmp_path / "other.parquet")


def test_perfetto_export(tmp_path):
    b = TraceBuilder(source="sim")
    b.span(0, 0, "queue", "admission", 0, 5)
    b.span(0, 1, "queue", "admission", 1, 6)      # overlaps: async events
    b.span(0, 0, "synth", "synth.0", 5, 9, slowdown=1.2)
    b.span(0, 0, "ntt_h", "gpu0.w0", 9, 10, gpu=0)
    b.counter(0, "rss_gib", 70)
    b.counter(5, "gpu_queue_depth", 1)
    out = b.build().to_perfetto(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text())
    assert data == json.loads(json.dumps(out))
    ev = data["traceEvents"]
    names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {"admission", "synth.0", "gpu0.w0"}
    x = [e for e in ev if e["ph"] == "X"]
    assert {e["name"] for e in x} == {"synth", "ntt_h"}
    synth = next(e for e in x if e["name"] == "synth")
    assert synth["ts"] == 5e6 and synth["dur"] == 4e6 and synth["args"]["slowdown"] == 1.2
    assert sum(e["ph"] == "b" for e in ev) == 2 and sum(e["ph"] == "e" for e in ev) == 2
    counters = {e["name"] for e in ev if e["ph"] == "C"}
    assert counters == {"rss_gib", "gpu_queue_depth"}
    # each complete-event track nests (no overlaps on one tid)
    by_tid = {}
    for e in x:
        by_tid.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_tid.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_gpu_prove_sums_the_time_workers_hold_each_partition():
    b = TraceBuilder(source="sim")
    # partition 0: held 1.0..4.0 across the worker's GPU and CPU lanes; partition 1: 2.0..3.5
    b.span(0, 0, "mutex_wait", "gpu0.w0", 1.0, 1.5, gpu=0)
    b.span(0, 0, "ntt_h", "gpu0.w0", 1.5, 3.0, gpu=0)
    b.span(0, 0, "b_g2_msm", "gpu0.w0.cpu", 3.0, 4.0)
    b.span(0, 1, "ntt_h", "gpu0.w1", 2.0, 3.5, gpu=0)
    b.span(0, 1, "b_g2_msm", "final.0", 3.5, 9.0)      # finalizers are not counted
    tr = b.build(proofs=[{"proof": 0, "submitted": 0.0, "started": 0.0, "completed": 9.0}])
    assert tr.summary()["gpu_prove_s_mean"] == pytest.approx(3.0 + 1.5)


def test_perfetto_leaves_out_zero_length_spans():
    b = TraceBuilder(source="sim")
    b.span(0, 0, "queue", "admission", 0, 0)          # admitted at once
    b.span(0, 1, "queue", "admission", 0, 3)
    b.span(0, 0, "synth", "synth.0", 0, 4)
    b.span(0, 0, "epilogue", "gpu0.w0.cpu", 4, 4)
    data = b.build().to_perfetto()
    slices = [e for e in data["traceEvents"] if e["ph"] in ("X", "b")]
    assert len(slices) == 2
    assert all(e.get("dur", 1) > 0 for e in slices)
    assert data["metadata"]["zero_length_spans_left_out"] == 2
