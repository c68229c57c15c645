"""Numbered trace lanes (``final.0``, ``synth.3`` ...) handed out lowest-free-first.

The model and the live executor name the lanes of concurrent work the same way;
both take a lane number here when the work starts and give it back when it ends.
"""

from __future__ import annotations

import threading


class Lanes:
    """Lane numbers handed out lowest-free-first; safe to share between threads."""

    def __init__(self):
        self._busy: list[bool] = []
        self._lock = threading.Lock()

    def take(self) -> int:
        """Return the lowest free lane number and mark it busy."""
        with self._lock:
            try:
                i = self._busy.index(False)
            except ValueError:
                i = len(self._busy)
                self._busy.append(False)
            self._busy[i] = True
            return i

    def give(self, i: int) -> None:
        """Mark lane ``i`` free."""
        with self._lock:
            self._busy[i] = False
