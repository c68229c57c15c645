"""Naive O(n^2) transforms over Python ints: the oracle for tests at small sizes."""

from __future__ import annotations

from ..field.constants import FR
from .domain import COSET_GENERATOR, Domain, log2_of

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
