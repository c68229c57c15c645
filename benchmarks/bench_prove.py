"""Benchmark one Groth16 proof per size: per-stage seconds of cuzk's stages, JSON out.

    python benchmarks/bench_prove.py --backend gpu --sizes 20,22,24 --json prove.json

For each log2 size K: a PoRep-shaped circuit whose NTT domain is 2^K, a
seeded setup, then the proof twice with the same blinding (the first run
builds twiddle tables and grows the memory pool; the second is reported as
the warm figure, and both proofs must be identical), then py_ecc
verification when py_ecc is installed. A proof at 2^10 first compiles every
kernel. A failing size (e.g. out of memory) is recorded and the run goes on.
"""

from __future__ import annotations

import argparse
import gc
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


def prove_size(k: int, backend: str, seed: int, b_g2_backend: str, verify_proof: bool) -> dict:
    """Return the figures of one size: timings of circuit, setup, two proofs, verification."""
    from cuzklab.groth16 import constraints_for_domain, porep_circuit, setup, verify
    from cuzklab.prove import prove, stage_seconds
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    r1cs, witness = porep_circuit(constraints_for_domain(k), rng=rng, backend=backend)
    t1 = time.perf_counter()
    pk, vk = setup(r1cs, rng, backend=backend)
    t2 = time.perf_counter()
    r, s = 0x1234567, 0x89abcdef
    runs = []
    for _ in range(2):
        a = time.perf_counter()
        res = prove(pk, r1cs, witness, backend=backend, r=r, s=s, b_g2_backend=b_g2_backend)
        runs.append((time.perf_counter() - a, res))
    same = runs[0][1].proof.to_bytes() == runs[1][1].proof.to_bytes()
    warm_s, warm = runs[1]
    verified, verify_s = None, None
    if verify_proof:
        a = time.perf_counter()
        verified = bool(verify(vk, witness.public_inputs, warm.proof))
        verify_s = time.perf_counter() - a
    out = {"log2_domain": k, "constraints": r1cs.num_constraints, "backend": backend,
           "b_g2_backend": b_g2_backend, "circuit": r1cs.stats(),
           "circuit_s": t1 - t0, "setup_s": t2 - t1,
           "prove_cold_s": runs[0][0], "prove_s": warm_s,
           "stage_cold_s": stage_seconds(runs[0][1].trace), "stage_s": stage_seconds(warm.trace),
           "stage_gpu_s": warm.trace.meta.get("stage_gpu_s", {}),
           "ntt_h_split": warm.trace.meta.get("ntt_h_split", {}),
           "msm_split": warm.trace.meta.get("msm_split", {}),
           "identical_proofs": same, "verified": verified, "verify_s": verify_s,
           "gpu_pool_gib": _gpu_used_gib() if backend == "gpu" else None}
    del r1cs, witness, pk, vk, runs, res, warm
    return out


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
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
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
           "b_g2_backend": b_g2, "cuzk_reference_stage_s": CUZK_STAGE_S, "results": []}

    def save():
        if args.json:
            write_text(args.json, json.dumps(out, indent=1))

    warmup = args.warmup if args.warmup is not None else (10 if args.backend == "gpu" else 0)
    if warmup:
        t = time.perf_counter()
        warm = prove_size(warmup, args.backend, args.seed, b_g2, verify_proof=False)
        print(f"warm-up at 2^{warmup}: {time.perf_counter() - t:.1f} s (identical proofs: "
              f"{warm['identical_proofs']})", flush=True)
    for k in sizes:
        try:
            r = prove_size(k, args.backend, args.seed, b_g2, verify_proof)
        except Exception as exc:  # noqa: BLE001 - record the failure, keep the others
            r = {"log2_domain": k, "error": f"{type(exc).__name__}: {exc}"}
            print(f"2^{k}: failed: {r['error']}", flush=True)
        else:
            stages = " ".join(f"{s}={v:.3f}" for s, v in r["stage_s"].items())
            print(f"2^{k}: prove {r['prove_s']:.3f} s (cold {r['prove_cold_s']:.3f}), "
                  f"setup {r['setup_s']:.1f} s, circuit {r['circuit_s']:.1f} s, "
                  f"verified {r['verified']}, identical {r['identical_proofs']}\n    {stages}",
                  flush=True)
        out["results"].append(r)
        save()
        _free_gpu()
    save()
    ok = all(r.get("identical_proofs") and r.get("verified") is not False for r in out["results"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
