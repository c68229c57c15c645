"""``calibrate --live``: a profile of this machine from live measurements.

Which profile value comes from which measurement (docs/calibrate.md has the
table):

* the solo run (:func:`~cuzklab.calibrate.measure.measure_solo`, run twice:
  synthesis on one thread and on every core) gives every stage's solo seconds;
  ``synth.work_core_s`` is the one-thread synthesis and ``synth.max_threads``
  the speed-up on every core (cuzk's witness step is serial, only the MatVec is
  row-parallel, so a synthesis uses far fewer threads than the node has);
* the run's RSS at the start is the node's idle memory (the proving key, the
  circuit, the runtime), its peak above that and the partition's own bytes is
  the synthesis's scratch;
* a, b, c and aux are the exact sizes of the arrays; the upload rate is
  a, b, c over the measured ``h2d``;
* the copy bandwidth is ``node.ddr_gbps``; each CPU stage's bandwidth demand
  is the bytes it streams over its solo time;
* the one-thread witness step at a second witness work gives
  ``[calibration] witness_s_per_work``, and whole one-thread syntheses at the
  two works in turn ``[calibration] synth_ratio_at_other``, the line on which
  ``compare`` models runs at other witness works
  (:func:`cuzklab.calibrate.compare.profile_at_witness_work`);
* the contention curve fits ``node.cpu_pool_weight``, the one parameter of
  the model's core sharing (:mod:`cuzklab.calibrate.contention`);
* the MatVec alone on 1..N threads fits its serial share
  (``synth.matvec_serial``), and k MatVecs on one shared pool, with the host's
  last-level cache (``node.llc_mib``), how much slower it runs when the
  working sets of the running MatVecs no longer fit there
  (``synth.matvec_miss_penalty``);
* MatVecs on their shared pool beside b_g2_msm calls back to back on theirs,
  and those calls beside MatVecs back to back, fit how the two pools of busy
  native threads split the cores (``synth.matvec_weight``, in the units of
  ``node.cpu_pool_weight``);
* one partition's GPU region alone and beside twice as many busy threads as
  cores fits the share of each GPU stage that is its host thread's work
  (``gpu.host_share``, GPU backend only);
* ``synth.matvec_pool = "rayon"`` makes the model's synthesis two steps,
  the witness (``witness_fraction`` of the one-thread work, on one thread),
  then the MatVec on the pool the live executor gives it: one pool of
  ``synthesis_threads`` threads that the MatVecs of all running syntheses
  share, as cuzk's share rayon's; ``witness_fraction`` is the witness's
  share of the witness and the MatVec, each timed alone on one thread
  (:func:`witness_share`).
"""

from __future__ import annotations

import datetime as _dt
import math
import platform
import re
import statistics
import time

from ..errors import ConfigError
from ..live.sync import switch_interval
from .toml import Entry, profile_text, table_values

SCALAR_BYTES = 32
GIB = 2**30
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$")
#: The syntheses prep_msm and b_g2_msm are timed beside in a calibration: the solo point
#: and three loads spread over the curve's range (0..12), a low one, one in the middle and
#: one near the top, all off the curve's own counts (0, 1, 2, 4, 8, 12) so that every point
#: of the curve is a prediction. The pool weight is one number for the whole range: fitted
#: beside six alone it followed the middle and missed a convex curve's top (docs/calibrate.md,
#: the twenty-sixth job), and beside 5 and 10 it put 5 of the 9 stored curves within the
#: target, where the curves' own points spread the same way (2, 4, 12) put 8
#: (``benchmarks/rejudge_live_jobs.py``, ``line_fits``).
DEFAULT_CONTENTION = (0, 3, 6, 11)
#: partition.pinned_warm of a live profile: more buffers than any configuration holds, as
#: the live executor pins ahead what a configuration can hold (a warm pool: no pins in a run)
PINNED_WARM_AHEAD = 100000

#: How the live executor runs the syntheses' MatVecs: a fact of its code, not a
#: measurement (tagged ``assumed``), written into every live-calibrated profile.
MATVEC_POOL = Entry(
    "matvec_pool", "rayon", "assumed",
    "how the live executor runs the MatVecs (its code, not a measurement): every synthesis "
    "cuts its MatVec for one pool of synthesis_threads that all syntheses share, as cuzk's "
    "share rayon's")


def witness_share(witness_s: float, matvec_s: float, t1: float) -> float:
    """Return the witness step's share of a one-thread synthesis: its serial share.

    ``witness_s`` and ``matvec_s``: the witness step and the MatVec, each timed
    alone on one thread; the share is ``witness_s / (witness_s + matvec_s)``, a
    ratio of two timings of one kind, so a host that runs slower or faster
    between the calibration's steps moves both. Without a MatVec timing
    (``matvec_s`` <= 0), the witness over ``t1``, the one-thread synthesis.
    Clipped to [0, 0.99].
    """
    if witness_s <= 0:
        return 0.0
    den = witness_s + matvec_s if matvec_s > 0 else t1
    return min(0.99, max(0.0, witness_s / den)) if den > 0 else 0.99


def witness_spread(rows) -> dict | None:
    """Return how far apart the witness steps of one-thread syntheses started together end.

    ``rows``: the k-at-once curve's rows (:func:`~cuzklab.calibrate.measure.measure_cores`,
    its ``rows`` or ``at_other["rows"]``), each with every synthesis's ``witness_s``, k
    a wave, the waves one after another. Each witness step is taken over its wave's
    median, so a host whose pace moves between waves adds nothing; ``spread`` is the
    root mean square of their logs over every wave of two or more (``steps`` of them).
    None where no row records its witness steps (calibrations before they were kept).
    """
    logs = []
    for r in rows or []:
        k, ws = int(r.get("syntheses", 0)), [float(x) for x in r.get("witness_s") or []]
        if k < 2:
            continue
        for i in range(0, len(ws) - k + 1, k):
            wave = [x for x in ws[i:i + k] if x > 0]
            if len(wave) >= 2:
                med = statistics.median(wave)
                logs += [math.log(x / med) for x in wave]
    if not logs:
        return None
    return {"spread": round(math.sqrt(sum(x * x for x in logs) / len(logs)), 4),
            "steps": len(logs)}


