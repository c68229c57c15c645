"""Checks of a grid's values against what its notebook accepts, before any point runs.

A grid that names a value outside a parameter's allowed set (``lock =
["wide_mutx"]``), a parameter its notebook does not declare, or a ``[report]``
metric its notebook never records is an error naming the key, the line of the
grid file and what is allowed. The rules come from the notebook's kind, told
by the parameters it declares:

- a *pipeline* notebook declares every ``PipelineConfig`` key and ``profile``
  (``notebooks/sweep-pipeline.ipynb``): each configuration key is checked
  alone against ``PipelineConfig``'s validation, ``profile`` against the
  known profiles, and the metrics are the keys of ``Trace.summary()``;
- a *kernels* notebook declares ``kernel``, ``log2_size`` and ``backend``
  (``notebooks/sweep-kernels.ipynb``): ``kernel`` and ``backend`` are checked
  against their sets, the metrics are ``kernel_point``'s.

Only single values are checked here. Whether values go together (proofs in
flight <= proofs, a size the CPU finishes in time) is known when the point
runs; such a point is recorded ``invalid`` and the others go on.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Callable

from ..errors import ConfigError, SweepError

# Values that every other key accepts, so that one key can be checked alone
# without a cross-key rule (concurrency <= proofs, budget <= RAM) firing.
_PERMISSIVE = {"proofs": 1_000_000, "concurrency": 1, "memory_gib": 1e9, "budget_gib": 0.0}

# What Trace.summary() records (cuzklab.trace.summary.summarize), flattened as
# `record` flattens it; a name shadowing a parameter is stored as metric.<name>.
PIPELINE_METRICS = ("seconds_per_proof", "wall_s", "proof_latency_s_mean", "prove_s_mean",
                    "gpu_prove_s_mean", "peak_rss_gib", "gpu_busy_fraction", "proofs",
                    "metric.proofs", "failed", "oom", "run_failed", "oom_risk", "oom_seeds",
                    "bottleneck.utilization")
PIPELINE_METRIC_PREFIXES = ("stage_s.", "bottleneck.evidence.", "kinds.")
# What cuzklab.sweep.kernels.kernel_point returns.
KERNEL_METRICS = ("n", "median_s", "min_s", "per_s")
KERNEL_BACKENDS = ("auto", "gpu", "cpu")


class Rules:
    """What one kind of notebook accepts: a check per parameter and its metrics."""

    def __init__(self, kind: str, checks: dict[str, Callable[[Any], str | None]],
                 metrics: tuple[str, ...], prefixes: tuple[str, ...] = ()):
        self.kind, self.checks, self.metrics, self.prefixes = kind, checks, metrics, prefixes

    def metric_known(self, name: str) -> bool:
        """Return True when the notebook records a metric of this name."""
        return name in self.metrics or name.startswith(self.prefixes)


def _config_check(key: str) -> Callable[[Any], str | None]:
    def check(value) -> str | None:
        from ..model import PipelineConfig
        try:
            PipelineConfig.from_dict({**_PERMISSIVE, key: value})
        except ConfigError as exc:
            if exc.key == key:
                return exc.message
        except TypeError as exc:
            return str(exc)
        return None
    return check


def _profile_check(value) -> str | None:
    from pathlib import Path

    from ..model import list_profiles
    if not isinstance(value, str):
        return f"must be a profile name or a path to a profile TOML, got {value!r}"
    known = list_profiles()
    if value in known or Path(value).is_file():
        return None
    return f"unknown profile {value!r}; known profiles: {', '.join(known)}"


def _workload_check(value) -> str | None:
    if value == "":
        return None
    from ..errors import ConfigError
    from ..sim.workload import Workload
    if not isinstance(value, str):
        return f"must be a workload TOML path or name, or \"\", got {value!r}"
    try:
        Workload.load(value)
    except ConfigError as exc:
        return str(exc)
    return None


def _oom_seeds_check(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        return f"must be a whole number from 1 to 1000 (seeds behind the OOM risk), got {value!r}"
    return None


def _one_of(allowed) -> Callable[[Any], str | None]:
    def check(value) -> str | None:
        return None if value in allowed else \
            f"must be one of {', '.join(map(str, allowed))}, got {value!r}"
    return check


def rules_for(declared) -> Rules | None:
    """Return the rules of a notebook from the parameters it declares, or None if unknown."""
    from ..model import PipelineConfig
    names = set(declared)
    keys = set(PipelineConfig.keys())
    if keys | {"profile"} <= names:
        checks = {k: _config_check(k) for k in PipelineConfig.keys()}
        checks["profile"] = _profile_check
        if "workload" in names:
            checks["workload"] = _workload_check
        if "oom_seeds" in names:
            checks["oom_seeds"] = _oom_seeds_check
        return Rules("pipeline", checks, PIPELINE_METRICS, PIPELINE_METRIC_PREFIXES)
    if {"kernel", "log2_size", "backend"} <= names:
        from .kernels import KERNELS
        return Rules("kernels", {"kernel": _one_of(tuple(KERNELS)),
                                 "backend": _one_of(KERNEL_BACKENDS)}, KERNEL_METRICS)
    return None


# -- where in the file ---------------------------------------------------------------
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"-]+)\s*\]\]?")


def line_of(text: str, section: str | None, key: str, index: int = 0) -> int | None:
    """Return the 1-based line of ``key =`` in ``[section]`` (the ``index``-th
    ``[[section]]`` table; ``section=None``: top level) of a grid's TOML text."""
    if not text:
        return None
    current, seen = None, -1
    key_re = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=")
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if m:
            current = m.group(2).strip('"')
            if current == section and m.group(1) == "[[":
                seen += 1
            elif current == section:
                seen = 0
            continue
        if current == section and (section is None or seen == index) and key_re.match(line):
            return n
    return None


