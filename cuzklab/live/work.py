"""The work of a live run: one circuit program and its keys, and every call into the stages.

This is the only module of :mod:`cuzklab.live` that calls
:mod:`cuzklab.groth16` and :mod:`cuzklab.stages`; the executor sees a
:class:`Workload` and the functions below. A run builds ONE PoRep-shaped
circuit program (:func:`cuzklab.groth16.program.porep_program`) and ONE
proving key (the seeded setup of ``cuzklab prove``), as cuzk keeps one SRS
for every partition; each partition of each proof has its own public inputs,
fixed by the run's seed, and its synthesis evaluates the gate program into
its own witness (one thread), then the A/B/C MatVec (row-parallel), so every
partition proves a different statement under the same key.

Where each stage runs follows cuzk: synthesis, prep_msm, b_g2_msm and the
epilogue on the CPU, in native code that releases the GIL
(:mod:`cuzklab.native`); the upload and the kernels (ntt_h, batch_add,
tail_msm) on the device, or on the CPU when the device is a stand-in
(``backend="cpu"``).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from ..field.constants import R as FR_MODULUS
from ..stages import StageClock

#: Smallest and largest circuit size of a live run, as log2 of the NTT domain.
#: 2^4 = 16 rows is the smallest PoRep-shaped circuit whose proofs still use
#: every stage (tests and the notebook run there); 2^26 is where one H200's
#: memory still holds the keys, a, b, c and the working buffers of a few workers.
MIN_LOG2 = 4
MAX_LOG2 = 26

#: prep_msm threads per partition: cuzk classifies and gathers one partition's
#: scalars on one thread (reference: "CPU, one thread per partition").
PREP_THREADS = 1


def _nbytes(arrays) -> int:
    return int(sum(int(a.nbytes) for a in arrays))


def _points_bytes(points) -> int:
    return _nbytes((points.x.limbs, points.y.limbs))


@dataclass
class Workload:
    """One circuit, its witness, keys and sizes, shared by every partition of a run.

    ``pk_cpu`` serves the CPU stages; :meth:`key_on` returns the key on a device.
    ``partition_bytes`` is what one synthesized partition holds (a, b, c plus
    aux); ``abc_bytes`` the share of it that the GPU kernels consume.
    """

    log2_constraints: int
    seed: int
    program: object
    pk_cpu: object
    vk: object
    setup_s: float

    @property
    def r1cs(self):
        """Return the R1CS every partition satisfies."""
        return self.program.r1cs

    @property
    def num_constraints(self) -> int:
        """Return the constraints of the circuit (2^K minus the public inputs)."""
        return int(self.r1cs.num_constraints)

    @property
    def domain_size(self) -> int:
        """Return n = 2^K, the length of a, b and c."""
        return 1 << self.log2_constraints

    @property
    def abc_bytes(self) -> int:
        """Return the bytes of a, b and c (three Fr vectors over the domain)."""
        return 3 * self.domain_size * 32

    @property
    def aux_bytes(self) -> int:
        """Return the bytes of the inputs and aux values a synthesis keeps."""
        return (int(self.r1cs.num_inputs) + int(self.r1cs.num_aux)) * 32

    @property
    def partition_bytes(self) -> int:
        """Return the bytes one synthesized partition holds until it is finalized."""
        return self.abc_bytes + self.aux_bytes

    @property
    def key_bytes(self) -> int:
        """Return the bytes of the proving key's bases (cuzk's SRS, held for the whole run)."""
        pk = self.pk_cpu
        return sum(_points_bytes(q) for q in (pk.a, pk.b_g1, pk.b_g2, pk.h, pk.l))

    def key_on(self, backend: str):
        """Return the proving key on ``backend`` (on the current CUDA device for "gpu")."""
        return self.pk_cpu if backend == "cpu" else self.pk_cpu.to(backend)

    def at_witness_work(self, witness_work: float) -> "Workload":
        """Return this workload with its program at another witness work (the same circuit,
        keys and sizes: only the witness step's extra work per gate differs)."""
        return dataclasses.replace(self, program=dataclasses.replace(
            self.program, witness_work=float(witness_work)))

    def inputs(self, proof: int, partition: int) -> list[int]:
        """Return the public inputs of one partition (ONE first), fixed by the run's seed."""
        return self.program.inputs_for(((self.seed * 1_000_003 + proof) << 8) + partition)

    def blinding(self, proof: int, partition: int) -> tuple[int, int]:
        """Return the (r, s) of one partition, fixed by the run's seed."""
        rng = np.random.default_rng([self.seed, 7, proof, partition + 1])
        r, s = (int(x) for x in rng.integers(1, 2**62, size=2))
        return r % FR_MODULUS, s % FR_MODULUS


def build_workload(log2_constraints: int, *, seed: int = 0, setup_backend: str = "cpu",
                   witness_work: float = 1.0) -> Workload:
    """Return the Workload of a run: a circuit program whose NTT domain is 2^K, and its keys."""
    from ..groth16 import constraints_for_domain, setup
    from ..groth16.program import porep_program
    from ..native.build import library
    library()  # build (or load) the native stages now, outside the measured run
    rng = np.random.default_rng(seed)
    program = porep_program(constraints_for_domain(log2_constraints), witness_work=witness_work,
                            rng=seed)
    t0 = time.perf_counter()
    pk, vk = setup(program.r1cs.to(setup_backend), rng, backend=setup_backend)
    setup_s = time.perf_counter() - t0
    return Workload(log2_constraints=log2_constraints, seed=seed, program=program,
                    pk_cpu=pk.to("cpu"), vk=vk, setup_s=setup_s)


class Timed:
    """A stage clock per call, on the run's time origin, so threads never read each other's timing."""

    def __init__(self, origin: float):
        self.origin = origin

    def clock(self) -> StageClock:
        """Return a fresh StageClock whose origin is the run's."""
        c = StageClock()
        c.origin = self.origin
        return c

    def now(self) -> float:
        """Return seconds since the run's origin."""
        return time.perf_counter() - self.origin


# -- the stages, as the executor calls them ------------------------------------------
def synthesize(work: Workload, proof: int, partition: int, clock: StageClock, threads: int = 1,
               pool=None, out=None):
    """Synthesize one partition on the CPU (witness program, then a MatVec on ``threads``).

    ``pool``: the executor every synthesis's MatVec shares (None: a pool of ``threads``).
    ``out``: the [a, b, c] host buffer to write into (None: new arrays).
    """
    from ..stages import synthesize as run_synthesis
    return run_synthesis(work.program, work.inputs(proof, partition), threads=threads,
                         backend="cpu", clock=clock, pool=pool, out=out)


def prep(out, clock: StageClock, queue=None):
    """Run ``prep_msm`` on the CPU; return its PrepOutput. ``queue``: the native pool
    whose queue its two passes join, one job of one range each (cuzk: a ``par_map``
    over its one circuit on the b_g2_msm pool); None: on the calling thread."""
    from ..stages import prep_msm
    return prep_msm(out, backend="cpu", clock=clock, threads=PREP_THREADS, queue=queue)


def device_prep(prep_out, backend: str):
    """Return ``prep_out`` with its index and scalar arrays moved to ``backend`` (for the kernels)."""
    if backend == "cpu":
        return prep_out
    from ..backend import xp
    mod = xp(backend)

    def moved(q):
        return dataclasses.replace(q, ones_idx=mod.asarray(q.ones_idx),
                                   tail_idx=mod.asarray(q.tail_idx),
                                   tail_scalars=q.tail_scalars.to(backend))
    return dataclasses.replace(prep_out, l=moved(prep_out.l), a=moved(prep_out.a),
                               b=moved(prep_out.b))


def with_abc(out, a, b, c):
    """Return SynthOutput ``out`` with a, b, c replaced (by their copies on a device)."""
    return dataclasses.replace(out, a=a, b=b, c=c)


def fr_from_limbs(limbs):
    """Return the Fr vector over (n, 8) Montgomery limbs (no copy, no range check)."""
    from ..field import Fr
    return Fr.from_mont_limbs(limbs, check=False)


def kernels_ntt_h(out, pk, backend: str, clock: StageClock):
    """Run ``ntt_h`` (NTTs and the H MSM) on ``backend``; return its NttHOutput."""
    from ..stages import ntt_h
    return ntt_h(out, pk, backend=backend, clock=clock)


def kernels_batch_add(prep_dev, pk, backend: str, clock: StageClock):
    """Run ``batch_add`` on ``backend``; return its BatchAddOutput."""
    from ..stages import batch_add
    return batch_add(prep_dev, pk, backend=backend, clock=clock)


def kernels_batch_add_from_host(prep_out, pk, backend: str, clock: StageClock):
    """Move prep_msm's output to ``backend``, then run ``batch_add``; return (its
    BatchAddOutput, the moved prep output for ``tail_msm``).

    The move (the queries' index and scalar arrays, a host-to-device copy on a GPU) is the
    first thing batch_add needs and runs under the same mutex, so it is timed inside
    batch_add's span: no time the region holds the GPU goes unnamed.
    """
    prep_dev = device_prep(prep_out, backend)
    return kernels_batch_add(prep_dev, pk, backend, clock), prep_dev


def kernels_tail_msm(prep_dev, pk, backend: str, clock: StageClock):
    """Run ``tail_msm`` on ``backend``; return its TailMsmOutput."""
    from ..stages import tail_msm
    return tail_msm(prep_dev, pk, backend=backend, clock=clock)


def b_g2(prep_out, work: Workload, clock: StageClock, threads: int = 1):
    """Run ``b_g2_msm`` on the CPU over ``threads`` native threads; return its BG2MsmOutput."""
    from ..stages import b_g2_msm
    return b_g2_msm(prep_out, work.pk_cpu, threads=threads, backend="cpu", clock=clock)


def assemble(work: Workload, h, bo, to, go, r: int, s: int, clock: StageClock):
    """Run the ``epilogue``: the Proof of one partition from H, its MSM results and r, s."""
    from ..stages import epilogue
    return epilogue(work.pk_cpu, a=bo.a + to.a, b_g1=bo.b_g1 + to.b_g1, b_g2=bo.b_g2 + go.b_g2,
                    l=bo.l + to.l, h=h, r=r, s=s, clock=clock)


def verify_proof(work: Workload, proof_index: int, partition: int, proof) -> bool:
    """Return True when one partition's proof passes the pairing check with its own inputs."""
    from ..groth16 import verify
    return bool(verify(work.vk, work.inputs(proof_index, partition)[1:], proof))


def proof_bytes(proof) -> bytes:
    """Return the compressed encoding of a partition's proof (192 bytes)."""
    return proof.to_bytes()


