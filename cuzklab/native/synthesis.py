"""Synthesis in native code: the witness program's gates and the A/B/C MatVec.

The witness gates run in order on one thread, or layer by layer on a pool
(gates of one layer read only earlier layers). The MatVec is row-parallel:
each range of rows is one native call that computes those rows of A z, B z
and C z together and writes its slice of each output, which is allocated
empty, so its pages are touched (and RSS grows) as the rows are written, as
in cuzk, by the thread that computes them.
"""

from __future__ import annotations

import ctypes

import numpy as np

from .build import library
from concurrent.futures import ThreadPoolExecutor

from .pool import check_threads, chunks_for, native_pool, ptr, ranges, run_tasks, shared_pool

#: Fewest rows per native MatVec call.
MIN_ROWS = 1 << 13

#: Most matrices one MatVec call computes (A, B and C).
MAX_MATRICES = 3


def matvecs_into(mats, rows: int, inputs: np.ndarray, aux: np.ndarray, outs, *,
                 threads: int = 1, pool=None) -> None:
    """Write M_j z into ``outs[j][:rows]`` ((n, 8) uint32) for each matrix (cols (w, rows), coeffs (w rows, 8)) of ``mats``.

    ``mats``: (cols, coeffs) pairs in ELL layout, at most :data:`MAX_MATRICES`,
    all with ``rows`` rows. Every task computes one range of rows of every
    matrix; the rows are cut into a few ranges per thread of ``threads``.
    ``pool``: the :class:`~cuzklab.native.pool.NativePool` they run on (None: the
    process's native pool of ``threads`` threads; a ``ThreadPoolExecutor`` runs
    one ctypes call per range instead). A pool shared by concurrent MatVecs is how
    cuzk's syntheses share rayon's pool: their batches take its threads in turn.
    """
    threads = check_threads(threads)
    mats, outs = list(mats), list(outs)
    if len(mats) != len(outs) or len(mats) > MAX_MATRICES:
        raise ValueError(f"expected as many outputs as matrices, at most {MAX_MATRICES}; got "
                         f"{len(mats)} matrices and {len(outs)} outputs")
    lib = library()
    keep = []                                   # the arrays outlive the native calls
    for cols, coeffs in mats:
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        coeffs = np.ascontiguousarray(coeffs)
        if cols.ndim != 2 or cols.shape[1] != rows or coeffs.shape != (cols.size, 8):
            raise ValueError(f"a matrix of {rows} rows in ELL layout needs cols (w, {rows}) and "
                             f"coeffs (w {rows}, 8), got {cols.shape} and {coeffs.shape}")
        keep.append((cols, coeffs))
    for out in outs:
        if out.shape[0] < rows or out.shape[1:] != (8,) or not out.flags["C_CONTIGUOUS"]:
            raise ValueError("each output must be C-contiguous (n, 8) with n >= rows")
    inputs, aux = np.ascontiguousarray(inputs), np.ascontiguousarray(aux)
    nm = len(keep)
    pcols = (ctypes.c_void_p * nm)(*[c.ctypes.data for c, _ in keep])
    pcoeffs = (ctypes.c_void_p * nm)(*[k.ctypes.data for _, k in keep])
    pouts = (ctypes.c_void_p * nm)(*[o.ctypes.data for o in outs])
    widths = np.array([c.shape[0] for c, _ in keep], dtype=np.int32)
    pw, pin, pax, ni = widths.ctypes.data, inputs.ctypes.data, aux.ctypes.data, inputs.shape[0]
    if isinstance(pool, ThreadPoolExecutor):  # a Python pool: one ctypes call per range
        run_tasks(lambda lo, hi: lib.fr_matvec(nm, pcols, pcoeffs, pw, rows, lo, hi, pin, ni,
                                               pax, pouts),
                  chunks_for(rows, threads, MIN_ROWS), threads, pool)
        return
    if pool is None and threads <= 1:
        lib.fr_matvec(nm, pcols, pcoeffs, pw, rows, 0, rows, pin, ni, pax, pouts)
        return
    pool = pool if pool is not None else native_pool(threads)
    lib.fr_matvec_pool(pool.handle, pool.grain(rows, MIN_ROWS), nm, pcols, pcoeffs, pw, rows,
                       pin, ni, pax, pouts)


def matvec_into(cols: np.ndarray, coeffs: np.ndarray, rows: int, inputs: np.ndarray,
                aux: np.ndarray, out: np.ndarray, *, threads: int = 1, pool=None) -> None:
    """Write M z into ``out[:rows]`` ((n, 8) uint32), M in ELL layout (cols (w, rows), coeffs (w rows, 8)).

    One matrix of :func:`matvecs_into`.
    """
    matvecs_into([(cols, coeffs)], rows, inputs, aux, [out], threads=threads, pool=pool)


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
