"""Shared pieces of the CPU-stage benchmarks: one partition's data, and medians of timed calls.

``partition(K)`` builds a witness program whose NTT domain is 2^K, one
synthesized partition, its prep_msm split and G2 bases for its B tail
(``[k_i] G`` by the fixed-base table, no setup needed: the MSM's cost does
not depend on which points it sums; computed on the GPU when there is one,
then held on the host as the key's bases are).
"""

from __future__ import annotations

import statistics
import threading
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


class _NativeSpans:
    """A stand-in for the native library that records when each of its calls ran (any thread)."""

    def __init__(self, lib, serial=()):
        self._lib = lib
        self._serial = frozenset(serial)
        self.spans: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def __getattr__(self, name):
        fn = getattr(self._lib, name)
        if name in self._serial:     # native, but on the calling thread alone: part of the serial time
            return fn

        def call(*args):
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                t1 = time.perf_counter()
                with self._lock:
                    self.spans.append((t0, t1))
        return call


def serial_s(fn, module, repeat: int) -> float:
    """Return the median seconds of ``fn()`` during which no native call of ``module`` runs on any thread.

    ``module``: the module whose ``library()`` the calls go through (e.g.
    :mod:`cuzklab.native.split`); it is patched for the duration. The rest of
    the call is its serial part: Python, allocations, and the handoffs to and
    from the pool. Native calls the module names in ``SERIAL_CALLS`` (work done
    on the calling thread alone, e.g. bookkeeping between two pooled passes)
    count as serial too.
    """
    real = module.library
    spans = _NativeSpans(real(), getattr(module, "SERIAL_CALLS", ()))
    module.library = lambda: spans
    out = []
    try:
        for _ in range(repeat):
            spans.spans.clear()
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            cur, gap = t0, 0.0
            for a, b in sorted(spans.spans):
                gap += max(0.0, a - cur)
                cur = max(cur, b)
            out.append(gap + max(0.0, t1 - cur))
    finally:
        module.library = real
    return statistics.median(out)


def host() -> dict:
    """Return the CPU model and core count (JSON-able)."""
    import os
    return {"cpu": device_name("cpu"), "cores": os.cpu_count()}


#: The start of the compute-ceiling chain: any value below the Fr modulus.
CHAIN_SEED = np.array([0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98],
                      dtype=np.uint64)


def chain_s(n: int, threads: int, pool=None) -> float:
    """Return the wall seconds of ``threads`` independent chains of n Fr squarings at once."""
    from .build import library
    from .pool import ptr, run_tasks
    lib = library()
    seed = CHAIN_SEED
    t = time.perf_counter()
    run_tasks(lambda i: lib.fr_chain(ptr(seed), n), [(i,) for i in range(threads)], threads, pool)
    return time.perf_counter() - t


def chain_length(seconds: float) -> int:
    """Return the chain length that one thread runs in about ``seconds`` (at least 1000)."""
    chain_s(1000, 1)  # loads the library, warms the code
    return max(1000, int(1000 * seconds / max(chain_s(1000, 1), 1e-7)))


def ceiling(threads: list[int], *, seconds: float = 0.25, repeat: int = 3) -> list[dict]:
    """Return the host's compute ceiling per thread count: k chains at once against one alone.

    Each thread runs the same dependent chain of Fr products, in registers, on the
    native pool of k threads; ``efficiency`` is one chain's time over k chains'
    time (1.0: every thread ran as fast as one alone). This is the most any
    pooled stage can scale to on this host. Each of ``repeat`` rounds times one
    chain alone, then k at once for every k, so that one chain's time and k
    chains' come from the same minutes of a host whose speed drifts; the figures
    are medians over the rounds.
    """
    n = chain_length(seconds)
    for k in threads:
        chain_s(1000, k)  # start the pools' threads first
    ones, got = [], {k: [] for k in threads}
    for _ in range(repeat):
        ones.append(chain_s(n, 1))
        for k in threads:
            got[k].append(chain_s(n, k))
    one = statistics.median(ones)
    return [{"threads": k, "chain_s": statistics.median(got[k]),
             "efficiency": one / statistics.median(got[k])} for k in threads]


