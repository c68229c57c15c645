"""Scalars for Pippenger: reduction mod r, window sizes and signed (Booth) digits.

A scalar s in [0, r) is written in windows of c bits with digits in
[-2^(c-1), 2^(c-1)], so each window needs only 2^(c-1) buckets; a digit's sign
is folded into the point (subtracting a point is adding its negation). Before
the decomposition, s is replaced by r - s (and every digit negated) when that
is smaller, so s < r/2 < 2^254 and ``windows(c) = ceil(255 / c)`` windows
always suffice (the carry out of the top window is zero).

Everything here works on NumPy or CuPy arrays alike (pass ``xp``); the GPU MSM
does the same decomposition inside its first kernel and is tested against this.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..field.constants import R

#: Bits of the largest scalar after the r - s fold: r/2 < 2^254, plus one bit of
#: room for the carry of the signed digits.
SCALAR_BITS = 255
#: Fr limbs: 8 little-endian 32-bit words.
FR_LIMBS = 8
_HALF_R = R // 2
_R_LIMBS = tuple((R >> (32 * i)) & 0xFFFFFFFF for i in range(FR_LIMBS))

#: Window sizes the MSM accepts (a window of 1 bit would have no buckets after
#: the sign fold; above 24 the bucket arrays no longer pay off at any size).
MIN_WINDOW = 2
MAX_WINDOW = 24


def windows(c: int, bits: int = SCALAR_BITS) -> int:
    """Return the number of c-bit windows of a folded scalar: ceil(bits / c) (ceil(255 / c)).

    ``bits``: the scalars' bit length plus one for the signed-digit carry
    (255 for scalars mod r folded below 2^254; 128 for GLV halves below 2^127).
    """
    return -(-bits // c)


def check_window(window) -> int:
    """Return ``window`` as an int if it is a valid window size, else raise ValueError."""
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)):
        raise TypeError(f"window must be an int in [{MIN_WINDOW}, {MAX_WINDOW}] or None, "
                        f"got {window!r}")
    if not MIN_WINDOW <= int(window) <= MAX_WINDOW:
        raise ValueError(f"window must be in [{MIN_WINDOW}, {MAX_WINDOW}], got {window}")
    return int(window)


def reduce_scalars(scalars) -> list[int]:
    """Return the Python-int scalars reduced mod r (any int is accepted, negatives too)."""
    out = []
    for i, s in enumerate(scalars):
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"scalars[{i}] must be an int, got {type(s).__name__}")
        out.append(operator.index(s) % R)
    return out


def ints_to_limbs(values) -> np.ndarray:
    """Return (n, 8) uint32 little-endian limbs of ints in [0, 2^256)."""
    values = list(values)
    raw = b"".join(int(v).to_bytes(32, "little") for v in values)
    return np.frombuffer(raw, dtype="<u4").reshape(len(values), FR_LIMBS).astype(np.uint32)


def limbs_to_ints(limbs) -> list[int]:
    """Return the ints of (n, 8) uint32 little-endian limbs."""
    arr = np.ascontiguousarray(np.asarray(limbs, dtype=np.uint32))
    raw = arr.astype("<u4").tobytes()
    return [int.from_bytes(raw[32 * i:32 * i + 32], "little") for i in range(arr.shape[0])]


def fold_half(limbs, xp=np):
    """Return (limbs', negate) with limbs' = r - s where s > r/2 (so s' < 2^254)."""
    limbs = xp.asarray(limbs, dtype=xp.uint32)
    n = limbs.shape[0]
    half = ((_HALF_R >> (32 * i)) & 0xFFFFFFFF for i in range(FR_LIMBS))
    # s > half  <=> lexicographic compare from the top limb
    gt = xp.zeros(n, dtype=bool)
    eq = xp.ones(n, dtype=bool)
    half = list(half)
    for i in reversed(range(FR_LIMBS)):
        li = limbs[:, i]
        gt |= eq & (li > half[i])
        eq &= li == half[i]
    # r - s limb by limb with borrow, in uint64 to see the borrow
    out = xp.empty_like(limbs)
    borrow = xp.zeros(n, dtype=xp.uint64)
    for i in range(FR_LIMBS):
        d = xp.uint64(_R_LIMBS[i]) - limbs[:, i].astype(xp.uint64) - borrow
        out[:, i] = (d & xp.uint64(0xFFFFFFFF)).astype(xp.uint32)
        borrow = (d >> xp.uint64(63)).astype(xp.uint64)
    folded = xp.where(gt[:, None], out, limbs)
    return folded, gt


def window_chunks(limbs, c: int, xp=np, bits: int = SCALAR_BITS):
    """Return the unsigned c-bit chunks, shape (windows(c, bits), n), of (n, 8) uint32 limbs."""
    c = check_window(c)
    limbs = xp.asarray(limbs, dtype=xp.uint32)
    n = limbs.shape[0]
    nwin = windows(c, bits)
    # pad with a zero limb so a chunk may straddle past the last limb
    wide = xp.concatenate([limbs, xp.zeros((n, 2), dtype=xp.uint32)], axis=1).astype(xp.uint64)
    chunks = xp.empty((nwin, n), dtype=xp.int64)
    mask = (1 << c) - 1
    for w in range(nwin):
        bit = w * c
        lo, sh = divmod(bit, 32)
        v = (wide[:, lo] | (wide[:, lo + 1] << xp.uint64(32))) >> xp.uint64(sh)
        chunks[w] = (v & xp.uint64(mask)).astype(xp.int64)
    return chunks


def signed_digits(limbs, c: int, xp=np, bits: int = SCALAR_BITS):
    """Return int32 signed digits, shape (windows(c, bits), n), with sum_w d_w 2^(cw) = s mod r.

    ``limbs`` are canonical (n, 8) uint32 scalars in [0, r). Each digit is in
    [-2^(c-1), 2^(c-1)]; the r - s fold is already applied (digits negated).
    ``bits``: every folded scalar is below 2^(bits - 1) (the default holds for
    any scalar mod r; GLV halves, below 2^127, take 128).
    """
    folded, negate = fold_half(limbs, xp)
    chunks = window_chunks(folded, c, xp, bits)
    half = 1 << (c - 1)
    carry = xp.zeros(chunks.shape[1], dtype=xp.int64)
    out = xp.empty(chunks.shape, dtype=xp.int32)
    for w in range(chunks.shape[0]):
        d = chunks[w] + carry
        carry = (d > half).astype(xp.int64)
        d = d - (carry << c)
        out[w] = d.astype(xp.int32)
    # folded < 2^(bits - 1) and windows(c, bits) * c >= bits: the top chunk is
    # below 2^(c-1), so with a carry of 1 it is at most 2^(c-1): nothing is carried out
    out = xp.where(negate[None, :], -out, out)
    return out


def digits_value(digits, c: int) -> list[int]:
    """Return sum_w digits[w] * 2^(c w) mod r for each column (a test oracle helper)."""
    d = np.asarray(digits, dtype=np.int64)
    vals = []
    for i in range(d.shape[1]):
        v = 0
        for w in reversed(range(d.shape[0])):
            v = (v << c) + int(d[w, i])
        vals.append(v % R)
    return vals


#: GPU window sizes by log2(n) (sizes in between take the nearest entry below).
#: From window sweeps on an H200 (benchmarks/bench_msm.py --windows) with the
#: FP64-pipe multiply: 2^20 best at c = 16 (16.2 ms; 15: 17.3-18.8, 17: 18.2,
#: 14: 19.5), 2^24 at c = 17 (178 ms; 16: 183). Earlier sweeps with the
#: integer multiply: 2^16 best at c = 13 (11..16 within 25 %). Below 2^16 the
#: entries follow the CPU cost model; 2^18 and 2^22 are interpolated.
GPU_WINDOWS = {0: 2, 4: 3, 8: 5, 12: 8, 14: 10, 16: 13, 18: 14, 20: 16, 22: 16, 24: 17}
#: GPU window sizes with the GLV split (2n points, 128-bit digits), G1's
#: default: from sweeps on an H200, 2^16 best at c = 12 (6.5 ms; 13: 6.7),
#: 2^18 at 13 (9.3 ms; 14: 10.9), 2^20 at 16 (15.0 ms; 15: 19.5, 17: 19.4,
#: 13: 20.2), 2^22 at 16 (51.2 ms; 15: 58.1), 2^24 at 16 (179-182 ms; 17:
#: 193, 15: 209). With c = 16 the 128 bits fill exactly 8 windows. With the
#: batch-affine rounds (5 of 256 pairs a thread; benchmarks/tune_msm.py
#: --windows 19, ``benchmarks/results/msm-window26-h200.json``): 2^26 at
#: c = 19 (7 windows) 504.1 ms against 521.7 at 16 (the rounds 394.2 against
#: 435.2 ms; the sort 69.1 against 47.4, the reduction 5.2 against 1.4);
#: 2^24 even (138.9 against 138.4 ms), so it stays at 16. A later sweep
#: (``benchmarks/results/msm-window-sweep-h200.json``): 2^24 at c = 17 / 18 /
#: 20 / 21 / 22 took 155.0 / 169.4 / 160.6 / 234.7 / 165.3 ms, 2^22 at 17 / 18 /
#: 19 / 20 47.3-57.3 ms (16: 41.2). The rounds shrink with fewer windows (2^24:
#: 101.2 ms at 22 against 114.8 at 16), but the sort grows wherever the top
#: window holds a few bits of the 128 (c = 18 and 21: bits 126-127 only, so a
#: handful of buckets take a whole window's entries and their counters' atomics
#: serialize: sort 42.2 and 93.7 ms against 11.8 at 16), and from c = 20 the
#: reduction of 2^(c-1) buckets a window (27.8 ms at 22). Once the sort's
#: scalar loads stream past L2 and its entry stores stay there
#: (``gpu.SORT_HINTS``, 2026-12-04, ``msm-sort-hints-24-h200.json``, medians
#: of 5, checked), 2^24 at c = 19 took 107.9 ms against 109.8 at 16 (sort
#: 14.1 against 11.0, rounds 78.0 against 89.9, reduction 3.9 against 1.0;
#: without the hints 110.7 against 110.9), so 2^24 moved to 19; c = 17 and 20
#: took 129.4 and 135.0 (sort 28.1 and 29.8: top windows of 9 and 8 bits).
GPU_WINDOWS_GLV = {0: 2, 4: 3, 8: 5, 12: 8, 14: 10, 16: 12, 18: 13, 20: 16, 22: 16, 24: 19}
#: GPU window sizes for G2 (no GLV): its additions and its bucket reduction
#: both cost ~3x G1's, and the reduction is latency-bound, so smaller windows
#: pay. Sweeps on an H200 (benchmarks/tune_msm.py --group g2 --windows
#: 13,14,15,16): 2^16 best at c = 13 (20.7 ms; 14: 24.1, 15: 23.3, 16: 24.5),
#: 2^18 at 13 (28.7 ms; 15: 29.1, 14: 31.4, 16: 36.6), 2^20 at 15 (69.7 ms;
#: 14: 72.7, 13: 73.0, 16: 81.8). 2^22 and 2^24 are not measured (one more
#: bit per factor 4 of n, as above).
GPU_WINDOWS_G2 = {0: 2, 4: 3, 8: 5, 12: 8, 14: 10, 16: 13, 18: 13, 20: 15, 22: 15, 24: 16}


def default_window(n: int, backend: str = "cpu", *, glv: bool = False, group: str = "g1") -> int:
    """Return the window size for an n-point MSM of ``group`` on ``backend``.

    GPU: the table ``GPU_WINDOWS`` (measured), ``GPU_WINDOWS_GLV`` when the
    MSM splits its scalars with GLV, ``GPU_WINDOWS_G2`` for G2. CPU: the c that minimizes the
    modelled cost in point additions, n per window for the bucket
    accumulation plus c/2 * 2^(c-1) for the bit-by-bit bucket reduction.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if backend == "gpu":
        lg = max(n, 1).bit_length() - 1
        if group not in ("g1", "g2"):
            raise ValueError(f"group must be 'g1' or 'g2', got {group!r}")
        table = GPU_WINDOWS_G2 if group == "g2" else (GPU_WINDOWS_GLV if glv else GPU_WINDOWS)
        return table[max(k for k in table if k <= lg)]
    best, best_cost = MIN_WINDOW, math.inf
    for c in range(MIN_WINDOW, 17):
        cost = windows(c) * (n + c * (1 << (c - 1)) / 2)
        if cost < best_cost:
            best, best_cost = c, cost
    return best
