"""b_g2_msm's Pippenger over G2, in native code on a pool of threads.

Scalars are cut into signed c-bit digits (one native pass over point ranges),
then every (window, point range) pair is one task that fills its 2^(c-1)
XYZZ buckets with mixed additions and reduces them to a window sum; the
window sums are combined by a Horner chain of doublings. The result is the
same point as :func:`cuzklab.msm.msm` on the CPU (the NumPy twin) and as
py_ecc (see tests/native).
"""

from __future__ import annotations

import math

import numpy as np

from ..curve import Point, Points
from ..curve import reference as ref
from ..field import Fp2, Fr
from .build import library
from .pool import check_threads, native_pool, ptr, ranges

#: Fp multiplications of one mixed XYZZ addition (8 Fp2 products at 3, 2
#: squarings at 2) and of one full addition (12 products, 2 squarings): the
#: cost model that picks the window and the split.
MIXED_ADD_MULS = 28
FULL_ADD_MULS = 40
#: Window sizes considered (bits).
WINDOWS = range(4, 17)


def plan(n: int, threads: int) -> tuple[int, int]:
    """Return (c, parts): the window size and point ranges per window for n points on threads."""
    best = None
    for c in WINDOWS:
        w = math.ceil(256 / c)
        # cutting the points of each window too balances the rounds on the pool
        for parts in range(1, max(1, min(math.ceil(4 * threads / w), n // 64)) + 1):
            per_task = MIXED_ADD_MULS * n / parts + FULL_ADD_MULS * (1 << c)
            rounds = math.ceil(w * parts / threads)
            key = (rounds * per_task, w * parts * per_task)
            if best is None or key < best[0]:
                best = (key, c, parts)
    return best[1], best[2]


def tasks(n: int, threads: int) -> int:
    """Return how many (window, point range) tasks an MSM of n points on threads threads has."""
    c, parts = plan(n, threads)
    return math.ceil(256 / c) * len(ranges(n, parts))


def _xyzz_to_point(limbs: np.ndarray) -> Point:
    """Return one XYZZ point given as (4, 2, 12) uint32 Montgomery limbs as an affine Point."""
    coords = Fp2.from_mont_limbs(np.ascontiguousarray(limbs.reshape(4, 2, 12)), "cpu",
                                 check=False).to_ints()
    return Point("g2", ref.xyzz_to_affine("g2", tuple(coords)))


def g2_msm(bases: Points, scalars: Fr, *, idx=None, threads: int = 1,
           window: int | None = None) -> Point:
    """Return sum_i scalars[i] * bases[idx[i]] over G2 (native Pippenger on ``threads`` threads).

    ``idx``: int64 indices into ``bases`` (None: bases[i]); the bases are read
    where they are, not gathered first.
    """
    threads = check_threads(threads)
    if not isinstance(bases, Points) or bases.group != "g2":
        raise TypeError("bases must be G2 Points")
    if not isinstance(scalars, Fr):
        raise TypeError(f"scalars must be an Fr array, got {type(scalars).__name__}")
    n = len(bases) if idx is None else int(np.asarray(idx).shape[0])
    if len(scalars) != n:
        raise ValueError(f"scalars: expected {n} scalars (one per point), got {len(scalars)}")
    if idx is not None:
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        if n and (int(idx.min()) < 0 or int(idx.max()) >= len(bases)):
            raise ValueError(f"idx must index the {len(bases)} bases")
    if n == 0:
        return Point.infinity("g2")
    c, parts = plan(n, threads)
    if window is not None:
        if isinstance(window, bool) or not isinstance(window, int) or window not in WINDOWS:
            raise ValueError(f"window must be an int in [{WINDOWS.start}, {WINDOWS.stop - 1}], got {window!r}")
        c = window
    w = math.ceil(256 / c)
    lib = library()
    bx = np.ascontiguousarray(bases.x.to("cpu").limbs)
    by = np.ascontiguousarray(bases.y.to("cpu").limbs)
    sc = np.ascontiguousarray(scalars.to("cpu").limbs)
    digits = np.empty((w, n), dtype=np.int32)
    cuts = ranges(n, parts)
    parts = len(cuts)
    sums = np.empty((w, parts, 4, 2, 12), dtype=np.uint32)
    if threads <= 1:
        lib.g2_digits(ptr(sc), n, 0, n, c, w, ptr(digits))
        for j in range(w):
            for k, (lo, hi) in enumerate(cuts):
                lib.g2_window(ptr(bx), ptr(by), ptr(idx), digits[j].ctypes.data, lo, hi, c,
                              sums[j, k].ctypes.data)
    else:  # on the native pool of `threads`: its threads never take the GIL
        pool = native_pool(threads)
        edges = np.array([lo for lo, _ in cuts] + [cuts[-1][1]], dtype=np.int64)
        lib.g2_digits_pool(pool.handle, -(-n // threads), ptr(sc), n, c, w, ptr(digits))
        lib.g2_windows_pool(pool.handle, ptr(bx), ptr(by), ptr(idx), ptr(digits), n, w, parts,
                            ptr(edges), c, ptr(sums))
    if (sums == 0xFFFFFFFF).all(axis=(2, 3, 4)).any():
        raise MemoryError("b_g2_msm: a native bucket allocation failed")
    out = np.empty((4, 2, 12), dtype=np.uint32)
    lib.g2_combine(ptr(sums), w, parts, c, ptr(out))
    return _xyzz_to_point(out)
