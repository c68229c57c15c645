"""The real cuzk daemon: log, bench and status parsers, and a harness that verifies it.

* :func:`parse_logs` — daemon logs, cuzk-bench output and ``/status`` JSON to a
  :class:`~cuzklab.trace.Trace` (source ``cuzk-log``), per-proof and
  per-partition tables and parse statistics.
* :func:`bench_plan` — the ``cuzk-bench batch -c N -j J`` argv of a config.
* :class:`Daemon` — start a daemon and prove it is alive and ready, notice
  when it dies, stop only the process group it started.
* :func:`run_bench_point` — one sweep point against a harness-managed daemon.
* :class:`DaemonStartError` (``.reason``), :class:`DaemonDiedError`, their base
  :class:`DaemonError`, and :class:`LogParseError` — what these raise.

Names are imported on first use, so ``import cuzklab.cuzk`` stays cheap.
"""

from __future__ import annotations

from ..errors import DaemonDiedError, DaemonError, DaemonStartError, LogParseError
from ..lazy import lazy_exports

_ERRORS = ["DaemonError", "DaemonStartError", "DaemonDiedError", "LogParseError"]
_EXPORTS = {
    "parse_logs": "logs", "parse_texts": "logs", "LogParse": "logs",
    "ParseStats": "stats",
    "BenchReport": "bench", "bench_plan": "bench",
    "Daemon": "harness", "DaemonExit": "harness",
    "kernel_oom_kills": "kernel_log",
    "run_bench_point": "point", "daemon_plan": "point", "plan_point": "point",
    "copy_point_files": "point",
    "sample_paths": "samples", "samples_dir": "samples",
}

__all__ = sorted([*_EXPORTS, *_ERRORS])

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
