"""Windows combined on the host: sum_w 2^(c w) W_w by Horner's rule, in Python ints.

The GPU MSM runs this chain in C where the native library builds
(``gpu.combine_sums``, ``gpu.NATIVE_COMBINE``); these functions are its
fallback and the reference it is tested against.

About 255 dependent doublings: latency-bound work, which Python ints do in
1-4 ms while one GPU thread needs several times longer. The window sums
arrive in XYZZ; they are moved to Jacobian coordinates (no inversion:
Z = ZZ ZZZ), where a doubling costs 2M + 5S (dbl-2009-l) instead of XYZZ's
6M + 3S. G1's doublings are written out on ints, c at a time in one loop
(about 1.5x faster than the reference function), and so are G2's over Fp2;
the few additions use the reference formulas
(all cases handled). 17 windows of 15 bits on the 2-core development
machine: G1 1.39 -> 1.30 ms, G2 4.21 -> 3.74 ms against the XYZZ doublings
(Python's per-operation cost, not the multiplications alone, sets the pace).

With gmpy2 installed (a dependency of cuzklab) the chain runs on its ``mpz``
integers, which carry less per-operation overhead than Python ints: 16 G1
doublings 101 -> 37 us on the 2-core development machine. The formulas are
the same generic ``* % +`` code either way, so the result is identical; the
point goes back to Python ints before the final normalization.

G1's additions and its final normalization are written out too (one
``pow(z, -1, p)`` on mpz, where the reference's inversion on ints takes
~30 us): 8 windows of 16 bits 0.359 -> 0.271 ms on the 2-core development
machine (``benchmarks/bench_combine.py``, ``benchmarks/results/combine-dev.json``).
"""

from __future__ import annotations

import functools

from ..curve import reference as ref
from ..curve.affine import Point
from ..field.constants import P

try:  # the faster integers for the doubling chain; plain ints when missing
    from gmpy2 import mpz as _big
except ImportError:  # pragma: no cover - gmpy2 is a dependency
    _big = int


def _lift(value, conv):
    """Return a coordinate (an int, or a tuple of ints for Fp2) with ``conv`` applied to its ints."""
    if isinstance(value, tuple):
        return tuple(conv(v) for v in value)
    return conv(value)


def _lift_point(pt, conv):
    return tuple(_lift(v, conv) for v in pt)


def _dbl_g1_times(pt, times: int):
    """Return 2^times pt for a Jacobian G1 point on ints (dbl-2009-l, a = 0, written out).

    The loop keeps X, Y, Z in locals (no tuple per doubling) and uses
    2((X + B)^2 - A - C) = 4 X B: fewer Python operations per doubling,
    the same coordinates as the reference formula.
    """
    X, Y, Z = pt
    p = _big(P)
    for _ in range(times):
        A = X * X % p
        B = Y * Y % p
        C = B * B % p
        D = (X * B << 2) % p
        E = 3 * A
        Z = (Y * Z << 1) % p
        X = (E * E - (D << 1)) % p
        Y = (E * (D - X) - (C << 3)) % p
    return (X, Y, Z)


def _dbl_g2_times(pt, times: int):
    """Return 2^times pt for a Jacobian G2 point on ints: ``_dbl_g1_times`` over Fp2 = Fp[u]/(u^2 + 1).

    Products (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + (a0 b1 + a1 b0) u and
    squares (a0 + a1)(a0 - a1) + 2 a0 a1 u, written out on the coordinates.
    """
    (x0, x1), (y0, y1), (z0, z1) = pt
    p = _big(P)
    for _ in range(times):
        a0, a1 = (x0 + x1) * (x0 - x1) % p, 2 * x0 * x1 % p          # A = X^2
        b0, b1 = (y0 + y1) * (y0 - y1) % p, 2 * y0 * y1 % p          # B = Y^2
        c0, c1 = (b0 + b1) * (b0 - b1) % p, 2 * b0 * b1 % p          # C = B^2
        d0, d1 = ((x0 * b0 - x1 * b1) << 2) % p, ((x0 * b1 + x1 * b0) << 2) % p  # D = 4 X B
        e0, e1 = 3 * a0, 3 * a1                                       # E = 3 A
        z0, z1 = ((y0 * z0 - y1 * z1) << 1) % p, ((y0 * z1 + y1 * z0) << 1) % p  # Z = 2 Y Z
        x0 = ((e0 + e1) * (e0 - e1) - (d0 << 1)) % p                  # X = E^2 - 2 D
        x1 = (2 * e0 * e1 - (d1 << 1)) % p
        f0, f1 = d0 - x0, d1 - x1
        y0 = (e0 * f0 - e1 * f1 - (c0 << 3)) % p                      # Y = E (D - X) - 8 C
        y1 = (e0 * f1 + e1 * f0 - (c1 << 3)) % p
    return ((x0, x1), (y0, y1), (z0, z1))


