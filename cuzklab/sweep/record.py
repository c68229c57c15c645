"""What a sweep notebook calls to report back: :func:`record` and :func:`artifact_path`.

An executed notebook hands its metrics to the sweep by writing a JSON file at
the path the runner injects as the ``result_path`` parameter (no scrapbook):
its last cell calls ``cuzklab.sweep.record(result_path, summary)``. Nested
dicts are flattened to dotted keys (``stage_s.synth``), so every metric is a
column of the results table. Run interactively (``result_path = ""``) the
call only returns the flat dict.

This module is imported inside notebook kernels: it stays cheap (no papermill,
no pandas).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..atomic import write_text

# Suffix of the file the runner asks a notebook to write its metrics to.
RESULT_SUFFIX = ".result.json"


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Return ``data`` with nested mappings flattened to dotted keys and values made JSON-able.

    NumPy scalars become Python numbers, NaN and infinities become None, tuples
    become lists, other objects their ``str()``.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"summary must be a mapping of metric names to values, "
                        f"got {type(data).__name__}")
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, prefix=f"{name}."))
        else:
            out[name] = _jsonable(value)
    return out


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def record(result_path: str | Path | None, summary: Mapping[str, Any]) -> dict[str, Any]:
    """Return the flattened ``summary``, written atomically as JSON to ``result_path`` if set."""
    flat = flatten(summary)
    if result_path:
        write_text(result_path, json.dumps(flat, indent=1, sort_keys=True, allow_nan=False))
    return flat


def artifact_path(result_path: str | Path | None, suffix: str) -> Path | None:
    """Return where a notebook should save an extra file of its point (e.g. ``"trace.parquet"``).

    The file sits beside the point's executed notebook as ``<point>.<suffix>``
    and is kept with it. Returns None when run outside a sweep (no result path).
    """
    if not result_path:
        return None
    if not suffix or "/" in suffix or "\\" in suffix or suffix.startswith("."):
        raise ValueError(f"suffix must be a file-name ending such as 'trace.parquet', "
                         f"got {suffix!r}")
    p = Path(result_path)
    stem = p.name[:-len(RESULT_SUFFIX)] if p.name.endswith(RESULT_SUFFIX) else p.stem
    return p.with_name(f"{stem}.{suffix}")


def read_result(result_path: str | Path) -> dict[str, Any] | None:
    """Return the metrics a notebook recorded, or None if it recorded none."""
    p = Path(result_path)
    if not p.is_file():
        return None
    return json.loads(p.read_text(encoding="utf-8"))
