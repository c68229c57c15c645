"""The errors cuzklab raises: one root, a subclass per kind of failure.

Argument mistakes raise ``ValueError``/``TypeError`` subclasses too, so that
callers who only know the builtins still catch them.
"""

from __future__ import annotations


class CuzklabError(Exception):
    """Root of every error cuzklab raises on purpose."""


class ConfigError(CuzklabError, ValueError):
    """A configuration key is unknown, of the wrong type or out of range."""

    def __init__(self, key: str, message: str):
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}")


class ProfileError(CuzklabError, ValueError):
    """A profile file is missing, malformed or inconsistent."""


class BackendError(CuzklabError, RuntimeError):
    """The requested array backend is not available (e.g. no GPU / no CuPy)."""


class TraceError(CuzklabError, ValueError):
    """A trace is malformed (missing columns, unknown stage, bad times)."""


class FieldError(CuzklabError, ValueError):
    """A field element is out of range or an encoding is invalid."""


class CurveError(CuzklabError, ValueError):
    """A point is not on the curve, not in the subgroup, or badly encoded."""


class SweepError(CuzklabError):
    """A sweep grid or point is invalid, or a sweep could not run."""


class DaemonError(CuzklabError):
    """Something went wrong with a real cuzk daemon process."""


class DaemonStartError(DaemonError):
    """The daemon did not start; ``reason`` says which check failed."""

    REASONS = ("exited", "no_log", "not_ready", "port_in_use", "stale_instance")

    def __init__(self, reason: str, message: str, *, exit_code: int | None = None,
                 log_tail: str = ""):
        if reason not in self.REASONS:
            raise ValueError(f"reason must be one of {self.REASONS}, got {reason!r}")
        self.reason = reason
        self.exit_code = exit_code
        self.log_tail = log_tail
        super().__init__(f"daemon start failed ({reason}): {message}")


class ExportError(CuzklabError, RuntimeError):
    """A figure or report could not be exported (e.g. no Chrome/Chromium for PNG)."""


class LogParseError(CuzklabError, ValueError):
    """A daemon log input cannot be read at all (missing file, a directory)."""


class DaemonDiedError(DaemonError):
    """A started daemon exited on its own; ``exit`` holds its code, signal and OOM verdict."""

    def __init__(self, message: str, *, exit: dict | None = None):
        self.exit = dict(exit or {})
        super().__init__(message)
