"""BLS12-381 G1 and G2 points: coordinates, arithmetic, checks and encodings.

* :class:`Points` — a batch of affine points (CPU or GPU), what MSMs take;
  :class:`Point` — one point as Python ints, what an MSM returns.
* :mod:`.jacobian`, :mod:`.xyzz` — batched formulas in those coordinates;
  :mod:`.reference` — the same formulas on Python ints (the slow reference).
* :mod:`.serialize` — ZCash/Filecoin compressed and uncompressed encodings.
* :func:`fixed_base_mul` — [k_i] G for many scalars and one base (setup).
* :mod:`.constants` — generators, coefficients, cofactors, encoding flags.
"""

from .affine import Point, Points

__all__ = ["Point", "Points", "fixed_base_mul"]


def __getattr__(name):
    if name == "fixed_base_mul":
        from .fixed_base import fixed_base_mul
        return fixed_base_mul
    raise AttributeError(name)
