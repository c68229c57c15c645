"""b_g2_msm's Pippenger over G2, in native code on a pool of threads.

Scalars are cut into signed c-bit digits (one native pass over point ranges),
then every (window, bucket range) pair is one task that reads the window's
digits of all points, sorts the points whose digit falls in its range of the
2^(c-1) buckets by bucket, adds them in rounds of affine pairs with one
inversion a round (then the few left into XYZZ buckets), and reduces its
buckets to their share of the window sum (running sums over the range, plus
the range's start times the range's total). Cutting a window by buckets, not
by points, costs no extra bucket reduction per part, so a window can be cut
into as many tasks as keep every thread of the pool busy to the end; the top
window, whose digits reach a few buckets only, is cut over those (its tasks
add as many points as the others' do). The
window sums are combined by a Horner chain of doublings. The result is the
same point as :func:`cuzklab.msm.msm` on the CPU (the NumPy twin) and as
py_ecc (see tests/native).
"""

from __future__ import annotations

import math
import time

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
#: Fp multiplications' worth of reading one digit that is not in a task's range.
SCAN_MULS = 0.05
#: Window sizes considered (bits).
WINDOWS = range(4, 17)
#: Plans within this factor of the fastest are as good; of those, the one with the most
#: tasks (up to TASKS_PER_THREAD a thread) wins, so that a slow core delays a small task.
PLAN_SLACK = 1.03
TASKS_PER_THREAD = 4


def _task_cost(n: int, c: int, parts: int) -> float:
    """Return the Fp multiplications of one task: a window of c bits cut into ``parts`` bucket ranges."""
    buckets = 1 << (c - 1)
    return ((MIXED_ADD_MULS * n + 2 * FULL_ADD_MULS * buckets) / parts
            + (2 * FULL_ADD_MULS * c if parts > 1 else 0) + SCAN_MULS * n)


def plan(n: int, threads: int) -> tuple[int, int]:
    """Return (c, parts): the window size and bucket ranges per window for n points on threads."""
    options = []
    for c in WINDOWS:
        w = math.ceil(256 / c)
        top = max(1, min(1 << (c - 1), math.ceil(2 * TASKS_PER_THREAD * threads / w)))
        for parts in range(1, top + 1):
            per_task = _task_cost(n, c, parts)
            makespan = math.ceil(w * parts / threads) * per_task
            options.append((makespan, w * parts * per_task, c, parts, w * parts))
    fastest = min(o[0] for o in options)
    good = [o for o in options if o[0] <= PLAN_SLACK * fastest]
    cap = TASKS_PER_THREAD * threads
    _, _, c, parts, _ = min(good, key=lambda o: (-min(o[4], cap), o[1], o[0]))
    return c, parts


def plan_parts(n: int, threads: int, c: int) -> int:
    """Return the bucket ranges per window that :func:`plan` would pick for n points with window c."""
    w = math.ceil(256 / c)
    top = max(1, min(1 << (c - 1), math.ceil(2 * TASKS_PER_THREAD * threads / w)))
    best = min(range(1, top + 1), key=lambda p: math.ceil(w * p / threads) * _task_cost(n, c, p))
    return best


def tasks(n: int, threads: int) -> int:
    """Return how many (window, bucket range) tasks an MSM of n points on threads threads has."""
    c, parts = plan(n, threads)
    return math.ceil(256 / c) * len(ranges(1 << (c - 1), parts))


def top_buckets(digits: np.ndarray) -> int:
    """Return how many buckets the top window's digits reach: its largest |digit| (at least 1).

    ``digits``: the (windows, n) signed digits. A scalar below r has 255 bits, so the
    top window of ``ceil(256 / c)`` holds a few bits and a carry (at c = 11 its digits
    are 0..4 of the 1,024 buckets): cut like the others, one of its tasks would get
    every point and run three to four times as long as any other, alone at the end.
    """
    top = digits[-1]
    return max(1, int(np.abs(top).max())) if top.size else 1


