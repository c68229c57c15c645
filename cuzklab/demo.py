"""The main job behind ``make demo``.

1. Simulates the documented 32 GiB PoRep node (the default configuration and
   profile) and writes its summary (JSON), trace (Parquet) and a Chrome-trace
   file that ui.perfetto.dev opens.
2. Runs the default sweep (``data/sweeps/concurrency.toml``) as executed
   notebooks and builds its report.

Prints where everything is. ``python -m cuzklab.demo --no-sweep`` does only
the first part.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .atomic import write_text
from .resources import checkout_root

# Outputs go under the checkout's papermill_runs/, or the current folder's for
# an installed package.
ROOT = checkout_root() or Path.cwd()


def simulate_default(out: Path) -> dict:
    """Simulate the default scenario into ``out``; return the summary."""
    from .model import PipelineConfig
    from .sim import simulate
    from .sim.commands import format_summary
    config = PipelineConfig()
    trace = simulate(config)
    out.mkdir(parents=True, exist_ok=True)
    summary = trace.summary()
    write_text(out / "summary.json", json.dumps(summary, indent=2))
    trace.save(out / "trace.parquet")
    trace.to_perfetto(out / "trace.perfetto.json")
    print(format_summary(summary, config, trace.meta["profile"]))
    return summary


def main(argv=None) -> int:
    """Run the demo; return the exit code."""
    ap = argparse.ArgumentParser(prog="python -m cuzklab.demo", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "papermill_runs"),
                    help="where to write (default papermill_runs/)")
    ap.add_argument("--no-sweep", action="store_true", help="only simulate the default scenario")
    ap.add_argument("--jobs", type=int, default=None, help="sweep points at once (default: cores)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    t0 = time.perf_counter()
    print("== cuzklab demo: the documented 32 GiB PoRep node, simulated ==")
    sim_dir = out / "demo-simulation"
    simulate_default(sim_dir)
    print(f"\nsummary:  {sim_dir / 'summary.json'}")
    print(f"trace:    {sim_dir / 'trace.parquet'}")
    print(f"perfetto: {sim_dir / 'trace.perfetto.json'}  (open it in https://ui.perfetto.dev)")
    if args.no_sweep:
        print(command_hint())
        return 0
    from .resources import find
    from .sweep import run_sweep
    grid = find("sweeps", "concurrency")
    shown = grid.relative_to(ROOT) if grid.is_relative_to(ROOT) else grid
    print(f"\n== the default sweep: {shown} ==")
    print("(points already finished in its folder are kept: the demo runs it with --resume)")
    result = run_sweep(grid, out=out / "concurrency", jobs=args.jobs, resume=True)
    print(f"\n{result}")
    print(f"\nexecuted notebooks and results: {result.out}")
    if result.report is not None:
        print(f"report:   {result.report}")
    print(f"demo finished in {time.perf_counter() - t0:.0f} s")
    print(command_hint(grid=shown, out=result.out))
    return 0 if result.ok else 1


def command_hint(prefix: str | None = None, cwd: Path | None = None, *, grid=None,
                 out=None) -> str:
    """Return how to run the ``cuzklab`` command of the environment at ``prefix`` from ``cwd``,
    then the commands to go on with (:func:`hints`).

    ``make demo`` runs inside ``.venv`` without activating it, so a plain
    ``cuzklab`` is not on the PATH afterwards: name the script by its path
    and the activation that puts it there.
    """
    prefix = Path(prefix or sys.prefix)
    cwd = Path(cwd or Path.cwd())
    bindir = prefix / ("Scripts" if sys.platform == "win32" else "bin")
    script = bindir / "cuzklab"
    try:
        shown = script.relative_to(cwd)
        shown_bin = bindir.relative_to(cwd)
    except ValueError:
        shown, shown_bin = script, bindir
    if grid is None:
        grid = "data/sweeps/concurrency.toml" if checkout_root() else "concurrency"
    lines = ["", "run cuzklab yourself:",
             f"  {shown} --help   (or `source {shown_bin / 'activate'}`, then plain `cuzklab ...`)"]
    if not script.exists():
        lines.append(f"  ({script} is not installed here: python -m cuzklab ... does the same)")
    return "\n".join(lines + hints(grid, out))


def hints(grid, out=None) -> list[str]:
    """Return the demo's closing lines: commands to go on with, each with what it does."""
    rows = [
        (f"cuzklab sweep {grid} --resume",
         "runs only the points without a result or that did not end ok; finished points are kept"),
        (f"cuzklab sweep {grid}", "runs every point again, replacing each result as it completes"),
        ("cuzklab simulate --set lock=wide_mutex",
         "simulates one configuration and prints its summary and what bounds it"),
    ]
    if out is not None:
        rows.insert(2, (f"cuzklab sweep-report {out}",
                        "rebuilds report.html from the points on disk (runs nothing)"))
    width = max(len(c) for c, _ in rows)
    return ["next:"] + [f"  {c:<{width}}  {what}" for c, what in rows]


if __name__ == "__main__":
    sys.exit(main())
