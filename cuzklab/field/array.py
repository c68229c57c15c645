"""Batched prime-field arrays: ``Fr`` (scalar field) and ``Fp`` (base field).

An array of n elements holds ``limbs``, an (n, L) uint32 array (NumPy on the
CPU backend, CuPy on the GPU backend), little-endian limb order, each value in
Montgomery form x*2^(32L) mod m and fully reduced, so equality is bitwise and
both backends give bit-identical results. See docs/field.md.
"""

from __future__ import annotations


import numpy as np

from ..backend import check_backend, to_numpy, xp
from ..errors import FieldError
from . import _cpu
from .constants import FP, FR, FieldConstants
from .container import LimbContainer, _is_int


class InverseOfZeroError(FieldError, ZeroDivisionError):
    """Inverting a batch that holds a zero; ``index`` is the first zero's index."""

    def __init__(self, index: int, field: str = "", argument: str = "self"):
        self.index = int(index)
        super().__init__(f"{argument}[{self.index}]: inverse of zero in {field}")


def _ops(backend: str):
    if backend == "cpu":
        return _cpu
    from . import _gpu
    return _gpu




def _backend_of(arr) -> str:
    return "cpu" if isinstance(arr, np.ndarray) else "gpu"


class FieldArray(LimbContainer):
    """Base class of ``Fr`` and ``Fp``; use those."""

    FC: FieldConstants = None  # set by subclasses
    __slots__ = ("_limbs", "_backend")
    __hash__ = None  # mutable, and == is elementwise
    __array_priority__ = 1000  # so numpy scalars defer to our reflected operators

    # ---- construction ----
    def __init__(self, limbs, backend: str):
        """Wrap (n, L) uint32 Montgomery limbs without checks (internal: use the factories)."""
        self._limbs = limbs
        self._backend = backend

    @classmethod
    def _canon_to_array(cls, canon: np.ndarray, backend: str):
        """(n, L) uint32 canonical limbs on the host (< m, checked) -> array."""
        ops = _ops(backend)
        if backend == "gpu":
            canon = xp("gpu").asarray(canon)
        return cls._wrap(ops.to_mont(canon, cls.FC), backend)

    @classmethod
    def from_ints(cls, values, backend: str = "cpu"):
        """Build from an iterable of Python ints (or an integer ndarray) in [0, m)."""
        check_backend(backend)
        L, m, name = cls.FC.limbs, cls.FC.modulus, cls.FC.name
        if isinstance(values, (str, bytes, bytearray)) or _is_int(values) or values is None:
            raise TypeError(f"values: expected an iterable of ints, got {type(values).__name__}")
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 1:
            if values.dtype.kind == "i" and values.size and values.min() < 0:
                i = int(np.argmax(values < 0))
                raise FieldError(f"values[{i}]: {int(values[i])} is negative (must be in [0, {name} modulus))")
            v = values.astype(np.uint64)
            canon = np.zeros((v.shape[0], L), dtype=np.uint32)
            canon[:, 0] = (v & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            canon[:, 1] = (v >> np.uint64(32)).astype(np.uint32)
            return cls._canon_to_array(canon, backend)
        if isinstance(values, np.ndarray) and values.ndim != 1:
            raise TypeError(f"values: expected a 1-d array, got shape {values.shape}")
        try:
            vals = list(values)
        except TypeError:
            raise TypeError(f"values: expected an iterable of ints, got {type(values).__name__}") from None
        out = []
        for i, v in enumerate(vals):
            if not _is_int(v):
                raise TypeError(f"values[{i}]: expected an int, got {type(v).__name__}")
            v = int(v)
            if v < 0 or v >= m:
                raise FieldError(f"values[{i}]: {v} is not in [0, {name} modulus) "
                                 f"(modulus = {hex(m)})")
            out.append(v)
        return cls._canon_to_array(_cpu.ints_to_limbs(out, L), backend)

    @classmethod
    def from_int(cls, value: int, backend: str = "cpu"):
        """A length-1 array holding ``value``."""
        if not _is_int(value):
            raise TypeError(f"value: expected an int, got {type(value).__name__}")
        return cls.from_ints([value], backend)

    @classmethod
    def _check_limbs(cls, arr, argument: str, backend):
        if backend is None:
            backend = _backend_of(arr)
        check_backend(backend)
        mod = xp(backend)
        if not hasattr(arr, "shape") or not hasattr(arr, "dtype"):
            raise TypeError(f"{argument}: expected a numpy/cupy uint32 array, got {type(arr).__name__}")
        if arr.dtype != np.uint32:
            raise TypeError(f"{argument}: expected dtype uint32, got {arr.dtype}")
        if arr.ndim != 2 or arr.shape[1] != cls.FC.limbs:
            raise TypeError(f"{argument}: expected shape (n, {cls.FC.limbs}), got {tuple(arr.shape)}")
        if backend == "cpu":
            return np.ascontiguousarray(to_numpy(arr)), backend
        return mod.ascontiguousarray(mod.asarray(arr)), backend

    @classmethod
    def _check_below_modulus(cls, limbs, backend, argument):
        bad = _ops(backend).geq_modulus(limbs, cls.FC)
        bad_h = to_numpy(bad)
        if bad_h.any():
            i = int(np.argmax(bad_h))
            raise FieldError(f"{argument}[{i}]: value is not in [0, {cls.FC.name} modulus)")

    @classmethod
    def from_mont_limbs(cls, arr, backend: str | None = None, check: bool = True):
        """Wrap (n, L) uint32 limbs already in Montgomery form (copied to ``backend``).

        ``backend`` defaults to where ``arr`` lives. With ``check`` the values
        are verified to be < m.
        """
        limbs, backend = cls._check_limbs(arr, "arr", backend)
        if check:
            cls._check_below_modulus(limbs, backend, "arr")
        return cls._wrap(limbs, backend)

    @classmethod
    def from_canonical_limbs(cls, arr, backend: str | None = None):
        """(n, L) uint32 canonical (non-Montgomery) limbs, each < m -> array."""
        limbs, backend = cls._check_limbs(arr, "arr", backend)
        cls._check_below_modulus(limbs, backend, "arr")
        return cls._wrap(_ops(backend).to_mont(limbs, cls.FC), backend)

    @classmethod
    def zeros(cls, n: int, backend: str = "cpu"):
        cls._check_n(n)
        return cls._wrap(xp(check_backend(backend)).zeros((n, cls.FC.limbs), dtype=np.uint32), backend)

    @classmethod
    def ones(cls, n: int, backend: str = "cpu"):
        cls._check_n(n)
        one = np.array(cls.FC.mont_r_limbs, dtype=np.uint32)
        host = np.ascontiguousarray(np.broadcast_to(one, (n, cls.FC.limbs)))
        return cls._wrap(xp(check_backend(backend)).asarray(host), backend)

    @classmethod
    def random(cls, n: int, rng=None, backend: str = "cpu"):
        """n uniform elements; ``rng`` a numpy Generator or an int seed (None: fresh entropy).

        Drawn on the host, so a given seed gives the same values on both backends.
        """
        cls._check_n(n)
        check_backend(backend)
        if rng is None or _is_int(rng):
            rng = np.random.default_rng(None if rng is None else int(rng))
        elif not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng: expected a numpy.random.Generator or an int seed, got {type(rng).__name__}")
        L = cls.FC.limbs
        top_bits = cls.FC.bits - 32 * (L - 1)
        top_mask = np.uint32((1 << top_bits) - 1)
        out = np.empty((n, L), dtype=np.uint32)
        todo = np.arange(n)
        while todo.size:
            cand = rng.integers(0, 1 << 32, size=(todo.size, L), dtype=np.uint32)
            cand[:, -1] &= top_mask
            ok = ~_cpu.geq_modulus(cand, cls.FC)
            out[todo[ok]] = cand[ok]
            todo = todo[~ok]
        # a uniform value is a uniform Montgomery representative too
        return cls._wrap(xp(backend).asarray(out), backend)

    @staticmethod
    def _check_n(n):
        if not _is_int(n):
            raise TypeError(f"n: expected an int, got {type(n).__name__}")
        if n < 0:
            raise ValueError(f"n: must be >= 0, got {n}")

    # ---- bytes ----
    @classmethod
    def _bytes_to_canon(cls, data) -> np.ndarray:
        nb = cls.FC.nbytes
        if isinstance(data, np.ndarray):
            if data.dtype != np.uint8:
                raise TypeError(f"data: expected a uint8 array, got dtype {data.dtype}")
            raw = np.ascontiguousarray(data).reshape(-1)
        elif isinstance(data, (bytes, bytearray, memoryview)):
            raw = np.frombuffer(bytes(data), dtype=np.uint8)
        else:
            raise TypeError(f"data: expected bytes or a uint8 array, got {type(data).__name__}")
        if raw.size % nb:
            raise FieldError(f"data: length {raw.size} is not a multiple of {nb} bytes")
        rows = raw.reshape(-1, nb)
        if not cls._LITTLE_ENDIAN:
            rows = rows[:, ::-1]
        canon = np.ascontiguousarray(rows).view("<u4").astype(np.uint32)
        if canon.shape[1] < cls.FC.limbs:  # never for Fr/Fp; kept for safety
            raise FieldError("data: element too short")
        bad = _cpu.geq_modulus(canon, cls.FC)
        if bad.any():
            i = int(np.argmax(bad))
            raise FieldError(f"data[{i}]: bytes {bytes(raw[i*nb:(i+1)*nb]).hex()} encode a value "
                             f">= the {cls.FC.name} modulus (non-canonical)")
        return canon

    @classmethod
    def from_bytes(cls, data, backend: str = "cpu"):
        """Decode n canonical elements from ``len(data) = n * nbytes`` bytes.

        Fr: 32 bytes little-endian each; Fp: 48 bytes big-endian each (ZCash).
        """
        check_backend(backend)
        return cls._canon_to_array(cls._bytes_to_canon(data), backend)

    def to_bytes_array(self) -> np.ndarray:
        """(n, nbytes) uint8 NumPy array of the canonical encodings."""
        canon = np.ascontiguousarray(to_numpy(self.to_canonical_limbs()), dtype="<u4")
        rows = canon.view(np.uint8).reshape(-1, self.FC.nbytes)
        if not self._LITTLE_ENDIAN:
            rows = rows[:, ::-1]
        return np.ascontiguousarray(rows)

    def to_bytes(self) -> bytes:
        """Canonical encodings of all elements, concatenated."""
        return self.to_bytes_array().tobytes()

    # ---- conversions ----
    def to_canonical_limbs(self):
        """(n, L) uint32 canonical limbs (x itself, not x*R), on this backend."""
        return _ops(self._backend).from_mont(self._limbs, self.FC)

    def to_ints(self) -> list[int]:
        """The values as Python ints in [0, m)."""
        return _cpu.limbs_to_ints(to_numpy(self.to_canonical_limbs()))

    # ---- container protocol ----
    # ---- arithmetic ----
    def _desc(self) -> str:
        return f"{type(self).__name__}({self._backend})"

    def _coerce(self, other, opname: str):
        if _is_int(other):
            return type(self).from_ints([int(other) % self.FC.modulus], self._backend)
        if not isinstance(other, FieldArray) and not hasattr(other, "_is_field_array"):
            raise TypeError(f"cannot {opname} {self._desc()} and {type(other).__name__}")
        if type(other) is not type(self) or other._backend != self._backend:
            od = other._desc() if hasattr(other, "_desc") else type(other).__name__
            raise TypeError(f"cannot {opname} {self._desc()} and {od}")
        return other

    def _binary(self, other, opname: str, fn, reflected: bool = False):
        other = self._coerce(other, opname)
        n1, n2 = len(self), len(other)
        if n1 != n2 and n1 != 1 and n2 != 1:
            raise ValueError(f"cannot {opname} arrays of lengths {n1} and {n2} (lengths must match or be 1)")
        a, b = (other, self) if reflected else (self, other)
        return self._wrap(fn(a._limbs, b._limbs, self.FC), self._backend)

    def __add__(self, other):
        return self._binary(other, "add", _ops(self._backend).add)

    def __radd__(self, other):
        return self._binary(other, "add", _ops(self._backend).add, reflected=True)

    def __sub__(self, other):
        return self._binary(other, "subtract", _ops(self._backend).sub)

    def __rsub__(self, other):
        return self._binary(other, "subtract", _ops(self._backend).sub, reflected=True)

    def __mul__(self, other):
        return self._binary(other, "multiply", _ops(self._backend).mont_mul)

    def __rmul__(self, other):
        return self._binary(other, "multiply", _ops(self._backend).mont_mul, reflected=True)

    def __truediv__(self, other):
        other = self._coerce(other, "divide")
        return self * other.inverse(argument="divisor")

    def __rtruediv__(self, other):
        other = self._coerce(other, "divide")
        return other * self.inverse(argument="divisor")

    def __neg__(self):
        return self._wrap(_ops(self._backend).neg(self._limbs, self.FC), self._backend)

    def __pos__(self):
        return self

    def negate(self):
        return -self

    def square(self):
        return self._wrap(_ops(self._backend).mont_sqr(self._limbs, self.FC), self._backend)

    def double(self):
        return self + self

    def pow(self, e):
        """Every element to the power ``e`` (a Python int; negative means inverse first)."""
        if not _is_int(e):
            raise TypeError(f"e: expected an int exponent, got {type(e).__name__}")
        e = int(e)
        base = self
        if e < 0:
            base, e = self.inverse(), -e
        return self._wrap(_ops(self._backend).pow_(base._limbs, e, self.FC), self._backend)

    def __pow__(self, e):
        return self.pow(e)

    def is_zero(self):
        """Bool array (n,) on this backend."""
        return _ops(self._backend).is_zero(self._limbs)

    def inverse(self, argument: str = "self"):
        """Batched inverse (Montgomery's trick). A zero raises InverseOfZeroError naming its index."""
        z = to_numpy(self.is_zero())
        if z.any():
            raise InverseOfZeroError(int(np.argmax(z)), self.FC.name, argument)
        return self._wrap(_ops(self._backend).inverse(self._limbs, self.FC), self._backend)

    def __eq__(self, other):
        if not isinstance(other, FieldArray) and not _is_int(other):
            return NotImplemented
        other = self._coerce(other, "compare")
        if len(self) != len(other) and len(other) != 1 and len(self) != 1:
            raise ValueError(f"cannot compare arrays of lengths {len(self)} and {len(other)}")
        return (self._limbs == other._limbs).all(axis=1)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else ~r

    def equals(self, other) -> bool:
        """True iff ``other`` is the same class, on the same backend, with the same values."""
        if type(other) is not type(self) or other._backend != self._backend or len(other) != len(self):
            return False
        return bool((self._limbs == other._limbs).all())

    def __bool__(self):
        raise TypeError(f"the truth value of a {type(self).__name__} array is ambiguous; "
                        "use .equals(), .is_zero().all() or (a == b).all()")

    def __repr__(self) -> str:
        n = len(self)
        head = self[:4].to_ints() if n else []
        tail = ", ..." if n > 4 else ""
        return f"{type(self).__name__}(n={n}, backend={self._backend!r}, [{', '.join(hex(v) for v in head)}{tail}])"


class Fr(FieldArray):
    """BLS12-381 scalar field (r, 255 bits): 8 limbs, 32-byte little-endian encoding."""

    FC = FR
    _LITTLE_ENDIAN = True
    __slots__ = ()


class Fp(FieldArray):
    """BLS12-381 base field (p, 381 bits): 12 limbs, 48-byte big-endian encoding (ZCash)."""

    FC = FP
    _LITTLE_ENDIAN = False
    __slots__ = ()


def concat(arrays):
    """Concatenate field arrays (all of one class and backend)."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concat: need at least one array")
    return type(arrays[0]).concat(arrays)

