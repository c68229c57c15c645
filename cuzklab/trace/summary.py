"""The summary of a run and the analysis of what bounds its throughput.

Names and meanings follow docs/design.md: ``seconds_per_proof`` is the wall time
from the first submit to the last completion divided by completed proofs (the
figure cuzk-bench prints).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .schema import GPU_STAGES, STAGES


def union_length(starts, ends) -> float:
    """Return the total length covered by the union of intervals."""
    if len(starts) == 0:
        return 0.0
    order = np.argsort(starts, kind="stable")
    s = np.asarray(starts, dtype=float)[order]
    e = np.asarray(ends, dtype=float)[order]
    run_end = np.maximum.accumulate(e)
    # A new block starts where an interval begins after everything before ended.
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > run_end[:-1]
    idx = np.flatnonzero(new)
    block_start = s[idx]
    block_end = np.append(run_end[idx[1:] - 1], run_end[-1])
    return float((block_end - block_start).sum())


def time_weighted_mean(t, v, t0: float, t1: float) -> float:
    """Return the mean of a step function (value v[i] from t[i]) over [t0, t1]."""
    if len(t) == 0 or t1 <= t0:
        return math.nan
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    edges = np.clip(np.append(t, t1), t0, t1)
    widths = np.diff(edges)
    return float((widths * v).sum() / (t1 - t0))


def _first_last(spans) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return, per (proof, partition) of ``spans``, its proof, first start and last end.

    Rows come in (proof, partition) order, as a pandas groupby of the two would
    give them, and a missing time is skipped as pandas' min and max skip it;
    without pandas' group machinery (the summary runs on every explorer redraw).
    """
    proof = spans["proof"].to_numpy()
    part = spans["partition"].to_numpy()
    order = np.lexsort((part, proof))
    proof, part = proof[order], part[order]
    start = spans["start"].to_numpy(dtype=float)[order]
    end = spans["end"].to_numpy(dtype=float)[order]
    new = np.empty(len(proof), dtype=bool)
    new[:1] = True
    new[1:] = (proof[1:] != proof[:-1]) | (part[1:] != part[:-1])
    idx = np.flatnonzero(new)
    return proof[idx], np.fmin.reduceat(start, idx), np.fmax.reduceat(end, idx)


def _stage_masks(spans) -> dict[str, np.ndarray]:
    """Return {stage: boolean row mask} for the stages present in ``spans``."""
    stage = spans["stage"].to_numpy()
    return {st: m for st in STAGES if (m := stage == st).any()}


def _window(trace) -> tuple[float, float, pd.DataFrame]:
    proofs = trace.proofs()
    if len(proofs) and proofs["submitted"].notna().any():
        t0 = float(proofs["submitted"].min())
    elif len(trace.spans):
        t0 = float(trace.spans["start"].min())
    else:
        t0 = 0.0
    done = proofs[proofs["status"] == "ok"] if len(proofs) else proofs
    if len(done) and done["completed"].notna().any():
        t1 = float(done["completed"].max())
    else:
        t1 = trace.duration
    return t0, t1, proofs


def _resources(trace) -> dict:
    res = dict(trace.meta.get("resources") or {})
    s = trace.spans
    if "gpus" not in res:
        gpus = s.loc[s["gpu"] >= 0, "gpu"].nunique()
        res["gpus"] = int(gpus) or 1
    if "synthesis_slots" not in res:
        lanes = s.loc[s["stage"] == "synth", "lane"].nunique()
        res["synthesis_slots"] = int(lanes) or 1
    return res


# Lock strategies whose GPU mutex is held beyond the CUDA region, and the stages it
# covers (docs/design.md: under wide_mutex it is held from prep_msm through the GPU
# kernels, b_g2_msm and the epilogue). Under the others it covers only the CUDA
# region, whose occupancy is the GPU's own utilization.
WIDE_MUTEX_STAGES = {"wide_mutex": ("prep_msm", "h2d", "ntt_h", "barrier_wait", "batch_add",
                                    "tail_msm", "b_g2_msm", "epilogue")}
