#!/usr/bin/env python3
"""The host's combination of an MSM's window sums (``cuzklab.msm.combine``), timed on the CPU.

    python benchmarks/bench_combine.py [--shapes g1:8:16,g1:7:19,g2:17:15] [--repeats 200]
        [--json combine.json]

Each shape is group:windows:c, as the GPU MSM leaves them (G1 with GLV at
2^20-2^24: 8 windows of 16 bits; at 2^26: 7 of 19; G2 at 2^20: 17 of 15).
The window sums are multiples of the generator in XYZZ with random scalings;
every result is checked against sum_w 2^(c w) W_w from the reference
formulas. Prints the median per shape (on Python ints; and the whole step
from the device's XYZZ limbs to the affine point, on Python ints and in
native code) and writes JSON (CPU, shapes, medians). Exits 1 when a result
is wrong. This step runs on the host after the GPU's reduction, so its time
is part of every GPU MSM's.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name  # noqa: E402
from cuzklab.curve import reference as ref  # noqa: E402
from cuzklab.field.constants import P, R  # noqa: E402
from cuzklab.msm.combine import combine_windows  # noqa: E402


def _shapes(text: str) -> list[tuple[str, int, int]]:
    out = []
    for part in (t.strip() for t in text.split(",") if t.strip()):
        bits = part.split(":")
        try:
            group, nwin, c = bits[0], int(bits[1]), int(bits[2])
        except (IndexError, ValueError):
            raise SystemExit(f"bench_combine: --shapes: expected group:windows:c, got {part!r}") from None
        if group not in ("g1", "g2") or nwin < 1 or not 1 <= c <= 32:
            raise SystemExit(f"bench_combine: --shapes: group g1 or g2, windows >= 1, c in 1..32; got {part!r}")
        out.append((group, nwin, c))
    if not out:
        raise SystemExit("bench_combine: --shapes: give at least one group:windows:c")
    return out


def _windows(group: str, nwin: int, rng: random.Random):
    F = ref.field_of(group)
    ks = [rng.randrange(1, R) for _ in range(nwin)]
    pts = []
    for k in ks:
        x, y = ref.affine_mul(group, ref.generator(group), k)
        z = rng.randrange(1, P) if group == "g1" else (rng.randrange(1, P), rng.randrange(P))
        zz = F.sqr(z)
        pts.append((F.mul(x, zz), F.mul(y, F.mul(zz, z)), zz, F.mul(zz, z)))
    return ks, pts


def _median(fn, repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def bench(group: str, nwin: int, c: int, repeats: int, seed: int = 1) -> dict:
    """Time the combination of ``nwin`` window sums: on Python ints, and the whole step from the device's limbs.

    ``median_s``: ``combine_windows`` over Python-int tuples; ``python_from_limbs_s``:
    the same after ``_xyzz_to_points`` (what the GPU MSM ran before);
    ``native_from_limbs_s``: ``gpu.combine_sums`` with the native library (None
    where it does not build). Every result is checked.
    """
    from cuzklab.msm import gpu
    from cuzklab.native.build import NativeBuildError, library
    rng = random.Random(seed)
    ks, pts = _windows(group, nwin, rng)
    total = sum(k << (c * w) for w, k in enumerate(ks)) % R
    want = ref.affine_mul(group, ref.generator(group), total)
    limbs = gpu.xyzz_limbs(group, pts)
    checked = combine_windows(group, pts, c).xy == want
    med, low = _median(lambda: combine_windows(group, pts, c), repeats)
    out = {"group": group, "windows": nwin, "c": c, "repeats": repeats, "median_s": med, "times_min_s": low}
    python = lambda: combine_windows(group, gpu._xyzz_to_points(group, limbs), c)  # noqa: E731
    checked &= python().xy == want
    out["python_from_limbs_s"] = _median(python, repeats)[0]
    try:
        lib = library()
    except NativeBuildError:
        lib = None
    if lib is not None:
        native = lambda: gpu._combine_native(lib, group, limbs, c)  # noqa: E731
        checked &= native().xy == want
        out["native_from_limbs_s"] = _median(native, repeats)[0]
    else:
        out["native_from_limbs_s"] = None
    out["checked"] = bool(checked)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="g1:8:16,g1:7:19,g2:17:15")
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--json", default="bench_combine.json", help="output JSON path ('' for none)")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    shapes = _shapes(args.shapes)
    rows = []
    print(f"{'group':<6}{'windows':>8}{'c':>4}{'ints ms':>10}{'python ms':>11}{'native ms':>11}  checked"
          "   (python / native: from the device's limbs to the affine point)")
    for g, nwin, c in shapes:
        r = bench(g, nwin, c, args.repeats)
        rows.append(r)
        nat = r["native_from_limbs_s"]
        nat_txt = f"{nat * 1e3:>11.3f}" if nat is not None else f"{'-':>11}"
        print(f"{g:<6}{nwin:>8}{c:>4}{r['median_s'] * 1e3:>10.3f}{r['python_from_limbs_s'] * 1e3:>11.3f}"
              f"{nat_txt}  {r['checked']}")
    report = {"benchmark": "msm_combine", "device": device_name("cpu"),
              "python": platform.python_version(), "results": rows}
    if args.json:
        write_text(args.json, json.dumps(report, indent=2))
        print(f"wrote {args.json}")
    return 0 if all(r["checked"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
