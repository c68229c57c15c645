"""NumPy kernels on raw limb arrays: shape (n, L), dtype uint32, Montgomery form.

Vectorized over the batch, looping over limbs. Internally each function works
on a limb-major (L, k) uint64 copy of a chunk of the batch, so that every limb
is a contiguous vector and 32x32->64 products fit in uint64.
"""

from __future__ import annotations

import numpy as np

from .constants import FieldConstants

U32 = np.uint32
U64 = np.uint64
MASK = U64(0xFFFFFFFF)
S32 = U64(32)
CHUNK = 8192  # elements per chunk: keeps the (L, k) uint64 temporaries in cache


class _Consts:
    """Per-field NumPy constants, built once."""

    def __init__(self, fc: FieldConstants):
        L = fc.limbs
        self.fc = fc
        self.L = L
        self.mod_col = np.array(fc.modulus_limbs, dtype=U64).reshape(L, 1)
        self.mod_vec = np.array(fc.modulus_limbs, dtype=U64)
        self.inv = U64(fc.m0inv)
        self.r1 = np.array(fc.mont_r_limbs, dtype=U32)
        self.r2 = np.array(fc.mont_r2_limbs, dtype=U32)
        one = np.zeros(L, dtype=U32)
        one[0] = 1
        self.one_canon = one


_CONSTS: dict[str, _Consts] = {}


def consts(fc: FieldConstants) -> _Consts:
    c = _CONSTS.get(fc.name)
    if c is None:
        c = _CONSTS[fc.name] = _Consts(fc)
    return c


def _cols(a: np.ndarray) -> np.ndarray:
    """(k, L) uint32 -> (L, k) uint64, C-contiguous."""
    return np.ascontiguousarray(a.T, dtype=U64)


def _rows(c: np.ndarray) -> np.ndarray:
    """(L, k) uint64 with values < 2^32 -> (k, L) uint32, C-contiguous."""
    return np.ascontiguousarray(c.T).astype(U32)


def _final_sub_cols(t: np.ndarray, hi: np.ndarray | None, c: _Consts) -> np.ndarray:
    """t: (L, k) normalized limbs (< 2^32), hi: (k,) top word or None; t + hi*2^(32L) < 2m.

    Returns (L, k) uint64 holding t mod m.
    """
    L = c.L
    d = np.empty_like(t)
    borrow = np.zeros(t.shape[1], dtype=U64)
    base = U64(1 << 32)
    for j in range(L):
        x = t[j] + base - c.mod_vec[j] - borrow
        d[j] = x & MASK
        borrow = U64(1) - (x >> S32)
    keep = borrow.astype(bool)           # t < m (as an L-limb number)
    if hi is not None:
        keep &= hi == 0
    return np.where(keep, t, d)


def _mont_mul_cols(A: np.ndarray, B: np.ndarray, c: _Consts) -> np.ndarray:
    """Montgomery product of (L, k) uint64 limb columns; returns (L, k) uint64 reduced."""
    L = c.L
    k = A.shape[1]
    acc = np.zeros((2 * L + 1, k), dtype=U64)
    p = np.empty((L, k), dtype=U64)
    tmp = np.empty((L, k), dtype=U64)
    # schoolbook product, column sums unnormalized (< 2L * 2^32 each)
    for i in range(L):
        np.multiply(A, B[i], out=p)
        np.bitwise_and(p, MASK, out=tmp)
        acc[i:i + L] += tmp
        np.right_shift(p, S32, out=tmp)
        acc[i + 1:i + L + 1] += tmp
    # Montgomery reduction, one limb at a time, carrying as we go
    for i in range(L):
        q = ((acc[i] & MASK) * c.inv) & MASK
        np.multiply(c.mod_col, q, out=p)
        np.bitwise_and(p, MASK, out=tmp)
        acc[i:i + L] += tmp
        np.right_shift(p, S32, out=tmp)
        acc[i + 1:i + L + 1] += tmp
        acc[i + 1] += acc[i] >> S32
    # normalize the upper half
    hi = acc[L:]
    for j in range(L):
        hi[j + 1] += hi[j] >> S32
        hi[j] &= MASK
    return _final_sub_cols(hi[:L], hi[L], c)


def _chunked(fn, n, *arrays):
    if n <= CHUNK:
        return fn(*arrays)
    outs = [fn(*(x[s:s + CHUNK] for x in arrays)) for s in range(0, n, CHUNK)]
    return np.concatenate(outs, axis=0)


def _bcast(a: np.ndarray, n: int) -> np.ndarray:
    return a if a.shape[0] == n else np.broadcast_to(a, (n, a.shape[1]))


def mont_mul(a: np.ndarray, b: np.ndarray, fc: FieldConstants) -> np.ndarray:
    """a*b*R^-1 mod m elementwise; a, b: (n, L) or (1, L) uint32 (length 1 broadcasts)."""
    c = consts(fc)
    n = max(a.shape[0], b.shape[0]) if min(a.shape[0], b.shape[0]) else 0
    a, b = _bcast(a, n), _bcast(b, n)
    if n == 0:
        return np.zeros((0, c.L), dtype=U32)
    return _chunked(lambda x, y: _rows(_mont_mul_cols(_cols(x), _cols(y), c)), n, a, b)


def mont_sqr(a: np.ndarray, fc: FieldConstants) -> np.ndarray:
    return mont_mul(a, a, fc)


