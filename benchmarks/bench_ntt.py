"""Benchmark the Fr NTT: forward, inverse and coset transforms per size, JSON out.

    python benchmarks/bench_ntt.py --backend gpu --sizes 16-27 --json ntt.json

GPU figures are medians of CUDA-event timings with the data on the device,
after a warm-up (sizes up to 2^20 replay a recorded CUDA graph; --no-graphs
times plain launches); every timed run starts from the same input, and the timed
output is checked at sampled positions against direct evaluation of the
polynomial (no transform kernel involved), besides a round trip and the CPU
path at 2^12 in the same run. Exits 1 when any result is not checked equal.
The kernel build settings (``gpu.KERNEL_DEFINES``, from CUZKLAB_NTT_DEFINES)
are recorded in the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.ntt.bench import bench_ntt, random_input  # noqa: E402


def _sizes(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    p.add_argument("--sizes", default="16-27", help="log2 sizes, e.g. 16-27 or 10,12")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--variants", default="ntt,intt,coset_ntt,coset_intt")
    p.add_argument("--json", type=Path, default=None, help="write the results here")
    p.add_argument("--no-graphs", action="store_true",
                   help="plain launches at every size (cuzklab.ntt.gpu.GRAPHS = False)")
    args = p.parse_args(argv)
    if args.no_graphs:
        from cuzklab.ntt import gpu
        gpu.GRAPHS = False
    variants = {"ntt": (False, False), "intt": (False, True),
                "coset_ntt": (True, False), "coset_intt": (True, True)}
    chosen = [v for v in args.variants.split(",") if v]
    bad = [v for v in chosen if v not in variants]
    if bad:
        p.error(f"--variants: unknown {bad}; allowed {sorted(variants)}")
    results = []
    device = None
    print(f"{'log2':>4} {'variant':<11} {'median ms':>10} {'checked':>8}")
    for k in _sizes(args.sizes):
        data = random_input(k, args.backend)
        for v in chosen:
            coset, inverse = variants[v]
            try:
                r = bench_ntt(k, args.backend, coset=coset, inverse=inverse, repeats=args.repeats,
                              data=data)
            except Exception as exc:  # noqa: BLE001 - record and go on (e.g. out of memory)
                r = {"log2_size": k, "backend": args.backend, "error": f"{type(exc).__name__}: {exc}"}
                print(f"{k:>4} {v:<11} failed: {r['error']}", flush=True)
                results.append({"variant": v, **r})
                continue
            device = r["device"]
            results.append({"variant": v, **r})
            print(f"{k:>4} {v:<11} {r['median_s'] * 1e3:10.3f} {str(r['checked']):>8}", flush=True)
        del data
    out = {"benchmark": "ntt", "device": device, "backend": args.backend, "results": results}
    if args.backend == "gpu":
        from cuzklab.ntt import gpu
        out["kernel_defines"] = dict(gpu.KERNEL_DEFINES)
    if args.json:
        write_text(args.json, json.dumps(out, indent=1))
    return 0 if all(r.get("checked") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