# The mutex bounds throughput when it is held at least this fraction of the run
# while the GPU itself is busy less than the GPU verdict's threshold.
MUTEX_BOUND = 0.9
#: How close (in utilization, 0..1) the two busiest resources of a run with no queue evidence
#: must be for its verdict to be called a near tie (the verdict is still the busier one).
NEAR_TIE = 0.05


def mutex_held(trace) -> dict | None:
    """Return {gpu: (starts, ends)} of the intervals a GPU's mutex is held, or None.

    Only for lock strategies that hold the mutex across CPU work
    (``WIDE_MUTEX_STAGES``, read from the trace's config): per partition, from
    its first to its last span of those stages on the GPU's worker lanes.
    """
    lock = (trace.meta.get("config") or {}).get("lock")
    stages = WIDE_MUTEX_STAGES.get(lock)
    s = trace.spans
    if stages is None or not len(s):
        return None
    sub = s[_worker_lane_mask(s) & s["stage"].isin(stages)]
    if sub.empty:
        return None
    gpu = sub["lane"].astype(str).str.extract(r"^gpu(\d+)\.", expand=False).astype(int)
    held = sub.assign(_gpu=gpu).groupby(["_gpu", "proof", "partition"]).agg(
        a=("start", "min"), b=("end", "max")).reset_index()
    return {int(g): (h["a"].to_numpy(), h["b"].to_numpy()) for g, h in held.groupby("_gpu")}


def _mutex_evidence(trace, wall: float, gpus: int, gpu_spans) -> tuple[float, float] | None:
    """Return (fraction of the run the mutex is held, fraction of that on CPU work)."""
    held = mutex_held(trace)
    if not held:
        return None
    held_s = sum(union_length(a, b) for a, b in held.values())
    if held_s <= 0:
        return None
    kernels_s = sum(union_length(g["start"].to_numpy(), g["end"].to_numpy())
                    for _, g in gpu_spans.groupby("gpu")) if len(gpu_spans) else 0.0
    frac = min(1.0, held_s / (wall * max(gpus, len(held), 1)))
    return frac, min(1.0, max(0.0, 1.0 - kernels_s / held_s))


def bottleneck(trace) -> dict:
    """Return {resource, utilization, evidence, why}: what bounds throughput.

    Utilizations over the run's window: ``gpu`` (union of the CUDA-region spans
    per GPU), ``synthesis`` (synth span-seconds over the synthesis slots),
    ``cpu_pool`` (time the prep_msm / b_g2_msm pool is busy), and, where the
    source recorded them, ``memory_bandwidth`` (mean ``ddr_gbps`` over the node's
    bandwidth) and ``memory_budget`` (mean ``budget_used_gib`` over the budget).

    The verdict reads where work queues, not only what is busy:

    - a host OOM ends the run: ``host_memory``;
    - the GPU is busy >= 90 % of the run: ``gpu``;
    - the lock holds the GPU mutex across CPU work (``wide_mutex``) and the mutex
      is held >= 90 % of the run while the GPU workers are never free:
      ``gpu_mutex`` (its utilization is the fraction of the run it is held; the
      evidence says how much of that was CPU work);
    - the GPU workers are never free (each holds a partition >= 90 % of the run;
      without worker lanes: partitions wait long in ``gpu_queue``): the GPU side
      bounds throughput — ``gpu`` when the GPU is busy, else ``cpu_pool`` (the
      workers are waiting on their CPU work: prep_msm, b_g2_msm, set-up);
    - otherwise the syntheses bound it — ``memory_bandwidth`` when they run much
      slower than alone and the node's bandwidth is saturated, ``memory_budget``
      when admission waits on a full budget, else ``synthesis``;
    - with no queue evidence, the busiest resource; where the next busiest is within
      :data:`NEAR_TIE` of it, the evidence names that one (``runner_up``) and the reason
      calls the verdict a near tie.
    """
    return _bottleneck(trace, _window(trace), _stage_masks(trace.spans))


