"""BLS12-381 fields as batched arrays: ``Fr``, ``Fp``, ``Fp2`` (CPU and GPU).

See docs/field.md for the representation and the API contract.
"""

from ..errors import FieldError
from .array import FieldArray, Fp, Fr, InverseOfZeroError, concat
from .constants import FP, FR
from .fp2 import Fp2

__all__ = ["FieldArray", "Fr", "Fp", "Fp2", "InverseOfZeroError", "concat", "FR", "FP",
           "FieldError"]