def where(grid, section: str | None, key: str, index: int = 0) -> str:
    """Return ``FILE:LINE: [section] key`` for an error message (without the line when unknown)."""
    name = str(grid.source) if grid.source else f"grid {grid.name!r}"
    line = line_of(grid.source_text, section, key, index)
    head = f"{name}:{line}" if line else name
    sect = f"[[{section}]] number {index + 1}" if section in ("points", "report.published") \
        else f"[{section}]" if section else ""
    return f"{head}: {sect + ' ' if sect else ''}{key}"


def _entries(grid):
    """Yield (section, index, key, values) for every parameter value a grid sets."""
    for k, v in grid.parameters.items():
        yield "parameters", 0, k, [v]
    for k, vs in grid.grid.items():
        yield "grid", 0, k, list(vs)
    for i, p in enumerate(grid.points):
        for k, v in p.items():
            yield "points", i, k, [v]


def check_unknown(grid, declared, result_parameter: str) -> None:
    """Raise SweepError for the first parameter the notebook does not declare."""
    allowed = [k for k in declared if k != result_parameter]
    for section, i, key, _ in _entries(grid):
        if key not in declared:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SweepError(f"{where(grid, section, key, i)}: notebook {grid.notebook.name} "
                             f"does not declare parameter {key}{hint}; it declares: "
                             f"{', '.join(allowed)}")


def check_values(grid, rules: Rules | None) -> None:
    """Raise SweepError for the first value outside its parameter's allowed set."""
    if rules is None:
        return
    for section, i, key, values in _entries(grid):
        check = rules.checks.get(key)
        if check is None:
            continue
        for v in values:
            problem = check(v)
            if problem:
                raise SweepError(f"{where(grid, section, key, i)} = {v!r}: {problem}")


def check_report(grid, rules: Rules | None) -> None:
    """Raise SweepError when ``[report]`` names a parameter or metric the grid cannot have."""
    report = grid.report
    names = set(grid.parameters) | set(grid.grid) | {k for p in grid.points for k in p}
    for key in ("x", "color"):
        if key in report and report[key] not in names:
            raise SweepError(f"{where(grid, 'report', key)} = {report[key]!r} is not a "
                             f"parameter of this grid; parameters: {', '.join(sorted(names))}")
    metric = report.get("metric")
    if metric is not None and rules is not None and not rules.metric_known(metric):
        more = f", or {', '.join(p + '*' for p in rules.prefixes)}" if rules.prefixes else ""
        raise SweepError(f"{where(grid, 'report', 'metric')} = {metric!r}: the {rules.kind} "
                         f"notebook records no such metric; metrics: "
                         f"{', '.join(rules.metrics)}{more}")
    for i, entry in enumerate(report.get("published") or []):
        params = [k for k in entry if k in names]
        values = [k for k in entry if k not in names and k != "source"]
        label = f"{where(grid, 'report.published', next(iter(entry), 'source'), i)}"
        if not params or not values:
            raise SweepError(f"{label}: each [[report.published]] names the point by its "
                             f"parameters ({', '.join(sorted(names))}) and gives the published "
                             f"values (e.g. seconds_per_proof = 38.0)")
        for k in values:
            v = entry[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                if not (k == "oom" and isinstance(v, bool)):
                    raise SweepError(f"{where(grid, 'report.published', k, i)} must be a "
                                     f"number, got {v!r}")
            if rules is not None and not rules.metric_known(k):
                raise SweepError(f"{where(grid, 'report.published', k, i)}: not a metric the "
                                 f"{rules.kind} notebook records; metrics: "
                                 f"{', '.join(rules.metrics)}")
        if "source" in entry and not isinstance(entry["source"], str):
            raise SweepError(f"{where(grid, 'report.published', 'source', i)} must be a string")
