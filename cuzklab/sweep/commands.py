"""``cuzklab sweep`` and ``cuzklab sweep-report``: thin command lines over :mod:`cuzklab.sweep`."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..cliargs import positive_seconds


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {n}")
    return n


_ADDRESS_RE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(\d{1,5})$")


def _scheduler_address(text: str) -> str:
    m = _ADDRESS_RE.match(text)
    if not m or not 0 < int(m.group(1)) < 65536:
        raise argparse.ArgumentTypeError(
            f"expected a Dask scheduler address [PROTOCOL://]HOST:PORT such as "
            f"tcp://10.0.0.5:8786, got {text!r}")
    return text


def register(subparsers) -> None:
    """Add the ``sweep`` and ``sweep-report`` sub-commands."""
    from .executors import available_executors
    p = subparsers.add_parser(
        "sweep", help="run a parameter grid as executed notebooks (papermill)",
        description="Run every point of a sweep grid (TOML) as an executed notebook, several "
                    "at once, and write papermill_runs/<name>/ with the notebooks, "
                    "results.csv/.parquet and report.html.")
    p.add_argument("grid", type=Path, metavar="GRID", help="grid file, e.g. data/sweeps/concurrency.toml, or the name of "
                   "a grid shipped with cuzklab (concurrency; `cuzklab grids` lists them)")
    p.add_argument("--jobs", "-j", type=_positive_int, default=None,
                   help="points at once (default: the number of cores)")
    p.add_argument("--resume", action="store_true",
                   help="run only the points that are missing or did not end ok")
    p.add_argument("--out", type=Path, default=None,
                   help="sweep folder (default: papermill_runs/<name>)")
    p.add_argument("--executor", default="local", choices=available_executors(),
                   help="where points run (default: local process pool)")
    p.add_argument("--scheduler", type=_scheduler_address, default=None,
                   help="Dask scheduler address for --executor dask (tcp://host:8786)")
    p.add_argument("--timeout-s", type=positive_seconds, default=None,
                   help="per-cell and per-point time limit, overriding the grid's timeout_s")
    p.add_argument("--fresh-kernels", action="store_true",
                   help="start a new kernel for every point instead of reusing a warm one")
    p.add_argument("--no-report", action="store_true", help="skip report.html")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=_sweep)

    r = subparsers.add_parser(
        "sweep-report", help="(re)build report.html of a finished or partial sweep",
        description="Rebuild results.csv/.parquet and report.html of a sweep folder from its "
                    "point sidecars.")
    r.add_argument("dir", type=Path, metavar="DIR", help="sweep folder, e.g. papermill_runs/concurrency")
    r.add_argument("--html", type=Path, default=None, help="where to write (default: DIR/report.html)")
    r.set_defaults(func=_report)


def _sweep(args) -> int:
    from ..cliargs import input_file, output_dir
    from .grid import find_grid
    from .run import run_sweep
    args.grid = find_grid(args.grid)
    input_file(args.grid, "GRID", text=True)
    if args.out is not None:
        output_dir(args.out, "--out")
    try:
        result = run_sweep(args.grid, out=args.out, jobs=args.jobs, resume=args.resume,
                           executor=args.executor, scheduler=args.scheduler,
                           timeout_s=args.timeout_s,
                           reuse_kernels=False if args.fresh_kernels else None,
                           progress=not args.quiet, report=not args.no_report)
    except KeyboardInterrupt as exc:
        msg = str(exc) or "sweep interrupted"
        print(f"cuzklab: {msg}\ncuzklab: finished points are kept; run again with --resume "
              f"to complete the sweep", file=sys.stderr)
        return 130
    print(result)
    print(f"results: {result.out / 'results.csv'}")
    if result.report:
        print(f"report:  {result.report}")
    return 0 if result.ok else 1


def _report(args) -> int:
    from ..cliargs import OptionError, output_file
    from .report import write_report
    from .results import write_table
    if not args.dir.is_dir():
        raise OptionError(f"DIR {args.dir}: " + ("is a file, not a sweep folder"
                                                 if args.dir.exists() else "no such folder"))
    if args.html is not None:
        output_file(args.html, "--html")
    path = write_report(args.dir, args.html)
    write_table(args.dir)
    print(f"report: {path}")
    return 0