def _add_g1(p1, p2):
    """Return p1 + p2 for Jacobian G1 points on ints: add-2007-bl written out, as the reference's.

    The same coordinates as ``reference.jacobian_add`` (the doubling and
    infinity cases included), without a function call per field operation.
    """
    X1, Y1, Z1 = p1
    X2, Y2, Z2 = p2
    p = _big(P)
    if Z1 % p == 0:
        return p2
    if Z2 % p == 0:
        return p1
    Z1Z1 = Z1 * Z1 % p
    Z2Z2 = Z2 * Z2 % p
    U1 = X1 * Z2Z2 % p
    S1 = Y1 * Z2 % p * Z2Z2 % p
    H = (X2 * Z1Z1 - U1) % p
    rr = 2 * (Y2 * Z1 % p * Z1Z1 - S1) % p
    if H == 0:
        return _dbl_g1_times(p1, 1) if rr == 0 else _lift_point(ref.jacobian_infinity("g1"), _big)
    I = 4 * H * H % p
    J = H * I % p
    V = U1 * I % p
    X3 = (rr * rr - J - 2 * V) % p
    Y3 = (rr * (V - X3) - 2 * S1 * J) % p
    Z3 = ((Z1 + Z2) ** 2 - Z1Z1 - Z2Z2) * H % p
    return (X3, Y3, Z3)


def _to_affine_g1(pt):
    """Return a Jacobian G1 point on ints as affine Python ints (None for infinity)."""
    X, Y, Z = pt
    p = _big(P)
    if Z % p == 0:
        return None
    zi = pow(_big(Z), -1, p)
    zi2 = zi * zi % p
    return (int(X * zi2 % p), int(Y * zi2 % p * zi % p))


def _dbl_times(group: str, pt, times: int):
    """Return 2^times pt for a Jacobian point of ``group``."""
    return (_dbl_g1_times if group == "g1" else _dbl_g2_times)(pt, times)


def xyzz_to_jacobian(group: str, pt):
    """Return an XYZZ point (X, Y, ZZ, ZZZ) as Jacobian (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ)."""
    F = ref.field_of(group)
    X, Y, ZZ, ZZZ = pt
    if F.is_zero(ZZ):
        return ref.jacobian_infinity(group)
    zzz2 = F.sqr(ZZZ)
    return (F.mul(F.mul(X, ZZ), zzz2), F.mul(F.mul(Y, F.mul(ZZ, F.sqr(ZZ))), zzz2), F.mul(ZZ, ZZZ))


def combine_windows(group: str, window_points, c: int) -> Point:
    """Return sum_w 2^(c w) W_w for XYZZ window sums given as Python-int tuples."""
    F = ref.field_of(group)
    add = _add_g1 if group == "g1" else functools.partial(ref.jacobian_add, group)
    acc = _lift_point(ref.jacobian_infinity(group), _big)
    for w in reversed(range(len(window_points))):
        if not F.is_zero(acc[2]):
            acc = _dbl_times(group, acc, c)
        win = xyzz_to_jacobian(group, _lift_point(window_points[w], _big))
        acc = add(acc, win)
    if group == "g1":
        return Point(group, _to_affine_g1(acc))
    return Point(group, ref.jacobian_to_affine(group, _lift_point(acc, int)))
