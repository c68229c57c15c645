#!/usr/bin/env python3
"""Batch sums on the GPU (batch_add's sums of the bases whose scalar is 1), checked exact.

    python benchmarks/bench_batch_sum.py [--g1 20,24] [--g2 20,22] [--share 0.46]
        [--repeats R] [--hot] [--json out.json]

For each size 2^K: the benchmark points of cuzklab.msm.bench as the bases,
and the indices of a random ``--share`` of them (sorted, as prep_msm writes
them; at 2^24 constraints cuzk-shaped L and A have ~46 % of their scalars
equal to 1), then ``batch_sum(bases[idx])`` as the batch_add stage calls
it (the gather included), with ``--hot`` also with inline multiplications
in its G1 kernel (``gpu.HOT``), and ``batch_sum`` over all the bases.
CUDA-event medians after a warm-up. Every timed result is compared with the
exact sum (the points' construction makes it three scalar multiplications);
the script exits 1 if any differs. The JSON (device, sizes, every time,
medians, points summed a second) is rewritten after each size.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name, gpu_available  # noqa: E402


def _sizes(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t.strip()]


def variants(group: str, hot: bool) -> list[tuple[str, dict, bool]]:
    """Return (name, gpu settings, over the indices) of each timed variant; the first is the default."""
    from cuzklab.msm import gpu
    out = [("default", {}, True)]
    if hot and group == "g1":
        out.append(("hot", {"HOT": tuple(gpu.HOT) + ("msm_sum_affine",)}, True))
    out.append(("default_all", {}, False))
    return out


def bench_size(group: str, k: int, share: float, repeats: int, hot: bool = False,
               seed: int = 3) -> dict:
    """Return the timings of one size: each variant over idx, and the default over every point."""
    import cupy as cp

    from cuzklab.msm import batch_sum, gpu
    from cuzklab.msm import bench as B
    n = 1 << k
    pts = B.bench_points(group, n, "gpu")
    rng = np.random.default_rng(seed)
    host_idx = np.flatnonzero(rng.random(n) < share).astype(np.int64)
    idx = cp.asarray(host_idx)
    ones = np.zeros((n, 8), dtype=np.uint32)  # scalar limbs: 1 where a base is summed
    ones[host_idx, 0] = 1
    want_idx = B.expected(group, ones)
    ones[:, 0] = 1
    want_all = B.expected(group, ones)
    del ones
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    row = {"group": group, "log2_size": k, "points": n, "indexed": int(host_idx.size),
           "checked": True, "times_s": {}, "median_ms": {}}
    for name, setting, use_idx in variants(group, hot):
        saved = {key: getattr(gpu, key) for key in setting}
        for key, value in setting.items():
            setattr(gpu, key, value)
        try:
            want = want_idx if use_idx else want_all

            def summed():  # the gather prep_msm's indices ask for, then the sum
                return batch_sum(pts[idx] if use_idx else pts)
            row["checked"] &= summed() == want  # warm-up: compiles the kernels
            times = []
            for _ in range(repeats):
                cp.cuda.Device().synchronize()
                start.record()
                got = summed()
                stop.record()
                stop.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
                row["checked"] &= got == want
        finally:
            for key, value in saved.items():
                setattr(gpu, key, value)
        row["times_s"][name] = times
        row["median_ms"][name] = statistics.median(times) * 1e3
    row["summed_per_s"] = host_idx.size / (row["median_ms"]["default"] / 1e3)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--g1", default="20,22,24", help="comma-separated log2 sizes of G1 bases")
    ap.add_argument("--g2", default="20,22", help="comma-separated log2 sizes of G2 bases")
    ap.add_argument("--share", type=float, default=0.46, help="share of the bases summed (0..1]")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--hot", action="store_true",
                    help="also time the XYZZ groups with inline multiplications (G1)")
    ap.add_argument("--json", default="bench_batch_sum.json", help="output JSON path ('' for none)")
    args = ap.parse_args(argv)
    if not 0 < args.share <= 1:
        ap.error(f"--share must be in (0, 1], got {args.share}")
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    try:
        plan = [("g1", k) for k in _sizes(args.g1)] + [("g2", k) for k in _sizes(args.g2)]
    except ValueError:
        ap.error(f"--g1/--g2: expected comma-separated integers, got {args.g1!r} / {args.g2!r}")
    if any(not 10 <= k <= 26 for _, k in plan):
        ap.error("sizes must lie in 10..26")
    if not gpu_available():
        print("no CUDA device: nothing to measure", file=sys.stderr)
        return 2
    out = {"benchmark": "batch_sum", "device": device_name("gpu"), "share": args.share,
           "repeats": args.repeats, "rows": []}
    for group, k in plan:
        row = bench_size(group, k, args.share, args.repeats, args.hot)
        out["rows"].append(row)
        times = ", ".join(f"{name} {ms:.3f}" for name, ms in row["median_ms"].items())
        print(f"{group} 2^{k}: {row['indexed']} of {row['points']} summed; ms: {times}; "
              f"{row['summed_per_s'] / 1e9:.3f} G points/s; checked {row['checked']}", flush=True)
        if args.json:
            write_text(args.json, json.dumps(out, indent=1) + "\n")
    bad = [r for r in out["rows"] if not r["checked"]]
    if bad:
        print(f"NOT CHECKED EQUAL: {[(r['group'], r['log2_size']) for r in bad]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
