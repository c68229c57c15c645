"""The Groth16 prover as the sequential composition of cuzk's stages, with a live Trace.

``prove`` runs synth → prep_msm → ntt_h → batch_add → tail_msm → b_g2_msm →
epilogue for one partition (proof 0, partition 0) and returns the proof and
a Trace whose spans are the stages' measured intervals. Given a
:class:`~cuzklab.groth16.program.CircuitProgram` and public inputs instead
of an R1CS and a witness, synthesis computes the witness first, as cuzk's
does. On the GPU backend every stage but b_g2_msm (CPU pool, as in cuzk;
``b_g2_backend="gpu"`` moves it to the device) and the epilogue runs on the
device. There, by default (``overlap``), batch_add, tail_msm and b_g2_msm
run on a thread and CUDA stream of their own once h is computed, beside
the H MSM of ntt_h, which needs none of their outputs (their spans are on
lane ``gpu0.w1``), and the epilogue follows them there without H, which
is added to C last; the proof is the same either way. The epilogue's terms
that need no MSM result (``epilogue_constants``) are computed on the GPU
backend while the device runs the transforms of ntt_h (a first
``epilogue`` span on ``cpu.main``), so the epilogue after the MSMs is two G1 scalar
multiplications and a few additions. It sits above :mod:`cuzklab.stages`, beside :mod:`cuzklab.live` (the
concurrent composition).
"""

from __future__ import annotations

import functools
import secrets
import threading

from .backend import check_backend, device_name, xp
from .field.constants import R as FR_MODULUS
from .groth16.keys import Proof, ProvingKey
from .groth16.program import CircuitProgram
from .groth16.r1cs import R1CS, Witness
from .stages import (StageClock, b_g2_msm, batch_add, epilogue, epilogue_constants, ntt_h, prep_msm,
                     synth, synthesize, tail_msm)
from .stages.epilogue import with_h
from .stages.timing import CPU_LANE, GPU_LANE
from .trace import Trace, TraceBuilder


class ProveResult:
    """What ``prove`` returns: unpacks as (proof, trace); ``outputs`` maps each stage to its outputs.

    The trace is built from the stages' timings on first use (``trace``,
    unpacking, ``res[1]``), so a caller that wants only the proof does not
    wait for it: building it takes a few milliseconds of pandas work.
    """

    __slots__ = ("proof", "outputs", "_build", "_trace")

    def __init__(self, proof: Proof, build_trace, outputs: dict):
        self.proof = proof
        self.outputs = outputs
        self._build = build_trace
        self._trace = None

    @property
    def trace(self) -> Trace:
        """Return the trace of the stages (built once, on first use)."""
        if self._trace is None:
            self._trace = self._build()
            self._build = None
        return self._trace

    def __iter__(self):
        yield self.proof
        yield self.trace

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return (self.proof, self.trace)[i]

    def __repr__(self) -> str:
        return f"ProveResult(proof={self.proof!r}, stages={sorted(self.outputs)})"


def _blinding(v, name: str) -> int:
    if v is None:
        return secrets.randbelow(FR_MODULUS)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < FR_MODULUS:
        raise ValueError(f"{name} must be None or an int in [0, r), got {v!r}")
    return v


def _check_shapes(pk: ProvingKey, r1cs: R1CS, witness: Witness) -> None:
    if not isinstance(r1cs, R1CS):
        raise TypeError(f"r1cs must be an R1CS or a CircuitProgram, got {type(r1cs).__name__}")
    r1cs.check_witness(witness)
    _check_key(pk, r1cs)


def _check_key(pk: ProvingKey, r1cs: R1CS) -> None:
    if not isinstance(pk, ProvingKey):
        raise TypeError(f"pk must be a ProvingKey, got {type(pk).__name__}")
    if (pk.num_inputs, pk.num_aux, pk.domain_size) != (r1cs.num_inputs, r1cs.num_aux,
                                                      r1cs.domain_size):
        raise ValueError("pk was not made for this r1cs: inputs, aux or domain size differ "
                         f"({pk.num_inputs}, {pk.num_aux}, {pk.domain_size}) vs "
                         f"({r1cs.num_inputs}, {r1cs.num_aux}, {r1cs.domain_size})")


