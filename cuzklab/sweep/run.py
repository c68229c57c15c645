"""Run a sweep: plan its points, run the missing ones, write the table and the report.

:func:`run_sweep` is the whole job behind ``cuzklab sweep`` and ``make demo``.
Points run through an executor (``local`` process pool by default, ``dask``
for a cluster); each finished point is written at once (its files, then its
sidecar), so an interrupted sweep keeps every finished point, and
``resume=True`` runs only the points that are missing or did not end ``ok``.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SweepError
from .grid import Grid, load_grid
from .outcome import STATUSES, error_dict, error_text
from .points import SweepPoint
from .results import (build_table, read_sidecars, write_plan, write_point,
                      write_table)
from .runner import run_point

DEFAULT_ROOT = Path("papermill_runs")
# Seconds between rebuilds of the results table while a sweep runs (it is
# rebuilt from every sidecar; the final rebuild always happens).
TABLE_EVERY_S = 10.0
# The demo: the concurrency grid shipped with cuzklab (data/sweeps/).
DEMO_GRID_NAME = "concurrency"


@dataclass
class SweepResult:
    """What a sweep run left: its folder, table, per-status counts and report."""

    out: Path
    grid: Grid
    table: Any
    counts: dict[str, int] = field(default_factory=dict)
    ran: int = 0
    skipped: int = 0
    report: Path | None = None
    interrupted: bool = False
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        """Return True when every point ended ``ok``."""
        return sum(self.counts.values()) > 0 and self.counts.get("ok", 0) == sum(
            self.counts.values())

    def __str__(self) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in self.counts.items() if n)
        head = "interrupted" if self.interrupted else "done"
        return (f"sweep {self.grid.name} {head}: {self.ran} run, {self.skipped} kept "
                f"({counts or 'no points'}) in {self.wall_s:.1f} s -> {self.out}")


def plan_sweep(grid: Grid, out: Path, resume: bool) -> tuple[list[SweepPoint], list[SweepPoint],
                                                             dict[str, dict]]:
    """Return (all points, points to run, existing sidecars) for a sweep folder."""
    points = grid.expand()
    existing = read_sidecars(out)
    if resume:
        todo = [p for p in points if existing.get(p.id, {}).get("status") != "ok"]
    else:
        todo = list(points)
    return points, todo, existing


def _job(grid: Grid, point: SweepPoint, reuse: bool, grace_s: float | None) -> dict[str, Any]:
    job = {"id": point.id, "parameters": point.parameters, "notebook": str(grid.notebook),
           "notebook_text": grid.notebook.read_text(encoding="utf-8"),
           "cwd": str(grid.notebook.parent), "kernel": grid.kernel,
           "timeout_s": grid.timeout_s, "reuse_kernel": reuse}
    if grace_s is not None:
        job["grace_s"] = float(grace_s)
    return job


def run_sweep(grid, *, out: str | os.PathLike | None = None, jobs: int | None = None,
              resume: bool = False, executor: str = "local", scheduler=None,
              timeout_s: float | None = None, reuse_kernels: bool | None = None,
              grace_s: float | None = None, progress: bool = True,
              report: bool = True) -> SweepResult:
    """Run a sweep grid (path, TOML text, dict or Grid) and return what it left.

    ``out`` defaults to ``papermill_runs/<name>``. ``jobs``: points at once
    (default: the number of cores). ``resume``: run only points without an
    ``ok`` sidecar. ``timeout_s`` overrides the grid's. ``reuse_kernels``:
    keep a warm kernel per worker between points (default: the executor's
    choice; the local executor does). ``grace_s``: seconds past ``timeout_s``
    before the watchdog kills a point. On Ctrl-C the running points are
    killed, finished ones are kept, the table is written and
    ``KeyboardInterrupt`` is raised again.
    """
    t0 = time.perf_counter()
    if timeout_s is not None and not (isinstance(timeout_s, (int, float)) and timeout_s > 0
                                      and math.isfinite(timeout_s)):
        raise ValueError(f"timeout_s must be a number of seconds > 0 and finite, got {timeout_s!r}")
    if grace_s is not None and not (isinstance(grace_s, (int, float)) and grace_s >= 0):
        raise ValueError(f"grace_s must be a number of seconds >= 0, got {grace_s!r}")
    grid = load_grid(grid, timeout_s=timeout_s)
    from .executors import get_executor
    exec_cls = get_executor(executor)
    ex = exec_cls(jobs=jobs, scheduler=scheduler)
    reuse = exec_cls.reuse_kernels if reuse_kernels is None else bool(reuse_kernels)
    out = Path(out) if out is not None else DEFAULT_ROOT / grid.name
    out.mkdir(parents=True, exist_ok=True)
    points, todo, existing = plan_sweep(grid, out, resume)
    from .. import __version__
    write_plan(out, {"name": grid.name, "grid": grid.to_dict(), "cuzklab_version": __version__,
                     "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
                     "points": [{"id": p.id, "label": p.label, "repeat": p.repeat,
                                 "parameters": p.parameters} for p in points]})
    result = SweepResult(out=out, grid=grid, table=None, skipped=len(points) - len(todo))
    by_id = {p.id: p for p in todo}
    attempts = {p.id: int(existing.get(p.id, {}).get("attempt", 0)) + 1 for p in todo}
    counts: Counter = Counter()

    from tqdm.auto import tqdm
    bar = tqdm(total=len(todo), desc=f"sweep {grid.name}", unit="point", file=sys.stderr,
               disable=not progress or not todo, dynamic_ncols=True)

    last_table = [time.monotonic()]

    def finish(point: SweepPoint, outcome: dict[str, Any]) -> None:
        """Write a finished point, count it, and refresh the table now and then."""
        write_point(out, point, outcome, sweep=grid.name, attempt=attempts[point.id])
        if time.monotonic() - last_table[0] >= TABLE_EVERY_S:
            write_table(out)
            last_table[0] = time.monotonic()
        counts[outcome["status"]] += 1
        result.ran += 1
        bar.update(1)
        bar.set_postfix({s: counts[s] for s in STATUSES if counts[s]}, refresh=False)
        if outcome["status"] != "ok":
            bar.write(f"  {point.label}: {outcome['status']}: "
                      f"{error_text(outcome.get('error'))}", file=sys.stderr)

    runnable = []
    for p in todo:
        if p.error:  # a value papermill cannot inject: recorded, never run
            finish(p, {"status": "invalid", "error": error_dict("NotPlainError", p.error)})
        else:
            runnable.append(_job(grid, p, reuse, grace_s))
    try:
        with ex:
            try:
                for outcome in ex.run(run_point, runnable):
                    finish(by_id[outcome["id"]], outcome)
            except KeyboardInterrupt:
                result.interrupted = True
                ex.cancel()
    finally:
        bar.close()
        table = build_table(out)
        write_table(out, table)
        result.table = table
        result.counts = {s: int((table["status"] == s).sum()) for s in STATUSES} if len(table) \
            else {}
        result.wall_s = time.perf_counter() - t0
        if report:
            try:
                from .report import write_report
                result.report = write_report(out)
            except Exception as exc:  # the results are safe on disk; say why the page is missing
                print(f"cuzklab: warning: report.html not written: {type(exc).__name__}: {exc}",
                      file=sys.stderr)
    if result.interrupted:
        raise KeyboardInterrupt(str(result))
    return result


def demo(out: str | os.PathLike | None = None, jobs: int | None = None,
         resume: bool = False, progress: bool = True) -> SweepResult:
    """Run the demo sweep (``data/sweeps/concurrency.toml``) and return its result."""
    from ..resources import data_dir, find
    grid = find("sweeps", DEMO_GRID_NAME)
    if grid is None:
        raise SweepError(f"the demo grid {DEMO_GRID_NAME}.toml is missing from {data_dir('sweeps')}")
    return run_sweep(grid, out=out, jobs=jobs, resume=resume, progress=progress)
