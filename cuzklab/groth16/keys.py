"""Groth16 key material and proofs: toxic waste, proving key, verifying key, proof.

Layout follows bellperson (the prover under cuzk): the A and B queries hold
points only for the variables that the circuit uses in A or B (inputs first,
then aux, in order), selected by the density bitmaps; the L query covers
every aux variable; the H query has n - 1 points for a domain of size n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..curve import Point, Points
from ..field import Fr
from ..field.constants import R as FR_MODULUS


def _draw_nonzero(rng: np.random.Generator, count: int) -> list[int]:
    out: list[int] = []
    while len(out) < count:
        out.extend(v for v in Fr.random(count, rng).to_ints() if v != 0)
    return out[:count]


@dataclass(frozen=True, repr=False)
class ToxicWaste:
    """The secrets of a trusted setup: tau, alpha, beta, gamma, delta (non-zero Fr).

    Whoever knows them can forge proofs. ``setup`` draws them from the rng it
    is given and drops them once the keys exist; tests pass them explicitly.
    """

    tau: int
    alpha: int
    beta: int
    gamma: int
    delta: int

    def __post_init__(self):
        for name in ("tau", "alpha", "beta", "gamma", "delta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 < v < FR_MODULUS:
                raise ValueError(f"{name} must be an int in [1, r), got {v!r}")

    @classmethod
    def draw(cls, rng) -> "ToxicWaste":
        """Return fresh secrets drawn from ``rng`` (a numpy Generator or an int seed)."""
        if not isinstance(rng, np.random.Generator):
            if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
                raise TypeError(f"rng must be a numpy Generator or an int seed, got {type(rng).__name__}")
            rng = np.random.default_rng(int(rng))
        return cls(*_draw_nonzero(rng, 5))

    def __repr__(self) -> str:  # never print the secrets by accident
        return "ToxicWaste(<hidden>)"


@dataclass(frozen=True)
class VerifyingKey:
    """Points the verifier needs; ``ic[i]`` weights public input i (ic[0] for ONE)."""

    alpha_g1: Point
    beta_g1: Point
    beta_g2: Point
    gamma_g2: Point
    delta_g1: Point
    delta_g2: Point
    ic: Points

    @property
    def num_inputs(self) -> int:
        """Return the number of inputs, ONE included."""
        return len(self.ic)


@dataclass(frozen=True)
class ProvingKey:
    """Points and density bitmaps the prover needs (queries on one backend)."""

    vk: VerifyingKey
    a: Points          # G1, inputs + aux with a_aux density
    b_g1: Points       # G1, inputs with b_input density + aux with b_aux density
    b_g2: Points       # G2, same selection as b_g1
    h: Points          # G1, n - 1 points tau^j Z(tau) / delta
    l: Points          # G1, one per aux variable
    a_aux_density: np.ndarray
    b_input_density: np.ndarray
    b_aux_density: np.ndarray
    num_inputs: int
    num_aux: int
    log2_domain: int

    @property
    def backend(self) -> str:
        """Return where the query points live."""
        return self.l.backend

    @property
    def domain_size(self) -> int:
        """Return the NTT domain size n."""
        return 1 << self.log2_domain

    def to(self, backend: str) -> "ProvingKey":
        """Return a copy whose queries live on ``backend``."""
        if backend == self.backend:
            return self
        return ProvingKey(self.vk, self.a.to(backend), self.b_g1.to(backend),
                          self.b_g2.to(backend), self.h.to(backend), self.l.to(backend),
                          self.a_aux_density, self.b_input_density, self.b_aux_density,
                          self.num_inputs, self.num_aux, self.log2_domain)


@dataclass(frozen=True)
class Proof:
    """A Groth16 proof: A, C in G1 and B in G2 (192 bytes compressed)."""

    a: Point
    b: Point
    c: Point

    def __post_init__(self):
        for name, group in (("a", "g1"), ("b", "g2"), ("c", "g1")):
            p = getattr(self, name)
            if not isinstance(p, Point) or p.group != group:
                raise TypeError(f"proof.{name} must be a {group} Point")

    def to_bytes(self) -> bytes:
        """Return the 192-byte encoding A || B || C (ZCash compressed points)."""
        return self.a.to_bytes() + self.b.to_bytes() + self.c.to_bytes()

    def to_py_ecc(self) -> tuple:
        """Return (A, B, C) as py_ecc points."""
        return self.a.to_py_ecc(), self.b.to_py_ecc(), self.c.to_py_ecc()
