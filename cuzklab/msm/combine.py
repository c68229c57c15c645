"""Windows combined on the host: sum_w 2^(c w) W_w by Horner's rule, in Python ints.

About 255 dependent doublings: latency-bound work, which Python ints do in
about 2 ms (G1) while one GPU thread needs several. G1 uses XYZZ
doubling (dbl-2008-s-1) written out on ints; G2 the reference formulas.
"""

from __future__ import annotations

from ..curve import reference as ref
from ..curve.affine import Point
from ..field.constants import P


def _dbl_g1(pt):
    X, Y, ZZ, ZZZ = pt
    U = 2 * Y % P
    V = U * U % P
    W = U * V % P
    S = X * V % P
    M = 3 * X * X % P
    X3 = (M * M - 2 * S) % P
    return (X3, (M * (S - X3) - W * Y) % P, V * ZZ % P, W * ZZZ % P)


def combine_windows(group: str, window_points, c: int) -> Point:
    """Return sum_w 2^(c w) W_w for XYZZ window sums given as Python-int tuples."""
    dbl = _dbl_g1 if group == "g1" else (lambda p: ref.xyzz_double(group, p))
    acc = ref.xyzz_infinity(group)
    for w in reversed(range(len(window_points))):
        if not ref.field_of(group).is_zero(acc[2]):
            for _ in range(c):
                acc = dbl(acc)
        acc = ref.xyzz_add(group, acc, window_points[w])
    return Point(group, ref.xyzz_to_affine(group, acc))
