"""Run a native function over ranges of a batch on a pool of threads.

Two kinds of pool. A :class:`NativePool` is threads of the native library's
own (``cz_pool_new``): one ctypes call runs a whole batch on them, cut into
chunks that the threads take in turn, first the chunks of the batch queued
first, and returns when all are done; ctypes releases the GIL for that call,
and the pool's threads never take it, so a batch on the pool does not compete
for the interpreter's lock with the threads that drive the GPU, as cuzk's
rayon and C++ pools do not. The stage batches (the MatVec, prep_msm's two
passes, b_g2_msm's digits and windows) run on these. A ``ThreadPoolExecutor`` runs Python callables,
one ctypes call per range (:func:`run_tasks`): each range takes the GIL to
start and to end. Both kinds are persistent: one per thread count, started on
first use and kept for the life of the process, so a short batch (prep_msm's
tens of milliseconds) does not pay for starting its threads, and concurrent
callers asking for the same count share its threads as callers of one rayon
pool do.

``CUZKLAB_NATIVE_CPUS`` (e.g. ``0-7`` or ``0,2,4,6``) pins the pools' threads:
thread k of a pool runs on the k-th CPU of that list (cycling), so that a host
whose logical CPUs share physical cores (SMT siblings) can give a pool one
thread per core first. Unset, the threads run wherever the scheduler puts them.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
import weakref
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

#: The environment variable that pins the native pools' threads to CPUs.
CPUS_ENV = "CUZKLAB_NATIVE_CPUS"


def parse_cpus(text: str) -> list[int]:
    """Return the CPUs of a list such as ``0-3,8,10-11`` (in that order), or raise ValueError."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ValueError(f"{CPUS_ENV}: expected CPU numbers and ranges such as 0-3,8, "
                             f"got {text!r}") from None
        if a < 0 or b < a:
            raise ValueError(f"{CPUS_ENV}: bad range {part!r} in {text!r}")
        out += range(a, b + 1)
    if not out:
        raise ValueError(f"{CPUS_ENV}: no CPU in {text!r}")
    return out


def pinned_cpus() -> list[int] | None:
    """Return the CPUs ``CUZKLAB_NATIVE_CPUS`` pins the pools' threads to (None when unset)."""
    text = os.environ.get(CPUS_ENV, "").strip()
    if not text:
        return None
    cpus = parse_cpus(text)
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(cpus)
    bad = [c for c in cpus if c not in allowed]
    if bad:
        raise ValueError(f"{CPUS_ENV}: CPU {bad[0]} is not one this process may run on "
                         f"({sorted(allowed)})")
    return cpus


def _pinner(cpus: list[int]):
    """Return a thread initializer that pins each new thread to the next CPU of ``cpus``."""
    order = itertools.count()
    lock = threading.Lock()

    def pin():
        with lock:
            k = next(order)
        os.sched_setaffinity(0, {cpus[k % len(cpus)]})  # 0: the calling thread
    return pin


class NativePool:
    """A pool of ``threads`` threads of the native library, which run batches without the GIL.

    :meth:`grain` cuts a batch for it; the pooled native functions (``*_pool`` in
    ``cuzk_native.c``) take :attr:`handle`. Pinned as ``CUZKLAB_NATIVE_CPUS`` says.
    Its threads stop when the pool is shut down or collected.
    """

    def __init__(self, threads: int, name: str = "native"):
        from .build import library
        self.threads = check_threads(threads)
        self.name = name
        cpus = pinned_cpus() or []
        arr = (ctypes.c_int32 * len(cpus))(*cpus) if cpus else None
        lib = library()
        handle = lib.cz_pool_new(self.threads, arr, len(cpus))
        if not handle:
            raise RuntimeError(f"could not start a native pool of {self.threads} threads")
        self._handle = handle
        self._free = weakref.finalize(self, lib.cz_pool_free, handle)
        _ALL.add(self)

    @property
    def handle(self) -> int:
        """Return the native pool's address, for the pooled functions (checked: never NULL)."""
        if self._handle is None:
            raise RuntimeError(f"native pool {self.name!r} was started by the parent of this "
                               "forked process and has no threads here: start a new one")
        if not self._free.alive:
            raise RuntimeError(f"native pool {self.name!r} was shut down")
        return self._handle

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Stop the pool's threads (after the batches in progress); a no-op the second time."""
        self._free()

    def _forget(self) -> None:
        """In a forked child: the threads stayed in the parent; never run on or free this pool."""
        self._free.detach()
        self._handle = None

    def widths(self, reset: bool = False) -> np.ndarray:
        """Return the pool's width profile: seconds with k of its threads inside a chunk,
        for k = 0..threads, since it started or since the last reset (``reset``: start
        again from zero after reading). Over one batch alone it says how much of the
        batch's time ran on fewer threads than the pool has (its last round of chunks)."""
        from .build import library
        out = np.zeros(self.threads + 1, dtype=np.float64)
        library().cz_pool_widths(self.handle, out.ctypes.data, int(bool(reset)))
        return out

    def grain(self, n: int, min_chunk: int) -> int:
        """Return the chunk size that cuts n items into a few chunks per thread, each >= min_chunk."""
        return max(1, -(-n // chunk_count(n, self.threads, min_chunk)))


_NATIVE: dict[int, NativePool] = {}
_ALL: "weakref.WeakSet[NativePool]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # a forked process has none of the parent's pool threads: it starts pools of its own
    for pool in list(_ALL):
        pool._forget()
    _NATIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _kept(table: dict, threads: int, make):
    """Return ``table[threads]``, made by ``make(threads, name)`` on first use and kept."""
    threads = check_threads(threads)
    with _POOLS_LOCK:
        pool = table.get(threads)
        if pool is None:
            pool = table[threads] = make(threads, f"cuzklab-native-{threads}")
        return pool


def native_pool(threads: int) -> NativePool:
    """Return the process-wide :class:`NativePool` of ``threads`` threads (started on first use)."""
    return _kept(_NATIVE, threads, NativePool)


def shared_pool(threads: int) -> ThreadPoolExecutor:
    """Return the process-wide pool of ``threads`` threads (started on first use, then kept).

    Its tasks must not wait on other tasks of the same pool (none of the
    native batches does).
    """
    return _kept(_POOLS, threads, new_pool)


def new_pool(threads: int, name: str) -> ThreadPoolExecutor:
    """Return a new pool of ``threads`` native-work threads, pinned as ``CUZKLAB_NATIVE_CPUS`` says."""
    cpus = pinned_cpus()
    return ThreadPoolExecutor(max_workers=check_threads(threads), thread_name_prefix=name,
                              initializer=_pinner(cpus) if cpus else None)


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


def chunk_count(n: int, threads: int, min_chunk: int) -> int:
    """Return how many chunks to cut n items into for ``threads`` threads: a few per thread,
    each >= min_chunk (one on one thread)."""
    return max(1, min(4 * threads if threads > 1 else 1, n // max(1, min_chunk)))


def chunks_for(n: int, threads: int, min_chunk: int) -> list[tuple[int, int]]:
    """Return ranges over [0, n) for ``threads`` threads: a few per thread, each >= min_chunk."""
    return ranges(n, chunk_count(n, threads, min_chunk))


def ptr(a: np.ndarray | None) -> int | None:
    """Return the address of a C-contiguous array's data (None for None)."""
    if a is None:
        return None
    if not a.flags["C_CONTIGUOUS"]:
        raise ValueError("native arrays must be C-contiguous")
    return a.ctypes.data
