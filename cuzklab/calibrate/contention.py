"""The contention curve: prep_msm and b_g2_msm beside 0..N syntheses, model and measurement.

:func:`model_contention` asks the simulator's own machine model
(:class:`cuzklab.sim.machine.Machine`: cores shared by the runnable threads,
pool threads weighted by ``node.cpu_pool_weight``, memory bandwidth shared
max-min fair) how long one prep_msm and one b_g2_msm take while S syntheses
run beside them, exactly the situation :func:`~cuzklab.calibrate.measure.measure_contention`
measures. :func:`fit_contention` picks the ``cpu_pool_weight`` that makes
the two agree best on the calibration's counts (the only number fitted from
the curve). :func:`contention_curve` measures and models side by side.
"""

from __future__ import annotations

import math
import statistics

#: The contention target: the model's slowdown within 15 % of the measured one at every point.
CURVE_TARGET = 0.15
GRID = tuple(round(0.25 * 2 ** (i / 8), 4) for i in range(41))  # 0.25 .. 8, 8 steps an octave


def model_contention(profile, counts, *, pool_threads: int, synth_threads: int = 1,
                     pool_weight: float | None = None, neighbour: float | None = None,
                     over_probe: bool = False) -> list[dict]:
    """Return the model's prep_msm and b_g2_msm seconds beside each count of syntheses.

    Each count also gets the model's host probe (``host_probe_s``): a one-thread job
    with no memory traffic, the chain of Fr products the measurement times beside
    every prep_msm call. ``over_probe``: prep_msm is taken over that probe, as the
    measurement takes it where its probe held steady (``prep_over_probe``), so both
    sides leave out what slows every thread alike (the busy machine's clock) and keep
    what is prep_msm's own; its seconds as run stay under ``prep_msm_raw_s``.
    """
    import simpy

    from ..model.profile import Profile
    from ..sim.machine import Machine, busy_of
    prof = Profile.load(profile)
    node, syn = prof["node"], prof["synth"]
    cores = int(node["cores"])
    weight = node.get("cpu_pool_weight", 1.0) if pool_weight is None else pool_weight
    if neighbour is None:
        neighbour = prof["b_g2_msm"].get("neighbour_slowdown", 0.0)
    rows = []
    for s in counts:
        r = {"syntheses": int(s)}
        for stage in ("prep_msm", "b_g2_msm", "host_probe"):
            env = simpy.Environment()
            m = Machine(env, cores=cores, ddr_gbps=node["ddr_gbps"], synthesis_threads=cores,
                        pool_threads=pool_threads, age_priority=syn.get("age_priority", 1.0),
                        pool_weight=weight, **busy_of(node))
            for _ in range(int(s)):
                m.run("synth", 1e12, cap=min(float(syn["max_threads"]), synth_threads),
                      bw_per_thread=syn["bw_gbps_per_thread"], mem_bound=syn["mem_bound"])
            if stage == "host_probe":  # one thread, no memory traffic
                steps = [("single", PROBE_WORK_S, 1, {})]
            else:
                c = prof[stage]
                kw = dict(bw_per_thread=c["bw_gbps_per_thread"], mem_bound=c["mem_bound"])
                if stage == "prep_msm":
                    steps = [("pool", c["solo_s"] * c["threads"], c["threads"], kw)]
                else:  # as the daemon model runs it: its serial part, then the pool
                    ser, work, wid = prof.b_g2_pool_step(pool_threads)
                    kw["neighbour_slowdown"] = neighbour
                    steps = ([("single", ser, 1, {})] if ser > 0 else []) + \
                        [("pool", work, wid, kw)]

            def call():
                t0 = env.now
                for kind, work, cap, kw in steps:
                    yield m.run(kind, work, cap=cap, **kw)
                return env.now - t0
            proc = env.process(call())
            env.run(until=proc)
            r[f"{stage}_s"] = proc.value
        rows.append(r)
    base = next((r for r in rows if r["syntheses"] == 0), None)
    for r in rows:
        if base:
            for stage in ("prep_msm", "b_g2_msm", "host_probe"):
                r[f"{stage}_slowdown"] = r[f"{stage}_s"] / base[f"{stage}_s"]
            if over_probe:
                r["prep_msm_raw_s"], r["prep_msm_raw_slowdown"] = (r["prep_msm_s"],
                                                                   r["prep_msm_slowdown"])
                r["prep_msm_s"] /= r["host_probe_slowdown"]
                r["prep_msm_slowdown"] /= r["host_probe_slowdown"]
    return rows


#: The model's host probe: one-thread work of this many seconds alone (short beside the
#: syntheses, as the measured chain of a few milliseconds is).
PROBE_WORK_S = 0.002


#: The neighbour slowdowns (``b_g2_msm.neighbour_slowdown``) :func:`fit_contention` tries.
NEIGHBOURS = tuple(round(0.05 * i, 2) for i in range(41))  # 0 .. 2


