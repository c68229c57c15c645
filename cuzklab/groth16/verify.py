"""Groth16 verification with py_ecc's pairing (pure Python, about half a second).

The check is e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta), computed
as one product of four Miller loops and a single final exponentiation.
"""

from __future__ import annotations

from ..curve import Point
from ..field.constants import R as FR_MODULUS
from .keys import Proof, VerifyingKey


def _py_ecc():
    try:
        from py_ecc import optimized_bls12_381 as b
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise ImportError("verify needs py_ecc: install cuzklab[dev] (pip install py_ecc)") from exc
    return b


def _valid(p: Point) -> bool:
    if p.is_infinity:
        return True
    from ..curve import reference as ref
    return p.is_on_curve() and ref.in_subgroup(p.group, p.xy)


def public_input_point(vk: VerifyingKey, public_inputs) -> Point:
    """Return IC(x) = ic[0] + sum_i x_i ic[i + 1]."""
    from ..msm import msm
    return msm(vk.ic, [1, *public_inputs], backend="cpu")


def verify(vk: VerifyingKey, public_inputs, proof: Proof) -> bool:
    """Return True when ``proof`` is valid for ``public_inputs`` (without the leading ONE)."""
    if not isinstance(vk, VerifyingKey):
        raise TypeError(f"vk must be a VerifyingKey, got {type(vk).__name__}")
    if not isinstance(proof, Proof):
        raise TypeError(f"proof must be a Proof, got {type(proof).__name__}")
    inputs = list(public_inputs)
    if len(inputs) != vk.num_inputs - 1:
        raise ValueError(f"public_inputs must hold {vk.num_inputs - 1} values, got {len(inputs)}")
    for i, x in enumerate(inputs):
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < FR_MODULUS:
            raise ValueError(f"public_inputs[{i}] must be an int in [0, r), got {x!r}")
    if not (_valid(proof.a) and _valid(proof.b) and _valid(proof.c)):
        return False
    b = _py_ecc()
    ic = public_input_point(vk, inputs)
    pairs = ((proof.b, proof.a), (vk.beta_g2, -vk.alpha_g1),
             (vk.gamma_g2, -ic), (vk.delta_g2, -proof.c))
    acc = b.FQ12.one()
    for q, p in pairs:
        if q.is_infinity or p.is_infinity:
            continue
        acc = acc * b.pairing(q.to_py_ecc(), p.to_py_ecc(), final_exponentiate=False)
    return b.final_exponentiate(acc) == b.FQ12.one()
