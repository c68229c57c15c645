"""``compare --logs``: the model beside a real cuzk daemon's own runs.

An operator's daemon is the measurement that matters most, and it needs no
live executor: each run's logs (the daemon's log, with its cuzk-bench report
and ``/status`` JSON where there are any) are parsed into a trace
(:func:`cuzklab.cuzk.parse_logs`, source ``cuzk-log``), the configuration the
run had is read from them (:meth:`~cuzklab.cuzk.logs.LogParse.inferred_config`,
with ``overrides`` for what the logs do not show), and the model of that
configuration is set beside it, row by row, in the same schema as
:func:`~cuzklab.calibrate.compare.compare`'s live rows (the measured side keeps
the key ``live``; ``against`` says what it is). A run whose configuration the
profile was fitted on (``calibrate --logs`` records it) is marked fitted, so a
profile fitted on one run and judged on the others says how well the model
predicts that node. A run that began by loading its SRS (a daemon's first proof)
is judged from the end of that load (:func:`startup_s`): the model starts with the
SRS resident, and the load's length is the disk's, not the pipeline's.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError

#: What a comparison's measured side is called, by ``against``: as a noun, and as the
#: adjective of its times ("at its logged mean").
MEASURED_WORD = {"live": ("live", "live"), "logs": ("daemon log", "logged")}


#: A model verdict that needs a figure no daemon log records, and the verdict it is as far
#: as the logs can tell: ``memory_bandwidth`` is synthesis-bound with the host's memory
#: bandwidth saturated (the model's ``ddr_gbps`` counter), which a log cannot show.
UNSEEN_IN_LOGS = {"memory_bandwidth": ("synthesis", "ddr_gbps")}


def as_logged(model: dict, logged_trace) -> None:
    """Judge the model's verdict as the logs could show it: where it needs a counter the
    logged trace lacks (:data:`UNSEEN_IN_LOGS`), ``bottleneck`` becomes the coarser verdict
    and ``bottleneck_detail`` keeps the model's own."""
    coarse = UNSEEN_IN_LOGS.get(model.get("bottleneck"))
    if coarse and not len(logged_trace.counter(coarse[1])):
        model["bottleneck_detail"] = model["bottleneck"]
        model["bottleneck"] = coarse[0]


def measured_word(result: dict, adjective: bool = False) -> str:
    """Return how a comparison names its measured side ("live" or "daemon log"), or
    with ``adjective`` its times ("live" or "logged")."""
    return MEASURED_WORD.get(result.get("against", "live"), MEASURED_WORD["live"])[adjective]


def _runs(runs) -> list[list[Path]]:
    """Return the runs as lists of paths (a run: one path, or the paths of its files)."""
    if isinstance(runs, (str, Path)):
        runs = [runs]
    out = []
    for run in runs or ():
        files = [run] if isinstance(run, (str, Path)) else list(run)
        if not files:
            raise ConfigError("logs", "a run needs at least one file")
        paths = [Path(f) for f in files]
        for p in paths:
            if not p.is_file():
                raise ConfigError("logs", f"no such file: {p}")
        out.append(paths)
    if not out:
        raise ConfigError("logs", "give at least one daemon run (its log files)")
    return out


def startup_s(trace) -> float | None:
    """Return the seconds a logged run spent loading its SRS before its first synthesis
    (None where the logs show no such load).

    The first proof of a daemon pays the SRS load (cold 30-90 s, warm 2-10 s in cuzk's
    notes), and nothing synthesizes until it ends; the model starts with the SRS
    resident, as a daemon that has served a proof runs. The start-up is the time from
    the first submit to the first synthesis, where the logs hold an ``SRS loaded``
    line whose elapsed time covers at least nine tenths of it.
    """
    loads = [ms / 1000.0 for ms in ((trace.meta.get("cuzk") or {}).get("srs_load_ms") or ())]
    synth = trace.spans[trace.spans["stage"] == "synth"]
    proofs = trace.proofs()
    if not loads or not len(synth) or not len(proofs) or proofs["submitted"].isna().all():
        return None
    t0 = float(proofs["submitted"].min())
    first = float(synth["start"].min()) - t0
    if first <= 0 or loads[0] < 0.9 * first:
        return None
    return round(first, 6)


