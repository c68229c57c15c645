"""The NumPy NTT: the same passes as the CUDA kernels, vectorized over whole arrays.

A pass over bits [lo, lo + b) views the data as (high, mid, low) and runs the
b radix-2 stages over the mid axis for every (high, low) at once, then
multiplies by the external twiddles. Results are bit-identical to the GPU
path because every value is a fully reduced Fr element.
"""

from __future__ import annotations

import numpy as np

from ..field import Fr
from .domain import bit_reverse_indices, twiddles
from .plan import plan_passes

_L = 8  # u32 limbs per Fr element


def _fr(limbs: np.ndarray) -> Fr:
    return Fr.from_mont_limbs(np.ascontiguousarray(limbs).reshape(-1, _L), check=False)


def _binop(fn, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = fn(_fr(np.broadcast_to(a, shape)), _fr(np.broadcast_to(b, shape)))
    return out.limbs.reshape(shape)


def _mul(a, b):
    return _binop(lambda x, y: x * y, a, b)


def _add(a, b):
    return _binop(lambda x, y: x + y, a, b)


def _sub(a, b):
    return _binop(lambda x, y: x - y, a, b)


def _powers_of_omega(exponents: np.ndarray, log_n: int, inverse: bool) -> np.ndarray:
    """Return limbs of omega^(+-e) for an int array e in [0, n)."""
    n = 1 << log_n
    table = twiddles(log_n, inverse=inverse).limbs
    e = np.asarray(exponents, dtype=np.int64)
    neg = e >= n // 2
    vals = table[np.where(neg, e - n // 2, e)]
    if neg.any():
        flat = vals.reshape(-1, _L)
        m = neg.ravel()
        flat[m] = (-_fr(flat[m])).limbs
    return vals


def _pass(x: np.ndarray, log_n: int, lo: int, b: int, inverse: bool, dit: bool) -> np.ndarray:
    n, M, L = 1 << log_n, 1 << b, 1 << lo
    H = n // (M * L)
    x = x.reshape(H, M, L, _L)
    ext = None
    if lo > 0:
        k1 = bit_reverse_indices(b)[:, None]
        low = np.arange(L, dtype=np.int64)[None, :]
        ext = _powers_of_omega((low * k1) << (log_n - lo - b), log_n, inverse)[None]
        if dit:
            x = _mul(x, ext)
    wm = _powers_of_omega(np.arange(M // 2, dtype=np.int64) << (log_n - b), log_n, inverse)
    stages = range(b) if dit else range(b - 1, -1, -1)
    for s in stages:
        h = 1 << s
        v = x.reshape(H, M // (2 * h), 2, h, L, _L)
        w = wm[np.arange(h) << (b - 1 - s)][None, None, :, None, :]
        u0, u1 = v[:, :, 0], v[:, :, 1]
        if dit:
            t = _mul(u1, w)
            y0, y1 = _add(u0, t), _sub(u0, t)
        else:
            y0, y1 = _add(u0, u1), _mul(_sub(u0, u1), w)
        x = np.stack([y0, y1], axis=2).reshape(H, M, L, _L)
    if ext is not None and not dit:
        x = _mul(x, ext)
    return x.reshape(n, _L)


def dif(a: Fr, *, inverse: bool = False) -> Fr:
    """Return the (unscaled) transform of natural-order ``a`` in bit-reversed order."""
    log_n = len(a).bit_length() - 1
    x = np.array(a.limbs, copy=True)
    for p in plan_passes(log_n):
        x = _pass(x, log_n, p.lo, p.b, inverse, dit=False)
    return _fr(x)


def dit(a: Fr, *, inverse: bool = False) -> Fr:
    """Return the (unscaled) transform of bit-reversed ``a`` in natural order."""
    log_n = len(a).bit_length() - 1
    x = np.array(a.limbs, copy=True)
    for p in reversed(plan_passes(log_n)):
        x = _pass(x, log_n, p.lo, p.b, inverse, dit=True)
    return _fr(x)


def bit_reverse(a: Fr) -> Fr:
    """Return ``a`` permuted into bit-reversed index order."""
    log_n = len(a).bit_length() - 1
    return Fr.from_mont_limbs(a.limbs[bit_reverse_indices(log_n)], check=False)


def scale_by_powers(a: Fr, x: int, factor: int, *, reversed_order: bool) -> Fr:
    """Return ``a[p] * factor * x^i`` with i = p, or i = bit_reverse(p) when reversed."""
    from .domain import powers
    n = len(a)
    pw = powers(x, n, "cpu") * factor
    if reversed_order:
        pw = bit_reverse(pw)
    return a * pw
