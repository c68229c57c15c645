#!/usr/bin/env python3
"""Fr / Fp Montgomery-multiply throughput (G mul/s) on the GPU and the CPU path.

    python benchmarks/bench_field.py [--backend gpu|cpu|both] [--log2-size K]
        [--cpu-log2-size K] [--chain k] [--ops mul,sqr] [--repeats R] [--json out.json]

GPU: k dependent multiplies (``--ops sqr``: squarings) per element, CUDA events after a warm-up, random
non-zero data, a sample checked against the CPU path. CPU: one vectorized
multiply at a small size. Prints a table and writes JSON (device, sizes, medians).
Exits 1 when a result was not checked (a mismatch stops the run with an error).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.backend import gpu_available  # noqa: E402
from cuzklab.field.bench import OPS, bench_field, format_table  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["gpu", "cpu", "both"], default="both")
    ap.add_argument("--log2-size", type=int, default=20, help="GPU batch size 2^K (default 20)")
    ap.add_argument("--cpu-log2-size", type=int, default=14, help="CPU batch size 2^K (default 14)")
    ap.add_argument("--chain", type=int, default=256, help="multiplies per element on the GPU")
    ap.add_argument("--ops", default="mul", help="comma-separated operations to time: mul, sqr")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", default="bench_field.json", help="output JSON path ('' for none)")
    args = ap.parse_args(argv)
    ops = tuple(t.strip() for t in args.ops.split(",") if t.strip())
    if not ops or any(o not in OPS for o in ops):
        ap.error(f"--ops: expected a comma-separated list of {', '.join(OPS)}, got {args.ops!r}")
    reports = []
    backends = ["gpu", "cpu"] if args.backend == "both" else [args.backend]
    for b in backends:
        if b == "gpu" and not gpu_available():
            print("gpu: skipped (no CUDA device / CuPy)")
            continue
        k = args.log2_size if b == "gpu" else args.cpu_log2_size
        rep = bench_field(b, k, args.repeats, args.chain if b == "gpu" else None, ops=ops)
        print(format_table(rep))
        reports.append(rep)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"benchmark": "field_mont_mul", "reports": reports}, indent=2))
        print(f"wrote {args.json}")
    unchecked = [f"{rep['backend']} {r['field']} {r['op']}" for rep in reports for r in rep["results"] if not r["checked"]]
    if unchecked:
        print(f"not checked: {', '.join(unchecked)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