def alone_split(rows) -> dict | None:
    """Return the witness step's share of one one-thread synthesis alone in the k-at-once
    curve (its k = 1 row: ``witness_s`` and ``matvec_s`` of the same calls, medians), with
    the two medians; None where that row does not record its steps."""
    for r in rows or []:
        if int(r.get("syntheses", 0)) != 1:
            continue
        ws = [float(x) for x in r.get("witness_s") or [] if x is not None]
        ms = [float(x) for x in r.get("matvec_s") or [] if x is not None]
        if not ws or not ms:
            return None
        w, m = statistics.median(ws), statistics.median(ms)
        if w < 0 or m <= 0:
            return None
        return {"fraction": round(w / (w + m), 4), "witness_s": round(w, 6),
                "matvec_s": round(m, 6)}
    return None


def _queue_note(fits: dict) -> str:
    """Return the provenance of ``synth.matvec_queue``: what chose it (the at-once waves'
    end spans where measured, else the at-once curve's mean seconds)."""
    sh, ff = fits["shared"], fits["fifo"]
    if "span_error" in sh:
        spans = ", ".join(f"{r['matvecs']}: {r['measured']:.2f}" for r in ff["spans"])
        return (f"how the pool serves MatVecs that arrive together, the one whose MatVecs "
                f"started together end as far apart as the measured waves' did (their ends' "
                f"span less their starts', in MatVecs alone: {spans}; rms error all at once "
                f"{sh['span_error']:.2f}, one after another {ff['span_error']:.2f}; the "
                f"mean seconds' rms log error {sh['at_once_rms_log_error']:.3f} and "
                f"{ff['at_once_rms_log_error']:.3f})")
    return (f"how the pool serves MatVecs that arrive together, the one whose k-at-once "
            f"curve is nearer the measured one (rms log error: all at once "
            f"{sh['at_once_rms_log_error']:.3f}, one after another "
            f"{ff['at_once_rms_log_error']:.3f})")


def check_name(name) -> str:
    """Return ``name`` if it is an allowed profile name, else raise ConfigError naming it."""
    if not isinstance(name, str) or not NAME_RE.match(name) or name.endswith(".toml"):
        raise ConfigError("name", "must be a profile name of letters, digits and . _ @ - "
                          f"(it becomes NAME.toml), got {name!r}")
    return name


def machine() -> dict:
    """Return the facts that identify this machine (JSON-able)."""
    from ..backend import device_name, gpu_available
    from .measure import host_cores, host_memory_gib
    out = {"host": platform.node(), "cpu": device_name("cpu"), "cores": host_cores(),
           "memory_gib": round(host_memory_gib(), 1)}
    if gpu_available():
        out["gpu"] = device_name("gpu")
    return out


def _vram_gib(backend: str) -> float:
    if backend == "gpu":
        from ..backend import xp
        free, total = xp("gpu").cuda.runtime.memGetInfo()
        return round(total / GIB, 2)
    from .measure import host_memory_gib
    return round(host_memory_gib(), 1)


def calibrate_live(log2_constraints: int, *, name: str, backend: str = "cpu",
                   gpu_threads: int = 0, proofs: int = 3,
                   contention=DEFAULT_CONTENTION, repeat: int = 3,
                   witness_work: float = 1.0, command: str = "", progress=None,
                   contention_rounds: int | None = None) -> dict:
    """Measure this machine and return ``{"text", "calibration", "measurements"}`` of a new profile.

    ``gpu_threads`` (0: every core) is the prep_msm / b_g2_msm pool of the solo
    run and of the contention curve; ``contention`` the counts of concurrent
    syntheses measured (the points the profile is fitted on), each visited
    ``2 x contention_rounds`` times (default
    :data:`~cuzklab.calibrate.measure.CONTENTION_ROUNDS`). The measurements
    (:func:`measure_live`) are kept whole, so :func:`derive_profile` can make
    the profile again from them without measuring.
    """
    check_name(name)
    meas = measure_live(log2_constraints, backend=backend, gpu_threads=gpu_threads,
                        proofs=proofs, contention=contention, repeat=repeat,
                        witness_work=witness_work, command=command, progress=progress,
                        contention_rounds=contention_rounds)
    return derive_profile(meas, name)


#: The steps of :func:`measure_live`, in order (what its ``progress`` callback is told).
STEPS = ("the circuit and its keys", "a first run (kernels, pools)", "solo, synthesis on one thread",
         "solo, synthesis on every core", "b_g2_msm calls at once on their pool",
         "the witness slope", "syntheses at once", "MatVecs at once",
         "MatVecs beside the b_g2_msm pool",
         "the GPU region beside a full host, pinned buffers", "the contention points",
         "memory bandwidth")