def window_cuts(c: int, parts: int, top: int) -> np.ndarray:
    """Return the (windows, parts + 1) bucket edges of each window's ``parts`` tasks.

    Every window but the top one cuts its 2^(c-1) buckets into ``parts`` equal ranges;
    the top window cuts only the ``top`` buckets its digits reach (:func:`top_buckets`),
    so that its tasks add as many points each as the others' do. Empty ranges (a top
    window of fewer buckets than parts) cost a task nothing.
    """
    w, half = math.ceil(256 / c), 1 << (c - 1)
    k = np.arange(parts + 1, dtype=np.int64)
    edges = np.repeat((half * k // parts)[None, :], w, axis=0)
    edges[-1] = min(half, max(1, int(top))) * k // parts
    return np.ascontiguousarray(edges)


def _xyzz_to_point(limbs: np.ndarray) -> Point:
    """Return one XYZZ point given as (4, 2, 12) uint32 Montgomery limbs as an affine Point."""
    coords = Fp2.from_mont_limbs(np.ascontiguousarray(limbs.reshape(4, 2, 12)), "cpu",
                                 check=False).to_ints()
    return Point("g2", ref.xyzz_to_affine("g2", tuple(coords)))


#: The phases of one :func:`g2_msm` call that its ``phases`` argument receives, in order.
PHASES = ("prepare_s", "digits_s", "windows_s", "combine_s")


def g2_msm(bases: Points, scalars: Fr, *, idx=None, threads: int = 1,
           window: int | None = None, parts: int | None = None,
           phases: dict | None = None) -> Point:
    """Return sum_i scalars[i] * bases[idx[i]] over G2 (native Pippenger on ``threads`` threads).

    ``idx``: int64 indices into ``bases`` (None: bases[i]); the bases are read
    where they are, not gathered first. ``window`` (bits) and ``parts`` (bucket
    ranges per window) override the plan's. ``phases``: a dict that receives
    the seconds of the call's phases (:data:`PHASES`): the checks, plan and
    arrays on the caller's thread; the digit pass and the window tasks (on the
    pool when ``threads`` > 1); the window sums' combination and the affine
    result on the caller's thread.
    """
    t0 = time.perf_counter()
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
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or window not in WINDOWS):
        raise ValueError(f"window must be an int in [{WINDOWS.start}, {WINDOWS.stop - 1}], got {window!r}")
    if parts is not None and (isinstance(parts, bool) or not isinstance(parts, int) or parts < 1):
        raise ValueError(f"parts must be an int >= 1, got {parts!r}")
    if n == 0:
        if phases is not None:
            phases.update(dict.fromkeys(PHASES, 0.0), prepare_s=time.perf_counter() - t0)
        return Point.infinity("g2")
    if window is None:
        c, planned = plan(n, threads)
    else:
        c, planned = window, plan_parts(n, threads, window)
    parts = planned if parts is None else parts
    w = math.ceil(256 / c)
    lib = library()
    bx = np.ascontiguousarray(bases.x.to("cpu").limbs)
    by = np.ascontiguousarray(bases.y.to("cpu").limbs)
    sc = np.ascontiguousarray(scalars.to("cpu").limbs)
    digits = np.empty((w, n), dtype=np.int32)
    parts = len(ranges(1 << (c - 1), parts))
    sums = np.empty((w, parts, 4, 2, 12), dtype=np.uint32)
    t1 = time.perf_counter()
    if threads <= 1:
        lib.g2_digits(ptr(sc), n, 0, n, c, w, ptr(digits))
        edges = window_cuts(c, parts, top_buckets(digits))
        t2 = time.perf_counter()
        for j in range(w):
            for k in range(parts):
                lib.g2_window(ptr(bx), ptr(by), ptr(idx), digits[j].ctypes.data, n, c,
                              int(edges[j, k]), int(edges[j, k + 1]), sums[j, k].ctypes.data)
    else:  # on the native pool of `threads`: its threads never take the GIL
        pool = native_pool(threads)
        lib.g2_digits_pool(pool.handle, -(-n // threads), ptr(sc), n, c, w, ptr(digits))
        edges = window_cuts(c, parts, top_buckets(digits))
        t2 = time.perf_counter()
        lib.g2_windows_pool(pool.handle, ptr(bx), ptr(by), ptr(idx), ptr(digits), n, w, parts,
                            ptr(edges), c, ptr(sums))
    t3 = time.perf_counter()
    if (sums == 0xFFFFFFFF).all(axis=(2, 3, 4)).any():
        raise MemoryError("b_g2_msm: a native bucket allocation failed")
    out = np.empty((4, 2, 12), dtype=np.uint32)
    lib.g2_combine(ptr(sums), w, parts, c, ptr(out))
    point = _xyzz_to_point(out)
    if phases is not None:
        phases.update(zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, time.perf_counter() - t3)))
    return point
