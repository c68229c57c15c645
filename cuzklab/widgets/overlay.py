"""The model's prediction beside a measured trace (``live`` or ``cuzk-log``).

:func:`model_overlay` simulates the configuration a measured trace ran with
on a profile and returns one figure with both timelines and both sides'
per-stage bars, each labelled with its source
(:func:`cuzklab.plots.model_vs_live.overlay`). Pass an :class:`Explorer` to
overlay its current trace (a daemon log's SRS load at its start is left out, as
the model starts with the SRS resident, and the title says so)::

    ex = Explorer(source="cuzk-log")
    model_overlay(ex, profile="porep-32g")
"""

from __future__ import annotations


def model_prediction(trace, profile=None):
    """Return the simulator's Trace of the configuration ``trace`` ran with."""
    from ..errors import ConfigError
    from ..model import PipelineConfig
    from ..sim import simulate
    cfg = (trace.meta or {}).get("config")
    if not cfg:
        raise ConfigError("trace", "the measured trace carries no configuration "
                          "(meta['config']); give its config to the source")
    return simulate(PipelineConfig.from_dict(cfg), profile)


def model_overlay(trace_or_explorer, profile=None, *, width: int = 1200):
    """Return the figure of a measured trace and the model's prediction of it, side by side."""
    from ..errors import CuzklabError
    from ..plots.model_vs_live import overlay
    trace = getattr(trace_or_explorer, "trace", trace_or_explorer)
    if trace is None:
        raise CuzklabError("nothing to overlay: the explorer has no trace yet")
    if profile is None:
        profile = getattr(trace_or_explorer, "profile", None)
    if trace.meta.get("source") == "sim":
        raise CuzklabError("model_overlay needs a measured trace (live or cuzk-log), got a "
                           "simulated one")
    model = model_prediction(trace, profile)
    start = startup_left_out(trace)
    if start is None:
        return overlay(trace, model, width=width)
    # a daemon's first proof paid its SRS load before any synthesis; the model starts with
    # the SRS resident: the two sides compare from the load's end (calibrate.logcompare)
    from ..calibrate.logcompare import after_startup
    from ..plots.model_vs_live import source_label
    cut = after_startup(trace, start)
    title = (f"{source_label(trace)} against {source_label(model)}; the daemon's first "
             f"{start:.1f} s, its SRS load, left out (the model starts with the SRS resident)")
    return overlay(cut, model, title=title, width=width)


def startup_left_out(trace) -> float | None:
    """Return the seconds of SRS load a ``cuzk-log`` trace starts with (None for others)."""
    if trace.meta.get("source") != "cuzk-log":
        return None
    from ..calibrate.logcompare import startup_s
    return startup_s(trace)
