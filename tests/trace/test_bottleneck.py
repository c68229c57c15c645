"""The bottleneck verdict names the GPU mutex when a lock held across CPU work bounds a run."""

from __future__ import annotations

import pytest

from cuzklab.model import PipelineConfig
from cuzklab.plots.headline import headline
from cuzklab.sim import simulate
from cuzklab.sim.commands import format_summary
from cuzklab.trace import TraceBuilder
from cuzklab.trace.summary import mutex_held


def _wide_mutex_trace(lock="wide_mutex"):
    """One GPU, one worker: per partition prep_msm 2 s (CPU), kernels 1 s, b_g2 + epilogue 1 s."""
    cfg = PipelineConfig(proofs=1, concurrency=1, partitions=4, partition_workers=4,
                         gpu_workers_per_device=1, lock=lock)
    b = TraceBuilder(source="sim", config=cfg.to_dict())
    for k in range(4):
        b.span(0, k, "synth", f"synth.{k}", 0.0, 1.0)
        t = 1.0 + 4.0 * k
        if t > 1.0:
            b.span(0, k, "gpu_queue", "gpu_queue", 1.0, t)
        b.span(0, k, "prep_msm", "gpu0.w0.cpu", t, t + 2.0)
        b.span(0, k, "ntt_h", "gpu0.w0", t + 2.0, t + 3.0, gpu=0)
        b.span(0, k, "b_g2_msm", "gpu0.w0.cpu", t + 3.0, t + 3.8)
        b.span(0, k, "epilogue", "gpu0.w0.cpu", t + 3.8, t + 4.0)
    return b.build()


def test_mutex_held_covers_prep_through_epilogue_under_wide_mutex_only():
    held = mutex_held(_wide_mutex_trace())
    assert set(held) == {0}
    starts, ends = held[0]
    assert list(starts) == [1.0, 5.0, 9.0, 13.0] and list(ends) == [5.0, 9.0, 13.0, 17.0]
    assert mutex_held(_wide_mutex_trace("interlock")) is None


def test_verdict_is_the_gpu_mutex_with_held_and_cpu_fractions():
    tr = _wide_mutex_trace()
    b = tr.bottleneck()
    # held 16 of the 17 s run; 12 of those 16 s the GPU idles (4 x 3 s of CPU work)
    assert b["resource"] == "gpu_mutex"
    assert b["utilization"] == pytest.approx(16 / 17, abs=1e-4)
    assert b["evidence"]["mutex_cpu_fraction"] == pytest.approx(0.75, abs=1e-4)
    assert "held 94% of the run, 75% of that on CPU work" in b["why"]
    # the same trace under a narrow lock has no mutex resource
    assert "gpu_mutex" not in _wide_mutex_trace("interlock").bottleneck()["evidence"]["utilization"]


def test_simulated_wide_mutex_run_is_bound_by_the_mutex_not_the_cpu_pool():
    tr = simulate(PipelineConfig(lock="wide_mutex"))   # the documented node, 20 proofs
    s = tr.summary()
    b = s["bottleneck"]
    assert b["resource"] == "gpu_mutex", b
    assert b["utilization"] >= 0.9
    # the CLI line and the explorer/report headline carry the same sentence
    cli = format_summary(s)
    assert f"bottleneck       gpu_mutex: {b['why']}" in cli
    assert b["why"] in headline(s, fmt="markdown")
    import html
    assert html.escape(b["why"]) in headline(s)


def test_a_verdict_two_resources_share_within_a_few_points_says_it_is_a_near_tie():
    from cuzklab.trace import load
    from cuzklab.trace.summary import NEAR_TIE
    d = "benchmarks/results/traces-live-h100-r33-otherhost-repaced/"
    # the forty-seventh job's split_async gw=1 pw=8 W=0.25 row: no queue to read, the
    # syntheses busy 63 % of the live run and the pool 62 %
    live = load(d + "split_async-gw1-pw8-w0.25-live.parquet").bottleneck()
    assert live["resource"] == "synthesis"
    util = live["evidence"]["utilization"]
    assert live["evidence"]["runner_up"] == {"resource": "cpu_pool",
                                             "utilization": util["cpu_pool"]}
    assert 0 < util["synthesis"] - util["cpu_pool"] <= NEAR_TIE
    assert live["why"] == ("synthesis busy 63% of the run; cpu_pool 62%, within 5 points: a "
                           "near tie, and no queue says which of the two bounds it")
    # its model: the pool 65 %, the syntheses 60 %, more than 5 points apart: no tie to tell
    model = load(d + "split_async-gw1-pw8-w0.25-model.parquet").bottleneck()
    assert model["resource"] == "cpu_pool" and "runner_up" not in model["evidence"]
    assert model["why"] == "cpu_pool busy 65% of the run"
