"""Slow, obviously correct point arithmetic on Python ints (the reference path).

Plain functions on tuples, in the manner of py_ecc: an Fp element is an int in
[0, p), an Fp2 element a tuple (c0, c1). Each formula takes the field ``F``
(``FP`` or ``FP2``) first, so one formula serves G1 and G2. Points come in the
three coordinate systems the batched code uses:

* affine ``(x, y)``, the point at infinity is ``None``;
* Jacobian ``(X, Y, Z)``: x = X/Z^2, y = Y/Z^3, infinity when Z = 0;
* XYZZ ``(X, Y, ZZ, ZZZ)``: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, infinity when ZZ = 0.

The formulas are those of the Explicit-Formulas Database (hyperelliptic.org/EFD,
short Weierstrass a = 0): Jacobian dbl-2009-l, add-2007-bl, madd-2007-bl; XYZZ
dbl-2008-s-1, mdbl-2008-s-1, add-2008-s, madd-2008-s. The batched modules
(:mod:`.jacobian`, :mod:`.xyzz`) implement the same formulas on limb arrays and
are tested against this module and against py_ecc.
"""

from __future__ import annotations

import functools

from ..field.constants import P, R
from . import constants as K


class _Fp:
    """Fp on Python ints."""

    name = "fp"
    zero = 0
    one = 1

    @staticmethod
    def add(a, b):
        return (a + b) % P

    @staticmethod
    def sub(a, b):
        return (a - b) % P

    @staticmethod
    def neg(a):
        return (-a) % P

    @staticmethod
    def mul(a, b):
        return a * b % P

    @staticmethod
    def sqr(a):
        return a * a % P

    @staticmethod
    def small(a, k):
        return a * k % P

    @staticmethod
    def inv(a):
        if a % P == 0:
            raise ZeroDivisionError("inverse of zero in Fp")
        return pow(a, -1, P)

    @staticmethod
    def is_zero(a):
        return a % P == 0

    @staticmethod
    def sqrt(a):
        """Return a square root of ``a`` or None (p = 3 mod 4: a^((p+1)/4))."""
        s = pow(a, (P + 1) // 4, P)
        return s if s * s % P == a % P else None

    @staticmethod
    def lex_largest(a):
        """Return True when a > (p - 1)/2 (the ZCash sign of an Fp element)."""
        return a > (P - 1) // 2


class _Fp2:
    """Fp2 = Fp[u]/(u^2 + 1) on tuples (c0, c1)."""

    name = "fp2"
    zero = (0, 0)
    one = (1, 0)

    @staticmethod
    def add(a, b):
        return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)

    @staticmethod
    def sub(a, b):
        return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)

    @staticmethod
    def neg(a):
        return ((-a[0]) % P, (-a[1]) % P)

    @staticmethod
    def mul(a, b):
        a0, a1 = a
        b0, b1 = b
        return ((a0 * b0 - a1 * b1) % P, (a0 * b1 + a1 * b0) % P)

    @staticmethod
    def sqr(a):
        a0, a1 = a
        return ((a0 + a1) * (a0 - a1) % P, 2 * a0 * a1 % P)

    @staticmethod
    def small(a, k):
        return (a[0] * k % P, a[1] * k % P)

    @staticmethod
    def inv(a):
        a0, a1 = a
        norm = (a0 * a0 + a1 * a1) % P
        if norm == 0:
            raise ZeroDivisionError("inverse of zero in Fp2")
        t = pow(norm, -1, P)
        return (a0 * t % P, (-a1) * t % P)

    @staticmethod
    def is_zero(a):
        return a[0] % P == 0 and a[1] % P == 0

    @staticmethod
    def pow(a, e):
        result = (1, 0)
        base = a
        while e:
            if e & 1:
                result = _Fp2.mul(result, base)
            base = _Fp2.sqr(base)
            e >>= 1
        return result

    @staticmethod
    def sqrt(a):
        """Return a square root of ``a`` or None (complex method for p = 3 mod 4)."""
        a0, a1 = a[0] % P, a[1] % P
        if a1 == 0:
            s = _Fp.sqrt(a0)
            if s is not None:
                return (s, 0)
            s = _Fp.sqrt((-a0) % P)  # a0 = -(s^2) = (s*u)^2
            return (0, s) if s is not None else None
        # sqrt(a0 + a1 u) = x0 + x1 u with x0^2 = (a0 + |a|)/2, x1 = a1 / (2 x0)
        norm_root = _Fp.sqrt((a0 * a0 + a1 * a1) % P)
        if norm_root is None:
            return None
        inv2 = (P + 1) // 2
        for n in (norm_root, (-norm_root) % P):
            x0 = _Fp.sqrt((a0 + n) * inv2 % P)
            if x0 is not None and x0 != 0:
                x1 = a1 * pow(2 * x0, -1, P) % P
                if _Fp2.sqr((x0, x1)) == (a0, a1):
                    return (x0, x1)
        return None

    @staticmethod
    def lex_largest(a):
        """Return the ZCash sign of an Fp2 element: c1 decides, c0 when c1 = 0."""
        c0, c1 = a
        return c1 > (P - 1) // 2 or (c1 == 0 and c0 > (P - 1) // 2)


