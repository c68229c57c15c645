"""prep_msm's classify-and-gather in native code on a pool of threads.

Each query (L, A, B) is a selection of the assignment: the inputs under one
mask, then the aux values under another (no mask: all of them). The inputs
and the aux values are one index space, cut into ranges: one on one thread,
else a few per thread (at least ``MIN_CHUNK`` values each) that the threads
of the process-wide native pool (:func:`cuzklab.native.pool.native_pool`)
take in turn, so that a thread whose ranges run slower (more tail values to
copy) does not hold the others up, and no range takes the GIL. Two native
passes over the ranges:

1. classify: a code per value (0 / 1 / other, and which queries select it)
   and, per query, the zeros, ones and others the range selects;
2. gather: one pass over the codes that writes every query's indices of the
   ones, indices of the tail and tail scalars for the range.

Between them, on the calling thread, only the prefix sums of a
(ranges, 3, 3) array of counts (each range's place in each query's outputs;
native, :func:`native_offsets`) and the outputs' allocation: they are
allocated empty, and their pages are first touched by the thread that
writes them. The split rule is SupraSeal's
(see :mod:`cuzklab.stages.prep_msm`); the output equals the NumPy twin's.
"""

from __future__ import annotations

import ctypes

import numpy as np

from .build import library
from .pool import check_threads, native_pool

#: Fewest values per native call; below it the pool only adds overhead.
MIN_CHUNK = 1 << 15

#: Most queries one call splits (the codes hold a selection bit per query).
MAX_QUERIES = 3

#: Native calls made on the calling thread alone, between the pooled passes:
#: ``cuzklab.native.bench.serial_s`` counts them in the serial time.
SERIAL_CALLS = ("fr_split_offsets",)


def _mask_bytes(mask, n: int, what: str) -> np.ndarray | None:
    """Return ``mask`` as a contiguous uint8 array of length n (a view of a bool array), or None."""
    if mask is None:
        return None
    m = np.asarray(mask)
    if m.shape != (n,):
        raise ValueError(f"{what}: expected a mask of shape ({n},), got {m.shape}")
    if m.dtype != np.bool_:                     # the native code reads 0 / 1 bytes
        m = m != 0
    return np.ascontiguousarray(m).view(np.uint8)


