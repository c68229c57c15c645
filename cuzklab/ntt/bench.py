"""NTT benchmarks: median time of a transform of size 2^k on one backend.

On the GPU the data stay on the device, the transform runs in place and is
timed with CUDA events after a warm-up (``warmup_calls``: two calls, and for
sizes up to ``gpu.GRAPH_MAX_LOG2``, which replay a recorded CUDA graph from the
third call on, ``GRAPH_WARM_REPLAYS`` replays more: the first launch of a graph
uploads it to the device, and on an H200 the first and second replays of a
2^16 transform took 1.9x and 1.2x the time of the fifth, so without them the
median of five held one-time costs; ``graph`` in the result); every timed run starts from the same input
(restored outside the timed region), and the output of the last one is
checked at ``CHECK_ENTRIES`` positions against direct evaluations of the
polynomial (``reference.transform_entries``: field arithmetic only, no
transform kernel), besides a round trip on the device and a comparison with
the CPU path at 2^12. On the CPU the wall clock of ``transform`` is reported
(it is far slower; keep sizes small) and its output is checked the same way.
"""

from __future__ import annotations

import random
import statistics
import time

from ..backend import check_backend, device_name, xp
from ..field import Fr
from ..field.constants import FR
from .domain import Direction, check_log2_size
from .reference import transform_entries
from .transform import transform

#: Replays of a transform's recorded graph before the timed runs (see the module docstring).
GRAPH_WARM_REPLAYS = 2


def _graph_replayed(log2_size: int) -> bool:
    """Return whether GPU transforms of this size replay a recorded CUDA graph (``gpu.GRAPHS``)."""
    from . import gpu
    return bool(gpu.GRAPHS and 1 <= log2_size <= gpu.GRAPH_MAX_LOG2)


def warmup_calls(log2_size: int) -> int:
    """Return the untimed GPU calls before the timed ones: 2, plus GRAPH_WARM_REPLAYS where graphs replay."""
    return 2 + (GRAPH_WARM_REPLAYS if _graph_replayed(log2_size) else 0)


#: Size at which GPU results are compared with the CPU path in the same run.
CHECK_LOG2_SIZE = 12
#: Outputs of the timed transform compared with direct evaluations: the first,
#: the last and this many more drawn from the seed.
CHECK_ENTRIES = 2


def check_entries(a: Fr, y: Fr, *, inverse: bool, coset: bool, seed: int = 1) -> tuple[int, int]:
    """Return (matching, sampled): outputs of ``y`` (the transform of ``a``) checked by direct evaluation.

    Both on one backend. The positions are 0, n - 1 and ``CHECK_ENTRIES``
    drawn from ``seed``; ``y`` is wrong when matching < sampled.
    """
    n = len(a)
    rng = random.Random(seed)
    idx = sorted({0, n - 1, *(rng.randrange(n) for _ in range(CHECK_ENTRIES))})
    want = transform_entries(a, idx, inverse=inverse, coset=coset)
    got = y[idx].to_ints()
    return sum(int(g == w) for g, w in zip(got, want)), len(idx)


def _check_gpu_against_cpu(coset: bool, inverse: bool, seed: int) -> bool:
    a = Fr.random(1 << CHECK_LOG2_SIZE, seed)
    d = Direction.INVERSE if inverse else Direction.FORWARD
    want = transform(a, direction=d, coset=coset)
    got = transform(a.to("gpu"), direction=d, coset=coset).to("cpu")
    return bool(got.equals(want))


def random_input(log2_size: int, backend: str, seed: int = 1) -> Fr:
    """Return 2^log2_size non-trivial Fr elements; on the GPU drawn on the device (fast)."""
    n = 1 << check_log2_size(log2_size)
    if backend == "cpu":
        return Fr.random(n, seed)
    cp = xp("gpu")
    cp.random.seed(seed)
    limbs = (cp.random.random((n, 8)) * 2.0**32).astype(cp.uint32)
    limbs[:, 7] %= cp.uint32(FR.modulus >> 224)  # top limb below r's: every value < r
    return Fr.from_mont_limbs(limbs, check=False)


