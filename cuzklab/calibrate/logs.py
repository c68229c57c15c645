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
(``fit:`` tags; a few fixed-point steps). What the logs cannot show (memory
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
    from ..sim import simulate
    tr = simulate(config.replace(seed=0), profile)
    return tr.summary()["stage_s"]


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
    prof = Profile.load(base)
    data = prof.to_dict()
    scale = {s: 1.0 for s in loads}
    for _ in range(STEPS):
        trial = prof.replace(**_scaled(data, scale))
        means = _sim_means(cfg, trial)
        for s, st in loads.items():
            m = means.get(s)
            if m and m > 0:
                scale[s] *= st["mean_s"] / m
    fitted = prof.replace(**_scaled(data, scale))
    model = _sim_means(cfg, fitted)
    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    files = [p.name for p in paths]
    tables: dict[str, list[Entry]] = {}
    for s, st in loads.items():
        solo = (f"; solo {st['solo_s']:.4g} s over {st['solo_spans']} spans"
                if st["solo_s"] is not None else "; no solo span in the logs")
        for table, key in STAGE_KEYS[s]:
            tables.setdefault(table, []).append(Entry(
                key, float(fitted[table][key]), "fit",
                f"the model gives the logged {s} mean {st['mean_s']:.4g} s ({st['spans']} spans, "
                f"mean load {st['mean_load']} syntheses{solo})"))
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


def _scaled(data: dict, scale: dict[str, float]) -> dict:
    out: dict[str, dict] = {}
    for s, f in scale.items():
        for table, key in STAGE_KEYS[s]:
            out.setdefault(table, {})[key] = data[table][key] * f
    return out