def fit_contention(profile, measured: dict, *, neighbour: bool = False) -> dict:
    """Return the pool weight and the b_g2_msm neighbour slowdown that best match the
    measured slowdowns of prep_msm and b_g2_msm beside syntheses.

    ``{"pool_weight", "neighbour_slowdown", "rms_log_error", "at_edge"}``: the pair of
    :data:`GRID` x :data:`NEIGHBOURS` whose model slowdowns are nearest the measured ones
    (rms log error over both stages and every count > 0; S = 0 is the solo point each
    slowdown is relative to). The weight sets how the cores are split between the pool
    and the syntheses, which both stages feel; the neighbour slowdown only b_g2_msm's,
    so prep_msm's points pin the first and b_g2_msm's the second. A coarse pass over
    every fourth weight and every fourth neighbour slowdown, then the grid's points
    around the best. ``neighbour=False`` (the default; what a calibration fits): the
    weight alone, every weight tried, the neighbour slowdown 0.
    ``at_edge``: the best pair on the border of the grid (the mechanism does not
    explain the points).
    """
    rows = [r for r in measured["rows"] if r["syntheses"] > 0 and "b_g2_msm_slowdown" in r]
    if not rows:
        return {"pool_weight": 1.0, "neighbour_slowdown": 0.0, "rms_log_error": 0.0,
                "at_edge": False}
    counts = [r["syntheses"] for r in rows]
    seen: dict = {}

    def error(i: int, j: int) -> float:
        if (i, j) not in seen:
            model = model_contention(profile, [0, *counts], pool_threads=measured["pool_threads"],
                                     synth_threads=measured.get("synth_threads", 1),
                                     pool_weight=GRID[i], neighbour=NEIGHBOURS[j],
                                     over_probe=measured.get("prep_over_probe") is True)
            err = 0.0
            for r, m in zip(rows, model[1:]):
                for stage in ("prep_msm", "b_g2_msm"):
                    err += math.log(m[f"{stage}_slowdown"] / r[f"{stage}_slowdown"]) ** 2
            seen[(i, j)] = math.sqrt(err / (2 * len(rows)))
        return seen[(i, j)]

    ks = range(len(NEIGHBOURS)) if neighbour else range(1)
    coarse = [(i, j) for i in range(0, len(GRID), 4 if neighbour else 1) for j in ks[::4]]
    bi, bj = min(coarse, key=lambda ij: (error(*ij), ij))
    fine = [(i, j) for i in range(max(0, bi - 3), min(len(GRID), bi + 4))
            for j in range(max(0, bj - 3), min(len(ks), bj + 4))]
    bi, bj = min(fine, key=lambda ij: (error(*ij), ij))
    edge = bi in (0, len(GRID) - 1) or (neighbour and bj == len(NEIGHBOURS) - 1)
    return {"pool_weight": GRID[bi], "neighbour_slowdown": NEIGHBOURS[bj],
            "rms_log_error": error(bi, bj), "at_edge": bool(edge)}


def _curve(prof, meas_rows: list[dict], *, pool_threads: int, synth_threads: int,
           over_probe: bool = False) -> list[dict]:
    """Return the curve's rows: each measured point with the model's beside it."""
    model = model_contention(prof, [r["syntheses"] for r in meas_rows],
                             pool_threads=pool_threads, synth_threads=synth_threads,
                             over_probe=over_probe)
    fitted = set(prof.get("calibration", "contention_counts", []) or [])
    rows = []
    for r, m in zip(meas_rows, model):
        row = {"syntheses": r["syntheses"], "fitted": r["syntheses"] in fitted}
        for stage in ("prep_msm", "b_g2_msm"):
            row[f"{stage}_live_s"] = round(r[f"{stage}_s"], 5)
            row[f"{stage}_model_s"] = round(m[f"{stage}_s"], 5)
            row[f"{stage}_error"] = round(m[f"{stage}_s"] / r[f"{stage}_s"] - 1, 4)
            if f"{stage}_slowdown" in r:
                row[f"{stage}_live_x"] = round(r[f"{stage}_slowdown"], 4)
                row[f"{stage}_model_x"] = round(m[f"{stage}_slowdown"], 4)
        for key in ("prep_msm_raw", "host_probe"):  # the host's own speed, and the model's
            if f"{key}_s" in r:
                row[f"{key}_live_s"] = round(r[f"{key}_s"], 5)
            if r.get(f"{key}_slowdown") is not None:
                row[f"{key}_live_x"] = round(r[f"{key}_slowdown"], 4)
                if m.get(f"{key}_slowdown") is not None:
                    row[f"{key}_model_x"] = round(m[f"{key}_slowdown"], 4)
        if "gpu_region_s" in r:  # measured only (the model's GPU region does not share the CPU)
            row["gpu_region_live_s"] = round(r["gpu_region_s"], 5)
            if "gpu_region_slowdown" in r:
                row["gpu_region_live_x"] = round(r["gpu_region_slowdown"], 4)
        if r.get("visits"):  # each visit's median (there and back): how far the host drifted
            row["live_visits"] = r["visits"]
        rows.append(row)
    return rows


def fitted_points(calibration: dict | None) -> list[tuple]:
    """Return ``(count, b_g2_msm slowdown)`` for each contention point a calibration fitted
    its pool weight on (its ``[calibration]`` table's ``contention_b_g2_x`` beside its
    ``contention_counts`` but 0); [] where it did not keep them."""
    cal = calibration or {}
    counts = [c for c in cal.get("contention_counts") or () if c > 0]
    xs = cal.get("contention_b_g2_x") or []
    return list(zip(counts, map(float, xs))) if xs and len(xs) == len(counts) else []


def calibration_points(curve: dict, calibration: dict | None) -> list[tuple]:
    """Return ``(count, calibration's x, curve's live x there)`` for each contention point a
    calibration fitted its pool weight on.

    ``calibration``: a profile's ``[calibration]`` table, whose ``contention_b_g2_x`` are
    the b_g2_msm slowdowns beside its ``contention_counts`` but 0. The curve's live
    slowdown at a count it did not visit is interpolated between its two nearest counts; a
    count outside its counts is left out. [] where either side lacks them.
    """
    points = fitted_points(calibration)
    live = sorted((r["syntheses"], r["b_g2_msm_live_x"]) for r in (curve or {}).get("rows") or ()
                  if r.get("b_g2_msm_live_x"))
    if not points or len(live) < 2:
        return []
    out = []
    for c, x in points:
        for (k0, y0), (k1, y1) in zip(live, live[1:]):
            if k0 <= c <= k1:
                out.append((c, x, y0 + (y1 - y0) * (c - k0) / (k1 - k0)))
                break
    return out


