"""prep_msm's classify-and-gather in native code on a pool of threads.

Each query (L, A, B) is a selection of the assignment: the inputs under one
mask, then the aux values under another (no mask: all of them). One native
pass per range of the inputs and of the aux values writes a 0 / 1 / other code
per value and counts, per query, the zeros, ones and others among the values
it selects; prefix sums of those counts give every range its place in each
query's output; a second pass writes the indices of the ones, those of the
tail and the tail scalars. The split rule is SupraSeal's (see
:mod:`cuzklab.stages.prep_msm`); the output equals the NumPy twin's.
"""

from __future__ import annotations

import numpy as np

from .build import library
from .pool import check_threads, chunks_for, ptr, run_tasks

#: Fewest values per native call; below it the pool only adds overhead.
MIN_CHUNK = 1 << 15


def split_queries(inputs: np.ndarray, aux: np.ndarray, masks: dict, *, threads: int = 1) -> dict:
    """Return {query: (ones_idx, tail_idx, tail_limbs, zeros, ones, split)} for each query.

    ``inputs``, ``aux``: (n, 8) uint32 Montgomery Fr limbs. ``masks``:
    {query: (input_mask or None, aux_mask or None)}, bool arrays selecting
    the query's scalars (None: all); at most three queries.
    """
    threads = check_threads(threads)
    if len(masks) > 3:
        raise ValueError(f"at most three queries, got {len(masks)}")
    lib = library()
    queries = list(masks)
    segments = []
    for seg, vals in enumerate((inputs, aux)):
        vals = np.ascontiguousarray(vals)
        sel = [None if masks[q][seg] is None else np.ascontiguousarray(masks[q][seg], dtype=np.uint8)
               for q in queries]
        sel += [None] * (3 - len(sel))
        codes = np.empty(vals.shape[0], dtype=np.uint8)
        cuts = chunks_for(vals.shape[0], threads, MIN_CHUNK)
        counts = np.zeros((max(1, len(cuts)), 9), dtype=np.int64)

        def classify(k, lo, hi, vals=vals, codes=codes, sel=sel, counts=counts):
            lib.fr_classify(ptr(vals), lo, hi, ptr(codes), ptr(sel[0]), ptr(sel[1]), ptr(sel[2]),
                            counts[k].ctypes.data)

        run_tasks(classify, [(k, lo, hi) for k, (lo, hi) in enumerate(cuts)], threads)
        segments.append((vals, codes, sel, cuts, counts[:len(cuts)].reshape(-1, 3, 3)))
    out = {}
    gathers = []
    for qi, q in enumerate(queries):
        n0 = sum(int(s[4][:, qi, 0].sum()) for s in segments)
        n1 = sum(int(s[4][:, qi, 1].sum()) for s in segments)
        n2 = sum(int(s[4][:, qi, 2].sum()) for s in segments)
        n = n0 + n1 + n2
        split = not 2 * n2 > n
        ones_idx = np.empty(n1 if split else 0, dtype=np.int64)
        tail = n2 if split else n1 + n2
        tail_idx = np.empty(tail, dtype=np.int64)
        tail_vals = np.empty((tail, 8), dtype=np.uint32)
        pos = ones_at = tail_at = 0
        for vals, codes, sel, cuts, counts in segments:
            for k, (lo, hi) in enumerate(cuts):
                c0, c1, c2 = (int(x) for x in counts[k, qi])
                gathers.append((vals, codes, sel[qi], lo, hi, int(split), pos, ones_idx, ones_at,
                                tail_idx, tail_vals, tail_at))
                pos += c0 + c1 + c2
                ones_at += c1 if split else 0
                tail_at += c2 + (0 if split else c1)
        out[q] = (ones_idx, tail_idx, tail_vals, n0, n1 if split else 0, split)

    def gather(vals, codes, sel, lo, hi, split, pos, ones_idx, ones_at, tail_idx, tail_vals, tail_at):
        lib.fr_gather(ptr(vals), ptr(codes), ptr(sel), lo, hi, split, pos, ptr(ones_idx), ones_at,
                      ptr(tail_idx), ptr(tail_vals), tail_at)

    run_tasks(gather, gathers, threads)
    return out
