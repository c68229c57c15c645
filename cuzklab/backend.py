"""Array backends: NumPy on the CPU, CuPy on a CUDA GPU.

Every kernel in cuzklab takes ``backend="cpu"`` or ``backend="gpu"``; this
module resolves the name to an array module and tells what device is present.
CuPy is imported only when the GPU backend is first asked for.
"""

from __future__ import annotations

import functools
import platform

import numpy as np

from .errors import BackendError

BACKENDS = ("cpu", "gpu")


def check_backend(backend: str) -> str:
    """Return ``backend`` if it is a known name, else raise ValueError."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return backend


@functools.lru_cache(maxsize=None)
def _cupy():
    try:
        import cupy  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise BackendError(
            "the 'gpu' backend needs CuPy: install cuzklab[gpu] "
            "(or the cupy-cudaXXx wheel matching your CUDA)") from exc
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # pragma: no cover - depends on the machine
        raise BackendError(f"CuPy is installed but no CUDA device is usable: {exc}") from exc
    if n < 1:  # pragma: no cover
        raise BackendError("CuPy is installed but no CUDA device was found")
    return cupy


def gpu_available() -> bool:
    """Return True when CuPy imports and sees at least one CUDA device."""
    try:
        _cupy()
    except BackendError:
        return False
    return True


def xp(backend: str = "cpu"):
    """Return the array module (numpy or cupy) for ``backend``."""
    check_backend(backend)
    return np if backend == "cpu" else _cupy()


def to_numpy(a):
    """Return ``a`` as a NumPy array, copying from the device if needed."""
    if isinstance(a, np.ndarray):
        return a
    get = getattr(a, "get", None)
    return np.asarray(get() if get is not None else a)


def device_name(backend: str = "cpu") -> str:
    """Return a human-readable name of the device behind ``backend``."""
    check_backend(backend)
    if backend == "gpu":
        cp = _cupy()
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    return _cpu_model() or platform.processor() or platform.machine() or "cpu"


@functools.lru_cache(maxsize=None)
def _cpu_model() -> str:
    """Return the CPU model name from /proc/cpuinfo, or "" where there is none."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""
