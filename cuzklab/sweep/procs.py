"""Process groups of sweep workers and their kernels: where their pids are kept, how they die.

A sweep worker runs in a session of its own, and jupyter_client starts each
kernel in yet another session, so killing one process group does not reach
the other. The kernel manager writes the kernel's pid and process group to
``kernel.pid`` in the worker's private folder; runners list their workers in
a shared folder so an interrupted sweep can kill them all. Nothing here
imports jupyter_client: pool processes stay light.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

# Environment variable naming a worker's private folder (kernel sockets, pid file).
KERNEL_DIR_ENV = "CUZKLAB_SWEEP_KERNEL_DIR"
# Environment variable naming the folder where runners list their workers.
RUNNING_DIR_ENV = "CUZKLAB_SWEEP_RUNNING_DIR"
PID_FILE = "kernel.pid"


def write_kernel_pid(private_dir: str | os.PathLike, pid: int, pgid: int) -> None:
    """Record a kernel's pid and process group in ``private_dir`` (atomically)."""
    d = Path(private_dir)
    tmp = d / f".{PID_FILE}.tmp"
    tmp.write_text(f"{pid} {pgid}\n")
    os.replace(tmp, d / PID_FILE)


def read_kernel_pid(private_dir: str | os.PathLike) -> tuple[int, int] | None:
    """Return (pid, process group) of the last kernel started in ``private_dir``, or None."""
    try:
        pid, pgid = (int(x) for x in (Path(private_dir) / PID_FILE).read_text().split())
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None
    return pid, pgid


def kill_worker(pid: int, private_dir: str | os.PathLike) -> None:
    """Kill a worker's process group and the process group of its kernel (SIGKILL)."""
    groups = [pid]
    kernel = read_kernel_pid(private_dir)
    if kernel:
        groups.append(kernel[1])
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def register_worker(pid: int, private_dir: str | os.PathLike) -> Path | None:
    """List a worker in the running folder named by the environment; return its entry."""
    running = os.environ.get(RUNNING_DIR_ENV)
    if not running or not Path(running).is_dir():
        return None
    entry = Path(running) / f"{pid}.json"
    entry.write_text(json.dumps({"pid": pid, "dir": str(private_dir)}))
    return entry


def kill_registered(running_dir: str | os.PathLike) -> int:
    """Kill every worker listed in ``running_dir``; return how many were listed."""
    n = 0
    for entry in Path(running_dir).glob("*.json"):
        try:
            info = json.loads(entry.read_text())
        except (OSError, ValueError):
            continue
        kill_worker(int(info["pid"]), info["dir"])
        n += 1
    return n
