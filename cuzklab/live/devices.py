"""The devices of a live run: GPUs, or CPU stand-ins that take their place.

A :class:`Device` is what cuzk keeps per GPU: the per-GPU (compute) mutex
that serializes CUDA regions, the memory mutex of ``two_lock``, its copy of
the proving key and the device buffers that a, b and c are uploaded into.
On the ``gpu`` backend it is a CUDA device; each GPU worker gets its own
CUDA stream, and synthesis writes a, b and c into a pinned host buffer, so the
upload is one DMA timed with CUDA events. On the ``cpu`` backend a device is a stand-in:
the same mutexes and buffers in host memory, the kernels run by the NumPy
twins, so the multi-GPU code paths run anywhere.
"""

from __future__ import annotations

import contextlib
import threading
import time

import numpy as np

#: Limbs of one Fr element (8 x 32 bits).
FR_LIMBS = 8


class Buffers:
    """Device buffers for a, b, c of one partition: three (n, 8) uint32 arrays on a device."""

    def __init__(self, device: "Device", n: int):
        mod = device.xp
        with device.context():
            self.arrays = [mod.empty((n, FR_LIMBS), dtype=np.uint32) for _ in range(3)]
        self.nbytes = sum(int(a.nbytes) for a in self.arrays)


class PinnedPool:
    """Host buffers that synthesis writes a, b, c into: pinned memory, reused.

    As in cuzk's ``PinnedPool``: a synthesis checks a buffer out when it starts
    (pinning a new one when none is free, which is how the pool grows), its
    MatVec writes a, b and c straight into it, the upload is one DMA from it,
    and the buffer goes back to the pool once the upload is done. Buffers are
    never freed during a run. Portable pinned memory, so any GPU of the run can
    read it. On CPU stand-ins there is nothing to pin: ``checkout`` returns None
    and the synthesis allocates its own arrays.
    """

    def __init__(self, backend: str, n: int, alloc=None):
        self.backend = backend
        self.n = n
        # alloc(nbytes) -> a writable buffer (the default on a GPU: portable pinned memory)
        self._alloc = alloc if alloc is not None else (_pin if backend == "gpu" else None)
        self._free: list = []
        self._keep: list = []
        self._lock = threading.Lock()
        self.allocated_bytes = 0
        self.pins = 0          # buffers pinned so far
        self.pin_s = 0.0       # seconds spent pinning them

    def checkout(self):
        """Return a free buffer ([a, b, c] as (n, 8) uint32 views), pinning one if none is free.

        None on CPU stand-ins.
        """
        if self._alloc is None:
            return None
        with self._lock:
            if self._free:
                return self._free.pop()
        return self._allocate()

    def fill(self, count: int) -> int:
        """Pin buffers until the pool holds ``count``; return how many it holds (0 on a stand-in).

        A long-running daemon's pool is warm: pinning ahead, before a measured
        run starts, makes a short run measure that, not the pool's growth.
        """
        if self._alloc is None:
            return 0
        while self.pins < count:
            buf = self._allocate()
            with self._lock:
                self._free.append(buf)
        return self.pins

    def give(self, host) -> None:
        """Put a buffer returned by :meth:`checkout` back in the pool (a no-op for None)."""
        if host is not None and self._alloc is not None:
            with self._lock:
                self._free.append(host)

    def stats(self) -> dict:
        """Return the pool's size: buffers pinned, their GiB, the seconds spent pinning them."""
        with self._lock:
            return {"buffers": self.pins, "gib": self.allocated_bytes / 2**30,
                    "pin_s": self.pin_s}

    def _allocate(self) -> list:
        count = 3 * self.n * FR_LIMBS
        t0 = time.perf_counter()
        mem = self._alloc(count * 4)
        took = time.perf_counter() - t0
        flat = np.frombuffer(mem, dtype=np.uint32, count=count)
        with self._lock:
            self._keep.append(mem)
            self.allocated_bytes += count * 4
            self.pins += 1
            self.pin_s += took
        return list(flat.reshape(3, self.n, FR_LIMBS))


