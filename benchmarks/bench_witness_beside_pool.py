"""The witness step beside b_g2_msm calls on their pool, at several witness works.

    python benchmarks/bench_witness_beside_pool.py --log2 20 --backend gpu \
        --works 0,0.25,1 --json witness-beside-pool.json

``calibrate --live`` times the witness step of four syntheses alone and beside
b_g2_msm calls back to back on their pool (``measure_matvec_pool``) at witness work 0
and at its own work, and the model's witness step slows by the mean of its two parts'
slowdowns, weighted by their seconds alone: the part witness work 0 keeps (the W=0
step's slowdown) and the part the work adds (from the step at the higher work;
``synth.witness_pool_slowdown``, ``compare.witness_pool_slowdown_at``). This script runs
the same step at each of ``--works`` and sets the measured slowdown beside two rules,
with the step's seconds alone taken from this run: the W=0 part alone slower (the
rest as alone), and both parts, the added part's slowdown from the highest work (in
sample there, out of sample at the works between). Per work: the witness step alone
and beside, the measured and the rules' slowdowns, and the MatVecs' and the calls' own.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402


def judge(res: dict) -> None:
    """Set each work's measured slowdown beside the two rules (stored in ``res``), and print."""
    from cuzklab.calibrate.compare import parts_slowdown, work_part_slowdown
    works = res["works"]
    zero = works["0"]["witness"]
    top_key = max(works, key=float)
    top = works[top_key]["witness"]
    x_work = work_part_slowdown(zero["slowdown"], zero["alone_s"], top["slowdown"],
                                top["alone_s"])
    res["work_part_slowdown"] = x_work
    print(f"the part the witness work adds: x{x_work:.2f} beside the calls (from witness work "
          f"{top_key})" if x_work is not None else
          "the part the witness work adds: not split (no work's step longer than W=0's)")
    print("work  alone ms  beside ms  measured  W=0 part only   error  both parts   error")
    for key, m in works.items():
        wit = m["witness"]
        one = parts_slowdown(zero["slowdown"], 1.0, zero["alone_s"], wit["alone_s"])
        two = (parts_slowdown(zero["slowdown"], x_work, zero["alone_s"], wit["alone_s"])
               if x_work is not None else None)
        wit["rule_zero_part"], wit["rule_both_parts"] = one, two

        def err(x):
            return f"{100 * (x / wit['slowdown'] - 1):+6.1f} %" if x else "      -"
        print(f"{key:>4}  {wit['alone_s'] * 1e3:8.1f}  {wit['beside_s'] * 1e3:9.1f}  "
              f"x{wit['slowdown']:7.2f}  x{one:13.2f}  {err(one)}  "
              + (f"x{two:9.2f}  {err(two)}" if two else "         -"))


def _works(text: str) -> list[float]:
    try:
        works = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--works: numbers >= 0 separated by commas, "
                                         f"got {text!r}") from None
    if not works or any(w < 0 for w in works) or 0.0 not in works:
        raise argparse.ArgumentTypeError(f"--works: numbers >= 0 separated by commas, 0 "
                                         f"among them (the rule starts there), got {text!r}")
    return sorted(set(works))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=20, help="rows per partition, 2^K (default 20)")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    ap.add_argument("--works", type=_works, default=[0.0, 0.25, 1.0],
                    help="witness works, 0 among them (default 0,0.25,1)")
    ap.add_argument("--pool-threads", type=int, default=0,
                    help="the b_g2_msm pool and the MatVec pool (default: the host's cores)")
    ap.add_argument("--repeat", type=int, default=3, help="timings of each side (default 3)")
    ap.add_argument("--json", default="")
    ap.add_argument("--judge", default="", metavar="FILE",
                    help="measure nothing: judge the timings stored in FILE (this script's "
                         "JSON) again, and write them with --json")
    a = ap.parse_args(argv)
    if a.judge:
        try:
            text = Path(a.judge).read_text()
        except OSError as exc:
            ap.error(f"--judge: cannot read {a.judge}: {exc.strerror}")
        try:
            res = json.loads(text)
            if "0" not in res["works"]:
                raise KeyError("works.0")
        except (ValueError, KeyError, TypeError) as exc:
            ap.error(f"--judge: not this script's JSON with witness work 0 in it: {exc!r}")
        judge(res)
        write(res, a.json)
        return 0
    if a.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {a.repeat}")
    if a.pool_threads < 0:
        ap.error(f"--pool-threads must be 0 (the host's cores) or more, got {a.pool_threads}")
    from cuzklab.calibrate.measure import host_cores, measure_matvec_pool
    from cuzklab.cliargs import usable_backend
    from cuzklab.live import check_log2
    from cuzklab.live.sync import switch_interval
    check_log2(a.log2)
    usable_backend(a.backend)
    threads = a.pool_threads or host_cores()
    res = {"benchmark": "witness_beside_pool", "log2_constraints": a.log2,
           "backend": a.backend, "pool_threads": threads, "repeat": a.repeat, "works": {}}
    if a.backend == "gpu":
        import cupy
        res["device"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    t0 = time.perf_counter()
    with switch_interval():
        for i, w in enumerate(a.works):
            m = measure_matvec_pool(a.log2, matvec_threads=threads, pool_threads=threads,
                                    backend=a.backend, repeat=a.repeat, witness_work=w)
            res["works"][f"{w:g}"] = m
            print(f"[{i + 1}/{len(a.works)}] witness work {w:g}: the witness step "
                  f"{m['witness']['alone_s'] * 1e3:.1f} ms alone, "
                  f"{m['witness']['beside_s'] * 1e3:.1f} ms beside {m['calls']} b_g2_msm calls "
                  f"(x{m['witness']['slowdown']:.2f}); MatVecs x{m['matvec']['slowdown']:.2f}, "
                  f"the calls beside MatVecs x{m['b_g2']['slowdown']:.2f} "
                  f"({time.perf_counter() - t0:.0f} s so far)", flush=True)
    judge(res)
    res["elapsed_s"] = time.perf_counter() - t0
    write(res, a.json)
    return 0


def write(res: dict, path: str) -> None:
    """Write ``res`` as JSON at ``path`` (atomically; nothing where ``path`` is empty)."""
    if path:
        write_text(path, json.dumps(res, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
