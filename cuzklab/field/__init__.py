"""BLS12-381 fields as batched arrays: ``Fr``, ``Fp``, ``Fp2`` (CPU and GPU).

See docs/field.md for the representation and the API contract.
"""

from .array import FieldArray, Fp, Fr, InverseOfZeroError, concat
from .constants import FP, FR

__all__ = ["FieldArray", "Fr", "Fp", "Fp2", "InverseOfZeroError", "concat", "FR", "FP"]


def __getattr__(name):
    if name == "Fp2":
        from .fp2 import Fp2
        return Fp2
    raise AttributeError(name)
