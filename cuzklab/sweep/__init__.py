"""Parameterized notebook sweeps: a grid of points, each an executed notebook.

``run_sweep("data/sweeps/concurrency.toml")`` runs every point of the grid
with papermill, several at once, and leaves in ``papermill_runs/<name>/``
the executed notebooks, one JSON sidecar per point, the results table
(``results.csv``, ``results.parquet``) and ``report.html``. Inside a sweep
notebook, ``record(result_path, summary)`` hands the metrics back.

Importing this package is cheap: ``record`` needs neither papermill nor
pandas, and everything else is imported on first use.
"""

from __future__ import annotations

from importlib import import_module

from ..errors import BackendError, ConfigError, SweepError
from .record import artifact_path, flatten, record

_LAZY = {
    "Grid": "grid", "load_grid": "grid", "check_parameters": "grid",
    "SweepPoint": "points", "point_id": "points", "to_plain": "points",
    "STATUSES": "outcome",
    "run_sweep": "run", "SweepResult": "run", "plan_sweep": "run",
    "Executor": "executors", "register_executor": "executors", "get_executor": "executors",
    "available_executors": "executors",
    "build_table": "results", "read_sidecars": "results", "write_table": "results",
    "write_report": "report",
    "run_point": "runner",
    "KernelUnavailable": "kernels", "KernelResetError": "engine", "NotPlainError": "points",
}

__all__ = ["record", "artifact_path", "flatten", "SweepError", "ConfigError", "BackendError",
           *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