FP = _Fp()
FP2 = _Fp2()


def field_of(group: str):
    """Return the reference field (FP or FP2) of ``group`` ("g1" or "g2")."""
    if group == "g1":
        return FP
    if group == "g2":
        return FP2
    raise ValueError(f"group must be one of {K.GROUPS}, got {group!r}")


def b_of(group: str):
    """Return the curve coefficient b of ``group`` as a reference field element."""
    return K.B_G1 if field_of(group) is FP else K.B_G2


def generator(group: str):
    """Return the affine generator of ``group``."""
    return K.G1_GENERATOR if field_of(group) is FP else K.G2_GENERATOR


# ---------------------------------------------------------------- affine

def is_on_curve(group: str, pt) -> bool:
    """Return True when affine ``pt`` satisfies y^2 = x^3 + b (infinity included)."""
    if pt is None:
        return True
    F = field_of(group)
    x, y = pt
    return F.sqr(y) == F.add(F.mul(F.sqr(x), x), b_of(group))


def affine_neg(group: str, pt):
    """Return -pt."""
    if pt is None:
        return None
    F = field_of(group)
    return (pt[0], F.neg(pt[1]))


def affine_add(group: str, p1, p2):
    """Return p1 + p2 with the chord-and-tangent rule (one inversion)."""
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    F = field_of(group)
    x1, y1 = p1
    x2, y2 = p2
    if x1 == x2:
        if y1 != y2 or F.is_zero(y1):
            return None
        lam = F.mul(F.small(F.sqr(x1), 3), F.inv(F.small(y1, 2)))
    else:
        lam = F.mul(F.sub(y2, y1), F.inv(F.sub(x2, x1)))
    x3 = F.sub(F.sub(F.sqr(lam), x1), x2)
    y3 = F.sub(F.mul(lam, F.sub(x1, x3)), y1)
    return (x3, y3)


def affine_mul(group: str, pt, k: int):
    """Return [k] pt for any integer k (negative k negates), by double-and-add."""
    return jacobian_to_affine(group, jacobian_mul(group, affine_to_jacobian(group, pt), k))


# ---------------------------------------------------------------- Jacobian

def jacobian_infinity(group: str):
    """Return the Jacobian point at infinity (1, 1, 0)."""
    F = field_of(group)
    return (F.one, F.one, F.zero)


def affine_to_jacobian(group: str, pt):
    """Return affine ``pt`` in Jacobian coordinates (Z = 1)."""
    F = field_of(group)
    return jacobian_infinity(group) if pt is None else (pt[0], pt[1], F.one)


