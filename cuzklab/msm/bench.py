"""MSM benchmark: timings of ``msm`` at one size, checked against an exact oracle.

Inputs follow the usual MSM benchmark (and the sppark figures in the
reference): distinct points and random scalars below 2^254. The points are
P_i = (a_i + 1) R_1 + (b_i + 1) R_2 + (c_i + 1) R_3 for the base-2^9 digits
(a_i, b_i, c_i) of i and three random points R_j, built by one kernel on the
GPU (``cuda/bench_points.cu``) or by batched additions on the CPU. This makes
the exact result cheap to know at any size: sum_i k_i P_i = sum_j s_j R_j with
s_1 = sum_i k_i (a_i + 1) mod r (and so on), three integer dot products and
three scalar multiplications; every timed run is compared with it.

GPU timings use CUDA events around the whole call (digits, sort, kernels and
the final normalization on the host), after a warm-up that also compiles the
kernels; "upload" timings add the transfer of points and scalars from pageable
host memory and every device allocation: each such run starts from freed
device memory (CuPy's pool hands its free blocks back to the driver before
it, outside the timed region),
so no run reuses blocks that the one before it left in the pool.
"""

from __future__ import annotations

import functools
import random
import statistics
import time

import numpy as np

from ..backend import check_backend, device_name, to_numpy, xp
from ..curve import reference as ref
from ..curve.affine import Point, Points
from ..curve import jacobian as J
from ..field.constants import R
from . import digits as D

#: Bits of each table index: 3 x 9 bits give 2^27 distinct points.
TABLE_BITS = 9
#: Scalars are drawn below 2^254, as in the reference figures.
SCALAR_BITS = 254
MAX_LOG2_SIZE = 27


def check_log2_size(log2_size) -> int:
    """Return ``log2_size`` if it is an int in [0, 27], else raise ValueError."""
    if isinstance(log2_size, bool) or not isinstance(log2_size, (int, np.integer)):
        raise TypeError(f"log2_size must be an int, got {type(log2_size).__name__}")
    if not 0 <= int(log2_size) <= MAX_LOG2_SIZE:
        raise ValueError(f"log2_size must be in [0, {MAX_LOG2_SIZE}], got {log2_size}")
    return int(log2_size)


@functools.lru_cache(maxsize=4)
def _tables(group: str, seed: int):
    """Return (three random points R_j, the 3T affine table (k + 1) R_j) as Python ints."""
    rng = random.Random(seed)
    g = ref.generator(group)
    T = 1 << TABLE_BITS
    bases, rows = [], []
    for _ in range(3):
        rj = ref.affine_mul(group, g, rng.randrange(1, R))
        bases.append(rj)
        acc = ref.affine_to_jacobian(group, rj)
        jac = [acc]
        for _k in range(1, T):
            acc = ref.jacobian_add_mixed(group, acc, rj)
            jac.append(acc)
        rows += [ref.jacobian_to_affine(group, p) for p in jac]
    return bases, rows


def bench_points(group: str, n: int, backend: str, seed: int = 1) -> Points:
    """Return the n benchmark points (see the module docstring) on ``backend``."""
    _, rows = _tables(group, seed)
    table = Points.from_ints(rows, group, backend, check=False)
    if backend == "gpu":
        from . import gpu
        run = gpu.default_runner()
        cp = run.xp
        shape = (n,) + ((12,) if group == "g1" else (2, 12))
        ox, oy = cp.empty(shape, dtype=cp.uint32), cp.empty(shape, dtype=cp.uint32)
        run.launch(f"msm_bench_points<{gpu.COLD_CURVES[group]}>", n,
                         (table.x.limbs, table.y.limbs, np.uint32(TABLE_BITS), np.uint32(n), ox, oy))
        from ..curve import fields as FF
        return Points(group, FF.wrap(group, ox, "gpu"), FF.wrap(group, oy, "gpu"))
    idx = np.arange(n, dtype=np.int64)
    T = 1 << TABLE_BITS
    a, b, c = idx & (T - 1), (idx >> TABLE_BITS) & (T - 1), (idx >> 2 * TABLE_BITS) & (T - 1)
    acc = J.add_mixed(J.from_affine(table[a]), table[T + b])
    return Points.from_jacobian(J.add_mixed(acc, table[2 * T + c]))


