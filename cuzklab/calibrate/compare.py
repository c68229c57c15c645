"""``compare``: the model and a live run on the same configurations, and the error per metric.

For each configuration :func:`compare_rows` simulates it on the profile and
runs it live at 2^K rows per partition, then reports both sides and the
model's relative error ``model / live - 1`` on s/proof, mean latency, peak
RSS, GPU busy (an absolute difference: it is a fraction) and every stage's
mean, and whether both name the same bottleneck. A row whose configuration
is one the profile was fitted on (``[calibration] fitted_on``) is marked
``fitted``: the other rows are the ones that tell how good the model is.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import ConfigError, ProfileError

#: Relative-error metrics of a row (summary keys), and the targets of docs/calibrate.md.
METRICS = ("seconds_per_proof", "proof_latency_s_mean", "peak_rss_gib")
TARGETS = {"seconds_per_proof": 0.10, "peak_rss_gib": 0.15}
#: Stages whose means are compared (the work stages both sides see).
STAGES = ("synth", "prep_msm", "h2d", "ntt_h", "batch_add", "tail_msm", "b_g2_msm", "epilogue")


def fitted_configs(profile) -> list[dict]:
    """Return the configurations (dicts) the profile was fitted on ([calibration] fitted_on)."""
    from ..model.profile import Profile
    prof = Profile.load(profile)
    return [dict(c) for c in (prof.get("calibration", "fitted_on", []) or [])]


def is_fitted(config, fitted: list[dict]) -> bool:
    """Return True when ``config`` is one of the ``fitted`` configurations."""
    d = config.to_dict()
    return any(all(d.get(k) == v for k, v in f.items()) for f in fitted)


def load_grid(path) -> list:
    """Return the configurations of a grid TOML: ``[parameters]`` on every point, ``[grid]`` crossed.

    The same two tables as a sweep grid (other tables and keys that are not
    configuration keys, such as ``profile`` or ``notebook``, are ignored), or
    ``points = [{...}, ...]`` listed one by one.
    """
    from ..model import PipelineConfig
    p = Path(path)
    if not p.is_file():
        raise ConfigError("--grid", f"no such file: {p}")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError("--grid", f"{p}: not valid TOML: {exc}") from None
    keys = set(PipelineConfig.keys())
    base = {k: v for k, v in (data.get("parameters") or {}).items() if k in keys}
    grid = data.get("grid") or {}
    bad = sorted(k for k in grid if k not in keys)
    if bad:
        raise ConfigError("--grid", f"{p}: [grid] {bad[0]} is not a configuration key; keys: "
                          f"{', '.join(PipelineConfig.keys())}")
    for k, v in grid.items():
        if not isinstance(v, list) or not v:
            raise ConfigError("--grid", f"{p}: [grid] {k} must be a non-empty list, got {v!r}")
    points = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())] \
        if grid else []
    for i, pt in enumerate(data.get("points") or []):
        if not isinstance(pt, dict):
            raise ConfigError("--grid", f"{p}: points[{i}] must be a table, got {pt!r}")
        points.append(pt)
    if not points:
        points = [{}]
    out = []
    for pt in points:
        try:
            out.append(PipelineConfig.from_dict({**base, **pt}))
        except ConfigError as exc:
            raise ConfigError("--grid", f"{p}: {exc}") from None
    return out


def _rel(model, live):
    if model is None or live is None or live == 0:
        return None
    return round(model / live - 1.0, 4)


def side(summary: dict) -> dict:
    """Return the compared figures of one side (a run's summary)."""
    st = summary.get("stage_s") or {}
    return {"seconds_per_proof": summary.get("seconds_per_proof"),
            "proof_latency_s_mean": summary.get("proof_latency_s_mean"),
            "peak_rss_gib": summary.get("peak_rss_gib"),
            "gpu_busy_fraction": summary.get("gpu_busy_fraction"),
            "stage_s": {s: st[s] for s in STAGES if s in st},
            "bottleneck": (summary.get("bottleneck") or {}).get("resource"),
            "why": (summary.get("bottleneck") or {}).get("why"),
            "failed": summary.get("run_failed"), "failure_reason": summary.get("failure_reason")}


#: The stages a GPU worker runs while it holds its GPU (the per-GPU mutex's region).
REGION_STAGES = ("h2d", "ntt_h", "barrier_wait", "batch_add", "tail_msm")


def gpu_hold_s(trace) -> float | None:
    """Return how long a partition's GPU region holds the GPU: the median, over the
    partitions, of the time from its first region span (``REGION_STAGES``) to its last on
    its worker's lane, gaps between them included (None without such spans).

    With one mutex per GPU the workers take turns, so a GPU-bound run's rate is about one
    partition per hold; a hold longer live than in the model delays every partition queued
    behind it (the twenty-fourth H200 job: 76-88 ms live against 45-73 in the model).
    """
    s = trace.spans
    s = s[s["stage"].isin(REGION_STAGES) & s["lane"].str.fullmatch(r"gpu\d+\.w\d+")]
    if not len(s):
        return None
    g = s.groupby(["lane", "proof", "partition"]).agg(a=("start", "min"), b=("end", "max"))
    return round(float((g["b"] - g["a"]).median()), 6)


def pool_interval_s(trace) -> float | None:
    """Return the seconds between b_g2_msm calls finishing while the pool is backed up: the
    median gap between consecutive ends where the next call had already started (None
    with fewer than two such gaps).

    A call's span counts from its submission, so its mean holds its wait for the pool;
    this is the pool's own pace (the twenty-fourth H200 job's split_async pw=12 row: a call
    every ~0.15 s live against ~0.12 s in the model, with the means alike).
    """
    s = trace.spans
    b = s[s["stage"] == "b_g2_msm"].sort_values("end")
    ends, starts = b["end"].to_numpy(), b["start"].to_numpy()
    gaps = [ends[i + 1] - ends[i] for i in range(len(ends) - 1) if starts[i + 1] < ends[i]]
    if len(gaps) < 2:
        return None
    return round(float(statistics.median_low(gaps)), 6)


def worker_cycle_s(trace) -> float | None:
    """Return how often a GPU worker takes the next partition: the median, over the gaps
    between one prep_msm start and the next on the same worker's CPU lane
    (``gpuG.wW.cpu``), of their seconds (None with fewer than two such gaps).

    A worker runs prep_msm, its GPU region and, but under ``split_async``, the partition's
    b_g2_msm and epilogue before it takes the next, so this is its cycle; where the
    syntheses keep it fed, a run's rate is the workers' over it. The fifty-second to
    fifty-fourth jobs' split_async rows turned 1.5-2.5x slower live than in the model, their
    prep_msm two to four times its time alone (docs/calibrate.md).
    """
    s = trace.spans
    p = s[(s["stage"] == "prep_msm") & s["lane"].str.fullmatch(r"gpu\d+\.w\d+\.cpu")]
    gaps: list[float] = []
    for _, g in p.groupby("lane"):
        starts = sorted(g["start"].tolist())
        gaps += [b - a for a, b in zip(starts, starts[1:])]
    if len(gaps) < 2:
        return None
    return round(float(statistics.median_low(gaps)), 6)


def synth_steps_s(trace) -> dict | None:
    """Return the mean seconds of a synthesis's two steps: ``witness`` (the witness program
    on one thread) and ``matvec`` (from the witness's end to the synthesis's end: the wait
    for the MatVec pool and the MatVec itself), over the run's syntheses (None where the
    trace does not record them: a one-step synthesis in the model, a trace saved before
    they were recorded, a daemon's log).

    A synthesis's span also holds what comes before its witness (the wait for a
    synthesis thread, the pinned buffer's check-out), which neither step counts. A live
    trace also records, of the thread that ran each synthesis (its witness step, and what
    it does itself around the MatVec), its CPU seconds, minor page faults and involuntary
    context switches: ``thread_cpu``, ``page_faults`` and ``preempted`` are their means, so
    that a witness step longer than the model's can be told apart as time without a core
    (CPU seconds below its wall time, switched out often) or slower work on one (CPU
    seconds as long; the faults say how much of it went to first touches of memory).
    """
    rows = (trace.meta or {}).get("synth_steps") or []
    if not rows:
        return None
    out = {"witness": round(sum(r[2] for r in rows) / len(rows), 6),
           "matvec": round(sum(r[3] for r in rows) / len(rows), 6)}
    # a live run's: the thread's CPU seconds, then its minor page faults and the times it
    # was switched out while runnable (involuntary context switches)
    out.update(_usage_means(rows, 4))
    return out


def _usage_means(rows: list, at: int) -> dict:
    """Return the means of the thread usage (:func:`cuzklab.live.executor.thread_usage`)
    that ``rows`` hold from column ``at`` on: ``thread_cpu``, ``page_faults``,
    ``preempted`` (involuntary switches) and ``waited`` (voluntary ones), each where every
    row holds it (traces saved before a column was recorded lack it)."""
    out = {}
    for i, key in enumerate(("thread_cpu", "page_faults", "preempted", "waited")):
        if rows and all(len(r) > at + i for r in rows):
            out[key] = round(sum(r[at + i] for r in rows) / len(rows), 6 if i == 0 else 1)
    return out


def prep_steps_s(trace) -> dict | None:
    """Return the means over a live run's prep_msm calls of their own seconds (``own``:
    the call, without the wait for a pool thread its span also holds) and of what the
    thread that ran each did meanwhile (``thread_cpu``, ``page_faults``, ``preempted``,
    ``waited``; :func:`_usage_means`), None where the trace does not record them (the
    model, a daemon's log, a trace saved before they were recorded).

    A prep_msm slower than alone with its CPU seconds as long ran slower on a core
    (memory, cache); with them near its time alone it was switched out while runnable
    (``preempted``: the host's cores shared out) or waited (``waited``: the interpreter's
    lock, another lock, a page)."""
    rows = (trace.meta or {}).get("prep_steps") or []
    if not rows:
        return None
    out = {"own": round(sum(r[2] for r in rows) / len(rows), 6)}
    out.update(_usage_means(rows, 3))
    return out


def synth_ends(trace) -> dict | None:
    """Return when a run's first and last syntheses ended and when the run ended, in seconds
    from its first span's start (None without a synthesis span).

    With every synthesis slot started at once, the first end is when the GPU's work can
    begin and the last is the end of the syntheses' last wave: a model that gets the
    run's end right can still end its syntheses too soon and its GPU work too late
    (docs/calibrate.md, "A synthesis's two steps")."""
    s = trace.spans
    ends = s.loc[s["stage"] == "synth", "end"]
    if not len(ends):
        return None
    t0 = float(s["start"].min())
    return {"first": round(float(ends.min()) - t0, 6), "last": round(float(ends.max()) - t0, 6),
            "end": round(float(s["end"].max()) - t0, 6)}


def synth_waves(trace) -> dict | None:
    """Return the mean seconds of a run's first syntheses and of its later ones, and their
    ratio (None without a synthesis that started after the first one ended).

    The first are those that started before any synthesis ended: the partition workers'
    first wave, which runs before any GPU work or b_g2_msm call. The later ones start as
    slots free and run beside the earlier partitions' prep_msm and b_g2_msm calls, so
    ``later_over_first`` is how much those calls slow a synthesis, with the host's pace of
    the moment divided out (docs/calibrate.md, "Beside the b_g2_msm pool").

    Where the trace keeps each synthesis's steps (``synth_steps``), the same ratio of
    their witness steps (``witness_later_over_first``), and where those steps carry the
    synthesizing thread's CPU seconds (a live run's), of those too
    (``cpu_later_over_first``): a later witness step that takes longer for the same CPU
    spent the difference waiting for a core."""
    s = trace.spans
    syn = s.loc[s["stage"] == "synth", ["proof", "partition", "start", "end"]]
    if not len(syn):
        return None
    first_end = float(syn["end"].min())
    dur = syn["end"] - syn["start"]
    early = syn["start"] < first_end
    if early.all():
        return None
    first, later = float(dur[early].mean()), float(dur[~early].mean())
    out = {"first": round(first, 6), "later": round(later, 6),
           "later_over_first": round(later / first, 4) if first > 0 else None}
    steps = {(int(x[0]), int(x[1])): x for x in (trace.meta or {}).get("synth_steps") or ()}
    got = [steps.get((int(p), int(k))) for p, k in zip(syn["proof"], syn["partition"])]
    for name, col in (("witness_later_over_first", 2), ("cpu_later_over_first", 4)):
        if not all(x is not None and len(x) > col for x in got):
            continue
        a = [float(x[col]) for x, e in zip(got, early) if e]
        b = [float(x[col]) for x, e in zip(got, early) if not e]
        if a and b and statistics.fmean(a) > 0:
            out[name] = round(statistics.fmean(b) / statistics.fmean(a), 4)
    return out


def trace_figures(trace) -> dict:
    """Return a run's ``gpu_hold_s``, ``pool_interval_s``, ``worker_cycle_s``,
    ``synth_steps_s``, ``synth_ends_s``, ``synth_waves_s`` and ``prep_steps_s`` (the
    figures a side carries beside its summary)."""
    return {"gpu_hold_s": gpu_hold_s(trace), "pool_interval_s": pool_interval_s(trace),
            "worker_cycle_s": worker_cycle_s(trace),
            "synth_steps_s": synth_steps_s(trace), "synth_ends_s": synth_ends(trace),
            "synth_waves_s": synth_waves(trace), "prep_steps_s": prep_steps_s(trace)}


def _rss_start(trace):
    rss = trace.counters[trace.counters["name"] == "rss_gib"]
    return round(float(rss.sort_values("t")["value"].iloc[0]), 4) if len(rss) else None


def at_live_start(profile, rss_start_gib):
    """Return ``profile`` with its idle memory set to a live run's RSS at its start.

    A process's RSS before a run (the interpreter, the libraries, the circuit,
    the key: ``memory.runtime_gib`` + the key) is not what the model predicts,
    and it moves between processes (by a quarter of a GiB between the
    calibration's process and the compared rows' own on the H200 host); so each
    row's model starts from its own live run's start, and the peak it predicts
    is that start plus what the pipeline holds. The profile is returned as it
    is when ``rss_start_gib`` is None.
    """
    if rss_start_gib is None:
        return profile
    mem = profile["memory"]
    runtime = max(0.0, float(rss_start_gib) - mem["srs_gib"] - mem["pce_gib"])
    out = profile.replace(memory={"runtime_gib": round(runtime, 6)})
    return dataclasses.replace(out, name=profile.name)


def verdict_label(side_: dict) -> str:
    """Return a side's verdict as printed: the judged one, and the model's own finer one in
    brackets where the measured side could not show it (``bottleneck_detail``)."""
    detail = side_.get("bottleneck_detail")
    return f"{side_['bottleneck']} ({detail})" if detail else str(side_["bottleneck"])


def row_errors(model: dict, live: dict) -> dict:
    """Return the model's errors against the measurement for one row."""
    err = {m: _rel(model[m], live[m]) for m in METRICS}
    gm, gl = model["gpu_busy_fraction"], live["gpu_busy_fraction"]
    err["gpu_busy_points"] = None if gm is None or gl is None else round(gm - gl, 4)
    err["stage_s"] = {s: _rel(model["stage_s"].get(s), live["stage_s"].get(s))
                      for s in STAGES if s in live["stage_s"] and s in model["stage_s"]}
    err["same_verdict"] = model["bottleneck"] == live["bottleneck"]
    err["gpu_hold_s"] = _rel(model.get("gpu_hold_s"), live.get("gpu_hold_s"))
    err["pool_interval_s"] = _rel(model.get("pool_interval_s"), live.get("pool_interval_s"))
    err["worker_cycle_s"] = _rel(model.get("worker_cycle_s"), live.get("worker_cycle_s"))
    for key, parts in (("synth_steps_s", ("witness", "matvec")),
                       ("synth_ends_s", ("first", "last", "end")),
                       ("synth_waves_s", ("first", "later", "later_over_first"))):
        ms, ls = model.get(key) or {}, live.get(key) or {}
        err[key] = {k: _rel(ms.get(k), ls.get(k)) for k in parts} if ms and ls else None
    return err


def profile_at_witness_work(profile, witness_work: float):
    """Return ``profile`` as it describes runs at ``witness_work`` (the profile itself at its own).

    A live-calibrated profile records the witness work it was measured at and
    ``witness_s_per_work`` (``[calibration]``): the seconds one unit adds to the
    one-thread witness step. The MatVec does not change with the witness work, so
    the synthesis's one-thread work moves by the difference times that slope, its
    serial share (``witness_fraction``) is the witness's share of the new work,
    and ``max_threads`` its Amdahl speed-up on the node's cores. Where the profile
    also records ``witness_s`` (the witness step at its own work, timed in the same
    step as the slope), the slope is taken relative to it: the witness moves by
    ``witness x slope x difference / witness_s``, so a host that ran slower or
    faster during that step than during the runs that set ``work_core_s`` does not
    move the witness by the step's own seconds (on a host whose one-thread times
    spread 25 %, the raw slope left the witness at witness work 0 at nothing).
    Where the calibration also timed the syntheses at once at the other work
    (``[calibration] witness_spread_at_other``), ``synth.witness_spread`` moves on
    the line through the two works too; where it kept the two steps of a synthesis
    alone there (``witness_fraction_at_other``), the witness step is on the line
    through its seconds at the two works, that share of the whole synthesis at the
    other, and the MatVec is the rest (without it, the MatVec keeps its seconds at the
    calibration's work and the witness is what is left, none where the whole synthesis
    at the other work is shorter than that MatVec).
    """
    from ..live import check_witness_work
    from ..model.profile import Profile
    prof = Profile.load(profile)
    w = check_witness_work(witness_work)
    w_cal = prof.get("calibration", "witness_work")
    if w_cal is None or float(w_cal) == w:
        if w_cal is None and w != 1.0:
            raise ConfigError("witness_work", f"profile {prof.name} records no witness work "
                              "([calibration] witness_work): it can only model runs at the "
                              f"default witness work 1, got {w:g}")
        return prof
    new_work, witness, spread = _witness_line(prof, w)
    return _at_work(prof, w, new_work, witness, spread, witness_pool_slowdown_at(prof, w))


def witness_pool_slowdown_at(prof, w: float) -> float | None:
    """Return the witness step's slowdown beside a full b_g2_msm pool at witness work ``w``
    (``synth.witness_pool_slowdown``), or None where the profile records no
    ``[calibration] witness_beside_pool``.

    A witness step is two parts: what witness work 0 keeps (allocating and first
    touching its output) and the per-constraint work that the witness work adds. The
    first runs ``witness_beside_pool`` slower beside b_g2_msm calls back to back on
    their pool (the W=0 step timed so), the second ``witness_work_beside_pool`` slower
    (from the step timed so at the calibration's own work too; absent: as alone). A step
    at ``w`` slows by their mean weighted by the parts' seconds alone, both on the
    witness step's line through the two works (:func:`profile_at_witness_work`)."""
    x0 = prof.get("calibration", "witness_beside_pool")
    if x0 is None:
        return None
    x_work = prof.get("calibration", "witness_work_beside_pool", 1.0)
    witness, at_zero = _witness_line(prof, w)[1], _witness_line(prof, 0.0)[1]
    return parts_slowdown(float(x0), float(x_work), at_zero, witness)


def parts_slowdown(x_zero: float, x_work: float, at_zero: float, witness: float) -> float:
    """Return the slowdown of a witness step of ``witness`` seconds alone, ``at_zero`` of
    them the part witness work 0 keeps, when that part slows ``x_zero`` and the rest
    ``x_work`` (each at least 1: a part that ran faster beside a load, noise, as alone)."""
    x_zero, x_work = max(1.0, x_zero), max(1.0, x_work)
    if witness <= 0:
        return round(x_zero, 4)
    z = min(1.0, max(0.0, at_zero) / witness)
    return round(x_zero * z + x_work * (1.0 - z), 4)


def work_part_slowdown(x_zero: float, alone_zero: float, x_at: float,
                       alone_at: float) -> float | None:
    """Return the slowdown of the part of a witness step that its witness work adds, from
    the step timed alone and beside a load at witness work 0 (``alone_zero`` seconds,
    ``x_zero`` slower) and at a higher work (``alone_at``, ``x_at``); None where the
    higher work's step is not the longer (nothing to split)."""
    if alone_at <= alone_zero or alone_zero < 0:
        return None
    x = (alone_at * x_at - alone_zero * max(1.0, x_zero)) / (alone_at - alone_zero)
    return round(max(1.0, x), 4)


def _witness_line(prof, w: float) -> tuple[float, float, float | None]:
    """Return a one-thread synthesis's seconds at witness work ``w``, its witness step's
    seconds and the witness steps' spread there (None: the profile's own), on the line
    :func:`profile_at_witness_work` describes."""
    s = prof["synth"]
    w_cal = float(prof.get("calibration", "witness_work"))
    work, frac = float(s["work_core_s"]), float(s.get("witness_fraction", 0.0))
    ratio = prof.get("calibration", "synth_ratio_at_other")
    w_o = prof.get("calibration", "other_work")
    if ratio is not None and w_o is not None and float(w_o) != w_cal:
        # two whole one-thread syntheses timed in the same minutes: the line through them
        t = (w - w_cal) / (float(w_o) - w_cal)  # 0 at the calibration's, 1 there

        def on_line(here: float, there: float) -> float:
            return here + (there - here) * t
        new_work = max(1e-6, work * on_line(1.0, float(ratio)))
        frac_o = prof.get("calibration", "witness_fraction_at_other")
        if frac_o is not None:
            # the witness step on the line through its seconds at the two works: at the
            # other work its share of a synthesis alone there, as measured
            at_o = float(frac_o) * work * float(ratio)
            witness = min(new_work, max(0.0, on_line(frac * work, at_o)))
        else:
            witness = max(0.0, new_work - (1 - frac) * work)  # the MatVec does not move
        spread = s.get("witness_spread")
        spread_o = prof.get("calibration", "witness_spread_at_other")
        if spread is not None and spread_o is not None:  # on the line through the two works
            spread = on_line(float(spread), float(spread_o))
        return new_work, witness, spread
    slope = prof.get("calibration", "witness_s_per_work")
    if slope is None:
        raise ConfigError("witness_work", f"profile {prof.name} was calibrated at witness work "
                          f"{w_cal:g} and records no witness_s_per_work: calibrate it "
                          f"again to model witness work {w:g}")
    at_cal = float(prof.get("calibration", "witness_s") or 0.0)
    scale = frac * work / at_cal if at_cal > 0 else 1.0  # relative to the step's own witness
    witness = max(0.0, frac * work + (w - w_cal) * float(slope) * scale)
    return max(1e-6, (1 - frac) * work + witness), witness, None


def _at_work(prof, w: float, new_work: float, witness: float, spread: float | None = None,
             beside_pool: float | None = None):
    """Return ``prof`` with a one-thread synthesis of ``new_work`` seconds, ``witness`` of
    them serial (the witness step), named for witness work ``w``; ``spread``: the witness
    steps' spread there (``synth.witness_spread``; None: the profile's own);
    ``beside_pool``: the witness step's slowdown beside a full b_g2_msm pool there
    (``synth.witness_pool_slowdown``; None: the profile's own)."""
    new_frac = min(0.99, witness / new_work)
    cores = max(1, int(prof["node"]["cores"]))
    speedup = min(float(cores), 1.0 / (new_frac + (1 - new_frac) / cores))
    at = {"work_core_s": new_work, "witness_fraction": round(new_frac, 4),
          "max_threads": round(max(1.0, speedup), 4)}
    if spread is not None:
        at["witness_spread"] = round(min(2.0, max(0.0, spread)), 4)
    if beside_pool is not None:
        at["witness_pool_slowdown"] = beside_pool
    out = prof.replace(synth=at)
    return dataclasses.replace(out, name=f"{prof.name} at witness work {w:g}")


def _per_config(value, n: int, name: str) -> list:
    """Return ``value`` repeated n times, or the list itself when it has one entry per config."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ConfigError(name, f"give one value per configuration ({n}), got {len(value)}")
        return list(value)
    return [value] * n


def check_repeats(repeats) -> int:
    """Return ``repeats`` if it is an int >= 1, else raise ConfigError naming it."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError("repeats", f"must be an integer >= 1, got {repeats!r}")
    return repeats


def compare_rows(configs, *, profile, log2_constraints: int, backend: str = "cpu",
                 witness_work=1.0, keep_traces: bool = False, progress=None,
                 verify: bool = False, repeats: int = 1, track_host: bool = False) -> list[dict]:
    """Return one row per configuration: the model, the live run, the errors, fitted or not.

    Each row runs live first; its model starts from the live run's RSS at its
    start (:func:`at_live_start`).

    ``witness_work``: one number for every row, or a list with one per
    configuration (the model side then uses :func:`profile_at_witness_work`).
    ``verify``: pairing-check every partition proof of the live runs after them.
    ``repeats``: run the configurations this many times over, pass after pass
    (a host that drifts then moves every row alike); each row is then
    :func:`merge_repeats` of its runs. ``progress(done, total, row)`` is called
    after every run. ``track_host``: time a host check right before and right after
    every live run (:class:`~cuzklab.calibrate.hostcheck.HostCheck`: a one-thread
    synthesis and b_g2_msm calls on the run's pool, each alone) and simulate the row a
    second time on the profile scaled to the host's speed of those checks
    (``model_tracked``, ``error_tracked``, the checks under ``host_check``).
    """
    repeats = check_repeats(repeats)
    from ..live import run as run_live
    from ..live.report import live_summary
    from ..model import PipelineConfig
    from ..model.profile import Profile
    from ..sim import simulate
    prof = Profile.load(profile)
    fitted = fitted_configs(prof)
    configs = [PipelineConfig.coerce(c) for c in configs]
    if not configs:
        raise ConfigError("configs", "give at least one configuration to compare")
    works = _per_config(witness_work, len(configs), "witness_work")
    models = {w: profile_at_witness_work(prof, w) for w in sorted(set(works))}
    runs: list[list[dict]] = [[] for _ in configs]
    total = len(configs) * repeats
    checkers: dict = {}
    for n, (i, (cfg, w)) in enumerate((i, cw) for _ in range(repeats)
                                      for i, cw in enumerate(zip(configs, works))):
        check = _checker(checkers, cfg, w, log2_constraints, backend) if track_host else None
        before = check.measure() if check else None
        live = run_live(cfg, log2_constraints=log2_constraints, backend=backend, profile=prof,
                        progress=False, verify=verify, witness_work=w)
        after = check.measure() if check else None
        ls = side(live.summary())
        ls["rss_start_gib"] = _rss_start(live)
        ls.update(trace_figures(live))
        sim = simulate(cfg, at_live_start(models[w], ls["rss_start_gib"]))
        ms = side(sim.summary())
        ms["rss_start_gib"] = _rss_start(sim)
        ms.update(trace_figures(sim))
        extra = live_summary(live)
        ls["overhead_fraction"] = extra.get("overhead_fraction")
        if verify:
            ls["verification"] = extra.get("verification")
        row = {"config": cfg.to_dict(), "witness_work": w, "fitted": is_fitted(cfg, fitted),
               "model": ms, "live": ls, "error": row_errors(ms, ls)}
        if check:
            row.update(tracked_side(cfg, models[w], {"before": before, "after": after}, ls))
        if keep_traces:
            row["traces"] = {"model": sim, "live": live}
        runs[i].append(row)
        if callable(progress):
            progress(n + 1, total, row)
    return [merge_repeats(r) if len(r) > 1 else r[0] for r in runs]


def _checker(cache: dict, cfg, w, log2_constraints: int, backend: str):
    """Return the run's :class:`~cuzklab.calibrate.hostcheck.HostCheck` (one per
    workload and pool, built on first use)."""
    from ..live import workload
    from .hostcheck import HostCheck
    from .measure import host_cores
    pool = int(cfg.gpu_threads or host_cores())
    key = (cfg.seed, float(w), pool)
    if key not in cache:
        cache[key] = HostCheck(workload(log2_constraints, cfg.seed, backend, w), pool)
    return cache[key]


def _tracked_model(cfg, model_profile, checks: dict, rss_start_gib) -> tuple[dict, dict]:
    """Return the host check with its ratios, and the run simulated on ``model_profile``
    scaled by them (its side, :func:`side` and :func:`trace_figures`)."""
    from ..sim import simulate
    from .hostcheck import host_ratios, tracked_profile
    hr = host_ratios(model_profile, [checks.get("before"), checks.get("after")])
    sim = simulate(cfg, at_live_start(tracked_profile(model_profile, hr["ratios"]),
                                      rss_start_gib))
    mt = side(sim.summary())
    mt.update(trace_figures(sim))
    return {"before": checks.get("before"), "after": checks.get("after"), **hr}, mt


def _tracked_brief(mt: dict, live: dict) -> dict:
    """Return what a repeat keeps of a tracked model: its s/proof, RSS and verdict and their
    errors against ``live`` (a run's side or a repeat)."""
    return {"seconds_per_proof": mt["seconds_per_proof"], "peak_rss_gib": mt["peak_rss_gib"],
            "bottleneck": mt["bottleneck"],
            "error": {"seconds_per_proof": _rel(mt["seconds_per_proof"], live["seconds_per_proof"]),
                      "peak_rss_gib": _rel(mt["peak_rss_gib"], live["peak_rss_gib"]),
                      "same_verdict": mt["bottleneck"] == live["bottleneck"]}}


def tracked_side(cfg, model_profile, checks: dict, live: dict) -> dict:
    """Return a row's host-tracked model: ``host_check`` (the checks and their ratios),
    ``model_tracked`` (the run simulated on ``model_profile`` scaled by them) and
    ``error_tracked`` (its errors against ``live``)."""
    hc, mt = _tracked_model(cfg, model_profile, checks, live.get("rss_start_gib"))
    return {"host_check": hc, "model_tracked": mt, "error_tracked": row_errors(mt, live)}


def trace_name(config: dict, witness_work, side: str, pass_no: int | None = None) -> str:
    """Return the file name a comparison's trace is saved under (``bench_compare.py
    --traces``): lock, gw, pw, witness work, side, and the pass of repeated rows."""
    return (f"{config['lock']}-gw{config['gpu_workers_per_device']}-"
            f"pw{config['partition_workers']}-w{witness_work:g}-{side}"
            + (f"-p{pass_no}" if pass_no else "") + ".parquet")


def _saved_trace(row: dict, folder, pass_no: int | None):
    """Return the path of one saved live trace of ``row`` in ``folder`` (None where absent).

    A row run once in a comparison whose other rows were repeated was saved as its first
    pass (``-p1``); ``pass_no`` None finds it under either name."""
    from pathlib import Path
    names = [pass_no] if pass_no else [None, 1]
    for n in names:
        path = Path(folder) / trace_name(row["config"], row.get("witness_work", 1.0), "live", n)
        if path.exists():
            return path
    return None


def _saved_figures(row: dict, folder, pass_no: int | None) -> dict:
    """Return :func:`trace_figures` of one saved live trace of ``row`` ({} where absent)."""
    from ..trace import load
    path = _saved_trace(row, folder, pass_no)
    return trace_figures(load(path)) if path is not None else {}


def _median_pass(row: dict) -> int | None:
    """Return the pass (from 1) whose run a repeated row's figures are (0: not found; None:
    the row is not repeated)."""
    reps = row["live"].get("repeats") or []
    if len(reps) < 2:
        return None
    spp = [r["seconds_per_proof"] for r in reps]
    return spp.index(row["live"]["seconds_per_proof"]) + 1 \
        if row["live"]["seconds_per_proof"] in spp else 0


def live_diagnostics(row: dict, folder) -> dict:
    """Return the live ``gpu_hold_s`` and ``pool_interval_s`` of a stored row from its saved
    trace in ``folder`` (the median run's, for repeated rows), or {} where it is not there."""
    pass_no = _median_pass(row)
    return {} if pass_no == 0 else _saved_figures(row, folder, pass_no)


def pass_figures(row: dict, folder) -> list[dict]:
    """Return :func:`trace_figures` of each pass of a stored repeated row, from its saved
    traces in ``folder`` ({} for a pass without a trace)."""
    return [_saved_figures(row, folder, n)
            for n in range(1, len(row["live"].get("repeats") or []) + 1)]


def pass_paces(row: dict, folder) -> list[float | None]:
    """Return each pass's live b_g2_msm pool pace (:func:`pool_interval_s`) of a stored
    repeated row from its saved traces in ``folder`` (None for a pass without a trace or
    without a backed-up pool)."""
    return [f.get("pool_interval_s") for f in pass_figures(row, folder)]


def pace_tracking(rows: list[dict]) -> dict | None:
    """Return how the passes' s/proof moved with their b_g2_msm pool's pace.

    Within each repeated row, every completed pass with a pace gives the log of its s/proof
    and of its pace over the row's geometric means; over all rows, ``r`` is their
    correlation and ``slope`` the least-squares slope of s/proof on pace. The pool's
    calls are CPU work of fixed size, so a pace that moves from pass to pass is the host's
    speed of the moment; a high ``r`` says the passes' spread is that speed;
    ``pace_spread`` is the widest row's (slowest pace over fastest, less 1) (the
    twenty-fourth and twenty-fifth H200 jobs: r = 0.82 over nine rows, docs/calibrate.md).
    None with fewer than two rows of two such passes.
    """
    import math
    xs: list[float] = []
    ys: list[float] = []
    used, widest = 0, 0.0
    for r in rows:
        pts = [(rep["seconds_per_proof"], rep.get("pool_interval_s"))
               for rep in r["live"].get("repeats") or []
               if not rep.get("failed") and rep.get("pool_interval_s")
               and rep.get("seconds_per_proof")]
        if len(pts) < 2:
            continue
        used += 1
        widest = max(widest, max(b for _, b in pts) / min(b for _, b in pts) - 1.0)
        ls = [math.log(a) for a, _ in pts]
        lp = [math.log(b) for _, b in pts]
        xs += [v - sum(lp) / len(lp) for v in lp]
        ys += [v - sum(ls) / len(ls) for v in ls]
    sxx = sum(x * x for x in xs)
    syy = sum(y * y for y in ys)
    if used < 2 or sxx <= 0 or syy <= 0:
        return None
    sxy = sum(x * y for x, y in zip(xs, ys))
    return {"rows": used, "passes": len(xs), "r": round(sxy / math.sqrt(sxx * syy), 4),
            "slope": round(sxy / sxx, 4), "pace_spread": round(widest, 4)}


def _with_saved_figures(row: dict, folder) -> dict:
    """Return ``row``'s live side with what it lacks of its trace figures (GPU hold, pool
    pace, synthesis steps, ends and waves: the median run's, and each pass's pace for a repeated
    row) read from its saved traces, each trace read once; what the row has is kept."""
    ls = row["live"]
    reps = ls.get("repeats") or []
    waves = ls.get("synth_waves_s")
    need_median = (ls.get("gpu_hold_s") is None or "synth_waves_s" not in ls
                   or "worker_cycle_s" not in ls
                   or (waves is not None and "witness_later_over_first" not in waves))

    def filled(side: dict, figs: dict) -> dict:
        out = {**side, **{k: v for k, v in figs.items() if side.get(k) is None}}
        if side.get("synth_waves_s") and figs.get("synth_waves_s"):  # what the trace adds
            out["synth_waves_s"] = {**figs["synth_waves_s"], **side["synth_waves_s"]}
        return out
    need_paces = len(reps) > 1 and any(rep.get("pool_interval_s") is None for rep in reps)
    if not need_paces:
        return filled(ls, live_diagnostics(row, folder)) if need_median else ls
    figs = pass_figures(row, folder)
    ls = {**ls, "repeats": [{**rep, "pool_interval_s": rep.get("pool_interval_s")
                             or f.get("pool_interval_s")} for rep, f in zip(reps, figs)]}
    pass_no = _median_pass(row)
    if need_median and pass_no:
        ls = filled(ls, figs[pass_no - 1])
    return ls


def live_trace_path(row: dict, folder):
    """Return the saved live trace a stored row's figures are from (its median run's, for a
    repeated row; :func:`merge_passes` names it in ``live_trace``), or None where absent."""
    from pathlib import Path
    if row.get("live_trace"):
        path = Path(row["live_trace"])
        return path if path.exists() else None
    pass_no = _median_pass(row)
    return None if folder is None or pass_no == 0 else _saved_trace(row, folder, pass_no)


def remodel(result: dict, profile, *, live_traces=None, keep_traces: bool = False) -> dict:
    """Return a stored comparison with its model side simulated again on ``profile``.

    The live side of every row (what was measured) is kept as it was; only the
    model's side, the errors, the fitted marks and the verdict are new, and so
    for the contention curve when the comparison has one. This judges a
    re-calibrated profile against measurements already taken. ``live_traces``: the folder
    of the comparison's saved traces (:func:`trace_name`), from which each row's live GPU
    hold and pool pace are read where the stored row lacks them. ``keep_traces``: each
    row keeps the model's new trace and, where it was saved, the live one its figures are
    from (``traces``, as :func:`compare` keeps them for the page).
    """
    from ..model import PipelineConfig
    from ..model.profile import Profile
    from ..sim import simulate
    prof = Profile.load(profile)
    fitted = fitted_configs(prof)
    rows = []
    for r in result["rows"]:
        cfg = PipelineConfig.from_dict(r["config"])
        w = r.get("witness_work", result.get("witness_work", 1.0))
        ls = r["live"]
        if live_traces is not None:
            ls = _with_saved_figures({**r, "witness_work": w}, live_traces)
        sim = simulate(cfg, at_live_start(profile_at_witness_work(prof, w),
                                          ls.get("rss_start_gib")))
        ms = side(sim.summary())
        ms["rss_start_gib"] = _rss_start(sim)
        ms.update(trace_figures(sim))
        err = row_errors(ms, ls)
        if len(ls.get("repeats") or []) > 1:
            err["within_live_range"] = within_runs(ms["seconds_per_proof"], ls["repeats"])
        row = {"config": cfg.to_dict(), "witness_work": w,
               "fitted": is_fitted(cfg, fitted), "model": ms, "live": ls, "error": err}
        if r.get("host_check"):
            pw = profile_at_witness_work(prof, w)
            row.update(tracked_side(cfg, pw, r["host_check"], ls))
            if ls.get("repeats"):
                ls["repeats"] = [_retracked(cfg, pw, e) for e in ls["repeats"]]
        if r.get("live_trace"):
            row["live_trace"] = r["live_trace"]
        if keep_traces:
            path = live_trace_path({**r, "witness_work": w}, live_traces)
            if path is not None:
                from ..trace import load
                row["traces"] = {"model": sim, "live": load(path)}
        rows.append(row)
    out = {k: v for k, v in result.items() if k not in ("rows", "verdict", "contention")}
    out.update({"profile": prof.name, "calibration": prof.data.get("calibration", {}),
                "rows": rows, "verdict": verdict(rows),
                "live_measured_with": {"profile": result.get("profile"),
                                       "calibration_date": (result.get("calibration") or {})
                                       .get("date")}})
    attribute_worst(out, rows, prof)
    if result.get("contention"):
        from .contention import remodel_curve
        out["contention"] = remodel_curve(result["contention"], prof)
    return out


def _retracked(cfg, model_profile, entry: dict) -> dict:
    """Return a repeat (:func:`merge_repeats`) with its tracked model simulated again on
    ``model_profile`` at its own host check (as it is, without one)."""
    if not entry.get("host_check"):
        return entry
    hc, mt = _tracked_model(cfg, model_profile, entry["host_check"], entry.get("rss_start_gib"))
    return {**entry, "host_check": hc, "tracked": _tracked_brief(mt, entry)}


def merge_repeats(runs: list[dict]) -> dict:
    """Return one row from repeated comparisons of one configuration.

    ``runs``: rows of :func:`compare_rows` for the same configuration and
    witness work, each with a live run of its own (the model side is the same
    simulation). The row is the repeat whose live s/proof is the median (the
    lower one of an even count), so its stage means and RSS belong to one run;
    its live side gains ``repeats`` (each run's s/proof, peak RSS and verdict,
    in run order) and ``spread`` ((max - min) / median of s/proof and of peak
    RSS over the repeats), and its errors ``within_live_range``: whether the
    model's s/proof lies between the fastest and the slowest repeat.
    """
    if not runs:
        raise ConfigError("runs", "give at least one run to merge")
    first = runs[0]
    if any(r["config"] != first["config"] or r.get("witness_work") != first.get("witness_work")
           for r in runs):
        raise ConfigError("runs", "every run must be of one configuration and witness work")
    ok = [r for r in runs if not r["live"]["failed"]] or runs
    order = sorted(ok, key=lambda r: r["live"]["seconds_per_proof"])
    row = {k: (dict(v) if isinstance(v, dict) else v) for k, v in order[(len(order) - 1) // 2].items()}
    live = dict(row["live"])
    live["repeats"] = [{"seconds_per_proof": r["live"]["seconds_per_proof"],
                        "peak_rss_gib": r["live"]["peak_rss_gib"],
                        "bottleneck": r["live"]["bottleneck"], "failed": r["live"]["failed"],
                        "pool_interval_s": r["live"].get("pool_interval_s"),
                        **_tracked_entry(r)}
                       for r in runs]

    def spread(metric):
        vals = sorted(r["live"][metric] for r in ok)
        mid = vals[(len(vals) - 1) // 2]
        return (vals[-1] - vals[0]) / mid if mid else None
    live["spread"] = {m: spread(m) for m in ("seconds_per_proof", "peak_rss_gib")}
    row["live"] = live
    row["error"] = dict(row["error"])
    row["error"]["within_live_range"] = within_runs(row["model"]["seconds_per_proof"],
                                                    live["repeats"])
    return row


def merge_passes(results: list[dict], live_traces=None) -> dict:
    """Return one stored comparison from several passes over the same rows.

    ``results``: stored comparisons (:func:`compare`'s JSON) of one job, in the order they
    ran, each one run a row on one profile and size: a table run three times over in
    three steps, say. Each row becomes :func:`merge_repeats` of its runs in those passes,
    as ``compare --repeats N`` would have judged it (a row missing from a pass has fewer
    runs). ``live_traces``: one folder (or None) per result, from which each row's GPU
    hold and b_g2_msm pool pace are read where it lacks them (:func:`remodel`), its saved
    live trace named in the row's ``live_trace`` (the median run's, for the page). The
    contention curve is the first pass's that has one. Pass the result to
    :func:`remodel` to judge a profile against it.
    """
    results = list(results)
    if not results:
        raise ConfigError("results", "give at least one stored comparison")
    folders = [None] * len(results) if live_traces is None else list(live_traces)
    if len(folders) != len(results):
        raise ConfigError("live_traces", f"give one folder (or None) per stored comparison: "
                          f"{len(results)} comparisons, {len(folders)} folders")
    for field in ("profile", "log2_constraints"):
        seen = sorted({str(r.get(field)) for r in results})
        if len(seen) > 1:
            raise ConfigError("results", f"passes of one job share one {field}; these have "
                              + ", ".join(seen))
    runs: dict = {}
    for n, (res, folder) in enumerate(zip(results, folders), 1):
        for r in res.get("rows") or []:
            if len(r["live"].get("repeats") or []) > 1:
                raise ConfigError("results", f"pass {n} ran its rows more than once (--repeats); "
                                  "merge passes of one run a row")
            row = {**r, "witness_work": r.get("witness_work", res.get("witness_work", 1.0))}
            if folder is not None:
                row["live"] = _with_saved_figures(row, folder)
                path = live_trace_path(row, folder)
                if path is not None:
                    row["live_trace"] = str(path)
            key = (repr(sorted(row["config"].items())), row["witness_work"])
            runs.setdefault(key, []).append(row)
    out = {k: v for k, v in results[0].items() if k not in ("rows", "verdict", "contention")}
    out["rows"] = [merge_repeats(r) if len(r) > 1 else r[0] for r in runs.values()]
    out["row_repeats"] = max((len(r) for r in runs.values()), default=0)
    out["passes"] = len(results)
    curve = next((r["contention"] for r in results if r.get("contention")), None)
    if curve:
        out["contention"] = curve
    return out


def _tracked_entry(run: dict) -> dict:
    """Return what a repeat keeps of a run's host check: its checks and ratios, the
    tracked model's s/proof, RSS and verdict and their errors (nothing without a check)."""
    if not run.get("host_check"):
        return {}
    return {"rss_start_gib": run["live"].get("rss_start_gib"), "host_check": run["host_check"],
            "tracked": _tracked_brief(run["model_tracked"], run["live"])}


def within_runs(model_spp: float, repeats: list[dict]) -> bool:
    """Return whether ``model_spp`` lies between the fastest and the slowest completed run."""
    spp = [r["seconds_per_proof"] for r in repeats if not r.get("failed")] or \
        [r["seconds_per_proof"] for r in repeats]
    return min(spp) <= model_spp <= max(spp)


def noise(rows: list[dict]) -> dict | None:
    """Return how far repeated live runs of the judged rows spread (None: no repeats).

    ``rows_with_repeats``, the median and largest s/proof spread of one row's
    repeats, and on how many rows the model lies within the live range: a
    row whose repeats spread by more than the 10 % target cannot show the
    model within it by one run.
    """
    rep = [r for r in rows if len((r["live"].get("repeats") or [])) > 1 and not r["fitted"]]
    if not rep:
        return None
    spreads = sorted(r["live"]["spread"]["seconds_per_proof"] or 0.0 for r in rep)
    return {"rows_with_repeats": len(rep), "repeats": max(len(r["live"]["repeats"]) for r in rep),
            "median_spread": spreads[(len(spreads) - 1) // 2], "max_spread": spreads[-1],
            "model_within_live_range": sum(bool(r["error"].get("within_live_range")) for r in rep),
            "pass_drift": pass_drift(rep), "pace_tracking": pace_tracking(rep)}


def even_repeats_text(nz: dict | None) -> str:
    """Return a warning where rows ran an even number of times ('' otherwise).

    A repeated row is judged on its run of median s/proof, the lower of the middle two of
    an even count, so its stage means and RSS are one run's; with two runs that is the
    faster, which sits on average about half a run's spread below the row's mean (0.56
    standard deviations), so an odd count judges the median (benchmarks/row_noise.py)."""
    if not nz or nz.get("repeats", 1) % 2:
        return ""
    which = "its two runs" if nz["repeats"] == 2 else "its two middle runs"
    return (f"note: {nz['repeats']} runs a row is an even count: each row is judged on the "
            f"faster of {which}, on average below the row's typical run by about half a run's "
            f"spread; an odd --repeats judges the median")


def pass_drift(rows: list[dict]) -> list[float | None]:
    """Return how much slower each pass ran than the first: per pass, the median over the
    rows of its run's s/proof over the first run's, less 1 (None where no row has both runs
    completed).

    The passes run one after another (:func:`compare_rows`), the calibration before the
    first: a host whose speed drifts during a comparison shows here as a trend, which no
    profile fitted before it can follow (the same configuration ran +10 % and +20 % slower
    in the second and third pass than in the first, minutes apart, on an H200 host;
    docs/calibrate.md).
    """
    n = max(len(r["live"].get("repeats") or []) for r in rows)
    out: list[float | None] = []
    for i in range(n):
        ratios = sorted(rep[i]["seconds_per_proof"] / rep[0]["seconds_per_proof"] - 1
                        for rep in (r["live"]["repeats"] for r in rows)
                        if len(rep) > i and not rep[0].get("failed") and not rep[i].get("failed")
                        and rep[0]["seconds_per_proof"] > 0)
        out.append(ratios[(len(ratios) - 1) // 2] if ratios else None)
    return out


def worst_row(rows: list[dict]) -> dict | None:
    """Return the judged row (not fitted, not failed) the model misses most on s/proof."""
    judged = [r for r in rows if not r["fitted"] and not r["live"]["failed"]]
    return max(judged, key=lambda r: abs(r["error"]["seconds_per_proof"] or 0)) if judged else None


def _targets(rows: list[dict], key: str) -> dict:
    """Return each target of :data:`TARGETS` and the same verdict, judged on ``row[key]``
    (the errors of one model side) over ``rows``."""
    out: dict = {}
    for m, tol in TARGETS.items():
        errs = [abs(r[key][m]) for r in rows if r[key][m] is not None]
        out[m] = {"target": tol, "max_abs_error": max(errs) if errs else None,
                  "met": bool(errs) and max(errs) <= tol, "measured_rows": len(errs)}
    out["same_verdict"] = {"rows": sum(r[key]["same_verdict"] for r in rows), "of": len(rows),
                           "met": all(r[key]["same_verdict"] for r in rows)}
    return out


def verdict(rows: list[dict]) -> dict:
    """Return the targets met or not over the rows that were not fitted, and the worst row."""
    judged = [r for r in rows if not r["fitted"] and not r["live"]["failed"]]
    out = {"rows": len(rows), "judged": len(judged), "fitted": sum(r["fitted"] for r in rows)}
    spread = noise(judged)
    if spread is not None:
        out["live_noise"] = spread
    out.update(_targets(judged, "error"))
    tracked = tracked_verdict(judged)
    if tracked is not None:
        out["tracked"] = tracked
    worst = worst_row(rows)
    if worst is not None:
        out["worst"] = {"config": _short(worst["config"]),
                        "seconds_per_proof_error": worst["error"]["seconds_per_proof"],
                        "peak_rss_gib_error": worst["error"]["peak_rss_gib"],
                        "why": worst_reason(worst)}
    return out


def _runs_tracked(row: dict) -> list[dict]:
    """Return every run of a row as its tracked figures (:func:`_tracked_entry`), the
    row's own where it has no repeats; runs without a check are left out."""
    reps = row["live"].get("repeats") or []
    if len(reps) > 1:
        return [r for r in reps if r.get("tracked") and not r.get("failed")]
    return [_tracked_entry(row)] if row.get("host_check") else []


def tracked_verdict(judged: list[dict]) -> dict | None:
    """Return the targets judged on the host-tracked model (None: no row has a host check).

    Each row is judged on its median run's tracked model (``error_tracked``), as the
    plain verdict is on its model; ``runs`` counts every run, each against the model at
    the host's speed of its own checks, within the s/proof target; ``ratios`` is the range
    of the checks' ratios over the runs (how far the host's speed moved from the profile's).
    """
    rows = [r for r in judged if r.get("error_tracked")]
    if not rows:
        return None
    out: dict = {"rows": len(rows), **_targets(rows, "error_tracked")}
    runs = [t for r in rows for t in _runs_tracked(r)]
    tol = TARGETS["seconds_per_proof"]
    errs = [t["tracked"]["error"]["seconds_per_proof"] for t in runs
            if t["tracked"]["error"]["seconds_per_proof"] is not None]
    out["runs"] = {"of": len(errs), "within": sum(abs(e) <= tol for e in errs),
                   "max_abs_error": max((abs(e) for e in errs), default=None)}
    ratios: dict = {}
    unscaled = set()
    for t in runs:
        unscaled |= set(t["host_check"].get("unscaled") or ())
        for stage, f in t["host_check"]["ratios"].items():
            if stage not in (t["host_check"].get("unscaled") or ()):
                ratios.setdefault(stage, []).append(f)
    out["ratios"] = {k: [min(v), max(v)] for k, v in ratios.items()}
    if unscaled:
        out["unscaled"] = sorted(unscaled)
    return out


#: The profile values that set each stage's time in the model (power 1: seconds, scaled
#: with the stage; -1: a rate, scaled inversely).
STAGE_KEYS = {
    "synth": (("synth", "work_core_s", 1),),
    "prep_msm": (("prep_msm", "solo_s", 1),),
    "h2d": (("partition", "abc_upload_gbps", -1),),
    "ntt_h": (("gpu", "ntt_h_s", 1),),
    "batch_add": (("gpu", "batch_add_s", 1),),
    "tail_msm": (("gpu", "tail_msm_s", 1),),
    "b_g2_msm": (("b_g2_msm", "solo_s_at_all_cores", 1), ("b_g2_msm", "solo_s_at_32", 1),
                 ("b_g2_msm", "pool_core_s", 1), ("b_g2_msm", "serial_s", 1)),
    "epilogue": (("epilogue", "solo_s", 1),),
    # not a stage: the whole region's hold of the GPU (waits for prep_msm and the time
    # between its spans included), its kernels scaled alike
    "gpu_hold": (("gpu", "ntt_h_s", 1), ("gpu", "batch_add_s", 1), ("gpu", "tail_msm_s", 1),
                 ("gpu", "overhead_s", 1)),
}


def attribute_gap(row: dict, profile) -> list[dict]:
    """Return which stage's gap the row's s/proof gap comes from, by counterfactual.

    For each stage whose mean differs between the sides, the row's model is simulated
    again with that stage's profile time (``STAGE_KEYS``) scaled by live mean / model
    mean, everything else as it was: ``seconds_per_proof`` is what the model then gives,
    ``closes`` the share of the gap (live - model) that moves (1: all of it; negative:
    the wrong way). Sorted by how much of the gap each closes. A stage can differ a lot in
    its own mean and close little (off the bottleneck), which is what this tells apart.
    """
    from ..model import PipelineConfig
    from ..model.profile import Profile
    from ..sim import simulate
    prof = Profile.load(profile)
    cfg = PipelineConfig.from_dict(row["config"])
    w = row.get("witness_work", 1.0)
    base = at_live_start(profile_at_witness_work(prof, w), row["live"].get("rss_start_gib"))
    m_spp, l_spp = row["model"]["seconds_per_proof"], row["live"]["seconds_per_proof"]
    gap = (l_spp or 0.0) - (m_spp or 0.0)
    out = []
    for stage, keys in STAGE_KEYS.items():
        by = "mean"
        if stage == "gpu_hold":
            ms, ls, by = row["model"].get("gpu_hold_s"), row["live"].get("gpu_hold_s"), "hold"
        elif stage == "b_g2_msm" and row["model"].get("pool_interval_s") \
                and row["live"].get("pool_interval_s"):  # its pace, not its queued mean
            ms, ls, by = row["model"]["pool_interval_s"], row["live"]["pool_interval_s"], "pace"
        else:
            ms, ls = row["model"]["stage_s"].get(stage), row["live"]["stage_s"].get(stage)
        if not ms or not ls or abs(ls / ms - 1.0) < 0.01:
            continue
        f = ls / ms
        tables: dict = {}
        for table, key, power in keys:
            if key in base[table]:
                tables.setdefault(table, {})[key] = base[table][key] * f ** power
        if not tables:
            continue
        entry = {"stage": stage, "by": by, "live_over_model": round(f, 4)}
        try:
            scaled = base.replace(**tables)
        except ProfileError as exc:  # the live time puts a value outside the profile's range
            out.append({**entry, "seconds_per_proof": None, "closes": None,
                        "skipped": str(exc)})
            continue
        spp = simulate(cfg, scaled).summary()["seconds_per_proof"]
        out.append({**entry, "seconds_per_proof": spp,
                    "closes": round((spp - m_spp) / gap, 4) if gap else None})
    for step, scaled, f in _synth_step_profiles(row, base, w):
        spp = simulate(cfg, scaled).summary()["seconds_per_proof"]
        out.append({"stage": f"synth {step}", "by": "mean", "live_over_model": round(f, 4),
                    "seconds_per_proof": spp,
                    "closes": round((spp - m_spp) / gap, 4) if gap else None})
    return sorted(out, key=lambda a: -(a["closes"] or 0.0))


def _synth_step_profiles(row: dict, base, w: float):
    """Yield (step, profile, live over model) for each step of a synthesis whose mean differs
    between the sides (:func:`synth_steps_s`): ``base`` with that step's one-thread work
    scaled by it, the other step's kept (the witness is the serial share)."""
    ms, ls = row["model"].get("synth_steps_s"), row["live"].get("synth_steps_s")
    if not ms or not ls:
        return
    s = base["synth"]
    work, frac = float(s["work_core_s"]), float(s.get("witness_fraction", 0.0))
    parts = {"witness": frac * work, "MatVec": (1.0 - frac) * work}
    for step, key in (("witness", "witness"), ("MatVec", "matvec")):
        if not ms.get(key) or not ls.get(key) or abs(ls[key] / ms[key] - 1.0) < 0.01 \
                or parts[step] <= 0:
            continue
        f = ls[key] / ms[key]
        witness = parts["witness"] * (f if step == "witness" else 1.0)
        new_work = witness + parts["MatVec"] * (f if step == "MatVec" else 1.0)
        try:
            yield step, _at_work(base, w, new_work, witness), f
        except ProfileError:  # the scaled step leaves the profile's ranges: not attributed
            continue


def attribution_text(att: list[dict], n: int = 3, word: str = "live") -> str:
    """Return the first ``n`` stages of :func:`attribute_gap` as one line ('' without any);
    ``word`` names the measured side ("live", or "logged" for a daemon's logs)."""
    parts = [f"{a['stage']} at its {word} {a.get('by', 'mean')} (x{a['live_over_model']:.2f}) closes "
             f"{round(100 * a['closes']):d} %" for a in att[:n] if a["closes"] is not None]
    return "; ".join(parts)


def attribute_worst(out: dict, rows: list[dict], profile) -> None:
    """Add the counterfactual attribution of the worst row's gap to ``out['verdict']``."""
    worst, row = out["verdict"].get("worst"), worst_row(rows)
    if worst and row is not None:
        worst["attribution"] = attribute_gap(row, profile)


def worst_reason(row: dict) -> str:
    """Return the stage whose mean the model misses by the most seconds in ``row``, as a sentence."""
    # a stage whose live mean is 0 (a span too short for the clock at tiny sizes) has no error
    st = {k: v for k, v in row["error"]["stage_s"].items() if v is not None}
    if not st:
        return "no stage to compare"
    m, lv = row["model"]["stage_s"], row["live"]["stage_s"]
    s = max(st, key=lambda k: abs(m[k] - lv[k]))
    word = "the daemon's log" if row.get("logs") else "live"
    return (f"largest stage gap, {s}: model {row['model']['stage_s'][s]:.4g} s against {word} "
            f"{row['live']['stage_s'][s]:.4g} s ({100 * st[s]:+.0f} %)")


def _short(cfg: dict) -> str:
    keys = ("lock", "gpu_workers_per_device", "partition_workers")
    names = {"gpu_workers_per_device": "gw", "partition_workers": "pw"}
    return " ".join(f"{names.get(k, k)}={cfg[k]}" for k in keys if k in cfg)


def _row_label(row: dict, works: set) -> str:
    """Return a row's short name, with its witness work where the rows have more than one
    (``works``: the witness works of a result's rows)."""
    return _short(row["config"]) + (f" W={row['witness_work']:g}" if len(works) > 1 else "")


def compare(configs, *, profile, log2_constraints: int, backend: str = "cpu",
            witness_work=1.0, keep_traces: bool = False, progress=None,
            verify: bool = False, repeats: int = 1, track_host: bool = False) -> dict:
    """Return the comparison: every row, the verdict over the rows not fitted, and the setting.

    ``repeats``: live runs of each row, pass after pass; ``track_host``: a host check
    around every run and the model at its speed beside the plain one (see
    :func:`compare_rows`).
    """
    from ..backend import device_name
    from ..model.profile import Profile
    repeats = check_repeats(repeats)
    prof = Profile.load(profile)
    rows = compare_rows(configs, profile=prof, log2_constraints=log2_constraints,
                        backend=backend, witness_work=witness_work, keep_traces=keep_traces,
                        progress=progress, verify=verify, repeats=repeats,
                        track_host=track_host)
    out = {"benchmark": "compare", "profile": prof.name, "calibration": prof.data.get(
               "calibration", {}), "device": device_name(backend), "backend": backend,
           "log2_constraints": log2_constraints, "witness_work": witness_work,
           "repeats": repeats, "track_host": bool(track_host), "rows": rows,
           "verdict": verdict(rows)}
    attribute_worst(out, rows, prof)
    return out


def format_table(result: dict) -> str:
    """Return the comparison as a text table (one line per row)."""
    from .logcompare import measured_word
    if result.get("against") == "logs":
        head = (f"model ({result['profile']}) against cuzk daemon logs ({len(result['rows'])} "
                f"run{'s' if len(result['rows']) != 1 else ''}); error = model / daemon log - 1")
    else:
        head = (f"model ({result['profile']}) against live ({result['device']}, "
                f"2^{result['log2_constraints']} rows); error = model / live - 1")
    lines = [head,
             f"{'config':<26} {'fit':>3} {'s/proof m|l':>15} {'err':>6} {'RSS GiB m|l':>13} "
             f"{'err':>6} {'GPU% m|l':>9} {'hold ms m|l':>11}  verdict m|l"]
    works = {r.get("witness_work") for r in result["rows"]}
    for r in result["rows"]:
        m, lv, e = r["model"], r["live"], r["error"]

        def n(v, f):
            return "—" if v is None else format(v, f)

        def pct(v):
            return "—" if v is None else f"{100 * v:+.0f}%"

        def hold(s):
            return n(s.get("gpu_hold_s") and 1000 * s["gpu_hold_s"], ".0f")
        label = _row_label(r, works)
        lines.append(
            f"{label:<26} {'yes' if r['fitted'] else '':>3} "
            f"{n(m['seconds_per_proof'], '.3f'):>7}|{n(lv['seconds_per_proof'], '.3f'):<7} "
            f"{pct(e['seconds_per_proof']):>6} {n(m['peak_rss_gib'], '.2f'):>6}|"
            f"{n(lv['peak_rss_gib'], '.2f'):<6} {pct(e['peak_rss_gib']):>6} "
            f"{n(m['gpu_busy_fraction'] and 100 * m['gpu_busy_fraction'], '.0f'):>4}|"
            f"{n(lv['gpu_busy_fraction'] and 100 * lv['gpu_busy_fraction'], '.0f'):<4} "
            f"{hold(m):>5}|{hold(lv):<5}  "
            f"{verdict_label(m)}|{lv['bottleneck']}"
            + ("" if e["same_verdict"] else "  (differ)")
            + (f"  (failed: {lv.get('failure_reason') or 'run failed'}; not judged)"
               if lv.get("failed") else ""))
    lines += logged_notes(result)
    v = result["verdict"]
    for mname, label in (("seconds_per_proof", "s/proof"), ("peak_rss_gib", "peak RSS")):
        t = v[mname]
        if t["max_abs_error"] is None:  # no judged row measured it (a daemon log without RSS)
            lines.append(f"{label}: not measured on the {v['judged']} rows not fitted (target "
                         f"{100 * t['target']:.0f} %): not judged")
            continue
        worst = f"{100 * t['max_abs_error']:.1f} %"
        lines.append(f"{label}: worst {worst} over {v['judged']} rows not fitted (target "
                     f"{100 * t['target']:.0f} %): {'met' if t['met'] else 'NOT met'}")
    sv = v["same_verdict"]
    lines.append(f"bottleneck verdict: same on {sv['rows']} of {sv['of']} rows not fitted")
    if "worst" in v:
        lines.append(f"worst row: {v['worst']['config']} — {v['worst']['why']}")
        logged = measured_word(result, adjective=True)
        att = attribution_text(v["worst"].get("attribution") or [], word=logged)
        if att:
            lines.append(f"  of its s/proof gap, simulated again with one stage at its {logged} "
                         f"time: {att}")
    nz = v.get("live_noise")
    if nz:
        lines.append(f"live noise: {nz['repeats']} runs of each of {nz['rows_with_repeats']} rows "
                     f"spread s/proof by {100 * nz['median_spread']:.1f} % (median row) and "
                     f"{100 * nz['max_spread']:.1f} % (widest) of the median run; the model lies "
                     f"within the live range on {nz['model_within_live_range']} of "
                     f"{nz['rows_with_repeats']}")
        even = even_repeats_text(nz)
        if even:
            lines.append(even)
        drift = drift_text(nz)
        if drift:
            lines.append(f"host drift: {drift}")
        pace = pace_text(nz)
        if pace:
            lines.append(pace)
    tracked = tracked_text(v.get("tracked"))
    if tracked:
        lines.append(tracked)
    moved = host_moved_text(v.get("tracked"))
    if moved:
        lines.append(moved)
    lines += witness_line_text(result)
    lines += synth_steps_text(result)
    lines += synth_waves_text(result)
    lines += worker_cycle_text(result)
    lines += verdicts_text(result)
    return "\n".join(lines)


def synth_steps_text(result: dict, off: float = 0.10) -> list[str]:
    """Return a line per row whose synthesis steps (:func:`synth_steps_s`) differ between
    the sides by more than ``off`` in either step, under one heading ([] where none do)."""
    works = {r.get("witness_work") for r in result["rows"]}
    out = []
    for r in result["rows"]:
        e = (r.get("error") or {}).get("synth_steps_s")
        if not e or all(v is None or abs(v) <= off for v in e.values()):
            continue
        ms, ls = r["model"]["synth_steps_s"], r["live"]["synth_steps_s"]
        label = _row_label(r, works)
        out.append(f"  {label}: " + ", ".join(
            f"{name} {1000 * ms[k]:.0f}|{1000 * ls[k]:.0f}"
            + ("" if e[k] is None else f" ({100 * e[k]:+.0f}%)")
            for name, k in (("witness", "witness"), ("MatVec", "matvec")))
            + (f"; the synthesizing thread's CPU {1000 * ls['thread_cpu']:.0f} ms"
               if ls.get("thread_cpu") is not None else "")
            + (f", {ls['page_faults']:.0f} page faults, switched out {ls['preempted']:.0f} "
               "times" if ls.get("page_faults") is not None and ls.get("preempted") is not None
               else ""))
    if out:
        from .logcompare import measured_word
        word = measured_word(result)
        out.insert(0, f"synthesis steps more than {100 * off:.0f} % apart, mean ms model|{word} "
                      f"(the MatVec from the witness's end, its wait for the pool included):")
    return out


def synth_waves_text(result: dict, off: float = 0.10) -> list[str]:
    """Return a line per row whose later syntheses over its first wave's
    (:func:`synth_waves`) differ between the sides by more than ``off``, under one heading
    ([] where none do)."""
    works = {r.get("witness_work") for r in result["rows"]}
    out = []
    for r in result["rows"]:
        e = ((r.get("error") or {}).get("synth_waves_s") or {}).get("later_over_first")
        if e is None or abs(e) <= off:
            continue
        ms, ls = r["model"]["synth_waves_s"], r["live"]["synth_waves_s"]
        label = _row_label(r, works)
        out.append(f"  {label}: x{ms['later_over_first']:.2f}|x{ls['later_over_first']:.2f} "
                   f"({100 * e:+.0f}%); first wave {1000 * ms['first']:.0f}|"
                   f"{1000 * ls['first']:.0f} ms, later {1000 * ms['later']:.0f}|"
                   f"{1000 * ls['later']:.0f} ms")
    if out:
        from .logcompare import measured_word
        out.insert(0, f"a later synthesis over a first-wave one more than {100 * off:.0f} % apart, "
                      f"model|{measured_word(result)} (the later ones run beside the earlier "
                      "partitions' prep_msm and b_g2_msm calls):")
    return out


def worker_cycle_text(result: dict, off: float = 0.10) -> list[str]:
    """Return a line per row whose GPU worker's cycle (:func:`worker_cycle_s`) differs
    between the sides by more than ``off``, with each side's mean prep_msm, under one
    heading ([] where none do)."""
    works = {r.get("witness_work") for r in result["rows"]}
    out = []
    for r in result["rows"]:
        e = (r.get("error") or {}).get("worker_cycle_s")
        if e is None or abs(e) <= off:
            continue
        m, l = r["model"], r["live"]
        prep = ""
        mp, lp = m["stage_s"].get("prep_msm"), l["stage_s"].get("prep_msm")
        if mp and lp:
            prep = f"; prep_msm {1000 * mp:.0f}|{1000 * lp:.0f} ms"
            ps = l.get("prep_steps_s") or {}
            if ps.get("thread_cpu") is not None:
                prep += (f" (its own {1000 * ps['own']:.0f} ms, its thread's CPU "
                         f"{1000 * ps['thread_cpu']:.0f} ms")
                if ps.get("preempted") is not None and ps.get("waited") is not None:
                    prep += (f", switched out {ps['preempted']:.0f} times, waited "
                             f"{ps['waited']:.0f} times")
                prep += ")"
        out.append(f"  {_row_label(r, works)}: {1000 * m['worker_cycle_s']:.0f}|"
                   f"{1000 * l['worker_cycle_s']:.0f} ms ({100 * e:+.0f}%){prep}")
    if out:
        from .logcompare import measured_word
        out.insert(0, f"the GPU worker's cycle (one prep_msm start to the next on a worker) "
                      f"more than {100 * off:.0f} % apart, median ms model|"
                      f"{measured_word(result)}:")
    return out


def verdicts_text(result: dict) -> list[str]:
    """Return a line per row whose bottleneck verdicts differ, with each side's reason
    (a near tie between the two busiest resources says so), under one heading ([] where
    every row's verdicts agree or no side gave a reason)."""
    from .logcompare import measured_word
    word = measured_word(result)
    works = {r.get("witness_work") for r in result["rows"]}
    out = []
    for r in result["rows"]:
        if r.get("fitted") or (r.get("error") or {}).get("same_verdict", True):
            continue
        m, lv = r["model"], r["live"]
        if not m.get("why") or not lv.get("why"):
            continue
        label = _row_label(r, works)
        out.append(f"  {label}: model {verdict_label(m)}: {m['why']}; {word} "
                   f"{lv['bottleneck']}: {lv['why']}")
    if out:
        out.insert(0, "verdicts that differ, and why each side gave its own:")
    return out


def logged_notes(result: dict) -> list[str]:
    """Return a line per logged run whose SRS load was left out of its figures, and one
    where a model verdict was judged as the logs could show it."""
    from .logcompare import UNSEEN_IN_LOGS
    out = []
    for detail in sorted({r["model"]["bottleneck_detail"] for r in result["rows"]
                          if r["model"].get("bottleneck_detail")}):
        out.append(f"A verdict in brackets is the model's own where the logs cannot show it: "
                   f"{detail} (the syntheses bound the run, slowed on saturated host memory "
                   f"bandwidth, which no daemon log records) is judged as "
                   f"{UNSEEN_IN_LOGS[detail][0]}")
    for r in result["rows"]:
        lv = r["live"]
        if lv.get("startup_s"):
            with_it = lv.get("seconds_per_proof_with_startup")
            who = ", ".join(Path(f).name for f in r.get("logs") or ()) or _short(r["config"])
            out.append(f"{who}: the daemon's first {lv['startup_s']:.1f} s were "
                       f"its SRS load, before any synthesis; left out of the logged figures"
                       + (f" ({with_it:.3f} s/proof with it)" if with_it else "")
                       + ": the model starts with the SRS resident")
    return out


def host_moved_text(tv: dict | None) -> str:
    """Return a warning where every host check put a stage beyond the s/proof target
    from the profile's speed, the same way ('' otherwise).

    Then the plain model's errors are mostly the host's move since the calibration, and
    no change of the model closes them: the tracked figures, or the profile re-paced right
    before the rows (``calibrate --repace``), are the ones to read.
    """
    if not tv or not tv.get("ratios"):
        return ""
    tol = TARGETS["seconds_per_proof"]
    moved = [(k, lo, hi) for k, (lo, hi) in tv["ratios"].items()
             if lo > 1 + tol or hi < 1 / (1 + tol)]
    if not moved:
        return ""
    each = ", ".join(f"{k} x{lo:.2f}-{hi:.2f}" for k, lo, hi in moved)
    way = ("slower than the profile" if all(lo > 1 for _, lo, _ in moved) else
           "faster than the profile" if all(hi < 1 for _, _, hi in moved) else
           "away from the profile's speed")
    return (f"the host moved since the calibration: every check around the rows ran {way} "
            f"by more than {100 * tol:.0f} % ({each}); the plain model's "
            f"s/proof errors are mostly that move: read the host-tracked model, or re-pace "
            f"the profile right before the rows (cuzklab calibrate --repace)")


def witness_line_text(result: dict) -> list[str]:
    """Return a warning per witness work whose one-thread synthesis the profile has off
    by itself: every row there whose host checks put the synthesis beyond the s/proof
    target from the profile's, the same way, once set beside the checks at the profile's
    own witness work (their median), so that the host's pace cancels. The profile reaches
    that work through its witness slope (or the line it records), and that is what is
    off: ``calibrate --repace --other-work W`` times it.
    """
    tol = TARGETS["seconds_per_proof"]
    cal = result.get("calibration") if isinstance(result.get("calibration"), dict) else {}
    ref = float(cal.get("witness_work", 1.0))
    by: dict[float, list[float]] = {}
    for r in result.get("rows") or ():
        ratio = ((r.get("host_check") or {}).get("ratios") or {}).get("synth")
        if ratio:
            by.setdefault(float(r.get("witness_work", result.get("witness_work", 1.0))),
                          []).append(float(ratio))
    if ref not in by:
        return []
    base = statistics.median(by[ref])
    how = ("the line its calibration timed" if cal.get("synth_ratio_at_other") is not None
           else "its witness slope")
    out = []
    for w, xs in sorted(by.items()):
        rel = [x / base for x in xs]
        if w == ref or len(rel) < 2 or not (min(rel) > 1 + tol or max(rel) < 1 / (1 + tol)):
            continue
        out.append(f"the profile's one-thread synthesis at witness work {w:g} is off by itself: "
                   f"the checks there ran x{min(xs):.2f}-{max(xs):.2f} the profile's, those at "
                   f"its own work {ref:g} x{base:.2f} (median), so x{min(rel):.2f}-"
                   f"{max(rel):.2f} beside the host's pace; it reaches {w:g} through {how}: "
                   f"re-pace with the synthesis timed there too (cuzklab calibrate --repace "
                   f"PROFILE --other-work {w:g})")
    return out


def tracked_text(tv: dict | None) -> str:
    """Return :func:`tracked_verdict` as one line ('' without host checks)."""
    if not tv:
        return ""

    def worst(m):
        e = tv[m]["max_abs_error"]
        return "—" if e is None else f"{100 * e:.1f} %"
    ratios = ", ".join([f"{k} x{lo:.2f}-{hi:.2f}" for k, (lo, hi) in tv["ratios"].items()]
                       + [f"{k} not scaled (the profile has no fit of its pool)"
                          for k in tv.get("unscaled", ())])
    runs = tv["runs"]
    return (f"host-tracked model (a one-thread synthesis and b_g2_msm calls on the run's pool "
            f"timed alone before and after each run; the profile's times scaled to them: "
            f"{ratios}): "
            f"s/proof worst {worst('seconds_per_proof')} "
            f"({'met' if tv['seconds_per_proof']['met'] else 'NOT met'}), peak RSS worst "
            f"{worst('peak_rss_gib')}, the verdict {tv['same_verdict']['rows']} of "
            f"{tv['same_verdict']['of']}; every run against its own checks: "
            f"{runs['within']} of {runs['of']} within "
            f"{100 * TARGETS['seconds_per_proof']:.0f} %")


def drift_text(nz: dict) -> str:
    """Return the passes' drift as words ('' with one pass or none measured)."""
    drift = nz.get("pass_drift") or []
    later = [(i + 1, d) for i, d in enumerate(drift) if i > 0 and d is not None]
    if not later:
        return ""
    each = ", ".join(f"pass {i} {100 * d:+.1f} %" for i, d in later)
    return (f"{each} in s/proof against pass 1 (median over the rows); the profile was "
            f"fitted before pass 1")


def pace_text(nz: dict) -> str:
    """Return :func:`pace_tracking`'s figures as a line ('' where there are none)."""
    pt = nz.get("pace_tracking")
    if not pt:
        return ""
    return (f"pass by pass, s/proof follows the b_g2_msm pool's pace (the host's speed of the "
            f"moment): r = {pt['r']:.2f} over {pt['passes']} passes of {pt['rows']} rows, "
            f"x{pt['slope']:.2f} in log terms; the widest row's pace spread "
            f"{100 * pt['pace_spread']:.0f} %")


def jsonable(result: dict) -> dict:
    """Return ``result`` without the traces (for JSON)."""
    out = dict(result)
    out["rows"] = [{k: v for k, v in r.items() if k != "traces"} for r in result["rows"]]
    return out