def _pin(nbytes: int):
    """Return ``nbytes`` of portable pinned host memory (cudaHostAlloc), as a buffer."""
    from ..backend import xp
    cp = xp("gpu")
    mem = cp.cuda.PinnedMemory(nbytes, cp.cuda.runtime.hostAllocPortable)
    return cp.cuda.PinnedMemoryPointer(mem, 0)


class Device:
    """One GPU or CPU stand-in: mutexes, proving key, buffers and a memory counter."""

    def __init__(self, index: int, backend: str):
        self.index = index
        self.backend = backend
        self.mutex = threading.Lock()       # the per-GPU mutex around the CUDA region
        self.mem_mutex = threading.Lock()   # two_lock: the upload's own mutex
        self.pk = None
        self.key_bytes = 0
        self._buffer_bytes = 0
        self._count_lock = threading.Lock()
        if backend == "gpu":
            from ..backend import xp
            self.xp = xp("gpu")
        else:
            self.xp = np

    @property
    def name(self) -> str:
        """Return the lane prefix of this device (``gpu0``, ``gpu1``...)."""
        return f"gpu{self.index}"

    def context(self):
        """Return a context manager that makes this device current (a no-op for a stand-in)."""
        if self.backend == "gpu":
            return self.xp.cuda.Device(self.index)
        return contextlib.nullcontext()

    def new_stream(self):
        """Return a new non-blocking CUDA stream on this device (None for a stand-in)."""
        if self.backend != "gpu":
            return None
        with self.context():
            return self.xp.cuda.Stream(non_blocking=True)

    @staticmethod
    def on_stream(stream):
        """Return a context manager that makes ``stream`` current (a no-op for None)."""
        return stream if stream is not None else contextlib.nullcontext()

    def load_key(self, work) -> None:
        """Put the proving key on this device (once per run)."""
        with self.context():
            self.pk = work.key_on(self.backend)
        self.key_bytes = work.key_bytes

    def buffers(self, n: int) -> Buffers:
        """Allocate and count a set of a, b, c device buffers of length ``n``."""
        buf = Buffers(self, n)
        with self._count_lock:
            self._buffer_bytes += buf.nbytes
        return buf

    def upload(self, buffers: Buffers, host: list) -> list:
        """Copy a, b, c from host (staged) arrays into ``buffers``; return the device arrays.

        On a GPU the copies are enqueued on the current stream (asynchronous from
        pinned memory); the caller's stage clock waits for them.
        """
        if self.backend == "gpu":
            stream = self.xp.cuda.get_current_stream()
            for dst, src in zip(buffers.arrays, host):
                dst.set(src, stream=stream)
        else:
            for dst, src in zip(buffers.arrays, host):
                np.copyto(dst, src)
        return buffers.arrays

    def used_bytes(self) -> int:
        """Return the device memory this run holds on the device (pool bytes on a GPU)."""
        if self.backend == "gpu":
            with self.context():
                return int(self.xp.get_default_memory_pool().total_bytes())
        with self._count_lock:
            return self._buffer_bytes + self.key_bytes

    def capacity_bytes(self) -> float:
        """Return the device's memory (free + used now on a GPU; unbounded for a stand-in)."""
        if self.backend != "gpu":
            return float("inf")
        with self.context():
            free, total = self.xp.cuda.runtime.memGetInfo()
        return float(total)

    def free_bytes(self) -> float:
        """Return the device memory still free (unbounded for a stand-in)."""
        if self.backend != "gpu":
            return float("inf")
        with self.context():
            free, _total = self.xp.cuda.runtime.memGetInfo()
            pool = self.xp.get_default_memory_pool()
            return float(free + pool.free_bytes())


def make_devices(count: int, backend: str) -> list[Device]:
    """Return ``count`` devices; on "gpu" there must be that many CUDA devices."""
    if backend == "gpu":
        from ..backend import xp
        from ..errors import ConfigError
        have = int(xp("gpu").cuda.runtime.getDeviceCount())
        if count > have:
            raise ConfigError("gpus", f"this host has {have} CUDA device(s), the config asks "
                                      f"for {count}")
    return [Device(i, backend) for i in range(count)]