def remodel_curve(curve: dict, profile) -> dict:
    """Return a stored contention curve with its model side computed again on ``profile``."""
    from ..model.profile import Profile
    from .measure import add_slowdowns
    prof = Profile.load(profile)
    meas = [{"syntheses": r["syntheses"], "prep_msm_s": r["prep_msm_live_s"],
             "b_g2_msm_s": r["b_g2_msm_live_s"], "prep_msm_slowdown": r.get("prep_msm_live_x"),
             "b_g2_msm_slowdown": r.get("b_g2_msm_live_x"),
             **{f"{k}_{u}": r.get(f"{k}_live_{v}") for k in ("prep_msm_raw", "host_probe",
                                                               "gpu_region")
                for u, v in (("s", "s"), ("slowdown", "x"))},
             "visits": r.get("live_visits")} for r in curve["rows"]]
    meas = [{k: v for k, v in r.items() if v is not None} for r in meas]
    # taken over the probe: said so, or (curves from before the flag) its calls' ratios kept
    over = (curve.get("prep_over_probe") is True or curve.get("prep_over_probe") is None
            and any("prep_msm_ratio" in (r.get("live_visits") or {}) for r in curve["rows"]))
    # the slowdowns again from the stored visits, as the measurement now takes them (a
    # curve without the visits of each pass keeps its stored slowdowns)
    again = [dict(r) for r in meas]
    paired = add_slowdowns(again, over_probe=over)
    if paired:
        meas = again
    out = {k: v for k, v in curve.items() if k not in ("rows", "target", "worst")}
    out.update({"profile": prof.name, "slowdowns": "paired" if paired else "medians",
                "rows": _curve(prof, meas, pool_threads=curve["pool_threads"],
                               synth_threads=curve["synth_threads"], over_probe=over)})
    return judge_curve(out, prof)


def contention_curve(profile, log2_constraints: int, counts, *, pool_threads: int,
                     backend: str = "cpu", repeat: int = 3, witness_work: float = 1.0,
                     rounds: int | None = None) -> dict:
    """Return the measured contention curve with the model's beside it, and the error per point.

    Counts the profile's contention was fitted on are marked ``fitted``.
    ``rounds``: passes over the counts, each there and back (default
    :data:`~cuzklab.calibrate.measure.CONTENTION_ROUNDS`).
    """
    from ..model.profile import Profile
    from .measure import measure_contention
    prof = Profile.load(profile)
    meas = measure_contention(log2_constraints, counts, pool_threads=pool_threads,
                              backend=backend, repeat=repeat, witness_work=witness_work,
                              rounds=rounds)
    rows = _curve(prof, meas["rows"], pool_threads=pool_threads,
                  synth_threads=meas["synth_threads"],
                  over_probe=meas.get("prep_over_probe") is True)
    out = {"profile": prof.name, "log2_constraints": log2_constraints,
           "pool_threads": pool_threads, "synth_threads": meas["synth_threads"],
           "repeat": repeat, "rounds": meas["rounds"], "host_probe_s": meas["host_probe_s"],
           "prep_over_probe": meas.get("prep_over_probe"), "slowdowns": meas.get("slowdowns"),
           "probe_steady": meas.get("probe_steady"),
           "backend": backend, "rows": rows}
    return judge_curve(out, prof)


def has_load(curve: dict | None) -> bool:
    """Return whether ``curve`` has a point beside at least one synthesis (the solo point
    alone is no curve)."""
    return bool(curve) and any(r.get("syntheses", 0) > 0 for r in curve.get("rows") or [])


def raw_prep_reason(curve: dict) -> str:
    """Return why the curve's live prep_msm is its raw seconds, not over the host probe
    ('' where it is over the probe, or no probe was timed)."""
    if curve.get("prep_over_probe") is not False or not has_load(curve):
        return ""
    steady = curve.get("probe_steady")
    if "probe_steady" in curve and steady is None:
        return "too few prep_msm calls beside no synthesis (under 20) to tell the host's own spread"
    return "the host probe itself slowed beside the syntheses"


def judge_curve(curve: dict, profile=None) -> dict:
    """Return ``curve`` with each point's slowdown error and the target met or not.

    The contention is judged on the slowdown (seconds beside S syntheses over
    seconds beside none, on each side): the solo seconds of the two sides come
    from different measurements (the executor's spans against direct calls).
    With ``profile`` (the one the model side ran on), a curve that also visited
    counts the profile's pool weight was fitted on gets ``same_pass``
    (:func:`same_pass_fit`).
    """
    rows = curve["rows"]
    for r in rows:
        for stage in ("prep_msm", "b_g2_msm"):
            if f"{stage}_live_x" in r:
                r[f"{stage}_x_error"] = round(r[f"{stage}_model_x"] / r[f"{stage}_live_x"] - 1, 4)
    judged = [r for r in rows if not r["fitted"] and "b_g2_msm_x_error" in r]
    worst = max(judged or rows, key=lambda x: max(abs(x.get("prep_msm_x_error", 0)),
                                                  abs(x.get("b_g2_msm_x_error", 0))))
    errs = [abs(r[f"{s}_x_error"]) for r in judged for s in ("prep_msm", "b_g2_msm")]
    curve = dict(curve)
    curve.update({
            "target": {"slowdown_error": CURVE_TARGET,
                       "max_abs_error": max(errs) if errs else None,
                       "met": bool(errs) and max(errs) <= CURVE_TARGET},
            "worst": {"syntheses": worst["syntheses"],
                      "slowdown_error": max(worst.get("prep_msm_x_error", 0),
                                            worst.get("b_g2_msm_x_error", 0), key=abs)}})
    if profile is not None:
        same = same_pass_fit(curve, profile)
        if same:
            curve["same_pass"] = same
    return curve


