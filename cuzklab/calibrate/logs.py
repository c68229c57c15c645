"""``calibrate --logs``: a profile of an operator's own node from its daemon's logs.

The logs are parsed (:func:`cuzklab.cuzk.parse_logs`: TIMELINE and
CUZK_TIMING lines give every partition's synth, prep_msm, ntt_h, batch_add,
tail_msm and b_g2_msm spans). For each stage the calibration reports the
mean over the run (the loaded time), the mean of the spans that ran beside
at most one synthesis (the solo time, when the run had such moments) and
the mean load. A daemon's logs only show its stages under the load they ran
at, so the profile's solo costs are fitted through the model's own contention
mechanism: the base profile's costs are scaled, stage by stage, until the
model of the logged configuration gives the logged mean of each stage
(``fit:`` tags; a few fixed-point steps). cuzk times the a/b/c upload inside
``ntt_msm_h_ms``, so the model's upload and ntt_h together are fitted to the
logged ntt_h. Where the logs time the GPU set-up (cuzk's ``pre_lock_cpu_ms``,
and ``mutex_held_ms`` beside ``gpu_total_ms``: the daemon since the merged
engine), the model's set-up before the mutex (``gpu.pre_lock_s``) and inside it
(``gpu.in_lock_setup_s``) are fitted to them too; without those lines they stay
the base profile's, and the profile says so. What the logs cannot show (memory
sizes, bandwidths, the node) stays the base profile's, through ``extends``.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from ..errors import ConfigError
from .toml import Entry, profile_text

#: stage -> the profile values that scale with that stage's cost
STAGE_KEYS = {
    "synth": [("synth", "work_core_s")],
    "prep_msm": [("prep_msm", "solo_s")],
    "b_g2_msm": [("b_g2_msm", "solo_s_at_all_cores"), ("b_g2_msm", "solo_s_at_32")],
    "ntt_h": [("gpu", "ntt_h_s"), ("gpu", "overhead_s")],
    "batch_add": [("gpu", "batch_add_s")],
    "tail_msm": [("gpu", "tail_msm_s")],
    "epilogue": [("epilogue", "solo_s")],
}
STEPS = 4
#: the GPU set-up the logs can time -> the profile value fitted to it
SETUP_KEYS = {"pre_lock": ("gpu", "pre_lock_s"), "in_lock": ("gpu", "in_lock_setup_s")}


def setup_targets(partitions) -> dict[str, dict]:
    """Return the GPU set-up the logs time, per call: ``pre_lock`` (cuzk's
    ``pre_lock_cpu_ms``, from the start call's entry to the mutex) and ``in_lock``
    (``mutex_held_ms - gpu_total_ms``: the mutex held outside the kernels' timed
    region), each ``{"calls", "mean_s"}``; a key is left out where no line gives it."""
    out: dict[str, dict] = {}
    if partitions is None or not len(partitions):
        return out
    cols = set(partitions.columns)
    if "pre_lock_cpu_ms" in cols:
        v = partitions["pre_lock_cpu_ms"].dropna().astype(float)
        if len(v):
            out["pre_lock"] = {"calls": int(len(v)), "mean_s": float(v.mean()) / 1e3}
    if {"mutex_held_ms", "gpu_total_ms"} <= cols:
        both = partitions[["mutex_held_ms", "gpu_total_ms"]].dropna().astype(float)
        if len(both):
            d = (both["mutex_held_ms"] - both["gpu_total_ms"]).clip(lower=0.0)
            out["in_lock"] = {"calls": int(len(d)), "mean_s": float(d.mean()) / 1e3}
    return out


def model_pre_lock_s(trace) -> float | None:
    """Return the mean wait, per partition, from a GPU worker's pick-up (the end of its
    ``gpu_queue`` span) to its request for the mutex (the start of ``mutex_wait``): the
    set-up before the mutex, in the model as in a parsed log (None without both spans)."""
    sp = trace.spans
    q = sp[sp["stage"] == "gpu_queue"].groupby(["proof", "partition"])["end"].max()
    w = sp[sp["stage"] == "mutex_wait"].groupby(["proof", "partition"])["start"].min()
    gap = (w - q).dropna()
    return float(gap.mean()) if len(gap) else None


def stage_loads(trace) -> dict[str, dict]:
    """Return per stage: spans, mean (loaded) seconds, mean load, and the solo mean if seen.

    The load of a span is the number of other syntheses running at its midpoint.
    """
    sp = trace.spans
    synth = sp[sp["stage"] == "synth"]
    s0, s1 = synth["start"].to_numpy(), synth["end"].to_numpy()
    out = {}
    for stage in STAGE_KEYS:
        df = sp[sp["stage"] == stage]
        if not len(df):
            continue
        mid = ((df["start"] + df["end"]) / 2).to_numpy()
        dur = (df["end"] - df["start"]).to_numpy()
        load = [int(((s0 <= m) & (m < s1)).sum()) - (1 if stage == "synth" else 0) for m in mid]
        solo = [d for d, l in zip(dur, load) if l <= 1]
        out[stage] = {"spans": int(len(df)), "mean_s": float(dur.mean()),
                      "mean_load": round(float(sum(load)) / len(load), 2),
                      "solo_s": float(sum(solo) / len(solo)) if solo else None,
                      "solo_spans": len(solo)}
    return out


def _sim_means(config, profile) -> dict[str, float]:
    """Return the model's stage means with the set-up figures the fit needs: ``ntt_h`` as
    cuzk times it (the upload and its in-lock set-up included), ``pre_lock`` (see
    :func:`model_pre_lock_s`) and ``in_lock_slowdown`` (the in-lock set-up's mean
    slowdown, read from its h2d spans)."""
    from ..sim import simulate
    tr = simulate(config.replace(seed=0), profile)
    means = dict(tr.summary()["stage_s"])
    if means.get("h2d") and means.get("ntt_h"):
        means["ntt_h_own"] = means["ntt_h"]
        means["ntt_h"] = means["ntt_h"] + means["h2d"]
    pre = model_pre_lock_s(tr)
    if pre is not None:
        means["pre_lock"] = pre
    sp = tr.spans
    h2d = sp.loc[sp["stage"] == "h2d", "slowdown"].dropna()
    means["in_lock_slowdown"] = float(h2d.mean()) if len(h2d) else 1.0
    return means


def calibrate_logs(paths, *, name: str, base: str = "porep-32g", config=None,
                   command: str = "") -> dict:
    """Return ``{"text", "measurements", "calibration"}`` of a profile fitted to daemon logs."""
    from ..cuzk import parse_logs
    from ..model.profile import Profile
    from .live import check_name
    check_name(name)
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if not paths:
        raise ConfigError("logs", "give at least one daemon log file")
    for p in paths:
        if not p.is_file():
            raise ConfigError("logs", f"no such file: {p}")
    lp = parse_logs(paths, require_content=True)
    one_run(lp, paths)
    cfg = lp.inferred_config(**(config or {}))
    loads = stage_loads(lp.trace)
    if "synth" not in loads:
        raise ConfigError("logs", f"no synthesis spans in {', '.join(map(str, paths))}: the "
                          "logs need TIMELINE SYNTH_START/SYNTH_END lines")
    setup = setup_targets(lp.partitions)
    if "ntt_h" in loads and "in_lock" in setup:
        # the logged ntt_h is cuzk's ntt_msm_h; the model's counterpart holds the in-lock
        # set-up as well, which these logs time apart
        loads["ntt_h"] = {**loads["ntt_h"], "mean_s": loads["ntt_h"]["mean_s"]
                          + setup["in_lock"]["mean_s"]}
    prof = Profile.load(base)
    data = prof.to_dict()
    scale = {s: 1.0 for s in loads}
    fixed: dict[str, dict] = {}
    for _ in range(STEPS):
        trial = prof.replace(**_merged(_scaled(data, scale), fixed))
        means = _sim_means(cfg, trial)
        for s, st in loads.items():
            m = means.get(s)
            own = means.get(f"{s}_own")
            if own and own > 0:
                # only part of the figure scales (the upload beside it does not): move
                # that part by the whole gap, never below a hundredth of itself
                scale[s] *= max(own + st["mean_s"] - m, 0.01 * own) / own
            elif m and m > 0:
                scale[s] *= st["mean_s"] / m
        fixed = _setup_values(setup, means, trial, fixed)
    fitted = prof.replace(**_merged(_scaled(data, scale), fixed))
    model = _sim_means(cfg, fitted)
    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    files = [p.name for p in paths]
    tables: dict[str, list[Entry]] = {}
    for s, st in loads.items():
        solo = (f"; solo {st['solo_s']:.4g} s over {st['solo_spans']} spans"
                if st["solo_s"] is not None else "; no solo span in the logs")
        what = (f"the model's upload and ntt_h give the logged ntt_h mean {st['mean_s']:.4g} s "
                "(cuzk's ntt_msm_h_ms times the upload inside it"
                + (", with the in-lock set-up below" if "in_lock" in setup else "")
                + (f"; the model's upload and in-lock set-up take {model['h2d']:.3g} s of it "
                   "under this load" if model.get("h2d") else "") + "; "
                if s == "ntt_h" else f"the model gives the logged {s} mean {st['mean_s']:.4g} s (")
        for table, key in STAGE_KEYS[s]:
            tables.setdefault(table, []).append(Entry(
                key, float(fitted[table][key]), "fit",
                f"{what}{st['spans']} spans, mean load {st['mean_load']} syntheses{solo})"))
    for name_, (table, key) in SETUP_KEYS.items():
        line = LOGGED_LINE[name_]
        if name_ in setup:
            st = setup[name_]
            tables.setdefault(table, []).append(Entry(
                key, float(fitted[table][key]), "fit",
                f"the model gives the logged {line} mean {st['mean_s']:.4g} s ({st['calls']} calls)"))
        else:
            tables.setdefault(table, []).append(Entry(
                key, float(prof[table][key]), "assumed",
                f"{prof.name}'s: these logs have no {line} lines to fit it to"))
    calibration = {"method": "logs", "date": date,
                   "command": command or "cuzklab calibrate --logs " + " ".join(files),
                   "logs": files, "base": prof.name, "releases": list(lp.stats.releases or []),
                   "fitted_on": [cfg.to_dict()]}
    header = [f"{name}: calibrated from cuzk daemon logs ({', '.join(files)}).",
              f"Date {date}; command: {calibration['command']}",
              f"Stage costs fitted so that the model of the logged run ({cfg.proofs} proofs, "
              f"pw={cfg.partition_workers}, gw={cfg.gpu_workers_per_device}, {cfg.lock})",
              f"gives the logged per-stage means; everything else is {prof.name}'s (extends).",
              "Tags: fit (a model parameter chosen to reproduce the logged figure beside it)."]
    text = profile_text(name, f"fitted to cuzk daemon logs ({', '.join(files)})", header, [],
                        tables, calibration, extends=base)
    measurements = {"stages": loads, "model_stage_s": {s: model.get(s) for s in loads},
                    "setup": setup, "model_setup_s": {s: (model.get("pre_lock") if s == "pre_lock"
                                                          else fitted["gpu"]["in_lock_setup_s"]
                                                          * model.get("in_lock_slowdown", 1.0))
                                                      for s in setup},
                    "config": cfg.to_dict(), "releases": calibration["releases"]}
    return {"text": text, "measurements": measurements, "calibration": calibration,
            "parse": lp}


def one_run(lp, files) -> None:
    """Raise ConfigError (key ``logs``) where parsed files hold more than one start of
    the daemon: two runs (or a restart) whose timelines overlap on one clock, which no
    configuration or stage mean describes."""
    starts = int(((lp.trace.meta.get("cuzk") or {}).get("engine_starts")) or 0)
    if starts > 1:
        raise ConfigError("logs", f"{', '.join(str(f) for f in files)}: the daemon started "
                          f"{starts} times in these files (more than one run, or a restart), "
                          "and their timelines overlap; give the files of one run (its log, "
                          "cuzk-bench output, /status JSON)")


#: the log line each set-up figure comes from, as the profile's tags name it
LOGGED_LINE = {"pre_lock": "pre_lock_cpu_ms", "in_lock": "mutex_held_ms - gpu_total_ms"}


def _setup_values(setup: dict, means: dict, trial, fixed: dict) -> dict:
    """One fixed-point step for the set-up the logs time: ``pre_lock_s`` scaled by logged /
    model pre-lock wait; ``in_lock_setup_s`` the logged in-lock time over the model's
    slowdown of it (its span is shared with the upload, so it is not read back)."""
    out = {t: dict(v) for t, v in fixed.items()}
    gpu = out.setdefault("gpu", {})
    if "pre_lock" in setup:
        cur = float(trial["gpu"].get("pre_lock_s", 0.0))
        m = means.get("pre_lock")
        target = setup["pre_lock"]["mean_s"]
        gpu["pre_lock_s"] = cur * target / m if cur > 0 and m and m > 0 else target
    if "in_lock" in setup:
        gpu["in_lock_setup_s"] = setup["in_lock"]["mean_s"] / max(means.get("in_lock_slowdown", 1.0), 1.0)
    return out


def _merged(a: dict, b: dict) -> dict:
    out = {t: dict(v) for t, v in a.items()}
    for t, v in b.items():
        out.setdefault(t, {}).update(v)
    return out


def _scaled(data: dict, scale: dict[str, float]) -> dict:
    out: dict[str, dict] = {}
    for s, f in scale.items():
        for table, key in STAGE_KEYS[s]:
            out.setdefault(table, {})[key] = data[table][key] * f
    return out
