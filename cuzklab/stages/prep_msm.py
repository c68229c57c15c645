"""Stage ``prep_msm``: split each query's scalars into 0 / 1 / other, as SupraSeal does.

For the L query the scalars are the aux values; for A, the inputs then the
aux values whose variable is dense in A; for B, the inputs and aux values
dense in B (one scalar list serves B_G1 and B_G2). Each value is classified
once by comparing its Montgomery limbs with 0 and with 1 (R mod r). A query
is split only when its tail is at most half of its points (SupraSeal C2's
rule); otherwise every non-zero scalar goes to the tail and there is no
batch addition. The tail's bases are gathered by ``tail_msm`` from
``tail_idx``; the tail scalars are gathered here.

On the CPU the classify-and-gather runs in native code over ``threads``
threads (:mod:`cuzklab.native.split`), on the GPU in two kernels
(:mod:`cuzklab.stages.prep_gpu`, the queries' selection kept on the device
per circuit); ``native=False`` runs the array twin below (NumPy or CuPy),
which gives the same split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import check_backend, to_numpy, xp
from ..field import Fr, concat
from ..field.constants import FR
from .synth import SynthOutput
from .timing import StageClock, StageTiming, lane_for, new_clock

#: Queries in SupraSeal's order; B's split serves both B_G1 and B_G2.
QUERIES = ("l", "a", "b")


@dataclass(frozen=True)
class QuerySplit:
    """One query's split: indices (into its bases) of scalars 1 and of the tail."""

    ones_idx: object      # int64 array on the backend
    tail_idx: object      # int64 array on the backend
    tail_scalars: Fr
    zeros: int
    ones: int
    split: bool           # False: the tail was over half, everything non-zero is tail

    @property
    def tail(self) -> int:
        """Return the number of tail scalars."""
        return len(self.tail_scalars)

    @property
    def size(self) -> int:
        """Return the number of points of the query."""
        return self.zeros + self.ones + self.tail


@dataclass(frozen=True)
class PrepOutput:
    """The split of the L, A and B queries."""

    l: QuerySplit
    a: QuerySplit
    b: QuerySplit
    timing: StageTiming

    def counts(self) -> dict:
        """Return {query: {zeros, ones, tail, split}} (JSON-able)."""
        return {q: {"zeros": s.zeros, "ones": s.ones, "tail": s.tail, "split": s.split}
                for q, s in (("l", self.l), ("a", self.a), ("b", self.b))}


def query_scalars(out: SynthOutput) -> dict[str, Fr]:
    """Return the scalar list of each query (L, A, B) in the order of its bases."""
    mod = xp(out.aux.backend)
    a_aux = mod.asarray(np.flatnonzero(out.a_aux_density))
    b_in = mod.asarray(np.flatnonzero(out.b_input_density))
    b_aux = mod.asarray(np.flatnonzero(out.b_aux_density))
    return {"l": out.aux,
            "a": concat([out.inputs, out.aux[a_aux]]),
            "b": concat([out.inputs[b_in], out.aux[b_aux]])}


def classify(scalars: Fr):
    """Return (is_zero, is_one) bool arrays on the scalars' backend."""
    mod = xp(scalars.backend)
    limbs = scalars.limbs
    one = mod.asarray(np.asarray(FR.mont_r_limbs, dtype=np.uint32))
    return (limbs == 0).all(axis=1), (limbs == one[None, :]).all(axis=1)


def split_query(scalars: Fr) -> QuerySplit:
    """Return the 0 / 1 / tail split of one query's scalars."""
    mod = xp(scalars.backend)
    n = len(scalars)
    if n == 0:
        empty = mod.zeros(0, dtype=mod.int64)
        return QuerySplit(empty, empty, Fr.zeros(0, backend=scalars.backend), 0, 0, True)
    is0, is1 = classify(scalars)
    n0, n1 = int(to_numpy(is0.sum())), int(to_numpy(is1.sum()))
    tail = n - n0 - n1
    if 2 * tail > n:
        ones_idx = mod.zeros(0, dtype=mod.int64)
        tail_idx = mod.flatnonzero(~is0).astype(mod.int64)
        return QuerySplit(ones_idx, tail_idx, scalars[tail_idx], n0, 0, False)
    ones_idx = mod.flatnonzero(is1).astype(mod.int64)
    tail_idx = mod.flatnonzero(~is0 & ~is1).astype(mod.int64)
    return QuerySplit(ones_idx, tail_idx, scalars[tail_idx], n0, n1, True)


