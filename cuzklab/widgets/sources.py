"""Where the explorer's traces come from: a registry of named sources.

A source is a callable ``(config: PipelineConfig, profile: str | None) ->
Trace``. ``sim`` (the SimPy model) is built in; the live executor and parsed
daemon logs register themselves the same way when they are available::

    from cuzklab.widgets import register_source
    register_source("live", lambda config, profile: run_live(config, profile))
"""

from __future__ import annotations

from typing import Callable

Source = Callable[..., object]

_SOURCES: dict[str, Source] = {}


def _simulate(config, profile=None):
    from ..sim import simulate
    return simulate(config, profile)


def register_source(name: str, fn: Source, *, replace: bool = False) -> None:
    """Register ``fn`` as the source called ``name`` (``replace=True`` to overwrite)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if not callable(fn):
        raise TypeError(f"fn must be callable(config, profile) -> Trace, got {type(fn).__name__}")
    if name in _SOURCES and not replace:
        raise ValueError(f"a source called {name!r} is already registered; "
                         "pass replace=True to overwrite it")
    _SOURCES[name] = fn


def unregister_source(name: str) -> None:
    """Remove the source called ``name`` (the built-in ``sim`` cannot be removed)."""
    if name == "sim":
        raise ValueError("the built-in source 'sim' cannot be removed")
    if name not in _SOURCES:
        raise KeyError(f"no source called {name!r}; registered: {', '.join(source_names())}")
    del _SOURCES[name]


def get_source(name: str) -> Source:
    """Return the source registered as ``name``."""
    try:
        return _SOURCES[name]
    except KeyError:
        raise ValueError(f"source must be one of {', '.join(source_names())}, "
                         f"got {name!r}") from None


def source_names() -> list[str]:
    """Return the names of the registered sources, ``sim`` first."""
    return list(_SOURCES)


register_source("sim", _simulate)