def copy_gbps(count: int, *, mib_per_thread: int = 64, seconds: float = 0.5) -> float:
    """Return the copy bandwidth in GB/s (reads plus writes) of ``count`` threads copying at once.

    Each thread copies its own ``mib_per_thread`` MiB array into another
    (NumPy, which releases the GIL) for ``seconds``; every page is touched
    before the timing starts.
    """
    if count < 1 or mib_per_thread < 1 or seconds <= 0:
        raise ValueError(f"count and mib_per_thread must be >= 1 and seconds > 0, got "
                         f"{count}, {mib_per_thread}, {seconds}")
    n = mib_per_thread * 2**20 // 8
    bufs = [(np.ones(n), np.empty(n)) for _ in range(count)]
    for src, dst in bufs:
        np.copyto(dst, src)
    done = [0] * count
    start = threading.Barrier(count + 1)
    stop = threading.Event()

    def loop(i):
        src, dst = bufs[i]
        start.wait()
        while not stop.is_set():
            np.copyto(dst, src)
            done[i] += 1

    ts = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(count)]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    return sum(done) * 2 * n * 8 / (time.perf_counter() - t0) / 1e9


def bandwidth_ceiling(threads: list[int], *, mib_per_thread: int = 64, seconds: float = 0.25,
                      repeat: int = 3) -> list[dict]:
    """Return the host's memory-bandwidth ceiling per thread count: k copying threads against one.

    ``efficiency`` is each of k threads' GB/s over one thread's alone (1.0: the
    memory system served every thread as it serves one). A stage that streams
    memory (prep_msm's passes over the scalars, the MatVec's gathers) cannot
    scale better than this, whatever the compute ceiling (:func:`ceiling`)
    allows. Rounds as in :func:`ceiling`: each times one thread, then every k.
    """
    ones, got = [], {k: [] for k in threads}
    for _ in range(repeat):
        ones.append(copy_gbps(1, mib_per_thread=mib_per_thread, seconds=seconds))
        for k in threads:
            got[k].append(copy_gbps(k, mib_per_thread=mib_per_thread, seconds=seconds))
    one = statistics.median(ones)
    return [{"threads": k, "gbps": statistics.median(got[k]),
             "efficiency": statistics.median(got[k]) / k / one} for k in threads]


#: A chain slowed by more than this by one other chain shares its physical core.
SIBLING_SLOWDOWN = 1.4


def sibling_probe(cpus: list[int] | None = None, *, seconds: float = 0.1) -> dict:
    """Return, for each CPU j, how much a chain on CPU 0 slows when another runs on CPU j.

    Two threads pinned to CPUs 0 and j each run the same chain; ``slowdown`` is
    their time over one chain alone on CPU 0. Logical CPUs that share a physical
    core (SMT siblings) show a slowdown near 2; separate cores near 1. ``spread``
    orders the CPUs one per apparent core first (for ``CUZKLAB_NATIVE_CPUS``).
    """
    import os
    import threading
    cpus = sorted(cpus or os.sched_getaffinity(0))
    n = chain_length(seconds)

    def pinned(cpu_list):
        times = [0.0] * len(cpu_list)
        barrier = threading.Barrier(len(cpu_list))

        def one(i):
            os.sched_setaffinity(0, {cpu_list[i]})
            barrier.wait()
            t = time.perf_counter()
            chain_s(n, 1)
            times[i] = time.perf_counter() - t
        ts = [threading.Thread(target=one, args=(i,)) for i in range(len(cpu_list))]
        for th in ts:
            th.start()
        for th in ts:
            th.join()
        return times[0]

    first = cpus[0]
    alone = statistics.median(pinned([first]) for _ in range(3))
    rows = []
    for j in cpus[1:]:
        rows.append({"cpu": j, "slowdown": statistics.median(pinned([first, j]) for _ in range(3))
                     / alone})
    siblings = [r["cpu"] for r in rows if r["slowdown"] > SIBLING_SLOWDOWN]
    spread = list(cpus)
    if len(siblings) == 1:
        # one sibling at offset d: assume the usual numbering, cores and their siblings in
        # alternating blocks of d CPUs (d = 1: 0,1 | 2,3 ...; d = half the CPUs: 0-7 | 8-15)
        d = siblings[0] - first
        spread = ([c for c in cpus if (c - first) % (2 * d) < d]
                  + [c for c in cpus if (c - first) % (2 * d) >= d])
    return {"first": first, "alone_s": alone, "rows": rows, "siblings_of_first": siblings,
            "spread": spread}
