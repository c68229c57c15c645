"""Stage ``b_g2_msm``: Pippenger over the B tail in G2, on the CPU as cuzk does.

cuzk runs it on a CPU pool of ``gpu_threads`` threads while the GPU moves on.
Here it is the native Pippenger of :mod:`cuzklab.native.msm_g2`, its
(window, bucket range) tasks on ``threads`` threads with the GIL released.
``native=False`` runs the NumPy twin: the tail cut into ``threads`` chunks,
each an MSM on its own thread, the partial sums added. ``backend="gpu"``
runs one GPU MSM instead.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..backend import check_backend, to_numpy
from ..curve import Point
from ..groth16.keys import ProvingKey
from ..msm import msm
from .prep_msm import PrepOutput
from .tail_msm import tail_point
from .timing import POOL_LANE, StageClock, StageTiming, lane_for, new_clock

#: Fewest tail points per thread; below it more threads only add overhead.
MIN_POINTS_PER_THREAD = 256


@dataclass(frozen=True)
class BG2MsmOutput:
    """The B_G2 tail MSM and the threads it used."""

    b_g2: Point
    threads: int
    timing: StageTiming


def _cpu_parallel(pk: ProvingKey, prep: PrepOutput, threads: int) -> tuple[Point, int]:
    split = prep.b
    n = split.tail
    if n == 0:
        return Point.infinity("g2"), 1
    bases = pk.b_g2.to("cpu")[to_numpy(split.tail_idx)]
    scalars = split.tail_scalars.to("cpu")
    k = max(1, min(threads, n // MIN_POINTS_PER_THREAD))
    if k == 1:
        return msm(bases, scalars, backend="cpu"), 1
    cuts = [n * i // k for i in range(k + 1)]
    with ThreadPoolExecutor(max_workers=k) as pool:
        parts = list(pool.map(
            lambda i: msm(bases[cuts[i]:cuts[i + 1]], scalars[cuts[i]:cuts[i + 1]], backend="cpu"),
            range(k)))
    total = Point.infinity("g2")
    for p in parts:
        total = total + p
    return total, k


def _cpu_native(pk: ProvingKey, prep: PrepOutput, threads: int) -> tuple[Point, int]:
    from ..native.msm_g2 import g2_msm, tasks
    split = prep.b
    if split.tail == 0:
        return Point.infinity("g2"), 1
    bases = pk.b_g2 if pk.b_g2.backend == "cpu" else pk.b_g2.to("cpu")
    point = g2_msm(bases, split.tail_scalars.to("cpu"), idx=to_numpy(split.tail_idx),
                   threads=threads)
    return point, min(threads, tasks(split.tail, threads))


def b_g2_msm(prep: PrepOutput, pk: ProvingKey, *, threads: int | None = None,
             backend: str = "cpu", clock: StageClock | None = None,
             native: bool = True) -> BG2MsmOutput:
    """Return the BG2MsmOutput (B_G2 tail MSM), timed as stage ``b_g2_msm``.

    ``threads``: the CPU pool (None: every core); ``native=False``: the NumPy twin.
    """
    check_backend(backend)
    if threads is None:
        threads = os.cpu_count() or 1
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be an int >= 1, got {threads!r}")
    clock = new_clock(clock)
    lane = POOL_LANE if backend == "cpu" else lane_for(backend)
    with clock.stage("b_g2_msm", lane, backend):
        if backend == "cpu" and native:
            point, used = _cpu_native(pk, prep, threads)
        elif backend == "cpu":
            point, used = _cpu_parallel(pk, prep, threads)
        else:
            point, used = tail_point(pk.b_g2, prep.b, backend), 1
    return BG2MsmOutput(b_g2=point, threads=used, timing=clock.last())