def same_pass_fit(curve: dict, profile) -> dict | None:
    """Return the curve judged on a pool weight fitted on its own visits of the
    calibration's counts, or None where it visited none of them beside a load.

    A calibration fits ``node.cpu_pool_weight`` on the pool's slowdowns beside its
    ``contention_counts`` (3, 6 and 11 syntheses by default); a curve measured minutes
    later on the same host can sit 5-25 % off those points at the same counts (the
    host's pace moves between the two; docs/calibrate.md). A curve asked for those
    counts too (``--contention 0,1,2,3,4,6,8,11,12``) has them timed in the same
    passes as its other points: the weight is fitted again on them alone, as the
    calibration fits it, and every other point is judged on that weight. The points
    judged are never the ones fitted, so each is still a prediction; what the
    judgement leaves out is the host's move between the calibration and the curve,
    as the re-paced rows leave out its move between the calibration and the rows.
    """
    from ..model.profile import Profile
    prof = Profile.load(profile)
    fitted = {int(c) for c in prof.get("calibration", "contention_counts", []) or [] if c}
    fit = refit_curve(curve, prof, fitted)
    if fit is None or fit["held_out"] is None:
        return None
    worst = fit["held_out"]
    return {"counts": fit["counts"], "pool_weight": fit["pool_weight"],
            "profile_pool_weight": float(prof["node"].get("cpu_pool_weight", 1.0)),
            **({"neighbour_slowdown": fit["neighbour_slowdown"],
                "profile_neighbour_slowdown": float(prof["b_g2_msm"]["neighbour_slowdown"])}
               if "neighbour_slowdown" in fit else {}),
            "rms_log_error": fit["rms_log_error"], "rows": fit["rows"],
            "worst": {k: worst[k] for k in ("syntheses", "stage", "error")},
            "max_abs_error": abs(worst["error"]), "met": worst["met"]}


def refit_curve(curve: dict, profile, counts) -> dict | None:
    """Return the pool weight fitted on a curve's own points at ``counts`` and every loaded
    point modelled on it, or None where the curve has none of those points.

    ``curve``: rows with each stage's live slowdown (``b_g2_msm_live_x``,
    ``prep_msm_live_x``), as a measured or stored curve has them. Each loaded point
    gets the model's slowdowns on the weight and their errors (model / live - 1),
    marked ``fitted`` at ``counts``; ``worst`` is the worst error over every loaded
    point (in sample), ``held_out`` over the points not fitted (None where there are
    none), each with its stage, count and whether it is within :data:`CURVE_TARGET`.
    """
    from ..model.profile import Profile
    prof = Profile.load(profile)
    counts = {int(c) for c in counts if c}
    loaded = [r for r in curve.get("rows") or () if r["syntheses"]
              and "b_g2_msm_live_x" in r and "prep_msm_live_x" in r]
    at = [r for r in loaded if r["syntheses"] in counts]
    if not at:
        return None
    each = curve.get("synth_threads") or 1
    meas = {"pool_threads": curve["pool_threads"], "synth_threads": each,
            "prep_over_probe": curve.get("prep_over_probe"),
            "rows": [{"syntheses": r["syntheses"], "prep_msm_slowdown": r["prep_msm_live_x"],
                      "b_g2_msm_slowdown": r["b_g2_msm_live_x"]} for r in at]}
    # as the profile's calibration fitted it: with the neighbour slowdown where it has one
    trial = "neighbour_slowdown" in prof["b_g2_msm"]
    fit = fit_contention(prof, meas, neighbour=trial)
    weight, rms = fit["pool_weight"], fit["rms_log_error"]
    model = model_contention(prof, [0] + [r["syntheses"] for r in loaded],
                             pool_threads=curve["pool_threads"], synth_threads=each,
                             pool_weight=weight, neighbour=fit["neighbour_slowdown"],
                             over_probe=curve.get("prep_over_probe") is True)[1:]
    points, errs = [], []
    for r, m in zip(loaded, model):
        p = {"syntheses": r["syntheses"], "fitted": r["syntheses"] in counts}
        for stage in ("b_g2_msm", "prep_msm"):
            err = m[f"{stage}_slowdown"] / r[f"{stage}_live_x"] - 1.0
            p[f"{stage}_model_x"] = round(m[f"{stage}_slowdown"], 4)
            p[f"{stage}_x_error"] = round(err, 4)
            errs.append((err, stage, r["syntheses"], p["fitted"]))
        points.append(p)

    def worst(of):
        e = max(of, key=lambda w: abs(w[0]), default=None)
        return e and {"error": round(e[0], 4), "stage": e[1], "syntheses": e[2],
                      "met": abs(e[0]) <= CURVE_TARGET}
    return {"counts": sorted(r["syntheses"] for r in at), "pool_weight": weight,
            **({"neighbour_slowdown": fit["neighbour_slowdown"]} if trial else {}),
            "rms_log_error": round(rms, 4), "rows": points, "worst": worst(errs),
            "held_out": worst([e for e in errs if not e[3]])}


