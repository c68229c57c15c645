"""Time prep_msm's two native passes alone, on one thread: classify, then gather.

    python benchmarks/bench_prep_passes.py --log2 22 --repeat 15 --json prep_passes.json

One 2^K-domain partition of the synthetic PoRep program (the witness program
with no extra witness work) gives the inputs, the aux values and the query
masks, as ``prep_msm`` would see them. The classify pass runs once to give the
codes and the offsets; then each pass is timed ``--repeat`` times, each time
over the whole index space as one range (``fr_classify``, ``fr_gather``:
what one pool task does, with no pool around it), and the gather's outputs
are checked against ``split_queries`` on the same values. Prints and writes
the minimum and median of each pass, and nanoseconds a value. On a host whose
speed drifts, compare builds by the minimum.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.native.bench import host, partition  # noqa: E402


def run(log2: int, repeat: int) -> dict:
    """Return the timings (JSON-able) of the two passes over one partition's values."""
    import cuzklab.native.split as S
    from cuzklab.native.build import library
    part = partition(log2, witness_work=0.0)
    out = part.synth
    inputs = np.ascontiguousarray(out.inputs.to("cpu").limbs)
    aux = np.ascontiguousarray(out.aux.to("cpu").limbs)
    ni, na = len(inputs), len(aux)
    n = ni + na
    masks = {"l": (np.zeros(ni, dtype=bool), None), "a": (None, out.a_aux_density),
             "b": (out.b_input_density, out.b_aux_density)}
    lib = library()
    mptr, _keep = S.mask_pointers(masks, ni, na)   # _keep: the masks outlive the calls
    codes = np.empty(n, dtype=np.uint8)
    counts = np.zeros((1, S.MAX_QUERIES, 3), dtype=np.int64)
    pin, pax = inputs.ctypes.data, aux.ctypes.data

    def classify():
        lib.fr_classify(pin, ni, pax, 0, n, 3, mptr, codes.ctypes.data, counts.ctypes.data)

    classify()
    split, totals, at = S.offsets(counts)
    split32 = split.astype(np.int32)
    outs, optr = S.output_arrays(list(masks), split, totals)

    def gather():
        lib.fr_gather(pin, ni, pax, 0, n, codes.ctypes.data, 3, split32.ctypes.data, at.ctypes.data, optr)

    got = {}
    for name, fn in (("classify", classify), ("gather", gather)):
        fn()
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        got[name] = {"min_ms": min(times) * 1e3, "median_ms": statistics.median(times) * 1e3,
                     "ns_per_value": min(times) * 1e9 / n, "times_s": times}
    want = S.split_queries(inputs, aux, masks, threads=1)
    checked = all(np.array_equal(o, w) for name in masks
                  for o, w in zip(outs[name][:3], want[name][:3]))
    return {"benchmark": "prep_passes", "host": host(), "log2_domain": log2, "values": n,
            "repeat": repeat, "passes": got, "checked": bool(checked),
            "note": "one thread, the whole index space as one range; min and median of wall seconds"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log2", type=int, default=20, help="log2 of the partition's domain (default 20)")
    ap.add_argument("--repeat", type=int, default=15, help="timed calls of each pass (default 15)")
    ap.add_argument("--json", default="", help="write the results here")
    args = ap.parse_args(argv)
    if not 4 <= args.log2 <= 26:
        ap.error(f"--log2: expected 4..26, got {args.log2}")
    if args.repeat < 1:
        ap.error(f"--repeat: expected >= 1, got {args.repeat}")
    res = run(args.log2, args.repeat)
    print(f"# prep_msm passes at 2^{args.log2} ({res['values']} values), one thread, {args.repeat} calls")
    for name, r in res["passes"].items():
        print(f"{name:9s} min {r['min_ms']:8.2f} ms  median {r['median_ms']:8.2f} ms  "
              f"{r['ns_per_value']:6.2f} ns/value")
    print(f"checked against split_queries: {res['checked']}")
    if args.json:
        write_text(args.json, json.dumps(res, indent=2) + "\n")
    return 0 if res["checked"] else 1


if __name__ == "__main__":
    sys.exit(main())
