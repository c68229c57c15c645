#!/usr/bin/env python3
"""b_g2_msm's direct calls after each heavy step of ``calibrate --live``, in one process.

    python benchmarks/bench_b_g2_after_steps.py [--log2 20] [--backend gpu] [--pool 16]
        [--json out.json] [--quick]

The calibration times b_g2_msm calls at once on their pool (``b_g2_pool``) after its
steps that load every core and allocate a lot (k syntheses at once, MatVecs at once,
NumPy copies on every thread). A comparison's host checks time the same calls
(:func:`cuzklab.calibrate.measure.b_g2_at_once`, through
:class:`~cuzklab.calibrate.hostcheck.HostCheck`) in a process that has only run the
live executor. This script times one call alone (median of 7) and eight calls of
different partitions at once (median of 3) at the start, then again after each of
those steps and after the pool step itself, all in one process, so that a step that
leaves the process or the host slower for a while shows as a jump between two marks.

The JSON holds every mark: seconds since the start, the step it follows, its figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.native.bench import host  # noqa: E402


def run(log2: int, backend: str, pool: int, *, one: int = 7, many: int = 3,
        quick: bool = False) -> dict:
    """Return the marks (JSON-able)."""
    from cuzklab.calibrate import measure as M
    from cuzklab.calibrate.hostcheck import HostCheck
    from cuzklab.live import workload
    t0 = time.perf_counter()
    check = HostCheck(workload(log2, 0, backend, 1.0), pool)  # the checks' partitions, warm
    marks = []

    def calls(k: int) -> float:
        return M.b_g2_at_once(check.preps, check.work, check.pool, k)

    def mark(after: str) -> None:
        ones = [calls(1) for _ in range(one)]
        alls = [calls(check.calls) for _ in range(many)]
        marks.append({"after": after, "at_s": round(time.perf_counter() - t0, 2),
                      "one_call_s": round(statistics.median(ones), 6),
                      "one_call_range_s": [round(min(ones), 6), round(max(ones), 6)],
                      "calls_at_once_s": round(statistics.median(alls), 6)})
        m = marks[-1]
        print(f"{m['at_s']:7.1f} s  after {after:26s} one call {m['one_call_s'] * 1e3:6.1f} ms "
              f"({m['one_call_range_s'][0] * 1e3:.0f}-{m['one_call_range_s'][1] * 1e3:.0f}), "
              f"{check.calls} at once {m['calls_at_once_s'] * 1e3:7.1f} ms", flush=True)

    mark("the start")
    mark("the start, again")
    M.measure_cores(log2, backend=backend, counts=[1, 2] if quick else [1, 4, pool])
    mark("syntheses at once")
    M.measure_matvecs(log2, pool_threads=pool, backend=backend,
                      thread_counts=[1, 2] if quick else [1, 4, pool],
                      counts=[1, 2] if quick else [1, 4, 12], repeat=1)
    mark("MatVecs at once")
    M.measure_bandwidth(2 if quick else None, mib_per_thread=1 if quick else 64)
    mark("memory bandwidth")
    step = M.measure_b_g2_pool(log2, pool_threads=pool, backend=backend,
                               counts=[1, 2] if quick else None, repeat=1 if quick else 3)
    mark("the pool step")
    return {"benchmark": "b_g2_after_steps", "host": host(), "log2_constraints": log2,
            "backend": backend, "pool_threads": pool, "calls_at_once": check.calls,
            "medians_of": {"one_call": one, "calls_at_once": many},
            "pool_step_rows": step["rows"], "marks": marks}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=20, help="rows per partition 2^K (default 20)")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu",
                    help="where the keys are set up (b_g2_msm runs on the CPU either way)")
    ap.add_argument("--pool", type=int, default=16, help="b_g2_msm's pool threads (default 16)")
    ap.add_argument("--quick", action="store_true", help="2^6 on the CPU, a pool of 2, short steps")
    ap.add_argument("--json", type=Path, help="write the marks here")
    a = ap.parse_args(argv)
    if a.pool < 2:
        ap.error(f"--pool must be >= 2, got {a.pool}")
    if not 2 <= a.log2 <= 24:
        ap.error(f"--log2 must be in [2, 24], got {a.log2}")
    if a.quick:
        a.log2, a.backend, a.pool = 6, "cpu", 2
    res = run(a.log2, a.backend, a.pool, quick=a.quick)
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
        print(f"json: {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