def bench_ntt(log2_size: int, backend: str = "gpu", *, coset: bool = False,
              inverse: bool = False, repeats: int = 5, seed: int = 1, data: Fr | None = None) -> dict:
    """Return timings of one NTT size: median_s, times_s, and whether results checked out.

    ``checked`` is True when the timed output matched direct evaluation at
    every sampled position (``entries_checked``) and, on the GPU, the round
    trip and the comparison with the CPU path at 2^12 held too.

    ``data``: the input (2^log2_size elements on ``backend``); drawn from ``seed`` when None.
    """
    log2_size = check_log2_size(log2_size)
    check_backend(backend)
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    n = 1 << log2_size
    a = random_input(log2_size, backend, seed) if data is None else data
    if len(a) != n or a.backend != backend:
        raise ValueError(f"data must hold {n} elements on {backend}")
    times: list[float] = []
    if backend == "gpu":
        from . import gpu
        cp = xp("gpu")
        x = a.limbs.copy()
        kw = dict(inverse=inverse, coset=coset, natural_output=True)
        # warm-up: the first call compiles and builds the tables, the second
        # records the launches as a graph (``gpu.GRAPHS``) that the timed runs
        # replay, after GRAPH_WARM_REPLAYS untimed replays
        for _ in range(warmup_calls(log2_size)):
            x[...] = a.limbs
            gpu.transform_inplace(x, log2_size, **kw)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(repeats):
            x[...] = a.limbs  # every timed run transforms the same input
            cp.cuda.Device().synchronize()
            start.record()
            gpu.transform_inplace(x, log2_size, **kw)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        # the timed output itself, at sampled positions; a round trip; the CPU path at 2^12
        good, total = check_entries(a, Fr.from_mont_limbs(x, check=False), inverse=inverse,
                                    coset=coset, seed=seed)
        d = Direction.INVERSE if inverse else Direction.FORWARD
        back = Direction.FORWARD if inverse else Direction.INVERSE
        del x
        y = transform(a, direction=d, coset=coset)
        round_trip = bool(transform(y, direction=back, coset=coset).equals(a))
        del y
        cpu_check = _check_gpu_against_cpu(coset, inverse, seed)
        checked = good == total and round_trip and cpu_check
        extra = {"entries_checked": good, "entries": total, "round_trip": round_trip,
                 "cpu_check_log2_size": CHECK_LOG2_SIZE, "cpu_check": cpu_check,
                 "graph": _graph_replayed(log2_size)}
    else:
        d = Direction.INVERSE if inverse else Direction.FORWARD
        y = transform(a, direction=d, coset=coset)  # warm-up (tables)
        for _ in range(repeats):
            t0 = time.perf_counter()
            y = transform(a, direction=d, coset=coset)
            times.append(time.perf_counter() - t0)
        good, total = check_entries(a, y, inverse=inverse, coset=coset, seed=seed)
        checked = good == total
        extra = {"entries_checked": good, "entries": total}
    return {
        "op": "ntt", "log2_size": log2_size, "n": n, "backend": backend,
        "device": device_name(backend), "coset": bool(coset), "inverse": bool(inverse),
        "repeats": repeats, "times_s": times, "median_s": statistics.median(times),
        "elements_per_s": n / statistics.median(times) if statistics.median(times) > 0 else float("inf"),
        "checked": bool(checked), **extra,
    }


def bench_ntt_sizes(log2_sizes, backend: str = "gpu", *, repeats: int = 5) -> dict:
    """Return ``{"device", "results": [...]}``: forward, inverse and coset variants per size."""
    results = []
    for k in log2_sizes:
        data = random_input(k, backend)
        for coset, inverse in ((False, False), (False, True), (True, False), (True, True)):
            results.append(bench_ntt(k, backend, coset=coset, inverse=inverse, repeats=repeats,
                                     data=data))
        del data
    return {"device": device_name(backend), "results": results}


__all__ = ["bench_ntt", "bench_ntt_sizes", "check_entries", "random_input", "CHECK_LOG2_SIZE",
           "CHECK_ENTRIES"]
