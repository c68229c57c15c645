#!/usr/bin/env python3
"""Model against live on the live executor's grid, and the contention curve, in one JSON.

    python benchmarks/bench_compare.py --profile NAME --log2-constraints 20 --backend gpu \\
        [--locks interlock,split_async] [--gw 1,2] [--pw 2,4,8] [--proofs 3] [--partitions 4] \\
        [--gpu-threads 16] [--contention 0,1,2,4,8,12] [--budget-s 400] --json out.json
    python benchmarks/bench_compare.py --quick --profile NAME   # CPU stand-ins at 2^6

Each grid point (lock x gw x pw) is simulated on the profile and run live
(``cuzklab.calibrate.compare_rows``); the JSON is rewritten after every point,
so a run cut short keeps what it measured. Rows the profile was fitted on are
marked ``fitted``; the verdict (targets: s/proof within 10 %, peak RSS within
15 %, the same bottleneck) counts only the others. Then the contention curve
(prep_msm and b_g2_msm beside 0..N syntheses, on the ``--gpu-threads`` pool)
is measured with the model's curve beside it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name  # noqa: E402
from cuzklab.calibrate.commands import format_curve  # noqa: E402
from cuzklab.calibrate.compare import compare_rows, format_table, jsonable, verdict  # noqa: E402
from cuzklab.calibrate.contention import contention_curve  # noqa: E402
from cuzklab.model import PipelineConfig, Profile  # noqa: E402


def _list(kind):
    def parse(text):
        vals = [kind(x) for x in text.split(",") if x.strip()]
        if not vals:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        return vals
    return parse


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--log2-constraints", type=int, default=20)
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    ap.add_argument("--locks", type=_list(str), default=["interlock", "split_async"])
    ap.add_argument("--gw", type=_list(int), default=[1, 2])
    ap.add_argument("--pw", type=_list(int), default=[2, 4, 8])
    ap.add_argument("--proofs", type=int, default=3)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--gpu-threads", type=int, default=16)
    ap.add_argument("--witness-work", type=float, default=1.0)
    ap.add_argument("--contention", type=_list(int), default=[0, 1, 2, 4, 8, 12])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--budget-s", type=float, default=400.0,
                    help="start no new grid point after this many seconds")
    ap.add_argument("--quick", action="store_true", help="CPU stand-ins at 2^6, pw 1-2, gw 1")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    if a.quick:
        a.backend, a.log2_constraints, a.pw, a.gw, a.proofs, a.partitions = "cpu", 6, [1, 2], [1], 2, 2
        a.gpu_threads, a.contention, a.repeat = 2, [0, 1, 2], 1
    prof = Profile.load(a.profile)
    out = {"benchmark": "compare", "device": device_name(a.backend), "backend": a.backend,
           "profile": prof.name, "calibration": prof.data.get("calibration", {}),
           "log2_constraints": a.log2_constraints, "proofs": a.proofs,
           "partitions": a.partitions, "gpu_threads": a.gpu_threads,
           "witness_work": a.witness_work, "rows": [], "skipped": [],
           "native_stages": "this version's native code (cuzklab/native)"}

    def save():
        if a.json:
            write_text(a.json, json.dumps(out, indent=1, default=str))

    t0 = time.perf_counter()
    for lock, gw, pw in itertools.product(a.locks, a.gw, a.pw):
        if time.perf_counter() - t0 > a.budget_s:
            out["skipped"].append({"lock": lock, "gw": gw, "pw": pw})
            continue
        cfg = PipelineConfig(proofs=a.proofs, concurrency=a.proofs, partitions=a.partitions,
                             partition_workers=pw, gpu_workers_per_device=gw, lock=lock,
                             gpu_threads=a.gpu_threads, memory_gib=754.0)
        row = compare_rows([cfg], profile=prof, log2_constraints=a.log2_constraints,
                           backend=a.backend, witness_work=a.witness_work)[0]
        out["rows"].append(row)
        out["verdict"] = verdict(out["rows"])
        save()
        e = row["error"]
        print(f"{lock:<12} gw={gw} pw={pw}: s/proof {row['model']['seconds_per_proof']:.3f} | "
              f"{row['live']['seconds_per_proof']:.3f} ({100 * e['seconds_per_proof']:+.1f} %), "
              f"RSS {row['model']['peak_rss_gib']:.2f} | {row['live']['peak_rss_gib']:.2f} "
              f"({100 * e['peak_rss_gib']:+.1f} %), {row['model']['bottleneck']} | "
              f"{row['live']['bottleneck']}" + (" [fitted]" if row["fitted"] else ""), flush=True)
    print(format_table(jsonable(out)))
    if a.contention:
        curve = contention_curve(prof, a.log2_constraints, a.contention,
                                 pool_threads=a.gpu_threads, backend=a.backend,
                                 repeat=a.repeat, witness_work=a.witness_work)
        out["contention"] = curve
        save()
        print(format_curve(curve))
    out["elapsed_s"] = round(time.perf_counter() - t0, 2)
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
