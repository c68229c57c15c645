"""Batched points in Jacobian coordinates: x = X/Z^2, y = Y/Z^3.

Used for general-purpose arithmetic on point batches (scalar multiplication,
subgroup checks). The point at infinity has Z = 0. Formulas (EFD, short
Weierstrass a = 0): dbl-2009-l, add-2007-bl, madd-2007-bl, with the doubling
and infinity cases handled by elementwise selects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import to_numpy, xp
from . import fields as FF


@dataclass(frozen=True)
class Jacobian:
    """A batch of points (X, Y, Z) of one group on one backend."""

    group: str
    X: object
    Y: object
    Z: object

    @property
    def backend(self) -> str:
        return self.X.backend

    def __len__(self) -> int:
        return len(self.X)

    def is_infinity(self):
        """Return the bool array of points at infinity."""
        return self.Z.is_zero()


def _any(mask) -> bool:
    return bool(to_numpy(mask.any()))


def infinity(group: str, n: int, backend: str = "cpu") -> Jacobian:
    """Return n points at infinity (1, 1, 0)."""
    one = FF.ones(group, n, backend)
    return Jacobian(group, one, one, FF.zeros(group, n, backend))


def from_affine(pts) -> Jacobian:
    """Return affine ``Points`` in Jacobian coordinates (Z = 1, or 0 for infinity)."""
    inf = pts.is_infinity()
    one = FF.ones(pts.group, len(pts), pts.backend)
    z = FF.select(inf, FF.zeros(pts.group, len(pts), pts.backend), one)
    return Jacobian(pts.group, FF.select(inf, one, pts.x), FF.select(inf, one, pts.y), z)


def affine_coords(p: Jacobian):
    """Return the affine coordinates (x, y) of the batch, (0, 0) at infinity (one batched inversion).

    ``Points.from_jacobian`` wraps them; this module stays below :mod:`.affine`.
    """
    inf = p.is_infinity()
    n = len(p)
    zi = FF.select(inf, FF.ones(p.group, n, p.backend), p.Z).inverse()
    zi2 = zi.square()
    zero = FF.zeros(p.group, n, p.backend)
    return FF.select(inf, zero, p.X * zi2), FF.select(inf, zero, p.Y * zi2 * zi)


def where(mask, a: Jacobian, b: Jacobian) -> Jacobian:
    """Return elementwise ``mask ? a : b``."""
    return Jacobian(a.group, FF.select(mask, a.X, b.X), FF.select(mask, a.Y, b.Y),
                    FF.select(mask, a.Z, b.Z))


def neg(p: Jacobian) -> Jacobian:
    """Return -p."""
    return Jacobian(p.group, p.X, -p.Y, p.Z)


def double(p: Jacobian) -> Jacobian:
    """Return 2p (dbl-2009-l; infinity stays infinity)."""
    A = p.X.square()
    B = p.Y.square()
    C = B.square()
    D = ((p.X + B).square() - A - C).double()
    E = FF.triple(A)
    F = E.square()
    X3 = F - D.double()
    Y3 = E * (D - X3) - C.double().double().double()
    Z3 = (p.Y * p.Z).double()
    return Jacobian(p.group, X3, Y3, Z3)


def add(p: Jacobian, q: Jacobian) -> Jacobian:
    """Return p + q elementwise (add-2007-bl; equal points doubled, infinity handled)."""
    Z1Z1 = p.Z.square()
    Z2Z2 = q.Z.square()
    U1 = p.X * Z2Z2
    U2 = q.X * Z1Z1
    S1 = p.Y * q.Z * Z2Z2
    S2 = q.Y * p.Z * Z1Z1
    H = U2 - U1
    r = (S2 - S1).double()
    I = H.double().square()
    J = H * I
    V = U1 * I
    X3 = r.square() - J - V.double()
    Y3 = r * (V - X3) - (S1 * J).double()
    Z3 = ((p.Z + q.Z).square() - Z1Z1 - Z2Z2) * H
    out = Jacobian(p.group, X3, Y3, Z3)
    pinf, qinf = p.is_infinity(), q.is_infinity()
    same = H.is_zero() & r.is_zero() & ~pinf & ~qinf
    if _any(same):
        out = where(same, double(p), out)
    out = where(qinf, p, out)
    return where(pinf, q, out)


def add_mixed(p: Jacobian, q) -> Jacobian:
    """Return p + q elementwise for Jacobian p and affine ``Points`` q (madd-2007-bl)."""
    Z1Z1 = p.Z.square()
    U2 = q.x * Z1Z1
    S2 = q.y * p.Z * Z1Z1
    H = U2 - p.X
    HH = H.square()
    I = HH.double().double()
    J = H * I
    r = (S2 - p.Y).double()
    V = p.X * I
    X3 = r.square() - J - V.double()
    Y3 = r * (V - X3) - (p.Y * J).double()
    Z3 = (p.Z + H).square() - Z1Z1 - HH
    out = Jacobian(p.group, X3, Y3, Z3)
    pinf, qinf = p.is_infinity(), q.is_infinity()
    qj = from_affine(q)
    same = H.is_zero() & r.is_zero() & ~pinf & ~qinf
    if _any(same):
        out = where(same, double(qj), out)
    out = where(qinf, p, out)
    return where(pinf, qj, out)


def mul_bits(q, bits) -> Jacobian:
    """Return [k_i] q_i for affine ``Points`` q and a (nbits, n) 0/1 array, top bit first."""
    mod = xp(q.backend)
    bits = mod.asarray(bits, dtype=bool)
    acc = infinity(q.group, len(q), q.backend)
    for row in range(bits.shape[0]):
        acc = double(acc)
        if _any(bits[row]):
            acc = where(bits[row], add_mixed(acc, q), acc)
    return acc


def scalars_to_bits(scalars, nbits: int | None = None) -> np.ndarray:
    """Return the (nbits, n) 0/1 matrix of non-negative Python-int scalars, top bit first."""
    scalars = [int(s) for s in scalars]
    if any(s < 0 for s in scalars):
        raise ValueError("scalars must be >= 0 here (reduce them first)")
    if nbits is None:
        nbits = max((s.bit_length() for s in scalars), default=0)
    nbytes = max(1, (nbits + 7) // 8)
    raw = np.frombuffer(b"".join(s.to_bytes(nbytes, "big") for s in scalars), dtype=np.uint8)
    bits = np.unpackbits(raw.reshape(len(scalars), nbytes), axis=1)[:, 8 * nbytes - nbits:]
    return np.ascontiguousarray(bits.T)
