"""The contention curve: prep_msm and b_g2_msm time while 0..12 syntheses run beside them.

    python benchmarks/bench_contention.py --log2 20 --syntheses 0,1,2,4,8,12 --json contention.json

One 2^K-domain partition is built; then for each count S, S threads run
``synthesize`` in a loop over other partitions' inputs (native code, the GIL
released), and meanwhile prep_msm and the B-tail G2 MSM of the partition
are timed (median of ``--repeat`` each, on a pool of ``--threads``). The
syntheses completed per second while the load ran are recorded too. cuzk
saw prep_msm +12 % and b_g2_msm +27 % beside 10 syntheses, and 6x / 12x at
20 proofs in flight (host memory bandwidth). ``--quick`` is a small smoke
run. Figures from a shared machine are disturbed by its other users.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.native.bench import host, median_s, partition  # noqa: E402

#: cuzk's published slowdowns under load (see docs/native.md for the source).
CUZK_CONTENTION = {"10_syntheses": {"prep_msm": 1.12, "b_g2_msm": 1.27},
                   "20_in_flight": {"prep_msm": 6.0, "b_g2_msm": 12.0}}


def _ints(text: str) -> list[int]:
    vals = [int(x) for x in text.split(",") if x]
    if not vals or min(vals) < 0:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of ints >= 0, got {text!r}")
    return vals


def _load(prog, count: int, synth_threads: int, stop: threading.Event, done: list):
    from cuzklab.stages import synthesize

    def loop(i):
        k = 0
        while not stop.is_set():
            synthesize(prog, prog.inputs_for(1000 + 97 * i + k), threads=synth_threads)
            done.append(time.perf_counter())
            k += 1

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    return threads


def run(log2: int, counts: list[int], threads: int, synth_threads: int, repeat: int,
        witness_work: float) -> dict:
    """Return the contention figures (JSON-able)."""
    from cuzklab.native.msm_g2 import g2_msm
    from cuzklab.stages import prep_msm, synthesize
    part = partition(log2, witness_work=witness_work)
    prog, po = part.program, part.prep
    solo_synth = median_s(lambda: synthesize(prog, part.inputs, threads=synth_threads), repeat)
    rows = []
    for s in counts:
        stop, done = threading.Event(), []
        started = time.perf_counter()
        workers = _load(prog, s, synth_threads, stop, done)
        time.sleep(min(1.0, 0.3 * solo_synth) if s else 0.0)   # let them get going
        prep = median_s(lambda: prep_msm(part.synth, threads=threads), repeat)
        g2 = median_s(lambda: g2_msm(part.g2_bases, po.b.tail_scalars, threads=threads), repeat)
        stop.set()
        for w in workers:
            w.join()   # each finishes the synthesis it is in, so every thread completes one
        # the load's rate: syntheses completed over the time the load ran (a window of the
        # timings alone can be shorter than one synthesis)
        rate = len(done) / (max(done) - started) if s and done else 0.0
        rows.append({"syntheses": s, "prep_msm_s": prep, "b_g2_msm_s": g2,
                     "syntheses_per_s": rate})
    base = rows[0] if counts[0] == 0 else None
    for r in rows:
        if base:
            r["prep_msm_slowdown"] = r["prep_msm_s"] / base["prep_msm_s"]
            r["b_g2_msm_slowdown"] = r["b_g2_msm_s"] / base["b_g2_msm_s"]
    return {"benchmark": "contention", "host": host(), "log2_domain": log2,
            "constraints": prog.num_constraints, "b_g2_tail": po.b.tail, "pool_threads": threads,
            "synth_threads": synth_threads, "witness_work": witness_work, "repeat": repeat,
            "solo_synth_s": solo_synth, "rows": rows, "cuzk": CUZK_CONTENTION}


def table(res: dict) -> str:
    """Return the curve as a text table."""
    lines = [f"# contention at 2^{res['log2_domain']} on {res['host']['cpu']} "
             f"({res['host']['cores']} cores); pool {res['pool_threads']} threads, "
             f"solo synthesis {res['solo_synth_s']:.3f} s",
             "syntheses  prep_msm_s (x)   b_g2_msm_s (x)   syntheses/s"]
    for r in res["rows"]:
        lines.append(f"{r['syntheses']:>9}  {r['prep_msm_s']:9.4f} ({r.get('prep_msm_slowdown', 0):.2f})"
                     f"  {r['b_g2_msm_s']:9.4f} ({r.get('b_g2_msm_slowdown', 0):.2f})"
                     f"  {r['syntheses_per_s']:10.2f}")
    lines.append("cuzk: 10 syntheses -> prep_msm x1.12, b_g2_msm x1.27; 20 in flight -> x6, x12")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=18, help="NTT domain 2^K of a partition (default 18)")
    ap.add_argument("--syntheses", type=_ints, default=[0, 1, 2, 4, 8, 12],
                    help="concurrent syntheses, e.g. 0,1,2,4,8,12")
    ap.add_argument("--threads", type=int, default=4, help="pool of prep_msm and b_g2_msm")
    ap.add_argument("--synth-threads", type=int, default=1, help="MatVec threads per synthesis")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    ap.add_argument("--witness-work", type=float, default=1.0, help="witness_work of the program")
    ap.add_argument("--quick", action="store_true", help="2^12, 0,1,2 syntheses, one run")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    if not 8 <= a.log2 <= 26:
        ap.error(f"--log2 must be in [8, 26], got {a.log2}")
    for name in ("threads", "synth_threads", "repeat"):
        if getattr(a, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(a, name)}")
    if a.quick:
        a.log2, a.syntheses, a.repeat = 12, [0, 1, 2], 1
    res = run(a.log2, a.syntheses, a.threads, a.synth_threads, a.repeat, a.witness_work)
    print(table(res))
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
