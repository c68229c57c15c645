"""Time one partition's GPU region alone and beside the loads a live run puts on the host.

    python benchmarks/bench_region_load.py --log2 20 --json region-load.json

The region is ntt_h, batch_add and tail_msm of one partition from device-resident
inputs, driven by this process's main thread (``cuzklab.calibrate.measure``'s
region). It is timed (median, min and max of ``--repeat``) alone, then beside:

* ``mv<N>``: N syntheses in a loop (witness work 0, so each is its MatVec), their
  MatVecs on one shared pool of ``--pool`` native threads, as a live run's are;
* ``mv<N>_bg2``: the same, and b_g2_msm calls back to back on the stage pool;
* ``bg2``: b_g2_msm calls alone;
* ``..._nice``: the same loads with every other thread of the process at nice 10,
  so that the region's thread wins the cores whenever it is runnable;
* ``burn<K>``: K native threads of Fr products that hold the interpreter's lock
  only between calls tens of milliseconds long (``measure_gpu_host``).

Where the region beside the pools takes much longer than beside as many GIL-free
threads, what slows it is the interpreter's lock and the waits to be scheduled
again after each hand-off, not its share of the cores. GPU backend only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402


def _timed(fn, repeat: int) -> dict:
    xs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        xs.append(time.perf_counter() - t)
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}


def _renice_others(value: int) -> int:
    """Set every thread of this process but the calling one to nice ``value``; return how many."""
    me, done = threading.get_native_id(), 0
    for tid in os.listdir("/proc/self/task"):
        if int(tid) != me:
            try:
                os.setpriority(os.PRIO_PROCESS, int(tid), value)
                done += 1
            except OSError:
                pass
    return done


def run(log2: int, syntheses: list[int], pool: int, repeat: int, burners: list[int]) -> dict:
    """Return the region's times alone and beside each load (JSON-able)."""
    from cuzklab.calibrate.measure import _gpu_region, measure_gpu_host
    from cuzklab.live import work as W
    from cuzklab.live import workload
    from cuzklab.live.sync import switch_interval
    from cuzklab.native.pool import NativePool
    from cuzklab.stages import StageClock

    work = workload(log2, 0, "gpu", 0.0)
    out = W.synthesize(work, 0, 0, StageClock(), pool)
    po = W.prep(out, StageClock())
    region = _gpu_region(work, out, po)
    region()  # untimed: the kernels' first launch
    mpool = NativePool(pool, "region-load-matvec")
    res = {"log2_constraints": log2, "pool_threads": pool, "repeat": repeat}

    def loaded(n_synth: int, with_bg2: bool, nice: int) -> dict:
        stop = threading.Event()

        def synth_loop(i):
            k = 0
            while not stop.is_set():
                W.synthesize(work, 1 + i, k % 50, StageClock(), pool, mpool)
                k += 1

        def b_g2_loop():
            while not stop.is_set():
                W.b_g2(po, work, StageClock(), pool)

        ts = [threading.Thread(target=synth_loop, args=(i,), daemon=True)
              for i in range(n_synth)]
        if with_bg2:
            ts.append(threading.Thread(target=b_g2_loop, daemon=True))
        for t in ts:
            t.start()
        time.sleep(1.0)  # let the load get going
        reniced = _renice_others(nice) if nice else 0
        try:
            got = _timed(region, repeat)
        finally:
            stop.set()
            for t in ts:
                t.join()
            if nice:
                _renice_others(0)
        return {**got, "reniced": reniced}

    with switch_interval():  # as a live run: the interpreter's 0.1 ms switch interval
        res["region_alone"] = _timed(region, repeat)
        print(f"alone: {res['region_alone']['median'] * 1e3:.1f} ms", flush=True)
        for n in syntheses:
            for with_bg2 in (False, True):
                for nice in (0, 10):
                    key = f"mv{n}" + ("_bg2" if with_bg2 else "") + ("_nice" if nice else "")
                    res[key] = loaded(n, with_bg2, nice)
                    print(f"{key}: {res[key]['median'] * 1e3:.1f} ms", flush=True)
        res["bg2"] = loaded(0, True, 0)
        print(f"bg2: {res['bg2']['median'] * 1e3:.1f} ms", flush=True)
        for k in burners:
            res[f"burn{k}"] = measure_gpu_host(log2, backend="gpu", load_threads=k, repeat=repeat)
            print(f"burn{k}: x{res[f'burn{k}']['slowdown']:.2f}", flush=True)
    return res


def _ints(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers such as 4,12, got {text!r}") from None
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"expected integers >= 1, got {text!r}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=20, help="rows per partition, 2^K (default 20)")
    ap.add_argument("--syntheses", type=_ints, default=[4, 12],
                    help="MatVec syntheses of the loads (default 4,12)")
    ap.add_argument("--pool", type=int, default=16, help="threads of the MatVec and stage pools")
    ap.add_argument("--burners", type=_ints, default=[15, 32],
                    help="GIL-free native threads of the burner loads (default 15,32)")
    ap.add_argument("--repeat", type=int, default=7, help="regions timed per load (median)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    if not 8 <= a.log2 <= 26:
        ap.error(f"--log2 must be in [8, 26], got {a.log2}")
    if a.repeat < 1 or a.pool < 1:
        ap.error(f"--repeat and --pool must be >= 1, got {a.repeat} and {a.pool}")
    from cuzklab.backend import device_name, gpu_available
    if not gpu_available():
        print("bench_region_load: needs a CUDA GPU with CuPy (the region is GPU work)",
              file=sys.stderr)
        return 2
    res = {"benchmark": "region_load", "device": device_name("gpu"),
           **run(a.log2, a.syntheses, a.pool, a.repeat, a.burners)}
    alone = res["region_alone"]["median"]
    for k, v in res.items():
        if isinstance(v, dict) and "median" in v and k != "region_alone":
            v["slowdown"] = v["median"] / alone
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
