"""Sweep points: one set of notebook parameters, its repeat index and its stable id.

A point's id is a digest of its parameters and repeat index, so the same point
gets the same id in every run of a sweep; that is what ``--resume`` matches on.
Values injected into a notebook must be plain JSON (None, bool, int, float,
str, lists and string-keyed dicts of those): :func:`to_plain` converts NumPy
scalars and arrays and tuples, and rejects anything papermill would mangle.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import SweepError

# Hex digits of the digest used as a point id: 48 bits, so the chance of any
# collision among n points is about n**2 / 2**49 (2e-7 for 10,000 points).
ID_DIGITS = 12

# Notebook parameter the runner injects: where the notebook records its metrics.
RESULT_PARAMETER = "result_path"


class NotPlainError(SweepError, TypeError):
    """A parameter value cannot be injected into a notebook as plain JSON."""

    def __init__(self, name: str, value: Any, why: str):
        self.name = name
        self.value = value
        super().__init__(f"parameter {name!r}: {why} (got {type(value).__name__} {value!r}); "
                         f"allowed: None, bool, int, finite float, str, and lists / "
                         f"string-keyed dicts of those")


def to_plain(value: Any, name: str = "value") -> Any:
    """Return ``value`` as plain JSON types (NumPy scalars/arrays and tuples converted).

    Raises :class:`NotPlainError` for values papermill cannot inject faithfully
    (dates, sets, objects, NaN or infinite floats, non-string dict keys).
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotPlainError(name, value, "NaN and infinite floats are not plain JSON")
        return float(value)
    # NumPy scalars and arrays, without importing NumPy here.
    if type(value).__module__ == "numpy":
        if hasattr(value, "tolist"):
            return to_plain(value.tolist(), name)
    if isinstance(value, (list, tuple)):
        return [to_plain(v, f"{name}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise NotPlainError(name, value, f"dict key {k!r} is not a string")
            out[k] = to_plain(v, f"{name}.{k}")
        return out
    raise NotPlainError(name, value, "not a plain JSON value")


def point_id(parameters: dict[str, Any], repeat: int = 0) -> str:
    """Return the stable id of a point: a digest of its parameters and repeat index."""
    blob = json.dumps({"parameters": parameters, "repeat": int(repeat)}, sort_keys=True,
                      separators=(",", ":"), default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:ID_DIGITS]


@dataclass(frozen=True)
class SweepPoint:
    """One notebook run of a sweep: its parameters, repeat index and id.

    ``error`` is set when a parameter value cannot be injected (the point is
    then recorded as ``invalid`` without running).
    """

    parameters: dict[str, Any]
    repeat: int = 0
    varying: tuple[str, ...] = ()
    id: str = field(default="")
    error: str | None = None

    def __post_init__(self):
        if not self.id:
            object.__setattr__(self, "id", point_id(self.parameters, self.repeat))

    @property
    def label(self) -> str:
        """Return a short human label: the varying parameters and the repeat."""
        keys = self.varying or tuple(self.parameters)
        parts = [f"{k}={self.parameters[k]}" for k in keys if k in self.parameters]
        if self.repeat:
            parts.append(f"repeat={self.repeat}")
        return " ".join(parts) or self.id

    @classmethod
    def make(cls, parameters: dict[str, Any], repeat: int = 0,
             varying: tuple[str, ...] = ()) -> "SweepPoint":
        """Return a point with values made plain; a value that cannot be is kept as an error."""
        plain: dict[str, Any] = {}
        error = None
        for k, v in parameters.items():
            try:
                plain[k] = to_plain(v, k)
            except NotPlainError as exc:
                plain[k] = v
                error = error or str(exc)
        return cls(parameters=plain, repeat=int(repeat), varying=tuple(varying), error=error)
