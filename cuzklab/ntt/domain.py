"""Evaluation domains: the subgroup of 2^k-th roots of unity in Fr and its coset.

A domain of size n = 2^k has generator omega (a primitive n-th root of unity
from ``cuzklab.field.constants.FR``), the inverse of n for inverse transforms,
and the coset generator g used by Groth16's quotient computation. As in
bellperson and SupraSeal, g is Fr's multiplicative generator 7, so the
vanishing polynomial Z(x) = x^n - 1 is the non-zero constant g^n - 1 on g·H.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import Enum

import numpy as np

from ..field import Fr, concat
from ..field.constants import FR

#: Largest supported transform: Fr has 2-adicity 32.
MAX_LOG2_SIZE = FR.two_adicity
#: Coset generator (Fr's multiplicative generator, as in bellperson/SupraSeal).
COSET_GENERATOR = FR.generator


class Direction(Enum):
    """Which way a transform goes: coefficients to evaluations or back."""

    FORWARD = "forward"
    INVERSE = "inverse"


class Order(Enum):
    """Element order of a transform's input or output."""

    NATURAL = "natural"
    BIT_REVERSED = "bit_reversed"


def check_log2_size(log2_size: int, name: str = "log2_size") -> int:
    """Return ``log2_size`` if it is an int in [0, MAX_LOG2_SIZE], else raise."""
    if isinstance(log2_size, bool) or not isinstance(log2_size, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(log2_size).__name__}")
    if not 0 <= int(log2_size) <= MAX_LOG2_SIZE:
        raise ValueError(f"{name} must be in [0, {MAX_LOG2_SIZE}], got {log2_size}")
    return int(log2_size)


def log2_of(n: int, name: str = "size") -> int:
    """Return k with n == 2^k, else raise ValueError naming ``name``."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"{name} must be a power of two, got {n}")
    return check_log2_size(n.bit_length() - 1, name=f"log2({name})")


@dataclass(frozen=True)
class Domain:
    """The multiplicative subgroup of size 2^log2_size and the constants of its transforms."""

    log2_size: int

    def __post_init__(self):
        check_log2_size(self.log2_size)

    @property
    def size(self) -> int:
        """Return n = 2^log2_size."""
        return 1 << self.log2_size

    @property
    def omega(self) -> int:
        """Return the primitive n-th root of unity."""
        return FR.root_of_unity_of_order(self.log2_size)

    @property
    def omega_inv(self) -> int:
        """Return omega^-1."""
        return pow(self.omega, -1, FR.modulus)

    @property
    def size_inv(self) -> int:
        """Return n^-1 mod r."""
        return pow(self.size, -1, FR.modulus)

    @property
    def coset_generator(self) -> int:
        """Return g, the generator of the coset g·H."""
        return COSET_GENERATOR

    def vanishing_on_coset(self) -> int:
        """Return Z(g·w) = g^n - 1, the same for every point of the coset."""
        return (pow(COSET_GENERATOR, self.size, FR.modulus) - 1) % FR.modulus

    def vanishing_at(self, x: int) -> int:
        """Return Z(x) = x^n - 1."""
        return (pow(x, self.size, FR.modulus) - 1) % FR.modulus

    def elements(self) -> list[int]:
        """Return [omega^0, ..., omega^(n-1)] as Python ints (small domains)."""
        w, out, x = self.omega, [], 1
        for _ in range(self.size):
            out.append(x)
            x = x * w % FR.modulus
        return out


def powers(x: int, n: int, backend: str = "cpu") -> Fr:
    """Return [x^0, x^1, ..., x^(n-1)] as an Fr array, by repeated doubling of the prefix."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if n == 0:
        return Fr.zeros(0, backend=backend)
    out = Fr.ones(1, backend=backend)
    step = x % FR.modulus  # x^len(out)
    while len(out) < n:
        take = min(len(out), n - len(out))
        out = concat([out, out[:take] * step])
        step = step * step % FR.modulus
    return out


@functools.lru_cache(maxsize=16)
def _twiddles_cpu(log2_size: int, inverse: bool) -> Fr:
    d = Domain(log2_size)
    w = d.omega_inv if inverse else d.omega
    return powers(w, max(1, d.size // 2), "cpu")


def twiddles(log2_size: int, *, inverse: bool = False, backend: str = "cpu") -> Fr:
    """Return omega^j (or omega^-j) for j < n/2, cached per size on the CPU.

    The device's table is :func:`cuzklab.ntt.gpu.gpu_twiddles` (this module
    sits below :mod:`.gpu` and does not import it).
    """
    if backend != "cpu":
        raise ValueError(f"backend must be 'cpu' (the GPU table is cuzklab.ntt.gpu.gpu_twiddles), "
                         f"got {backend!r}")
    return _twiddles_cpu(check_log2_size(log2_size), bool(inverse))


@functools.lru_cache(maxsize=32)
def bit_reverse_indices(log2_size: int) -> np.ndarray:
    """Return the bit-reversal permutation of 2^log2_size indices (int64)."""
    n = 1 << log2_size
    idx = np.arange(n, dtype=np.uint64)
    rev = np.zeros(n, dtype=np.uint64)
    for b in range(log2_size):
        rev |= ((idx >> np.uint64(b)) & np.uint64(1)) << np.uint64(log2_size - 1 - b)
    return rev.astype(np.int64)