def bench_scalars(n: int, seed: int = 1) -> np.ndarray:
    """Return (n, 8) uint32 canonical limbs of random scalars below 2^254 (host)."""
    rng = np.random.default_rng(seed)
    limbs = rng.integers(0, 1 << 32, size=(n, 8), dtype=np.uint64).astype(np.uint32)
    limbs[:, 7] &= np.uint32((1 << (SCALAR_BITS - 224)) - 1)
    return limbs


def expected(group: str, limbs: np.ndarray, seed: int = 1) -> Point:
    """Return the exact MSM of the benchmark points with scalar ``limbs`` (see module docstring)."""
    bases, _ = _tables(group, seed)
    n = limbs.shape[0]
    idx = np.arange(n, dtype=np.int64)
    T = 1 << TABLE_BITS
    coefs = [(idx & (T - 1)) + 1, ((idx >> TABLE_BITS) & (T - 1)) + 1,
             ((idx >> 2 * TABLE_BITS) & (T - 1)) + 1]
    total = ref.jacobian_infinity(group)
    chunk = 1 << 20  # 32-bit limb x 10-bit coefficient x 2^20 terms < 2^63
    for rj, cf in zip(bases, coefs):
        s = 0
        for j in range(8):
            col = limbs[:, j].astype(np.uint64)
            acc = 0
            for lo in range(0, n, chunk):
                acc += int((col[lo:lo + chunk] * cf[lo:lo + chunk].astype(np.uint64)).sum())
            s += acc << (32 * j)
        total = ref.jacobian_add(group, total, ref.jacobian_mul(group, ref.affine_to_jacobian(group, rj), s % R))
    return Point(group, ref.jacobian_to_affine(group, total))


