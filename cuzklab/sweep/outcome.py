"""The status of a sweep point, and how a failed execution maps to one.

``ok``: every cell ran and the notebook recorded its metrics. ``failed``: a
cell raised (the exception's name and message are kept). ``timeout``: a cell
ran past the per-cell limit and was interrupted, or the point ran past its
whole budget and the watchdog killed it. ``crashed``: the kernel or the
process running the point died (e.g. killed for memory). ``invalid``: the
parameters were rejected: a value papermill cannot inject, or the notebook
raised cuzklab's ``ConfigError`` / ``ProfileError`` on them.
"""

from __future__ import annotations

from typing import Any

STATUSES = ("ok", "failed", "timeout", "crashed", "invalid")

# Exception names that mean "these parameters were rejected" rather than "the run broke".
INVALID_ERRORS = ("ConfigError", "ProfileError", "NotPlainError")


def error_dict(kind: str, message: str, cell_index: int | None = None) -> dict[str, Any]:
    """Return the error record of a point: exception name, message, failing cell."""
    return {"type": kind, "message": message, "cell_index": cell_index}


def error_text(error: dict[str, Any] | None) -> str:
    """Return an error record as one line: ``Name: message`` (empty when there is none)."""
    if not error:
        return ""
    kind, msg = error.get("type") or "", error.get("message") or ""
    text = f"{kind}: {msg}" if kind and msg else kind or msg
    if error.get("cell_index") is not None:
        text += f" (cell {error['cell_index']})"
    return text


def classify_cell_error(ename: str, evalue: str, cell_index: int | None,
                        timeout_s: float) -> tuple[str, dict[str, Any]]:
    """Return (status, error) for an exception a notebook cell raised."""
    if ename == "KeyboardInterrupt":
        return "timeout", error_dict(
            "CellTimeout", f"a cell ran past the {timeout_s:g} s cell timeout and was "
                           f"interrupted", cell_index)
    if ename in INVALID_ERRORS:
        return "invalid", error_dict(ename, evalue, cell_index)
    return "failed", error_dict(ename, evalue, cell_index)
