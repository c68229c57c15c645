#!/usr/bin/env python3
"""Live runs over a grid of configurations, and the live executor's own overhead.

    python benchmarks/bench_live.py [--log2-constraints 20] [--backend gpu]
        [--locks interlock,split_async] [--gw 1,2] [--pw 2,4,8]
        [--gpus 1] [--proofs 3] [--partitions 4] [--repeats 1] [--witness-work 1]
        [--budget-s 540]
        [--no-verify] [--json out.json]
    python benchmarks/bench_live.py --quick      # CPU stand-ins at 2^4, a few seconds a run

Each grid point (lock x gpu_workers_per_device x partition_workers) is run
with ``cuzklab.live.run`` ``repeats`` times; the table gives the median
s/proof, peak RSS, GPU busy fraction, the bottleneck verdict, how many
partition proofs passed the pairing check, and the executor overhead.

Each row also gives, over the run's prep_msm calls (means), the call's own
milliseconds, its thread's CPU milliseconds meanwhile, and the times that
thread was switched out while runnable and waited (for the interpreter's
lock, another lock, a page): a prep_msm slower than alone with its CPU time
as long ran slower on a core; with it short, it lacked a core or waited
(with its passes on the b_g2_msm pool's queue, the thread that asked for
them only waits, and its CPU time is that of its own Python code).

Overhead, as defined in ``cuzklab.live.report``: over each partition's life
(submission to its epilogue's end), the time covered by no span -- neither a
stage at work nor a wait the configuration implies (admission queue, GPU
queue, mutex, barrier) -- summed over partitions and divided by their summed
lives. It is what the executor itself costs: thread hand-offs, lock and
queue wake-ups, Python between stages.

An untimed run of one partition comes first (``--no-warmup`` skips it): on a
fresh host it compiles the GPU kernels of the size, outside every point.
Points are run in order until ``--budget-s`` seconds have passed; the rest
are listed as skipped (so one run of bounded length always returns
a table). Writes JSON with the device, the sizes and every figure, after
every point (``complete`` is false until the grid is done).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pathlib
import platform
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name  # noqa: E402
from cuzklab.live import run as run_live  # noqa: E402
from cuzklab.live import workload  # noqa: E402
from cuzklab.live.report import live_summary  # noqa: E402
from cuzklab.model import PipelineConfig  # noqa: E402


def _ints(text: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"expected integers >= 1, got {text!r}")
    return vals


def _locks(text: str) -> list[str]:
    from cuzklab.model.config import LOCKS
    vals = [x.strip() for x in text.split(",") if x.strip()]
    bad = [v for v in vals if v not in LOCKS]
    if bad or not vals:
        raise argparse.ArgumentTypeError(f"locks must be among {', '.join(LOCKS)}, got {text!r}")
    return vals


def _median(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 4) if xs else None


def bench_point(cfg: PipelineConfig, k: int, backend: str, repeats: int, verify: bool,
                witness_work: float = 1.0) -> dict:
    """Return the figures of one grid point (medians over ``repeats`` runs)."""
    from cuzklab.calibrate.compare import prep_steps_s
    runs, preps = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        trace = run_live(cfg, log2_constraints=k, backend=backend, progress=False,
                         verify=verify, witness_work=witness_work)
        s = live_summary(trace)
        s["elapsed_s"] = round(time.perf_counter() - t0, 3)
        runs.append(s)
        preps.append(prep_steps_s(trace) or {})
    last = runs[-1]
    ver = last.get("verification") or {}
    return {
        "gpus": cfg.gpus, "lock": cfg.lock, "gw": cfg.gpu_workers_per_device,
        "pw": cfg.partition_workers,
        "seconds_per_proof": _median([r["seconds_per_proof"] for r in runs]),
        "seconds_per_proof_runs": [r["seconds_per_proof"] for r in runs],
        "wall_s": _median([r["wall_s"] for r in runs]),
        "peak_rss_gib": _median([r["peak_rss_gib"] for r in runs]),
        "gpu_busy_fraction": _median([r["gpu_busy_fraction"] for r in runs]),
        "overhead_fraction": _median([r["overhead_fraction"] for r in runs]),
        "bottleneck": last["bottleneck"]["resource"], "why": last["bottleneck"]["why"],
        "utilization": (last["bottleneck"].get("evidence") or {}).get("utilization"),
        "gpu_region_s": (last["bottleneck"].get("evidence") or {}).get("gpu_region_s"),
        "verified": None if ver.get("skipped") else f"{ver.get('verified')}/{ver.get('checked')}",
        "failed": last["run_failed"], "failure_reason": last["failure_reason"],
        "stage_s": last["stage_s"], "runs": len(runs),
        "elapsed_s": _median([r["elapsed_s"] for r in runs]),
        "prep_steps_s": {key: _median([p.get(key) for p in preps])
                         for key in ("own", "thread_cpu", "preempted", "waited")},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2-constraints", type=int, default=20, metavar="K")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    ap.add_argument("--locks", type=_locks, default=["interlock", "split_async"])
    ap.add_argument("--gw", type=_ints, default=[1, 2], help="gpu_workers_per_device values")
    ap.add_argument("--pw", type=_ints, default=[2, 4, 8], help="partition_workers values")
    ap.add_argument("--gpus", type=_ints, default=[1], metavar="N[,N...]",
                    help="GPUs of each run (default 1); several values add a grid axis")
    ap.add_argument("--proofs", type=int, default=3)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--gpu-threads", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--witness-work", type=float, default=1.0, metavar="W",
                    help="extra witness work per constraint (0: MatVec only; default 1)")
    ap.add_argument("--budget-s", type=float, default=540.0,
                    help="start no new grid point this many seconds after the start "
                         "(set-up and warm-up included)")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--no-warmup", action="store_true",
                    help="skip the untimed one-partition run before the grid")
    ap.add_argument("--quick", action="store_true",
                    help="CPU stand-ins at 2^4, 2 proofs x 2 partitions, pw in {1, 2}")
    ap.add_argument("--json", default=None, metavar="OUT.json")
    a = ap.parse_args(argv)
    if a.quick:
        a.backend, a.log2_constraints, a.proofs, a.partitions = "cpu", 4, 2, 2
        a.pw, a.gpu_threads = [1, 2], 4
    from cuzklab.live import check_log2, check_witness_work
    check_log2(a.log2_constraints)
    check_witness_work(a.witness_work)
    t_setup = time.perf_counter()
    work = workload(a.log2_constraints, 0, a.backend, a.witness_work)
    setup_s = time.perf_counter() - t_setup
    warmup_s = None
    if not a.no_warmup:
        # one proof of one partition, untimed: the first run on a fresh host compiles the
        # GPU kernels of this size, which is no grid point's cost
        t_warm = time.perf_counter()
        run_live(PipelineConfig(proofs=1, concurrency=1, partitions=1, partition_workers=1,
                                gpu_workers_per_device=1, gpu_threads=a.gpu_threads,
                                memory_gib=754.0),
                 log2_constraints=a.log2_constraints, backend=a.backend, progress=False,
                 verify=False, witness_work=a.witness_work)
        warmup_s = round(time.perf_counter() - t_warm, 3)
    print(f"live bench: {device_name(a.backend)} ({a.backend}), 2^{a.log2_constraints} rows "
          f"({work.num_constraints:,} constraints) per partition, {a.proofs} proofs x "
          f"{a.partitions} partitions, gpu_threads={a.gpu_threads}, {os.cpu_count()} cores; "
          f"circuit and keys {setup_s:.1f} s"
          + ("" if warmup_s is None else f", warm-up run {warmup_s:.1f} s"), flush=True)
    head = (f"{'gpus':>4} {'lock':<12} {'gw':>2} {'pw':>3} {'s/proof':>8} "
            f"{'peak RSS':>9} {'GPU busy':>8} {'overhead':>8} {'verified':>8} "
            f"{'prep ms':>7} {'its CPU':>7} {'out':>5} {'waited':>6}  bottleneck")
    print(head)
    rows, skipped = [], []
    out = {"benchmark": "live", "device": device_name(a.backend), "backend": a.backend,
           "host": platform.node(), "cores": os.cpu_count(),
           "log2_constraints": a.log2_constraints, "constraints": work.num_constraints,
           "proofs": a.proofs, "partitions": a.partitions, "gpu_threads": a.gpu_threads,
           "witness_work": a.witness_work,
           "repeats": a.repeats, "setup_s": round(setup_s, 3), "warmup_s": warmup_s,
           "overhead_definition": "partition time covered by no span / partition lifetime",
           "rows": rows, "skipped": skipped, "complete": False}

    def write():
        if a.json:
            write_text(a.json, json.dumps(out, indent=1, default=str))
    t0 = t_setup  # the budget counts from the start: set-up and warm-up included
    for gpus, lock, gw, pw in itertools.product(a.gpus, a.locks, a.gw, a.pw):
        if time.perf_counter() - t0 > a.budget_s:
            skipped.append({"gpus": gpus, "lock": lock, "gw": gw, "pw": pw})
            continue
        cfg = PipelineConfig(proofs=a.proofs, concurrency=a.proofs, partitions=a.partitions,
                             partition_workers=pw, gpu_workers_per_device=gw, lock=lock,
                             gpus=gpus, gpu_threads=a.gpu_threads, memory_gib=754.0)
        r = bench_point(cfg, a.log2_constraints, a.backend, a.repeats, not a.no_verify,
                        a.witness_work)
        rows.append(r)
        write()  # after every point, so a run cut short keeps the points it finished

        def f(v, fmt):
            return "—" if v is None else format(v, fmt)
        ps = r["prep_steps_s"]
        ms = {key: ps[key] and 1000 * ps[key] for key in ("own", "thread_cpu")}
        print(f"{gpus:>4} {lock:<12} {gw:>2} {pw:>3} {f(r['seconds_per_proof'], '8.3f')} "
              f"{f(r['peak_rss_gib'], '8.2f')}G {f(r['gpu_busy_fraction'] and 100 * r['gpu_busy_fraction'], '7.0f')}% "
              f"{f(r['overhead_fraction'] and 100 * r['overhead_fraction'], '7.2f')}% "
              f"{r['verified'] or '—':>8} {f(ms['own'], '7.1f')} {f(ms['thread_cpu'], '7.1f')} "
              f"{f(ps['preempted'], '5.0f')} {f(ps['waited'], '6.0f')}  {r['bottleneck']}"
              + (f" (failed: {r['failure_reason']})" if r["failed"] else ""), flush=True)
    for s in skipped:
        print(f"{s['gpus']:>4} {s['lock']:<12} {s['gw']:>2} {s['pw']:>3}  skipped "
              f"(--budget-s {a.budget_s:g})")
    out["complete"] = True
    write()
    if a.json:
        print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
