"""A tiny Groth16 over Python ints and py_ecc: the slow, obviously correct oracle.

Everything here is written straight from the definitions, with no NTT and no
MSM: Lagrange polynomials evaluated at tau by their closed form, h by
schoolbook multiplication and long division by x^n - 1, and every group
element by one py_ecc scalar multiplication per term. Use it at a few dozen
constraints; tests compare the fast prover's keys, stages and proofs with it.
"""

from __future__ import annotations

from ..field.constants import R
from .keys import ToxicWaste
from .r1cs import R1CS, Witness


def _b():
    from py_ecc import optimized_bls12_381 as b
    return b


def _rows(r1cs: R1CS):
    return r1cs.a.to_rows(), r1cs.b.to_rows(), r1cs.c.to_rows()


def assignment(witness: Witness) -> list[int]:
    """Return z = inputs + aux as Python ints."""
    return witness.inputs.to_ints() + witness.aux.to_ints()


def domain_vectors(r1cs: R1CS, witness: Witness) -> tuple[list[int], list[int], list[int]]:
    """Return a, b, c over the domain: row sums, input rows appended, zero padded."""
    z = assignment(witness)
    n, ni = r1cs.domain_size, r1cs.num_inputs
    out = []
    for k, rows in enumerate(_rows(r1cs)):
        vals = [sum(coef * z[col] for col, coef in row.items()) % R for row in rows]
        if k == 0:
            vals += z[:ni]
        out.append(vals + [0] * (n - len(vals)))
    return out[0], out[1], out[2]


def lagrange_at(n: int, tau: int) -> list[int]:
    """Return L_j(tau) = (tau^n - 1) / n * omega^j / (tau - omega^j) for j < n."""
    from ..ntt.domain import Domain, log2_of
    d = Domain(log2_of(n))
    z = (pow(tau, n, R) - 1) % R
    scale = z * d.size_inv % R
    return [scale * w % R * pow((tau - w) % R, -1, R) % R for w in d.elements()]


def qap_at(r1cs: R1CS, tau: int) -> tuple[list[int], list[int], list[int]]:
    """Return (u_i(tau), v_i(tau), w_i(tau)) for every variable, from the closed forms."""
    n, m, ni = r1cs.domain_size, r1cs.num_constraints, r1cs.num_inputs
    lag = lagrange_at(n, tau)
    nv = r1cs.num_variables
    polys = []
    for rows in _rows(r1cs):
        acc = [0] * nv
        for j, row in enumerate(rows):
            for col, coef in row.items():
                acc[col] = (acc[col] + coef * lag[j]) % R
        polys.append(acc)
    for i in range(ni):
        polys[0][i] = (polys[0][i] + lag[m + i]) % R
    return polys[0], polys[1], polys[2]


def h_coefficients(r1cs: R1CS, witness: Witness) -> list[int]:
    """Return the n coefficients of h = (a b - c) / (x^n - 1) (the last is 0)."""
    from ..ntt.reference import naive_intt
    a, b, c = domain_vectors(r1cs, witness)
    pa, pb, pc = naive_intt(a), naive_intt(b), naive_intt(c)
    n = len(pa)
    prod = [0] * (2 * n - 1)
    for i, x in enumerate(pa):
        if x:
            for j, y in enumerate(pb):
                prod[i + j] = (prod[i + j] + x * y) % R
    for i, x in enumerate(pc):
        prod[i] = (prod[i] - x) % R
    # p = q (x^n - 1) with deg q <= n - 2 means p_(k+n) = q_k and p_k = -q_k for k < n
    q = prod[n:] + [0]
    rem = [(prod[k] + q[k]) % R for k in range(n)]
    if any(rem):
        raise ValueError("the witness does not satisfy the system: a b - c is not divisible by Z")
    return q


