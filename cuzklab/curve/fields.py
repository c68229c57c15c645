"""The coordinate field of each group, and the few batched helpers points need.

Points are built on ``cuzklab.field`` arrays: G1 coordinates are ``Fp``
arrays, G2 coordinates ``Fp2`` arrays. This module adds what a point formula
needs on top of that API and nothing more: an elementwise select, gathers,
and zeros/ones of the right class.
"""

from __future__ import annotations

import numpy as np

from ..backend import xp
from ..field import Fp
from . import constants as K


def check_group(group: str) -> str:
    """Return ``group`` if it is "g1" or "g2", else raise ValueError."""
    if group not in K.GROUPS:
        raise ValueError(f"group must be one of {K.GROUPS}, got {group!r}")
    return group


def field_class(group: str):
    """Return the coordinate field array class of ``group`` (Fp for G1, Fp2 for G2)."""
    if check_group(group) == "g1":
        return Fp
    from ..field import Fp2
    return Fp2


def coord_shape(group: str) -> tuple[int, ...]:
    """Return the limb shape of one coordinate: (12,) for G1, (2, 12) for G2."""
    return (12,) if check_group(group) == "g1" else (2, 12)


def zeros(group: str, n: int, backend: str):
    """Return n zeros of the coordinate field of ``group``."""
    return field_class(group).zeros(n, backend)


def ones(group: str, n: int, backend: str):
    """Return n ones (Montgomery R) of the coordinate field of ``group``."""
    return field_class(group).ones(n, backend)


def wrap(group: str, limbs, backend: str):
    """Return Montgomery ``limbs`` (trusted, fully reduced) as a coordinate array."""
    return field_class(group).from_mont_limbs(limbs, backend, check=False)


def select(mask, a, b):
    """Return elementwise ``mask ? a : b`` for field arrays of one class (length-1 broadcasts)."""
    mod = xp(a.backend)
    m = mod.asarray(mask, dtype=bool)
    m = m.reshape(m.shape + (1,) * (a.limbs.ndim - 1))
    limbs = mod.ascontiguousarray(mod.where(m, a.limbs, b.limbs))
    return type(a).from_mont_limbs(limbs, a.backend, check=False)


def take(a, idx):
    """Return ``a[idx]`` for an integer index array (NumPy or CuPy)."""
    mod = xp(a.backend)
    idx = mod.asarray(idx, dtype=np.int64)
    return type(a).from_mont_limbs(mod.ascontiguousarray(a.limbs[idx]), a.backend, check=False)


def triple(a):
    """Return 3a."""
    return a.double() + a


def is_zero(a):
    """Return the bool array (on the backend) of elements equal to zero."""
    return a.is_zero()
