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
* :func:`measure_matvec_pool`: MatVecs on their shared pool and b_g2_msm
  calls on theirs, each alone and beside a steady load of the other.
* :class:`HostSpeed`: a one-thread chain of Fr products timed before every
  step and at the end, so that a host whose speed drifts over the minutes of a
  calibration shows it beside the steps' own timings.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import threading
import time

import numpy as np

from ..errors import ConfigError

GIB = 2**30
#: Shortest timed sample of :func:`measure_witness_slope` (seconds): calls are repeated to reach it.
MIN_SAMPLE_S = 0.05

#: Passes of :func:`measure_contention` over its counts (each there and back).
CONTENTION_ROUNDS = 4
#: Seconds of the host probe timed before and after each prep_msm call of the contention curve.
PROBE_S = 0.002

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
    from ..native.bench import copy_gbps
    threads = threads or host_cores()
    return {"threads": threads,
            "gbps_1_thread": round(copy_gbps(1, mib_per_thread=mib_per_thread, seconds=seconds), 2),
            "gbps_all_threads": round(copy_gbps(threads, mib_per_thread=mib_per_thread, seconds=seconds), 2),
            "mib_per_thread": mib_per_thread}


def llc_mib(root: str = "/sys/devices/system/cpu/cpu0/cache") -> float:
    """Return the size of this host's last-level cache in MiB, as the kernel reports it (0: unknown).

    The largest cache of the highest level CPU 0 sees (``index*/level`` and
    ``index*/size``, e.g. ``307200K``); on a virtual machine it is what the
    hypervisor tells the guest.
    """
    import glob
    best = (0, 0.0)
    for d in glob.glob(os.path.join(root, "index*")):
        try:
            level = int(open(os.path.join(d, "level")).read().strip())
            text = open(os.path.join(d, "size")).read().strip().upper()
        except (OSError, ValueError):
            continue
        unit = {"K": 1 / 1024, "M": 1.0, "G": 1024.0}.get(text[-1:], None)
        try:
            size = float(text[:-1]) * unit if unit else float(text) / 2**20
        except ValueError:
            continue
        best = max(best, (level, size))
    return round(best[1], 3)