def _bottleneck(trace, window, masks: dict[str, np.ndarray]) -> dict:
    """Return :func:`bottleneck` given the run's window and its stages' row masks."""
    t0, t1, _ = window
    wall = max(t1 - t0, 1e-12)
    s = trace.spans
    res = _resources(trace)
    util: dict[str, float] = {}

    gpu_spans = s[s["stage"].isin(GPU_STAGES)]
    region_s = math.nan
    if len(gpu_spans):
        busy = [union_length(g["start"].to_numpy(), g["end"].to_numpy())
                for _, g in gpu_spans.groupby("gpu")]
        util["gpu"] = min(1.0, sum(busy) / (wall * max(res["gpus"], 1)))
        _, a, b = _first_last(gpu_spans)
        region_s = float(pd.Series(b - a).mean())
    synth = s[masks["synth"]] if "synth" in masks else s.iloc[0:0]
    if len(synth):
        util["synthesis"] = min(1.0, float((synth["end"] - synth["start"]).sum())
                                / (wall * max(res["synthesis_slots"], 1)))
    pool = s[s["stage"].isin(("prep_msm", "b_g2_msm"))]
    if len(pool):
        util["cpu_pool"] = min(1.0, union_length(pool["start"].to_numpy(),
                                                 pool["end"].to_numpy()) / wall)
    bw_cap = res.get("ddr_gbps")
    bw = trace.counter("ddr_gbps") if bw_cap else None
    if bw_cap and len(bw):
        util["memory_bandwidth"] = min(1.0, time_weighted_mean(
            bw["t"], bw["value"], t0, t1) / bw_cap)
    budget = res.get("budget_gib")
    b = trace.counter("budget_used_gib") if budget else None
    if budget and len(b):
        util["memory_budget"] = min(1.0, time_weighted_mean(
            b["t"], b["value"], t0, t1) / budget)

    waits = {}
    duration = s["end"] - s["start"]
    for st in ("queue", "gpu_queue", "mutex_wait", "barrier_wait"):
        if st in masks:
            waits[st] = float(duration[masks[st]].mean())
    evidence = {"utilization": {k: round(v, 4) for k, v in util.items()},
                "mean_wait_s": {k: round(v, 3) for k, v in waits.items()}}
    slow = s["slowdown"].dropna()
    if len(slow):
        evidence["mean_slowdown"] = round(float(slow.mean()), 3)
    synth_slow = synth["slowdown"].dropna() if len(synth) else synth["slowdown"]
    if len(synth_slow):
        evidence["synth_slowdown"] = round(float(synth_slow.mean()), 3)
    if not math.isnan(region_s):
        evidence["gpu_region_s"] = round(region_s, 3)
    mutex = _mutex_evidence(trace, wall, res["gpus"], gpu_spans)
    if mutex is not None:
        util["gpu_mutex"] = mutex[0]
        evidence["utilization"]["gpu_mutex"] = round(mutex[0], 4)
        evidence["mutex_cpu_fraction"] = round(mutex[1], 4)

    def verdict(resource, why):
        u = util.get(resource, math.nan)
        return {"resource": resource, "utilization": None if math.isnan(u) else round(u, 4),
                "evidence": evidence, "why": why}

    if trace.failed and (trace.meta.get("failure") or {}).get("reason") == "oom":
        return {"resource": "host_memory", "utilization": 1.0, "evidence": evidence,
                "why": "the run exceeded host memory (oom)"}
    if not util:
        return {"resource": None, "utilization": None, "evidence": evidence,
                "why": "no stage spans to analyse"}
    gq = waits.get("gpu_queue", 0.0)
    workers = _worker_occupancy(s, wall)
    if workers is not None:
        evidence["gpu_worker_occupancy"] = round(workers, 4)
    side_bound = (workers >= 0.9) if workers is not None else (
        not math.isnan(region_s) and gq > max(0.5 * region_s, 0.5))
    if util.get("gpu", 0.0) >= 0.9:
        return verdict("gpu", f"the GPU is busy {util['gpu']:.0%} of the run"
                              + (f"; synthesized partitions wait {gq:.1f} s for it" if gq else ""))
    if mutex is not None and side_bound and mutex[0] >= MUTEX_BOUND:
        lock = (trace.meta.get("config") or {}).get("lock")
        mw = waits.get("mutex_wait", 0.0)
        return verdict("gpu_mutex",
                       f"under {lock} the GPU mutex is held {mutex[0]:.0%} of the run, {mutex[1]:.0%} "
                       f"of that on CPU work (prep_msm, b_g2_msm, epilogue); the GPU is busy "
                       f"only {util.get('gpu', 0.0):.0%}"
                       + (f" and partitions wait {mw:.1f} s for the mutex" if mw >= 0.05 else ""))
    if "gpu" in util and side_bound:
        if util["gpu"] >= 0.85:
            return verdict("gpu", f"synthesized partitions wait {gq:.1f} s for a GPU that is "
                                  f"busy {util['gpu']:.0%} of the run")
        return verdict("cpu_pool", f"synthesized partitions wait {gq:.1f} s for GPU workers "
                                   f"while the GPU is busy only {util['gpu']:.0%}: the workers' "
                                   f"CPU work (prep_msm, b_g2_msm) is on the critical path")
    if util.get("synthesis", 0.0) >= 0.8:
        sl = evidence.get("synth_slowdown", 1.0)
        if sl >= 1.2 and util.get("memory_bandwidth", 0.0) >= 0.9:
            return verdict("memory_bandwidth",
                           f"synthesis slots busy {util['synthesis']:.0%} and each synthesis runs "
                           f"{sl:.2f}x slower than alone on saturated host memory bandwidth")
        if util.get("memory_budget", 0.0) >= 0.9 and waits.get("queue", 0.0) > 0:
            return verdict("memory_budget", "admission waits on a full memory budget")
        return verdict("synthesis", f"synthesis slots busy {util['synthesis']:.0%} of the run; "
                                    f"the GPU waits for partitions")
    if util.get("memory_budget", 0.0) >= 0.9 and waits.get("queue", 0.0) > 0:
        return verdict("memory_budget", "admission waits on a full memory budget")
    resource = max(util, key=lambda k: (util[k], k == "gpu"))
    why = f"{resource} busy {util[resource]:.0%} of the run"
    nxt = max((k for k in util if k != resource), key=util.get, default=None)
    if nxt is not None and util[resource] - util[nxt] <= NEAR_TIE:
        # no queue says which bounds the run, and the busiest leads by a few points: say so
        evidence["runner_up"] = {"resource": nxt, "utilization": round(util[nxt], 4)}
        why += (f"; {nxt} {util[nxt]:.0%}, within {100 * NEAR_TIE:.0f} points: a near tie, "
                "and no queue says which of the two bounds it")
    return verdict(resource, why)


