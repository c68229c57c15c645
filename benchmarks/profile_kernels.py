#!/usr/bin/env python3
"""Run the GPU NTT and MSM once each after a warm-up, for a profiler to watch.

    ncu --clock-control none --launch-skip-before-match 0 -k regex:'ntt_dif|msm_accumulate' \\
        python benchmarks/profile_kernels.py --ntt 16,24 --msm 20

Each NTT size runs a forward transform (natural order) twice, each MSM size
a G1 MSM (points on the device) twice, with a ``cudaProfilerStart`` /
``cudaProfilerStop`` pair around the second run, so that ``ncu
--profile-from-start off`` sees only warm kernels. Results are checked: the
NTT at sampled positions against direct evaluation, the MSM against the
exact result.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t.strip()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ntt", default="16,24", help="log2 sizes of forward NTTs ('' for none)")
    ap.add_argument("--msm", default="20", help="log2 sizes of G1 MSMs ('' for none)")
    ap.add_argument("--msm-window", type=int, default=None, metavar="C",
                    help="window size of the MSMs (default: the measured table's)")
    args = ap.parse_args(argv)
    if args.msm_window is not None and not 2 <= args.msm_window <= 24:
        ap.error(f"--msm-window must be in 2..24, got {args.msm_window}")
    import cupy as cp
    from cupy.cuda import profiler

    from cuzklab.field import Fr
    from cuzklab.msm import bench as MB
    from cuzklab.msm import digits as D
    from cuzklab.msm import gpu as msm_gpu
    from cuzklab.ntt import gpu
    from cuzklab.ntt.bench import check_entries, random_input
    ok = True
    for k in _ints(args.ntt):
        a = random_input(k, "gpu", seed=k)
        x = a.limbs.copy()
        gpu.transform_inplace(x, k, inverse=False, coset=False)
        x[...] = a.limbs
        cp.cuda.Device().synchronize()
        profiler.start()
        gpu.transform_inplace(x, k, inverse=False, coset=False)
        cp.cuda.Device().synchronize()
        profiler.stop()
        good, total = check_entries(a, Fr.from_mont_limbs(x, check=False), inverse=False, coset=False)
        ok &= good == total
        print(f"ntt 2^{k}: {good}/{total} entries checked", flush=True)
    for k in _ints(args.msm):
        n = 1 << k
        limbs = MB.bench_scalars(n)
        want = MB.expected("g1", limbs)
        pts = MB.bench_points("g1", n, "gpu")
        dl = cp.asarray(limbs)
        c = args.msm_window or D.default_window(n, "gpu", glv=msm_gpu.use_glv("g1", n, None), group="g1")
        msm_gpu.msm_gpu(pts, dl, c)
        cp.cuda.Device().synchronize()
        profiler.start()
        got = msm_gpu.msm_gpu(pts, dl, c)
        cp.cuda.Device().synchronize()
        profiler.stop()
        ok &= got == want
        print(f"msm g1 2^{k} c={c}: checked {got == want}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
