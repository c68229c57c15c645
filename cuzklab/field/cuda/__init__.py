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

_DIR = pathlib.Path(__file__).resolve().parent

#: Headers, in include order; ``cuzk_field.cuh`` includes them all.
HEADERS = ("cuzk_types.cuh", "cuzk_traits.cuh", "cuzk_mont.cuh", "cuzk_mont_f64.cuh", "cuzk_fp2.cuh",
           "cuzk_field.cuh")


def include_dir() -> str:
    """Return the absolute path of the folder holding the ``.cuh`` headers."""
    return str(_DIR)


@functools.lru_cache(maxsize=None)
def headers_hash() -> str:
    """Return a short hash of every header and kernel source in this folder."""
    h = hashlib.sha256()
    for p in sorted(_DIR.glob("*.cu*")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def compile_options(options: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Return NVRTC options: the include path, C++17, the header hash, then ``options``."""
    return ("-std=c++17", f"-I{include_dir()}", f"-DCUZK_FIELD_HASH=0x{headers_hash()}ULL",
            *tuple(options))


def read_source(name: str) -> str:
    """Return the text of a ``.cu`` file of this folder (e.g. ``field_kernels.cu``)."""
    return (_DIR / name).read_text()


def load_module(source: str, name_expressions=(), options=()):
    """Build (lazily, cached) a ``cupy.RawModule`` whose source may include our headers.

    ``name_expressions``: template instantiations to export, e.g.
    ``("my_kernel<cuzk::FrTraits>",)``; fetch them with ``mod.get_function(name)``.
    ``options``: extra NVRTC options (``-D...``, ``--use_fast_math`` ...).
    """
    return _load_module(source, tuple(name_expressions), tuple(options))


@functools.lru_cache(maxsize=None)
def _load_module(source: str, names: tuple[str, ...], options: tuple[str, ...]):
    from ...backend import xp
    cp = xp("gpu")
    mod = cp.RawModule(code=source, options=compile_options(options),
                       name_expressions=names or None)
    mod.compile()
    return mod
