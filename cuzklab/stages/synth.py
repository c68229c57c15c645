"""Stage ``synth``: from a witness to the a, b, c evaluations, aux values and density bitmaps.

cuzk synthesizes the circuit on the CPU; here the circuit is already an
R1CS with a known witness, so what is left of synthesis is the sparse
matrix-vector products A z, B z, C z plus the density bitmaps. The outputs
are laid out as the prover's quotient step wants them: length n (the NTT
domain), with the input rows ``input_i * 0 = 0`` appended to a and zero
padding. On the GPU backend the products run on the device (the witness
upload included), so a, b, c need no separate upload.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import check_backend
from ..field import Fr, concat
from ..groth16.matvec import evaluate
from ..groth16.r1cs import R1CS, Witness
from .timing import StageClock, StageTiming, lane_for, new_clock


@dataclass(frozen=True)
class SynthOutput:
    """a, b, c over the domain (length n), the assignment, the density bitmaps."""

    a: Fr
    b: Fr
    c: Fr
    inputs: Fr
    aux: Fr
    a_aux_density: np.ndarray
    b_input_density: np.ndarray
    b_aux_density: np.ndarray
    timing: StageTiming

    @property
    def domain_size(self) -> int:
        """Return n, the length of a, b and c."""
        return len(self.a)


def domain_vectors(r1cs: R1CS, witness: Witness) -> tuple[Fr, Fr, Fr]:
    """Return a, b, c padded to the domain: A z with the inputs appended, B z, C z."""
    a, b, c = evaluate(r1cs, witness)
    n, m, ni = r1cs.domain_size, r1cs.num_constraints, r1cs.num_inputs
    backend = r1cs.backend
    pad_a = Fr.zeros(n - m - ni, backend=backend)
    pad = Fr.zeros(n - m, backend=backend)
    return concat([a, witness.inputs, pad_a]), concat([b, pad]), concat([c, pad])


def synth(r1cs: R1CS, witness: Witness, *, backend: str = "cpu",
          clock: StageClock | None = None) -> SynthOutput:
    """Return the SynthOutput of ``witness`` for ``r1cs``, timed as stage ``synth``."""
    check_backend(backend)
    if not isinstance(r1cs, R1CS):
        raise TypeError(f"r1cs must be an R1CS, got {type(r1cs).__name__}")
    r1cs.check_witness(witness)
    clock = new_clock(clock)
    with clock.stage("synth", lane_for(backend), backend):
        r1 = r1cs.to(backend)
        w = witness.to(backend)
        a, b, c = domain_vectors(r1, w)
        dens = r1.densities()
    return SynthOutput(a=a, b=b, c=c, inputs=w.inputs, aux=w.aux,
                       a_aux_density=dens["a_aux"], b_input_density=dens["b_input"],
                       b_aux_density=dens["b_aux"], timing=clock.last())
