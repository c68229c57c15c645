"""Fp2 = Fp[u]/(u^2 + 1) as batched arrays (limbs of shape (n, 2, 12)).

Element c0 + c1*u; ``limbs[:, 0]`` is c0 and ``limbs[:, 1]`` is c1, both Fp in
Montgomery form, fully reduced. Bytes: 96 per element, c1 then c0, each 48-byte
big-endian (the ZCash order for G2 coordinates). On the GPU, multiplication,
squaring, powers, conjugation and the non-residue product run the device
functions of cuda/cuzk_fp2.cuh; on the CPU they are composed from Fp operations.
"""

from __future__ import annotations

import numpy as np

from ..backend import check_backend, to_numpy, xp
from ..errors import FieldError
from . import _cpu
from .array import Fp, InverseOfZeroError
from .container import LimbContainer, _is_int
from .constants import FP

_L = FP.limbs


def _ops(backend):
    if backend == "cpu":
        return _cpu
    from . import _gpu
    return _gpu


class Fp2(LimbContainer):
    """Batched Fp2 elements c0 + c1*u with u^2 = -1."""

    __slots__ = ("_limbs", "_backend")
    __hash__ = None
    __array_priority__ = 1000
    FC = FP

    # ---- construction ----
    @classmethod
    def from_fp(cls, c0: Fp, c1: Fp):
        """Build from two Fp arrays of one length and backend."""
        for name, c in (("c0", c0), ("c1", c1)):
            if type(c) is not Fp:
                raise TypeError(f"{name}: expected Fp, got {type(c).__name__}")
        if c0.backend != c1.backend:
            raise TypeError(f"c0 is on {c0.backend!r} but c1 on {c1.backend!r}")
        if len(c0) != len(c1):
            raise ValueError(f"c0 and c1 lengths differ: {len(c0)} != {len(c1)}")
        mod = xp(c0.backend)
        return cls._wrap(mod.ascontiguousarray(mod.stack([c0.limbs, c1.limbs], axis=1)), c0.backend)

    @classmethod
    def from_ints(cls, values, backend: str = "cpu"):
        """From an iterable of (c0, c1) pairs of ints in [0, p)."""
        check_backend(backend)
        if isinstance(values, (str, bytes)) or _is_int(values) or values is None:
            raise TypeError(f"values: expected an iterable of (c0, c1) pairs, got {type(values).__name__}")
        flat = []
        for i, v in enumerate(values):
            if not isinstance(v, (tuple, list)) or len(v) != 2:
                raise TypeError(f"values[{i}]: expected a (c0, c1) pair, got {v!r:.60}")
            for j, c in enumerate(v):
                if not _is_int(c):
                    raise TypeError(f"values[{i}][{j}]: expected an int, got {type(c).__name__}")
                if not 0 <= int(c) < FP.modulus:
                    raise FieldError(f"values[{i}][{j}]: {int(c)} is not in [0, Fp modulus)")
                flat.append(int(c))
        fp = Fp.from_ints(flat, backend)
        return cls._wrap(fp.limbs.reshape(-1, 2, _L), backend)

    @classmethod
    def from_mont_limbs(cls, arr, backend: str | None = None, check: bool = True):
        """Wrap (n, 2, 12) uint32 Montgomery limbs."""
        if not hasattr(arr, "shape") or arr.ndim != 3 or arr.shape[1:] != (2, _L):
            raise TypeError(f"arr: expected shape (n, 2, {_L}), got {getattr(arr, 'shape', type(arr).__name__)}")
        fp = Fp.from_mont_limbs(arr.reshape(-1, _L), backend, check)
        return cls._wrap(fp.limbs.reshape(-1, 2, _L), fp.backend)

    @classmethod
    def zeros(cls, n: int, backend: str = "cpu"):
        return cls._wrap(Fp.zeros(2 * n if _is_int(n) and n >= 0 else n, backend).limbs.reshape(-1, 2, _L), backend)

    @classmethod
    def ones(cls, n: int, backend: str = "cpu"):
        z = cls.zeros(n, backend)
        z._limbs[:, 0, :] = xp(backend).asarray(np.array(FP.mont_r_limbs, dtype=np.uint32))
        return z

    @classmethod
    def random(cls, n: int, rng=None, backend: str = "cpu"):
        Fp._check_n(n)
        return cls._wrap(Fp.random(2 * n, rng, backend).limbs.reshape(-1, 2, _L), backend)

    @classmethod
    def from_bytes(cls, data, backend: str = "cpu"):
        """Decode 96-byte elements: c1 then c0, each 48-byte big-endian."""
        check_backend(backend)
        if isinstance(data, np.ndarray):
            if data.dtype != np.uint8:
                raise TypeError(f"data: expected a uint8 array, got dtype {data.dtype}")
            raw = np.ascontiguousarray(data).reshape(-1)
        elif isinstance(data, (bytes, bytearray, memoryview)):
            raw = np.frombuffer(bytes(data), dtype=np.uint8)
        else:
            raise TypeError(f"data: expected bytes or a uint8 array, got {type(data).__name__}")
        if raw.size % 96:
            raise FieldError(f"data: length {raw.size} is not a multiple of 96 bytes")
        rows = raw.reshape(-1, 2, 48)[:, ::-1, :]  # -> c0, c1
        try:
            fp = Fp.from_bytes(np.ascontiguousarray(rows).reshape(-1), backend)
        except FieldError as exc:
            raise FieldError(f"data: {exc} (Fp coefficient index: element*2 + (0 for c0, 1 for c1))") from None
        return cls._wrap(fp.limbs.reshape(-1, 2, _L), backend)

    # ---- views and conversions ----
    @property
    def c0(self) -> Fp:
        return Fp._wrap(self._limbs[:, 0, :].copy(), self._backend)

    @property
    def c1(self) -> Fp:
        return Fp._wrap(self._limbs[:, 1, :].copy(), self._backend)

    def _flat(self) -> Fp:
        return Fp._wrap(self._limbs.reshape(-1, _L), self._backend)

    def to_ints(self) -> list[tuple[int, int]]:
        flat = self._flat().to_ints()
        return list(zip(flat[0::2], flat[1::2]))

    def to_bytes_array(self) -> np.ndarray:
        rows = self._flat().to_bytes_array().reshape(-1, 2, 48)[:, ::-1, :]
        return np.ascontiguousarray(rows).reshape(-1, 96)

    def to_bytes(self) -> bytes:
        return self.to_bytes_array().tobytes()

    # ---- arithmetic ----
    def _desc(self):
        return f"Fp2({self._backend})"

    def _coerce(self, other, opname):
        if _is_int(other):
            v = int(other) % FP.modulus
            return Fp2.from_ints([(v, 0)], self._backend)
        if type(other) is not Fp2 or other._backend != self._backend:
            od = other._desc() if hasattr(other, "_desc") else type(other).__name__
            raise TypeError(f"cannot {opname} {self._desc()} and {od}")
        return other

    def _pair(self, other, opname, reflected=False):
        other = self._coerce(other, opname)
        n1, n2 = len(self), len(other)
        if n1 != n2 and n1 != 1 and n2 != 1:
            raise ValueError(f"cannot {opname} arrays of lengths {n1} and {n2} (lengths must match or be 1)")
        n = 0 if min(n1, n2) == 0 else max(n1, n2)
        mod = xp(self._backend)
        a, b = (other, self) if reflected else (self, other)
        return (mod.ascontiguousarray(mod.broadcast_to(a._limbs, (n, 2, _L))),
                mod.ascontiguousarray(mod.broadcast_to(b._limbs, (n, 2, _L))))

    def _lin(self, other, opname, fn, reflected=False):
        a, b = self._pair(other, opname, reflected)
        out = fn(a.reshape(-1, _L), b.reshape(-1, _L), FP)
        return self._wrap(out.reshape(-1, 2, _L), self._backend)

    def __add__(self, other):
        return self._lin(other, "add", _ops(self._backend).add)

    def __radd__(self, other):
        return self._lin(other, "add", _ops(self._backend).add, True)

    def __sub__(self, other):
        return self._lin(other, "subtract", _ops(self._backend).sub)

    def __rsub__(self, other):
        return self._lin(other, "subtract", _ops(self._backend).sub, True)

    def __neg__(self):
        return self._wrap(_ops(self._backend).neg(self._limbs.reshape(-1, _L), FP).reshape(-1, 2, _L),
                          self._backend)

    def negate(self):
        return -self

    def double(self):
        return self + self

    def __mul__(self, other):
        if isinstance(other, Fp) and other.backend == self._backend:
            return self.mul_by_fp(other)
        a, b = self._pair(other, "multiply")
        return self._wrap(_mul(a, b, self._backend), self._backend)

    def __rmul__(self, other):
        if isinstance(other, Fp) and other.backend == self._backend:
            return self.mul_by_fp(other)
        a, b = self._pair(other, "multiply", True)
        return self._wrap(_mul(a, b, self._backend), self._backend)

    def mul_by_fp(self, other: Fp):
        """(c0 + c1 u) * f for an Fp array f (same backend; length 1 broadcasts)."""
        if type(other) is not Fp or other.backend != self._backend:
            raise TypeError(f"cannot multiply {self._desc()} by {getattr(other, '_desc', lambda: type(other).__name__)()}")
        ops = _ops(self._backend)
        c0 = ops.mont_mul(self._limbs[:, 0, :], other.limbs, FP)
        c1 = ops.mont_mul(self._limbs[:, 1, :], other.limbs, FP)
        return Fp2.from_fp(Fp._wrap(c0, self._backend), Fp._wrap(c1, self._backend))

    def square(self):
        if self._backend == "gpu":
            from . import _gpu
            return self._wrap(_gpu.fp2_sqr(self._limbs), "gpu")
        a0, a1 = self._limbs[:, 0, :], self._limbs[:, 1, :]
        t0 = _cpu.mont_mul(_cpu.add(a0, a1, FP), _cpu.sub(a0, a1, FP), FP)
        t1 = _cpu.mont_mul(a0, a1, FP)
        return self._wrap(np.stack([t0, _cpu.add(t1, t1, FP)], axis=1), "cpu")

    def conjugate(self):
        if self._backend == "gpu":
            from . import _gpu
            return self._wrap(_gpu.fp2_conj(self._limbs), "gpu")
        return self._wrap(np.stack([self._limbs[:, 0, :], _cpu.neg(self._limbs[:, 1, :], FP)], axis=1), "cpu")

    def mul_by_nonresidue(self):
        """Multiply by 1 + u (the Fp6 non-residue)."""
        if self._backend == "gpu":
            from . import _gpu
            return self._wrap(_gpu.fp2_mul_by_nonresidue(self._limbs), "gpu")
        a0, a1 = self._limbs[:, 0, :], self._limbs[:, 1, :]
        return self._wrap(np.stack([_cpu.sub(a0, a1, FP), _cpu.add(a0, a1, FP)], axis=1), "cpu")

    def norm(self) -> Fp:
        """c0^2 + c1^2 (an Fp array)."""
        ops = _ops(self._backend)
        a0, a1 = self._limbs[:, 0, :], self._limbs[:, 1, :]
        return Fp._wrap(ops.add(ops.mont_sqr(a0, FP), ops.mont_sqr(a1, FP), FP), self._backend)

    def is_zero(self):
        return ~self._limbs.reshape(-1, 2 * _L).any(axis=1)

    def inverse(self, argument: str = "self"):
        """Batched inverse: conj / norm with one batched Fp inverse. Zero -> InverseOfZeroError."""
        z = to_numpy(self.is_zero())
        if z.any():
            raise InverseOfZeroError(int(np.argmax(z)), "Fp2", argument)
        ninv = self.norm().inverse()
        return self.conjugate().mul_by_fp(ninv)

    def __truediv__(self, other):
        other = self._coerce(other, "divide")
        return self * other.inverse(argument="divisor")

    def pow(self, e):
        if not _is_int(e):
            raise TypeError(f"e: expected an int exponent, got {type(e).__name__}")
        e = int(e)
        base = self
        if e < 0:
            base, e = self.inverse(), -e
        if self._backend == "gpu":
            from . import _gpu
            return self._wrap(_gpu.fp2_pow(base._limbs, e), "gpu")
        r = Fp2.ones(len(self), "cpu")
        if e == 0:
            return r
        r = base.copy()
        for bit in bin(e)[3:]:
            r = r.square()
            if bit == "1":
                r = r * base
        return r

    def __pow__(self, e):
        return self.pow(e)

    def __eq__(self, other):
        if not isinstance(other, Fp2) and not _is_int(other):
            return NotImplemented
        other = self._coerce(other, "compare")
        n1, n2 = len(self), len(other)
        if n1 != n2 and 1 not in (n1, n2):
            raise ValueError(f"cannot compare arrays of lengths {n1} and {n2}")
        return (self._limbs == other._limbs).all(axis=(1, 2))

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else ~r

    def equals(self, other) -> bool:
        if type(other) is not Fp2 or other._backend != self._backend or len(other) != len(self):
            return False
        return bool((self._limbs == other._limbs).all())

    def __bool__(self):
        raise TypeError("the truth value of an Fp2 array is ambiguous; use .equals() or (a == b).all()")

    def __repr__(self):
        head = self[:2].to_ints() if len(self) else []
        return f"Fp2(n={len(self)}, backend={self._backend!r}, {head}{', ...' if len(self) > 2 else ''})"


def _mul(a, b, backend):
    """Karatsuba product of (n, 2, 12) limb arrays of equal length."""
    if backend == "gpu":
        from . import _gpu
        return _gpu.fp2_mul(a, b)
    a0, a1, b0, b1 = a[:, 0, :], a[:, 1, :], b[:, 0, :], b[:, 1, :]
    t0 = _cpu.mont_mul(a0, b0, FP)
    t1 = _cpu.mont_mul(a1, b1, FP)
    t2 = _cpu.mont_mul(_cpu.add(a0, a1, FP), _cpu.add(b0, b1, FP), FP)
    c0 = _cpu.sub(t0, t1, FP)
    c1 = _cpu.sub(_cpu.sub(t2, t0, FP), t1, FP)
    return np.stack([c0, c1], axis=1)