def after_startup(trace, seconds: float):
    """Return ``trace`` with its first ``seconds`` cut off: every time moved back by them,
    proofs submitted during the start-up counted from its end."""
    from ..trace import Trace
    sp = trace.spans.copy()
    sp["start"] = (sp["start"] - seconds).clip(lower=0.0)
    sp["end"] = (sp["end"] - seconds).clip(lower=0.0)
    co = trace.counters.copy()
    co["t"] = (co["t"] - seconds).clip(lower=0.0)
    meta = dict(trace.meta)
    proofs = []
    for rec in meta.get("proofs") or ():
        rec = dict(rec)
        for k in ("submitted", "started", "completed"):
            v = rec.get(k)
            if v is not None and v == v:
                rec[k] = max(0.0, float(v) - seconds)
        proofs.append(rec)
    meta["proofs"] = proofs
    meta["startup_s_left_out"] = seconds
    return Trace(spans=sp, counters=co, meta=meta)


def compare_logs(runs, *, profile, overrides: dict | None = None,
                 keep_traces: bool = False) -> dict:
    """Return the model beside each daemon run: rows, the verdict over the rows not fitted.

    ``runs``: a log file, or a list of runs, each a file or a list of the files of
    one run (its daemon log, cuzk-bench output, /status JSON). ``overrides``:
    configuration keys the logs do not show, applied to every run (``--set``).
    Each row's model is the profile simulated on the run's configuration; its
    errors are model / logged - 1 (:func:`~cuzklab.calibrate.compare.row_errors`);
    a run the logs show as not completed (a killed daemon) is kept, marked failed,
    and not judged.
    """
    from ..cuzk import parse_logs
    from ..model.profile import Profile
    from ..sim import simulate
    from ..trace.summary import throughput
    from .compare import (attribute_worst, fitted_configs, is_fitted, row_errors, side,
                          trace_figures, verdict)
    from .logs import one_run
    prof = Profile.load(profile)
    if prof.get("calibration", "method") == "live":
        k = prof.get("calibration", "log2_constraints")
        raise ConfigError("profile", f"{prof.name} models the live executor's partitions "
                          f"({'2^' + str(k) + ' rows' if k else 'a small circuit'}), measured "
                          "live; a cuzk daemon's logs are of its own proofs (a 32 GiB "
                          "PoRep partition: 130 M constraints): judge them on a profile of the "
                          "daemon (porep-32g, a phase variant, or one from calibrate --logs)")
    fitted = fitted_configs(prof)
    rows = []
    for files in _runs(runs):
        try:
            lp = parse_logs(files, require_content=True)
        except (ValueError, ConfigError) as exc:
            raise ConfigError("logs", f"{', '.join(map(str, files))}: {exc}") from None
        one_run(lp, files)
        if not (lp.trace.spans["stage"] == "synth").any():
            raise ConfigError("logs", f"{', '.join(map(str, files))}: no synthesis in these "
                              "logs (TIMELINE SYNTH_START / SYNTH_END lines): nothing of the "
                              "pipeline ran to set the model beside")
        try:
            cfg = lp.inferred_config(**(overrides or {}))
        except ConfigError as exc:
            raise ConfigError("set", str(exc)) from None
        trace, start = lp.trace, startup_s(lp.trace)
        with_startup = None
        if start:
            with_startup = throughput(trace)["seconds_per_proof"]
            trace = after_startup(trace, start)
        logged = side(trace.summary())
        logged.update(trace_figures(trace))
        if start:
            logged["startup_s"] = start
            logged["seconds_per_proof_with_startup"] = with_startup
        if logged["seconds_per_proof"] is None and not logged["failed"]:
            logged.update(failed=True, failure_reason="no proof completed in the logs")
        sim = simulate(cfg, prof)
        model = side(sim.summary())
        model.update(trace_figures(sim))
        as_logged(model, trace)
        row = {"config": cfg.to_dict(), "witness_work": 1.0, "fitted": is_fitted(cfg, fitted),
               "model": model, "live": logged, "error": row_errors(model, logged),
               "logs": [str(f) for f in files],
               "releases": list(lp.stats.releases or [])}
        if keep_traces:
            row["traces"] = {"model": sim, "live": trace}
        rows.append(row)
    out = {"benchmark": "compare", "against": "logs", "profile": prof.name,
           "calibration": prof.data.get("calibration", {}), "device": "cuzk daemon logs",
           "log2_constraints": None, "rows": rows, "verdict": verdict(rows)}
    attribute_worst(out, rows, prof)
    return out
