#!/usr/bin/env python3
"""GPU NTT plans timed side by side on one device, and where the time of a call goes.

    python benchmarks/tune_ntt.py [--sizes 16-24] [--low 8,10] [--tile 8,9,10] [--cols 0,1,2]
        [--upper 9] [--ept 2,4] [--radix2 0,1] [--variant ntt|coset_intt] [--repeats R] [--json out.json]
        [--kernels "base;CUZK_FR_MUL_EO=0;NTT_TWF64=1"] [--graph]

``--kernels`` repeats everything per kernel build (``gpu.KERNEL_DEFINES``;
every build's output is compared with the first build's); ``--graph`` times
the plans by CUDA-graph replays (the kernels alone, as ``transform_inplace``
runs sizes up to ``gpu.GRAPH_MAX_LOG2``) instead of events around the call.
An empty ``--low ""`` times only each build's default plan.

For every size, every plan (last-pass bits ``--low``, tile bits ``--tile``
of the other passes, their most bits ``--upper``, rows per block of the
last pass ``--cols``), every
``gpu.ELEMS_PER_THREAD`` (``--ept``) and both in-tile stage kinds
(``--radix2``: 1 for one radix-2 stage per sync, 0 for radix-4 units; see
``gpu.RADIX2_MAX_LOG2``) runs ``gpu.dif_inplace`` over the same
input, natural order in and out, and records the CUDA-event median after a
warm-up. Every output is compared with the default plan's output, which is
itself checked at sampled positions against direct evaluation
(``cuzklab.ntt.bench.check_entries``). Per size it also records the host
time of issuing one call (no synchronization) and, where CuPy can capture
the call into a CUDA graph, the median of graph replays: the time the
kernels alone take, so that event time minus graph time is what the host
adds. The JSON is rewritten after each size. The multiplier follows
``CUZKLAB_MUL`` (e.g. ``CUZKLAB_MUL=fr=cios`` for the integer one).
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402


#: Shared memory one block may opt in to on an H100/H200 (227 KiB).
SMEM_MAX = 227 * 1024


def _ints(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi) + 1))
        elif part.strip():
            out.append(int(part))
    return out


def _events(fn, repeats: int, restore) -> list[float]:
    import cupy as cp
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        restore()
        cp.cuda.Device().synchronize()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return times


def _graph_median(fn, repeats: int):
    """Return the median of CUDA-graph replays of ``fn`` (None when capture fails)."""
    import cupy as cp
    try:
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            fn()  # the pool holds the blocks the call needs before capture starts
            s.synchronize()
            s.begin_capture()
            fn()
            g = s.end_capture()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        g.launch(stream=s)
        times = []
        for _ in range(repeats):
            start.record(s)
            g.launch(stream=s)
            stop.record(s)
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        return statistics.median(times)
    except Exception as exc:  # noqa: BLE001 - recorded, the plan timings stand on their own
        return f"{type(exc).__name__}: {exc}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16-24")
    ap.add_argument("--low", default="8,10", help="bits of the last pass")
    ap.add_argument("--tile", default="8,9,10", help="log2 elements per tile of the other passes")
    ap.add_argument("--cols", default="0,1,2", help="log2 rows per block of the last pass")
    ap.add_argument("--upper", default="9", help="most bits of a pass other than the last (plan.UPPER_BITS)")
    ap.add_argument("--ept", default="2,4", help="elements per thread (gpu.ELEMS_PER_THREAD)")
    ap.add_argument("--radix2", default="0,1", help="1: radix-2 in-tile stages, 0: radix-4 units")
    ap.add_argument("--variant", choices=["ntt", "coset_intt"], default="ntt")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", default="tune_ntt.json", help="output JSON path ('' for none)")
    ap.add_argument("--graph", action="store_true",
                    help="time each plan by CUDA-graph replays (kernel time) instead of events around the call")
    ap.add_argument("--kernels", default="base",
                    help="kernel builds to time, ';'-separated: 'base' (gpu.KERNEL_DEFINES as set) or "
                         "NAME=V[,NAME=V] -D settings of cuda/ntt.cu, e.g. 'base;NTT_TWF64=1;NTT_TWF64=1,NTT_MINB=2'")
    args = ap.parse_args(argv)
    try:
        sizes, lows, tiles, colss, epts, r2s, uppers = (
            _ints(t) for t in (args.sizes, args.low, args.tile, args.cols, args.ept, args.radix2, args.upper))
    except ValueError as exc:
        ap.error(f"sizes and plan settings are comma-separated ints or ranges: {exc}")
    if args.repeats < 1 or not sizes or any(k < 2 or k > 27 for k in sizes):
        ap.error("--repeats must be >= 1 and --sizes in [2, 27]")
    import cupy as cp

    from cuzklab.backend import device_name
    from cuzklab.field import Fr
    from cuzklab.ntt import gpu
    from cuzklab.ntt.bench import check_entries, random_input
    from cuzklab.ntt.plan import plan_passes

    inverse = coset = args.variant == "coset_intt"
    default_defines = dict(gpu.KERNEL_DEFINES)
    kernels = []
    for spec in filter(None, (t.strip() for t in args.kernels.split(";"))):
        if spec == "base":
            kernels.append(("base", dict(default_defines)))
            continue
        try:
            defs = {n.strip(): int(v) for n, v in (kv.split("=") for kv in spec.split(","))}
        except ValueError:
            ap.error(f"--kernels: {spec!r} is not NAME=V[,NAME=V]")
        kernels.append((spec, {**default_defines, **defs}))
    from cuzklab.field.cuda import multipliers
    report = {"benchmark": "tune_ntt", "device": device_name("gpu"), "variant": args.variant,
              "repeats": args.repeats, "multiplier": multipliers()["fr"],
              "default_ept": gpu.ELEMS_PER_THREAD, "default_radix2_max_log2": gpu.RADIX2_MAX_LOG2,
              "default_defines": dict(gpu.KERNEL_DEFINES), "plan_timing": "graph" if args.graph else "events",
              "sizes": []}
    default_ept, default_r2 = gpu.ELEMS_PER_THREAD, gpu.RADIX2_MAX_LOG2
    print(f"{'log2':>4} {'low':>4} {'tile':>4} {'up':>4} {'cols':>4} {'ept':>4} {'r2':>3} {'median ms':>10} {'same':>5}")
    for k in sizes:
        a = random_input(k, "gpu", seed=k)
        x = cp.empty_like(a.limbs)
        pre, post, scale = gpu._factors(k, inverse, coset)

        def restore():
            x[...] = a.limbs

        def run(passes=None, cols=None):
            gpu.dif_inplace(x, k, inverse=inverse, natural_output=True, pre_powers=pre,
                            post_powers=post, scale=scale, passes=passes, last_cols=cols)

        want = None
        for kname, kdefs in kernels:
            gpu.KERNEL_DEFINES = dict(kdefs)
            try:
                restore()
                run()
                if want is None:  # the first kernel build's output, checked by direct evaluation
                    want = x.copy()
                    good, total = check_entries(a, Fr.from_mont_limbs(want, check=False),
                                                inverse=inverse, coset=coset, seed=k)
                same_default = bool(cp.array_equal(x, want))
                default_times = _events(run, args.repeats, restore)
                restore()
                t0 = time.perf_counter()
                run()
                host_s = time.perf_counter() - t0
                cp.cuda.Device().synchronize()
                graph = _graph_median(run, args.repeats)
            except Exception as exc:  # noqa: BLE001 - record and go on
                print(f"{k:>4} kernel {kname} failed: {type(exc).__name__}: {exc}", flush=True)
                report["sizes"].append({"log2_size": k, "kernel": kname, "defines": dict(kdefs),
                                        "error": f"{type(exc).__name__}: {exc}"})
                continue
            entry = {"log2_size": k, "kernel": kname, "defines": dict(kdefs),
                     "default_median_s": statistics.median(default_times),
                     "default_times_s": default_times, "default_same": same_default,
                     "host_issue_s": host_s, "graph_median_s": graph,
                     "entries_checked": good, "entries": total, "plans": []}
            gshow = f"{graph * 1e3:.4f} ms" if isinstance(graph, float) else graph
            print(f"{k:>4} kernel {kname}: default {entry['default_median_s'] * 1e3:.4f} ms, host issue "
                  f"{host_s * 1e6:.0f} us, graph replay {gshow}, same {same_default}, entries {good}/{total}",
                  flush=True)
            seen = set()
            for low, tile, upper, cols, ept, r2 in itertools.product(lows, tiles, uppers, colss, epts, r2s):
                if low > k or upper > tile:
                    continue
                passes = plan_passes(k, low_bits=low, tile_bits=tile, upper_bits=upper)
                plan_id = (tuple(passes), min(cols, k - passes[-1].b), ept, r2)
                tiles_el = [p.tile for p in passes[:-1]] + [passes[-1].tile << plan_id[1]]
                smem = max((t + (1 << p.b) // 2) * 32 for t, p in zip(tiles_el, passes))
                if plan_id in seen or smem > SMEM_MAX:  # the same launches again, or too large a tile
                    continue
                seen.add(plan_id)
                row = {"low": low, "tile": tile, "upper": upper, "cols": cols, "ept": ept, "radix2": bool(r2),
                       "passes": [[p.lo, p.b, p.c] for p in passes]}
                tag = f"{k:>4} {low:>4} {tile:>4} {upper:>4} {cols:>4} {ept:>4} {r2:>3}"
                try:
                    gpu.ELEMS_PER_THREAD = ept
                    gpu.RADIX2_MAX_LOG2 = 27 if r2 else 0
                    if args.graph:
                        med = _graph_median(lambda: run(passes, cols), args.repeats)
                        if not isinstance(med, float):
                            raise RuntimeError(med)
                        row.update(median_s=med, timing="graph")
                    else:
                        times = _events(lambda: run(passes, cols), args.repeats, restore)
                        row.update(median_s=statistics.median(times), times_s=times, timing="events")
                    restore()
                    run(passes, cols)
                    row.update(same=bool(cp.array_equal(x, want)))
                    print(f"{tag} {row['median_s'] * 1e3:10.4f} {str(row['same']):>5}", flush=True)
                except Exception as exc:  # noqa: BLE001 - record and go on
                    row["error"] = f"{type(exc).__name__}: {exc}"
                    print(f"{tag} failed: {row['error']}", flush=True)
                finally:
                    gpu.ELEMS_PER_THREAD, gpu.RADIX2_MAX_LOG2 = default_ept, default_r2
                entry["plans"].append(row)
            ok = [r for r in entry["plans"] if r.get("same")]
            if ok:
                best = min(ok, key=lambda r: r["median_s"])
                entry["best"] = {key: best[key] for key in ("low", "tile", "upper", "cols", "ept", "radix2",
                                                             "median_s", "passes")}
                print(f"{k:>4} kernel {kname} best: low {best['low']} tile {best['tile']} upper {best['upper']} "
                      f"cols {best['cols']} ept {best['ept']} radix2 {best['radix2']}: "
                      f"{best['median_s'] * 1e3:.4f} ms", flush=True)
            report["sizes"].append(entry)
            if args.json:
                write_text(args.json, json.dumps(report, indent=1))
        gpu.KERNEL_DEFINES = dict(default_defines)
        del a, x, want
        gpu.clear_graphs()
        cp.get_default_memory_pool().free_all_blocks()
    bad = sorted({s["log2_size"] for s in report["sizes"]
                  if "error" in s or s["entries_checked"] != s["entries"] or not s["default_same"]
                  or any(r.get("same") is False for r in s["plans"])})
    if bad:
        print(f"results not checked equal at sizes {bad}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