def prove(pk: ProvingKey, r1cs: R1CS | CircuitProgram, witness: Witness | list, *,
          backend: str = "cpu", r: int | None = None, s: int | None = None,
          threads: int | None = None, b_g2_backend: str = "cpu",
          synth_threads: int = 1, overlap: bool | None = None) -> ProveResult:
    """Return ProveResult (unpacks as ``proof, trace``; ``.outputs`` per stage) for ``witness``.

    ``r1cs, witness``: a system and its witness, or a CircuitProgram and one
    partition's public inputs (then synthesis evaluates the program).
    ``r``, ``s``: the blinding scalars (fresh random ones when None; pass
    them to get reproducible proofs). ``threads``: the b_g2_msm pool size;
    ``synth_threads``: the MatVec's and prep_msm's. ``overlap``: run
    batch_add, tail_msm and b_g2_msm beside the H MSM (see above; None: on
    the GPU backend; True on the CPU backend is a ValueError).
    """
    check_backend(backend)
    check_backend(b_g2_backend)
    if overlap is None:
        overlap = backend == "gpu"
    if not isinstance(overlap, bool):
        raise TypeError(f"overlap must be None or a bool, got {type(overlap).__name__}")
    if overlap and backend != "gpu":
        raise ValueError("overlap needs the GPU backend")
    program = r1cs if isinstance(r1cs, CircuitProgram) else None
    if program is not None:
        inputs = program.check_inputs(witness)
        r1cs = program.r1cs
        _check_key(pk, r1cs)
    else:
        _check_shapes(pk, r1cs, witness)
    r, s = _blinding(r, "r"), _blinding(s, "s")
    if pk.backend != backend:
        pk = pk.to(backend)
    clock = StageClock()
    if program is not None:
        so = synthesize(program, inputs, threads=synth_threads, backend=backend, clock=clock)
    else:
        so = synth(r1cs, witness, backend=backend, clock=clock, threads=synth_threads)
    po = prep_msm(so, backend=backend, clock=clock, threads=synth_threads)

    consts = []

    def constants():
        # the epilogue's terms that need no MSM, while the device runs the transforms
        with clock.stage("epilogue", CPU_LANE, "cpu"):
            consts.append(epilogue_constants(pk, r, s))

    def msms(h=None):
        bo = batch_add(po, pk, backend=backend, clock=clock)
        to = tail_msm(po, pk, backend=backend, clock=clock)
        go = b_g2_msm(po, pk, threads=threads, backend=b_g2_backend, clock=clock)
        proof = epilogue(pk, a=bo.a + to.a, b_g1=bo.b_g1 + to.b_g1, b_g2=bo.b_g2 + go.b_g2,
                         l=bo.l + to.l, h=h, r=r, s=s, clock=clock,
                         constants=consts[0] if consts else None)
        return bo, to, go, proof
    side_stages = ()
    if overlap:
        # the MSMs, then the epilogue without H, beside the H MSM; H joins C last
        side = _Side(msms)
        try:
            ho = ntt_h(so, pk, backend=backend, clock=clock, on_quotient=side.start,
                      while_quotient=constants if EPILOGUE_AHEAD else None)
        except BaseException:
            side.wait()
            raise
        bo, to, go, partial = side.join()
        proof = with_h(partial, ho.h_point)
        side_stages = ("batch_add", "tail_msm", "b_g2_msm")
    else:
        # on the CPU nothing hides the constants: the epilogue computes them
        ho = ntt_h(so, pk, backend=backend, clock=clock,
                   while_quotient=constants if backend == "gpu" and EPILOGUE_AHEAD else None)
        bo, to, go, proof = msms(ho.h_point)
    timings = sorted(clock.timings, key=lambda t: t.start)
    config = {"constraints": r1cs.num_constraints, "inputs": r1cs.num_inputs,
              "witness_program": program is not None,
              "aux": r1cs.num_aux, "log2_domain": pk.log2_domain, "backend": backend,
              "b_g2_backend": b_g2_backend, "threads": go.threads, "overlap": overlap}

    def build_trace() -> Trace:
        builder = TraceBuilder(source="live")
        for t in timings:
            lane = SIDE_LANE if t.stage in side_stages and t.lane == GPU_LANE else t.lane
            builder.span(0, 0, t.stage, lane, t.start, t.end, gpu=0 if lane.startswith("gpu0") else -1)
        return builder.build(
            config=config, device=device_name(backend),
            stage_gpu_s={t.stage: t.gpu_s for t in timings if t.gpu_s is not None},
            msm_split=po.counts(), ntt_h_split={"ntt_s": ho.ntt_s, "msm_s": ho.msm_s},
            synth_split={"witness_s": so.witness_s, "matvec_s": so.matvec_s},
            proofs=[{"proof": 0, "submitted": 0.0, "started": timings[0].start,
                     "completed": max(t.end for t in timings), "status": "ok"}],
            failed=False, failure=None)
    outputs = {"synth": so, "prep_msm": po, "ntt_h": ho, "batch_add": bo, "tail_msm": to,
               "b_g2_msm": go}
    return ProveResult(proof, build_trace, outputs)


