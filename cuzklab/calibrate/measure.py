"""What ``calibrate --live`` measures on this machine.

* :func:`measure_solo`: every stage of a partition alone, through the live
  executor itself, in a configuration where nothing overlaps: one proof in
  flight, one partition per proof, one synthesis worker, one GPU worker, the
  ``monolithic`` lock (the worker holds the mutex from prep_msm to the
  epilogue). Medians over the proofs of the run, with the process's RSS at the
  start and its peak.
* :func:`measure_bandwidth`: the host's memory bandwidth, as NumPy copies of
  large arrays on one thread and on every core (NumPy releases the GIL while
  it copies).
* :func:`measure_contention`: prep_msm and b_g2_msm of one partition timed
  while S threads synthesize other partitions in a loop, for each S.
* :func:`measure_witness_slope`: the one-thread witness step at two witness
  works, so that a profile calibrated at one witness work also describes the
  others (the extra work per gate is a fixed number of Fr products per unit).
"""

from __future__ import annotations

import os
import statistics
import threading
import time

import numpy as np

from ..errors import ConfigError

GIB = 2**30
#: Shortest timed sample of :func:`measure_witness_slope` (seconds): calls are repeated to reach it.
MIN_SAMPLE_S = 0.05

#: The keys of the solo configuration: nothing in it ever runs beside anything else.
SOLO_KEYS = dict(concurrency=1, partitions=1, partition_workers=1, gpus=1,
                 gpu_workers_per_device=1, lock="monolithic", admission="semaphore")

#: Stages whose solo seconds the profile takes from the solo run.
SOLO_STAGES = ("synth", "prep_msm", "h2d", "ntt_h", "batch_add", "tail_msm", "b_g2_msm",
               "epilogue")


def host_cores() -> int:
    """Return the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def host_memory_gib() -> float:
    """Return the host's total memory in GiB."""
    import psutil
    return psutil.virtual_memory().total / GIB


def solo_config(proofs: int, *, gpu_threads: int, synthesis_threads: int, seed: int = 0):
    """Return the solo PipelineConfig: ``proofs`` proofs, each stage of each alone."""
    from ..model import PipelineConfig
    return PipelineConfig(proofs=proofs, gpu_threads=gpu_threads,
                          synthesis_threads=synthesis_threads, seed=seed,
                          memory_gib=round(host_memory_gib(), 1), **SOLO_KEYS)


def stage_medians(trace) -> dict[str, float]:
    """Return the median seconds of each stage's spans in ``trace``."""
    sp = trace.spans
    out = {}
    for stage, df in sp.groupby("stage"):
        out[str(stage)] = float(statistics.median((df["end"] - df["start"]).tolist()))
    return out


def measure_solo(log2_constraints: int, backend: str = "cpu", *, proofs: int = 3,
                 gpu_threads: int = 0, synthesis_threads: int = 0, witness_work: float = 1.0,
                 seed: int = 0, profile=None) -> dict:
    """Return the solo run's stage medians, RSS at start and peak, and its config."""
    from ..live import run as run_live
    if isinstance(proofs, bool) or not isinstance(proofs, int) or proofs < 1:
        raise ConfigError("proofs", f"must be an integer >= 1, got {proofs!r}")
    cfg = solo_config(proofs, gpu_threads=gpu_threads, synthesis_threads=synthesis_threads,
                      seed=seed)
    trace = run_live(cfg, log2_constraints=log2_constraints, backend=backend, profile=profile,
                     progress=False, verify=False, witness_work=witness_work)
    if trace.failed:
        f = trace.meta.get("failure") or {}
        raise RuntimeError(f"the solo run failed ({f.get('reason')}): {f.get('message')}")
    rss = trace.counters[trace.counters["name"] == "rss_gib"].sort_values("t")
    return {"config": cfg.to_dict(), "stage_s": stage_medians(trace),
            "rss_start_gib": float(rss["value"].iloc[0]) if len(rss) else float("nan"),
            "rss_peak_gib": float(trace.meta.get("live", {}).get("peak_rss_sampled_gib",
                                                                   rss["value"].max())),
            "spans": int(len(trace.spans)), "trace": trace}


def measure_bandwidth(threads: int | None = None, *, mib_per_thread: int = 64,
                      seconds: float = 0.5) -> dict:
    """Return the host's copy bandwidth in GB/s (reads plus writes) on 1 and ``threads`` threads."""
    threads = threads or host_cores()
    n = mib_per_thread * 2**20 // 8

    def one(count: int) -> float:
        bufs = [(np.ones(n), np.empty(n)) for _ in range(count)]
        for src, dst in bufs:  # touch every page before timing
            np.copyto(dst, src)
        done = [0] * count
        start = threading.Barrier(count + 1)
        stop = threading.Event()

        def loop(i):
            src, dst = bufs[i]
            start.wait()
            while not stop.is_set():
                np.copyto(dst, src)
                done[i] += 1

        ts = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(count)]
        for t in ts:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        time.sleep(seconds)
        stop.set()
        for t in ts:
            t.join()
        dt = time.perf_counter() - t0
        return sum(done) * 2 * n * 8 / dt / 1e9

    return {"threads": threads, "gbps_1_thread": round(one(1), 2),
            "gbps_all_threads": round(one(threads), 2), "mib_per_thread": mib_per_thread}


