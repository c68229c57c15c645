"""Run a native function over ranges of a batch on a pool of threads.

Each range is one ctypes call; ctypes releases the GIL for the duration of
the call, so ``threads`` ranges really run at once, as cuzk's rayon and C++
thread pools do. The pools are persistent: one per thread count, started on
first use and kept for the life of the process, so a short batch (prep_msm's
tens of milliseconds) does not pay for starting its threads, and concurrent
callers asking for the same count share its threads as callers of one rayon
pool do.
"""

from __future__ import annotations

import threading
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


_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(threads: int) -> ThreadPoolExecutor:
    """Return the process-wide pool of ``threads`` threads (started on first use, then kept).

    Its tasks must not wait on other tasks of the same pool (none of the
    native batches does).
    """
    threads = check_threads(threads)
    with _POOLS_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = ThreadPoolExecutor(
                max_workers=threads, thread_name_prefix=f"cuzklab-native-{threads}")
        return pool


def run_tasks(fn, tasks, threads: int, pool: ThreadPoolExecutor | None = None) -> list:
    """Return ``[fn(*t) for t in tasks]``, computed on ``threads`` threads (in order).

    ``pool``: an executor to use (its own size then applies), else the shared
    pool of ``threads`` threads (:func:`shared_pool`).
    """
    tasks = list(tasks)
    if threads <= 1 or len(tasks) <= 1:
        return [fn(*t) for t in tasks]
    pool = pool if pool is not None else shared_pool(threads)
    return list(pool.map(lambda t: fn(*t), tasks))


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
