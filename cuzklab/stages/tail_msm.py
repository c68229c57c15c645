"""Stage ``tail_msm``: Pippenger over the tail scalars of L, A and B_G1 (one ``msm_many``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..backend import check_backend
from ..curve import Point, Points
from ..groth16.keys import ProvingKey
from ..msm import msm, msm_many
from .prep_msm import PrepOutput, QuerySplit
from .timing import StageClock, StageTiming, lane_for, new_clock


@dataclass(frozen=True)
class TailMsmOutput:
    """The three tail MSMs."""

    l: Point
    a: Point
    b_g1: Point
    timing: StageTiming


#: On the GPU the tails run as one ``msm_many`` (True) or as MSMs one after
#: another (False: what the stage did before; ``benchmarks/bench_prove.py
#: --ab`` times both). The CPU runs them one after another either way.
MANY = True


def _gathered(bases: Points, split: QuerySplit, backend: str):
    """Return (the tail's bases, its scalars) of one query on ``backend``."""
    if bases.backend != backend:
        bases = bases.to(backend)
    scalars = split.tail_scalars if split.tail_scalars.backend == backend else split.tail_scalars.to(backend)
    idx = split.tail_idx
    if bases.backend == "cpu":
        from ..backend import to_numpy
        idx = to_numpy(idx)
    return bases[idx], scalars


def tail_point(bases: Points, split: QuerySplit, backend: str) -> Point:
    """Return sum over the tail of scalar * base for one query."""
    if split.tail == 0:
        return Point.infinity(bases.group)
    return msm(*_gathered(bases, split, backend), backend=backend)


def tail_points(queries, backend: str) -> list[Point]:
    """Return tail_point of each (bases, split) pair of one group, as one ``msm_many``.

    On the GPU the tails share one sort and one bucket reduction (each with
    buckets of its own): at 2^24 the three G1 tails, ~1.3 M, 1.3 M and 0.3 M
    points, fill the device better together than one after another.
    """
    queries = list(queries)
    if not MANY:
        return [tail_point(bases, split, backend) for bases, split in queries]
    out = [Point.infinity(bases.group) for bases, _ in queries]
    live = [k for k, (_, split) in enumerate(queries) if split.tail]  # empty tails: no gather
    pairs = [_gathered(*queries[k], backend) for k in live]
    for k, pt in zip(live, msm_many([p for p, _ in pairs], [s for _, s in pairs], backend=backend)):
        out[k] = pt
    return out


def tail_msm(prep: PrepOutput, pk: ProvingKey, *, backend: str | None = None,
             clock: StageClock | None = None) -> TailMsmOutput:
    """Return the TailMsmOutput of ``prep``, timed as stage ``tail_msm``."""
    backend = pk.backend if backend is None else check_backend(backend)
    clock = new_clock(clock)
    with clock.stage("tail_msm", lane_for(backend), backend):
        l, a, b1 = tail_points(((pk.l, prep.l), (pk.a, prep.a), (pk.b_g1, prep.b)), backend)
    return TailMsmOutput(l=l, a=a, b_g1=b1, timing=clock.last())
