"""Shared pieces of the CPU-stage benchmarks: one partition's data, and medians of timed calls.

``partition(K)`` builds a witness program whose NTT domain is 2^K, one
synthesized partition, its prep_msm split and G2 bases for its B tail
(``[k_i] G`` by the fixed-base table, no setup needed: the MSM's cost does
not depend on which points it sums; computed on the GPU when there is one,
then held on the host as the key's bases are).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np

from ..backend import device_name, gpu_available
from ..field import Fr
from ..groth16 import constraints_for_domain
from ..groth16.fixed_base import fixed_base_mul
from ..groth16.program import CircuitProgram, porep_program

#: cuzk's published figures for one 32 GiB PoRep partition (reference: the
#: cuzk documentation's stage table; 96-core Zen4 host): synthesis ~29 s for
#: 130,278,869 constraints on the rayon pool, prep_msm 1.3-1.7 s, b_g2_msm
#: 0.38-0.5 s on all cores and 0.6-1.7 s with a 32-thread pool.
CUZK = {"constraints": 130_278_869, "synth_s": 29.0, "prep_msm_s": [1.3, 1.7],
        "b_g2_msm_s": [0.38, 1.7], "synth_us_per_constraint": 29.0 / 130_278_869 * 1e6}


@dataclass
class Partition:
    """A program, one partition's synthesis and split, and G2 bases for its B tail."""

    program: CircuitProgram
    inputs: list
    synth: object
    prep: object
    g2_bases: object
    build_s: float


def partition(log2: int, *, witness_work: float = 1.0, seed: int = 1) -> Partition:
    """Return the Partition of a 2^log2-domain program (built once, then reused by the timings)."""
    from ..stages import prep_msm, synthesize
    t0 = time.perf_counter()
    prog = porep_program(constraints_for_domain(log2), witness_work=witness_work, rng=seed)
    inputs = prog.inputs_for(0)
    so = synthesize(prog, inputs)
    po = prep_msm(so)
    rng = np.random.default_rng(seed)
    where = "gpu" if gpu_available() else "cpu"
    bases = fixed_base_mul("g2", Fr.random(max(1, po.b.tail), rng, where), where).to("cpu")
    bases = bases[:po.b.tail]
    return Partition(prog, inputs, so, po, bases, time.perf_counter() - t0)


def median_s(fn, repeat: int) -> float:
    """Return the median wall seconds of ``repeat`` calls of ``fn()``."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def host() -> dict:
    """Return the CPU model and core count (JSON-able)."""
    import os
    return {"cpu": device_name("cpu"), "cores": os.cpu_count()}
