"""Stage ``epilogue``: assemble the proof (A, B, C) from the MSM results and r, s.

A = alpha + sum_i z_i [u_i]_1 + r delta
B = beta + sum_i z_i [v_i]_2 + s delta       (and B_G1 likewise in G1)
C = sum_aux z_i [L_i]_1 + H + s A + r B_G1 - r s delta
"""

from __future__ import annotations

from ..curve import Point
from ..field.constants import R as FR_MODULUS
from ..groth16.keys import Proof, ProvingKey
from .timing import CPU_LANE, StageClock, new_clock


def _check_blinding(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < FR_MODULUS:
        raise ValueError(f"{name} must be an int in [0, r), got {v!r}")
    return v


def epilogue(pk: ProvingKey, *, a: Point, b_g1: Point, b_g2: Point, l: Point, h: Point | None,
             r: int, s: int, clock: StageClock | None = None) -> Proof:
    """Return the Proof from the query sums (without alpha, beta, delta terms) and r, s.

    ``h=None``: the proof without H in C (C - H); ``with_h`` adds it later,
    which gives the same proof (the prover assembles the rest while the H
    MSM runs).
    """
    r, s = _check_blinding("r", r), _check_blinding("s", s)
    vk = pk.vk
    clock = new_clock(clock)
    with clock.stage("epilogue", CPU_LANE, "cpu"):
        A = vk.alpha_g1 + a + vk.delta_g1 * r
        B = vk.beta_g2 + b_g2 + vk.delta_g2 * s
        B1 = vk.beta_g1 + b_g1 + vk.delta_g1 * s
        C = l + A * s + B1 * r + vk.delta_g1 * ((FR_MODULUS - r * s % FR_MODULUS) % FR_MODULUS)
        proof = Proof(a=A, b=B, c=C) if h is None else with_h(Proof(a=A, b=B, c=C), h)
    return proof


def with_h(partial: Proof, h: Point) -> Proof:
    """Return the proof ``partial`` (from ``epilogue(..., h=None)``) with H added to C."""
    return Proof(a=partial.a, b=partial.b, c=partial.c + h)
