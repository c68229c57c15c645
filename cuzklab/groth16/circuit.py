"""Synthetic circuits shaped like one partition of a 32 GiB PoRep C2 proof.

The real partition (SupraSeal C2 / cuzk figures) has 130,278,869 constraints,
328 public inputs and 130,169,893 aux variables; A, B and C hold 2.4, 1.0 and
2.2 non-zeros per row; 99.7 % of the aux variables appear in A, 25.4 % in B,
and of the inputs only ONE appears in B (density 1/328). Most of its witness
values are bits (SHA-256 and Merkle paths).

``porep_circuit`` builds a system of any size with those per-row non-zeros
and densities and a witness that satisfies it. The witness is drawn first
(mostly 0 and 1, some uniform field elements); each row then gets random A
and B terms, and C gets one or two random terms plus a "slack" term on an aux
variable whose value is 1, with the coefficient that makes the row hold:
``c_slack = (A z)(B z) - (other C terms)``. No inversions and no dependence
between rows, so generation is a few vectorized passes on either backend and
a given seed gives the same circuit on both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import check_backend, xp
from ..field import Fr
from ..field.constants import FR
from .matvec import matvec
from .r1cs import R1CS, SparseMatrix, Witness

# Shape of one 32 GiB PoRep partition (cuzk documentation, SupraSeal C2).
POREP_CONSTRAINTS = 130_278_869
POREP_INPUTS = 328
POREP_AUX = 130_169_893
A_PER_ROW = 2.4
B_PER_ROW = 1.0
C_PER_ROW = 2.2
A_AUX_DENSITY = 0.997
B_AUX_DENSITY = 0.254

# Witness value mix. Not published for PoRep; chosen so that the 0/1/other
# split gives a tail of a few percent of the aux variables, which is what
# cuzk's stage times imply (tail MSMs ~0.1 s against ~0.64 s of batch
# additions and a ~0.7 s NTT + H MSM over 2^27 points).
P_ZERO = 0.46
P_ONE = 0.46
# Fraction of B rows whose only term is the ONE input (linear constraints).
B_ONE_FRACTION = 0.02
# Probability that a coefficient is 1 rather than a uniform field element.
P_UNIT_COEFF = 0.5


@dataclass(frozen=True)
class CircuitSpec:
    """Parameters of a synthetic PoRep-shaped circuit (see module docstring)."""

    num_constraints: int
    num_inputs: int
    num_aux: int
    p_zero: float = P_ZERO
    p_one: float = P_ONE

    def __post_init__(self):
        for name in ("num_constraints", "num_inputs", "num_aux"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"{name} must be an int, got {type(v).__name__}")
        if self.num_constraints < 1:
            raise ValueError(f"num_constraints must be >= 1, got {self.num_constraints}")
        if self.num_inputs < 1:
            raise ValueError(f"num_inputs must be >= 1 (ONE included), got {self.num_inputs}")
        if self.num_aux < 2:
            raise ValueError(f"num_aux must be >= 2, got {self.num_aux}")
        if not (0 <= self.p_zero and 0 <= self.p_one and self.p_zero + self.p_one <= 1):
            raise ValueError(f"p_zero and p_one must be >= 0 with p_zero + p_one <= 1, "
                             f"got {self.p_zero} and {self.p_one}")


def default_inputs(num_constraints: int) -> int:
    """Return the number of public inputs used for a circuit of this size (ONE included)."""
    return int(min(POREP_INPUTS, max(2, num_constraints // 16)))


def default_aux(num_constraints: int) -> int:
    """Return the number of aux variables for this size (the PoRep aux/constraint ratio)."""
    return int(max(2, round(num_constraints * POREP_AUX / POREP_CONSTRAINTS)))


def constraints_for_domain(log2_domain: int, num_inputs: int | None = None) -> int:
    """Return the constraint count whose NTT domain (constraints + inputs) is exactly 2^log2_domain."""
    if not isinstance(log2_domain, int) or not 2 <= log2_domain <= 32:
        raise ValueError(f"log2_domain must be an int in [2, 32], got {log2_domain!r}")
    n = 1 << log2_domain
    k = default_inputs(n) if num_inputs is None else num_inputs
    return n - k


def porep_circuit(num_constraints: int, *, num_inputs: int | None = None,
                  num_aux: int | None = None, rng=0, backend: str = "cpu",
                  p_zero: float = P_ZERO, p_one: float = P_ONE) -> tuple[R1CS, Witness]:
    """Return ``(r1cs, witness)``: a PoRep-shaped system and an assignment satisfying it.

    ``rng`` is a numpy Generator or an int seed; the same seed gives the same
    circuit on the CPU and the GPU backend.
    """
    check_backend(backend)
    spec = CircuitSpec(
        num_constraints=int(num_constraints),
        num_inputs=default_inputs(num_constraints) if num_inputs is None else num_inputs,
        num_aux=default_aux(num_constraints) if num_aux is None else num_aux,
        p_zero=p_zero, p_one=p_one)
    if not isinstance(rng, np.random.Generator):
        if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
            raise TypeError(f"rng must be a numpy Generator or an int seed, got {type(rng).__name__}")
        rng = np.random.default_rng(int(rng))
    return _generate(spec, rng, backend)


def _coefficients(n: int, rng, backend: str) -> Fr:
    """Return n coefficients: 1 with probability P_UNIT_COEFF, else uniform."""
    coeffs = Fr.random(n, rng, backend="cpu").limbs
    unit = rng.random(n) < P_UNIT_COEFF
    coeffs[unit] = np.asarray(FR.mont_r_limbs, dtype=np.uint32)
    return Fr.from_mont_limbs(coeffs, backend=backend, check=False)


def _generate(spec: CircuitSpec, rng: np.random.Generator, backend: str) -> tuple[R1CS, Witness]:
    n, ni, na = spec.num_constraints, spec.num_inputs, spec.num_aux
    mod = xp(backend)
    one_limbs = np.asarray(FR.mont_r_limbs, dtype=np.uint32)

    # Witness: ONE, random public inputs; aux mostly bits.
    inputs = Fr.random(ni, rng, backend="cpu").limbs
    inputs[0] = one_limbs
    u = rng.random(na)
    kind = np.where(u < spec.p_zero, 0, np.where(u < spec.p_zero + spec.p_one, 1, 2))
    if not (kind == 1).any():
        kind[0] = 1  # the slack terms need an aux variable equal to 1
    aux = Fr.random(na, rng, backend="cpu").limbs
    aux[kind == 0] = 0
    aux[kind == 1] = one_limbs
    witness = Witness(inputs=Fr.from_mont_limbs(inputs, backend=backend, check=False),
                      aux=Fr.from_mont_limbs(aux, backend=backend, check=False))
    z = witness.z()

    # A: slot 0 walks a permutation of the covered aux variables, so every
    # covered variable is used once the system has at least as many rows.
    n_cov = max(1, int(round(A_AUX_DENSITY * na)))
    covered = rng.permutation(na)[:n_cov] + ni
    a_cols = np.empty((3, n), dtype=np.int64)
    a_cols[0] = covered[rng.permutation(n) % n_cov]
    a_cols[1] = covered[rng.integers(0, n_cov, size=n)]
    a_cols[2] = covered[rng.integers(0, n_cov, size=n)]
    a_coeffs = _coefficients(3 * n, rng, "cpu").limbs
    a_third = rng.random(n) < (A_PER_ROW - 2.0)
    a_coeffs[2 * n:][~a_third] = 0

    # B: one term per row, ONE on a few rows, else an aux variable of the B set.
    n_b = max(1, int(round(B_AUX_DENSITY * na)))
    b_set = rng.permutation(na)[:n_b] + ni
    b_cols = np.zeros((1, n), dtype=np.int64)
    on_one = rng.random(n) < B_ONE_FRACTION
    rest = np.flatnonzero(~on_one)
    b_cols[0, rest] = b_set[rng.permutation(rest.size) % n_b]
    b_coeffs = _coefficients(n, rng, "cpu").limbs

    # C: one or two random aux terms, then the slack term in slot 0. Slot 1
    # uses a non-zero aux value so that a slack coefficient of zero (which
    # would drop a term) can be avoided by bumping slot 1's coefficient.
    ones = np.flatnonzero(kind == 1) + ni
    nonzero = np.flatnonzero(kind != 0) + ni
    c_cols = np.empty((3, n), dtype=np.int64)
    c_cols[0] = ones[rng.integers(0, ones.size, size=n)]
    c_cols[1] = nonzero[rng.integers(0, nonzero.size, size=n)]
    c_cols[2] = rng.integers(ni, ni + na, size=n)
    c_coeffs = _coefficients(3 * n, rng, "cpu").limbs
    c_third = rng.random(n) < (C_PER_ROW - 2.0)
    c_coeffs[2 * n:][~c_third] = 0

    a = SparseMatrix(cols=mod.asarray(a_cols),
                     coeffs=Fr.from_mont_limbs(a_coeffs, backend=backend, check=False), rows=n)
    b = SparseMatrix(cols=mod.asarray(b_cols),
                     coeffs=Fr.from_mont_limbs(b_coeffs, backend=backend, check=False), rows=n)
    target = matvec(a, z) * matvec(b, z)
    c_dev = mod.asarray(c_cols)
    c_rest = Fr.from_mont_limbs(c_coeffs[n:], backend=backend, check=False)
    z1 = z[c_dev[1]]
    c1 = c_rest[:n]
    slack = target - (c1 * z1 + c_rest[n:] * z[c_dev[2]])  # z[slack column] == 1
    dead = mod.flatnonzero(slack.is_zero())
    if dead.shape[0]:
        # c1 -> c1 + 1 moves the slack to -z1, which is not zero.
        c1[dead] = c1[dead] + 1
        slack[dead] = -z1[dead]
        c_rest = Fr.concat([c1, c_rest[n:]])
    c_all = Fr.from_mont_limbs(mod.concatenate([slack.limbs, c_rest.limbs]), check=False)
    c = SparseMatrix(cols=c_dev, coeffs=c_all, rows=n)
    return R1CS(ni, na, a, b, c), witness
