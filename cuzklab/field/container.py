"""The container behaviour shared by every limb-array type (Fr, Fp, Fp2).

A subclass stores its elements in ``_limbs`` (first axis = elements) on
``_backend`` and provides ``_coerce(value, opname)`` and ``_desc()``; this mixin
gives it unchecked wrapping (``_wrap``), length, indexing by int, slice, index
array or boolean mask, assignment, iteration and concatenation.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..backend import check_backend, to_numpy, xp


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


class LimbContainer:
    """Sequence behaviour over ``self._limbs`` for the field array types."""

    __slots__ = ()

    @classmethod
    def _wrap(cls, limbs, backend):
        """Return an instance over ``limbs`` on ``backend`` without checks."""
        obj = cls.__new__(cls)
        obj._limbs = limbs
        obj._backend = backend
        return obj

    @property
    def limbs(self):
        """The Montgomery limbs (numpy or cupy array, elements first); do not write to it."""
        return self._limbs

    @property
    def backend(self) -> str:
        """Return "cpu" or "gpu"."""
        return self._backend

    def to(self, backend: str):
        """Return this array on ``backend`` (self if already there)."""
        check_backend(backend)
        if backend == self._backend:
            return self
        if backend == "cpu":
            return self._wrap(to_numpy(self._limbs).copy(), "cpu")
        return self._wrap(xp("gpu").asarray(self._limbs), "gpu")

    def copy(self):
        """Return a copy on the same backend."""
        return self._wrap(self._limbs.copy(), self._backend)

    def __len__(self) -> int:
        return int(self._limbs.shape[0])

    def __getitem__(self, key):
        if _is_int(key):
            n = len(self)
            k = int(key)
            if not -n <= k < n:
                raise IndexError(f"index {k} out of range for {self._desc()} of length {n}")
            k %= n
            return self._wrap(self._limbs[k:k + 1].copy(), self._backend)
        if isinstance(key, tuple):
            raise TypeError(f"{type(self).__name__} indices must be an int, a slice or a 1-d "
                            f"index/mask array")
        if isinstance(key, slice):
            return self._wrap(self._limbs[key].copy(), self._backend)
        idx = self._index_array(key)
        return self._wrap(self._limbs[idx], self._backend)

    def _index_array(self, key):
        mod = xp(self._backend)
        if isinstance(key, (list, range)):
            key = np.asarray(key)
        if not hasattr(key, "dtype"):
            raise TypeError(f"{type(self).__name__} indices must be an int, a slice or a 1-d "
                            f"index/mask array, got {type(key).__name__}")
        if key.dtype.kind not in "iub" or key.ndim != 1:
            raise TypeError(f"index array must be 1-d of ints or bools, got dtype {key.dtype}, "
                            f"ndim {key.ndim}")
        if key.dtype.kind == "b" and key.shape[0] != len(self):
            raise IndexError(f"boolean mask of length {key.shape[0]} for an array of length "
                             f"{len(self)}")
        return mod.asarray(key)

    def __setitem__(self, key, value):
        value = self._coerce(value, "assign")
        if _is_int(key):
            n = len(self)
            if not -n <= int(key) < n:
                raise IndexError(f"index {key} out of range for length {n}")
            if len(value) != 1:
                raise ValueError(f"cannot assign {len(value)} elements to one index")
            self._limbs[int(key)] = value._limbs[0]
            return
        if not isinstance(key, slice):
            key = self._index_array(key)
        self._limbs[key] = value._limbs

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    @classmethod
    def concat(cls, arrays):
        """Return the concatenation of arrays of this class on one backend."""
        arrays = list(arrays)
        if not arrays:
            raise ValueError("concat: need at least one array")
        first = arrays[0]
        for i, a in enumerate(arrays):
            if type(a) is not cls:
                raise TypeError(f"arrays[{i}]: expected {cls.__name__}, got {type(a).__name__}")
            if a.backend != first.backend:
                raise TypeError(f"arrays[{i}]: backend {a.backend!r} differs from "
                                f"{first.backend!r}")
        mod = xp(first.backend)
        return cls._wrap(mod.concatenate([a._limbs for a in arrays], axis=0), first.backend)