def setup(r1cs: R1CS, tw: ToxicWaste) -> dict:
    """Return the keys as a dict of py_ecc points (same selection and order as ``ProvingKey``)."""
    b = _b()
    G1, G2 = b.G1, b.G2
    u, v, w = qap_at(r1cs, tw.tau)
    ni, nv, n = r1cs.num_inputs, r1cs.num_variables, r1cs.domain_size
    d = r1cs.densities()
    a_vars = list(range(ni)) + [ni + i for i in range(r1cs.num_aux) if d["a_aux"][i]]
    b_vars = [i for i in range(ni) if d["b_input"][i]] + \
             [ni + i for i in range(r1cs.num_aux) if d["b_aux"][i]]
    gi, di = pow(tw.gamma, -1, R), pow(tw.delta, -1, R)
    comb = [(tw.beta * u[i] + tw.alpha * v[i] + w[i]) % R for i in range(nv)]
    z = (pow(tw.tau, n, R) - 1) % R
    return {
        "alpha_g1": b.multiply(G1, tw.alpha), "beta_g1": b.multiply(G1, tw.beta),
        "beta_g2": b.multiply(G2, tw.beta), "gamma_g2": b.multiply(G2, tw.gamma),
        "delta_g1": b.multiply(G1, tw.delta), "delta_g2": b.multiply(G2, tw.delta),
        "a": [b.multiply(G1, u[i]) for i in a_vars],
        "b_g1": [b.multiply(G1, v[i]) for i in b_vars],
        "b_g2": [b.multiply(G2, v[i]) for i in b_vars],
        "l": [b.multiply(G1, comb[i] * di % R) for i in range(ni, nv)],
        "h": [b.multiply(G1, pow(tw.tau, j, R) * z % R * di % R) for j in range(n - 1)],
        "ic": [b.multiply(G1, comb[i] * gi % R) for i in range(ni)],
        "a_vars": a_vars, "b_vars": b_vars,
    }


def _lincomb(points, scalars, zero):
    b = _b()
    acc = zero
    for p, k in zip(points, scalars):
        if k % R:
            acc = b.add(acc, b.multiply(p, k % R))
    return acc


def prove(keys: dict, r1cs: R1CS, witness: Witness, r: int, s: int) -> tuple:
    """Return the proof (A, B, C) as py_ecc points, from the definitions."""
    b = _b()
    z = assignment(witness)
    ni = r1cs.num_inputs
    h = h_coefficients(r1cs, witness)
    A = b.add(b.add(keys["alpha_g1"], _lincomb(keys["a"], [z[i] for i in keys["a_vars"]], b.Z1)),
              b.multiply(keys["delta_g1"], r) if r else b.Z1)
    Bz = [z[i] for i in keys["b_vars"]]
    B2 = b.add(b.add(keys["beta_g2"], _lincomb(keys["b_g2"], Bz, b.Z2)),
               b.multiply(keys["delta_g2"], s) if s else b.Z2)
    B1 = b.add(b.add(keys["beta_g1"], _lincomb(keys["b_g1"], Bz, b.Z1)),
               b.multiply(keys["delta_g1"], s) if s else b.Z1)
    C = _lincomb(keys["l"], z[ni:], b.Z1)
    C = b.add(C, _lincomb(keys["h"], h[:-1], b.Z1))
    C = b.add(C, _lincomb([A, B1, keys["delta_g1"]], [s, r, (-r * s) % R], b.Z1))
    return A, B2, C


def verify(keys: dict, public_inputs, proof: tuple) -> bool:
    """Return True when e(A, B) == e(alpha, beta) e(IC, gamma) e(C, delta) (full pairings)."""
    b = _b()
    A, B, C = proof
    ic = _lincomb(keys["ic"], [1, *public_inputs], b.Z1)
    lhs = b.pairing(B, A)
    rhs = b.pairing(keys["beta_g2"], keys["alpha_g1"]) * b.pairing(keys["gamma_g2"], ic) * \
        b.pairing(keys["delta_g2"], C)
    return lhs == rhs