_WORKER_LANE = re.compile(r"^gpu\d+\.w\d+(\.cpu)?$")


def _worker_lane_mask(spans) -> "pd.Series":
    """Return the rows on a GPU worker's lanes (``gpu<g>.w<w>`` and its ``.cpu`` lane)."""
    lanes = spans["lane"]
    return lanes.isin([v for v in lanes.unique() if _WORKER_LANE.match(str(v))])


def gpu_prove_per_proof(spans) -> "pd.Series":
    """Return, per proof, the summed seconds GPU workers held its partitions.

    A partition is held from its first span on a worker lane (``gpu<g>.w<w>`` or
    its ``.cpu`` lane) to its last; finalizer lanes are not counted. This is the
    figure cuzk-bench prints as ``prove=`` (the daemon's gpu_compute_ms, the sum
    of its partitions' GPU_START..GPU_END), which grows when workers wait on each
    other's CUDA region.
    """
    mask = _worker_lane_mask(spans)
    sub = spans[mask & (spans["proof"] >= 0)]
    if sub.empty:
        return pd.Series(dtype=float)
    proof, a, b = _first_last(sub)
    return pd.Series(b - a, index=pd.Index(proof, name="proof")).groupby(level=0).sum()


def _worker_occupancy(spans, wall: float) -> float | None:
    """Return the mean fraction of the run each GPU worker holds a partition.

    A worker is a lane ``gpu<g>.w<w>``; its CPU-side lane ``gpu<g>.w<w>.cpu``
    counts as the same worker. None when the trace has no such lanes.
    """
    mask = _worker_lane_mask(spans)
    if not mask.any():
        return None
    sub = spans[mask]
    lanes = sub["lane"]
    worker = lanes.map({v: re.sub(r"\.cpu$", "", str(v)) for v in lanes.unique()}).to_numpy()
    start, end = sub["start"].to_numpy(), sub["end"].to_numpy()
    occ = [union_length(start[worker == w], end[worker == w]) / wall
           for w in sorted(set(worker))]
    return min(1.0, float(np.mean(occ)))


