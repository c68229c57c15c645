"""Time a full ``cuzklab tune`` for one node (default 256 GiB, 1 GPU): median of 3.

Each run is the whole search (minimum, coarse grid, refinement, robustness over
seeds and +-10 % stage costs) with the local executor's process pool, as
``cuzklab tune --memory-gib 256 --gpus 1`` runs it. Prints a table and writes
JSON (machine, cores, node, simulations per run, medians of wall time and of
the CPU time of this process and its pool). On a machine shared with other
work the wall time is disturbed; the CPU time divided by the cores is the
figure such a machine would reach when idle.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time

from cuzklab.atomic import write_text
from cuzklab.backend import device_name
from cuzklab.sweep.executors import usable_cores
from cuzklab.tune import tune

TARGET_S = 60.0  # the tuner's goal: one node in under a minute on a 2-core machine


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv=None) -> int:
    """Run the benchmark; return the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memory-gib", type=float, default=256.0)
    ap.add_argument("--gpus", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3, help="timed runs (default 3)")
    ap.add_argument("--jobs", type=int, default=None, help="pool processes (default: the cores)")
    ap.add_argument("--json", default=None, metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    runs = []
    for i in range(args.repeats):
        t0, c0 = time.perf_counter(), _cpu_s()
        # each run has its own pool, whose processes are reaped (and counted) when it closes
        res = tune(args.memory_gib, args.gpus, jobs=args.jobs, progress=False)
        runs.append({"wall_s": time.perf_counter() - t0, "cpu_s": _cpu_s() - c0,
                     "simulations": res.simulation_count, "by_phase": res.simulations,
                     "evaluated": len(res.points),
                     "recommended": res.recommended.knobs.label() if res.recommended else None,
                     "seconds_per_proof": res.recommended.s_per_proof if res.recommended else None})
        r = runs[-1]
        print(f"run {i + 1}: {r['wall_s']:6.1f} s wall, {r['cpu_s']:6.1f} s CPU, "
              f"{r['simulations']} simulations -> {r['recommended']}", flush=True)
    wall = statistics.median(r["wall_s"] for r in runs)
    cpu = statistics.median(r["cpu_s"] for r in runs)
    cores = args.jobs or usable_cores()
    print(f"median: {wall:.1f} s wall ({'under' if wall < TARGET_S else 'over'} the {TARGET_S:.0f} s "
          f"target), {cpu:.1f} s CPU = {cpu / cores:.1f} s on {cores} idle cores; "
          f"{runs[0]['simulations']} simulations a run; load average {os.getloadavg()[0]:.1f}")
    out = {"benchmark": "tune", "machine": device_name("cpu"), "cores": cores,
           "python": platform.python_version(), "node": {"memory_gib": args.memory_gib,
                                                          "gpus": args.gpus},
           "repeats": args.repeats, "median_wall_s": wall, "median_cpu_s": cpu,
           "cpu_per_core_s": cpu / cores, "target_s": TARGET_S,
           "load_average_1min": os.getloadavg()[0], "runs": runs}
    if args.json:
        write_text(args.json, json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
