"""Stage ``epilogue``: assemble the proof (A, B, C) from the MSM results and r, s.

A = alpha + sum_i z_i [u_i]_1 + r delta
B = beta + sum_i z_i [v_i]_2 + s delta       (and B_G1 likewise in G1)
C = sum_aux z_i [L_i]_1 + H + s A + r B_G1 - r s delta
"""

from __future__ import annotations

from dataclasses import dataclass

from ..curve import Point
from ..field.constants import R as FR_MODULUS
from ..groth16.keys import Proof, ProvingKey
from .timing import CPU_LANE, StageClock, new_clock


def _check_blinding(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < FR_MODULUS:
        raise ValueError(f"{name} must be an int in [0, r), got {v!r}")
    return v


@dataclass(frozen=True)
class EpilogueConstants:
    """The terms of A, B and C that depend on the key and r, s alone, not on an MSM.

    With A = alpha + a + r delta and B_G1 = beta + b_g1 + s delta,
    C - H = l + s A + r B_G1 - r s delta = l + s a + r b_g1 + (s alpha + r beta + r s delta):
    four G1 and one G2 scalar multiplications that need no MSM result, so
    the prover computes them while the device works (see ``prove``).
    """

    r: int
    s: int
    a: Point   # alpha_1 + r delta_1
    b: Point   # beta_2 + s delta_2
    c: Point   # s alpha_1 + r beta_1 + r s delta_1


def epilogue_constants(pk: ProvingKey, r: int, s: int) -> EpilogueConstants:
    """Return the EpilogueConstants of ``pk`` and the blinding factors r, s."""
    r, s = _check_blinding("r", r), _check_blinding("s", s)
    vk = pk.vk
    return EpilogueConstants(
        r=r, s=s,
        a=vk.alpha_g1 + vk.delta_g1 * r,
        b=vk.beta_g2 + vk.delta_g2 * s,
        c=vk.alpha_g1 * s + vk.beta_g1 * r + vk.delta_g1 * (r * s % FR_MODULUS))


def epilogue(pk: ProvingKey, *, a: Point, b_g1: Point, b_g2: Point, l: Point, h: Point | None,
             r: int, s: int, clock: StageClock | None = None,
             constants: EpilogueConstants | None = None) -> Proof:
    """Return the Proof from the query sums (without alpha, beta, delta terms) and r, s.

    ``h=None``: the proof without H in C (C - H); ``with_h`` adds it later,
    which gives the same proof (the prover assembles the rest while the H
    MSM runs). ``constants``: ``epilogue_constants(pk, r, s)`` computed
    earlier (then the stage is two G1 scalar multiplications and a few
    additions); None computes them here.
    """
    r, s = _check_blinding("r", r), _check_blinding("s", s)
    if constants is not None and (constants.r, constants.s) != (r, s):
        raise ValueError("constants were computed for other blinding factors r, s")
    clock = new_clock(clock)
    with clock.stage("epilogue", CPU_LANE, "cpu"):
        k = constants if constants is not None else epilogue_constants(pk, r, s)
        A = k.a + a
        B = k.b + b_g2
        C = l + a * s + b_g1 * r + k.c
        proof = Proof(a=A, b=B, c=C) if h is None else with_h(Proof(a=A, b=B, c=C), h)
    return proof


def with_h(partial: Proof, h: Point) -> Proof:
    """Return the proof ``partial`` (from ``epilogue(..., h=None)``) with H added to C."""
    return Proof(a=partial.a, b=partial.b, c=partial.c + h)
