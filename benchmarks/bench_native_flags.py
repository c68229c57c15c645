#!/usr/bin/env python3
"""The native library built with other optimization flags: Fp2 products and a G2 MSM per flag set.

    python benchmarks/bench_native_flags.py [--flags="-O2;-O3"] [--points 8192] [--json out.json]

Each flag set replaces the optimization level of ``cuzklab.native.build.CFLAGS``;
the library is built into a temporary cache, then timed on one thread: a batch
of 2^18 Fp2 products (ns per product) and a G2 MSM of ``--points`` points
(us per point; median of 3). The results of every build are checked against
the default build's. Writes JSON with the host and every figure.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.native import build  # noqa: E402
from cuzklab.native.bench import host  # noqa: E402


def _load(flags: list[str], cache: str) -> ctypes.CDLL:
    os.environ["CUZKLAB_NATIVE_CACHE"] = cache
    build.CFLAGS = tuple(flags) + tuple(f for f in build.CFLAGS if not f.startswith("-O"))
    build.library.cache_clear()
    return build.library()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flags", default="-O2;-O3", help="flag sets separated by ';' (default -O2;-O3)")
    ap.add_argument("--points", type=int, default=8192)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    sets = [f.split() for f in a.flags.split(";") if f.strip()]
    if not sets or any(not s for s in sets):
        ap.error(f"--flags: expected flag sets separated by ';', got {a.flags!r}")
    if a.points < 1:
        ap.error(f"--points must be >= 1, got {a.points}")
    from cuzklab.field import Fp2, Fr
    from cuzklab.groth16.fixed_base import fixed_base_mul
    from cuzklab.native import msm_g2
    rng = np.random.default_rng(4)
    n = 1 << 18
    x, y = Fp2.random(n, rng), Fp2.random(n, rng)
    bases = fixed_base_mul("g2", Fr.random(a.points, rng), "cpu")
    scalars = Fr.random(a.points, rng)
    default_flags = build.CFLAGS
    rows, ref = [], None
    with tempfile.TemporaryDirectory(prefix="cuzklab-flags-") as tmp:
        for i, flags in enumerate(sets):
            lib = _load(flags, os.path.join(tmp, str(i)))
            out = np.empty_like(x.limbs)
            times = []
            for _ in range(3):
                t = time.perf_counter()
                lib.fp2_mul_batch(x.limbs.ctypes.data, y.limbs.ctypes.data, 0, n, out.ctypes.data)
                times.append(time.perf_counter() - t)
            g2_times, point = [], None
            for _ in range(3):
                t = time.perf_counter()
                point = msm_g2.g2_msm(bases, scalars, threads=1)
                g2_times.append(time.perf_counter() - t)
            if ref is None:
                ref = (out.copy(), point)
            ok = bool(np.array_equal(out, ref[0]) and point == ref[1])
            rows.append({"flags": " ".join(flags), "fp2_mul_ns": statistics.median(times) / n * 1e9,
                         "g2_msm_us_per_point": statistics.median(g2_times) / a.points * 1e6,
                         "same_results": ok})
            print(f"{' '.join(flags):<24} Fp2 product {rows[-1]['fp2_mul_ns']:7.1f} ns   G2 MSM "
                  f"{rows[-1]['g2_msm_us_per_point']:7.1f} us/point ({a.points} points, 1 thread)"
                  f"{'' if ok else '   RESULTS DIFFER'}", flush=True)
    build.CFLAGS = default_flags
    res = {"benchmark": "native_flags", "host": host(), "points": a.points, "fp2_batch": n,
           "rows": rows}
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
    return 0 if all(r["same_results"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
