"""Where a live run's synthesis spans go: the synthesis itself against the rest of the span.

    python benchmarks/bench_synth_split.py --log2 20 --backend gpu --json synth-split.json

The live executor's ``synth`` span runs from a partition worker's submit to the end of
its task: the check-out of a pinned buffer (pinning a new one when the pool has none
free), then the witness program and the MatVec writing a, b, c into it
(``cuzklab.stages.synthesize``, whose ``witness_s`` and ``matvec_s`` this script records
call by call). The script runs
the synthesis four times alone (on a native pool of one thread), then five live runs:
the two solo runs of ``calibrate --live`` (one thread, every core) and three rows of the
comparison table (split_async gw=2 pw=12 W=0, interlock gw=2 pw=8 W=0.25, split_async
gw=2 pw=4 W=1; ``--proofs`` proofs of 4 partitions, default 3; ``--runs`` picks some). Per run: the spans' median, the synthesis
calls' median (``inner``) with their witness and MatVec medians, and the seconds of
other stages' spans that overlapped the synthesis spans.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402

ROWS = (("split_async", 2, 12, 0.0), ("interlock", 2, 8, 0.25), ("split_async", 2, 4, 1.0))


def _run(log2: int, backend: str, cfg, witness_work: float, calls: list,
         pin_ahead: bool = True) -> dict:
    from cuzklab.live import run as run_live
    calls.clear()
    tr = run_live(cfg, log2_constraints=log2, backend=backend, progress=False, verify=False,
                  witness_work=witness_work, pin_ahead=pin_ahead)
    syn0 = tr.spans[tr.spans.stage == "synth"]
    sp = tr.spans
    syn = sp[sp.stage == "synth"]
    overlap: dict[str, float] = {}
    for _, a in syn.iterrows():
        other = sp[(sp.stage != "synth") & (sp.end > a.start) & (sp.start < a.end)]
        for _, b in other.iterrows():
            overlap[b.stage] = overlap.get(b.stage, 0.0) + min(a.end, b.end) - max(a.start, b.start)
    timed = calls[1:] if len(calls) > len(syn) else calls  # the first may be the warm-up's
    return {"spans_s": sorted(round(float(x), 4) for x in syn.end - syn.start),
            "span_median_s": float(statistics.median(syn.end - syn.start)),
            "inner_median_s": statistics.median(c["inner"] for c in timed),
            "witness_median_s": statistics.median(c["witness"] for c in timed),
            "matvec_median_s": statistics.median(c["matvec"] for c in timed),
            "calls": len(calls), "overlap_s": {k: round(v, 4) for k, v in overlap.items()},
            "pinned": tr.meta.get("live", {}).get("pinned"),
            "synth_starts_s": sorted(round(float(x), 4) for x in syn0.start),
            "end_s": float(tr.spans.end.max())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=20)
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    ap.add_argument("--proofs", type=int, default=3, help="proofs of each run (default 3)")
    ap.add_argument("--runs", default="", metavar="NAME,...",
                    help="only these runs (solo1, solo16, or a row as split_async-gw2-pw12-w0)")
    ap.add_argument("--cold-pinned", action="store_true",
                    help="let the pinned pool grow during each run (default: pinned ahead)")
    ap.add_argument("--json", default="")
    a = ap.parse_args(argv)
    if a.proofs < 1:
        ap.error(f"--proofs must be at least 1, got {a.proofs}")
    names = ["solo1", "solo16"] + [f"{lock}-gw{gw}-pw{pw}-w{ww:g}" for lock, gw, pw, ww in ROWS]
    want = [x for x in a.runs.split(",") if x]
    unknown = sorted(set(want) - set(names))
    if unknown:
        ap.error(f"--runs: unknown {', '.join(unknown)}; allowed: {', '.join(names)}")
    from cuzklab.calibrate.measure import solo_config
    from cuzklab.cliargs import usable_backend
    from cuzklab.live import check_log2, workload
    from cuzklab.live import work as W
    from cuzklab.live.sync import switch_interval
    from cuzklab.model import PipelineConfig
    from cuzklab.native.pool import NativePool
    from cuzklab.stages import StageClock
    check_log2(a.log2)
    usable_backend(a.backend)
    calls: list = []
    real = W.synthesize

    def spy(work, proof, partition, clock, threads=1, pool=None, host=None):
        t = time.perf_counter()
        out = real(work, proof, partition, clock, threads, pool, host)
        calls.append({"inner": time.perf_counter() - t, "witness": out.witness_s,
                      "matvec": out.matvec_s})
        return out
    res = {"benchmark": "synth_split", "log2_constraints": a.log2, "backend": a.backend,
           "proofs": a.proofs, "pinned_ahead": not a.cold_pinned, "runs": {}}
    with switch_interval():
        work = workload(a.log2, 0, a.backend, 1.0)
        pool = NativePool(1, "bench-synth-split")
        alone = []
        for i in range(4):
            t = time.perf_counter()
            out = real(work, 0, 1 + i, StageClock(), 1, pool)
            alone.append({"total_s": time.perf_counter() - t, "witness_s": out.witness_s,
                          "matvec_s": out.matvec_s})
        pool.shutdown()
        res["alone"] = alone
        print("alone (total, witness, matvec):",
              [(round(x["total_s"], 3), round(x["witness_s"], 3), round(x["matvec_s"], 3))
               for x in alone], flush=True)
        W.synthesize = spy
        try:
            runs = [("solo1", solo_config(a.proofs, gpu_threads=16, synthesis_threads=1), 1.0),
                    ("solo16", solo_config(a.proofs, gpu_threads=16, synthesis_threads=16), 1.0)]
            for lock, gw, pw, ww in ROWS:
                cfg = PipelineConfig(proofs=a.proofs, concurrency=a.proofs, partitions=4,
                                     gpu_threads=16,
                                     synthesis_threads=16, admission="semaphore", lock=lock,
                                     partition_workers=pw, gpu_workers_per_device=gw)
                runs.append((f"{lock}-gw{gw}-pw{pw}-w{ww:g}", cfg, ww))
            runs = [r for r in runs if not want or r[0] in want]
            for name, cfg, ww in runs:
                r = _run(a.log2, a.backend, cfg, ww, calls, not a.cold_pinned)
                res["runs"][name] = r
                print(f"{name:26s} span {r['span_median_s']:.3f} s  synthesis "
                      f"{r['inner_median_s']:.3f} s (witness {r['witness_median_s']:.3f}, "
                      f"MatVec {r['matvec_median_s']:.3f}), starts {r['synth_starts_s'][0]:.2f}-"
                      f"{r['synth_starts_s'][-1]:.2f} s, end {r['end_s']:.2f} s"
                      + (f"  pinned {r['pinned']['buffers']} buffers in {r['pinned']['pin_s']:.3f} s"
                         if r["pinned"] else ""), flush=True)
        finally:
            W.synthesize = real
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
