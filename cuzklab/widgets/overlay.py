"""The model's prediction beside a measured trace (``live`` or ``cuzk-log``).

:func:`model_overlay` simulates the configuration a measured trace ran with
on a profile and returns one figure with both timelines and both sides'
per-stage bars, each labelled with its source
(:func:`cuzklab.plots.model_vs_live.overlay`). Pass an :class:`Explorer` to
overlay its current trace::

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
    return overlay(trace, model_prediction(trace, profile), width=width)
