#!/usr/bin/env python3
"""Per-point overhead of notebook sweeps, and the demo sweep's wall time.

    python benchmarks/bench_sweep.py [--points N] [--demo-jobs J] [--skip-demo]
        [--skip-baseline] [--json bench_sweep.json]

Per-point overhead = a point's wall time minus the time its cells ran
(papermill's per-cell durations in the executed notebook), one point at a time
(no contention), on the simulation notebook with a tiny configuration, for:

- ``papermill``: the usual way, a fresh ``python -m papermill`` per point
  (process start, papermill import, a new kernel, papermill's engine);
- ``cold``: ``cuzklab sweep --fresh-kernels`` (a new worker and kernel per point);
- ``warm``: ``cuzklab sweep`` (one warm worker and kernel for all points).

Then the demo sweep (data/sweeps/concurrency.toml) end to end with ``--jobs J``,
warm and cold. Run it under ``taskset -c 0,1`` to measure "2 cores". Prints a
table and writes JSON (host, cores, sizes, medians).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuzklab.backend import device_name  # noqa: E402
from cuzklab.sweep import run_sweep  # noqa: E402
from cuzklab.sweep.executors import usable_cores  # noqa: E402

NOTEBOOK = ROOT / "notebooks" / "sweep-pipeline.ipynb"
DEMO = ROOT / "data" / "sweeps" / "concurrency.toml"
# A tiny simulated point: the cells take tens of milliseconds, so the wall
# time of a point is mostly overhead.
TINY = {"proofs": 2, "concurrency": 1, "partition_workers": 2}


def _cells_s(nb_path: pathlib.Path) -> float:
    nb = json.loads(nb_path.read_text())
    return sum(c.get("metadata", {}).get("papermill", {}).get("duration") or 0.0
               for c in nb["cells"])



def bench_papermill(points: int, tmp: pathlib.Path) -> dict:
    """Return per-point timings of a fresh papermill process per point."""
    walls, cells = [], []
    for i in range(points):
        out = tmp / f"pm{i}.ipynb"
        args = [sys.executable, "-m", "papermill", str(NOTEBOOK), str(out), "--no-progress-bar",
                "-k", "python3", "-p", "result_path", str(tmp / f"pm{i}.result.json"),
                "--cwd", str(NOTEBOOK.parent)]
        for k, v in {**TINY, "seed": i}.items():
            args += ["-p", k, str(v)]
        t0 = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        walls.append(time.perf_counter() - t0)
        cells.append(_cells_s(out))
    return _stats(walls, cells)


def bench_sweep_points(points: int, tmp: pathlib.Path, reuse: bool) -> dict:
    """Return per-point timings of a one-job sweep (warm or fresh kernels)."""
    grid = {"name": f"overhead-{'warm' if reuse else 'cold'}", "notebook": str(NOTEBOOK),
            "parameters": TINY, "grid": {"seed": list(range(points))}}
    res = run_sweep(grid, out=tmp / grid["name"], jobs=1, reuse_kernels=reuse,
                    progress=False, report=False)
    if res.counts.get("ok") != points:
        raise RuntimeError(f"benchmark points failed: {res.counts}")
    t = res.table
    walls, cells = t["run.wall_s"].tolist(), t["run.cells_s"].tolist()
    out = _stats(walls, cells)
    if reuse:  # the first point pays for starting the worker and kernel
        out["first_point_s"] = round(walls[0], 3)
        out["later"] = _stats(walls[1:], cells[1:])
    return out


def _stats(walls, cells) -> dict:
    over = [w - c for w, c in zip(walls, cells)]
    return {"n": len(walls), "median_wall_s": round(statistics.median(walls), 3),
            "median_cells_s": round(statistics.median(cells), 3),
            "median_overhead_s": round(statistics.median(over), 3)}


def bench_demo(tmp: pathlib.Path, jobs: int, reuse: bool) -> dict:
    """Return the demo sweep's wall time (whole command: plan, points, table, report)."""
    t0 = time.perf_counter()
    res = run_sweep(DEMO, out=tmp / f"demo-{'warm' if reuse else 'cold'}", jobs=jobs,
                    reuse_kernels=reuse, progress=False)
    wall = time.perf_counter() - t0
    return {"points": int(sum(res.counts.values())), "jobs": jobs, "wall_s": round(wall, 2),
            "counts": {k: v for k, v in res.counts.items() if v}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=6, help="points per overhead measurement")
    ap.add_argument("--demo-jobs", type=int, default=None,
                    help="jobs for the demo sweep (default: the usable cores)")
    ap.add_argument("--skip-demo", action="store_true")
    ap.add_argument("--skip-baseline", action="store_true", help="skip the papermill baseline")
    ap.add_argument("--json", default="bench_sweep.json", help="output JSON path ('' for none)")
    args = ap.parse_args(argv)
    report = {"host": platform.node(), "cpu": device_name("cpu"), "cores": usable_cores(),
              "python": platform.python_version(), "notebook": NOTEBOOK.name,
              "point_config": TINY, "per_point": {}, "demo": {}}
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as d:
        tmp = pathlib.Path(d)
        if not args.skip_baseline:
            report["per_point"]["papermill"] = bench_papermill(args.points, tmp)
        report["per_point"]["cold"] = bench_sweep_points(args.points, tmp, reuse=False)
        report["per_point"]["warm"] = bench_sweep_points(args.points, tmp, reuse=True)
        if not args.skip_demo:
            jobs = args.demo_jobs or usable_cores()
            report["demo"]["warm"] = bench_demo(tmp, jobs, reuse=True)
            report["demo"]["cold"] = bench_demo(tmp, jobs, reuse=False)
    print(f"{report['cpu']} ({report['cores']} usable cores), Python {report['python']}")
    print(f"{'per point':<12}{'n':>4}{'wall s':>10}{'cells s':>10}{'overhead s':>12}")
    for mode, s in report["per_point"].items():
        print(f"{mode:<12}{s['n']:>4}{s['median_wall_s']:>10.3f}{s['median_cells_s']:>10.3f}"
              f"{s['median_overhead_s']:>12.3f}")
        if "later" in s:
            later = s["later"]
            print(f"{'  after 1st':<12}{later['n']:>4}{later['median_wall_s']:>10.3f}"
                  f"{later['median_cells_s']:>10.3f}{later['median_overhead_s']:>12.3f}"
                  f"   (first point {s['first_point_s']:.3f} s)")
    for mode, s in report["demo"].items():
        print(f"demo sweep, {mode:<5}: {s['points']} points, --jobs {s['jobs']}: {s['wall_s']:.1f} s "
              f"{s['counts']}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
