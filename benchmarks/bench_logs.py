"""Time the daemon-log parser on generated 100-proof logs (newest and phase-9 formats).

The logs come from the sample writer of the tests (the same schedule and formats as
data/samples/). Prints a table and writes JSON (machine, sizes, medians of wall and CPU
time; the CPU time is the figure to trust on a busy machine). Run from the source tree,
e.g. ``taskset -c 0 .venv/bin/python benchmarks/bench_logs.py --json out/bench_logs.json``.
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
from cuzklab.backend import host_info  # noqa: E402
from cuzklab.cuzk import parse_texts  # noqa: E402
from tests.cuzk.sample_writer import Run  # noqa: E402


def main(argv=None) -> int:
    """Run the benchmark; return the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--proofs", type=int, default=100, help="proofs in each log (default 100)")
    ap.add_argument("--repeats", type=int, default=3, help="timed parses per log (default 3)")
    ap.add_argument("--json", default=None, metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.proofs < 1:
        ap.error("--repeats and --proofs must be >= 1")
    results = []
    for era in ("head", "phase9"):
        run = Run(proofs=args.proofs, concurrency=15, seed=3, era=era).simulate()
        text = "\n".join(run.text()) + "\n"
        parse_texts({"warm-up": text})
        times, cpu = [], []
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            r = parse_texts({"log": text})
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        lines = r.stats.lines_read
        results.append({"era": era, "proofs": args.proofs, "lines": lines,
                        "spans": len(r.trace.spans), "malformed": r.stats.malformed,
                        "median_s": statistics.median(times), "min_s": min(times),
                        "cpu_median_s": statistics.median(cpu), "repeats": args.repeats,
                        "lines_per_cpu_s": lines / statistics.median(cpu)})
        print(f"{era:7s} {lines:6d} lines {len(r.trace.spans):6d} spans: wall median "
              f"{statistics.median(times):.3f} s, CPU median {statistics.median(cpu):.3f} s, "
              f"{lines / statistics.median(cpu):,.0f} lines per CPU second")
    out = {"benchmark": "parse_logs", **host_info(), "results": results}
    if args.json:
        write_text(args.json, json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