def throughput(trace, window=None) -> dict:
    """Return the summary's ``seconds_per_proof`` and ``oom`` alone (cheap: no analysis).

    What a timeline's title needs before the full summary is computed; the
    summary's own fields come from here, so the two always agree.
    """
    t0, t1, proofs = window if window is not None else _window(trace)
    completed = int((proofs["status"] == "ok").sum()) if len(proofs) else 0
    wall = max(t1 - t0, 0.0)
    failure = trace.meta.get("failure") or {}
    return {
        # A run that failed (e.g. out of memory) has no throughput: the proofs it
        # finished before failing would flatter it.
        "seconds_per_proof": (round(wall / completed, 4)
                              if completed and not trace.failed else None),
        "oom": bool(trace.failed and failure.get("reason") == "oom"),
    }


def summarize(trace) -> dict:
    """Return the flat, JSON-able summary dict of a trace (names of docs/design.md)."""
    t0, t1, proofs = _window(trace)
    ok = proofs[proofs["status"] == "ok"] if len(proofs) else proofs
    completed = int(len(ok))
    failed = int(len(proofs) - completed)
    wall = max(t1 - t0, 0.0)
    quick = throughput(trace, (t0, t1, proofs))
    lat = (ok["completed"] - ok["submitted"]).dropna() if completed else pd.Series(dtype=float)
    prove = (ok["completed"] - ok["started"]).dropna() if completed else pd.Series(dtype=float)
    s = trace.spans
    masks = _stage_masks(s)
    duration = s["end"] - s["start"]
    stage_s = {st: round(float(duration[m].mean()), 4) for st, m in masks.items()}
    rss = trace.counter("rss_gib")
    verdict = _bottleneck(trace, (t0, t1, proofs), masks)
    # the GPU's busy fraction is the bottleneck's GPU utilization (same window, same rounding)
    gpu_busy = verdict["evidence"]["utilization"].get("gpu") if wall > 0 else None
    failure = trace.meta.get("failure") or {}
    out = {
        "source": trace.source,
        "proofs": completed,
        "failed": failed,
        "wall_s": round(wall, 4),
        "seconds_per_proof": quick["seconds_per_proof"],
        "proof_latency_s_mean": round(float(lat.mean()), 4) if len(lat) else None,
        "prove_s_mean": round(float(prove.mean()), 4) if len(prove) else None,
        "gpu_prove_s_mean": _round_or_none(gpu_prove_per_proof(
            s[s["proof"].isin(ok["proof"])] if completed else s.iloc[0:0]).mean()),
        "peak_rss_gib": round(float(rss["value"].max()), 3) if len(rss) else None,
        "gpu_busy_fraction": gpu_busy,
        "stage_s": stage_s,
        "bottleneck": verdict,
        "oom": quick["oom"],
        "run_failed": trace.failed,
        "failure_reason": failure.get("reason"),
    }
    if trace.meta.get("workload"):          # a mixed workload: figures per proof kind
        from .kinds import kinds_summary
        out["kinds"] = kinds_summary(trace)
    return _jsonable(out)


def _round_or_none(v, nd: int = 4):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else round(float(v), nd)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj
