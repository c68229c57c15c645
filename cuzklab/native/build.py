"""Build and load the native CPU library (``cuzk_native.c``) on first use.

The C source is compiled with the system C compiler (``$CC``, else ``cc`` or
``gcc``; ``-O2``), the field constants prepended as ``#define`` lines derived
from :mod:`cuzklab.field.constants`. The shared object is cached in a per-user
directory (``$CUZKLAB_NATIVE_CACHE``, else ``$XDG_CACHE_HOME/cuzklab/native``,
else ``~/.cache/cuzklab/native``) under a hash of the full source, the
compiler, its flags and the machine, and installed atomically (a build in
another process never exposes a half-written file). It is loaded with ctypes,
whose foreign calls release the GIL, so pool threads run it in parallel.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..atomic import atomic_path
from ..errors import CuzklabError
from ..field.constants import FP, FR

SOURCE = Path(__file__).with_name("cuzk_native.c")
#: Flags: optimized, position independent; no -march=native, so a cached
#: library is valid on any x86-64 / aarch64 host of the same kind. -O2, not
#: -O3: GCC 12's -O3 vectorizes the limb loops of the Fp2 product into code
#: 1.3x slower than -O2's; GCC 13's -O3 is 7 % faster for the G2 MSM
#: (benchmarks/bench_native_flags.py; docs/native.md has the figures).
CFLAGS = ("-O2", "-fPIC", "-shared", "-std=c11", "-fno-strict-aliasing", "-pthread")

_P = ctypes.c_void_p
_I64 = ctypes.c_int64
_I32 = ctypes.c_int
_U32 = ctypes.c_uint32
_U64 = ctypes.c_uint64

#: Signatures of the exported functions (argument types, return type).
SIGNATURES = {
    "g2_digits": ([_P, _I64, _I64, _I64, _I32, _I32, _P], None),
    "g2_window": ([_P, _P, _P, _P, _I64, _I32, _I64, _I64, _P], None),
    "g2_combine": ([_P, _I32, _I32, _I32, _P], None),
    "g1_combine": ([_P, _I32, _I32, _P], None),
    "fr_classify": ([_P, _I64, _P, _I64, _I64, _I32, _P, _P, _P], None),
    "fr_gather": ([_P, _I64, _P, _I64, _I64, _P, _I32, _P, _P, _P], None),
    "fr_split_offsets": ([_P, _I64, _I32, _P, _P, _P], None),
    "fr_matvec": ([_I32, _P, _P, _P, _I64, _I64, _I64, _P, _I64, _P, _P], None),
    "witness_eval": ([_P, _P, _P, _I64, _I64, _P, _I64, _P, _P, _P, _P, _U32], _U64),
    "fr_mul_batch": ([_P, _P, _I64, _I64, _P], None),
    "fp2_mul_batch": ([_P, _P, _I64, _I64, _P], None),
    "fr_chain": ([_P, _I64], _U64),
    "cz_pool_new": ([_I32, _P, _I32], _P),
    "cz_pool_free": ([_P], None),
    "cz_pool_widths": ([_P, _P, _I32], None),
    "fr_matvec_pool": ([_P, _I64, _I32, _P, _P, _P, _I64, _P, _I64, _P, _P], None),
    "g2_digits_pool": ([_P, _I64, _P, _I64, _I32, _I32, _P], None),
    "g2_windows_pool": ([_P, _P, _P, _P, _P, _I64, _I32, _I32, _P, _I32, _P], None),
    "fr_classify_pool": ([_P, _I64, _P, _I64, _P, _I64, _I32, _P, _P, _P], None),
    "fr_gather_pool": ([_P, _I64, _P, _I64, _P, _I64, _P, _I32, _P, _P, _I64, _P], None),
}


class NativeBuildError(CuzklabError, RuntimeError):
    """The native CPU library could not be built; ``compiler`` names what was tried."""

    def __init__(self, message: str, *, compiler: str | None = None, log: str = ""):
        self.compiler = compiler
        self.log = log
        super().__init__(message)


def _limb_defines(name: str, value: int, n: int) -> list[str]:
    return [f"#define {name}{i} 0x{(value >> (64 * i)) & (2**64 - 1):016x}ULL" for i in range(n)]


def constants_header() -> str:
    """Return the ``#define`` lines of the field constants (64-bit limbs, Montgomery radix 2^(64 N))."""
    lines = ["/* generated from cuzklab.field.constants */"]
    for tag, fc, n in (("FR", FR, 4), ("FP", FP, 6)):
        lines += _limb_defines(f"{tag}_P", fc.modulus, n)
        lines += _limb_defines(f"{tag}_ONE", fc.mont_r, n)
        inv = (-pow(fc.modulus, -1, 2**64)) % 2**64
        lines.append(f"#define {tag}_INV 0x{inv:016x}ULL")
    return "\n".join(lines) + "\n"


def full_source() -> str:
    """Return the text that is compiled: the constants header, then cuzk_native.c."""
    return constants_header() + SOURCE.read_text()


def find_compiler() -> str:
    """Return the C compiler to use, or raise NativeBuildError saying how to get one."""
    cand = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for c in cand:
        path = shutil.which(c)
        if path:
            return path
    raise NativeBuildError(
        f"no C compiler found (tried {', '.join(cand)}; set CC to choose one). The native "
        "CPU stages need one: install gcc (Debian/Ubuntu: apt-get install gcc; macOS: "
        "xcode-select --install), or run the stages with their NumPy twins (native=False).",
        compiler=None)


def cache_dir() -> Path:
    """Return the per-user directory where built libraries are kept."""
    env = os.environ.get("CUZKLAB_NATIVE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cuzklab" / "native"


def _compiler_id(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0] if out.stdout else cc
    except (OSError, subprocess.SubprocessError):
        return cc


def library_path(cc: str | None = None) -> Path:
    """Return where the library for this source, compiler and machine is (or will be) cached."""
    cc = cc or find_compiler()
    key = "\n".join([full_source(), _compiler_id(cc), " ".join(CFLAGS), platform.machine(),
                     sys.platform])
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return cache_dir() / f"cuzk_native-{digest}.so"


def build(cc: str | None = None) -> Path:
    """Return the path of the built library, compiling it first if it is not cached."""
    cc = cc or find_compiler()
    out = library_path(cc)
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(prefix="cuzklab-native-") as tmp:
        src = Path(tmp) / "cuzk_native.c"
        src.write_text(full_source())
        with atomic_path(out) as dst:
            cmd = [cc, *CFLAGS, "-o", str(dst), str(src)]
            try:
                res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.SubprocessError) as exc:
                raise NativeBuildError(f"running the C compiler {cc} failed: {exc}",
                                       compiler=cc) from exc
            if res.returncode != 0:
                raise NativeBuildError(
                    f"the C compiler {cc} failed to build the native CPU stages "
                    f"(exit {res.returncode}): {res.stderr.strip()[:2000]}",
                    compiler=cc, log=res.stderr)
    return out


@functools.lru_cache(maxsize=None)
def library() -> ctypes.CDLL:
    """Return the loaded native library (built on first use), with argument types set."""
    lib = ctypes.CDLL(str(build()))
    for name, (args, res) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res
    return lib


def available() -> bool:
    """Return True when the native library is built or can be built here."""
    try:
        library()
    except NativeBuildError:
        return False
    return True