def native_splits(out: SynthOutput, threads: int = 1, queue=None) -> dict[str, QuerySplit]:
    """Return {query: QuerySplit} of L, A, B by the native classify-and-gather (CPU);
    ``queue``: as :func:`cuzklab.native.split.split_queries`'s."""
    from ..native.split import split_queries
    no_inputs = np.zeros(len(out.inputs), dtype=bool)
    masks = {"l": (no_inputs, None), "a": (None, out.a_aux_density),
             "b": (out.b_input_density, out.b_aux_density)}
    res = split_queries(out.inputs.to("cpu").limbs, out.aux.to("cpu").limbs, masks,
                        threads=threads, queue=queue)
    return {q: QuerySplit(ones, tail_idx, Fr.from_mont_limbs(vals, "cpu", check=False), n0, n1, sp)
            for q, (ones, tail_idx, vals, n0, n1, sp) in res.items()}


def gpu_splits(out: SynthOutput) -> dict[str, QuerySplit]:
    """Return {query: QuerySplit} of L, A, B by the classify-and-gather kernels (GPU)."""
    from . import prep_gpu
    ni, na = len(out.inputs), len(out.aux)
    dens = (out.a_aux_density, out.b_input_density, out.b_aux_density)
    masks = prep_gpu.prover_masks(ni, *dens)
    for name, m, size in (("a_aux_density", dens[0], na), ("b_input_density", dens[1], ni),
                          ("b_aux_density", dens[2], na)):
        if np.shape(m) != (size,):
            raise ValueError(f"{name}: expected shape ({size},), got {np.shape(m)}")
    sel = prep_gpu.prover_selection(ni, na, *dens)
    res = prep_gpu.split_queries(out.inputs.limbs, out.aux.limbs, masks, sel=sel)
    return {q: QuerySplit(ones, tail_idx, Fr.from_mont_limbs(vals, "gpu", check=False), n0, n1, sp)
            for q, (ones, tail_idx, vals, n0, n1, sp) in res.items()}


def prep_msm(out: SynthOutput, *, backend: str | None = None,
             clock: StageClock | None = None, threads: int = 1,
             native: bool = True, queue=None) -> PrepOutput:
    """Return the PrepOutput (0 / 1 / tail split of L, A, B), timed as stage ``prep_msm``.

    ``threads``: the native pool size on the CPU; ``native=False``: the array
    twin (on the GPU: CuPy instead of the kernels). ``queue`` (CPU, native): a
    native pool whose queue each of the two passes joins as one job of one
    range, as cuzk's prep_msm does on the b_g2_msm pool
    (:func:`cuzklab.native.split.split_queries`).
    """
    backend = out.aux.backend if backend is None else check_backend(backend)
    from ..native.pool import check_threads
    threads = check_threads(threads)
    clock = new_clock(clock)
    with clock.stage("prep_msm", lane_for(backend), backend):
        if backend == "cpu" and native:
            splits = native_splits(out, threads, queue)
        else:
            if backend != out.aux.backend:
                out = _moved(out, backend)
            if native:
                splits = gpu_splits(out)
            else:
                sc = query_scalars(out)
                splits = {q: split_query(sc[q]) for q in QUERIES}
    return PrepOutput(l=splits["l"], a=splits["a"], b=splits["b"], timing=clock.last())


def _moved(out: SynthOutput, backend: str) -> SynthOutput:
    return SynthOutput(out.a, out.b, out.c, out.inputs.to(backend), out.aux.to(backend),
                       out.a_aux_density, out.b_input_density, out.b_aux_density, out.timing)
