"""Rank-1 constraint systems: sparse A, B, C over Fr and their witnesses.

A constraint system over the variables ``z = (inputs, aux)`` is satisfied when
``(A z) * (B z) == C z`` row by row. As in bellperson, input 0 is the constant
ONE, inputs are public, aux variables are private.

Each matrix is stored in ELL layout (a fixed number of slots per row, unused
slots holding column 0 with coefficient 0), slot-major so that slot ``k`` of
all rows is one contiguous Fr array: a GPU thread per row reads its slots with
coalesced loads, and the CPU path is a handful of vectorized multiplies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from ..backend import check_backend, to_numpy
from ..field import Fr
from ..field.constants import R as FR_MODULUS
from .matvec import evaluate


def _field_backend(a: Fr) -> str:
    return a.backend


@dataclass(frozen=True)
class SparseMatrix:
    """One of A, B, C in ELL layout: ``cols[k, i]``, ``coeffs[k * rows + i]``."""

    cols: object        # (width, rows) int64 on the backend (numpy or cupy)
    coeffs: Fr          # width * rows elements, slot-major; 0 marks an unused slot
    rows: int

    def __post_init__(self):
        shape = tuple(self.cols.shape)
        if len(shape) != 2 or shape[1] != self.rows:
            raise ValueError(f"cols must have shape (width, {self.rows}), got {shape}")
        if len(self.coeffs) != shape[0] * self.rows:
            raise ValueError(f"coeffs must hold width*rows = {shape[0] * self.rows} "
                             f"elements, got {len(self.coeffs)}")

    @property
    def width(self) -> int:
        """Return the number of slots per row."""
        return int(self.cols.shape[0])

    @property
    def backend(self) -> str:
        """Return where the matrix lives (cpu or gpu)."""
        return _field_backend(self.coeffs)

    def slot(self, k: int) -> tuple[object, Fr]:
        """Return (columns, coefficients) of slot ``k`` for every row."""
        if not 0 <= k < self.width:
            raise ValueError(f"slot must be in [0, {self.width}), got {k}")
        return self.cols[k], self.coeffs[k * self.rows:(k + 1) * self.rows]

    def nonzero_mask(self):
        """Return a (width, rows) bool array: True where a slot holds a term."""
        if self.rows == 0 or self.width == 0:
            return np.zeros((self.width, self.rows), dtype=bool)
        return ~self.coeffs.is_zero().reshape(self.width, self.rows)

    def nnz(self) -> int:
        """Return the number of terms (non-zero coefficients)."""
        return int(self.nonzero_mask().sum())

    def to(self, backend: str) -> "SparseMatrix":
        """Return a copy on ``backend``."""
        check_backend(backend)
        if backend == self.backend:
            return self
        from ..backend import xp
        cols = xp(backend).asarray(to_numpy(self.cols))
        return SparseMatrix(cols=cols, coeffs=self.coeffs.to(backend), rows=self.rows)

    def to_rows(self) -> list[dict[int, int]]:
        """Return each row as a {column: coefficient} dict of Python ints (small sizes)."""
        cols = to_numpy(self.cols)
        coeffs = self.coeffs.to_ints() if len(self.coeffs) else []
        out: list[dict[int, int]] = [dict() for _ in range(self.rows)]
        for k in range(self.width):
            for i in range(self.rows):
                v = coeffs[k * self.rows + i]
                if v:
                    col = int(cols[k, i])
                    out[i][col] = (out[i].get(col, 0) + v) % FR_MODULUS
        return out

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[int, int]], num_variables: int, *,
                  width: int | None = None, backend: str = "cpu") -> "SparseMatrix":
        """Return the matrix whose row i has the terms ``rows[i]`` ({column: coefficient})."""
        rows = [dict(r) for r in rows]
        need = max((len(r) for r in rows), default=0)
        width = need if width is None else width
        if width < need:
            raise ValueError(f"width must be >= the longest row ({need}), got {width}")
        n = len(rows)
        cols = np.zeros((width, n), dtype=np.int64)
        coeffs = [0] * (width * n)
        for i, r in enumerate(rows):
            for k, (col, v) in enumerate(sorted(r.items())):
                if not isinstance(col, (int, np.integer)) or not 0 <= col < num_variables:
                    raise ValueError(f"rows[{i}]: column {col!r} is not in [0, {num_variables})")
                cols[k, i] = col
                coeffs[k * n + i] = int(v) % FR_MODULUS
        from ..backend import xp
        return cls(cols=xp(backend).asarray(cols),
                   coeffs=Fr.from_ints(coeffs, backend=backend), rows=n)


@dataclass(frozen=True)
class Witness:
    """A full assignment: ``inputs`` (inputs[0] == 1, the ONE variable) and ``aux``."""

    inputs: Fr
    aux: Fr

    @property
    def backend(self) -> str:
        """Return where the assignment lives."""
        return self.inputs.backend

    @property
    def public_inputs(self) -> list[int]:
        """Return the public inputs as Python ints, without the leading ONE."""
        return self.inputs.to_ints()[1:]

    def z(self) -> Fr:
        """Return the concatenated assignment (inputs then aux)."""
        from ..field import concat
        return concat([self.inputs, self.aux])

    def to(self, backend: str) -> "Witness":
        """Return a copy on ``backend``."""
        check_backend(backend)
        if backend == self.backend:
            return self
        return Witness(inputs=self.inputs.to(backend), aux=self.aux.to(backend))

    @classmethod
    def from_ints(cls, inputs: Iterable[int], aux: Iterable[int], *,
                  backend: str = "cpu") -> "Witness":
        """Return a witness from Python ints (``inputs`` includes the leading 1)."""
        inputs = list(inputs)
        if not inputs or inputs[0] != 1:
            raise ValueError("inputs must start with the ONE variable (inputs[0] == 1)")
        return cls(inputs=Fr.from_ints(inputs, backend=backend),
                   aux=Fr.from_ints(list(aux), backend=backend))


@dataclass(frozen=True)
class R1CS:
    """A constraint system: ``num_inputs`` (ONE included), ``num_aux``, matrices a, b, c."""

    num_inputs: int
    num_aux: int
    a: SparseMatrix
    b: SparseMatrix
    c: SparseMatrix

    def __post_init__(self):
        if self.num_inputs < 1:
            raise ValueError(f"num_inputs must be >= 1 (the ONE variable), got {self.num_inputs}")
        if self.num_aux < 0:
            raise ValueError(f"num_aux must be >= 0, got {self.num_aux}")
        rows = {self.a.rows, self.b.rows, self.c.rows}
        if len(rows) != 1:
            raise ValueError(f"a, b, c must have the same number of rows, got {sorted(rows)}")
        backends = {self.a.backend, self.b.backend, self.c.backend}
        if len(backends) != 1:
            raise ValueError(f"a, b, c must live on one backend, got {sorted(backends)}")

    @property
    def num_constraints(self) -> int:
        """Return the number of rows (constraints)."""
        return self.a.rows

    @property
    def num_variables(self) -> int:
        """Return num_inputs + num_aux."""
        return self.num_inputs + self.num_aux

    @property
    def backend(self) -> str:
        """Return where the matrices live."""
        return self.a.backend

    @property
    def domain_size(self) -> int:
        """Return the NTT domain: the next power of two >= constraints + inputs.

        Groth16 as in bellperson adds one constraint ``input_i * 0 = 0`` per
        input so that the input polynomials are linearly independent.
        """
        need = self.num_constraints + self.num_inputs
        return 1 << max(1, (need - 1).bit_length())

    def to(self, backend: str) -> "R1CS":
        """Return a copy on ``backend``."""
        if backend == self.backend:
            return self
        return R1CS(self.num_inputs, self.num_aux, self.a.to(backend),
                    self.b.to(backend), self.c.to(backend))

    def check_witness(self, witness: Witness) -> None:
        """Raise ValueError unless ``witness`` has this system's shape."""
        if not isinstance(witness, Witness):
            raise TypeError(f"witness must be a Witness, got {type(witness).__name__}")
        if len(witness.inputs) != self.num_inputs or len(witness.aux) != self.num_aux:
            raise ValueError(
                f"witness must have {self.num_inputs} inputs and {self.num_aux} aux values, "
                f"got {len(witness.inputs)} and {len(witness.aux)}")

    def densities(self) -> dict[str, np.ndarray]:
        """Return the density bitmaps a_aux, b_input, b_aux (bool NumPy arrays).

        A variable is dense in a matrix when some row uses it with a non-zero
        coefficient (the bitmaps bellperson's prover and SupraSeal use to skip
        query points at infinity). Computed once per system, then cached.
        """
        cached = self.__dict__.get("_densities")
        if cached is None:
            cached = self._compute_densities()
            object.__setattr__(self, "_densities", cached)
        return cached

    def _compute_densities(self) -> dict[str, np.ndarray]:
        return {
            "a_aux": _used(self.a, self.num_inputs, self.num_variables)[self.num_inputs:],
            "b_input": _used(self.b, 0, self.num_variables)[:self.num_inputs],
            "b_aux": _used(self.b, self.num_inputs, self.num_variables)[self.num_inputs:],
        }

    def is_satisfied(self, witness: Witness) -> bool:
        """Return True when (A z) * (B z) == C z on every row."""
        self.check_witness(witness)
        a, b, c = evaluate(self, witness.to(self.backend))
        return bool((a * b).equals(c))

    def stats(self) -> dict:
        """Return sizes, non-zeros per row and densities (JSON-able)."""
        d = self.densities()
        n = max(1, self.num_constraints)
        return {
            "constraints": self.num_constraints, "inputs": self.num_inputs,
            "aux": self.num_aux, "domain": self.domain_size,
            "a_per_row": self.a.nnz() / n, "b_per_row": self.b.nnz() / n,
            "c_per_row": self.c.nnz() / n,
            "a_aux_density": float(d["a_aux"].mean()) if self.num_aux else 0.0,
            "b_input_density": float(d["b_input"].mean()),
            "b_aux_density": float(d["b_aux"].mean()) if self.num_aux else 0.0,
        }

    @classmethod
    def from_rows(cls, num_inputs: int, num_aux: int, a_rows, b_rows, c_rows, *,
                  backend: str = "cpu") -> "R1CS":
        """Return a system from per-row {variable: coefficient} dicts (tests, toy circuits)."""
        nv = num_inputs + num_aux
        return cls(num_inputs, num_aux,
                   SparseMatrix.from_rows(a_rows, nv, backend=backend),
                   SparseMatrix.from_rows(b_rows, nv, backend=backend),
                   SparseMatrix.from_rows(c_rows, nv, backend=backend))


def _used(m: SparseMatrix, lo: int, hi: int) -> np.ndarray:
    """Return a bool NumPy array over variables [0, hi): True where m has a term in [lo, hi)."""
    from ..backend import xp
    mod = xp(m.backend)
    out = mod.zeros(hi, dtype=bool)
    if m.rows and m.width:
        mask = m.nonzero_mask().ravel()
        out[m.cols.ravel()[mask]] = True
    out[:lo] = False
    return to_numpy(out)