#: On the GPU, compute the epilogue's constants while the transforms run
#: (True), or in the epilogue after the MSMs (False: what ``prove`` did
#: before; ``benchmarks/bench_prove.py --ab`` times both).
EPILOGUE_AHEAD = True

#: The trace lane of the stages that run beside the H MSM (``overlap``).
SIDE_LANE = "gpu0.w1"


@functools.lru_cache(maxsize=None)
def _side_stream(device: int):
    """Return the stream of the stages run beside the H MSM on ``device``."""
    return xp("gpu").cuda.Stream(non_blocking=True)


class _Side:
    """``fn`` on a thread of its own, on a CUDA stream of its own, after the work queued so far."""

    def __init__(self, fn):
        self.fn = fn
        self.thread = None
        self.result = None
        self.error = None

    def start(self) -> None:
        if self.thread is not None:
            return
        cp = xp("gpu")
        device = cp.cuda.Device().id
        stream = _side_stream(device)
        # prep_msm's outputs (and h) are complete before the side stream reads them
        stream.wait_event(cp.cuda.get_current_stream().record())

        def run():
            try:
                with cp.cuda.Device(device), stream:
                    self.result = self.fn()
            except BaseException as exc:  # noqa: BLE001 - raised again by join()
                self.error = exc
        self.thread = threading.Thread(target=run, name="prove-msms", daemon=True)
        self.thread.start()

    def wait(self) -> None:
        """Wait for the thread, if it started (its result or error dropped)."""
        if self.thread is not None:
            self.thread.join()

    def join(self):
        """Return fn's result (starting it here if nothing did), after its device work ended."""
        self.start()
        self.thread.join()
        if self.error is not None:
            raise self.error
        cp = xp("gpu")
        cp.cuda.get_current_stream().wait_event(_side_stream(cp.cuda.Device().id).record())
        return self.result


def stage_seconds(trace: Trace) -> dict[str, float]:
    """Return {stage: seconds} summed over the trace's spans, in pipeline order."""
    spans = trace.spans
    out: dict[str, float] = {}
    for stage, end, start in zip(spans["stage"], spans["end"], spans["start"]):
        out[stage] = out.get(stage, 0.0) + float(end - start)
    return out


__all__ = ["prove", "ProveResult", "stage_seconds"]