def jacobian_to_affine(group: str, pt):
    """Return Jacobian ``pt`` normalized to affine (None for infinity)."""
    F = field_of(group)
    X, Y, Z = pt
    if F.is_zero(Z):
        return None
    zi = F.inv(Z)
    zi2 = F.sqr(zi)
    return (F.mul(X, zi2), F.mul(Y, F.mul(zi2, zi)))


def jacobian_double(group: str, pt):
    """Return 2*pt (dbl-2009-l)."""
    F = field_of(group)
    X1, Y1, Z1 = pt
    if F.is_zero(Z1):
        return pt
    A = F.sqr(X1)
    B = F.sqr(Y1)
    C = F.sqr(B)
    D = F.small(F.sub(F.sub(F.sqr(F.add(X1, B)), A), C), 2)
    E = F.small(A, 3)
    Fq = F.sqr(E)
    X3 = F.sub(Fq, F.small(D, 2))
    Y3 = F.sub(F.mul(E, F.sub(D, X3)), F.small(C, 8))
    Z3 = F.small(F.mul(Y1, Z1), 2)
    return (X3, Y3, Z3)


def jacobian_add(group: str, p1, p2):
    """Return p1 + p2 (add-2007-bl, with the doubling and infinity cases)."""
    F = field_of(group)
    X1, Y1, Z1 = p1
    X2, Y2, Z2 = p2
    if F.is_zero(Z1):
        return p2
    if F.is_zero(Z2):
        return p1
    Z1Z1 = F.sqr(Z1)
    Z2Z2 = F.sqr(Z2)
    U1 = F.mul(X1, Z2Z2)
    U2 = F.mul(X2, Z1Z1)
    S1 = F.mul(F.mul(Y1, Z2), Z2Z2)
    S2 = F.mul(F.mul(Y2, Z1), Z1Z1)
    H = F.sub(U2, U1)
    rr = F.small(F.sub(S2, S1), 2)
    if F.is_zero(H):
        return jacobian_double(group, p1) if F.is_zero(rr) else jacobian_infinity(group)
    I = F.sqr(F.small(H, 2))
    J = F.mul(H, I)
    V = F.mul(U1, I)
    X3 = F.sub(F.sub(F.sqr(rr), J), F.small(V, 2))
    Y3 = F.sub(F.mul(rr, F.sub(V, X3)), F.small(F.mul(S1, J), 2))
    Z3 = F.mul(F.sub(F.sub(F.sqr(F.add(Z1, Z2)), Z1Z1), Z2Z2), H)
    return (X3, Y3, Z3)


def jacobian_add_mixed(group: str, p1, q):
    """Return p1 + q for Jacobian p1 and affine q (madd-2007-bl)."""
    F = field_of(group)
    if q is None:
        return p1
    X1, Y1, Z1 = p1
    if F.is_zero(Z1):
        return affine_to_jacobian(group, q)
    X2, Y2 = q
    Z1Z1 = F.sqr(Z1)
    U2 = F.mul(X2, Z1Z1)
    S2 = F.mul(F.mul(Y2, Z1), Z1Z1)
    H = F.sub(U2, X1)
    rr = F.small(F.sub(S2, Y1), 2)
    if F.is_zero(H):
        return jacobian_double(group, p1) if F.is_zero(rr) else jacobian_infinity(group)
    HH = F.sqr(H)
    I = F.small(HH, 4)
    J = F.mul(H, I)
    V = F.mul(X1, I)
    X3 = F.sub(F.sub(F.sqr(rr), J), F.small(V, 2))
    Y3 = F.sub(F.mul(rr, F.sub(V, X3)), F.small(F.mul(Y1, J), 2))
    Z3 = F.sub(F.sub(F.sqr(F.add(Z1, H)), Z1Z1), HH)
    return (X3, Y3, Z3)


def jacobian_neg(group: str, pt):
    """Return -pt."""
    F = field_of(group)
    return (pt[0], F.neg(pt[1]), pt[2])


