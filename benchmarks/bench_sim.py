"""Time the daemon model: one simulation of the default 20-proof x 10-partition run.

Prints a table and writes JSON (machine, sizes, medians of wall and CPU time; the
CPU time is the figure to trust on a busy machine). Run on one core, e.g.
``taskset -c 0 .venv/bin/python benchmarks/bench_sim.py --json out/bench_sim.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from cuzklab.atomic import write_text
from cuzklab.backend import host_info
from cuzklab.model import PipelineConfig
from cuzklab.sim import simulate

SCENARIOS = {
    "default 20x10 (split_async, pw=10, gw=2)": PipelineConfig(),
    "20x10 interlock, phase 9 profile": PipelineConfig(lock="interlock", gpu_threads=0),
    "30x10 gw=1, host OOM (phase 9)": PipelineConfig(
        proofs=30, concurrency=20, lock="interlock", admission="semaphore_prefix",
        gpu_threads=0, gpu_workers_per_device=1),
    "5x10 monolithic": PipelineConfig(proofs=5, concurrency=5, lock="monolithic"),
}
PROFILES = {"20x10 interlock, phase 9 profile": "porep-32g@phase9",
            "30x10 gw=1, host OOM (phase 9)": "porep-32g@phase9"}


def main(argv=None) -> int:
    """Run the benchmark; return the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9, help="timed runs per scenario (default 9)")
    ap.add_argument("--json", default=None, metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    results = []
    for name, cfg in SCENARIOS.items():
        prof = PROFILES.get(name)
        simulate(cfg, prof)  # warm-up: imports, profile parsing
        times, cpu = [], []
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            tr = simulate(cfg, prof)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        results.append({"scenario": name, "proofs": cfg.proofs, "partitions": cfg.partitions,
                        "spans": len(tr.spans), "median_s": statistics.median(times),
                        "min_s": min(times), "max_s": max(times),
                        "cpu_median_s": statistics.median(cpu), "repeats": args.repeats})
        print(f"{name:45s} wall median {statistics.median(times) * 1e3:7.1f} ms "
              f"(min {min(times) * 1e3:.1f}), CPU median {statistics.median(cpu) * 1e3:7.1f} ms, "
              f"{len(tr.spans)} spans")
    out = {"benchmark": "simulate", **host_info(), "results": results}
    if args.json:
        write_text(args.json, json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
