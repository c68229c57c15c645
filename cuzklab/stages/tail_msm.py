"""Stage ``tail_msm``: Pippenger over the tail scalars of L, A and B_G1."""

from __future__ import annotations

from dataclasses import dataclass

from ..backend import check_backend
from ..curve import Point, Points
from ..groth16.keys import ProvingKey
from ..msm import msm
from .prep_msm import PrepOutput, QuerySplit
from .timing import StageClock, StageTiming, lane_for, new_clock


@dataclass(frozen=True)
class TailMsmOutput:
    """The three tail MSMs."""

    l: Point
    a: Point
    b_g1: Point
    timing: StageTiming


def tail_point(bases: Points, split: QuerySplit, backend: str) -> Point:
    """Return sum over the tail of scalar * base for one query."""
    if split.tail == 0:
        return Point.infinity(bases.group)
    if bases.backend != backend:
        bases = bases.to(backend)
    scalars = split.tail_scalars if split.tail_scalars.backend == backend else split.tail_scalars.to(backend)
    idx = split.tail_idx
    if bases.backend == "cpu":
        from ..backend import to_numpy
        idx = to_numpy(idx)
    return msm(bases[idx], scalars, backend=backend)


def tail_msm(prep: PrepOutput, pk: ProvingKey, *, backend: str | None = None,
             clock: StageClock | None = None) -> TailMsmOutput:
    """Return the TailMsmOutput of ``prep``, timed as stage ``tail_msm``."""
    backend = pk.backend if backend is None else check_backend(backend)
    clock = new_clock(clock)
    with clock.stage("tail_msm", lane_for(backend), backend):
        l = tail_point(pk.l, prep.l, backend)
        a = tail_point(pk.a, prep.a, backend)
        b1 = tail_point(pk.b_g1, prep.b, backend)
    return TailMsmOutput(l=l, a=a, b_g1=b1, timing=clock.last())
