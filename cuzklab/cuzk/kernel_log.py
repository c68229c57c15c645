"""Did the kernel's OOM killer take this process? Read the kernel log if we may.

When a process dies of SIGKILL, the kernel log says whether the OOM killer
sent it: ``Out of memory: Killed process 4242 (cuzk-daemon) ...``, ``Memory
cgroup out of memory: Killed process 4242 ...`` or
``oom-kill:...,task=cuzk-daemon,pid=4242,...``. The log is read from
``/dev/kmsg`` or, failing that, ``dmesg``; both need privileges on many
hosts, so an unreadable log is answered with ``None`` (unknown), never an
error.
"""

from __future__ import annotations

import errno
import os
import re
import subprocess
from collections.abc import Callable

_KILLED = re.compile(r"(?:Out of memory|Memory cgroup out of memory)[^:]*: Killed process "
                     r"(?P<pid>\d+) \((?P<comm>[^)]*)\)")
_OOM_KILL = re.compile(r"oom-kill:.*?\btask=(?P<comm>[^,]*),pid=(?P<pid>\d+)")
# Bytes read from /dev/kmsg at most: the ring buffer is a few MiB at most.
_KMSG_MAX_BYTES = 16 * 2**20


def read_kmsg(path: str = "/dev/kmsg") -> str | None:
    """Return the kernel ring buffer's messages, or None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    out: list[str] = []
    total = 0
    try:
        while total < _KMSG_MAX_BYTES:
            try:
                chunk = os.read(fd, 8192)     # one record per read
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EPIPE:  # records overwritten while reading
                    continue
                if exc.errno == errno.EINVAL:
                    break
                return None if not out else "".join(out)
            if not chunk:
                break
            total += len(chunk)
            rec = chunk.decode("utf-8", "replace")
            out.append(rec.split(";", 1)[1] if ";" in rec else rec)
    finally:
        os.close(fd)
    return "".join(out)


def read_dmesg(timeout_s: float = 5.0) -> str | None:
    """Return ``dmesg`` output, or None when it cannot be run or is not allowed."""
    try:
        r = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=timeout_s,
                           errors="replace")
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    return r.stdout


def read_kernel_log() -> str | None:
    """Return the kernel log from /dev/kmsg or dmesg, or None if neither is readable."""
    text = read_kmsg()
    if text:
        return text
    return read_dmesg()


def kernel_oom_kills(pid: int | None = None, *,
                     source: Callable[[], str | None] | None = None) -> list[dict] | None:
    """Return the OOM kills in the kernel log (of ``pid`` only, if given); None if unreadable."""
    if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0):
        raise ValueError(f"pid must be a positive integer, got {pid!r}")
    text = (source or read_kernel_log)()
    if text is None:
        return None
    kills = []
    for line in text.splitlines():
        m = _KILLED.search(line) or _OOM_KILL.search(line)
        if m and (pid is None or int(m.group("pid")) == pid):
            kills.append({"pid": int(m.group("pid")), "comm": m.group("comm"),
                          "message": line.strip()})
    return kills
