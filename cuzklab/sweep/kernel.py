"""A kernel manager for parallel notebook runs: IPC sockets in a private folder.

Kernels started at once from several processes race for TCP ports
("Address already in use", "Kernel didn't respond"). On the IPC transport a
kernel's sockets are files named after its own connection file, inside a
folder private to the run, so parallel kernels cannot collide.

jupyter_client starts every kernel in a session of its own, so killing the
process group of the process that ran papermill does not reach the kernel.
The manager therefore records the kernel's pid and process group in that
folder (:mod:`cuzklab.sweep.procs`); the watchdog reads them to kill a hung
kernel.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from .procs import KERNEL_DIR_ENV, write_kernel_pid


class IPCKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` on the IPC transport with its own connection file."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        given = os.environ.get(KERNEL_DIR_ENV)
        self._owns_dir = not given
        self.private_dir = Path(given) if given else Path(
            tempfile.mkdtemp(prefix="cuzklab-kernel-"))
        self.private_dir.mkdir(parents=True, exist_ok=True)
        tag = uuid.uuid4().hex[:8]
        self.transport = "ipc"
        self.connection_file = str(self.private_dir / f"kernel-{tag}.json")
        # Socket files are "<ip>-<port>": short names keep under the ~100-byte limit.
        self.ip = str(self.private_dir / tag)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        await super()._async_launch_kernel(kernel_cmd, **kw)
        prov = self.provisioner
        pid = getattr(prov, "pid", None)
        if pid:
            write_kernel_pid(self.private_dir, pid, getattr(prov, "pgid", None) or pid)

    def remove_private_dir(self) -> None:
        """Delete the private folder if this manager created it."""
        if self._owns_dir:
            shutil.rmtree(self.private_dir, ignore_errors=True)

