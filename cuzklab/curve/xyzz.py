"""Batched points in XYZZ coordinates: x = X/ZZ, y = Y/ZZZ (ZZ^3 = ZZZ^2).

The bucket coordinates of the MSM (sppark's ``xyzz_t``): a mixed addition costs
8M + 2S and needs no inversion. The point at infinity has ZZ = ZZZ = 0.
Formulas (EFD, short Weierstrass a = 0): add-2008-s, madd-2008-s,
dbl-2008-s-1, mdbl-2008-s-1, with the doubling and infinity cases handled by
elementwise selects, so a batch may mix all cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import to_numpy, xp
from . import fields as FF


@dataclass(frozen=True)
class XYZZ:
    """A batch of points (X, Y, ZZ, ZZZ) of one group on one backend."""

    group: str
    X: object
    Y: object
    ZZ: object
    ZZZ: object

    @property
    def backend(self) -> str:
        return self.X.backend

    def __len__(self) -> int:
        return len(self.X)

    def is_infinity(self):
        """Return the bool array of points at infinity."""
        return self.ZZ.is_zero()


def infinity(group: str, n: int, backend: str = "cpu") -> XYZZ:
    """Return n points at infinity (1, 1, 0, 0)."""
    one, zero = FF.ones(group, n, backend), FF.zeros(group, n, backend)
    return XYZZ(group, one, one, zero, zero)


def from_affine(pts) -> XYZZ:
    """Return affine ``Points`` in XYZZ (ZZ = ZZZ = 1; infinity (0, 0) gets ZZ = 0)."""
    inf = pts.is_infinity()
    one = FF.ones(pts.group, len(pts), pts.backend)
    zero = FF.zeros(pts.group, len(pts), pts.backend)
    zz = FF.select(inf, zero, one)
    return XYZZ(pts.group, FF.select(inf, one, pts.x), FF.select(inf, one, pts.y), zz, zz)


def affine_coords(p: XYZZ):
    """Return the affine coordinates (x, y) of the batch, (0, 0) at infinity (one batched inversion).

    ``Points.from_xyzz`` wraps them; this module stays below :mod:`.affine`.
    """
    inf = p.is_infinity()
    n = len(p)
    one = FF.ones(p.group, n, p.backend)
    zz = FF.select(inf, one, p.ZZ)
    zzz = FF.select(inf, one, p.ZZZ)
    t = (zz * zzz).inverse()
    x = p.X * zzz * t
    y = p.Y * zz * t
    zero = FF.zeros(p.group, n, p.backend)
    return FF.select(inf, zero, x), FF.select(inf, zero, y)


def where(mask, a: XYZZ, b: XYZZ) -> XYZZ:
    """Return elementwise ``mask ? a : b``."""
    return XYZZ(a.group, FF.select(mask, a.X, b.X), FF.select(mask, a.Y, b.Y),
                FF.select(mask, a.ZZ, b.ZZ), FF.select(mask, a.ZZZ, b.ZZZ))


def take(p: XYZZ, idx) -> XYZZ:
    """Return the points at ``idx``."""
    return XYZZ(p.group, FF.take(p.X, idx), FF.take(p.Y, idx), FF.take(p.ZZ, idx), FF.take(p.ZZZ, idx))


def concat(parts) -> XYZZ:
    """Return the batches concatenated."""
    parts = list(parts)
    cls = type(parts[0].X)
    return XYZZ(parts[0].group, *(cls.concat([getattr(q, c) for q in parts]) for c in ("X", "Y", "ZZ", "ZZZ")))


def neg(p: XYZZ) -> XYZZ:
    """Return -p."""
    return XYZZ(p.group, p.X, -p.Y, p.ZZ, p.ZZZ)


def negate_where(p: XYZZ, mask) -> XYZZ:
    """Return elementwise ``mask ? -p : p``."""
    return XYZZ(p.group, p.X, FF.select(mask, -p.Y, p.Y), p.ZZ, p.ZZZ)


def double(p: XYZZ) -> XYZZ:
    """Return 2p (dbl-2008-s-1; infinity stays infinity)."""
    U = p.Y.double()
    V = U.square()
    W = U * V
    S = p.X * V
    M = FF.triple(p.X.square())
    X3 = M.square() - S.double()
    Y3 = M * (S - X3) - W * p.Y
    return XYZZ(p.group, X3, Y3, V * p.ZZ, W * p.ZZZ)


def _any(mask) -> bool:
    return bool(to_numpy(mask.any()))


def add(p: XYZZ, q: XYZZ) -> XYZZ:
    """Return p + q elementwise (add-2008-s; equal points doubled, infinity handled)."""
    U1 = p.X * q.ZZ
    U2 = q.X * p.ZZ
    S1 = p.Y * q.ZZZ
    S2 = q.Y * p.ZZZ
    P = U2 - U1
    R = S2 - S1
    PP = P.square()
    PPP = P * PP
    Q = U1 * PP
    X3 = R.square() - PPP - Q.double()
    Y3 = R * (Q - X3) - S1 * PPP
    out = XYZZ(p.group, X3, Y3, p.ZZ * q.ZZ * PP, p.ZZZ * q.ZZZ * PPP)
    pinf, qinf = p.is_infinity(), q.is_infinity()
    same = P.is_zero() & R.is_zero() & ~pinf & ~qinf
    if _any(same):
        out = where(same, double(p), out)
    out = where(qinf, p, out)
    return where(pinf, q, out)


def add_mixed(p: XYZZ, q) -> XYZZ:
    """Return p + q elementwise for XYZZ p and affine ``Points`` q (madd-2008-s)."""
    U2 = q.x * p.ZZ
    S2 = q.y * p.ZZZ
    P = U2 - p.X
    R = S2 - p.Y
    PP = P.square()
    PPP = P * PP
    Q = p.X * PP
    X3 = R.square() - PPP - Q.double()
    Y3 = R * (Q - X3) - p.Y * PPP
    out = XYZZ(p.group, X3, Y3, p.ZZ * PP, p.ZZZ * PPP)
    pinf, qinf = p.is_infinity(), q.is_infinity()
    qx = from_affine(q)
    same = P.is_zero() & R.is_zero() & ~pinf & ~qinf
    if _any(same):
        out = where(same, double(qx), out)
    out = where(qinf, p, out)
    return where(pinf, qx, out)


class XYZZOps:
    """The batched-group interface of :mod:`cuzklab.msm.pippenger` on XYZZ points."""

    def __init__(self, group: str, backend: str):
        self.group = group
        self.backend = backend

    def identity(self, n):
        return infinity(self.group, n, self.backend)

    def take(self, batch, idx):
        return take(batch, np.asarray(idx, dtype=np.int64) if self.backend == "cpu" else xp("gpu").asarray(idx))

    def where(self, mask, a, b):
        return where(mask, a, b)

    def negate_where(self, batch, mask):
        return negate_where(batch, mask)

    def add(self, a, b):
        return add(a, b)

    def double(self, a):
        return double(a)

    def length(self, batch):
        return len(batch)