def offsets(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (split, totals, at) from per-range counts (ranges, queries, 3: zeros, ones, others).

    ``split[q]``: SupraSeal's rule (the tail at most half of the points);
    ``totals[q]``: (zeros, ones, tail) of the query's outputs; ``at[k, q]``:
    range k's (position, first one, first tail entry) in query q's outputs.
    """
    c = counts
    tot = c.sum(axis=0)                                   # (queries, 3)
    split = ~(2 * tot[:, 2] > tot.sum(axis=1))
    per = np.empty_like(c)
    per[:, :, 0] = c.sum(axis=2)
    per[:, :, 1] = c[:, :, 1] * split
    per[:, :, 2] = c[:, :, 2] + c[:, :, 1] * ~split
    at = np.ascontiguousarray(np.cumsum(per, axis=0))
    at -= per
    totals = per.sum(axis=0)
    totals[:, 0] = tot[:, 0]
    return split, totals, at


def native_offsets(lib, counts: np.ndarray, nq: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return :func:`offsets` of ``counts[:, :nq]`` computed by the native library.

    ``counts``: the classify pass's (ranges, MAX_QUERIES, 3) int64 array;
    ``split`` comes back as int32 (what the gather pass reads), ``at`` as a
    contiguous (ranges, nq, 3) array. The same numbers as :func:`offsets`,
    without its NumPy calls on a few dozen integers between the two passes.
    """
    if counts.shape[1:] != (MAX_QUERIES, 3) or counts.dtype != np.int64 or not counts.flags["C_CONTIGUOUS"]:
        raise ValueError(f"counts: expected a contiguous (ranges, {MAX_QUERIES}, 3) int64 array, "
                         f"got {counts.dtype} {counts.shape}")
    if not 0 <= nq <= MAX_QUERIES:
        raise ValueError(f"nq must be in 0..{MAX_QUERIES}, got {nq}")
    ranges = counts.shape[0]
    split = np.empty(nq, dtype=np.int32)
    totals = np.empty((nq, 3), dtype=np.int64)
    at = np.empty((ranges, nq, 3), dtype=np.int64)
    lib.fr_split_offsets(counts.ctypes.data, ranges, nq, split.ctypes.data, totals.ctypes.data,
                         at.ctypes.data)
    return split, totals, at


def mask_pointers(masks: dict, ni: int, na: int):
    """Return (the masks' pointer array for the native passes, the arrays it points to).

    ``masks``: {query: (input_mask or None, aux_mask or None)} as for
    :func:`split_queries`; entry 2 q + s is query q's mask of segment s (0:
    inputs, 1: aux values), NULL for None. Keep the arrays while the pointers
    are in use.
    """
    keep = []
    ptrs = (ctypes.c_void_p * (2 * MAX_QUERIES))()
    for q, name in enumerate(masks):
        for s, (m, n) in enumerate(zip(masks[name], (ni, na))):
            m = _mask_bytes(m, n, f"masks[{name!r}][{s}]")
            if m is not None:
                keep.append(m)
                ptrs[2 * q + s] = m.ctypes.data
    return ptrs, keep


def output_arrays(queries, split: np.ndarray, totals: np.ndarray):
    """Return ({query: (ones_idx, tail_idx, tail_vals, zeros, ones, split)}, their pointer array).

    The arrays are allocated empty for the gather pass to fill, sized by
    ``totals`` (:func:`offsets`); pointer 3 q + k is query q's k-th array.
    """
    ptrs = (ctypes.c_void_p * (3 * MAX_QUERIES))()
    out = {}
    for q, name in enumerate(queries):
        ones_idx = np.empty(int(totals[q, 1]), dtype=np.int64)
        tail_idx = np.empty(int(totals[q, 2]), dtype=np.int64)
        tail_vals = np.empty((int(totals[q, 2]), 8), dtype=np.uint32)
        ptrs[3 * q: 3 * q + 3] = [ones_idx.ctypes.data, tail_idx.ctypes.data, tail_vals.ctypes.data]
        out[name] = (ones_idx, tail_idx, tail_vals, int(totals[q, 0]), int(totals[q, 1]),
                     bool(split[q]))
    return out, ptrs


def split_queries(inputs: np.ndarray, aux: np.ndarray, masks: dict, *, threads: int = 1,
                  queue=None) -> dict:
    """Return {query: (ones_idx, tail_idx, tail_limbs, zeros, ones, split)} for each query.

    ``inputs``, ``aux``: (n, 8) uint32 Montgomery Fr limbs. ``masks``:
    {query: (input_mask or None, aux_mask or None)}, bool arrays selecting
    the query's scalars (None: all); at most three queries. ``queue``: a
    :class:`~cuzklab.native.pool.NativePool` whose queue each pass joins as
    one job of one range (``threads`` then unused), as cuzk's prep_msm runs
    each pass as a ``par_map`` over its one circuit on the pool that
    b_g2_msm's Pippenger uses: the pass starts on that pool's first free
    thread once the jobs queued before it have every range taken.
    """
    threads = check_threads(threads)
    if queue is not None and not hasattr(queue, "handle"):
        raise ValueError(f"queue: expected a NativePool or None, got {type(queue).__name__}")
    if len(masks) > MAX_QUERIES:
        raise ValueError(f"at most {MAX_QUERIES} queries, got {len(masks)}")
    lib = library()
    inputs, aux = np.ascontiguousarray(inputs), np.ascontiguousarray(aux)
    ni, na = inputs.shape[0], aux.shape[0]
    queries = list(masks)
    nq = len(queries)
    mask_ptrs, keep = mask_pointers(masks, ni, na)   # keep: the arrays outlive the native calls
    n = ni + na
    if queue is not None:  # one range, one job on that pool's queue
        pool, grain = queue, max(n, 1)
    else:
        pool = native_pool(threads) if threads > 1 and n > MIN_CHUNK else None
        grain = pool.grain(n, MIN_CHUNK) if pool is not None else max(n, 1)
    nranges = max(1, -(-n // grain))
    codes = np.empty(n, dtype=np.uint8)
    counts = np.zeros((nranges, MAX_QUERIES, 3), dtype=np.int64)
    pin, pax, pcodes, pcounts = (inputs.ctypes.data, aux.ctypes.data, codes.ctypes.data,
                                 counts.ctypes.data)
    if pool is None:
        lib.fr_classify(pin, ni, pax, 0, n, nq, mask_ptrs, pcodes, pcounts)
    else:
        lib.fr_classify_pool(pool.handle, grain, pin, ni, pax, n, nq, mask_ptrs, pcodes, pcounts)

    split32, totals, at = native_offsets(lib, counts, nq)
    out, out_ptrs = output_arrays(queries, split32, totals)
    psplit, pat = split32.ctypes.data, at.ctypes.data
    if pool is None:
        lib.fr_gather(pin, ni, pax, 0, n, pcodes, nq, psplit, pat, out_ptrs)
    else:
        lib.fr_gather_pool(pool.handle, grain, pin, ni, pax, n, pcodes, nq, psplit, pat,
                           at.strides[0] // at.itemsize, out_ptrs)
    return out