def jacobian_mul(group: str, pt, k: int):
    """Return [k] pt (left-to-right double-and-add; negative k negates)."""
    if k < 0:
        return jacobian_mul(group, jacobian_neg(group, pt), -k)
    acc = jacobian_infinity(group)
    for bit in bin(k)[2:] if k else "":
        acc = jacobian_double(group, acc)
        if bit == "1":
            acc = jacobian_add(group, acc, pt)
    return acc


# ---------------------------------------------------------------- XYZZ

def xyzz_infinity(group: str):
    """Return the XYZZ point at infinity (1, 1, 0, 0)."""
    F = field_of(group)
    return (F.one, F.one, F.zero, F.zero)


def affine_to_xyzz(group: str, pt):
    """Return affine ``pt`` in XYZZ coordinates (ZZ = ZZZ = 1)."""
    F = field_of(group)
    return xyzz_infinity(group) if pt is None else (pt[0], pt[1], F.one, F.one)


def xyzz_to_affine(group: str, pt):
    """Return XYZZ ``pt`` normalized to affine (None for infinity)."""
    F = field_of(group)
    X, Y, ZZ, ZZZ = pt
    if F.is_zero(ZZ):
        return None
    return (F.mul(X, F.inv(ZZ)), F.mul(Y, F.inv(ZZZ)))


def xyzz_double(group: str, pt):
    """Return 2*pt (dbl-2008-s-1; infinity and 2-torsion give ZZ = 0)."""
    F = field_of(group)
    X1, Y1, ZZ1, ZZZ1 = pt
    U = F.small(Y1, 2)
    V = F.sqr(U)
    W = F.mul(U, V)
    S = F.mul(X1, V)
    M = F.small(F.sqr(X1), 3)
    X3 = F.sub(F.sqr(M), F.small(S, 2))
    Y3 = F.sub(F.mul(M, F.sub(S, X3)), F.mul(W, Y1))
    return (X3, Y3, F.mul(V, ZZ1), F.mul(W, ZZZ1))


def xyzz_add(group: str, p1, p2):
    """Return p1 + p2 (add-2008-s, with the doubling and infinity cases)."""
    F = field_of(group)
    X1, Y1, ZZ1, ZZZ1 = p1
    X2, Y2, ZZ2, ZZZ2 = p2
    if F.is_zero(ZZ1):
        return p2
    if F.is_zero(ZZ2):
        return p1
    U1 = F.mul(X1, ZZ2)
    U2 = F.mul(X2, ZZ1)
    S1 = F.mul(Y1, ZZZ2)
    S2 = F.mul(Y2, ZZZ1)
    Pd = F.sub(U2, U1)
    Rd = F.sub(S2, S1)
    if F.is_zero(Pd) and F.is_zero(Rd):
        return xyzz_double(group, p1)
    PP = F.sqr(Pd)
    PPP = F.mul(Pd, PP)
    Q = F.mul(U1, PP)
    X3 = F.sub(F.sub(F.sqr(Rd), PPP), F.small(Q, 2))
    Y3 = F.sub(F.mul(Rd, F.sub(Q, X3)), F.mul(S1, PPP))
    ZZ3 = F.mul(F.mul(ZZ1, ZZ2), PP)
    ZZZ3 = F.mul(F.mul(ZZZ1, ZZZ2), PPP)
    return (X3, Y3, ZZ3, ZZZ3)


def xyzz_add_mixed(group: str, p1, q):
    """Return p1 + q for XYZZ p1 and affine q (madd-2008-s)."""
    F = field_of(group)
    if q is None:
        return p1
    X1, Y1, ZZ1, ZZZ1 = p1
    if F.is_zero(ZZ1):
        return affine_to_xyzz(group, q)
    X2, Y2 = q
    U2 = F.mul(X2, ZZ1)
    S2 = F.mul(Y2, ZZZ1)
    Pd = F.sub(U2, X1)
    Rd = F.sub(S2, Y1)
    if F.is_zero(Pd) and F.is_zero(Rd):
        return xyzz_double(group, affine_to_xyzz(group, q))
    PP = F.sqr(Pd)
    PPP = F.mul(Pd, PP)
    Q = F.mul(X1, PP)
    X3 = F.sub(F.sub(F.sqr(Rd), PPP), F.small(Q, 2))
    Y3 = F.sub(F.mul(Rd, F.sub(Q, X3)), F.mul(Y1, PPP))
    return (X3, Y3, F.mul(ZZ1, PP), F.mul(ZZZ1, PPP))


