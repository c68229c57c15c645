"""The kernel sweep point: time one BLS12-381 kernel at one size, on the GPU or the CPU.

``kernel_point("ntt", 20)`` looks the kernel's benchmark up in the math
layers (``cuzklab.field.bench``, ``cuzklab.ntt.bench``, and an MSM benchmark
where one exists), runs it, and returns flat metrics for ``record``. A kernel
whose benchmark this cuzklab does not have raises :class:`KernelUnavailable`
naming what was looked for, so its sweep point is recorded as failed with
that reason. Without a GPU (``backend="auto"``) the CPU path runs, only at
the small sizes it can do in seconds.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, SweepError

BACKENDS = ("auto", "gpu", "cpu")


class KernelUnavailable(SweepError, LookupError):
    """This cuzklab has no benchmark for the requested kernel (on that backend)."""


@dataclass(frozen=True)
class KernelBench:
    """Where a kernel's benchmark lives, how to call it, and the CPU size limit."""

    name: str
    candidates: tuple[tuple[str, str], ...]  # (module, function), first found wins
    cpu_max_log2: int  # the CPU path takes seconds here, far more above
    kwargs: dict[str, Any] = field(default_factory=dict)
    unit: str = "elements"
    doc: str = ""


# CPU limits measured on the 2-core CI host: NTT 2^14 ~0.6 s and 2^16 a few
# seconds per transform; Fr multiply 2^20 ~0.6 s per vectorized call.
KERNELS = {
    "field_mul": KernelBench("field_mul", (("cuzklab.field.bench", "bench_mul"),), 22,
                             {"field": "fr"}, "multiplies", "Fr Montgomery multiplication"),
    "ntt": KernelBench("ntt", (("cuzklab.ntt.bench", "bench_ntt"),), 16, {},
                       "elements", "forward Fr NTT of 2^k elements"),
    "ntt_coset": KernelBench("ntt_coset", (("cuzklab.ntt.bench", "bench_ntt"),), 16,
                             {"coset": True}, "elements", "forward coset NTT (as ntt_h does)"),
    "msm": KernelBench("msm", (("cuzklab.msm.bench", "bench_msm"), ("cuzklab.bench", "bench_msm")),
                       12, {}, "points", "G1 Pippenger MSM of 2^k points"),
}


def find_bench(kernel: str):
    """Return the benchmark function of ``kernel``, or raise KernelUnavailable saying why."""
    if kernel not in KERNELS:
        raise ConfigError("kernel", f"must be one of {', '.join(KERNELS)}, got {kernel!r}")
    spec = KERNELS[kernel]
    tried = []
    for module, name in spec.candidates:
        tried.append(f"{module}.{name}")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name and module.startswith(exc.name):
                continue  # that part of cuzklab is not there
            raise
        fn = getattr(mod, name, None)
        if callable(fn):
            return fn
    raise KernelUnavailable(f"no benchmark for kernel {kernel!r} in this cuzklab "
                            f"(looked for {', '.join(tried)})")


def resolve_backend(backend: str) -> str:
    """Return "gpu" or "cpu" for ``backend`` ("auto" picks the GPU when there is one)."""
    if backend not in BACKENDS:
        raise ConfigError("backend", f"must be one of {', '.join(BACKENDS)}, got {backend!r}")
    from ..backend import gpu_available, gpu_install_hint
    if backend == "auto":
        return "gpu" if gpu_available() else "cpu"
    if backend == "gpu" and not gpu_available():
        from ..errors import BackendError
        raise BackendError("backend='gpu' but no CUDA device with CuPy is available here "
                           f"(on a GPU machine: {gpu_install_hint()}; or use backend='auto')")
    return backend


def kernel_point(kernel: str, log2_size: int, backend: str = "auto", repeats: int = 3,
                 seed: int = 1) -> dict[str, Any]:
    """Return the flat metrics of one kernel benchmark: median_s, per-second rate, device, check."""
    if isinstance(log2_size, bool) or not isinstance(log2_size, int) or not 1 <= log2_size <= 28:
        raise ConfigError("log2_size", f"must be an integer from 1 to 28, got {log2_size!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError("repeats", f"must be a positive integer, got {repeats!r}")
    fn = find_bench(kernel)
    spec = KERNELS[kernel]
    backend = resolve_backend(backend)
    if backend == "cpu" and log2_size > spec.cpu_max_log2:
        raise ConfigError("log2_size", f"at most {spec.cpu_max_log2} for {kernel} on the CPU "
                                       f"(got {log2_size}); larger sizes need a GPU")
    kwargs = dict(spec.kwargs)
    if kernel.startswith("field"):
        res = fn(kwargs.pop("field"), backend, log2_size, repeats, seed=seed)
    else:
        res = fn(log2_size, backend, repeats=repeats, seed=seed, **kwargs)
    median = float(res["median_s"])
    n = int(res.get("n", 1 << log2_size))
    # Field multiplies chain several per element on the GPU; the bench says how many.
    per_s = res.get("muls_per_s", n / median if median > 0 else None)
    checked = res.get("checked")
    return {"kernel": kernel, "backend": backend, "device": res.get("device"),
            "log2_size": log2_size, "n": n, "repeats": repeats, "median_s": median,
            "min_s": float(min(res.get("times_s") or [median])),
            "per_s": per_s, "unit": spec.unit,
            "checked": bool(checked) if checked is not None else None}
