"""Debouncing: run a callback once a burst of widget changes has settled.

A slider dragged with the keyboard fires one change per step; the explorer
should simulate once, for the value the user stopped at. Inside a Jupyter
kernel the call is scheduled on the kernel's event loop (so widgets are
updated from the thread that owns them); elsewhere a timer thread is used.
With ``wait_s=0`` the callback runs at once, synchronously, which is what
tests want: setting ``slider.value`` then runs the whole update before the
next line.

With ``leading=True`` (the explorer's choice) a trigger after a quiet
``wait_s`` runs the callback at once, and only the triggers that follow
within ``wait_s`` are coalesced into one trailing call: a single change
(a dropdown) costs no waiting, a burst still costs two updates, not one per
step.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable


class Debouncer:
    """Call ``fn`` ``wait_s`` seconds after the last of a burst of triggers."""

    def __init__(self, fn: Callable[[], object], wait_s: float = 0.25, *, leading: bool = False):
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        if not isinstance(wait_s, (int, float)) or isinstance(wait_s, bool) or wait_s < 0:
            raise ValueError(f"wait_s must be a number of seconds >= 0, got {wait_s!r}")
        self.fn = fn
        self.wait_s = float(wait_s)
        self.leading = bool(leading)
        self._last = -float("inf")   # monotonic time of the last trigger
        self._handle = None
        self._lock = threading.Lock()
        self.calls = 0  # times fn actually ran

    def __call__(self, *_args, **_kwargs) -> None:
        """Trigger: run ``fn`` now (wait_s=0) or after the burst settles."""
        if self.wait_s == 0:
            self._run()
            return
        now = time.monotonic()
        with self._lock:
            quiet = now - self._last >= self.wait_s and self._handle is None
            self._last = now
        if self.leading and quiet:
            self._run()
            with self._lock:
                self._last = time.monotonic()   # the burst's window starts after the run
            return
        with self._lock:
            self._cancel_locked()
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                self._handle = loop.call_later(self.wait_s, self._run)
            else:
                timer = threading.Timer(self.wait_s, self._run)
                timer.daemon = True
                self._handle = timer
                timer.start()

    @property
    def pending(self) -> bool:
        """Return True while a call is scheduled and has not run yet."""
        return self._handle is not None

    def flush(self) -> None:
        """Run a pending call now (no-op when none is pending)."""
        with self._lock:
            had = self._handle is not None
            self._cancel_locked()
        if had:
            self._run()

    def cancel(self) -> None:
        """Drop a pending call."""
        with self._lock:
            self._cancel_locked()

    def _cancel_locked(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _run(self) -> None:
        with self._lock:
            self._handle = None
        self.calls += 1
        self.fn()
