"""Oracles for the transforms: naive O(n^2) transforms over Python ints (tests at
small sizes) and single outputs of a transform at any size by direct evaluation
(``transform_entries``: field multiplies and additions only, no transform kernel),
which the benchmarks use to check the very results they time.
"""

from __future__ import annotations

from ..field import Fr
from ..field.constants import FR
from .domain import COSET_GENERATOR, Domain, log2_of, powers

_R = FR.modulus


def naive_ntt(coeffs: list[int], *, coset: bool = False) -> list[int]:
    """Return [p(x) for x in the domain (or the coset g·H)] by direct evaluation."""
    d = Domain(log2_of(len(coeffs)))
    shift = COSET_GENERATOR if coset else 1
    out = []
    for w in d.elements():
        x = w * shift % _R
        acc = 0
        for c in reversed(coeffs):  # Horner
            acc = (acc * x + c) % _R
        out.append(acc)
    return out


def naive_intt(evals: list[int], *, coset: bool = False) -> list[int]:
    """Return the coefficients of the polynomial with these domain (or coset) evaluations."""
    d = Domain(log2_of(len(evals)))
    n = d.size
    n_inv, w_inv = d.size_inv, d.omega_inv
    coeffs = []
    for i in range(n):
        base = pow(w_inv, i, _R)
        acc, x = 0, 1
        for v in evals:
            acc = (acc + v * x) % _R
            x = x * base % _R
        coeffs.append(acc * n_inv % _R)
    if coset:
        g_inv = pow(COSET_GENERATOR, -1, _R)
        coeffs = [c * pow(g_inv, i, _R) % _R for i, c in enumerate(coeffs)]
    return coeffs


def evaluate(a: Fr, x: int) -> int:
    """Return sum_i a[i] x^i as a Python int, on ``a``'s backend.

    The powers of x by repeated doubling, one elementwise multiply and a
    halving tree of additions: O(n) field operations, independent of every
    transform kernel. ``len(a)`` must be a power of two.
    """
    log2_of(len(a), name="len(a)")
    s = a * powers(x % _R, len(a), a.backend)
    while len(s) > 1:
        h = len(s) // 2
        s = s[:h] + s[h:]
    return s.to_ints()[0]


def transform_entries(a: Fr, indices, *, inverse: bool = False, coset: bool = False) -> list[int]:
    """Return outputs ``indices`` (natural order) of the transform of natural-order ``a``.

    Forward: y_k = A(w^k), on the coset A(g w^k); inverse: y_k = A(w^-k) / n,
    on the coset additionally times g^-k (A the polynomial with coefficients
    ``a``, w the domain's root, g ``COSET_GENERATOR``). Each entry is one
    ``evaluate``: O(n) work, for any n, on ``a``'s backend.
    """
    d = Domain(log2_of(len(a), name="len(a)"))
    out = []
    for k in indices:
        if not 0 <= int(k) < d.size:
            raise ValueError(f"indices: {k} is outside [0, {d.size})")
        if inverse:
            v = evaluate(a, pow(d.omega_inv, int(k), _R)) * d.size_inv % _R
            if coset:
                v = v * pow(COSET_GENERATOR, -int(k), _R) % _R
        else:
            x = pow(d.omega, int(k), _R)
            v = evaluate(a, x * COSET_GENERATOR % _R if coset else x)
        out.append(v)
    return out
