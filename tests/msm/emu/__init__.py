"""Run cuzklab's CUDA kernels on the host: a serial emulation for tests.

The kernels are compiled with the system C++ compiler against a host stand-in
for the PTX primitives (``cuzk_types.cuh`` here) and a few CUDA built-ins
(``host_cuda.h``); each launch loops over blocks and threads in order. The
runner has the interface of ``cuzklab.msm.gpu.CupyRunner`` (``xp`` and
``launch``) with NumPy arrays, so the GPU drivers run unchanged on a machine
without a GPU. Only kernels whose threads do not cooperate (no shared memory,
no barriers) can run this way, which is true of the MSM and curve kernels.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
CXX = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
# -frounding-math: the FP64 stand-ins in host_cuda.h switch the rounding mode
CXXFLAGS = ("-std=c++17", "-O1", "-w", "-frounding-math", "-ffp-contract=off")


def _ctype(kind):
    return ctypes.c_void_p if kind in ("ptr", "mem") else ctypes.c_uint32


class EmuRunner:
    """Launches kernels compiled for the host; arrays are NumPy arrays."""

    xp = np

    def __init__(self, sources, include_dirs, names, signatures, build_dir=None):
        if CXX is None:
            raise RuntimeError("no C++ compiler found for the host emulation")
        self.names = list(names)
        self.signatures = signatures
        wrappers = ["#include <cstdint>"]
        for s in sources:
            wrappers.append(s)
        for k, name in enumerate(self.names):
            sig = signatures[name.split("<")[0]]
            params = ", ".join(f"{'void*' if t in ('ptr', 'mem') else 'unsigned'} a{i}" for i, t in enumerate(sig))
            args = ", ".join(f"emu_ptr{{a{i}}}" if t in ("ptr", "mem") else f"a{i}" for i, t in enumerate(sig))
            wrappers.append(
                f'extern "C" void emu_{k}(unsigned grid, unsigned block, {params}) {{\n'
                f"  blockDim.x = block; gridDim.x = grid; blockDim.y = blockDim.z = 1;\n"
                f"  for (unsigned b = 0; b < grid; b++) {{ blockIdx.x = b;\n"
                f"    for (unsigned t = 0; t < block; t++) {{ threadIdx.x = t; {name}({args}); }} }}\n}}")
        code = "\n".join(wrappers)
        # the field headers, with our host cuzk_types.cuh in place of theirs
        incl = []
        for d in include_dirs:
            incl += sorted(pathlib.Path(d).glob("*.cuh"))
        h = hashlib.sha256(code.encode())
        h.update(" ".join(CXXFLAGS).encode())
        for p in incl + [HERE / "cuzk_types.cuh", HERE / "host_cuda.h"]:
            h.update(p.name.encode() + p.read_bytes())
        key = h.hexdigest()[:16]
        root = pathlib.Path(build_dir or os.path.join(tempfile.gettempdir(), "cuzklab-emu"))
        work = root / key
        lib = work / "kernels.so"
        if not lib.exists():
            # each process builds in a folder of its own: two test workers may build the
            # same key at once, and a compiler must never read a file another rewrites
            tmpdir = work / f"build.{os.getpid()}"
            tmpdir.mkdir(parents=True, exist_ok=True)
            for p in incl:
                if p.name != "cuzk_types.cuh":
                    shutil.copy(p, tmpdir / p.name)
            shutil.copy(HERE / "cuzk_types.cuh", tmpdir / "cuzk_types.cuh")
            shutil.copy(HERE / "host_cuda.h", tmpdir / "host_cuda.h")
            src = tmpdir / "kernels.cpp"
            src.write_text('#include "host_cuda.h"\n' + code)
            tmp = tmpdir / "kernels.so"
            subprocess.run([CXX, *CXXFLAGS, "-shared", "-fPIC", f"-I{tmpdir}",
                            "-o", str(tmp), str(src)], check=True, capture_output=True, text=True)
            os.replace(tmp, lib)
            shutil.rmtree(tmpdir, ignore_errors=True)
        self.lib = ctypes.CDLL(str(lib))
        self._fn = {}
        for k, name in enumerate(self.names):
            f = getattr(self.lib, f"emu_{k}")
            sig = signatures[name.split("<")[0]]
            f.argtypes = [ctypes.c_uint32, ctypes.c_uint32] + [_ctype(t) for t in sig]
            f.restype = None
            self._fn[name] = f

    def launch(self, name, n_threads, args, block=128):
        """Run kernel ``name`` over ``n_threads`` threads, serially."""
        if n_threads <= 0:
            return
        sig = self.signatures[name.split("<")[0]]
        conv = []
        for a, t in zip(args, sig, strict=True):
            if t in ("ptr", "mem"):  # mem: an array of any dtype
                assert isinstance(a, np.ndarray) and a.flags.c_contiguous, name
                assert t == "mem" or a.dtype == np.uint32, name
                conv.append(ctypes.c_void_p(a.ctypes.data))
            else:
                assert isinstance(a, np.uint32), (name, type(a))
                conv.append(ctypes.c_uint32(int(a)))
        grid = (n_threads + block - 1) // block
        self._fn[name](grid, block, *conv)


def msm_runner(build_dir=None, defines: str = ""):
    """Return an EmuRunner for the MSM kernels of cuzklab.msm.gpu.

    ``defines``: lines put before the sources, e.g. ``"#define CUZK_FP_MUL_EO 1\\n"``
    for kernels built as under ``CUZKLAB_MUL=fp=eo``.
    """
    from cuzklab.field.cuda import include_dir
    from cuzklab.msm import gpu
    src = defines + '#include "pippenger.cu"\n#include "bench_points.cu"\n'
    dirs = [include_dir(), *gpu.include_dirs()]
    runner = EmuRunner([_inline(src, dirs)], [include_dir(), gpu.include_dirs()[0]],
                       gpu.kernel_names(None), gpu.SIGNATURES, build_dir)
    return runner


def _inline(src: str, dirs) -> str:
    """Return ``src`` with ``#include "x.cu"`` replaced by the file's text (found in ``dirs``)."""
    out = []
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("#include") and s.endswith('.cu"'):
            fname = s.split('"')[1]
            for d in dirs:
                p = pathlib.Path(d) / fname
                if p.exists():
                    out.append(p.read_text())
                    break
            else:
                raise FileNotFoundError(fname)
        else:
            out.append(line)
    return "\n".join(out)


class Counting:
    """A runner that counts the launches of each kernel."""

    def __init__(self, inner):
        self.inner = inner
        self.xp = inner.xp
        self.calls: dict = {}

    def launch(self, name, n_threads, args, block=128):
        base = name.split("<")[0]
        self.calls[base] = self.calls.get(base, 0) + 1
        self.inner.launch(name, n_threads, args, block)


def module_options(monkeypatch) -> tuple[tuple, tuple]:
    """Return the NVRTC options ``gpu.CupyRunner.module`` passes for G1 and for G2 (nothing compiled).

    Set the ``cuzklab.msm.gpu`` settings under test with ``monkeypatch`` first.
    """
    import cuzklab.field.cuda as fc
    from cuzklab.msm import gpu
    seen = []
    monkeypatch.setattr(fc, "load_module", lambda src, names, opts, mul=None: seen.append(opts))
    gpu.CupyRunner._module.cache_clear()
    try:
        gpu.CupyRunner.module(gpu.SOURCE, "g1")
        gpu.CupyRunner.module(gpu.SOURCE, "g2")
    finally:
        gpu.CupyRunner._module.cache_clear()
    return seen[0], seen[1]
