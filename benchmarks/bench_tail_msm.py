"""The prover's tail MSMs at their real shapes, timed on the GPU, every result checked exact.

    python benchmarks/bench_tail_msm.py [--g1 1340059,1336355,339712] [--g2 339712]
        [--windows 14,15,16] [--g1-rounds default,0,3] [--g2-windows 12,13,14] [--g2-rounds 0,2,3]
        [--repeats 5]
        --json tails.json

At 2^24 constraints the PoRep-shaped circuit leaves tails (scalars other than
0 and 1) of ~1.34 M (L), ~1.34 M (A) and ~0.34 M (B) points: the three G1 tails
are stage tail_msm, the B tail in G2 is b_g2_msm. For each G1 window and
rounds setting (``default``: the module's thresholds decide, which run the
rounds for ``msm_many``'s total and not for one tail; a number: that many
rounds for both, the threshold lowered) this times the three tails as one
``msm_many`` (one sort, buckets per tail) against three ``msm`` calls one
after another, with the phases of the ``msm_many`` run; for each G2 window and number of batch-affine rounds (``gpu.AFFINE_ROUNDS``,
the size threshold lowered so that they run), the G2 tail. Inputs are the
benchmark points (a seed per tail) and random scalars below 2^254, so each
result is compared with its exact value; CUDA-event medians after a warm-up.
Exits 1 when a result is wrong.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import gpu_available  # noqa: E402


def _ints(text: str, name: str, least: int = 1) -> list[int]:
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise SystemExit(f"bench_tail_msm: --{name}: expected comma-separated integers, "
                         f"got {text!r}") from None
    if not vals or min(vals) < least:
        raise SystemExit(f"bench_tail_msm: --{name}: expected integers >= {least}, got {text!r}")
    return vals


def _timed(fn, repeats: int):
    """Return (result, [seconds]) of ``fn`` run 1 + repeats times (CUDA events; first untimed)."""
    import cupy as cp
    out = fn()
    times = []
    for _ in range(repeats):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        out = fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
    return out, times


def _g1_row(out, gpu, pts, dev, want, c, rounds, repeats, sizes) -> bool:
    many, t_many = _timed(lambda: gpu.msm_many_gpu(pts, dev, c, glv=True), repeats)
    sep, t_sep = _timed(lambda: [gpu.msm_gpu(q, lb, c, glv=True) for q, lb in zip(pts, dev)], repeats)
    marks = []
    gpu.msm_many_gpu(pts, dev, c, marks=marks, glv=True)
    row = {"window": c, "rounds": "default" if rounds is None else rounds,
           "many_ms": statistics.median(t_many) * 1e3, "separate_ms": statistics.median(t_sep) * 1e3,
           "many_times_s": t_many, "separate_times_s": t_sep,
           "many_phases_ms": {k: v * 1e3 for k, v in gpu.phase_times(marks).items()},
           "checked": many == want and sep == want}
    out["g1"].append(row)
    print(f"G1 tails {sizes}, c = {c}, rounds {row['rounds']}: msm_many {row['many_ms']:.2f} ms, "
          f"separate {row['separate_ms']:.2f} ms, checked {row['checked']}; phases "
          + " ".join(f"{k}={v:.2f}" for k, v in row["many_phases_ms"].items()), flush=True)
    return row["checked"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--g1", default="1340059,1336355,339712", help="sizes of the G1 tails")
    p.add_argument("--g2", default="339712", help="size of the G2 tail")
    p.add_argument("--windows", default="14,15,16", help="G1 windows")
    p.add_argument("--g1-rounds", default="default,0,3",
                   help="'default' and/or numbers of batch-affine rounds of the G1 MSMs")
    p.add_argument("--g2-windows", default="12,13,14")
    p.add_argument("--g2-rounds", default="0,2,3", help="batch-affine rounds of the G2 MSM")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    g1_sizes, (g2_size,) = _ints(args.g1, "g1"), _ints(args.g2, "g2")[:1]
    windows, g2_windows = _ints(args.windows, "windows"), _ints(args.g2_windows, "g2-windows")
    g2_rounds = _ints(args.g2_rounds, "g2-rounds", 0)
    g1_rounds = [None if v.strip() == "default" else _ints(v, "g1-rounds", 0)[0]
                 for v in args.g1_rounds.split(",") if v.strip()]
    if args.repeats < 1:
        p.error(f"--repeats must be >= 1, got {args.repeats}")
    if not gpu_available():
        print("bench_tail_msm: no CUDA device (CuPy and a GPU are needed)", file=sys.stderr)
        return 2
    from cuzklab.backend import device_name, xp
    from cuzklab.msm import bench as B
    from cuzklab.msm import digits as D
    from cuzklab.msm import gpu
    cp = xp("gpu")
    out = {"benchmark": "tail_msm", "device": device_name("gpu"), "repeats": args.repeats,
           "g1_sizes": g1_sizes, "g2_size": g2_size, "g1": [], "g2": []}
    ok = True

    def save():
        if args.json:
            write_text(args.json, json.dumps(out, indent=1))

    pts = [B.bench_points("g1", n, "gpu", k + 1) for k, n in enumerate(g1_sizes)]
    limbs = [B.bench_scalars(n, k + 11) for k, n in enumerate(g1_sizes)]
    want = [B.expected("g1", lb, k + 1) for k, lb in enumerate(limbs)]
    dev = [cp.asarray(lb) for lb in limbs]
    saved = (dict(gpu.AFFINE_ROUNDS), dict(gpu.AFFINE_MIN_ENTRIES))
    try:
        for rounds in g1_rounds:
            if rounds is not None:
                gpu.AFFINE_ROUNDS = {**saved[0], "g1": rounds}
                gpu.AFFINE_MIN_ENTRIES = {**saved[1], "g1": 0}
            for c in windows:
                ok &= _g1_row(out, gpu, pts, dev, want, c, rounds, args.repeats, g1_sizes)
                save()
            gpu.AFFINE_ROUNDS, gpu.AFFINE_MIN_ENTRIES = dict(saved[0]), dict(saved[1])
    finally:
        gpu.AFFINE_ROUNDS, gpu.AFFINE_MIN_ENTRIES = saved
    del pts, dev
    q = B.bench_points("g2", g2_size, "gpu", 1)
    lb = B.bench_scalars(g2_size, 5)
    w2 = B.expected("g2", lb, 1)
    d2 = cp.asarray(lb)
    try:
        for rounds in g2_rounds:
            gpu.AFFINE_ROUNDS = {**saved[0], "g2": rounds}
            gpu.AFFINE_MIN_ENTRIES = {**saved[1], "g2": 0}
            for c in g2_windows:
                got, t = _timed(lambda: gpu.msm_gpu(q, d2, c), args.repeats)
                marks = []
                gpu.msm_gpu(q, d2, c, marks=marks)
                row = {"window": c, "rounds": rounds, "ms": statistics.median(t) * 1e3, "times_s": t,
                       "phases_ms": {k: v * 1e3 for k, v in gpu.phase_times(marks).items()},
                       "checked": got == w2,
                       "default_window": c == D.default_window(g2_size, "gpu", group="g2")}
                ok &= row["checked"]
                out["g2"].append(row)
                print(f"G2 tail {g2_size}, c = {c}, rounds {rounds}: {row['ms']:.2f} ms, checked "
                      f"{row['checked']}; phases "
                      + " ".join(f"{k}={v:.2f}" for k, v in row["phases_ms"].items()), flush=True)
                save()
    finally:
        gpu.AFFINE_ROUNDS, gpu.AFFINE_MIN_ENTRIES = saved
    save()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
