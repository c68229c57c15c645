"""Run a native function over ranges of a batch on a pool of threads.

Each range is one ctypes call; ctypes releases the GIL for the duration of
the call, so ``threads`` ranges really run at once, as cuzk's rayon and C++
thread pools do.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np


def check_threads(threads, name: str = "threads") -> int:
    """Return ``threads`` if it is an int >= 1, else raise ValueError naming ``name``."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"{name} must be an int >= 1, got {threads!r}")
    return int(threads)


def ranges(n: int, parts: int) -> list[tuple[int, int]]:
    """Return ``parts`` (or fewer, never empty) contiguous [lo, hi) ranges covering [0, n)."""
    parts = max(1, min(parts, n))
    return [(n * i // parts, n * (i + 1) // parts) for i in range(parts)] if n else []


def run_tasks(fn, tasks, threads: int, pool: ThreadPoolExecutor | None = None) -> list:
    """Return ``[fn(*t) for t in tasks]``, computed on ``threads`` threads (in order).

    ``pool``: an executor to reuse (its own size then applies), else one is
    made for this call.
    """
    tasks = list(tasks)
    if threads <= 1 or len(tasks) <= 1:
        return [fn(*t) for t in tasks]
    if pool is not None:
        return list(pool.map(lambda t: fn(*t), tasks))
    with ThreadPoolExecutor(max_workers=min(threads, len(tasks))) as own:
        return list(own.map(lambda t: fn(*t), tasks))


def chunks_for(n: int, threads: int, min_chunk: int) -> list[tuple[int, int]]:
    """Return ranges over [0, n) for ``threads`` threads: a few per thread, each >= min_chunk."""
    parts = max(1, min(4 * threads if threads > 1 else 1, n // max(1, min_chunk)))
    return ranges(n, parts)


def ptr(a: np.ndarray | None) -> int | None:
    """Return the address of a C-contiguous array's data (None for None)."""
    if a is None:
        return None
    if not a.flags["C_CONTIGUOUS"]:
        raise ValueError("native arrays must be C-contiguous")
    return a.ctypes.data
