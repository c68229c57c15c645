"""Synthesis in native code: the witness program's gates and the A/B/C MatVec.

The witness gates run in order on one thread, or layer by layer on a pool
(gates of one layer read only earlier layers). The MatVec is row-parallel:
each range of rows is one native call that writes its slice of the output,
which is allocated empty, so its pages are touched (and RSS grows) as the
rows are written, as in cuzk.
"""

from __future__ import annotations

import numpy as np

from .build import library
from .pool import check_threads, chunks_for, ptr, ranges, run_tasks, shared_pool

#: Fewest rows per native MatVec call.
MIN_ROWS = 1 << 13


def matvec_into(cols: np.ndarray, coeffs: np.ndarray, rows: int, inputs: np.ndarray,
                aux: np.ndarray, out: np.ndarray, *, threads: int = 1, pool=None) -> None:
    """Write M z into ``out[:rows]`` ((n, 8) uint32), M in ELL layout (cols (w, rows), coeffs (w rows, 8)).

    The rows are cut into a few ranges per thread of ``threads``; ``pool``: the
    executor they run on (None: the process's shared pool of ``threads`` threads).
    A pool shared by concurrent MatVecs is how cuzk's syntheses share rayon's pool.
    """
    threads = check_threads(threads)
    lib = library()
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    coeffs = np.ascontiguousarray(coeffs)
    inputs, aux = np.ascontiguousarray(inputs), np.ascontiguousarray(aux)
    width = int(cols.shape[0])
    if out.shape[0] < rows or not out.flags["C_CONTIGUOUS"]:
        raise ValueError("out must be C-contiguous with at least one row per matrix row")
    run_tasks(lambda lo, hi: lib.fr_matvec(ptr(cols), ptr(coeffs), width, rows, lo, hi,
                                           ptr(inputs), inputs.shape[0], ptr(aux), ptr(out)),
              chunks_for(rows, threads, MIN_ROWS), threads, pool)


def eval_gates(ops: np.ndarray, args: np.ndarray, outs: np.ndarray, layers: np.ndarray,
               inputs: np.ndarray, inputs_canon: np.ndarray, aux: np.ndarray,
               kconst: np.ndarray, pow2: np.ndarray, *, work_q16: int = 0,
               threads: int = 1) -> int:
    """Evaluate the gates into ``aux``; return the checksum of the extra work.

    ``layers``: row offsets [0, l1, ..., n] of the layers (the first one, the
    input unpacking, always runs on one thread).
    """
    threads = check_threads(threads)
    lib = library()
    inputs, inputs_canon = np.ascontiguousarray(inputs), np.ascontiguousarray(inputs_canon)
    ni = inputs.shape[0]

    def run(lo, hi):
        return lib.witness_eval(ptr(ops), ptr(args), ptr(outs), lo, hi, ptr(inputs), ni,
                                ptr(inputs_canon), ptr(aux), ptr(kconst), ptr(pow2), work_q16)

    n = int(layers[-1])
    if threads == 1:
        return int(run(0, n))
    check = int(run(0, int(layers[1])))
    pool = shared_pool(threads)
    for lo, hi in zip(layers[1:-1], layers[2:]):
        lo, hi = int(lo), int(hi)
        cuts = [(lo + a, lo + b) for a, b in
                ranges(hi - lo, min(threads, max(1, (hi - lo) // 256)))]
        for part in run_tasks(run, cuts, threads, pool):
            check ^= int(part)
    return check
