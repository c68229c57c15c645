"""Benchmark the native CPU stages against their thread count: synthesis, prep_msm, b_g2_msm.

    python benchmarks/bench_cpu_stages.py --log2 20 --threads 1,2,4,8,16 --json cpu_stages.json

One 2^K-domain partition of the witness program is built once; then
``--repeat`` rounds, each timing every thread count in turn (so that a host
whose speed drifts moves every count alike), and for each thread count the
median over the rounds of: ``synthesize`` (the
witness program on one thread, the MatVec on the pool; its split), the
MatVec alone, ``prep_msm`` (per scalar of the three queries), and the G2 MSM
of the B tail (per point), after one untimed call of each. Speed-up and
efficiency are against one thread. prep_msm's serial part is measured too
(``serial_ms``, median of at least 5 calls): the time within a call when no
native call of it runs on any thread (Python, allocations, the handoffs to
and from the pool; ``cuzklab.native.bench.serial_s``).
``--twin`` also times the NumPy twin of b_g2_msm at one thread. cuzk's
published figures are printed beside them. Figures from a shared machine
are disturbed by its other users.

``--ceiling`` also measures the host's compute ceiling at each thread count:
k independent chains of Fr products in registers on the same native pool,
against one alone (``cuzklab.native.bench.ceiling``); a stage cannot scale
better than that on this host. ``--bw-ceiling`` measures its memory-bandwidth
ceiling the same way: k threads copying 64 MiB arrays at once, each thread's
GB/s against one alone (``cuzklab.native.bench.bandwidth_ceiling``), the bound
of a stage that streams memory, as prep_msm does. ``--probe`` times a chain on the first CPU
beside one on each other CPU, which shows logical CPUs that share a physical
core, and prints an order of CPUs one per core first, for
``CUZKLAB_NATIVE_CPUS`` (the pools then pin their threads in that order; the
JSON records the setting of a run).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.native.bench import (CUZK, bandwidth_ceiling, ceiling, host, median_s, partition,  # noqa: E402
                                   serial_s, sibling_probe)


def _ints(text: str) -> list[int]:
    vals = [int(x) for x in text.split(",") if x]
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of ints >= 1, got {text!r}")
    return vals


def run(log2: int, threads: list[int], repeat: int, witness_work: float, twin: bool) -> dict:
    """Return the figures (JSON-able) of every stage at every thread count."""
    import cuzklab.native.split as native_split
    from cuzklab.native.msm_g2 import g2_msm
    from cuzklab.stages import b_g2_msm, prep_msm, synthesize
    from cuzklab.stages.synth import native_domain_vectors
    part = partition(log2, witness_work=witness_work)
    prog, po = part.program, part.prep
    n = prog.num_constraints
    scalars = sum(getattr(po, q).size for q in ("l", "a", "b"))
    tail = po.b.tail
    w = prog.witness(part.inputs)
    # one untimed call of each stage first, so the first thread count's figures do not
    # carry the first touches of the pages the stages read and write
    synthesize(prog, part.inputs, threads=max(threads))
    prep_msm(part.synth, threads=max(threads))
    g2_msm(part.g2_bases, po.b.tail_scalars, threads=max(threads))
    # Round by round, every thread count in turn (1, 2, ..., then 1, 2, ... again): a host
    # whose speed drifts while it measures (a virtual machine's cores are shared with other
    # guests) then moves every count's samples alike, and the efficiency of 8 threads is
    # not one thread's figure from minutes earlier against theirs.
    got = {t: {k: [] for k in ("synth", "witness", "matvec", "prep", "g2")} for t in threads}
    for _ in range(repeat):
        for t in threads:
            outs = []
            g = got[t]
            g["synth"].append(median_s(lambda: outs.append(synthesize(prog, part.inputs,
                                                                      threads=t)), 1))
            g["witness"].append(outs[0].witness_s)
            g["matvec"].append(median_s(lambda: native_domain_vectors(prog.r1cs, w, threads=t),
                                        1))
            g["prep"].append(median_s(lambda: prep_msm(part.synth, threads=t), 1))
            g["g2"].append(median_s(lambda: g2_msm(part.g2_bases, po.b.tail_scalars,
                                                   threads=t), 1))
    rows = []
    for t in threads:
        g = {k: statistics.median(v) for k, v in got[t].items()}
        synth_s, wit, mv, prep, g2 = g["synth"], g["witness"], g["matvec"], g["prep"], g["g2"]
        prep_serial = serial_s(lambda: prep_msm(part.synth, threads=t), native_split,
                               max(5, repeat))
        rows.append({"threads": t, "synth_s": synth_s, "witness_s": wit, "matvec_s": mv,
                     "synth_us_per_constraint": synth_s / n * 1e6,
                     "witness_share": wit / synth_s if synth_s else 0.0,
                     "matvec_us_per_constraint": mv / n * 1e6,
                     "prep_msm_s": prep, "prep_msm_ns_per_scalar": prep / scalars * 1e9,
                     "prep_msm_serial_s": prep_serial,
                     "b_g2_msm_s": g2, "b_g2_us_per_point": g2 / max(1, tail) * 1e6,
                     "samples": {k: [round(x, 6) for x in v] for k, v in got[t].items()}})
    base = rows[0]
    for r in rows:
        for key in ("matvec_s", "prep_msm_s", "b_g2_msm_s"):
            sp = base[key] / r[key] if r[key] else 0.0
            r[key.replace("_s", "_speedup")] = sp
            r[key.replace("_s", "_efficiency")] = sp / (r["threads"] / base["threads"])
    out = {"benchmark": "cpu_stages", "host": host(), "log2_domain": log2, "constraints": n,
           "scalars": scalars, "b_g2_tail": tail, "witness_work": witness_work,
           "repeat": repeat, "build_s": part.build_s, "rows": rows, "cuzk": CUZK,
           "order": "rounds: each round times every thread count in turn",
           "note": "medians of wall seconds; the witness program runs on one thread"}
    if twin:
        from cuzklab.groth16.keys import ProvingKey  # noqa: F401  (type only)
        import types
        pk = types.SimpleNamespace(b_g2=part.g2_bases)
        import numpy as np
        from cuzklab.stages.prep_msm import PrepOutput, QuerySplit
        b = QuerySplit(np.zeros(0, np.int64), np.arange(tail, dtype=np.int64),
                       po.b.tail_scalars, 0, 0, True)
        prep = PrepOutput(po.l, po.a, b, po.timing)
        s = median_s(lambda: b_g2_msm(prep, pk, threads=1, native=False), 1)
        out["twin_b_g2_us_per_point"] = s / max(1, tail) * 1e6
    return out


def table(res: dict) -> str:
    """Return the figures as a text table."""
    lines = [f"# CPU stages at 2^{res['log2_domain']} ({res['constraints']} constraints, "
             f"{res['scalars']} prep_msm scalars, B tail {res['b_g2_tail']} points) on "
             f"{res['host']['cpu']} ({res['host']['cores']} cores)",
             "threads  synth_s  us/constr  witness%  matvec_s (eff)   prep_s (eff) ns/scalar  "
             "serial_ms   b_g2_s (eff) us/point"]
    ceil = {c["threads"]: c["efficiency"] for c in res.get("ceiling", [])}
    bw = {c["threads"]: c for c in res.get("bw_ceiling", [])}
    if ceil:
        lines[-1] += "   ceiling (eff)"
    if bw:
        lines[-1] += "   bw GB/s (eff)"
    for r in res["rows"]:
        lines.append(f"{r['threads']:>7}  {r['synth_s']:7.3f}  {r['synth_us_per_constraint']:9.3f}  "
                     f"{100 * r['witness_share']:7.1f}  {r['matvec_s']:8.3f} ({r['matvec_efficiency']:.2f})"
                     f"  {r['prep_msm_s']:7.4f} ({r['prep_msm_efficiency']:.2f}) "
                     f"{r['prep_msm_ns_per_scalar']:8.2f}  {1e3 * r['prep_msm_serial_s']:9.3f}  "
                     f"{r['b_g2_msm_s']:7.4f} "
                     f"({r['b_g2_msm_efficiency']:.2f}) {r['b_g2_us_per_point']:8.2f}"
                     + (f"   {ceil[r['threads']]:.2f}" if r["threads"] in ceil else "")
                     + (f"   {bw[r['threads']]['gbps']:.1f} ({bw[r['threads']]['efficiency']:.2f})"
                        if r["threads"] in bw else ""))
    if res.get("pinned_cpus"):
        lines.append(f"pool threads pinned to CPUs {res['pinned_cpus']}")
    if "probe" in res:
        pr = res["probe"]
        lines.append(f"CPU {pr['first']} beside each other CPU: " + ", ".join(
            f"{r['cpu']}: x{r['slowdown']:.2f}" for r in pr["rows"]))
        lines.append(f"apparent SMT siblings of CPU {pr['first']}: {pr['siblings_of_first'] or 'none'}"
                     f"; one per core first: {','.join(map(str, pr['spread']))}")
    c = res["cuzk"]
    lines.append(f"cuzk (130 M constraints, 96-core Zen4): synth {c['synth_s']} s "
                 f"({c['synth_us_per_constraint']:.3f} us/constraint), prep_msm "
                 f"{c['prep_msm_s'][0]}-{c['prep_msm_s'][1]} s, b_g2_msm "
                 f"{c['b_g2_msm_s'][0]}-{c['b_g2_msm_s'][1]} s")
    if "twin_b_g2_us_per_point" in res:
        lines.append(f"NumPy twin of b_g2_msm, one thread: {res['twin_b_g2_us_per_point']:.1f} us/point")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=18, help="NTT domain 2^K of the partition (default 18)")
    ap.add_argument("--threads", type=_ints, default=[1, 2, 4, 8], help="thread counts, e.g. 1,2,4,8")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    ap.add_argument("--witness-work", type=float, default=1.0, help="witness_work of the program")
    ap.add_argument("--twin", action="store_true", help="also time the NumPy twin of b_g2_msm")
    ap.add_argument("--ceiling", action="store_true",
                    help="also measure the host's compute ceiling at each thread count")
    ap.add_argument("--bw-ceiling", action="store_true",
                    help="also measure the host's memory-bandwidth ceiling at each thread count")
    ap.add_argument("--probe", action="store_true",
                    help="also probe which CPUs share a physical core")
    ap.add_argument("--quick", action="store_true", help="2^12, threads 1,2, one run: a smoke test")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    if not 8 <= a.log2 <= 26:
        ap.error(f"--log2 must be in [8, 26], got {a.log2}")
    if a.repeat < 1:
        ap.error(f"--repeat must be >= 1, got {a.repeat}")
    if a.quick:
        a.log2, a.threads, a.repeat = 12, [1, 2], 1
    from cuzklab.native.pool import pinned_cpus
    res = run(a.log2, a.threads, a.repeat, a.witness_work, a.twin)
    res["pinned_cpus"] = pinned_cpus()
    if a.ceiling:
        res["ceiling"] = ceiling(a.threads, repeat=a.repeat)
    if a.bw_ceiling:
        res["bw_ceiling"] = bandwidth_ceiling(a.threads, repeat=a.repeat)
    if a.probe:
        res["probe"] = sibling_probe()
    print(table(res))
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
