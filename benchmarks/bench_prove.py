"""Benchmark one Groth16 proof per size: per-stage seconds of cuzk's stages, JSON out.

    python benchmarks/bench_prove.py --backend gpu --sizes 20,22,24 [--overlap on|off|both]
        [--warm-runs R] --json prove.json

For each log2 size K: a PoRep-shaped circuit whose NTT domain is 2^K, a
seeded setup, then the proof 1 + R times with the same blinding (the first
run builds twiddle tables and grows the memory pool; the median of the R
warm runs is reported as the warm figure, with the stages of that run, and
every proof must be identical; the proof's time is ``prove`` returning it, the
trace, built on first use, is timed apart as ``trace_build_s``, and
``stages_extent_s`` / ``stages_union_s`` say how much of the time the stages'
spans cover), then py_ecc verification when py_ecc is
installed. On the GPU, ``--overlap`` picks how ``prove`` runs batch_add,
tail_msm and b_g2_msm (beside the H MSM, or after it; ``both``: one result
each, over the same circuit and keys, in that order). ``--ab`` times, for each overlap
setting, the four combinations of the tails as one ``msm_many`` or three MSMs
(``stages.tail_msm.MANY``) and the epilogue's constants computed while the
transforms run or after the MSMs (``prove.EPILOGUE_AHEAD``), interleaved run by
run so that a drifting device moves them alike; every proof of a size must be
the same. A proof at 2^10 first compiles every
kernel. A failing size (e.g. out of memory) is recorded and the run goes on.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name  # noqa: E402

# cuzk's published per-partition stage times (2^27 domain, 130 M constraints;
# see docs/prover.md for the sources).
CUZK_STAGE_S = {"synth": 29.0, "prep_msm": 1.5, "ntt_h": 0.69, "batch_add": 0.64,
                "tail_msm": 0.1, "b_g2_msm": 0.45}


def _free_gpu():
    gc.collect()
    try:
        import cupy as cp
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()
    except ImportError:
        pass


def _gpu_used_gib() -> float | None:
    try:
        import cupy as cp
        return cp.get_default_memory_pool().total_bytes() / 2**30
    except ImportError:
        return None


#: The settings ``--ab`` compares: (label, stages.tail_msm.MANY, prove.EPILOGUE_AHEAD).
AB = (("many+ahead", True, True), ("separate+ahead", False, True),
      ("many+after", True, False), ("separate+after", False, False))


def _setting(many: bool | None = None, ahead: bool | None = None) -> tuple:
    """Set the two switches (None: leave one as it is); return their previous values."""
    import importlib
    P = importlib.import_module("cuzklab.prove")
    T = importlib.import_module("cuzklab.stages.tail_msm")  # the module, not the stage function
    before = (T.MANY, P.EPILOGUE_AHEAD)
    T.MANY = before[0] if many is None else many
    P.EPILOGUE_AHEAD = before[1] if ahead is None else ahead
    return before


def prove_size(k: int, backend: str, seed: int, b_g2_backend: str, verify_proof: bool,
               overlaps=(None,), warm_runs: int = 1, ab: bool = False) -> list[dict]:
    """Return the figures of one size per overlap setting: circuit, setup, proofs, verification."""
    from cuzklab.groth16 import constraints_for_domain, porep_circuit, setup, verify
    from cuzklab.prove import prove
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    r1cs, witness = porep_circuit(constraints_for_domain(k), rng=rng, backend=backend)
    t1 = time.perf_counter()
    pk, vk = setup(r1cs, rng, backend=backend)
    t2 = time.perf_counter()
    r, s = 0x1234567, 0x89abcdef
    outs, checked = [], {}   # proof bytes -> verified
    common = {"log2_domain": k, "constraints": r1cs.num_constraints, "backend": backend,
              "b_g2_backend": b_g2_backend, "circuit": r1cs.stats(), "circuit_s": t1 - t0,
              "setup_s": t2 - t1}

    def check(proof) -> bool:
        return bool(verify(vk, witness.public_inputs, proof))

    settings = AB if ab else ((None, None, None),)
    defaults = _setting()
    try:
        for overlap in overlaps:
            by = {label: [] for label, _, _ in settings}
            for _ in range(1 + warm_runs):
                for label, many, ahead in settings:  # interleaved: run i of every setting, then i + 1
                    _setting(many, ahead)
                    a = time.perf_counter()
                    res = prove(pk, r1cs, witness, backend=backend, r=r, s=s,
                                b_g2_backend=b_g2_backend, overlap=overlap)
                    b = time.perf_counter()
                    res.trace  # built on first use: timed apart from the proof
                    by[label].append((b - a, res, time.perf_counter() - b))
            outs.extend(_summarize(common, label, runs, check if verify_proof else None, checked)
                        for label, runs in by.items())
            del by, res
    finally:
        _setting(*defaults)
    if ab:
        shas = {o["proof_sha256"] for o in outs}
        for o in outs:
            o["identical_proofs"] = o["identical_proofs"] and len(shas) == 1
    del r1cs, witness, pk, vk
    return outs


def _summarize(common: dict, label, runs, check, checked) -> dict:
    """Return the figures of one setting's runs (the first cold, the median of the others reported).

    ``check``: None, or a function that verifies a proof; ``checked``: {proof bytes: verified},
    shared by the settings so that a proof is verified once.
    """
    from cuzklab.prove import stage_seconds
    same = all(x[1].proof.to_bytes() == runs[0][1].proof.to_bytes() for x in runs)
    warm_times = [x[0] for x in runs[1:]]
    warm_s, warm, warm_trace_s = sorted(runs[1:], key=lambda x: x[0])[(len(runs) - 2) // 2]  # median
    spans = warm.trace.spans
    starts, ends = [float(v) for v in spans["start"]], [float(v) for v in spans["end"]]
    verified, verify_s = None, None
    proof_bytes = warm.proof.to_bytes()
    if check is not None and proof_bytes in checked:      # the same proof as another setting's
        verified = checked[proof_bytes]
    elif check is not None:
        a = time.perf_counter()
        verified = checked[proof_bytes] = check(warm.proof)
        verify_s = time.perf_counter() - a
    return {
        **common, "setting": label, "overlap": warm.trace.meta["config"].get("overlap"),
        "prove_cold_s": runs[0][0], "prove_s": warm_s, "prove_warm_s": warm_times,
        "trace_build_s": warm_trace_s, "prove_with_trace_warm_s": [x[0] + x[2] for x in runs[1:]],
        "stages_extent_s": max(ends) - min(starts), "stages_union_s": _union(starts, ends),
        "stage_cold_s": stage_seconds(runs[0][1].trace), "stage_s": stage_seconds(warm.trace),
        "stage_gpu_s": warm.trace.meta.get("stage_gpu_s", {}),
        "ntt_h_split": warm.trace.meta.get("ntt_h_split", {}),
        "msm_split": warm.trace.meta.get("msm_split", {}),
        "identical_proofs": same, "proof_sha256": hashlib.sha256(proof_bytes).hexdigest(),
        "verified": verified, "verify_s": verify_s,
        "gpu_pool_gib": _gpu_used_gib() if common["backend"] == "gpu" else None}


def _union(starts, ends) -> float:
    """Return the length of the union of the intervals [start, end]."""
    total, reach = 0.0, None
    for a, b in sorted(zip(starts, ends)):
        if reach is None or a > reach:
            total, reach = total + (b - a), b
        elif b > reach:
            total, reach = total + (b - reach), b
    return total


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    p.add_argument("--sizes", default="20,22,24", help="comma-separated log2 domain sizes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--b-g2-backend", choices=("cpu", "gpu"), default=None,
                   help="where b_g2_msm runs (default: the --backend)")
    p.add_argument("--no-verify", action="store_true")
    p.add_argument("--warmup", type=int, default=None,
                   help="log2 size of the warm-up proof (default 10 on the GPU, none on the CPU)")
    p.add_argument("--overlap", choices=("default", "on", "off", "both"), default="default",
                   help="GPU: batch_add, tail_msm and b_g2_msm beside the H MSM (on), after it "
                        "(off), or both in turn (default: prove's)")
    p.add_argument("--warm-runs", type=int, default=1, help="warm proofs per setting (median reported)")
    p.add_argument("--ab", action="store_true",
                   help="GPU: time the tails as one msm_many or three MSMs, and the epilogue's "
                        "constants ahead or after, all four interleaved (see the docstring)")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    if args.ab and args.backend != "gpu":
        p.error("--ab needs --backend gpu")
    if args.warm_runs < 1:
        p.error(f"--warm-runs must be >= 1, got {args.warm_runs}")
    if args.overlap in ("on", "both") and args.backend != "gpu":
        p.error("--overlap on/both needs --backend gpu")
    overlaps = {"default": (None,), "on": (True,), "off": (False,), "both": (True, False)}[args.overlap]
    sizes = [int(x) for x in args.sizes.split(",") if x]
    b_g2 = args.b_g2_backend or args.backend
    verify_proof = not args.no_verify
    if verify_proof:
        try:
            import py_ecc  # noqa: F401
        except ImportError:
            print("py_ecc not installed: proofs are not verified", flush=True)
            verify_proof = False
    out = {"benchmark": "prove", "device": device_name(args.backend), "backend": args.backend,
           "b_g2_backend": b_g2, "ab": args.ab, "warm_runs": args.warm_runs, "cuzk_reference_stage_s": CUZK_STAGE_S, "results": []}

    def save():
        if args.json:
            write_text(args.json, json.dumps(out, indent=1))

    warmup = args.warmup if args.warmup is not None else (10 if args.backend == "gpu" else 0)
    if warmup:
        t = time.perf_counter()
        warm = prove_size(warmup, args.backend, args.seed, b_g2, verify_proof=False, overlaps=overlaps)
        print(f"warm-up at 2^{warmup}: {time.perf_counter() - t:.1f} s (identical proofs: "
              f"{[w['identical_proofs'] for w in warm]})", flush=True)
    for k in sizes:
        try:
            rs = prove_size(k, args.backend, args.seed, b_g2, verify_proof, overlaps, args.warm_runs,
                            args.ab)
        except Exception as exc:  # noqa: BLE001 - record the failure, keep the others
            rs = [{"log2_domain": k, "error": f"{type(exc).__name__}: {exc}"}]
            print(f"2^{k}: failed: {rs[0]['error']}", flush=True)
        else:
            for r in rs:
                stages = " ".join(f"{s}={v:.4f}" for s, v in r["stage_s"].items())
                warm = ", ".join(f"{v:.3f}" for v in r["prove_warm_s"])
                label = f", {r['setting']}" if r.get("setting") else ""
                print(f"2^{k} (overlap {r['overlap']}{label}): prove {r['prove_s']:.3f} s (warm runs {warm}; "
                      f"cold {r['prove_cold_s']:.3f}), setup {r['setup_s']:.1f} s, circuit "
                      f"{r['circuit_s']:.1f} s, verified {r['verified']}, identical "
                      f"{r['identical_proofs']}\n    {stages}", flush=True)
        out["results"].extend(rs)
        save()
        _free_gpu()
    save()
    ok = all(r.get("identical_proofs") and r.get("verified") is not False for r in out["results"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
