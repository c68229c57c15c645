"""Array backends: NumPy on the CPU, CuPy on a CUDA GPU.

Every kernel in cuzklab takes ``backend="cpu"`` or ``backend="gpu"``; this
module resolves the name to an array module and tells what device is present.
CuPy is imported only when the GPU backend is first asked for.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import re
import shutil
import subprocess

import numpy as np

from .errors import BackendError

BACKENDS = ("cpu", "gpu")
# cuzklab's extras (pyproject.toml) by the CUDA major version of the CuPy
# wheel they install: cupy-cuda12x, cupy-cuda13x. A driver runs the wheels of
# its own CUDA major version and older ones.
GPU_EXTRAS = {12: "gpu-cuda12", 13: "gpu-cuda13"}
# nvidia-smi's banner: "... | CUDA Version: 12.4 |".
_SMI_CUDA_RE = re.compile(r"CUDA Version:\s*(\d+)\.(\d+)")


def check_backend(backend: str) -> str:
    """Return ``backend`` if it is a known name, else raise ValueError."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return backend


@functools.lru_cache(maxsize=None)
def _cupy():
    try:
        import cupy  # noqa: F401
    except ImportError as exc:
        raise BackendError(f"the 'gpu' backend needs CuPy: {gpu_install_hint()}") from exc
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # pragma: no cover - depends on the machine
        raise BackendError(f"CuPy is installed but no CUDA device is usable: {exc}") from exc
    if n < 1:  # pragma: no cover
        raise BackendError("CuPy is installed but no CUDA device was found")
    return cupy


def cuda_driver_version() -> tuple[int, int] | None:
    """Return the newest CUDA version the NVIDIA driver supports, (major, minor), or None.

    Asks libcuda (``cuDriverGetVersion``), else reads nvidia-smi's banner;
    None when neither is present (no NVIDIA driver on this machine).
    """
    return _libcuda_version() or _nvidia_smi_version()


def _libcuda_version() -> tuple[int, int] | None:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(v)) != 0 or v.value <= 0:
            return None
    except (OSError, AttributeError):
        return None
    return v.value // 1000, (v.value % 1000) // 10  # 12040 -> 12.4 (CUDA's encoding)


def _nvidia_smi_version() -> tuple[int, int] | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = _SMI_CUDA_RE.search(out)
    return (int(m.group(1)), int(m.group(2))) if m else None


_LOOK_UP = object()


def gpu_install_hint(version=_LOOK_UP) -> str:
    """Return which cuzklab extra brings the CuPy that the NVIDIA driver here can run.

    ``version`` is the driver's CUDA version; by default it is looked up
    (:func:`cuda_driver_version`); None means no driver was found.
    """
    if version is _LOOK_UP:
        version = cuda_driver_version()
    both = " or ".join(f"cuzklab[{e}]" for e in GPU_EXTRAS.values())
    if version is None:
        return (f"install {both}, the one matching the CUDA version your NVIDIA driver supports "
                f"(nvidia-smi prints it; no driver was found here)")
    major, minor = version
    newest = max(GPU_EXTRAS)
    if major < min(GPU_EXTRAS):
        return (f"the NVIDIA driver here supports CUDA {major}.{minor}, older than the CuPy "
                f"wheels cuzklab installs need; update the driver, then install {both}")
    extra = GPU_EXTRAS[min(major, newest)]
    return (f"the NVIDIA driver here supports CUDA {major}.{minor}: install cuzklab[{extra}] "
            f"(pip install 'cuzklab[{extra}]'; in a checkout pip install -e '.[{extra}]')")


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


def host_info() -> dict:
    """Return what a CPU benchmark's JSON records of its host: CPU model, Python, usable CPUs."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return {"machine": device_name("cpu"), "python": platform.python_version(), "cpus_allowed": cpus}


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
