"""Montgomery-multiply throughput of Fr and Fp on the CPU and GPU paths.

``bench_mul`` is the core; ``bench_field`` runs both fields (the ``cuzklab
bench field`` command calls it). The GPU kernel runs a chain of ``chain``
dependent multiplies per element (acc = acc * y; with ``op="sqr"`` squarings,
acc = acc^2), so memory traffic does not dominate; it is timed with CUDA
events after a warm-up, on random non-zero data, and a sample of the result
is checked against the CPU path.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from ..backend import check_backend, device_name
from .array import Fp, Fr

FIELDS = {"fr": Fr, "fp": Fp}


def _nonzero_random(cls, n, seed, backend):
    a = cls.random(n, seed, "cpu")
    z = a.is_zero()
    if z.any():
        a[np.flatnonzero(z)] = cls.ones(1)
    return a.to(backend)


#: Largest benchmark size: 2^28 elements (8 GiB of Fr operands per array on the GPU).
MAX_LOG2_SIZE = 28


#: Operations ``bench_mul`` times: a multiply (x y) or a square (x^2, ``mont_sqr``).
OPS = ("mul", "sqr")


def bench_mul(field: str = "fr", backend: str = "gpu", log2_size: int = 20, repeats: int = 5,
              chain: int | None = None, check: int = 64, seed: int = 1, op: str = "mul") -> dict:
    """Measure Montgomery multiplications (or squarings, ``op="sqr"``) per second.

    field: "fr" or "fp"; backend: "cpu" or "gpu"; n = 2^log2_size elements.
    GPU: ``chain`` dependent multiplies per element (default 256) per launch;
    CPU: one vectorized multiply of n elements (chain is 1).
    Returns a dict with the median time and G mul/s (see docs/field.md).
    """
    check_backend(backend)
    key = str(field).lower()
    if key not in FIELDS:
        raise ValueError(f"field must be one of {sorted(FIELDS)}, got {field!r}")
    if op not in OPS:
        raise ValueError(f"op must be one of {list(OPS)}, got {op!r}")
    if not isinstance(log2_size, int) or not 0 <= log2_size <= MAX_LOG2_SIZE:
        raise ValueError(f"log2_size must be an int in [0, {MAX_LOG2_SIZE}], got {log2_size!r}")
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    cls = FIELDS[key]
    n = 1 << log2_size
    x = _nonzero_random(cls, n, seed, backend)
    y = _nonzero_random(cls, n, seed + 1, backend)
    times = []
    checked = 0
    if backend == "gpu":
        import cupy as cp

        from . import _gpu
        chain = 256 if chain is None else int(chain)
        if chain < 1:
            raise ValueError(f"chain must be >= 1, got {chain}")
        def run():
            if op == "sqr":
                return _gpu.sqr_chain(x.limbs, chain, cls.FC)
            return _gpu.mul_chain(x.limbs, y.limbs, chain, cls.FC)

        out = run()  # warm-up (and compile)
        cp.cuda.Device().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(repeats):
            start.record()
            out = run()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        if check:
            idx = np.random.default_rng(seed).choice(n, size=min(check, n), replace=False)
            xs, ys = x.to("cpu")[idx], y.to("cpu")[idx]
            got = cls.from_mont_limbs(cp.asnumpy(out[cp.asarray(idx)]), backend="cpu", check=False)
            if op == "sqr":  # x^(2^chain), against Python ints
                m = cls.FC.modulus
                ok = got.to_ints() == [pow(v, 1 << chain, m) for v in xs.to_ints()]
            else:
                ok = got.equals(xs * ys.pow(chain))
            if not ok:
                raise AssertionError(f"GPU {cls.__name__} {op} chain disagrees with the CPU path")
            checked = len(idx)
        per_call = n * chain
    else:
        from . import _cpu
        chain = 1
        if op == "sqr":
            y = x
        _cpu.mont_mul(x.limbs, y.limbs, cls.FC)  # warm-up
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = _cpu.mont_mul(x.limbs, y.limbs, cls.FC)
            times.append(time.perf_counter() - t0)
        if check:
            k = min(check, n)
            ref = [a * b % cls.FC.modulus for a, b in zip(x[:k].to_ints(), y[:k].to_ints())]
            if cls.from_mont_limbs(out[:k], check=False).to_ints() != ref:
                raise AssertionError(f"CPU {cls.__name__} multiply disagrees with Python ints")
            checked = k
        per_call = n
    med = statistics.median(times)
    return {
        "field": key, "op": op, "backend": backend, "device": device_name(backend),
        "log2_size": log2_size, "n": n, "chain": chain, "repeats": repeats,
        "times_s": times, "median_s": med, "muls_per_s": per_call / med,
        "gmul_per_s": per_call / med / 1e9, "checked": checked,
    }


def bench_field(backend: str = "gpu", log2_size: int = 20, repeats: int = 5, chain: int | None = None,
                ops=("mul",)) -> dict:
    """Both fields, each op of ``ops``; returns ``{"device": ..., "backend": ..., "results": [...]}``."""
    bad = [o for o in ops if o not in OPS]
    if bad or not ops:
        raise ValueError(f"ops must be a non-empty list of {list(OPS)}, got {list(ops)!r}")
    res = [bench_mul(f, backend, log2_size, repeats, chain, op=o) for o in ops for f in ("fr", "fp")]
    out = {"device": res[0]["device"], "backend": backend, "results": res}
    if backend == "gpu":
        from .cuda import multipliers
        out["multipliers"] = multipliers()  # which Montgomery multiply each field's kernels ran
    return out


def format_table(report: dict) -> str:
    muls = report.get("multipliers")
    lines = [f"device: {report['device']} ({report['backend']})"
             + (f", multipliers {', '.join(f'{k}={v}' for k, v in muls.items())}" if muls else ""),
             f"{'field':<6}{'op':<5}{'n':>12}{'chain':>7}{'median ms':>12}{'G op/s':>10}"]
    for r in report["results"]:
        lines.append(f"{r['field']:<6}{r.get('op', 'mul'):<5}{r['n']:>12}{r['chain']:>7}"
                     f"{r['median_s'] * 1e3:>12.3f}{r['gmul_per_s']:>10.3f}")
    return "\n".join(lines)