def measure_contention(log2_constraints: int, counts, *, pool_threads: int,
                       backend: str = "cpu", repeat: int = 3, witness_work: float = 1.0,
                       seed: int = 0) -> dict:
    """Return prep_msm and b_g2_msm seconds (medians) beside each count of running syntheses.

    Each loaded synthesis runs the live executor's synthesis on one thread (its
    MatVec on one thread too), in a loop over other partitions' inputs. prep_msm
    and b_g2_msm each run once untimed first, so no point pays for a first call.
    """
    from ..live import workload
    from ..live import work as W
    from ..stages import StageClock
    counts = [int(c) for c in counts]
    if not counts or min(counts) < 0:
        raise ConfigError("contention", f"expected counts >= 0, got {counts!r}")
    work = workload(log2_constraints, seed, backend, witness_work)
    out = W.synthesize(work, 0, 0, StageClock(), 1)
    po = W.prep(out, StageClock())
    # untimed: b_g2_msm's first call starts its pool of pool_threads and touches the
    # bases, which no point of the curve should pay for (the first point is 0 syntheses)
    W.b_g2(po, work, StageClock(), pool_threads)

    def timed(fn) -> float:
        xs = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            xs.append(time.perf_counter() - t)
        return float(statistics.median(xs))

    solo_synth = timed(lambda: W.synthesize(work, 0, 1, StageClock(), 1))
    rows = []
    for s in counts:
        stop = threading.Event()

        def loop(i):
            k = 0
            while not stop.is_set():
                W.synthesize(work, 1 + i, k % 200, StageClock(), 1)
                k += 1

        ts = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(s)]
        for t in ts:
            t.start()
        if s:
            time.sleep(min(1.0, 0.3 * solo_synth))  # let them get going
        prep = timed(lambda: W.prep(out, StageClock()))
        g2 = timed(lambda: W.b_g2(po, work, StageClock(), pool_threads))
        stop.set()
        for t in ts:
            t.join()
        rows.append({"syntheses": s, "prep_msm_s": prep, "b_g2_msm_s": g2})
    base = next((r for r in rows if r["syntheses"] == 0), None)
    for r in rows:
        if base:
            r["prep_msm_slowdown"] = r["prep_msm_s"] / base["prep_msm_s"]
            r["b_g2_msm_slowdown"] = r["b_g2_msm_s"] / base["b_g2_msm_s"]
    return {"log2_constraints": log2_constraints, "pool_threads": pool_threads,
            "synth_threads": 1, "repeat": repeat, "solo_synth_s": solo_synth,
            "b_g2_tail": int(po.b.tail), "rows": rows}


def measure_witness_slope(log2_constraints: int, *, backend: str = "cpu",
                          witness_work: float = 1.0, repeat: int = 3, seed: int = 0) -> dict:
    """Return the one-thread witness seconds at ``witness_work`` and at another work, and the slope.

    The same circuit program is evaluated at both works (only its extra work per
    gate differs), on one thread, medians of ``repeat``; the other work is 0, or
    1 when ``witness_work`` is 0. ``witness_s_per_work`` is the seconds one unit
    of witness work adds to a partition's synthesis.
    """
    import dataclasses
    from ..live import workload
    work = workload(log2_constraints, seed, backend, witness_work)
    other = 0.0 if witness_work > 0 else 1.0
    inputs = work.inputs(0, 0)
    times = {}
    for w in (witness_work, other):
        prog = dataclasses.replace(work.program, witness_work=float(w))
        t = time.perf_counter()
        prog.witness(inputs)  # untimed: the first call touches the program's tables
        # small circuits evaluate in well under a millisecond: time enough calls per sample
        calls = max(1, min(1000, int(MIN_SAMPLE_S / max(time.perf_counter() - t, 1e-6))))
        xs = []
        for _ in range(repeat):
            t = time.perf_counter()
            for _ in range(calls):
                prog.witness(inputs)
            xs.append((time.perf_counter() - t) / calls)
        times[w] = float(statistics.median(xs))
    slope = (times[witness_work] - times[other]) / (witness_work - other)
    return {"witness_work": witness_work, "witness_s": times[witness_work],
            "other_work": other, "witness_s_at_other": times[other],
            "witness_s_per_work": max(0.0, slope), "repeat": repeat}


def measure_cores(log2_constraints: int, *, backend: str = "cpu", counts=None,
                  witness_work: float = 1.0, seed: int = 0) -> dict:
    """Return the effective cores of this host for synthesis, from k one-thread syntheses at once.

    Each count k starts k one-thread syntheses together; the host's capacity at k
    is k x (one synthesis alone) / (their mean duration). A vCPU that is an SMT
    sibling, or that shares caches and memory bandwidth, is less than a core.
    The slowdowns against k are what
    :func:`~cuzklab.calibrate.contention.fit_synth_sharing` explains with the
    model's core and bandwidth sharing.
    """
    from ..live import workload
    from ..live import work as W
    from ..stages import StageClock
    cores = host_cores()
    counts = sorted(set(counts or sorted({1, 2, max(1, cores // 4), max(1, cores // 2), cores})))
    work = workload(log2_constraints, seed, backend, witness_work)
    W.synthesize(work, 0, 0, StageClock(), 1)  # warm
    solos = []
    for i in range(3):
        t = time.perf_counter()
        W.synthesize(work, 0, 1 + i, StageClock(), 1)
        solos.append(time.perf_counter() - t)
    solo = statistics.median(solos)
    rows = []
    for k in counts:
        barrier = threading.Barrier(k)
        durs = [0.0] * k

        def one(i):
            barrier.wait()
            t0 = time.perf_counter()
            W.synthesize(work, 7, i, StageClock(), 1)
            durs[i] = time.perf_counter() - t0

        ts = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(k)]
        for th in ts:
            th.start()
        for th in ts:
            th.join()
        mean = statistics.fmean(durs)
        rows.append({"syntheses": k, "mean_s": mean, "slowdown": mean / solo,
                     "capacity_cores": k * solo / mean})
    full = rows[-1]
    return {"logical_cores": cores, "solo_synth_s": solo, "rows": rows,
            "effective_cores": full["capacity_cores"]}
