"""Stage ``synth``: from public inputs (or a witness) to a, b, c, the aux values and density bitmaps.

``synthesize(program, inputs)`` does what cuzk's synthesis does on the CPU:
it evaluates the circuit's gate program on one thread to compute the witness
(the aux values, written as they are computed), then the row-parallel
MatVec A z, B z, C z over ``threads`` threads (a, b, c written as the rows
are done), both in native code that releases the GIL. ``synth(r1cs,
witness)`` starts from a known witness and does the MatVec only.

The outputs are laid out as the prover's quotient step wants them: length n
(the NTT domain), with the input rows ``input_i * 0 = 0`` appended to a and
zero padding. On the GPU backend the products run on the device (the
witness upload included), so a, b, c need no separate upload.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..backend import check_backend
from ..errors import ConfigError
from ..field import Fr, concat
from ..groth16.matvec import evaluate
from ..groth16.program import CircuitProgram
from ..groth16.r1cs import R1CS, Witness
from .timing import StageClock, StageTiming, lane_for, new_clock


@dataclass(frozen=True)
class SynthOutput:
    """a, b, c over the domain (length n), the assignment, the density bitmaps, the time split."""

    a: Fr
    b: Fr
    c: Fr
    inputs: Fr
    aux: Fr
    a_aux_density: np.ndarray
    b_input_density: np.ndarray
    b_aux_density: np.ndarray
    timing: StageTiming
    witness_s: float = 0.0     # witness program (0 when the witness was given)
    matvec_s: float = 0.0      # A/B/C MatVec and the density bitmaps

    @property
    def domain_size(self) -> int:
        """Return n, the length of a, b and c."""
        return len(self.a)


def domain_vectors(r1cs: R1CS, witness: Witness) -> tuple[Fr, Fr, Fr]:
    """Return a, b, c padded to the domain by the array twin: A z with the inputs appended, B z, C z."""
    a, b, c = evaluate(r1cs, witness)
    n, m, ni = r1cs.domain_size, r1cs.num_constraints, r1cs.num_inputs
    backend = r1cs.backend
    pad_a = Fr.zeros(n - m - ni, backend=backend)
    pad = Fr.zeros(n - m, backend=backend)
    return concat([a, witness.inputs, pad_a]), concat([b, pad]), concat([c, pad])


def check_out_buffers(out, n: int) -> list:
    """Return ``out`` as a list of three (n, 8) uint32 C-contiguous host arrays, or raise ConfigError."""
    want = f"three C-contiguous (n, 8) uint32 host arrays with n = {n}"
    if not isinstance(out, (list, tuple)) or len(out) != 3:
        raise ConfigError("out", f"must be {want}, got {type(out).__name__}")
    for v in out:
        if (not isinstance(v, np.ndarray) or v.dtype != np.uint32 or v.shape != (n, 8)
                or not v.flags["C_CONTIGUOUS"] or not v.flags["WRITEABLE"]):
            got = (f"{v.dtype} {v.shape}" if isinstance(v, np.ndarray) else type(v).__name__)
            raise ConfigError("out", f"must be {want}, got {got}")
    return list(out)


def native_domain_vectors(r1cs: R1CS, witness: Witness, *, threads: int = 1,
                          pool=None, out=None) -> tuple[Fr, Fr, Fr]:
    """Return the same a, b, c as :func:`domain_vectors`, by the native row-parallel MatVec (CPU).

    ``pool``: the executor the MatVec's row ranges run on (None: a shared pool of ``threads``).
    ``out``: three (n, 8) uint32 host arrays to write a, b, c into (a pinned buffer, as
    cuzk's synthesis writes into the buffers it checks out of its pinned pool); None
    allocates them.
    """
    from ..native.synthesis import matvecs_into
    n, m, ni = r1cs.domain_size, r1cs.num_constraints, r1cs.num_inputs
    inputs = np.ascontiguousarray(witness.inputs.to("cpu").limbs)
    aux = np.ascontiguousarray(witness.aux.to("cpu").limbs)
    mats = [(mat.cols, mat.coeffs.limbs) for mat in (r1cs.a, r1cs.b, r1cs.c)]
    if out is None:   # pages fill as the rows are written
        out = [np.empty((n, 8), dtype=np.uint32) for _ in mats]
    else:
        out = check_out_buffers(out, n)
    matvecs_into(mats, m, inputs, aux, out, threads=threads, pool=pool)
    for v in out:
        v[m:] = 0
    out[0][m:m + ni] = inputs
    return tuple(Fr.from_mont_limbs(v, "cpu", check=False) for v in out)


def _vectors(r1cs: R1CS, witness: Witness, backend: str, threads: int, native: bool,
             pool=None, out=None):
    if backend == "cpu" and native:
        return native_domain_vectors(r1cs, witness, threads=threads, pool=pool, out=out)
    a, b, c = domain_vectors(r1cs, witness.to(backend))
    if out is None:
        return a, b, c
    for dst, v in zip(out, (a, b, c)):   # the twins compute, then fill the given buffers
        np.copyto(dst, v.to("cpu").limbs)
    return tuple(Fr.from_mont_limbs(v, "cpu", check=False) for v in out)


def synth(r1cs: R1CS, witness: Witness, *, backend: str = "cpu", clock: StageClock | None = None,
          threads: int = 1, native: bool = True) -> SynthOutput:
    """Return the SynthOutput of ``witness`` for ``r1cs``, timed as stage ``synth`` (MatVec only).

    ``native=False`` runs the NumPy twin of the MatVec on the CPU.
    """
    check_backend(backend)
    if not isinstance(r1cs, R1CS):
        raise TypeError(f"r1cs must be an R1CS, got {type(r1cs).__name__}")
    r1cs.check_witness(witness)
    clock = new_clock(clock)
    with clock.stage("synth", lane_for(backend), backend):
        t0 = time.perf_counter()
        r1 = r1cs.to(backend)
        w = witness.to(backend)
        a, b, c = _vectors(r1, w, backend, threads, native)
        dens = r1.densities()
        t1 = time.perf_counter()
    return SynthOutput(a=a, b=b, c=c, inputs=w.inputs, aux=w.aux,
                       a_aux_density=dens["a_aux"], b_input_density=dens["b_input"],
                       b_aux_density=dens["b_aux"], timing=clock.last(), matvec_s=t1 - t0)


def synthesize(program: CircuitProgram, inputs, *, threads: int = 1, backend: str = "cpu",
               clock: StageClock | None = None, native: bool = True,
               pool=None, out=None) -> SynthOutput:
    """Return the SynthOutput of one partition's public ``inputs``, timed as stage ``synth``.

    The witness program runs on one thread (as in cuzk, where each partition's
    circuit code runs on its worker's thread), then the MatVec on ``threads``
    threads (on ``pool``, an executor shared by concurrent syntheses, when
    given); ``witness_s`` and ``matvec_s`` split the stage's time. On the GPU
    backend the MatVec runs on the device (the program's R1CS kept there).
    ``out``: three (n, 8) uint32 host arrays that a, b and c are written into
    (CPU backend only; the live executor passes a pinned buffer, as cuzk's
    synthesis fills the buffers it checks out of its pinned pool).
    """
    check_backend(backend)
    if not isinstance(program, CircuitProgram):
        raise TypeError(f"program must be a CircuitProgram, got {type(program).__name__}")
    from ..native.pool import check_threads
    threads = check_threads(threads)
    if out is not None:
        if backend != "cpu":
            raise ConfigError("out", f"host buffers for a, b, c need backend 'cpu', got {backend!r}")
        out = check_out_buffers(out, program.r1cs.domain_size)
    vals = program.check_inputs(inputs)
    clock = new_clock(clock)
    with clock.stage("synth", lane_for(backend), backend):
        t0 = time.perf_counter()
        w = program.witness(vals, native=native)
        t1 = time.perf_counter()
        r1 = program.r1cs if backend == "cpu" else program.on_device()
        wb = w if backend == "cpu" else w.to(backend)
        a, b, c = _vectors(r1, wb, backend, threads, native, pool, out)
        dens = program.r1cs.densities()
        t2 = time.perf_counter()
    return SynthOutput(a=a, b=b, c=c, inputs=wb.inputs, aux=wb.aux,
                       a_aux_density=dens["a_aux"], b_input_density=dens["b_input"],
                       b_aux_density=dens["b_aux"], timing=clock.last(),
                       witness_s=t1 - t0, matvec_s=t2 - t1)