def _check_bench(log2_size, backend: str, group: str, repeats) -> int:
    """Check a benchmark's arguments before any work; return n = 2^log2_size."""
    log2_size = check_log2_size(log2_size)
    check_backend(backend)
    if group not in ("g1", "g2"):
        raise ValueError(f"group must be 'g1' or 'g2', got {group!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    return 1 << log2_size


def fresh_device_memory() -> None:
    """Return CuPy's cached device blocks to the driver (before an upload run)."""
    cp = xp("gpu")
    cp.cuda.Device().synchronize()
    cp.get_default_memory_pool().free_all_blocks()


class KernelTimer:
    """A runner that times every launch of the runner it wraps (e.g. ``gpu.default_runner()``).

    On a CUDA device each launch is bracketed by CUDA events on the current
    stream; on a host runner (the emulation) by the host clock. Everything
    else (``xp``, ``resident_threads``, ...) is the wrapped runner's.
    """

    def __init__(self, runner):
        self._runner = runner
        self.launches: list = []          # (kernel, threads, start, stop)

    def __getattr__(self, name):
        return getattr(self._runner, name)

    def launch(self, name, n_threads, args, **kw):
        mp = self._runner.xp
        if hasattr(mp, "cuda"):
            a, b = mp.cuda.Event(), mp.cuda.Event()
            a.record()
            self._runner.launch(name, n_threads, args, **kw)
            b.record()
        else:
            a = time.perf_counter()
            self._runner.launch(name, n_threads, args, **kw)
            b = time.perf_counter()
        self.launches.append((name, int(n_threads), a, b))

    def report(self) -> dict:
        """Return {"launches": [{kernel, threads, ms, at_ms}], "by_kernel": {base: {launches, ms}}, "total_ms", "span_ms"}.

        ``kernel`` is the launched name (template arguments included); ``at_ms``
        when it started, from the first launch's start; ``span_ms`` from the
        first launch's start to the last one's end, so that ``span_ms -
        total_ms`` is the time the device ran none of them (host work, waits).
        ``by_kernel`` sums by the name before ``<``. Waits for the device first.
        """
        mp = self._runner.xp
        cuda = hasattr(mp, "cuda")
        if cuda:
            mp.cuda.Device().synchronize()

        def ms(a, b):
            return float(mp.cuda.get_elapsed_time(a, b)) if cuda else (b - a) * 1e3
        rows = []
        first = self.launches[0][2] if self.launches else None
        for name, n, a, b in self.launches:
            rows.append({"kernel": name, "threads": n, "ms": ms(a, b), "at_ms": ms(first, a)})
        by: dict = {}
        for r in rows:
            e = by.setdefault(r["kernel"].split("<")[0], {"launches": 0, "ms": 0.0})
            e["launches"] += 1
            e["ms"] += r["ms"]
        span = ms(first, self.launches[-1][3]) if self.launches else 0.0
        return {"launches": rows, "by_kernel": by, "total_ms": sum(r["ms"] for r in rows), "span_ms": span}


def kernel_times(log2_size: int, group: str = "g1", *, window=None, glv=None, seed: int = 1,
                 runner=None) -> dict:
    """Return the time of each kernel launch of one warm MSM at n = 2^log2_size (GPU), checked.

    ``runner``: the runner to time (default: the GPU's); a host runner (the
    emulation) takes CPU inputs. Keys: log2_size, n (points), group, window, glv, checked
    (the result against the exact one), and :meth:`KernelTimer.report`'s. The
    launches' sum leaves out the host work between them (CuPy's prefix sums,
    the copies, the windows' combination).
    """
    from . import gpu
    n = 1 << check_log2_size(log2_size)
    if group not in ("g1", "g2"):
        raise ValueError(f"group must be 'g1' or 'g2', got {group!r}")
    base = runner or gpu.default_runner()
    backend = "gpu" if hasattr(base.xp, "cuda") else "cpu"
    used_glv = gpu.use_glv(group, n, glv)
    c = D.default_window(n, "gpu", glv=used_glv, group=group) if window is None else D.check_window(window)
    host_limbs, want, pts = _inputs(group, n, backend, seed)
    limbs = base.xp.asarray(host_limbs)
    ok = gpu.msm_gpu(pts, limbs, c, runner=base, glv=used_glv) == want   # warm-up: compiles
    timer = KernelTimer(base)
    ok &= gpu.msm_gpu(pts, limbs, c, runner=timer, glv=used_glv) == want
    return {"log2_size": log2_size, "n": n, "group": group, "window": c, "glv": used_glv,
            "checked": bool(ok), **timer.report()}


def _inputs(group: str, n: int, backend: str, seed: int):
    """Return (host scalar limbs, the exact result, the points on ``backend``) of a benchmark."""
    host_limbs = bench_scalars(n, seed)
    return host_limbs, expected(group, host_limbs, seed), bench_points(group, n, backend, seed)


def bench_msm(log2_size: int, backend: str = "gpu", *, group: str = "g1", repeats: int = 5,
              seed: int = 1, window=None, upload: bool = True, glv=None, upload_batches=None,
              upload_streams=(True,), upload_pools=("fresh",)) -> dict:
    """Return MSM timings at n = 2^log2_size: ``median_s`` (points on the device), and with upload.

    Keys: op, group, backend, device, log2_size, n, window, glv, repeats,
    times_s, median_s, upload_times_s, upload_median_s (GPU with ``upload``:
    from pageable host memory, each run from freed device memory), upload_from,
    pinned_upload_times_s, pinned_upload_median_s, pinned_upload_phases_s
    (GPU with ``upload``: from pinned host memory through
    ``gpu.msm_gpu_from_host``), pinned_upload_batches, pinned_upload_from,
    checked (every run equal to the exact result). ``glv``: as ``msm``'s
    (None: the GPU default, off on the CPU); the report says whether it ran.
    ``upload_batches``: part counts to time the pinned upload with as well
    (``batches=`` of ``msm_gpu_from_host``), each under
    ``pinned_upload_by_batches[str(count)]`` (times_s, median_s, phases_s),
    the pinned uploads at ``window`` or, when None, at ``gpu.upload_window``
    (pinned_upload_window; that of one part's points),
    for each value of ``upload_streams`` (``gpu.UPLOAD_STREAMS``; False adds
    the suffix "-one-stream" to the key); the pinned_upload_* keys stay those
    of the defaults. ``upload_pools``: "fresh" (device memory returned to the
    driver before each pinned run, the pinned_upload_* keys) and/or "warm"
    (CuPy's pool keeps the blocks of the previous run, as a prover reusing its
    buffers does, and as the points-on-device runs do): pinned_upload_warm_*
    keys, and by-batches keys with the suffix "-warm".
    """
    n = _check_bench(log2_size, backend, group, repeats)
    if glv is not None and not isinstance(glv, bool):
        raise TypeError(f"glv must be None or a bool, got {type(glv).__name__}")
    pools = tuple(upload_pools)
    if not pools or any(p not in ("fresh", "warm") for p in pools):
        raise ValueError(f"upload_pools must name 'fresh' and/or 'warm', got {upload_pools!r}")
    if backend == "gpu":
        from . import gpu
        used_glv = gpu.use_glv(group, n, glv)
    else:
        if glv and group != "g1":
            raise ValueError("GLV applies to G1 MSMs only")
        used_glv = bool(glv)
    c = D.default_window(n, backend, glv=used_glv, group=group) if window is None else D.check_window(window)
    host_limbs, want, pts = _inputs(group, n, backend, seed)
    times, up_times, pin_times, pin_phases, warm, ok = [], [], [], {}, {}, True
    by_batches: dict = {}
    if backend == "gpu":
        from . import gpu
        cp = xp("gpu")
        dev_limbs = cp.asarray(host_limbs)
        got = gpu.msm_gpu(pts, dev_limbs, c, glv=used_glv)  # warm-up: compiles the kernels
        ok &= got == want
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(repeats):
            cp.cuda.Device().synchronize()
            start.record()
            got = gpu.msm_gpu(pts, dev_limbs, c, glv=used_glv)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
            ok &= got == want
        if upload:
            hx, hy = to_numpy(pts.x.limbs), to_numpy(pts.y.limbs)
            del dev_limbs
            from ..curve import fields as FF
            for _ in range(repeats):
                fresh_device_memory()
                start.record()
                dx, dy, dl = cp.asarray(hx), cp.asarray(hy), cp.asarray(host_limbs)
                up = Points(group, FF.wrap(group, dx, "gpu"), FF.wrap(group, dy, "gpu"))
                got = gpu.msm_gpu(up, dl, c, glv=used_glv)
                stop.record()
                stop.synchronize()
                up_times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
                ok &= got == want
                del dx, dy, dl, up
            # from pinned host memory, through msm_gpu_from_host (the point
            # upload overlaps the scalar split and the sort)
            import cupyx
            pinned = []
            for a in (hx, hy, host_limbs):
                buf = cupyx.empty_pinned(a.shape, dtype=np.uint32)
                buf[...] = a
                pinned.append(buf)

            c_up = None if window is None else c  # None: gpu.upload_window, that of one part

            def timed(parts, pool):  # (times, phases, all checked) of the pinned upload in ``parts`` parts
                ts, marks = [], []
                if pool == "warm":  # the pool holds the blocks of one run like this before timing
                    ok_run = gpu.msm_gpu_from_host(group, *pinned, c_up, glv=used_glv, batches=parts) == want
                else:
                    ok_run = True
                for _ in range(repeats):
                    if pool == "fresh":
                        fresh_device_memory()
                    cp.cuda.Device().synchronize()
                    start.record()
                    got = gpu.msm_gpu_from_host(group, *pinned, c_up, glv=used_glv, batches=parts)
                    stop.record()
                    stop.synchronize()
                    ts.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
                    ok_run &= got == want
                if pool == "fresh":
                    fresh_device_memory()
                ok_run &= gpu.msm_gpu_from_host(group, *pinned, c_up, marks=marks, glv=used_glv,
                                                batches=parts) == want
                return ts, gpu.phase_times(marks), ok_run
            for pool in pools:
                ts, phases, ok_run = timed(None, pool)
                ok &= ok_run
                if pool == "fresh":
                    pin_times, pin_phases = ts, phases
                else:
                    warm = {"times_s": ts, "phases_s": phases}
            variants = [(int(p), bool(st)) for p in (upload_batches or ()) for st in upload_streams]
            default_streams = gpu.UPLOAD_STREAMS
            for parts, streams in variants:
                for pool in pools:
                    try:
                        gpu.UPLOAD_STREAMS = streams
                        ts, phases, ok_run = timed(parts, pool)
                    finally:
                        gpu.UPLOAD_STREAMS = default_streams
                    ok &= ok_run
                    key = f"{parts}{'' if streams else '-one-stream'}{'-warm' if pool == 'warm' else ''}"
                    by_batches[key] = {"times_s": ts, "median_s": statistics.median(ts), "phases_s": phases}
            del pinned
    else:
        from .api import _msm_cpu
        for _ in range(repeats):
            t0 = time.perf_counter()
            got = _msm_cpu(pts, host_limbs, c, used_glv)
            times.append(time.perf_counter() - t0)
            ok &= got == want
    out = {"op": "msm", "group": group, "backend": backend, "device": device_name(backend),
           "log2_size": log2_size, "n": n, "window": c, "glv": used_glv, "repeats": repeats,
           "times_s": times, "median_s": statistics.median(times), "checked": bool(ok)}
    if up_times:
        out["upload_times_s"] = up_times
        out["upload_median_s"] = statistics.median(up_times)
        out["upload_from"] = "pageable host memory; device memory freed before each run"
    if pin_times:
        out["pinned_upload_times_s"] = pin_times
        out["pinned_upload_median_s"] = statistics.median(pin_times)
        out["pinned_upload_from"] = ("pinned host memory, msm_gpu_from_host: scalars first, then the "
                                     "points on a second stream while the scalars are split and sorted; "
                                     "device memory freed before each run")
        out["pinned_upload_phases_s"] = pin_phases
    if warm:
        out["pinned_upload_warm_times_s"] = warm["times_s"]
        out["pinned_upload_warm_median_s"] = statistics.median(warm["times_s"])
        out["pinned_upload_warm_phases_s"] = warm["phases_s"]
    if pin_times or warm:
        from . import gpu
        out["pinned_upload_batches"] = gpu.upload_batches(group, n)
        out["pinned_upload_window"] = gpu.upload_window(group, n, used_glv) if window is None else c
        if by_batches:
            out["pinned_upload_by_batches"] = by_batches
    if backend == "gpu":
        marks: list = []
        got = gpu.msm_gpu(pts, xp("gpu").asarray(host_limbs), c, marks=marks, glv=used_glv)
        out["phases_s"] = gpu.phase_times(marks)
        out["checked"] = bool(out["checked"] and got == want)
    return out


def bench_msm_precomputed(log2_size: int, backend: str = "gpu", *, group: str = "g1", repeats: int = 5,
                          seed: int = 1, window=None) -> dict:
    """Return MSM timings over precomputed bases (``cuzklab.msm.precompute``) at n = 2^log2_size.

    The table is built once (``precompute_s``, wall clock) and stays on the
    device; ``median_s`` is the MSM alone, as a prover with its bases loaded
    runs it. Keys as :func:`bench_msm`, plus precomputed (True), windows and
    table_bytes.
    """
    from .api import msm_precomputed_limbs
    from .precompute import default_precomputed_window, precompute
    n = _check_bench(log2_size, backend, group, repeats)
    c = default_precomputed_window(n) if window is None else D.check_window(window)
    host_limbs, want, pts = _inputs(group, n, backend, seed)
    mod = xp(backend)
    limbs = mod.asarray(host_limbs)
    sync = (lambda: mod.cuda.Device().synchronize()) if backend == "gpu" else (lambda: None)
    sync()
    t0 = time.perf_counter()
    pb = precompute(pts, window=c)
    sync()
    pre_s = time.perf_counter() - t0
    del pts
    ok = msm_precomputed_limbs(pb, limbs) == want  # warm-up (compiles the kernels on the GPU)
    times = []
    for _ in range(repeats):
        sync()
        if backend == "gpu":
            start, stop = mod.cuda.Event(), mod.cuda.Event()
            start.record()
            got = msm_precomputed_limbs(pb, limbs)
            stop.record()
            stop.synchronize()
            times.append(mod.cuda.get_elapsed_time(start, stop) / 1e3)
        else:
            t0 = time.perf_counter()
            got = msm_precomputed_limbs(pb, limbs)
            times.append(time.perf_counter() - t0)
        ok &= got == want
    out = {"op": "msm", "group": group, "backend": backend, "device": device_name(backend),
           "log2_size": log2_size, "n": n, "window": c, "windows": pb.windows, "precomputed": True,
           "precompute_s": pre_s, "table_bytes": int(len(pb.table)) * 2 * 4 * (12 if group == "g1" else 24),
           "repeats": repeats, "times_s": times, "median_s": statistics.median(times)}
    if backend == "gpu":
        from . import gpu
        marks: list = []
        got = gpu.msm_gpu(pb.table, limbs, c, marks=marks, shared=True)
        out["phases_s"] = gpu.phase_times(marks)
        ok &= got == want
    out["checked"] = bool(ok)
    return out


def bench_msm_sizes(log2_sizes, backend: str = "gpu", *, group: str = "g1", repeats: int = 5,
                    window=None, upload: bool = True, precomputed: bool = False, glv=None) -> dict:
    """Return ``{"device", "results": [bench_msm(...) per size]}``.

    ``precomputed``: time MSMs over precomputed bases (:func:`bench_msm_precomputed`).
    ``glv``: passed to :func:`bench_msm` (plain bases only).
    """
    if precomputed:
        res = [bench_msm_precomputed(k, backend, group=group, repeats=repeats, window=window)
               for k in log2_sizes]
    else:
        res = [bench_msm(k, backend, group=group, repeats=repeats, window=window, upload=upload, glv=glv)
               for k in log2_sizes]
    return {"device": device_name(backend), "backend": backend, "results": res}


def format_table(report: dict) -> str:
    """Return a text table of a ``bench_msm_sizes`` report."""
    lines = [f"device: {report['device']} ({report['backend']})",
             f"{'group':<6}{'log2 n':>7}{'window':>7}{'bases':>12}{'median ms':>12}{'upload ms':>12}"
             f"{'checked':>9}"]
    for r in report["results"]:
        up = r.get("upload_median_s")
        bases = "precomputed" if r.get("precomputed") else ("plain+glv" if r.get("glv") else "plain")
        lines.append(f"{r['group']:<6}{r['log2_size']:>7}{r['window']:>7}{bases:>12}{r['median_s'] * 1e3:>12.3f}"
                     f"{(up * 1e3 if up is not None else float('nan')):>12.3f}{str(r['checked']):>9}")
    return "\n".join(lines)
