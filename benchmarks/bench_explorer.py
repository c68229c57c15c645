#!/usr/bin/env python3
"""How fast the explorer redraws when a control moves, and figure build times.

    python benchmarks/bench_explorer.py [--proofs 20] [--repeats 15] [--json out.json]

A control change runs the source (the simulator), the summary, and the
in-place update of the figures. The script times each part over ``repeats``
changes of the lock strategy: with the explorer's kept runs turned off
(``cache_size=0``), so every change simulates anew, without and with a pinned
comparison; and with them on, where the two alternating configurations are
drawn from the kept runs. It also times building the timeline figure for
10^3..10^5 spans (what Python sends; the browser's drawing is not timed
here). Prints medians and writes JSON (CPU, load average before and after,
sizes, medians, p90).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.backend import device_name  # noqa: E402
from cuzklab.model import PipelineConfig  # noqa: E402
from cuzklab.plots import timeline  # noqa: E402
from cuzklab.trace import TraceBuilder  # noqa: E402
from cuzklab.widgets import Explorer  # noqa: E402

LOCKS = ("interlock", "split_async")



def _stats(values: list[float]) -> dict:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return {"median_ms": round(1000 * statistics.median(values), 1),
            "p90_ms": round(1000 * p90, 1), "min_ms": round(1000 * values[0], 1),
            "n": len(values)}


def bench_changes(ex: Explorer, repeats: int) -> dict:
    """Return timing stats of ``repeats`` lock changes (total and per part)."""
    parts: dict[str, list[float]] = {"total_s": [], "source_s": [], "summary_s": [],
                                     "draw_s": []}
    wall = []
    for i in range(repeats):
        t0 = time.perf_counter()
        ex.controls["lock"].value = LOCKS[i % 2]
        wall.append(time.perf_counter() - t0)
        for k in parts:
            parts[k].append(ex.timings[k])
    out = {k.replace("_s", ""): _stats(v) for k, v in parts.items()}
    out["wall"] = _stats(wall)
    return out


def synthetic_trace(n_spans: int, lanes: int = 64):
    """Return a trace of ``n_spans`` back-to-back spans over ``lanes`` lanes."""
    b = TraceBuilder(source="sim", config=PipelineConfig().to_dict())
    stages = ("synth", "prep_msm", "ntt_h", "batch_add", "b_g2_msm")
    per = n_spans // lanes + 1
    i = 0
    for lane in range(lanes):
        t = 0.0
        for j in range(per):
            if i >= n_spans:
                break
            d = 0.5 + (j % 7) * 0.1
            b.span(i // 100, i % 10, stages[j % 5], f"synth.{lane}", t, t + d)
            t, i = t + d, i + 1
    return b.build()


def bench_timeline_build(sizes, repeats: int = 3) -> dict:
    """Return {n_spans: stats} of building the timeline figure."""
    out = {}
    for n in sizes:
        tr = synthetic_trace(n)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fig = timeline(tr)
            times.append(time.perf_counter() - t0)
        out[str(n)] = dict(_stats(times), mode=fig.data[0].type)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proofs", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=15)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--json", default="bench_explorer.json", help="output path ('' for none)")
    args = ap.parse_args(argv)
    cfg = PipelineConfig(proofs=args.proofs, concurrency=min(args.concurrency, args.proofs))
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    # One seed: the OOM risk's other seeds would run in a second process meanwhile.
    ex = Explorer(cfg, debounce_s=0, cache_size=0, oom_seeds=1)
    create_s = time.perf_counter() - t0
    spans = len(ex.trace.spans)
    for _ in range(2):  # warm caches (profile load, plotly validators)
        ex.controls["lock"].value = LOCKS[_ % 2]
    plain = bench_changes(ex, args.repeats)
    ex.pin()
    pinned = bench_changes(ex, args.repeats)
    ex.unpin()
    ex.cache_size = 16
    for _ in range(2):  # both configurations seen once, then kept
        ex.controls["lock"].value = LOCKS[(_ + 1) % 2]
    kept = bench_changes(ex, args.repeats)
    build = bench_timeline_build((1_000, 10_000, 100_000))
    load_after = os.getloadavg()
    result = {
        "benchmark": "explorer_redraw", "device": device_name("cpu"), "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_before": [round(v, 2) for v in load_before],
        "load_average_after": [round(v, 2) for v in load_after],
        "config": {"proofs": cfg.proofs, "concurrency": cfg.concurrency,
                   "partitions": cfg.partitions, "spans": spans},
        "create_s": round(create_s, 2),
        "change": plain, "change_pinned": pinned, "change_kept": kept,
        "timeline_build": build,
    }
    print(f"explorer redraw, {cfg.proofs} proofs x {cfg.partitions} partitions "
          f"({spans} spans), {os.cpu_count()} cores, {device_name('cpu')}, "
          f"load {load_before[0]:.1f} -> {load_after[0]:.1f}")
    for name, stats in (("control change", plain), ("with a pinned run", pinned),
                        ("a kept run", kept)):
        print(f"  {name:18s} total {stats['total']['median_ms']:7.1f} ms median "
              f"(p90 {stats['total']['p90_ms']:.1f}) = source {stats['source']['median_ms']:.1f}"
              f" + summary {stats['summary']['median_ms']:.1f} + draw "
              f"{stats['draw']['median_ms']:.1f} ms")
    for n, st in build.items():
        print(f"  timeline figure, {int(n):>7,d} spans: {st['median_ms']:8.1f} ms ({st['mode']})")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
