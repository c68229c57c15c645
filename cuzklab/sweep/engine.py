"""A papermill engine that executes on a kernel the caller started, and leaves it running.

papermill's default engine starts a kernel per notebook and shuts it down
after; a sweep worker instead keeps one kernel warm across points (imports
stay loaded, no ~1 s start per point). Before the notebook's first cell the
engine runs a silent prelude in the kernel (``%reset -f`` and a ``chdir``),
so each point starts from an empty namespace in the notebook's folder. The
kernel client is closed after every notebook so sockets do not pile up.
"""

from __future__ import annotations

import inspect

from jupyter_core.utils import run_sync
from papermill.clientwrap import PapermillNotebookClient
from papermill.engines import NBClientEngine, papermill_engines
from papermill.log import logger
from papermill.utils import remove_args
from traitlets import Unicode

from ..errors import SweepError

ENGINE_NAME = "cuzklab-warm"


class KernelResetError(SweepError, RuntimeError):
    """The kernel could not be reset before a point (it is then replaced)."""


def reset_code(cwd: str) -> str:
    """Return the prelude that empties the kernel namespace and enters ``cwd``."""
    return ("get_ipython().run_line_magic('reset', '-f')\n"
            "import gc as _cz_gc, os as _cz_os\n"
            f"_cz_os.chdir({cwd!r})\n"
            "_cz_gc.collect()\n"
            "del _cz_gc, _cz_os\n")


class PreludeNotebookClient(PapermillNotebookClient):
    """papermill's notebook client, running ``prelude`` silently before the first cell."""

    prelude = Unicode("").tag(config=True)

    def papermill_execute_cells(self):
        """Run the prelude, then the cells as papermill does."""
        if self.prelude:
            msg_id = self.kc.execute(self.prelude, silent=True, store_history=False)
            if inspect.isawaitable(msg_id):
                msg_id = run_sync(lambda: msg_id)()
            reply = self.wait_for_reply(msg_id)
            content = (reply or {}).get("content", {})
            if content.get("status") != "ok":
                raise KernelResetError(f"kernel reset before the notebook failed: "
                                       f"{content.get('ename', 'no reply')} "
                                       f"{content.get('evalue', '')}".strip())
        super().papermill_execute_cells()


class WarmKernelEngine(NBClientEngine):
    """Execute with the kernel manager passed as ``km``; never shut its kernel down."""

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, stdout_file=None,
                                 stderr_file=None, start_timeout=60, execution_timeout=None,
                                 km=None, prelude="", **kwargs):
        """Run the notebook's cells on ``km``'s kernel and return the executed notebook."""
        if km is None:
            raise ValueError("km must be a kernel manager with a started kernel")
        kwargs = remove_args(["input_path", "timeout", "startup_timeout"], **kwargs)
        client = PreludeNotebookClient(
            nb_man, km=km, prelude=prelude, timeout=execution_timeout,
            startup_timeout=start_timeout, kernel_name=kernel_name, log=logger,
            log_output=log_output, stdout_file=stdout_file, stderr_file=stderr_file, **kwargs)
        try:
            return client.execute()
        finally:
            if client.kc is not None:
                client.kc.stop_channels()
                client.kc = None


def register() -> str:
    """Register the engine with papermill (idempotent) and return its name."""
    papermill_engines.register(ENGINE_NAME, WarmKernelEngine)
    return ENGINE_NAME
