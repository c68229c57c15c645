"""Where the explorer's traces come from: a registry of named sources.

A source is a callable ``(config: PipelineConfig, profile: str | None) ->
Trace``. ``sim`` (the SimPy model), ``live`` (the live executor, scaled
down to a size that answers in seconds) and ``cuzk-log`` (a parsed daemon
log plus the configuration it ran with; the sample log until
:func:`cuzk_log_source` points it at an operator's own files) are built in;
other sources register themselves the same way::

    from cuzklab.widgets import register_source
    register_source("live", lambda config, profile: run_live(config, profile))
"""

from __future__ import annotations

from typing import Callable

Source = Callable[..., object]

#: The live source's scale: 2^4 rows per partition, at most 3 proofs of 2
#: partitions. On this scale a configuration runs live in a few seconds on a
#: laptop (the CPU stand-ins' kernels take ~0.2-1 s a partition), which keeps
#: the explorer usable; the threads, locks and admission are those of any size.
LIVE_LOG2 = 4
LIVE_MAX_PROOFS = 3
LIVE_MAX_PARTITIONS = 2

_SOURCES: dict[str, Source] = {}


def _simulate(config, profile=None):
    from ..sim import simulate
    return simulate(config, profile)


#: Same configuration, profile and seed, same trace: the explorer may keep the run.
_simulate.deterministic = True
#: The configuration's seed is a seed of the simulator: the explorer runs the next
#: seeds in the background for the OOM risk.
_simulate.seeded = True


def live_config(config):
    """Return ``config`` scaled to the live source's size (proofs, partitions, concurrency)."""
    proofs = min(config.proofs, LIVE_MAX_PROOFS)
    return config.replace(proofs=proofs, partitions=min(config.partitions, LIVE_MAX_PARTITIONS),
                          concurrency=min(config.concurrency, proofs))


def _live_backend() -> str:
    from ..backend import gpu_available
    return "gpu" if gpu_available() else "cpu"


def _live(config, profile=None):
    from ..live import run
    return run(live_config(config), log2_constraints=LIVE_LOG2, backend=_live_backend(),
               profile=profile, progress=False, verify=False)


def _live_message(config) -> str:
    c = live_config(config)
    return (f"running live on the real stages ({_live_backend()}): {c.proofs} proofs x "
            f"{c.partitions} partitions at 2^{LIVE_LOG2} rows, {c.partition_workers} synthesis "
            f"workers, {c.gpu_workers_per_device} GPU workers, lock {c.lock}; a few seconds…")


#: What the explorer shows while the source runs (a source may carry one).
_live.running_message = _live_message


def cuzk_log_source(paths=None, config=None):
    """Return a ``cuzk-log`` source: the parsed trace of daemon log ``paths`` (default: the sample).

    The trace's ``meta["config"]`` is ``config`` (a PipelineConfig or dict) or, if
    None, the configuration the logs show (``LogParse.inferred_config``), so a
    model can be run on the same configuration beside it. The logs are parsed
    once; the explorer's controls do not change what a log recorded.
    """
    cache: dict = {}

    def source(_config=None, _profile=None):
        if "trace" not in cache:
            from ..cuzk import parse_logs, sample_paths
            from ..model import PipelineConfig
            files = paths or [p for p in sample_paths() if p.name == "cuzk-daemon.log"]
            lp = parse_logs(files)
            cfg = PipelineConfig.coerce(config) if config is not None else lp.inferred_config()
            lp.trace.meta["config"] = cfg.to_dict()
            lp.trace.meta["logs"] = [str(getattr(f, "name", f)) for f in files]
            cache["trace"] = lp.trace
        return cache["trace"]
    return source


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
register_source("live", _live)
register_source("cuzk-log", cuzk_log_source())