def xyzz_neg(group: str, pt):
    """Return -pt."""
    F = field_of(group)
    return (pt[0], F.neg(pt[1]), pt[2], pt[3])


# ---------------------------------------------------------------- group checks

def in_subgroup_by_order(group: str, pt) -> bool:
    """Return True when [r] pt is infinity (the definition; slow but plain)."""
    if pt is None:
        return True
    F = field_of(group)
    return F.is_zero(jacobian_mul(group, affine_to_jacobian(group, pt), R)[2])


def msm_naive(group: str, points, scalars):
    """Return sum(k_i * P_i) in affine coordinates, one scalar multiplication per term."""
    acc = jacobian_infinity(group)
    for pt, k in zip(points, scalars):
        acc = jacobian_add(group, acc, jacobian_mul(group, affine_to_jacobian(group, pt), k % R))
    return jacobian_to_affine(group, acc)


# ---------------------------------------------------------------- endomorphisms

@functools.lru_cache(maxsize=None)
def g1_beta() -> int:
    """Return the cube root of unity beta with phi(G) = [-x^2] G for phi(x, y) = (beta x, y)."""
    g = K.G1_GENERATOR
    target = affine_mul("g1", g, -(K.BLS_X ** 2))
    # the two primitive cube roots of unity are w and w^2 with w = g^((p-1)/3)
    for base in range(2, 50):
        w = pow(base, (P - 1) // 3, P)
        if w != 1:
            break
    for beta in (w, w * w % P):
        if (beta * g[0] % P, g[1]) == target:
            return beta
    raise AssertionError("no cube root of unity matches the G1 endomorphism")  # pragma: no cover


@functools.lru_cache(maxsize=None)
def g2_psi_coeffs():
    """Return (cx, cy) with psi(x, y) = (conj(x) cx, conj(y) cy), the untwist-Frobenius-twist map."""
    xi = (1, 1)  # 1 + u, the twist's non-residue
    cx = FP2.inv(FP2.pow(xi, (P - 1) // 3))
    cy = FP2.inv(FP2.pow(xi, (P - 1) // 2))
    g = K.G2_GENERATOR
    assert psi(g, (cx, cy)) == affine_mul("g2", g, K.BLS_X), "psi does not act as [x] on G2"
    return cx, cy


def phi(pt, beta=None):
    """Return the G1 endomorphism (beta x, y) of affine ``pt``."""
    if pt is None:
        return None
    beta = g1_beta() if beta is None else beta
    return (beta * pt[0] % P, pt[1])


def psi(pt, coeffs=None):
    """Return the G2 endomorphism psi of affine ``pt``."""
    if pt is None:
        return None
    cx, cy = g2_psi_coeffs() if coeffs is None else coeffs
    conj = lambda a: (a[0], (-a[1]) % P)  # noqa: E731 - Frobenius on Fp2
    return (FP2.mul(conj(pt[0]), cx), FP2.mul(conj(pt[1]), cy))


def in_subgroup(group: str, pt) -> bool:
    """Return True when affine ``pt`` (on the curve) lies in the order-r subgroup.

    G1: phi(P) = [-x^2] P; G2: psi(P) = [x] P (Bowe 2019, Scott 2021/1130,
    proved for BLS12-381 in ePrint 2022/352).
    """
    if pt is None:
        return True
    if field_of(group) is FP:
        return phi(pt) == affine_mul("g1", pt, -(K.BLS_X ** 2))
    return psi(pt) == affine_mul("g2", pt, K.BLS_X)