def measure_contention(log2_constraints: int, counts, *, pool_threads: int,
                       backend: str = "cpu", repeat: int = 3, witness_work: float = 1.0,
                       seed: int = 0, there_and_back: bool = True,
                       rounds: int | None = None, host_probe: bool = True) -> dict:
    """Return prep_msm and b_g2_msm seconds (medians) beside each count of running syntheses.

    Each loaded synthesis runs the live executor's synthesis on one thread (its
    MatVec on one thread too), in a loop over other partitions' inputs. prep_msm
    and b_g2_msm each run once untimed first, so no point pays for a first call.
    On the GPU backend each point also times one partition's GPU region (its
    kernels from device-resident inputs, ``gpu_region_s``): the host side that
    drives the kernels shares the CPU with the syntheses.

    ``there_and_back`` (the default) visits the counts in order, then in the
    reverse order, and takes each point's median over both visits: a host whose
    speed drifts while it measures (a virtual machine's cores are shared with
    other guests) then moves the first and the last points alike, and a slowdown
    against the first point does not take the drift for contention. Each row keeps
    its visits' medians (``visits``) so that the drift can be read.

    ``rounds`` (None: :data:`CONTENTION_ROUNDS`) repeats that schedule: each point is visited ``2 x rounds`` times
    (``rounds`` without ``there_and_back``), the visits of one point spread over the
    whole measurement. A one-thread prep_msm of a few milliseconds on a shared host
    keeps one speed for a visit and another for the next (the eighth job's visits of one
    point: 13.7 and 22.1 ms with no synthesis; docs/calibrate.md): the median over more
    visits is less one visit's luck.

    ``host_probe`` (the default) times a short one-thread chain of Fr products in
    registers (:class:`HostSpeed`'s probe, ``PROBE_S`` or a quarter of one prep_msm call,
    whichever is shorter) on the same thread right before
    and right after every prep_msm call. The host's one-thread speed flips between
    states that last a fraction of a second to seconds (on an H200 host, pinned to
    one CPU, prep_msm ran at ~19 or ~27 ms by turns with nothing beside it), longer
    than one call and shorter than a visit; each call is then taken over the mean
    of its two probes, the point's figure is the median of those ratios times the
    probe's median over the whole measurement (``prep_msm_s``: prep_msm at the
    host's median speed). The call's own seconds stay under ``prep_msm_raw_s`` and
    the probe's under ``host_probe_s``, with their slowdowns. The ratio is used
    only where the probe itself did not slow beside the syntheses
    (:func:`probe_steady` at every count, on every call's probe; ``prep_over_probe``): a probe that
    slows (all cores busy, the GIL, a clock that drops with load) shares the load
    with prep_msm, and the ratio would hide it, so ``prep_msm_s`` is then the raw
    seconds.

    Each slowdown is the median over passes of a visit beside S syntheses over the
    visit beside none in the same pass (:func:`add_slowdowns`, ``slowdowns:
    "paired"``): the visits of one point spread over the measurement, and a host
    that runs slow for a whole pass moves the two visits of its pair alike.
    """
    from ..live import workload
    from ..live import work as W
    from ..stages import StageClock
    counts = [int(c) for c in counts]
    if not counts or min(counts) < 0:
        raise ConfigError("contention", f"expected counts >= 0, got {counts!r}")
    rounds = check_rounds(rounds)
    work = workload(log2_constraints, seed, backend, witness_work)
    out = W.synthesize(work, 0, 0, StageClock(), 1)
    po = W.prep(out, StageClock())
    # untimed: b_g2_msm's first call starts its pool of pool_threads and touches the
    # bases, which no point of the curve should pay for (the first point is 0 syntheses)
    W.b_g2(po, work, StageClock(), pool_threads)
    region = _gpu_region(work, out, po) if backend == "gpu" else None
    if region is not None:
        region()  # untimed: the kernels' first launch

    def timed(fn, calls: int = 1) -> float:
        xs = []
        for _ in range(repeat):
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            xs.append((time.perf_counter() - t) / calls)
        return float(statistics.median(xs))

    probe_calls: dict[int, list] = {}   # every call's probe, per count (probe_steady)

    def timed_each(fn, calls: int, keep: list) -> tuple[float, float, float]:
        """Return the median seconds of ``fn``, of the probe and of fn over its probes
        (each call's probe appended to ``keep``)."""
        xs, ps, rs = [], [], []
        for _ in range(repeat):
            ys, qs, zs = [], [], []
            before = probe() if probe else 0.0
            for _ in range(calls):
                t = time.perf_counter()
                fn()
                ys.append(time.perf_counter() - t)
                if probe:
                    after = probe()
                    qs.append(0.5 * (before + after))
                    zs.append(ys[-1] / qs[-1])
                    before = after
            xs.append(statistics.median(ys))
            if probe:
                ps.append(statistics.median(qs))
                rs.append(statistics.median(zs))
                keep.extend(qs)
        med = float(statistics.median(xs))
        if not probe:
            return med, float("nan"), float("nan")
        return med, float(statistics.median(ps)), float(statistics.median(rs))

    solo_synth = timed(lambda: W.synthesize(work, 0, 1, StageClock(), 1))
    # prep_msm is a few milliseconds at these sizes: each sample is the median of enough calls,
    # each timed on its own, to last MIN_SAMPLE_S, so neither a point nor a sample is one
    # scheduler hiccup or page-fault storm (a mean of calls took those in)
    t = time.perf_counter()
    W.prep(out, StageClock())
    one_prep = max(time.perf_counter() - t, 1e-6)
    prep_calls = max(1, min(100, int(MIN_SAMPLE_S * 4 / one_prep)))
    probe = None
    if host_probe:
        from ..native.bench import chain_length, chain_s
        # PROBE_S, or a quarter of a call where prep_msm is shorter (tiny sizes)
        n_probe = chain_length(min(PROBE_S, 0.25 * one_prep))
        probe = lambda: chain_s(n_probe, 1)  # noqa: E731 (inline on this thread)
    samples: dict[int, dict[str, list]] = {}
    schedule = (counts + counts[::-1] if there_and_back else counts) * rounds

    def synthesize(i, k):
        W.synthesize(work, 1 + i, k % 200, StageClock(), 1)

    for s in schedule:
        # the syntheses get going before anything is timed
        with busy(s, synthesize, min(1.0, 0.3 * solo_synth)):
            got = samples.setdefault(s, {})
            raw, probe_s, ratio = timed_each(lambda: W.prep(out, StageClock()), prep_calls,
                                             probe_calls.setdefault(s, []))
            got.setdefault("prep_msm_raw_s" if probe else "prep_msm_s", []).append(raw)
            if probe:
                got.setdefault("host_probe_s", []).append(probe_s)
                got.setdefault("prep_msm_ratio", []).append(ratio)
            got.setdefault("b_g2_msm_s", []).append(
                timed(lambda: W.b_g2(po, work, StageClock(), pool_threads)))
            if region is not None:
                got.setdefault("gpu_region_s", []).append(timed(region))
    # the probe's median over every visit: the host's median one-thread speed
    probe_ref = (statistics.median(x for v in samples.values() for x in v["host_probe_s"])
                 if probe else None)
    steady = probe_steady(probe_calls) if probe else None
    # no count beside the solo one: nothing could have reached the probe (all of nothing)
    over_probe = steady is not None and all(steady.values())
    rows = []
    for s in dict.fromkeys(counts):  # each count once, in the order asked
        row = {"syntheses": s}
        for key, xs in samples[s].items():
            if key != "prep_msm_ratio":
                row[key] = float(statistics.median(xs))
        if probe:
            row["prep_msm_s"] = (float(statistics.median(samples[s]["prep_msm_ratio"])) * probe_ref
                                 if over_probe else row["prep_msm_raw_s"])
        row["visits"] = {key: [round(x, 6) for x in xs] for key, xs in samples[s].items()}
        rows.append(row)
    paired = add_slowdowns(rows, over_probe=bool(probe) and over_probe)
    return {"log2_constraints": log2_constraints, "pool_threads": pool_threads,
            "synth_threads": 1, "repeat": repeat, "there_and_back": bool(there_and_back),
            "rounds": rounds, "host_probe_s": probe_ref,
            "prep_over_probe": over_probe if probe else None,
            "probe_steady": ({str(k): v for k, v in steady.items()} if steady is not None else None),
            "solo_synth_s": solo_synth, "slowdowns": "paired" if paired else "medians",
            "b_g2_tail": int(po.b.tail), "prep_calls_per_sample": prep_calls, "rows": rows}


#: Each slowdown of the contention curve and the visits it is taken from (prep_msm: its
#: calls over the host probe, or its seconds where the curve has no probe or keeps them raw).
SLOWDOWN_VISITS = {"prep_msm_raw": "prep_msm_raw_s", "host_probe": "host_probe_s",
                   "b_g2_msm": "b_g2_msm_s", "gpu_region": "gpu_region_s"}


def paired_slowdown(visits: list, base: list) -> float | None:
    """Return the median over passes of (a visit beside S syntheses / the visit beside none
    of the same pass); None unless both have the same number of visits, at least two.

    The visits of every count run in the same order in each pass (there and back), so
    visit i of each count falls in pass i: a host whose speed drifts over the
    measurement moves the two visits of a pair alike, and a pass that ran slow
    throughout counts as one pair, not as a slow point.
    """
    if not visits or len(visits) != len(base) or len(visits) < 2 or min(base) <= 0:
        return None
    return float(statistics.median(x / b for x, b in zip(visits, base)))


