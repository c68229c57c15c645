"""Small hand-built traces shaped like the simulator's, for figure tests.

They use the simulator's lanes (admission, synth.N, gpu_queue, gpuG.wW,
gpuG.wW.cpu, final.K) and counters, with simple deterministic timings, so
tests can check figures against numbers computed here by hand.
"""

from __future__ import annotations

from cuzklab.model import PipelineConfig
from cuzklab.trace import TraceBuilder

SYNTH_S = 30.0
PREP_S = 1.5
NTT_S = 0.7
BATCH_S = 0.6
TAIL_S = 0.1
BG2_S = 0.5
EPI_S = 0.05
SRS_GIB = 70.0
PART_GIB = 16.0


def pipeline_trace(proofs: int = 4, partitions: int = 3, pw: int = 4, gw: int = 2,
                   lock: str = "split_async", memory_gib: float = 754.0,
                   oom_at: float | None = None):
    """Return a deterministic sim-shaped trace; ``oom_at`` makes it fail there."""
    cfg = PipelineConfig(proofs=proofs, concurrency=proofs, partitions=partitions,
                         partition_workers=pw, gpu_workers_per_device=gw, lock=lock,
                         memory_gib=memory_gib)
    b = TraceBuilder(source="sim", config=cfg.to_dict(), profile="synthetic", seed=0)
    slot_free = [0.0] * pw
    worker_free = [0.0] * gw
    rss_events = []
    proofs_meta = []
    part_no = 0
    for p in range(proofs):
        started = None
        done = 0.0
        for k in range(partitions):
            slot = min(range(pw), key=lambda i: slot_free[i])
            t0 = slot_free[slot]
            if t0 > 0:
                b.span(p, k, "queue", "admission", 0.0, t0)
            t1 = t0 + SYNTH_S
            b.span(p, k, "synth", f"synth.{slot}", t0, t1, slowdown=1.0 + 0.1 * (part_no % 3))
            slot_free[slot] = t1
            started = t0 if started is None else min(started, t0)
            rss_events.append((t0, PART_GIB))
            w = min(range(gw), key=lambda i: worker_free[i])
            g0 = max(t1, worker_free[w])
            if g0 > t1:
                b.span(p, k, "gpu_queue", "gpu_queue", t1, g0)
            lane = f"gpu0.w{w}"
            b.span(p, k, "prep_msm", lane + ".cpu", g0, g0 + PREP_S, slowdown=1.2)
            b.span(p, k, "h2d", lane, g0, g0 + 0.1, gpu=0)
            b.span(p, k, "ntt_h", lane, g0 + 0.1, g0 + 0.1 + NTT_S, gpu=0)
            t = g0 + PREP_S
            b.span(p, k, "barrier_wait", lane, g0 + 0.1 + NTT_S, t, gpu=0)
            b.span(p, k, "batch_add", lane, t, t + BATCH_S, gpu=0)
            b.span(p, k, "tail_msm", lane, t + BATCH_S, t + BATCH_S + TAIL_S, gpu=0)
            t = t + BATCH_S + TAIL_S
            fin = f"final.{w}" if lock == "split_async" else lane + ".cpu"
            b.span(p, k, "b_g2_msm", fin, t, t + BG2_S, slowdown=1.3)
            b.span(p, k, "epilogue", fin, t + BG2_S, t + BG2_S + EPI_S)
            worker_free[w] = t if lock == "split_async" else t + BG2_S + EPI_S
            end = t + BG2_S + EPI_S
            rss_events.append((end, -PART_GIB))
            done = max(done, end)
            part_no += 1
        proofs_meta.append({"proof": p, "submitted": 0.0, "started": started,
                            "completed": done, "status": "ok"})
    rss = SRS_GIB
    b.counter(0.0, "rss_gib", rss)
    for t, d in sorted(rss_events):
        rss += d
        b.counter(t, "rss_gib", rss)
        b.counter(t, "budget_used_gib", rss - 10.0)
        b.counter(t, "ddr_gbps", 150.0 + 10 * (d > 0))
    meta = dict(proofs=proofs_meta,
                resources={"gpus": 1, "synthesis_slots": pw, "ddr_gbps": 300.0,
                           "budget_gib": memory_gib - 5, "memory_gib": memory_gib},
                failed=False, failure=None)
    if oom_at is not None:
        for pm in proofs_meta:
            if pm["completed"] > oom_at:
                pm["completed"] = None
                pm["status"] = "failed"
        meta.update(failed=True, failure={"reason": "oom",
                                          "message": f"RSS passed {memory_gib} GiB"})
        b.counter(oom_at, "rss_gib", memory_gib + 1.0)
    return b.build(**meta)


def many_spans_trace(n_spans: int, lanes: int = 40):
    """Return a trace with ``n_spans`` back-to-back spans spread over ``lanes`` lanes."""
    b = TraceBuilder(source="sim", config=PipelineConfig().to_dict())
    stages = ("synth", "prep_msm", "ntt_h", "batch_add", "b_g2_msm")
    per_lane = n_spans // lanes + 1
    i = 0
    for lane in range(lanes):
        t = 0.0
        for j in range(per_lane):
            if i >= n_spans:
                break
            d = 0.5 + (j % 7) * 0.1
            b.span(i // 100, i % 10, stages[j % len(stages)], f"synth.{lane}", t, t + d)
            t += d
            i += 1
    return b.build()