def synth_slowdowns(profile, counts, *, cores: int, bw_per_thread: float,
                    mem_bound: float, busy_slowdown: float = 0.0,
                    busy_knee: float = 2.0) -> list[float]:
    """Return the model's slowdown of k one-thread syntheses at once, for each k in ``counts``."""
    import simpy

    from ..model.profile import Profile
    from ..sim.machine import Machine
    prof = Profile.load(profile)
    node = prof["node"]
    out = []
    for k in counts:
        env = simpy.Environment()
        m = Machine(env, cores=cores, ddr_gbps=node["ddr_gbps"], synthesis_threads=cores,
                    pool_threads=cores, age_priority=1.0, pool_weight=1.0,
                    busy_slowdown=busy_slowdown, busy_knee=busy_knee)
        for _ in range(int(k)):
            m.run("synth", 1e12, cap=1.0, bw_per_thread=bw_per_thread, mem_bound=mem_bound)
        rate = min(j.rate for j in m.jobs)
        out.append(1.0 / rate if rate > 0 else math.inf)
    return out


#: The busy-machine slowdowns (at full load) and knees the fit tries.
BUSY_SLOWDOWNS = tuple(round(0.01 * i, 2) for i in range(0, 101))


def fit_synth_sharing(profile, capacity: dict) -> dict:
    """Return the node's sharing parameters that best explain ``capacity``.

    ``capacity`` holds the measured slowdown of k one-thread syntheses at once
    (:func:`~cuzklab.calibrate.measure.measure_cores`). The model explains a
    slowdown three ways: threads slow down as more of them are busy (the
    cores' clock and the shared cache: ``busy_slowdown`` at full load, reached
    at ``busy_knee`` threads), they share the cores (fewer than the logical ones
    with SMT siblings), and bandwidth-bound jobs share the memory bandwidth.
    The fit first picks the busy curve on every logical core with no bandwidth
    demand, then, with that curve, the cores, a synthesis thread's bandwidth
    demand and how memory-bound it is: the smallest rms log error over the
    counts above one (one synthesis alone is the solo time by definition; its
    own measurement only shows this host's spread).
    """
    from ..model.profile import Profile
    prof = Profile.load(profile)
    ddr = prof["node"]["ddr_gbps"]
    logical = int(capacity["logical_cores"])
    rows = [r for r in capacity["rows"] if r["syntheses"] >= 2] or \
        [r for r in capacity["rows"] if r["syntheses"] >= 1]
    counts = [r["syntheses"] for r in rows]

    def rms(model):
        return math.sqrt(sum(math.log(x / r["slowdown"]) ** 2
                             for x, r in zip(model, rows)) / len(rows))

    busy = {"busy_slowdown": 0.0, "busy_knee": 2.0}
    best_busy = None
    knees = sorted({2, *(k for k in counts if k >= 2), logical})
    for sd in BUSY_SLOWDOWNS:
        for knee in knees:
            model = synth_slowdowns(prof, counts, cores=logical, bw_per_thread=0.0,
                                    mem_bound=0.0, busy_slowdown=sd, busy_knee=knee)
            err = rms(model)
            if best_busy is None or err < best_busy[0] - 1e-9:
                best_busy = (err, sd, knee)
            if sd == 0:
                break  # the knee does not matter without a slowdown
    busy = {"busy_slowdown": best_busy[1], "busy_knee": float(best_busy[2])}
    best = None
    demands = [ddr * 2 ** (i / 4) / 64 for i in range(0, 37)]  # ddr/64 .. ddr*8
    for cores in range(max(1, logical // 2), logical + 1):
        for d in [0.0, *demands]:
            for m in (0.0, 0.25, 0.5, 0.75, 1.0):
                model = synth_slowdowns(prof, counts, cores=cores, bw_per_thread=d,
                                        mem_bound=m, **busy)
                err = rms(model)
                if best is None or err < best["rms_log_error"] - 1e-9:
                    best = {"cores": cores, "bw_gbps_per_thread": d, "mem_bound": m, **busy,
                            "rms_log_error": err, "model_slowdowns": model, "counts": counts}
                if d == 0:
                    break  # how memory-bound does not matter without a demand
    return best


def matvec_times(*, cores: int, threads, counts, pool_threads: int, serial: float,
                 ws_gib: float = 0.0, llc_gib: float = 0.0, miss_penalty: float = 0.0,
                 busy_slowdown: float = 0.0, busy_knee: float = 2.0,
                 fifo: bool = False) -> dict:
    """Return the model's MatVec seconds (one-thread work 1) for the two MatVec curves.

    ``scaling``: one MatVec alone on a pool of t threads, for each t of ``threads``;
    ``at_once``: the mean seconds of k MatVecs started together on one pool of
    ``pool_threads``, for each k of ``counts``, and ``at_once_span`` how far apart
    their ends are (the last's end less the first's). A MatVec is the daemon model's
    two steps: its serial share on one thread, then the rest on the pool with its
    working set in the shared cache; ``fifo``: the MatVecs take the pool one after
    another (``synth.matvec_queue = "fifo"``), else all at once.
    """
    import simpy

    from ..sim.machine import Machine

    def run(k: int, t: int) -> tuple[float, float]:  # the mean seconds, the ends' span
        env = simpy.Environment()
        m = Machine(env, cores=cores, ddr_gbps=1e9, synthesis_threads=cores, pool_threads=cores,
                    age_priority=1.0, group_threads={"matvec": float(t)},
                    busy_slowdown=busy_slowdown, busy_knee=busy_knee, llc_gib=llc_gib)
        durs = []
        queue = simpy.Resource(env, capacity=1) if fifo else None

        def one():
            t0 = env.now
            if serial > 0:
                yield m.run("synth", serial, cap=1.0)
            turn = queue.request() if queue is not None else None
            if turn is not None:
                yield turn
            yield m.run("synth", 1.0 - serial, cap=float(t), group="matvec", ws_gib=ws_gib,
                        miss_penalty=miss_penalty)
            if turn is not None:
                queue.release(turn)
            durs.append(env.now - t0)

        for _ in range(k):
            env.process(one())
        env.run()
        return sum(durs) / len(durs), max(durs) - min(durs)  # started together

    at = [run(k, pool_threads) for k in counts]
    return {"scaling": [run(1, t)[0] for t in threads], "at_once": [m for m, _ in at],
            "at_once_span": [x for _, x in at]}


#: The serial shares and cache-miss penalties :func:`fit_matvec` tries.
MATVEC_SERIALS = tuple(round(0.005 * i, 3) for i in range(0, 101))
MISS_PENALTIES = tuple(round(0.05 * i, 2) for i in range(0, 121))


def fit_matvec(matvecs: dict, *, cores: int, ws_gib: float, llc_gib: float,
               busy_slowdown: float = 0.0, busy_knee: float = 2.0, fifo: bool = False) -> dict:
    """Return the MatVec's serial share and cache-miss penalty that best explain ``matvecs``.

    ``matvecs`` is :func:`~cuzklab.calibrate.measure.measure_matvecs`'s result.
    The serial share is fitted first, on the scaling curve alone (one MatVec on
    1..N threads: with nothing beside it, its working set is its own); then, with
    it, the miss penalty on the at-once curve (k MatVecs on one shared pool),
    where the working sets of the k add up in the cache. Each by the smallest rms
    log error of the times relative to the curve's first point. ``fifo``: the
    MatVecs of the at-once curve take the pool one after another (then only one
    working set is in the cache at a time, and no penalty can show).
    """
    scaling = matvecs["scaling"]
    at_once = matvecs["at_once"]
    threads = [r["threads"] for r in scaling]
    counts = [r["matvecs"] for r in at_once]
    pool = int(matvecs["pool_threads"])
    meas_s = [r["matvec_s"] / scaling[0]["matvec_s"] for r in scaling]
    alone = matvecs["alone_on_pool_s"]
    meas_k = [r["mean_s"] / alone for r in at_once]
    busy = {"busy_slowdown": busy_slowdown, "busy_knee": busy_knee, "fifo": fifo}

    def rms(model, meas, skip):
        pairs = list(zip(model, meas))[skip:]
        return math.sqrt(sum(math.log(m / x) ** 2 for m, x in pairs) / max(1, len(pairs)))

    best_s = None
    for ser in MATVEC_SERIALS:
        mod = matvec_times(cores=cores, threads=threads, counts=[], pool_threads=pool,
                           serial=ser, **busy)["scaling"]
        err = rms([x / mod[0] for x in mod], meas_s, 1)
        if best_s is None or err < best_s[0] - 1e-12:
            best_s = (err, ser)
    ser = best_s[1]
    alone_model = matvec_times(cores=cores, threads=[pool], counts=[], pool_threads=pool,
                               serial=ser, ws_gib=ws_gib, llc_gib=llc_gib, **busy)["scaling"][0]
    best_p = None
    for pen in (MISS_PENALTIES if llc_gib > 0 and ws_gib > 0 and not fifo else (0.0,)):
        mod = matvec_times(cores=cores, threads=[], counts=counts, pool_threads=pool,
                           serial=ser, ws_gib=ws_gib, llc_gib=llc_gib, miss_penalty=pen,
                           **busy)["at_once"]
        err = rms([x / alone_model for x in mod], meas_k, 1)
        if best_p is None or err < best_p[0] - 1e-12:
            best_p = (err, pen, mod)
    model_k = [x / alone_model for x in best_p[2]]
    return {"matvec_serial": ser, "scaling_rms_log_error": best_s[0],
            "matvec_miss_penalty": best_p[1], "at_once_rms_log_error": best_p[0],
            "ws_gib": ws_gib, "llc_gib": llc_gib,
            "at_once": [{"matvecs": k, "measured_x": round(x, 4), "model_x": round(m, 4)}
                        for k, x, m in zip(counts, meas_k, model_k)]}


def wave_spans(matvecs: dict) -> list[tuple[int, float]]:
    """Return (k, span) for each count of the at-once curve whose waves kept their times:
    how far apart the k MatVecs of a wave ended, less how far apart they started (each
    when its synthesis's witness step ended), over one MatVec alone on the pool; the
    median over the count's waves, at least 0. Empty for a measurement without them."""
    alone = float(matvecs.get("alone_on_pool_s") or 0.0)
    out = []
    for r in matvecs.get("at_once") or ():
        k = int(r.get("matvecs", 0))
        spans = [(max(w["ends_s"]) - min(w["ends_s"]) - max(w["witness_s"]) + min(w["witness_s"]))
                 / alone for w in r.get("waves") or ()
                 if len(w.get("ends_s") or ()) == k and len(w.get("witness_s") or ()) == k]
        if k >= 2 and spans and alone > 0:
            out.append((k, max(0.0, float(statistics.median(spans)))))
    return out


def fit_matvec_queue(matvecs: dict, **kw) -> tuple[str, dict]:
    """Return (queue, fits): how the pool serves MatVecs that arrive together, and both fits.

    :func:`fit_matvec` all at once (``"shared"``) and one after another (``"fifo"``,
    the native pool's first-in, first-out queue). Where the at-once curve kept its
    waves' times (:func:`wave_spans`), ``queue`` is the one whose MatVecs, started
    together, end as far apart as the measured ones did (the root mean square of the
    spans' difference, in MatVecs alone: ``span_error``): all at once they end together,
    one after another a MatVec's pool share apart. Else the one whose mean seconds are
    nearer (``shared`` on a tie). ``kw``: :func:`fit_matvec`'s.
    """
    fits = {q: fit_matvec(matvecs, fifo=q == "fifo", **kw) for q in ("shared", "fifo")}
    measured = wave_spans(matvecs)
    if measured:
        cores = kw["cores"]
        pool = int(matvecs["pool_threads"])
        busy = {k: kw[k] for k in ("busy_slowdown", "busy_knee") if k in kw}
        for q, fit in fits.items():
            t = matvec_times(cores=cores, threads=[pool], counts=[k for k, _ in measured],
                             pool_threads=pool, serial=fit["matvec_serial"],
                             ws_gib=kw.get("ws_gib", 0.0), llc_gib=kw.get("llc_gib", 0.0),
                             miss_penalty=fit["matvec_miss_penalty"], fifo=q == "fifo",
                             **busy)
            model = [x / t["scaling"][0] for x in t["at_once_span"]]
            fit["span_error"] = math.sqrt(sum((m - x) ** 2 for m, (_, x) in
                                              zip(model, measured)) / len(measured))
            fit["spans"] = [{"matvecs": k, "measured": round(x, 3), "model": round(m, 3)}
                            for m, (k, x) in zip(model, measured)]
        queue = min(fits, key=lambda q: (fits[q]["span_error"], q != "shared"))
    else:
        queue = min(fits, key=lambda q: (fits[q]["at_once_rms_log_error"], q != "shared"))
    return queue, fits


def model_matvec_pool(profile, *, matvec_threads: int, pool_threads: int, matvecs: int,
                      calls: int, matvec_core_s: float, weight: float | None = None) -> dict:
    """Return the model's side of :func:`~cuzklab.calibrate.measure.measure_matvec_pool`.

    On the simulator's machine model with ``profile``'s cores, busy-machine
    slowdown and pool weight: ``matvecs`` MatVecs (``matvec_core_s`` one-thread
    seconds each, their serial share first, then the rest on the shared MatVec
    pool of ``matvec_threads``) started together, their mean seconds; and
    ``calls`` b_g2_msm calls (as the daemon model runs one) started together,
    the seconds until the last ends. Each alone and beside a steady load of the
    other (``calls`` threads of b_g2_msm calls back to back, or ``matvecs``
    threads of MatVecs). ``weight``: the MatVec pool's threads' weight
    (``synth.matvec_weight``; None: the profile's, absent 1).
    """
    prof, side = _matvec_pool_model(profile, matvec_threads=matvec_threads,
                                    pool_threads=pool_threads, matvecs=matvecs, calls=calls,
                                    matvec_core_s=matvec_core_s)
    w = prof["synth"].get("matvec_weight", 1.0) if weight is None else float(weight)
    out = {}
    for which in ("matvec", "b_g2"):
        alone, beside = side(which, w, False), side(which, w, True)
        out[which] = {"alone_s": alone, "beside_s": beside, "slowdown": beside / alone}
    return out


def _matvec_pool_model(profile, *, matvec_threads: int, pool_threads: int, matvecs: int,
                       calls: int, matvec_core_s: float):
    """Return (the profile, ``side(which, weight, beside)``): one timing of
    :func:`model_matvec_pool` (``which``: ``"matvec"`` or ``"b_g2"``) at a MatVec pool
    thread weight, alone or beside the other pool's load. Alone, nothing shares the
    cores with the MatVec pool, so the weight does not change it."""
    import simpy

    from ..model.profile import Profile
    from ..sim.machine import Machine, busy_of
    prof = Profile.load(profile)
    node, syn, g2 = prof["node"], prof["synth"], prof["b_g2_msm"]
    cores = int(node["cores"])
    ser = syn.get("matvec_serial", 0.0)
    mv_kw = dict(bw_per_thread=syn.get("matvec_bw_gbps_per_thread", syn["bw_gbps_per_thread"]),
                 mem_bound=syn.get("matvec_mem_bound", syn["mem_bound"]))
    g2_ser, g2_work, g2_width = prof.b_g2_pool_step(pool_threads)
    g2_kw = dict(bw_per_thread=g2["bw_gbps_per_thread"], mem_bound=g2["mem_bound"],
                 neighbour_slowdown=g2.get("neighbour_slowdown", 0.0))
    reach = min(float(matvec_threads), syn.get("matvec_max_threads", math.inf))

    def one_matvec(m):
        if ser > 0:
            yield m.run("synth", ser * matvec_core_s, cap=1.0)
        yield m.run("synth", (1 - ser) * matvec_core_s, cap=reach, group="matvec", **mv_kw)

    def one_call(m):
        if g2_ser > 0:
            yield m.run("single", g2_ser, cap=1.0)
        yield m.run("pool", g2_work, cap=g2_width, **g2_kw)

    # which: (its unit, how many start together, mean (MatVecs) or last (calls), the load's
    # unit, how many threads of it)
    cases = {"matvec": (one_matvec, matvecs, True, one_call, calls),
             "b_g2": (one_call, calls, False, one_matvec, matvecs)}

    def side(which: str, weight: float, beside: bool) -> float:
        timed, n_timed, mean, load, n_load = cases[which]
        n_load = n_load if beside else 0
        env = simpy.Environment()
        m = Machine(env, cores=cores, ddr_gbps=node["ddr_gbps"], synthesis_threads=cores,
                    pool_threads=pool_threads, age_priority=syn.get("age_priority", 1.0),
                    pool_weight=node.get("cpu_pool_weight", 1.0),
                    group_threads={"matvec": float(matvec_threads)},
                    group_weights={"matvec": weight}, **busy_of(node))

        def looping():
            while True:
                yield from load(m)

        for _ in range(n_load):
            env.process(looping())
        durs = []

        def timed_one():
            # after the load has run a while, off the start of its units
            yield env.timeout(1.5 * (matvec_core_s + g2_ser + g2_work) if n_load else 0.0)
            t0 = env.now
            yield from timed(m)
            durs.append(env.now - t0)

        procs = [env.process(timed_one()) for _ in range(n_timed)]
        env.run(until=simpy.AllOf(env, procs))
        return sum(durs) / len(durs) if mean else max(durs)

    return prof, side


#: The MatVec pool's thread weights :func:`fit_matvec_weight` tries: 1/16 .. 8, 8 steps an octave.
MATVEC_WEIGHTS = tuple(round(2 ** (i / 8 - 4), 4) for i in range(57))


def fit_matvec_weight(profile, measured: dict, *, matvec_core_s: float) -> dict:
    """Return the ``synth.matvec_weight`` that best explains ``measured``, with both sides.

    ``measured``: :func:`~cuzklab.calibrate.measure.measure_matvec_pool`'s result;
    ``profile``: the calibrated profile with its pool weight already fitted (the
    two pools split the cores by the ratio of the two weights). The weight of
    :data:`MATVEC_WEIGHTS` whose slowdowns of the MatVecs beside the b_g2_msm
    load and of the b_g2_msm calls beside the MatVec load are nearest the
    measured ones (rms log error over the two).
    """
    meas = [measured[k]["slowdown"] for k in ("matvec", "b_g2")]
    if min(meas) <= 0:
        raise ValueError(f"measured slowdowns must be > 0, got {meas}")
    kw = dict(matvec_threads=int(measured["matvec_threads"]),
              pool_threads=int(measured["pool_threads"]), matvecs=int(measured["matvecs"]),
              calls=int(measured["calls"]), matvec_core_s=float(matvec_core_s))
    _, side = _matvec_pool_model(profile, **kw)
    sides = ("matvec", "b_g2")
    alone = {k: side(k, 1.0, False) for k in sides}   # alone the weight changes nothing
    best = None
    for w in MATVEC_WEIGHTS:
        mod = [side(k, w, True) / alone[k] for k in sides]
        err = math.sqrt(sum(math.log(x / y) ** 2 for x, y in zip(mod, meas)) / 2)
        if best is None or err < best[1] - 1e-12:
            best = (w, err, mod)
    w, err, mod = best
    return {"matvec_weight": w, "rms_log_error": err,
            "at_edge": w in (MATVEC_WEIGHTS[0], MATVEC_WEIGHTS[-1]),
            "matvec_live_x": meas[0], "matvec_model_x": mod[0],
            "b_g2_live_x": meas[1], "b_g2_model_x": mod[1]}


def gpu_region_slowdown(host_share: float, *, cores: int, load_threads: int,
                        pool_weight: float = 1.0) -> float:
    """Return the model's GPU region slowdown beside ``load_threads`` one-thread CPU jobs.

    The region is ``1 - host_share`` of device time, which nothing on the host
    slows, and ``host_share`` of work on its host thread (a one-thread job that
    gets its share of the cores, as the daemon model runs it).
    """
    import simpy

    from ..sim.machine import Machine
    if host_share <= 0:
        return 1.0
    env = simpy.Environment()
    # the load's threads are all runnable at once (more of them than cores): the OS
    # shares the cores among all of them and the region's thread
    m = Machine(env, cores=cores, ddr_gbps=1e9, synthesis_threads=max(cores, int(load_threads)),
                pool_threads=cores, age_priority=1.0, pool_weight=pool_weight)
    for _ in range(int(load_threads)):
        m.run("synth", 1e12, cap=1.0)
    ev = m.run("single", host_share, cap=1)
    env.run(until=ev)
    start, end, _ = ev.value
    return (1.0 - host_share) + (end - start)


def fit_gpu_host_share(measured: dict, *, cores: int, pool_weight: float = 1.0) -> dict:
    """Return the host share of the GPU region that best explains ``measured``.

    ``measured`` is :func:`~cuzklab.calibrate.measure.measure_gpu_host`'s result:
    the region alone and beside a load of one-thread CPU jobs. Bisection on the
    share (the model's slowdown rises with it).
    """
    target = float(measured["slowdown"])
    lo, hi = 0.0, 1.0
    kw = dict(cores=cores, load_threads=measured["load_threads"], pool_weight=pool_weight)
    if target <= 1.0:
        return {"host_share": 0.0, "model_slowdown": 1.0, "measured_slowdown": target}
    most = gpu_region_slowdown(hi, **kw)
    if most <= target:
        return {"host_share": 1.0, "model_slowdown": most, "measured_slowdown": target}
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if gpu_region_slowdown(mid, **kw) < target:
            lo = mid
        else:
            hi = mid
    share = round(0.5 * (lo + hi), 4)
    return {"host_share": share, "model_slowdown": round(gpu_region_slowdown(share, **kw), 4),
            "measured_slowdown": round(target, 4)}
