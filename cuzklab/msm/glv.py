"""The GLV endomorphism for G1 MSMs: k P = k1 P + k2 phi(P) with |k1|, |k2| < 2^127.

BLS12-381 has the curve parameter z (``BLS_X``) and r = z^4 - z^2 + 1. With
lambda = z^2 - 1 (128 bits), lambda^2 + lambda + 1 = r exactly, so lambda is
a primitive cube root of unity mod r. On G1 it acts as phi(x, y) = (beta x, y)
for one of the two primitive cube roots of unity beta of Fp (the other one
gives lambda^2; ``beta()`` picks the right one by a test on the generator).

A scalar 0 <= k < r is split as k2 = floor(k / lambda), k1 = k - k2 lambda,
then balanced: if k1 > lambda/2, (k1, k2) -= (lambda, -1); then if
k2 > lambda/2, k2 lambda = (k2 - lambda - 1) lambda - 1 (mod r), so
(k1, k2) -= (1, lambda + 1). Both end with |k_i| <= lambda/2 + 1 < 2^127, and
a negative k_i is folded into its point (y negated). An MSM over n points and
255-bit scalars becomes one over 2n points [|k1_i| (+-P_i) ; |k2_i| (+-phi(P_i))]
with 127-bit scalars: half the windows, so half the bucket reduction and half
the window combination (``SCALAR_BITS`` = 128 with the signed-digit carry).

Everything here derives from p, r and z; the GPU kernel ``msm_glv_split``
(``cuda/pippenger.cu``) gets its constants from :func:`kernel_constants`.
This module is its twin (Python ints and NumPy) and the test oracle.
"""

from __future__ import annotations

import functools

import numpy as np

from ..curve import reference as ref
from ..curve.constants import BLS_X, G1_GENERATOR
from ..field.constants import P, R
from . import digits as D

#: lambda = z^2 - 1: lambda^2 + lambda + 1 = r, so lambda^3 = 1 mod r.
LAMBDA = BLS_X ** 2 - 1
assert LAMBDA * LAMBDA + LAMBDA + 1 == R, "lambda is not a cube root of unity mod r"
#: floor(lambda / 2): k > lambda / 2 <=> k > HALF (lambda is odd).
HALF = LAMBDA >> 1
#: Bound on |k1|, |k2| after balancing (exclusive): lambda/2 + 1 < 2^127.
MAX_ABS_BITS = 127
assert HALF + 2 <= 1 << MAX_ABS_BITS
#: Scalar bits of the MSM over the split (|k_i| < 2^127, plus the signed-digit carry).
SCALAR_BITS = MAX_ABS_BITS + 1
#: Barrett reciprocal: q = floor(k MU / 2^256) is floor(k / lambda) or one less, for k < 2^256.
MU = (1 << 256) // LAMBDA
#: Words of each constant in the kernel's table (layout of :func:`kernel_constants`).
CONST_LAYOUT = (("beta", 12), ("lambda", 4), ("half", 4), ("mu", 5))


@functools.lru_cache(maxsize=None)
def beta() -> int:
    """Return the primitive cube root of unity beta of Fp with (beta x, y) = lambda (x, y) on G1."""
    g = G1_GENERATOR
    target = ref.affine_mul("g1", g, LAMBDA)
    w = ref.g1_beta()  # acts as -z^2 = -lambda - 1 = lambda^2 (mod r); its square as lambda
    for b in (w * w % P, w):
        if (b * g[0] % P, g[1]) == target:
            return b
    raise AssertionError("no cube root of unity acts as lambda on G1")  # pragma: no cover


def phi(pt):
    """Return phi(pt) = lambda pt for an affine G1 point as Python ints (None: infinity)."""
    return None if pt is None else (beta() * pt[0] % P, pt[1])


def decompose(k: int) -> tuple[int, int]:
    """Return (k1, k2) with k1 + k2 lambda = k (mod r) and |k1|, |k2| < 2^127, for 0 <= k < r."""
    if not 0 <= k < R:
        raise ValueError(f"scalar must be in [0, r), got {k}")
    k2, k1 = divmod(k, LAMBDA)
    if k1 > HALF:
        k1 -= LAMBDA
        k2 += 1
    if k2 > HALF:
        k2 -= LAMBDA + 1
        k1 -= 1
    return k1, k2


def split_scalars(limbs):
    """Return ((2n, 8) uint32 limbs of |k1_i| then |k2_i|, (2n,) bool negative) for (n, 8) limbs.

    Host twin of the GPU kernel ``msm_glv_split`` (scalar part); ``limbs`` are
    canonical scalars in [0, r).
    """
    ks = D.limbs_to_ints(np.asarray(limbs))
    pairs = [decompose(k) for k in ks]
    vals = [k1 for k1, _ in pairs] + [k2 for _, k2 in pairs]
    mags = D.ints_to_limbs([abs(v) for v in vals])
    return mags, np.array([v < 0 for v in vals], dtype=bool)


def split_points(points, limbs):
    """Return (2n points, (2n, 8) limbs): [+-P_i ; +-phi(P_i)] with |k1_i| then |k2_i|.

    The host twin of ``msm_glv_split`` for G1 ``Points`` on the CPU backend:
    sum_i k_i P_i equals the MSM of the result. Infinity stays infinity.
    """
    from ..curve import fields as FF
    from ..curve.affine import Points
    if points.group != "g1":
        raise ValueError(f"GLV applies to G1 points, got {points.group!r}")
    mags, neg = split_scalars(limbs)
    b = FF.wrap("g1", FF.field_class("g1").from_ints([beta()], points.backend).limbs, points.backend)
    both = Points.concat([points, Points("g1", points.x * b, points.y)])
    ys = FF.select(neg, -both.y, both.y)
    return Points("g1", both.x, ys), mags


@functools.lru_cache(maxsize=None)
def kernel_constants() -> np.ndarray:
    """Return the u32 table of ``msm_glv_split``: beta (Montgomery Fp), lambda, floor(lambda/2), MU."""
    from ..field.constants import FP
    values = {"beta": beta() * FP.mont_radix % P, "lambda": LAMBDA, "half": HALF, "mu": MU}
    words = []
    for name, w in CONST_LAYOUT:
        v = values[name]
        assert v < 1 << (32 * w), name
        words += [(v >> (32 * i)) & 0xFFFFFFFF for i in range(w)]
    out = np.array(words, dtype=np.uint32)
    out.flags.writeable = False
    return out
