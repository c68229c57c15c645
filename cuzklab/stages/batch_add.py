"""Stage ``batch_add``: for L, A, B_G1 and B_G2, the sum of the bases whose scalar is 1."""

from __future__ import annotations

from dataclasses import dataclass

from ..backend import check_backend
from ..curve import Point, Points
from ..groth16.keys import ProvingKey
from ..msm import batch_sum
from .prep_msm import PrepOutput
from .timing import StageClock, StageTiming, lane_for, new_clock


@dataclass(frozen=True)
class BatchAddOutput:
    """The four sums (infinity where a query has no scalar 1)."""

    l: Point
    a: Point
    b_g1: Point
    b_g2: Point
    timing: StageTiming


def _sum(bases: Points, idx, backend: str) -> Point:
    if int(idx.shape[0]) == 0:
        return Point.infinity(bases.group)
    if bases.backend != backend:
        bases = bases.to(backend)
    return batch_sum(bases[idx], backend=backend)


def batch_add(prep: PrepOutput, pk: ProvingKey, *, backend: str | None = None,
              clock: StageClock | None = None) -> BatchAddOutput:
    """Return the BatchAddOutput of ``prep``'s ones, timed as stage ``batch_add``."""
    backend = pk.backend if backend is None else check_backend(backend)
    clock = new_clock(clock)
    with clock.stage("batch_add", lane_for(backend), backend):
        l = _sum(pk.l, prep.l.ones_idx, backend)
        a = _sum(pk.a, prep.a.ones_idx, backend)
        b1 = _sum(pk.b_g1, prep.b.ones_idx, backend)
        b2 = _sum(pk.b_g2, prep.b.ones_idx, backend)
    return BatchAddOutput(l=l, a=a, b_g1=b1, b_g2=b2, timing=clock.last())
