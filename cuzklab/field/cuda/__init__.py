"""CUDA sources of the field arithmetic and helpers to build kernels on them.

Other packages (MSM, NTT) write kernels that ``#include "cuzk_field.cuh"`` and
build them with :func:`load_module`, which adds the include path and the C++
standard and compiles lazily through NVRTC (``cupy.RawModule``). Modules are
cached per (source, name expressions, options); the header contents are hashed
into the options so that CuPy's on-disk cache never serves a kernel built
against stale headers.
"""

from __future__ import annotations

import functools
import hashlib
import pathlib
import threading

_DIR = pathlib.Path(__file__).resolve().parent

#: Headers, in include order; ``cuzk_field.cuh`` includes them all.
HEADERS = ("cuzk_types.cuh", "cuzk_traits.cuh", "cuzk_mont.cuh", "cuzk_mont_f64.cuh", "cuzk_mont_eo.cuh",
           "cuzk_fp2.cuh",
           "cuzk_field.cuh")


def check_launch_args(name: str, args, sig) -> None:
    """Raise TypeError when launch arguments ``args`` do not match the kernel signature ``sig``.

    Each entry of ``sig`` is ``"u32"`` (a numpy.uint32), ``"ptr"`` (a C-contiguous
    uint32 array) or ``"mem"`` (a C-contiguous array of any dtype).
    """
    if len(args) != len(sig):
        raise TypeError(f"{name}: expected {len(sig)} arguments, got {len(args)}")
    import numpy as np
    for i, (a, kind) in enumerate(zip(args, sig)):
        if kind == "u32":
            if not isinstance(a, np.uint32):
                raise TypeError(f"{name} argument {i}: expected numpy.uint32, got {type(a).__name__}")
        elif not getattr(getattr(a, "flags", None), "c_contiguous", False) or (
                kind == "ptr" and getattr(a, "dtype", None) != np.uint32):
            what = "uint32 array" if kind == "ptr" else "array"
            raise TypeError(f"{name} argument {i}: expected a C-contiguous {what}")


def include_dir() -> str:
    """Return the absolute path of the folder holding the ``.cuh`` headers."""
    return str(_DIR)


@functools.lru_cache(maxsize=None)
def headers_hash(extra_dirs: tuple[str, ...] = ()) -> str:
    """Return a short hash of every header and kernel source in this folder and in ``extra_dirs``."""
    h = hashlib.sha256()
    for d in (str(_DIR), *extra_dirs):
        for p in sorted(pathlib.Path(d).glob("*.cu*")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


#: The Montgomery multipliers: "cios" (32-bit integer multiply-adds), "f64"
#: (partial products on the FP64 pipe, cuzk_mont_f64.cuh) or "eo" (integer
#: rows split by word parity, cuzk_mont_eo.cuh); the results are
#: bit-identical, only the speed differs. Overridden by the environment
#: variable CUZKLAB_MUL, e.g. ``CUZKLAB_MUL=fr=cios,fp=f64``. The defaults, from
#: chains of 256 dependent multiplies on 2^22 elements on an H200 (2026-12-04,
#: ``benchmarks/bench_field.py``; docs/field.md): Fr f64 54.2 G/s (eo 51.5,
#: cios 37.8), Fp eo 27.0 G/s (f64 21.9, cios 15.6). The NTT kernels build
#: their Fr multiplies on eo themselves (``cuzklab.ntt.gpu.KERNEL_DEFINES``).
MULTIPLIERS = {"fr": "f64", "fp": "eo"}
_MUL_KINDS = ("cios", "f64", "eo")


def multipliers(spec: str | None = None) -> dict[str, str]:
    """Return the multiplier per field: MULTIPLIERS updated by ``spec`` (default: $CUZKLAB_MUL).

    ``spec`` is "field=kind[,field=kind]" with field in fr, fp and kind in
    cios, f64, eo; anything else is a ValueError naming CUZKLAB_MUL.
    """
    import os
    spec = os.environ.get("CUZKLAB_MUL", "") if spec is None else spec
    out = dict(MULTIPLIERS)
    for part in filter(None, (p.strip() for p in spec.split(","))):
        field, _, kind = part.partition("=")
        field, kind = field.strip().lower(), kind.strip().lower()
        if field not in out or kind not in _MUL_KINDS:
            raise ValueError(f"CUZKLAB_MUL must be field=kind pairs with field in {sorted(out)} "
                             f"and kind in {list(_MUL_KINDS)}, got {part!r}")
        out[field] = kind
    return out


def module_multipliers(mul: dict | None = None) -> dict[str, str]:
    """Return the multiplier per field of a module: :func:`multipliers` with ``mul`` ({field: kind}) over it."""
    chosen = multipliers()
    for field, kind in (mul or {}).items():
        if field not in chosen or kind not in _MUL_KINDS:
            raise ValueError(f"mul must map fields {sorted(chosen)} to kinds {list(_MUL_KINDS)}, got {mul!r}")
        chosen[field] = kind
    return chosen


def compile_options(options: tuple[str, ...] = (), mul: dict | None = None) -> tuple[str, ...]:
    """Return NVRTC options: the include path, C++17, the header hash, the multipliers, then ``options``.

    The hash covers this folder's headers and those of every ``-I`` folder in
    ``options``, so an edited header never meets a stale cached kernel.
    ``mul``: multipliers for this module only, a {field: kind} dict applied
    over :func:`multipliers` (e.g. ``{"fp": "cios"}``).
    """
    chosen = module_multipliers(mul)
    dirs = tuple(o[2:] for o in options if o.startswith("-I"))
    # a module that sets a field's even/odd switch itself (the NTT's
    # CUZK_FR_MUL_EO) keeps its own value
    eo = tuple(f"-DCUZK_{f.upper()}_MUL_EO={int(chosen[f] == 'eo')}" for f in ("fr", "fp")
               if not any(o.startswith(f"-DCUZK_{f.upper()}_MUL_EO=") for o in options))
    return ("-std=c++17", f"-I{include_dir()}", f"-DCUZK_FIELD_HASH=0x{headers_hash(dirs)}ULL",
            f"-DCUZK_FR_MUL_F64={int(chosen['fr'] == 'f64')}",
            f"-DCUZK_FP_MUL_F64={int(chosen['fp'] == 'f64')}", *eo, *tuple(options))


def read_source(name: str) -> str:
    """Return the text of a ``.cu`` file of this folder (e.g. ``field_kernels.cu``)."""
    return (_DIR / name).read_text()


def load_module(source: str, name_expressions=(), options=(), mul=None):
    """Build (lazily, cached) a ``cupy.RawModule`` whose source may include our headers.

    ``name_expressions``: template instantiations to export, e.g.
    ``("my_kernel<cuzk::FrTraits>",)``; fetch them with ``mod.get_function(name)``.
    ``options``: extra NVRTC options (``-D...``, ``--use_fast_math`` ...).
    ``mul``: this module's multipliers (see :func:`compile_options`).
    Thread-safe: threads asking for the same module build it once.
    """
    opts = compile_options(tuple(options), mul)
    with _BUILD_LOCK:
        return _load_module(source, tuple(name_expressions), opts)


_BUILD_LOCK = threading.RLock()


@functools.lru_cache(maxsize=None)
def _load_module(source: str, names: tuple[str, ...], options: tuple[str, ...]):
    from ...backend import xp
    cp = xp("gpu")
    mod = cp.RawModule(code=source, options=options,
                       name_expressions=names or None)
    mod.compile()
    return mod