def add_slowdowns(rows: list[dict], *, over_probe: bool) -> bool:
    """Set each row's ``{stage}_slowdown`` against the row beside no synthesis; return
    whether they are paired by pass (:func:`paired_slowdown`, every row's visits).

    Without the visits of each pass (a single pass, or visits of unequal numbers), a
    slowdown is the ratio of the two rows' medians.
    """
    base = next((r for r in rows if r["syntheses"] == 0), None)
    if base is None:
        return False
    keys = dict(SLOWDOWN_VISITS, prep_msm="prep_msm_ratio" if over_probe else
                ("prep_msm_raw_s" if "prep_msm_raw_s" in base else "prep_msm_s"))
    bv = base.get("visits") or {}
    paired = True
    for r in rows:
        v = r.get("visits") or {}
        for key, vkey in keys.items():
            if f"{key}_s" not in r or not base.get(f"{key}_s"):
                continue
            x = paired_slowdown(v.get(vkey) or [], bv.get(vkey) or [])
            if x is None:
                paired = False
                x = r[f"{key}_s"] / base[f"{key}_s"]
            r[f"{key}_slowdown"] = x
    return paired


def check_rounds(rounds, name: str = "rounds") -> int:
    """Return the contention visits' rounds: ``rounds``, or :data:`CONTENTION_ROUNDS` for None.

    Anything but an int >= 1 is a ConfigError naming ``name``.
    """
    if rounds is None:
        return CONTENTION_ROUNDS
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError(name, f"must be an integer >= 1, got {rounds!r}")
    return rounds


def probe_steady(calls: dict) -> dict[int, bool] | None:
    """Return {S: whether the probe beside S syntheses ran as it did beside none}.

    ``calls``: {S: every prep_msm call's probe seconds}. The probe's median beside
    S lies between the 5th and 95th percentiles of its calls beside none (the
    host's own states, a hiccup left out). Where it does not, the load reached
    the measuring thread itself (cores all busy, the GIL) and prep_msm over the
    probe would hide that: the curve keeps prep_msm's raw seconds. None without
    a solo point or with fewer than 20 of its calls (too few to tell the host's
    spread).
    """
    base = list(calls.get(0) or [])
    if len(base) < 20:
        return None
    lo, hi = (float(x) for x in np.percentile(base, [5, 95]))
    return {s: lo <= statistics.median(v) <= hi for s, v in calls.items() if s != 0 and v}


def _gpu_region(work, out, po):
    """Return a call that runs one partition's kernels (ntt_h, batch_add, tail_msm) and waits.

    Its a, b, c and the prep output are on the device already (no upload), so the
    call times what the host does to drive the kernels plus the kernels themselves.
    """
    from ..backend import xp
    from ..live import work as W
    from ..stages import StageClock
    cp = xp("gpu")
    pk = work.key_on("gpu")
    dev_out = W.with_abc(out, out.a.to("gpu"), out.b.to("gpu"), out.c.to("gpu"))

    def region():
        clock = StageClock()
        W.kernels_ntt_h(dev_out, pk, "gpu", clock)
        _, dev_prep = W.kernels_batch_add_from_host(po, pk, "gpu", clock)
        W.kernels_tail_msm(dev_prep, pk, "gpu", clock)
        cp.cuda.Device().synchronize()
    return region


def gpu_region_for(log2_constraints: int, *, seed: int = 0):
    """Return :func:`_gpu_region`'s call for one MatVec-only partition of 2^K rows (GPU backend)."""
    from ..live import workload
    from ..live import work as W
    from ..stages import StageClock
    work = workload(log2_constraints, seed, "gpu", 0.0)
    out = W.synthesize(work, 0, 0, StageClock(), 1)
    return _gpu_region(work, out, W.prep(out, StageClock()))