def add(a: np.ndarray, b: np.ndarray, fc: FieldConstants) -> np.ndarray:
    c = consts(fc)
    n = max(a.shape[0], b.shape[0]) if min(a.shape[0], b.shape[0]) else 0
    if n == 0:
        return np.zeros((0, c.L), dtype=U32)

    def f(x, y):
        t = _cols(x) + _cols(y)
        for j in range(c.L - 1):
            t[j + 1] += t[j] >> S32
            t[j] &= MASK
        hi = t[c.L - 1] >> S32
        t[c.L - 1] &= MASK
        return _rows(_final_sub_cols(t, hi, c))
    return _chunked(f, n, _bcast(a, n), _bcast(b, n))


def sub(a: np.ndarray, b: np.ndarray, fc: FieldConstants) -> np.ndarray:
    c = consts(fc)
    n = max(a.shape[0], b.shape[0]) if min(a.shape[0], b.shape[0]) else 0
    if n == 0:
        return np.zeros((0, c.L), dtype=U32)
    base = U64(1 << 32)

    def f(x, y):
        X, Y = _cols(x), _cols(y)
        d = np.empty_like(X)
        borrow = np.zeros(X.shape[1], dtype=U64)
        for j in range(c.L):
            t = X[j] + base - Y[j] - borrow
            d[j] = t & MASK
            borrow = U64(1) - (t >> S32)
        # add m back where a < b
        addm = c.mod_col * borrow  # (L, k)
        carry = np.zeros(X.shape[1], dtype=U64)
        for j in range(c.L):
            t = d[j] + addm[j] + carry
            d[j] = t & MASK
            carry = t >> S32
        return _rows(d)
    return _chunked(f, n, _bcast(a, n), _bcast(b, n))


def neg(a: np.ndarray, fc: FieldConstants) -> np.ndarray:
    c = consts(fc)
    z = np.zeros((1, c.L), dtype=U32)
    return sub(z, a, fc) if a.shape[0] else a.copy()


def to_mont(a_canon: np.ndarray, fc: FieldConstants) -> np.ndarray:
    """Canonical limbs (values < m) -> Montgomery limbs."""
    return mont_mul(a_canon, consts(fc).r2.reshape(1, -1), fc)


def from_mont(a: np.ndarray, fc: FieldConstants) -> np.ndarray:
    """Montgomery limbs -> canonical limbs."""
    return mont_mul(a, consts(fc).one_canon.reshape(1, -1), fc)


def geq_modulus(a: np.ndarray, fc: FieldConstants) -> np.ndarray:
    """Bool (n,): True where the (n, L) uint32 limbs hold a value >= m."""
    c = consts(fc)
    if a.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    A = _cols(a)
    borrow = np.zeros(A.shape[1], dtype=U64)
    base = U64(1 << 32)
    for j in range(c.L):
        t = A[j] + base - c.mod_vec[j] - borrow
        borrow = U64(1) - (t >> S32)
    return borrow == 0


def is_zero(a: np.ndarray) -> np.ndarray:
    return ~a.any(axis=1)


def pow_(a: np.ndarray, e: int, fc: FieldConstants) -> np.ndarray:
    """a^e elementwise for one exponent e >= 0 (left-to-right square and multiply)."""
    c = consts(fc)
    r = np.broadcast_to(c.r1, a.shape).copy()
    if e == 0 or a.shape[0] == 0:
        return r
    r = a.copy()
    for bit in bin(e)[3:]:
        r = mont_mul(r, r, fc)
        if bit == "1":
            r = mont_mul(r, a, fc)
    return r


def inverse(a: np.ndarray, fc: FieldConstants, width: int = 1024) -> np.ndarray:
    """Batched inverse (Montgomery's trick); the caller has checked there is no zero.

    The batch is laid out as a (rows, width) grid; prefix products run down the
    rows (vectorized across the width), the `width` row totals are inverted
    with Python's pow, then a backward pass recovers every inverse.
    """
    c = consts(fc)
    n = a.shape[0]
    L = c.L
    if n == 0:
        return a.copy()
    width = min(width, n)
    rows = -(-n // width)
    pad = rows * width - n
    x = np.concatenate([a, np.broadcast_to(c.r1, (pad, L))]) if pad else a
    x = x.reshape(rows, width, L)
    prefix = np.empty_like(x)
    prefix[0] = x[0]
    for i in range(1, rows):
        prefix[i] = mont_mul(prefix[i - 1], x[i], fc)
    tot = limbs_to_ints(from_mont(prefix[rows - 1], fc))
    m = fc.modulus
    inv = to_mont(ints_to_limbs([pow(t, -1, m) for t in tot], L), fc)
    out = np.empty_like(x)
    for i in range(rows - 1, 0, -1):
        out[i] = mont_mul(inv, prefix[i - 1], fc)
        inv = mont_mul(inv, x[i], fc)
    out[0] = inv
    return out.reshape(rows * width, L)[:n].copy()


# ---- conversions between Python ints and canonical limbs ----

def ints_to_limbs(values, L: int) -> np.ndarray:
    """List of ints in [0, 2^(32L)) -> (n, L) uint32 canonical limbs (no checks)."""
    nb = 4 * L
    buf = b"".join(v.to_bytes(nb, "little") for v in values)
    return np.frombuffer(buf, dtype="<u4").astype(U32).reshape(-1, L)


def limbs_to_ints(a: np.ndarray) -> list[int]:
    """(n, L) uint32 canonical limbs -> list of Python ints."""
    a = np.ascontiguousarray(a, dtype="<u4")
    n, L = a.shape
    nb = 4 * L
    buf = a.tobytes()
    return [int.from_bytes(buf[i * nb:(i + 1) * nb], "little") for i in range(n)]
