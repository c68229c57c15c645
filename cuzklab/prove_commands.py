"""The ``cuzklab prove`` command: one PoRep-shaped proof, per-stage seconds, verified or not.

``--log2-constraints K`` makes a synthetic circuit whose NTT domain is
exactly 2^K (constraints plus the input rows), runs a seeded setup, proves
with cuzk's stages on the chosen backend and verifies with py_ecc.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from .backend import BACKENDS, device_name
from .cliargs import int_at_least, require_backend

#: Largest K accepted on the command line (the NTT domain limit of Fr is 2^32;
#: beyond 2^28 the keys no longer fit in one H200's memory).
MAX_LOG2_CONSTRAINTS = 28


def _log2(text: str) -> int:
    import argparse
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer in [2, {MAX_LOG2_CONSTRAINTS}], got {text!r}") from None
    if not 2 <= k <= MAX_LOG2_CONSTRAINTS:
        raise argparse.ArgumentTypeError(f"must be in [2, {MAX_LOG2_CONSTRAINTS}], got {k}")
    return k


def register(subparsers) -> None:
    """Add the ``prove`` sub-command."""
    p = subparsers.add_parser(
        "prove", help="prove one synthetic PoRep-shaped circuit and print per-stage seconds",
        description=__doc__)
    p.add_argument("--log2-constraints", type=_log2, required=True, metavar="K",
                   help="the NTT domain is 2^K rows: the circuit has 2^K constraints less one "
                        "row per public input (K=12: 4,096 rows, 3,840 constraints; "
                        "K=20: 1,048,576 rows, 1,048,248 constraints)")
    p.add_argument("--backend", choices=BACKENDS, default="cpu")
    p.add_argument("--seed", type=int_at_least(0), default=0,
                   help="seed of the circuit, setup and blinding (an integer >= 0)")
    p.add_argument("--threads", type=int_at_least(1), default=None,
                   help="b_g2_msm CPU threads, >= 1 (default: all)")
    p.add_argument("--b-g2-backend", choices=BACKENDS, default=None,
                   help="where b_g2_msm runs (default: cpu; gpu when --backend gpu and K >= 16)")
    p.add_argument("--cold", action="store_true",
                   help="report the first proof, kernel compilation and first-use allocations "
                        "included (default: prove twice and report the warm second proof)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def prove_once(log2_constraints: int, *, backend: str = "cpu", seed: int = 0,
               threads: int | None = None, b_g2_backend: str | None = None,
               verify_proof: bool = True, warm: bool = True) -> dict:
    """Return a dict with the proof run's figures: constraints, stage_s, verified, timings.

    With ``warm`` (the default) the proof is made twice with the same randomness
    and the second is reported, so first-use costs (GPU kernel compilation,
    memory pools) stay out of the stage times; ``prove_cold_s`` keeps the first.
    """
    from .groth16 import constraints_for_domain, porep_circuit, setup, verify
    from .prove import prove, stage_seconds
    if b_g2_backend is None:
        b_g2_backend = "gpu" if (backend == "gpu" and log2_constraints >= 16) else "cpu"
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    r1cs, witness = porep_circuit(constraints_for_domain(log2_constraints), rng=rng,
                                  backend=backend)
    t1 = time.perf_counter()
    pk, vk = setup(r1cs, rng, backend=backend)
    t2 = time.perf_counter()
    setup_s = t2 - t1
    r, s = (int(v) for v in (rng.integers(1, 2**62), rng.integers(1, 2**62)))
    res = prove(pk, r1cs, witness, backend=backend, r=r, s=s, threads=threads,
                b_g2_backend=b_g2_backend)
    t3 = time.perf_counter()
    cold_s = t3 - t2
    if warm:
        t2 = time.perf_counter()
        res = prove(pk, r1cs, witness, backend=backend, r=r, s=s, threads=threads,
                    b_g2_backend=b_g2_backend)
        t3 = time.perf_counter()
    verified = None
    if verify_proof:
        verified = bool(verify(vk, witness.public_inputs, res.proof))
    t4 = time.perf_counter()
    return {"constraints": r1cs.num_constraints, "backend": backend,
            "device": device_name(backend), "verified": verified,
            "stage_s": stage_seconds(res.trace),
            "log2_domain": log2_constraints, "b_g2_backend": b_g2_backend,
            "circuit_s": t1 - t0, "setup_s": setup_s,
            "prove_s": t3 - t2, "prove_cold_s": cold_s, "warm": warm, "verify_s": t4 - t3,
            "stage_gpu_s": res.trace.meta.get("stage_gpu_s", {}),
            "msm_split": res.trace.meta.get("msm_split", {}),
            "ntt_h_split": res.trace.meta.get("ntt_h_split", {}),
            "proof_hex": res.proof.to_bytes().hex()}


def run(args) -> int:
    """Handle ``cuzklab prove``; return 0 when the proof verified, 1 otherwise."""
    require_backend(args.backend, "--backend")
    if args.b_g2_backend is not None:
        require_backend(args.b_g2_backend, "--b-g2-backend")
    out = prove_once(args.log2_constraints, backend=args.backend, seed=args.seed,
                     threads=args.threads, b_g2_backend=args.b_g2_backend, warm=not args.cold)
    if args.json:
        keys = ("constraints", "log2_domain", "backend", "device", "verified", "prove_s",
                "prove_cold_s", "warm", "stage_s")
        print(json.dumps({k: out[k] for k in keys}))
    else:
        sys.stdout.write("\n".join(report_lines(out)) + "\n")
    return 0 if out["verified"] else 1


def report_lines(out: dict) -> list[str]:
    """Return the lines ``cuzklab prove`` prints for a :func:`prove_once` result.

    The figure is the warm proof (the second, first-use costs excluded) unless
    the run was ``--cold``; when the warm proof took longer than the first, the
    line says so, since a reader would otherwise take it for the steady state.
    """
    rows = 1 << out["log2_domain"]
    inputs = rows - out["constraints"]
    lines = [f"domain 2^{out['log2_domain']} = {rows:,} rows: {out['constraints']:,} constraints "
             f"+ {inputs:,} public-input rows; backend {out['backend']} ({out['device']})",
             f"circuit {out['circuit_s']:.3f} s, setup {out['setup_s']:.3f} s"]
    lines += [f"  {stage:<10} {sec:10.4f} s" for stage, sec in out["stage_s"].items()]
    prove, cold = out["prove_s"], out["prove_cold_s"]
    if not out["warm"]:
        lines.append(f"prove {prove:.3f} s (the first proof, compilation and first-use "
                     f"allocations included), verified: {out['verified']}")
        return lines
    line = f"prove {prove:.3f} s (warm: the second proof; the first took {cold:.3f} s)"
    if prove > cold:
        line += (f" -- the warm proof was slower than the first by "
                 f"{100 * (prove / cold - 1):.0f} %: a busy machine or a proof too small to "
                 f"time; repeat it or use a larger K")
    lines.append(line + f", verified: {out['verified']}")
    return lines
