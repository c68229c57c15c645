"""BLS12-381 G1 and G2 points: coordinates, arithmetic, checks and encodings.

* :class:`Points` — a batch of affine points (CPU or GPU), what MSMs take;
  :class:`Point` — one point as Python ints, what an MSM returns.
* :mod:`.jacobian`, :mod:`.xyzz` — batched formulas in those coordinates;
  :mod:`.reference` — the same formulas on Python ints (the slow reference).
* :mod:`.serialize` — ZCash/Filecoin compressed and uncompressed encodings.
* :mod:`.fields` — the coordinate field of each group and batched selects;
  ``cuda/cuzk_ec.cuh`` — the same formulas as CUDA device code.
* :mod:`.constants` — generators, coefficients, cofactors, encoding flags.
"""

from ..errors import CurveError, FieldError
from .affine import Point, Points

__all__ = ["Point", "Points", "CurveError", "FieldError"]