def measure_witness_slope(log2_constraints: int, *, backend: str = "cpu",
                          witness_work: float = 1.0, repeat: int = 3, seed: int = 0) -> dict:
    """Return the one-thread witness seconds at ``witness_work`` and at another work, and the slope.

    The same circuit program is evaluated at both works (only its extra work per
    gate differs), on one thread, medians of ``repeat``; the other work is 0, or
    1 when ``witness_work`` is 0. ``witness_s_per_work`` is the seconds one unit
    of witness work adds to a partition's synthesis. Then whole one-thread
    syntheses (witness, MatVec and their buffers), one at each work in turn on
    fresh partitions, ``repeat`` pairs: ``synth_s`` and ``synth_s_at_other``
    (medians) and ``synth_ratio_at_other``, the geometric mean of each pair's
    ratio, timed in the same seconds so that the host's pace cancels (the line
    :func:`~cuzklab.calibrate.compare.profile_at_witness_work` puts other works on).
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
    from ..live import work as W
    from ..stages import StageClock
    works = {w: work.at_witness_work(w) for w in (witness_work, other)}
    for w in works.values():
        W.synthesize(w, 0, 0, StageClock(), 1)  # untimed: the tables and buffers
    pairs = []
    for i in range(repeat):
        one = []
        for w in (witness_work, other):
            t = time.perf_counter()
            W.synthesize(works[w], 0, 1 + i, StageClock(), 1)
            one.append(time.perf_counter() - t)
        pairs.append(one)
    ratio = float(np.exp(np.mean([np.log(b / a) for a, b in pairs])))
    return {"witness_work": witness_work, "witness_s": times[witness_work],
            "other_work": other, "witness_s_at_other": times[other],
            "witness_s_per_work": max(0.0, slope), "repeat": repeat,
            "synth_s": float(statistics.median(a for a, _ in pairs)),
            "synth_s_at_other": float(statistics.median(b for _, b in pairs)),
            "synth_ratio_at_other": ratio}


def measure_cores(log2_constraints: int, *, backend: str = "cpu", counts=None,
                  witness_work: float = 1.0, seed: int = 0, other_work: float | None = None,
                  other_rounds: int = 3) -> dict:
    """Return the effective cores of this host for synthesis, from k one-thread syntheses at once.

    Each count k starts k one-thread syntheses together; the host's capacity at k
    is k x (one synthesis alone) / (their mean duration). A vCPU that is an SMT
    sibling, or that shares caches and memory bandwidth, is less than a core.
    The slowdowns against k are what
    :func:`~cuzklab.calibrate.contention.fit_synth_sharing` explains with the
    model's core and bandwidth sharing. Each synthesis's witness and MatVec seconds
    are kept beside its seconds.

    ``other_work``: the same counts again at that witness work (``at_other``), each
    count ``other_rounds`` times, the rounds interleaved (a W=0 synthesis is short
    and a host's pace moves): how one synthesis's witness step slows beside others
    at that work, which the curve at ``witness_work`` does not show when the extra
    work is compute that keeps to its core (:func:`witness_at_once_text`).
    """
    from ..live import check_witness_work, workload
    from ..live import work as W
    from ..stages import StageClock
    if other_work is not None:
        try:
            check_witness_work(other_work)
        except ConfigError as exc:
            raise ConfigError("other_work", exc.message) from None
        if isinstance(other_rounds, bool) or not isinstance(other_rounds, int) or other_rounds < 1:
            raise ConfigError("other_rounds", f"must be an integer >= 1, got {other_rounds!r}")
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
        rows.append(_at_once(W, work, k))
        rows[-1].update(slowdown=rows[-1]["mean_s"] / solo,
                        capacity_cores=k * solo / rows[-1]["mean_s"])
    full = rows[-1]
    out = {"logical_cores": cores, "solo_synth_s": solo, "rows": rows,
           "effective_cores": full["capacity_cores"]}
    if other_work is not None:
        other = workload(log2_constraints, seed, backend, other_work)
        W.synthesize(other, 0, 0, StageClock(), 1)  # warm
        runs = {k: [] for k in counts}
        for _ in range(other_rounds):
            for k in counts:
                runs[k].append(_at_once(W, other, k))
        out["at_other"] = {"witness_work": float(other_work), "rounds": other_rounds,
                           "rows": [_pooled(k, runs[k]) for k in counts]}
    return out


def _at_once(W, work, k: int) -> dict:
    """Return k one-thread syntheses of ``work`` started together: each one's seconds, its
    thread's CPU seconds (the whole synthesis runs on it: durations that spread with CPU
    seconds as long are threads on cores of unequal speed, CPU seconds below the durations
    are threads waiting for a core) and its witness and MatVec seconds."""
    from ..stages import StageClock
    barrier = threading.Barrier(k)
    durs, cpus, wit, mvs = [0.0] * k, [0.0] * k, [0.0] * k, [0.0] * k

    def one(i):
        barrier.wait()
        t0, c0 = time.perf_counter(), time.thread_time()
        o = W.synthesize(work, 7, i, StageClock(), 1)
        durs[i] = time.perf_counter() - t0
        cpus[i] = time.thread_time() - c0
        wit[i], mvs[i] = float(o.witness_s), float(o.matvec_s)

    ts = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(k)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    return {"syntheses": k, "mean_s": statistics.fmean(durs),
            "durations_s": [round(d, 6) for d in durs], "cpu_s": [round(c, 6) for c in cpus],
            "witness_s": [round(x, 6) for x in wit], "matvec_s": [round(x, 6) for x in mvs]}


def _pooled(k: int, runs: list[dict]) -> dict:
    """Return one count's rounds together: every synthesis's seconds and the medians."""
    keys = ("durations_s", "cpu_s", "witness_s", "matvec_s")
    row = {"syntheses": k, **{key: [x for r in runs for x in r[key]] for key in keys}}
    row.update(witness_median_s=statistics.median(row["witness_s"]),
               matvec_median_s=statistics.median(row["matvec_s"]),
               median_s=statistics.median(row["durations_s"]))
    return row


def measure_matvecs(log2_constraints: int, *, pool_threads: int, backend: str = "cpu",
                    thread_counts=None, counts=None, repeat: int = 3, seed: int = 0) -> dict:
    """Return how the MatVec scales on a pool and how MatVecs on one shared pool slow each other.

    The syntheses run at witness work 0, so each is almost all MatVec; each
    call's MatVec seconds are its own (``SynthOutput.matvec_s``, the witness
    step left out). Two curves:

    * ``scaling``: one MatVec alone on a pool of t threads, for each t of
      ``thread_counts`` (medians of ``repeat``), with its speed-up on one thread;
    * ``at_once``: k MatVecs started together on ONE pool of ``pool_threads``
      threads (the live executor's shared MatVec pool, cuzk's rayon pool), for
      each k of ``counts``: their mean seconds over one MatVec alone on that pool,
      and each repeat's wave (``waves``: every synthesis's witness seconds and when
      each ended from the common start; a live row's first wave at witness work 0
      without the GPU and b_g2_msm work beside it).

    A MatVec that scaled perfectly would take 1/t of its one-thread time on t
    threads, and k at once would take k times one alone; what the two curves show
    beyond that (its serial part, the memory it streams and gathers) is what
    :func:`~cuzklab.calibrate.contention.fit_matvec` explains.
    """
    from ..live import workload
    from ..live import work as W
    from ..native.pool import NativePool
    from ..stages import StageClock
    pool_threads = int(pool_threads)
    if pool_threads < 1:
        raise ConfigError("pool_threads", f"must be an integer >= 1, got {pool_threads!r}")
    threads = sorted({int(t) for t in (thread_counts or (1, 2, 4, 8, pool_threads))
                      if 1 <= int(t) <= pool_threads} | {1, pool_threads})
    ks = sorted({int(k) for k in (counts or (1, 2, 4, 8, 12)) if int(k) >= 1} | {1})
    work = workload(log2_constraints, seed, backend, 0.0)
    pools = {t: NativePool(t, f"calibrate-matvec-{t}") for t in threads}
    try:
        def synth(t: int, part: int):
            return W.synthesize(work, 3, part, StageClock(), t, pools[t])

        scaling = []
        for t in threads:
            synth(t, 0)  # untimed: starts the pool's threads and touches the program's tables
            s = float(statistics.median(synth(t, 1 + i).matvec_s for i in range(repeat)))
            scaling.append({"threads": t, "matvec_s": s})
        one = scaling[0]["matvec_s"]
        for r in scaling:
            r["speedup"] = one / r["matvec_s"] if r["matvec_s"] > 0 else 0.0
        alone = next(r["matvec_s"] for r in scaling if r["threads"] == pool_threads)
        at_once = []
        for k in ks:
            means, waves = [], []
            for rep in range(repeat if k == 1 else max(1, repeat // 2)):
                t0 = [0.0]
                # the start: taken as the last thread arrives, before any is released
                barrier = threading.Barrier(k, action=lambda t0=t0: t0.__setitem__(
                    0, time.perf_counter()))
                durs, wits, ends = [0.0] * k, [0.0] * k, [0.0] * k

                def one_of(i, rep=rep, barrier=barrier, durs=durs, wits=wits, ends=ends):
                    barrier.wait()
                    out = synth(pool_threads, 10 + 50 * rep + i)
                    ends[i] = time.perf_counter()
                    durs[i], wits[i] = out.matvec_s, out.witness_s

                ts = [threading.Thread(target=one_of, args=(i,), daemon=True) for i in range(k)]
                for th in ts:
                    th.start()
                for th in ts:
                    th.join()
                means.append(statistics.fmean(durs))
                # the wave: each synthesis's witness seconds and when it ended, from the start
                waves.append({"witness_s": [round(x, 6) for x in wits],
                              "ends_s": sorted(round(e - t0[0], 6) for e in ends)})
            mean = float(statistics.median(means))
            at_once.append({"matvecs": k, "mean_s": mean, "slowdown": mean / alone if alone else 0.0,
                            "waves": waves})
    finally:
        for p in pools.values():
            p.shutdown(wait=True)
    return {"log2_constraints": log2_constraints, "pool_threads": pool_threads,
            "repeat": repeat, "one_thread_s": one, "alone_on_pool_s": alone,
            "scaling": scaling, "at_once": at_once}


def measure_gpu_host(log2_constraints: int, *, backend: str = "gpu", load_threads: int = 0,
                     repeat: int = 5, seed: int = 0, region=None) -> dict:
    """Return one partition's GPU region alone and beside a load that oversubscribes the cores.

    The region (ntt_h, batch_add, tail_msm from device-resident inputs) is driven
    by one host thread that issues the launches and waits. ``load_threads``
    (default: twice the cores) native threads run chains of Fr products that
    need no memory and hold the GIL only between calls tens of milliseconds long,
    so the region's thread gets only its share of a core: how much longer the
    region takes then is the host's share of it
    (:func:`~cuzklab.calibrate.contention.fit_gpu_host_share`).
    Medians of ``repeat``; only on the GPU backend. ``region``: a call to time
    instead of the partition's kernels (a test's stand-in).
    """
    from ..native.bench import CHAIN_SEED, median_s
    from ..native.build import library
    from ..native.pool import ptr
    if region is None and backend != "gpu":
        raise ConfigError("backend", f"the GPU region's host share needs backend 'gpu', got {backend!r}")
    n_load = int(load_threads) or 2 * host_cores()
    if region is None:
        region = gpu_region_for(log2_constraints, seed=seed)
    region()  # untimed: the first launch
    solo = float(median_s(region, repeat))
    lib = library()

    def burn(i, k):
        # ~25-50 ms a call with the GIL released: the load takes the GIL a few times a
        # second, so what it measures is the cores' share, not a queue for the GIL
        lib.fr_chain(ptr(CHAIN_SEED), 1_000_000)

    with busy(n_load, burn, 0.05):
        loaded = float(median_s(region, repeat))
    return {"log2_constraints": log2_constraints, "load_threads": n_load, "cores": host_cores(),
            "solo_s": solo, "loaded_s": loaded, "slowdown": loaded / solo if solo else 0.0,
            "repeat": repeat}


def b_g2_at_once(preps: list, work, pool_threads: int, k: int) -> float:
    """Return the seconds until the last of ``k`` b_g2_msm calls started together on the
    pool of ``pool_threads`` ends (call i on ``preps[i % len(preps)]``)."""
    from ..live import work as W
    from ..stages import StageClock
    return together([lambda x=preps[i % len(preps)]: W.b_g2(x, work, StageClock(), pool_threads)
                     for i in range(k)])


def b_g2_profile(prep_out, work, pool_threads: int) -> dict:
    """Return one b_g2_msm call of ``prep_out`` on its pool, phase by phase and width by width.

    The call the live executor's stage makes (``W.b_g2``), with the seconds of
    each of its phases (``cuzklab.native.msm_g2.PHASES``: the caller's set-up,
    the digit pass, the window tasks, the combination) and, on a pool of more
    than one thread, under ``widths_s`` the seconds with k = 0..pool_threads of
    its threads inside a task (:meth:`~cuzklab.native.pool.NativePool.widths`).
    """
    from ..backend import to_numpy
    from ..native.msm_g2 import g2_msm
    from ..native.pool import native_pool
    pool = native_pool(pool_threads) if pool_threads > 1 else None
    out: dict = {}
    if pool is not None:
        pool.widths(reset=True)
    g2_msm(work.pk_cpu.b_g2, prep_out.b.tail_scalars.to("cpu"),
           idx=to_numpy(prep_out.b.tail_idx), threads=pool_threads, phases=out)
    if pool is not None:
        out["widths_s"] = [float(x) for x in pool.widths(reset=True)]
    return out


def median_profile(calls: list[dict]) -> dict:
    """Return the median of each entry of :func:`b_g2_profile` over ``calls`` (the width
    profile width by width)."""
    out = {}
    for key, v in calls[0].items():
        if isinstance(v, list):
            out[key] = [float(statistics.median(c[key][i] for c in calls)) for i in range(len(v))]
        else:
            out[key] = float(statistics.median(c[key] for c in calls))
    return out


def b_g2_phases(prep_out, work, pool_threads: int, repeat: int = 3) -> dict:
    """Return :func:`b_g2_profile` of one call alone on its pool, the median of ``repeat``:
    how much of a call alone runs on fewer threads than the pool has."""
    return median_profile([b_g2_profile(prep_out, work, pool_threads)
                           for _ in range(max(1, int(repeat)))])


@contextlib.contextmanager
def busy(n: int, step, warm_s: float = 0.0):
    """Keep ``n`` threads of their own running ``step(i, k)`` (thread i, its k-th call) over
    and over for the ``with`` block, which starts ``warm_s`` seconds after them (none when
    ``n`` is 0); at its end they finish their call and are joined."""
    stop = threading.Event()

    def loop(i):
        k = 0
        while not stop.is_set():
            step(i, k)
            k += 1

    ts = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(n)]
    for th in ts:
        th.start()
    try:
        if n and warm_s > 0:
            time.sleep(warm_s)
        yield
    finally:
        stop.set()
        for th in ts:
            th.join()


def together(fns) -> float:
    """Return the seconds from starting every function of ``fns`` at once, each on a
    thread of its own behind one barrier, until the last one returns."""
    barrier = threading.Barrier(len(fns) + 1)
    ts = [threading.Thread(target=lambda f=f: (barrier.wait(), f()), daemon=True) for f in fns]
    for th in ts:
        th.start()
    barrier.wait()
    t = time.perf_counter()
    for th in ts:
        th.join()
    return time.perf_counter() - t


def measure_b_g2_pool(log2_constraints: int, *, pool_threads: int, backend: str = "cpu",
                      counts=None, repeat: int = 3, seed: int = 0, region=None,
                      distinct: bool = True) -> dict:
    """Return how b_g2_msm calls share their pool: k calls at once, and the GPU region beside them.

    The live executor runs every b_g2_msm of a run on one persistent pool of
    ``pool_threads`` native threads (cuzk's ``gpu_threads`` pool): concurrent
    calls queue their (window, point range) tasks on it. One call alone leaves
    threads idle (its digit pass and window combine on the caller's thread, the
    last round of tasks); k calls at once keep the pool full. For each k of
    ``counts`` (1 always included) the k calls start together; ``makespan_s`` is
    the time until the last one ends (median of ``repeat``). The slope of the
    makespan against k is what one more call costs a full pool:
    ``pool_core_s`` = pool_threads x slope thread-seconds, and ``serial_s`` =
    the makespan of one call alone minus that slope, the part of a call that
    runs beside an idle pool. The k calls are of k different partitions (their own
    witnesses: the same G2 tail bases, which the circuit fixes, under other scalars, so
    other digits and buckets), as the calls of a run are; ``distinct``
    is False for k calls of one partition, as this measurement was made before (a run's
    calls then followed one another every 0.15-0.23 s with the pool backed up, where the
    slope of k copies of one call was 0.11-0.13 s; the twenty-fourth and twenty-fifth
    H200 jobs, docs/calibrate.md; on a two-core machine at 2^18, six calls one after
    another took 1.96 s for six partitions against 1.83 s for one, so the copies' shared
    digits explain a few per cent of that at most).

    On the GPU backend (or with a stand-in ``region``) one partition's GPU
    region is also timed alone and while b_g2_msm calls run back to back on the
    pool (``gpu_region_alone_s``, ``gpu_region_beside_s``): the host thread that
    drives the kernels then competes with the pool's threads, as a GPU worker
    does under ``split_async``.
    """
    from ..live import workload
    from ..live import work as W
    from ..native.bench import median_s
    from ..stages import StageClock
    pool_threads = int(pool_threads)
    if pool_threads < 1:
        raise ConfigError("pool_threads", f"must be an integer >= 1, got {pool_threads!r}")
    ks = sorted({int(k) for k in (counts or (1, 4, 8)) if int(k) >= 1} | {1})
    if len(ks) < 2:
        raise ConfigError("counts", f"need a count above 1 for the slope, got {counts!r}")
    work = workload(log2_constraints, seed, backend, 0.0)
    out = W.synthesize(work, 0, 0, StageClock(), 1)
    po = W.prep(out, StageClock())
    # one prep output per call of the largest count: partition i's own (0: the one above)
    pos = [po] + [W.prep(W.synthesize(work, 0, i, StageClock(), pool_threads), StageClock())
                  for i in range(1, max(ks) if distinct else 1)]
    for x in pos:  # untimed: starts the pool, touches the bases and each call's data
        W.b_g2(x, work, StageClock(), pool_threads)

    rows = [{"calls": k, "makespan_s": float(statistics.median(
                b_g2_at_once(pos, work, pool_threads, k) for _ in range(repeat)))}
            for k in ks]
    phases = b_g2_phases(po, work, pool_threads, repeat)
    xs = np.array([r["calls"] for r in rows], dtype=float)
    ys = np.array([r["makespan_s"] for r in rows])
    slope = max(float(np.polyfit(xs, ys, 1)[0]), 1e-9)
    alone = rows[0]["makespan_s"]
    res = {"log2_constraints": log2_constraints, "pool_threads": pool_threads, "repeat": repeat,
           "b_g2_tail": int(po.b.tail), "distinct_partitions": len(pos),
           "rows": rows, "alone_s": alone, "slope_s": slope,
           "pool_core_s": pool_threads * min(slope, alone),
           "serial_s": max(0.0, alone - slope), "phases_alone": phases}
    if region is None and backend == "gpu":
        region = _gpu_region(work, out, po)
    if region is not None:
        region()  # untimed: the first launch
        res["gpu_region_alone_s"] = float(median_s(region, max(repeat, 5)))
        with busy(max(2, pool_threads // 4),
                  lambda i, k: W.b_g2(po, work, StageClock(), pool_threads),
                  min(0.5, 2 * alone)):
            res["gpu_region_beside_s"] = float(median_s(region, max(repeat, 5)))
        res["gpu_region_slowdown"] = res["gpu_region_beside_s"] / max(res["gpu_region_alone_s"], 1e-12)
    return res


def measure_matvec_pool(log2_constraints: int, *, matvec_threads: int, pool_threads: int,
                        backend: str = "cpu", matvecs: int = 4, calls: int | None = None,
                        repeat: int = 3, seed: int = 0, witness_work: float = 0.0,
                        only_witness: bool = False) -> dict:
    """Return how the shared MatVec pool and the b_g2_msm pool split the cores when both are busy.

    The live executor runs the MatVecs of every synthesis on one pool of
    ``matvec_threads`` native threads and every b_g2_msm on another of
    ``pool_threads``; in a run whose syntheses are mostly MatVec (witness work
    near 0) both are busy at once, with more threads than the host has cores.
    Two timings, each alone and beside a steady load of the other pool:

    * ``matvec``: ``matvecs`` MatVecs (witness work 0, each of its own
      partition) started together on the MatVec pool, their mean seconds; beside
      ``calls`` threads that run b_g2_msm calls back to back on their pool;
    * ``b_g2``: ``calls`` b_g2_msm calls started together, the seconds until
      the last ends; beside ``matvecs`` threads that run MatVecs back to back.

    Medians of ``repeat``. How much each slows beside the other is how the OS
    shares the cores between two pools of busy threads, which
    :func:`~cuzklab.calibrate.contention.fit_matvec_weight` turns into the
    model's ``synth.matvec_weight``. ``calls`` defaults to a quarter of the
    pool's threads (at least 2), the load :func:`measure_b_g2_pool` times the GPU
    region beside.

    Beside the same load of b_g2_msm calls, two more that the rows run into:
    ``witness``, the witness step (at witness work 0) of the ``matvec`` timing's
    syntheses, alone and beside the load (the median over their syntheses; the
    model's ``synth.witness_pool_slowdown``, through ``[calibration]
    witness_beside_pool``); and ``prep_msm``, one partition's prep_msm on one thread
    of its own, timed alone and beside the load (medians of ``3 x repeat`` calls;
    recorded, not in the model). The fifty-second to fifty-fourth jobs' split_async
    rows ran prep_msm at two to four times its time alone and the W=0 witness at up to
    twice the model's (docs/calibrate.md).

    ``witness_work`` (default 0) is the syntheses' witness work; ``only_witness`` times
    the witness step alone and beside the load and nothing else (``calibrate --live``
    runs the whole step at witness work 0, then this at its own work: the model's
    ``[calibration] witness_work_beside_pool``; ``bench_witness_beside_pool.py`` times
    the whole step at several works).
    """
    from ..live import workload
    from ..live import work as W
    from ..native.pool import NativePool
    from ..stages import StageClock
    for name, v in (("matvec_threads", matvec_threads), ("pool_threads", pool_threads),
                    ("matvecs", matvecs), ("repeat", repeat)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(name, f"must be an integer >= 1, got {v!r}")
    calls = max(2, pool_threads // 4) if calls is None else calls
    if isinstance(calls, bool) or not isinstance(calls, int) or calls < 1:
        raise ConfigError("calls", f"must be an integer >= 1, got {calls!r}")
    from ..live import check_witness_work
    witness_work = check_witness_work(witness_work)
    work = workload(log2_constraints, seed, backend, witness_work)
    mv_pool = NativePool(matvec_threads, "calibrate-matvec-pool")
    try:
        witnesses: list = []  # the witness step of every synthesis, read after each timing

        def matvec(part: int) -> float:
            out = W.synthesize(work, 3, part, StageClock(), matvec_threads, mv_pool)
            witnesses.append(out.witness_s)
            return out.matvec_s

        # the calls' inputs (one partition's, shared by every call where only the witness
        # step is timed: a load, whose syntheses at a high witness work take seconds each)
        pos = [W.prep(W.synthesize(work, 0, i, StageClock(), matvec_threads, mv_pool),
                      StageClock()) for i in range(1 if only_witness else calls)]
        for x in pos:  # untimed: starts the pool, touches the bases and each call's data
            W.b_g2(x, work, StageClock(), pool_threads)
        matvec(0)  # untimed: the MatVec pool's threads and the program's tables

        def matvecs_mean(rep: int) -> float:
            durs = [0.0] * matvecs

            def one(i):
                durs[i] = matvec(100 + matvecs * rep + i)
            together([lambda i=i: one(i) for i in range(matvecs)])
            return statistics.fmean(durs)

        def prep_median() -> float:
            times = []
            for _ in range(3 * repeat):
                t = time.perf_counter()
                W.prep(out0, StageClock())
                times.append(time.perf_counter() - t)
            return float(statistics.median(times))

        def b_g2_calls(rep: int) -> float:
            return b_g2_at_once(pos, work, pool_threads, calls)

        def timed(fn) -> float:
            return float(statistics.median(fn(rep) for rep in range(repeat)))

        def calls_busy(warm: float):  # the load: b_g2_msm calls back to back on their pool
            return busy(calls, lambda i, k: W.b_g2(pos[i % len(pos)], work, StageClock(),
                                                   pool_threads), warm)

        head = {"log2_constraints": log2_constraints, "matvec_threads": matvec_threads,
                "pool_threads": pool_threads, "matvecs": matvecs, "calls": calls,
                "repeat": repeat, "cores": host_cores()}
        witnesses.clear()  # the warm-up's
        if only_witness:
            mv_alone = timed(matvecs_mean)
            wit_alone = float(statistics.median(witnesses))
            witnesses.clear()
            with calls_busy(min(0.5, 2 * mv_alone)):
                timed(matvecs_mean)
            return {**head, "witness": {"witness_work": witness_work,
                                        **_beside(wit_alone, float(statistics.median(witnesses)))}}
        out0 = W.synthesize(work, 0, 0, StageClock(), matvec_threads, mv_pool)
        for _ in range(3):  # untimed: its first calls, which run slow (allocations, caches)
            W.prep(out0, StageClock())
        witnesses.clear()  # the warm-up's
        mv_alone = timed(matvecs_mean)
        wit_alone = float(statistics.median(witnesses))
        witnesses.clear()
        prep_alone = prep_median()
        g2_alone = timed(b_g2_calls)
        warm = min(0.5, 2 * max(mv_alone, g2_alone))
        with calls_busy(warm):
            mv_beside = timed(matvecs_mean)
            prep_beside = prep_median()
        wit_beside = float(statistics.median(witnesses))
        with busy(matvecs, lambda i, k: matvec(1000 + 97 * i + k % 97), warm):
            g2_beside = timed(b_g2_calls)
    finally:
        mv_pool.shutdown(wait=True)
    return {**head, "matvec": _beside(mv_alone, mv_beside), "b_g2": _beside(g2_alone, g2_beside),
            "witness": {"witness_work": witness_work, **_beside(wit_alone, wit_beside)},
            "prep_msm": _beside(prep_alone, prep_beside)}


def _beside(alone: float, beside: float) -> dict:
    """Return one timing alone and beside a load, and the slowdown (0 without a time alone)."""
    return {"alone_s": alone, "beside_s": beside,
            "slowdown": beside / alone if alone > 0 else 0.0}


def measure_pinned(nbytes: int, *, backend: str = "gpu", repeat: int = 3, at_once: int = 4,
                   alloc=None, beside=None) -> dict:
    """Return the seconds to pin one host buffer of ``nbytes``, alone and ``at_once`` together.

    The live executor's syntheses write a, b, c into pinned buffers they check
    out of a pool that grows on demand as they start (cuzk's ``PinnedPool`` does
    the same with ``cudaHostAlloc``): a synthesis that finds the pool empty pins
    a new buffer, and a run whose pool is cold pays that for every partition in
    flight.
    ``alone_s`` is the median of ``repeat`` allocations one at a time (each freed
    before the next); ``at_once_s`` the makespan of ``at_once`` threads allocating
    together, and ``serial_ratio`` that makespan over ``at_once`` x ``alone_s``
    (1: the driver pins one buffer at a time). With ``beside`` (a call, such as
    one partition's GPU region), ``beside_s`` is the median of ``repeat`` pins
    while another thread runs it in a loop, and ``beside_ratio`` that over
    ``alone_s``: in a live run buffers are pinned while the GPU workers drive their
    kernels. ``alloc(nbytes)`` returns a buffer (default: portable pinned memory
    on the GPU backend; a test's stand-in).
    """
    if alloc is None:
        if backend != "gpu":
            raise ConfigError("backend", f"pinned buffers need backend 'gpu', got {backend!r}")
        from ..backend import xp
        cp = xp("gpu")

        def alloc(n):
            return cp.cuda.PinnedMemory(n, cp.cuda.runtime.hostAllocPortable)
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 1:
        raise ConfigError("nbytes", f"must be an integer >= 1, got {nbytes!r}")
    if isinstance(at_once, bool) or not isinstance(at_once, int) or at_once < 1:
        raise ConfigError("at_once", f"must be an integer >= 1, got {at_once!r}")

    def pin_median() -> float:  # each buffer is freed after its pin is timed
        xs = []
        for _ in range(repeat):
            t = time.perf_counter()
            buf = alloc(nbytes)
            xs.append(time.perf_counter() - t)
            del buf
        return float(statistics.median(xs))

    alloc(nbytes)  # untimed: the first call sets up the allocator
    alone = pin_median()
    held = []
    makespan = together([lambda: held.append(alloc(nbytes)) for _ in range(at_once)])
    held.clear()
    out = {"bytes": int(nbytes), "repeat": repeat, "alone_s": alone, "at_once": at_once,
           "at_once_s": makespan,
           "serial_ratio": makespan / (at_once * alone) if alone > 0 else float("nan")}
    if beside is not None:
        stop = threading.Event()
        running = threading.Event()

        def load():
            while not stop.is_set():
                beside()
                running.set()
        th = threading.Thread(target=load, daemon=True)
        th.start()
        try:
            running.wait(timeout=60)  # the load has run once: it is under way
            out["beside_s"] = pin_median()
        finally:
            stop.set()
            th.join()
        out["beside_ratio"] = out["beside_s"] / alone if alone > 0 else float("nan")
    return out


class HostSpeed:
    """A short one-thread probe of the host's speed, timed at each calibration step.

    The probe is a dependent chain of Fr products in registers (the native
    library's ``fr_chain``, as ``bench_cpu_stages.py --ceiling`` runs it), sized
    once to about ``target_s`` seconds and then always the same length; each
    :meth:`mark` times it ``repeat`` times and keeps the median. :meth:`report`
    gives every mark and the spread (slowest over fastest, minus 1). A shared
    host whose speed moves between steps (another guest, the clock) moves the
    probe with it; what only one step pays (first touches, a cold pool) does not.
    """

    def __init__(self, *, target_s: float = 0.02, repeat: int = 3):
        from ..native.bench import chain_length, chain_s
        self._chain = chain_s
        self.repeat = int(repeat)
        self.n = chain_length(target_s)
        self.rows: list[dict] = []
        self._t0 = time.perf_counter()

    def mark(self, step: str) -> float:
        """Time the probe now, record it under ``step``, and return its seconds."""
        s = statistics.median(self._chain(self.n, 1) for _ in range(self.repeat))
        self.rows.append({"step": step, "at_s": round(time.perf_counter() - self._t0, 3),
                          "chain_s": s})
        return s

    def report(self) -> dict:
        """Return the probe's length, every mark, and the spread of the marks."""
        xs = [r["chain_s"] for r in self.rows]
        spread = (max(xs) / min(xs) - 1.0) if xs and min(xs) > 0 else 0.0
        return {"chain_n": self.n, "repeat": self.repeat, "rows": list(self.rows),
                "spread": spread}