@switch_interval()
def measure_live(log2_constraints: int, *, backend: str = "cpu", gpu_threads: int = 0,
                 proofs: int = 3, contention=DEFAULT_CONTENTION, repeat: int = 3,
                 witness_work: float = 1.0, command: str = "", progress=None,
                 contention_rounds: int | None = None) -> dict:
    """Return every measurement ``calibrate --live`` makes on this machine (JSON-able).

    ``progress(i, n, what, seconds)`` is called before each of the n steps
    (:data:`STEPS`) with the seconds spent so far. Every step runs at the live
    executor's switch interval (:data:`cuzklab.live.sync.SWITCH_INTERVAL_S`), so
    what it measures is what a live run sees.
    """
    from ..cliargs import usable_backend
    from ..live import check_log2, check_witness_work, workload
    from .measure import (HostSpeed, check_rounds, gpu_region_for, host_cores, llc_mib,
                          measure_b_g2_pool, measure_bandwidth, measure_contention,
                          measure_cores, measure_gpu_host, measure_matvec_pool,
                          measure_matvecs, measure_pinned, measure_solo, measure_witness_slope)
    check_log2(log2_constraints)
    usable_backend(backend)
    check_witness_work(witness_work)
    cores = host_cores()
    if isinstance(gpu_threads, bool) or not isinstance(gpu_threads, int) or gpu_threads < 0:
        raise ConfigError("gpu_threads", f"must be an integer >= 0 (0: all {cores} cores), "
                          f"got {gpu_threads!r}")
    pool = gpu_threads or cores
    counts = sorted({int(c) for c in contention})
    if not counts or counts[0] != 0 or any(c < 0 for c in counts):
        raise ConfigError("contention", "must list counts of concurrent syntheses >= 0 that "
                          f"include 0 (the solo point), got {list(contention)!r}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ConfigError("repeat", f"must be an integer >= 1, got {repeat!r}")
    rounds = check_rounds(contention_rounds, "contention_rounds")  # before any step runs

    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    mach = machine()
    t0 = time.perf_counter()
    step = iter(range(len(STEPS)))
    speed = HostSpeed()

    def tell():
        i = next(step)
        if callable(progress):
            progress(i + 1, len(STEPS), STEPS[i], time.perf_counter() - t0)
        speed.mark(STEPS[i])

    def solo(threads, proofs=proofs):
        tell()
        out = measure_solo(log2_constraints, backend, proofs=proofs, gpu_threads=pool,
                           synthesis_threads=threads, witness_work=witness_work)
        return {k: v for k, v in out.items() if k != "trace"}

    tell()
    work = workload(log2_constraints, 0, backend, witness_work)
    solo(1, proofs=1)  # untimed: the first run compiles and loads the kernels and starts the pools
    out = {"method": "live", "date": date, "command": command or "cuzklab calibrate --live",
           "machine": mach, "cores": cores, "pool": pool, "contention_counts": counts,
           "backend": backend, "log2_constraints": log2_constraints,
           "witness_work": witness_work,
           # where the live executor runs prep_msm's passes: on the b_g2_msm pool's queue
           "prep_msm_queue": "pool",
           "sizes": {"constraints": int(work.num_constraints), "abc_bytes": int(work.abc_bytes),
                     "aux_bytes": int(work.aux_bytes), "key_bytes": int(work.key_bytes)},
           "vram_gib": _vram_gib(backend), "llc_mib": llc_mib(),
           "solo_1_thread": solo(1), "solo_all_threads": solo(cores)}
    # the pool's calls right after the solo runs, as a run's follow other runs, and the
    # memory bandwidth (64 MiB arrays copied on every thread) last: after it the same calls ran
    # ~20 % slower for tens of seconds on an H200 host (docs/calibrate.md)
    tell()
    out["b_g2_pool"] = measure_b_g2_pool(log2_constraints, pool_threads=pool, backend=backend,
                                         repeat=repeat)
    tell()
    out["witness_slope"] = measure_witness_slope(log2_constraints, backend=backend,
                                                 witness_work=witness_work)
    tell()
    # the same counts at witness work 0 too (a few seconds at 2^20): how a witness step
    # slows beside others where it is mostly memory traffic, not the extra work's compute
    out["cores_curve"] = measure_cores(log2_constraints, backend=backend,
                                       witness_work=witness_work,
                                       other_work=0.0 if witness_work > 0 else None)
    tell()
    out["matvecs"] = measure_matvecs(log2_constraints, pool_threads=cores, backend=backend,
                                     repeat=repeat)
    tell()
    out["matvec_pool"] = measure_matvec_pool(log2_constraints, matvec_threads=cores,
                                             pool_threads=pool, backend=backend, repeat=repeat)
    if witness_work > 0:  # the witness step at this work beside the same calls (~25 s at 2^20)
        out["matvec_pool"]["witness_at_work"] = measure_matvec_pool(
            log2_constraints, matvec_threads=cores, pool_threads=pool, backend=backend,
            repeat=max(1, min(repeat, 2)), witness_work=witness_work,
            only_witness=True)["witness"]
    tell()
    if backend == "gpu":
        try:
            out["gpu_host"] = measure_gpu_host(log2_constraints, backend=backend)
        except Exception as exc:  # noqa: BLE001 - recorded; the profile is made without it
            out["gpu_host_failed"] = f"{type(exc).__name__}: {exc}"
        try:
            out["pinned"] = measure_pinned(int(work.abc_bytes), backend=backend, repeat=repeat,
                                           beside=gpu_region_for(log2_constraints))
        except Exception as exc:  # noqa: BLE001 - recorded; the profile is made without it
            out["pinned_failed"] = f"{type(exc).__name__}: {exc}"
    tell()
    out["contention"] = measure_contention(log2_constraints, counts, pool_threads=pool,
                                           backend=backend, repeat=repeat,
                                           witness_work=witness_work, rounds=rounds)
    tell()
    out["bandwidth"] = measure_bandwidth(cores)
    speed.mark("end")
    out["host_speed"] = speed.report()
    out["measure_s"] = round(time.perf_counter() - t0, 2)
    return out


def b_g2_queue_split(pool: dict, solo_s: float) -> tuple[float, float]:
    """Return b_g2_msm's ``(pool_core_s, serial_s)`` from the pool step and the solo run.

    The slope of the makespan of k calls started together (``pool["slope_s"]``) is what
    one more call costs a full pool; ``pool_core_s`` is the pool's threads times it. The
    model runs a call alone as ``serial_s`` on one core and ``pool_core_s`` on the full
    pool, so ``serial_s`` is a call alone minus the slope. A call alone is the solo run's
    median (``solo_s``: the live executor's own stage, as the rows run it), not the pool
    step's one call started behind a barrier: on the H200 hosts that one sat 0.61-1.44x
    the solo run's, while the one-call checks around the rows (``compare --track-host``,
    12-24 a job) kept within 10 % of the solo run's median on every job that ran them
    (docs/calibrate.md). ``pool_core_s`` is the step's (its slope clipped at its own call
    alone); ``serial_s`` clips at zero.
    """
    core = float(pool["pool_core_s"])
    alone = float(solo_s) if solo_s and solo_s > 0 else float(pool["alone_s"])
    return core, max(0.0, alone - core / int(pool["pool_threads"]))


def pool_width(phases: dict | None, pool_threads: int) -> float | None:
    """Return the mean number of a b_g2_msm call's pool threads inside its window tasks
    (``phases_alone``'s ``widths_s``: seconds with k of them inside, k = 0 .. the pool),
    or None where the call alone was not profiled that way."""
    widths = (phases or {}).get("widths_s")
    if not widths or sum(widths) <= 0:
        return None
    mean = sum(k * t for k, t in enumerate(widths)) / sum(widths)
    return min(float(pool_threads), max(1.0, mean))


def derive_profile(meas: dict, name: str, *, command: str = "", neighbour: bool = False) -> dict:
    """Return ``{"text", "calibration", "measurements"}``: the profile made from ``meas``.

    ``meas`` is what :func:`measure_live` returned (or its JSON, as ``calibrate
    --json`` writes it under ``measurements``): every value of the profile is
    derived from it, so a profile can be made again after a change of the
    model without measuring again; ``command`` (that command) is recorded as
    ``derived_by`` beside the measuring one. ``neighbour``: a mechanism under trial, not
    the default (docs/calibrate.md, "A neighbour slowdown of the b_g2_msm pool, tried and
    not kept"): b_g2_msm's pool part at its measured width (``b_g2_msm.pool_width``,
    where the calibration timed it) and ``b_g2_msm.neighbour_slowdown`` fitted with the
    pool weight (:func:`~cuzklab.calibrate.contention.fit_contention`).
    """
    from ..model.profile import Profile
    from .contention import (fit_contention, fit_gpu_host_share, fit_matvec_queue,
                             fit_synth_sharing)
    from .measure import add_slowdowns
    check_name(name)
    try:
        mach, cores, pool = meas["machine"], int(meas["cores"]), int(meas["pool"])
        counts, backend = list(meas["contention_counts"]), meas["backend"]
        log2_constraints, witness_work = int(meas["log2_constraints"]), meas["witness_work"]
        sizes, one, every = meas["sizes"], meas["solo_1_thread"], meas["solo_all_threads"]
        bw, capacity, cont = meas["bandwidth"], meas["cores_curve"], meas["contention"]
        slope = meas["witness_slope"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError("measurements", f"not the measurements of calibrate --live: {exc!r} "
                          "is missing or wrong") from None
    base = Profile.load("porep-32g")
    probe = base.replace(node={"ddr_gbps": max(1.0, bw["gbps_all_threads"])})
    # the one-thread synthesis: three timings of the same work minutes apart (the solo run's
    # median, the k-at-once curve's solo, the contention curve's solo); their median, so one
    # step timed while the host ran slow does not set the profile's synthesis
    t1_at = {"the solo run": one["stage_s"]["synth"],
             "the k-at-once curve": capacity.get("solo_synth_s"),
             "the contention curve": cont.get("solo_synth_s")}
    t1_at = {k: float(v) for k, v in t1_at.items() if v and v > 0}
    t1 = float(statistics.median(t1_at.values()))
    t1_note = ", ".join(f"{v:.4g} s in {k}" for k, v in t1_at.items())
    capacity = rebase_capacity(capacity, t1)
    sharing = fit_synth_sharing(probe, capacity)
    eff_cores = int(sharing["cores"])
    slow = ", ".join(f"{r['syntheses']}: x{r['slowdown']:.2f}" for r in capacity["rows"])
    share_note = (f"with node.busy_* and synth bandwidth below, the model gives the measured "
                  f"slowdown of k one-thread syntheses at once ({slow}; rms log error "
                  f"{sharing['rms_log_error']:.3f} over k >= 2) on {cores} logical cores")
    st = every["stage_s"]
    tc = st["synth"]
    speedup = min(float(cores), max(1.0, t1 / tc))
    # the witness step's share of the one-thread synthesis: the witness and the MatVec each
    # timed alone on one thread (the witness over the whole synthesis timed minutes away from
    # it has come out above 1 on a shared host)
    m1 = float((meas.get("matvecs") or {}).get("one_thread_s") or 0.0)
    serial = witness_share(slope["witness_s"], m1, t1)
    how = (f"the witness step and the MatVec each timed alone on one thread "
           f"({slope['witness_s']:.4g} s and {m1:.4g} s, medians): the witness's share, the "
           f"serial one; the rest is the MatVec" if m1 > 0 else
           f"the witness step timed alone on one thread ({slope['witness_s']:.4g} s, median) "
           f"over the one-thread synthesis: the serial share, the rest is the MatVec")
    abc_gib = sizes["abc_bytes"] / GIB
    aux_gib = sizes["aux_bytes"] / GIB
    part_gib = abc_gib + aux_gib
    key_gib = sizes["key_bytes"] / GIB
    start_rss = every["rss_start_gib"]
    scratch = max(0.0, every["rss_peak_gib"] - start_rss - part_gib)
    h2d = max(st.get("h2d", 0.0), 1e-6)
    upload_gbps = min(1e4, max(0.01, sizes["abc_bytes"] / 1e9 / h2d))
    ddr = max(1.0, bw["gbps_all_threads"])
    g2_bytes = cont["b_g2_tail"] * 192  # affine G2 bases: 4 Fp coordinates of 48 bytes
    solo_cmd = "the solo run (one proof in flight, one partition, pw=1, gw=1, monolithic)"
    where = f"{mach['cpu']}, {cores} cores" + (f", {mach['gpu']}" if backend == "gpu" else "")

    node = [
        Entry("cores", eff_cores, "fit", share_note),
        Entry("busy_slowdown", sharing["busy_slowdown"], "fit",
              "each thread's slowdown with every core busy (the cores' clock and shared cache), "
              "from the same syntheses at once"),
        Entry("busy_knee", sharing["busy_knee"], "fit",
              "busy threads at which that slowdown is reached (linear from one thread)"),
        Entry("ddr_gbps", ddr, "measured", f"NumPy copies on {cores} threads (reads + writes); "
              f"{bw['gbps_1_thread']} GB/s on one"),
        Entry("pcie_gbps", round(upload_gbps, 3), "measured", "a, b, c over the solo run's h2d"),
        Entry("vram_gib", meas["vram_gib"], "measured",
              "device memory" if backend == "gpu" else "CPU stand-in devices use host memory"),
        Entry("cpu_pool_weight", 1.0, "fit", "replaced below from the contention curve"),
    ]
    partition = [
        Entry("constraints", int(sizes["constraints"]), "measured", "constraints per partition"),
        Entry("aux_variables", int(round(sizes["aux_bytes"] / SCALAR_BYTES)), "measured",
              "inputs + aux per partition (a/b/c and aux GiB are derived from these)"),
        Entry("scalar_bytes", SCALAR_BYTES, "cuzk", "a BLS12-381 Fr is 32 bytes"),
        Entry("abc_upload_gib", abc_gib, "measured", "the upload moves a, b, c"),
        Entry("abc_upload_gbps", round(upload_gbps, 3), "measured", "a, b, c over the solo h2d"),
        Entry("free_abc_after", "gpu", "measured", "the live executor frees a, b, c after the "
              "kernels (cuzk phase 12)"),
        Entry("device_buffers_gib", abc_gib, "measured", "one set of a, b, c device buffers"),
    ]
    pin = meas.get("pinned")
    if backend == "gpu" and pin and pin.get("alone_s", 0) > 0:
        partition += [
            Entry("pinned_alloc_s", round(pin["alone_s"], 6), "measured",
                  f"pinning one partition's a, b, c buffer ({pin['bytes'] / 2**20:.0f} MiB), "
                  f"median of {pin['repeat']}; {pin['at_once']} at once took "
                  f"{pin['at_once_s']:.3g} s, x{pin['serial_ratio']:.2f} of one after another"
                  + (f"; beside the GPU region's kernels {pin['beside_s']:.3g} s "
                     f"(x{pin['beside_ratio']:.2f}; not in the model)"
                     if pin.get("beside_s") else "")),
            Entry("pinned_warm", PINNED_WARM_AHEAD, "assumed",
                  "the live executor pins ahead, before the clock starts, every buffer a "
                  "configuration can hold at once, as a long-running daemon's pool is warm "
                  "(its code, not a measurement); 1 models a pool that grows from one buffer "
                  "(live: pin_ahead=False)"),
        ]
    memory = [
        Entry("srs_gib", key_gib, "measured", "the proving key's bases, held for the whole run"),
        Entry("pce_gib", 0.0, "assumed", "the circuit program is inside runtime_gib"),
        Entry("runtime_gib", max(0.0, start_rss - key_gib), "measured",
              "RSS at the solo run's start minus the key (Python, NumPy, the circuit, buffers)"),
        Entry("budget_reserve_gib", part_gib, "measured", "the live budget reserves a partition's "
              "a, b, c and aux"),
        Entry("budget_release_gpu_gib", abc_gib, "measured", "a, b, c released after the kernels"),
        Entry("safety_margin_gib", 5.0, "cuzk", "budget = MemTotal - 5 GiB"),
        Entry("dealloc_s", 0.0, "measured", "the live executor frees at once (no munmap thread)"),
        Entry("request_gib", 0.0, "assumed", "the live executor builds its circuits in process: "
              "no serialized request is copied per partition"),
        Entry("b_g2_bucket_mib_per_thread", 0.0, "assumed", "inside the scratch at these sizes"),
        Entry("pressure_start", 0.72, "assumed", "as porep-32g; live runs stay far below RAM"),
    ]
    synth = [
        Entry("work_core_s", t1, "measured",
              f"synthesis on one thread: the median of {t1_note}"),
        Entry("max_threads", round(speedup, 4), "measured",
              f"its speed-up on {cores} threads ({tc:.4g} s): the witness step is serial, only "
              "the MatVec is row-parallel"),
        Entry("bw_gbps_per_thread", round(sharing["bw_gbps_per_thread"], 4), "fit",
              "with node.cores and node.busy_*: the slowdown of k syntheses at once (writes "
              f"alone: {part_gib * GIB / 1e9 / t1:.3g} GB/s)"),
        Entry("mem_bound", sharing["mem_bound"], "fit", "with the two above"),
        Entry("alloc_at_start", 0.0, "measured", "aux and a, b, c are allocated as they are "
              "written"),
        Entry("scratch_gib", scratch, "measured", "solo peak RSS above its start and one "
              "partition's bytes"),
        Entry("pipeline_lookahead", 1, "assumed", "cuzk's synthesis_lookahead = 1, as the live "
              "executor's channel reads it"),
        Entry("channel_autoscale", True, "cuzk", "phase 12: capacity = max(lookahead, pw)"),
        Entry("witness_fraction", round(serial, 4), "measured", how),
        MATVEC_POOL,
    ]
    spread = witness_spread(capacity.get("rows"))
    if spread:
        synth.append(Entry(
            "witness_spread", spread["spread"], "measured",
            f"how far apart the witness steps of one-thread syntheses started together end: "
            f"the rms log of each over its wave's median ({spread['steps']} steps, waves of "
            f"2 to {max(r['syntheses'] for r in capacity['rows'])} at once)"))
    at_other = capacity.get("at_other") or {}
    spread_other = witness_spread(at_other.get("rows"))
    split_other = alone_split(at_other.get("rows"))
    # the k-at-once curve ran at the other work of the whole syntheses' line
    curve_at_other = bool(slope.get("synth_ratio_at_other")) and \
        float(at_other.get("witness_work", -1)) == float(slope["other_work"])
    prep = [
        Entry("solo_s", st["prep_msm"], "measured", f"median, {solo_cmd}"),
        Entry("threads", 1, "cuzk", "one thread per partition"),
    ]
    if meas.get("prep_msm_queue") == "pool":  # measured by an executor that queues them
        prep.append(Entry("queue", "pool", "cuzk", "its two passes are par_map jobs over its "
                          "one circuit on the b_g2_msm pool (groth16_cuda.cu), as the live "
                          "executor runs them: each waits for the calls queued before it"))
    prep += [
        Entry("bw_gbps_per_thread", max(1e-6, aux_gib * GIB / 1e9 / st["prep_msm"]), "measured",
              "the scalars it classifies over its solo time"),
        Entry("mem_bound", 0.5, "assumed", "acts only past ddr_gbps"),
    ]
    # The model runs b_g2_msm's core-seconds (solo_s_at_all_cores x cores) on min(pool, cores)
    # cores; this value makes that the measured solo time on the measured pool.
    g2 = st["b_g2_msm"] * min(pool, eff_cores) / eff_cores
    g2_at = [g2, g2]
    b_g2 = [
        Entry("solo_s_at_all_cores", g2_at[0], "measured",
              f"median {st['b_g2_msm']:.4g} s on a pool of {pool} threads, {solo_cmd}, "
              f"as core-seconds over {eff_cores} effective cores"),
        Entry("solo_s_at_32", g2_at[1], "measured",
              "the same pool" + (" (the host has no more than 32 cores)" if cores <= 32 else "")),
        Entry("bw_gbps_per_thread", max(1e-6, g2_bytes / 1e9 / st["b_g2_msm"] / pool),
              "measured", "its G2 tail bases (192 bytes each) over its solo time, per thread"),
        Entry("mem_bound", 0.5, "assumed", "acts only past ddr_gbps"),
    ]
    bp = meas.get("b_g2_pool")
    if bp and bp.get("pool_core_s", 0) > 0:
        calls = ", ".join(f"{r['calls']}: {r['makespan_s']:.3g} s" for r in bp["rows"])
        core_s, serial_s = b_g2_queue_split(bp, st["b_g2_msm"])
        b_g2 += [
            Entry("pool_core_s", core_s, "fit",
                  f"thread-seconds of its pool of {bp['pool_threads']} per call when the pool "
                  f"is full: {bp['pool_threads']} x the slope of the makespan of k calls "
                  f"started together ({calls})"),
            Entry("serial_s", serial_s, "fit",
                  f"the solo run's median call ({st['b_g2_msm']:.4g} s) minus that slope: "
                  "the part of a call beside an idle pool (the step's own call alone took "
                  f"{bp['alone_s']:.3g} s)"),
        ]
        width = pool_width(bp.get("phases_alone"), bp["pool_threads"]) if neighbour else None
        if width is not None:
            b_g2.append(Entry(
                "pool_width", round(width, 3), "measured",
                f"the mean number of its pool's {bp['pool_threads']} threads inside its "
                f"window tasks over a call alone's windows "
                f"({bp['phases_alone']['windows_s'] * 1e3:.1f} ms; median of "
                f"{bp.get('repeat', 3)} calls)"))
    epi = [Entry("solo_s", st.get("epilogue", 0.0), "measured", f"median, {solo_cmd}")]
    gpu = [
        Entry("ntt_h_s", st["ntt_h"], "measured", f"median, {solo_cmd}"),
        Entry("ntt_h_host_gib", 0.0, "measured", "the kernels read device memory only"),
        Entry("batch_add_s", st["batch_add"], "measured", "median, the solo run"),
        Entry("batch_add_host_gib", 0.0, "measured", "device memory only"),
        Entry("tail_msm_s", st["tail_msm"], "measured", "median, the solo run"),
        Entry("tail_msm_host_gib", 0.0, "measured", "device memory only"),
        Entry("overhead_s", 0.0, "measured", "inside ntt_h's span"),
        Entry("pre_lock_s", 0.0, "measured", "the live worker takes the mutex at once"),
        Entry("in_lock_setup_s", 0.0, "measured", "device buffers are allocated before the run"),
        Entry("handoff_s", 0.0, "assumed", "the live hand-off is a lock release"),
        Entry("jitter", 0.0, "assumed", "the model runs on the medians"),
    ]
    matvec = None
    if meas.get("matvecs") and float(meas.get("llc_mib") or 0) > 0:
        mv, llc = meas["matvecs"], float(meas["llc_mib"])
        queue, fits = fit_matvec_queue(mv, cores=eff_cores, ws_gib=part_gib,
                                       llc_gib=llc / 1024,
                                       busy_slowdown=sharing["busy_slowdown"],
                                       busy_knee=sharing["busy_knee"])
        matvec = fits[queue]
        speedups = ", ".join(f"{r['threads']}: x{r['speedup']:.2f}" for r in mv["scaling"])
        at_once = ", ".join(f"{r['matvecs']}: x{r['slowdown']:.2f}" for r in mv["at_once"])
        node.insert(3, Entry("llc_mib", llc, "measured",
                             "the host's last-level cache, as its kernel reports it"))
        synth += [
            Entry("matvec_serial", matvec["matvec_serial"], "fit",
                  f"the MatVec's share that runs on one thread, from its speed-up alone on a "
                  f"pool of t threads (witness work 0; {speedups}; rms log error "
                  f"{matvec['scaling_rms_log_error']:.3f})"),
            Entry("matvec_miss_penalty", matvec["matvec_miss_penalty"], "fit",
                  f"the MatVec's slowdown - 1 when its working set (witness and a, b, c: "
                  f"{part_gib * 1024:.0f} MiB) misses the cache, from k MatVecs started "
                  f"together on one pool of {mv['pool_threads']} against one alone "
                  f"({at_once}; rms log error {matvec['at_once_rms_log_error']:.3f})"),
            Entry("matvec_queue", queue, "fit", _queue_note(fits)),
        ]
    tables = {"node": node, "partition": partition, "memory": memory, "synth": synth,
              "prep_msm": prep, "b_g2_msm": b_g2, "epilogue": epi, "gpu": gpu}
    _fill_from(base, tables)
    data = table_values(tables, [Entry("phase", 12, "assumed", "")])
    data["name"] = name
    prof = Profile(name=name, data=data, source="<calibrate>")
    prof.validate()
    # the slowdowns from the stored visits, as the measurement takes them now (paired by pass)
    cont = {**cont, "rows": [dict(r) for r in cont["rows"]]}
    add_slowdowns(cont["rows"], over_probe=cont.get("prep_over_probe") is True)
    fit = fit_contention(prof, cont, neighbour=neighbour)
    weight, rms, k = fit["pool_weight"], fit["rms_log_error"], fit["neighbour_slowdown"]
    edge = "; at the edge of the values tried" if fit["at_edge"] else ""
    tables["node"][-1] = Entry("cpu_pool_weight", weight, "fit",
                               f"a pool thread's share of a core against a synthesis thread's, "
                               f"from prep_msm and b_g2_msm beside {counts[1:]} syntheses "
                               + ("with b_g2_msm.neighbour_slowdown " if neighbour else "")
                               + f"(rms log error {rms:.3f}{edge})")
    if neighbour:
        tables["b_g2_msm"].append(Entry(
            "neighbour_slowdown", k, "fit",
            f"how much slower its pool's threads run per synthesis running beside them, over "
            f"the cores, whatever share of the cores those get: from b_g2_msm beside "
            f"{counts[1:]} syntheses, with the pool weight above"))
    mvp = meas.get("matvec_pool")
    if mvp and matvec is not None and m1 > 0:
        from .contention import fit_matvec_weight
        at = prof.replace(node={"cpu_pool_weight": weight},
                          **({"b_g2_msm": {"neighbour_slowdown": k}} if neighbour else {}))
        mw = fit_matvec_weight(at, mvp, matvec_core_s=m1)
        tables["synth"].append(Entry(
            "matvec_weight", mw["matvec_weight"], "fit",
            f"a MatVec pool thread's share of a core against a synthesis thread's (the pool "
            f"weight above is a b_g2_msm pool thread's), from {mvp['matvecs']} MatVecs on their "
            f"pool of {mvp['matvec_threads']} beside {mvp['calls']} b_g2_msm calls back to back "
            f"on theirs (x{mw['matvec_live_x']:.2f}, model x{mw['matvec_model_x']:.2f}) and "
            f"{mvp['calls']} calls beside {mvp['matvecs']} MatVecs back to back "
            f"(x{mw['b_g2_live_x']:.2f}, model x{mw['b_g2_model_x']:.2f}; rms log error "
            f"{mw['rms_log_error']:.3f}"
            + ("; at the edge of the weights tried: the model's sharing does not explain "
               "these two slowdowns" if mw["at_edge"] else "") + ")"))
    else:
        mw = None
    host = None
    if meas.get("gpu_host"):
        gh = meas["gpu_host"]
        host = fit_gpu_host_share(gh, cores=eff_cores, pool_weight=weight)
        tables["gpu"].append(Entry(
            "host_share", host["host_share"], "fit",
            f"the share of each GPU stage that is its host thread's work, from one partition's "
            f"kernels alone ({gh['solo_s'] * 1e3:.1f} ms) and beside {gh['load_threads']} busy "
            f"threads ({gh['loaded_s'] * 1e3:.1f} ms, x{gh['slowdown']:.2f})"))
    fitted_on = [one["config"], every["config"]]
    date = meas["date"]
    calibration = {
        "method": "live", "date": date, "command": meas["command"],
        "machine": where, "host": mach["host"], "backend": backend,
        "log2_constraints": log2_constraints, "constraints": int(sizes["constraints"]),
        "witness_work": witness_work,
        "witness_s_per_work": slope["witness_s_per_work"], "witness_s": slope["witness_s"],
        # whole syntheses at both works, in turn (calibrations before these timed the
        # witness step alone: their profiles reach other works through the slope)
        **({"other_work": float(slope["other_work"]),
            "synth_ratio_at_other": round(float(slope["synth_ratio_at_other"]), 4)}
           if slope.get("synth_ratio_at_other") else {}),
        # the witness steps' spread at the other work (k at once there), which compare takes
        # on the line through it and synth.witness_spread to a run's witness work
        **({"witness_spread_at_other": spread_other["spread"]}
           if spread and spread_other and curve_at_other else {}),
        # the witness step's share of a synthesis alone at the other work (its k = 1 row
        # there), which compare takes to split a synthesis at another work
        **({"witness_fraction_at_other": split_other["fraction"]}
           if split_other and curve_at_other else {}),
        "gpu_threads": pool,
        "contention_counts": counts,
        # the b_g2_msm slowdowns the pool weight was fitted on (beside each count but 0), so
        # that a contention curve measured later can be set beside them (format_curve)
        "contention_b_g2_x": [round(float(r["b_g2_msm_slowdown"]), 4)
                              for r in sorted(cont["rows"], key=lambda r: r["syntheses"])
                              if r["syntheses"] > 0 and r.get("b_g2_msm_slowdown")],
        "fitted_on": fitted_on,
    }
    beside = (mvp or {}).get("witness") or {}
    if beside.get("slowdown") and float(beside.get("witness_work", -1)) == 0.0:
        # the witness step beside the b_g2_msm pool's calls, its two parts: at the profile's
        # own work here, at a run's in compare
        from .compare import witness_pool_slowdown_at, work_part_slowdown
        calibration["witness_beside_pool"] = round(float(beside["slowdown"]), 4)
        at_work = mvp.get("witness_at_work") or {}
        x_work = (work_part_slowdown(beside["slowdown"], beside["alone_s"],
                                     at_work["slowdown"], at_work["alone_s"])
                  if at_work.get("slowdown") else None)
        if x_work is not None:
            calibration["witness_work_beside_pool"] = x_work
        at = Profile(name=name, data={**table_values(tables), "calibration": calibration},
                     source="<calibrate>")
        how = (f"the rest x{x_work:.2f}, from the step at witness work "
               f"{float(at_work['witness_work']):g} so ({at_work['alone_s'] * 1e3:.0f} -> "
               f"{at_work['beside_s'] * 1e3:.0f} ms)" if x_work is not None
               else "the rest as alone (not timed there)")
        tables["synth"].append(Entry(
            "witness_pool_slowdown", witness_pool_slowdown_at(at, witness_work), "fit",
            f"the witness step beside a full b_g2_msm pool: its part at witness work 0 "
            f"(allocating and first touching its output) x{beside['slowdown']:.2f}, as "
            f"{mvp['matvecs']} W=0 syntheses ran beside {mvp['calls']} calls back to back "
            f"({beside['alone_s'] * 1e3:.0f} -> {beside['beside_s'] * 1e3:.0f} ms), {how}"))
    if command:
        calibration["derived_by"] = command
    header = [f"{name}: calibrated live on {where}, {mach['memory_gib']} GiB RAM.",
              f"Date {date}; command: {calibration['command']}",
              f"2^{log2_constraints} rows per partition ({int(sizes['constraints']):,} constraints), "
              f"{backend} backend, witness work {witness_work:g}.",
              "Tags: measured (this machine, this command), cuzk (cuzk's documented value),",
              "fit (a model parameter chosen to reproduce a measurement), assumed (not measured).",
              "Fitted on the two solo runs and the contention counts in [calibration]."]
    if command:
        header.append(f"Made again from those measurements by: {command}")
    text = profile_text(name, f"calibrated live on {where} at 2^{log2_constraints}", header,
                        [Entry("phase", 12, "assumed", "the live executor follows cuzk phase "
                               "12 (split API, early a/b/c free)")], tables, calibration)
    derived = {"synth_sharing": sharing, "pool_weight_rms_log_error": rms,
               **({"contention_fit": fit} if neighbour else {}), "matvec": matvec,
               "matvec_weight": mw, "gpu_host": host}
    return {"text": text, "measurements": {**meas, "derived": derived},
            "calibration": calibration}


def rebase_capacity(capacity: dict, solo_s: float) -> dict:
    """Return the k-syntheses-at-once curve with each slowdown taken against ``solo_s``.

    The model runs a synthesis's one-thread work (``synth.work_core_s``, the solo
    run's synthesis) slower by the busy-machine factor fitted on this curve, so the
    curve's slowdowns must be against that same solo time, not against the curve's
    own one-synthesis baseline, timed minutes apart in another loop (on the H200
    host the two differed by 9 %, which the fit then counted twice).
    """
    if not solo_s or solo_s <= 0:
        return capacity
    rows = [{**r, "slowdown": r["mean_s"] / solo_s,
             "capacity_cores": r["syntheses"] * solo_s / r["mean_s"]}
            for r in capacity["rows"]]
    return {**capacity, "rows": rows, "solo_synth_s": solo_s,
            "curve_solo_synth_s": capacity.get("solo_synth_s")}


# When cuzk's synthesis touches its memory, not the live executor's: the live executor
# writes a, b, c as its MatVec computes them and its measured scratch spans the synthesis,
# which the keys' defaults say.
_NOT_INHERITED = {("synth", "abc_touched"), ("synth", "scratch_held")}


def _fill_from(base, tables: dict) -> None:
    """Add, tagged ``assumed``, each value of ``base`` that these measurements do not give.

    These are the memory-pressure and set-up constants of the model, which act only near the
    host's RAM line or inside cuzk's own set-up; a live calibration run stays far from both.
    """
    from ..model.profile import DERIVED
    for table, entries in tables.items():
        have = {e.key for e in entries}
        for key, value in base.data.get(table, {}).items():
            if key in have or key in DERIVED.get(table, ()) or (table, key) in _NOT_INHERITED:
                continue
            entries.append(Entry(key, value, "assumed",
                                 f"{base.name}'s value; not measured by this command"))

