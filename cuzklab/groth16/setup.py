"""Groth16 trusted setup for an R1CS (for tests and benchmarks: the secrets come from an rng).

The QAP polynomials are never built: the Lagrange basis evaluated at tau is
one inverse NTT of (1, tau, tau^2, ...), since L_j(tau) = (1/n) sum_k tau^k
omega^(-jk); then u_i(tau), v_i(tau), w_i(tau) are the transposed matrices
applied to it. As in bellperson, each public input i gets the extra
constraint ``input_i * 0 = 0`` (row num_constraints + i of A), which makes
the input polynomials independent.

The query points are fixed-base multiplications of the generators
(:mod:`.fixed_base`: a table kernel on the GPU, Python ints or the batched
NumPy ladder on the CPU).
"""

from __future__ import annotations

import numpy as np

from ..backend import check_backend, xp
from ..curve import Point
from ..field import Fr, concat
from ..field.constants import R as FR_MODULUS
from ..ntt import intt
from ..ntt.domain import log2_of, powers
from .fixed_base import fixed_base_mul
from .keys import ProvingKey, ToxicWaste, VerifyingKey
from .matvec import transpose_evaluate
from .r1cs import R1CS

def qap_at(r1cs: R1CS, tau: int) -> tuple[Fr, Fr, Fr]:
    """Return (u_i(tau), v_i(tau), w_i(tau)) for every variable i, on the system's backend."""
    backend = r1cs.backend
    n = r1cs.domain_size
    m, ni, nv = r1cs.num_constraints, r1cs.num_inputs, r1cs.num_variables
    lag = intt(powers(tau, n, backend))
    rows = lag[:m]
    u = transpose_evaluate(r1cs.a, rows, nv)
    v = transpose_evaluate(r1cs.b, rows, nv)
    w = transpose_evaluate(r1cs.c, rows, nv)
    u_inputs = u[:ni] + lag[m:m + ni]
    u = concat([u_inputs, u[ni:]]) if r1cs.num_aux else u_inputs
    return u, v, w


def _index(mask: np.ndarray, offset: int, backend: str):
    return xp(backend).asarray(np.flatnonzero(mask) + offset)


def setup_with_toxic_waste(r1cs: R1CS, tw: ToxicWaste, *,
                           backend: str | None = None) -> tuple[ProvingKey, VerifyingKey]:
    """Return (proving key, verifying key) for ``r1cs`` made with the given secrets."""
    if not isinstance(r1cs, R1CS):
        raise TypeError(f"r1cs must be an R1CS, got {type(r1cs).__name__}")
    if not isinstance(tw, ToxicWaste):
        raise TypeError(f"tw must be a ToxicWaste, got {type(tw).__name__}")
    backend = r1cs.backend if backend is None else check_backend(backend)
    r1cs = r1cs.to(backend)
    n = r1cs.domain_size
    z_tau = (pow(tw.tau, n, FR_MODULUS) - 1) % FR_MODULUS
    if z_tau == 0:
        raise ValueError("tau lies in the evaluation domain (Z(tau) = 0); draw other secrets")
    ni, na = r1cs.num_inputs, r1cs.num_aux
    dens = r1cs.densities()

    u, v, w = qap_at(r1cs, tw.tau)
    combined = u * tw.beta + v * tw.alpha + w          # beta u + alpha v + w
    gamma_inv = pow(tw.gamma, -1, FR_MODULUS)
    delta_inv = pow(tw.delta, -1, FR_MODULUS)

    a_idx = xp(backend).concatenate([xp(backend).arange(ni), _index(dens["a_aux"], ni, backend)])
    b_idx = xp(backend).concatenate([_index(dens["b_input"], 0, backend),
                                     _index(dens["b_aux"], ni, backend)])
    a_sc = u[a_idx]
    b_sc = v[b_idx]
    l_sc = combined[ni:] * delta_inv if na else Fr.zeros(0, backend=backend)
    ic_sc = combined[:ni] * gamma_inv
    h_sc = powers(tw.tau, n - 1, backend) * (z_tau * delta_inv % FR_MODULUS)

    g1 = fixed_base_mul("g1", concat([a_sc, b_sc, l_sc, h_sc, ic_sc]), backend)
    cuts = np.cumsum([len(a_sc), len(b_sc), len(l_sc), len(h_sc)])
    a_pts, b_g1, l_pts, h_pts, ic = (g1[:cuts[0]], g1[cuts[0]:cuts[1]], g1[cuts[1]:cuts[2]],
                                     g1[cuts[2]:cuts[3]], g1[cuts[3]:])
    b_g2 = fixed_base_mul("g2", b_sc, backend)

    G1, G2 = Point.generator("g1"), Point.generator("g2")
    vk = VerifyingKey(alpha_g1=G1 * tw.alpha, beta_g1=G1 * tw.beta, beta_g2=G2 * tw.beta,
                      gamma_g2=G2 * tw.gamma, delta_g1=G1 * tw.delta, delta_g2=G2 * tw.delta,
                      ic=ic.to("cpu"))
    pk = ProvingKey(vk=vk, a=a_pts, b_g1=b_g1, b_g2=b_g2, h=h_pts, l=l_pts,
                    a_aux_density=dens["a_aux"], b_input_density=dens["b_input"],
                    b_aux_density=dens["b_aux"], num_inputs=ni, num_aux=na,
                    log2_domain=log2_of(n))
    return pk, vk


def setup(r1cs: R1CS, rng, *, backend: str | None = None) -> tuple[ProvingKey, VerifyingKey]:
    """Return (proving key, verifying key), drawing the toxic waste from ``rng``.

    The secrets are drawn from ``rng`` (a numpy Generator or an int seed) and
    discarded when this returns; anyone who can replay the rng can forge
    proofs, so this setup is for tests and benchmarks only.
    """
    tw = ToxicWaste.draw(rng)
    try:
        return setup_with_toxic_waste(r1cs, tw, backend=backend)
    finally:
        del tw
