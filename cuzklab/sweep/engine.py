"""A papermill engine that executes on a kernel the caller started, and leaves it running.

papermill's default engine starts a kernel per notebook and shuts it down
after; a sweep worker instead keeps one kernel warm across points (imports
stay loaded, no ~1 s start per point) and one connected client to it. Before
the notebook's first cell the engine runs a silent prelude in the kernel (the
namespace emptied, the folder set), so each point starts from an empty
namespace in the notebook's folder. The output notebook is kept current as
cells start and end, and written properly at the end, crash or not.
"""

from __future__ import annotations

import inspect
import json
import os

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
    """Return the prelude that empties the kernel namespace and enters ``cwd``.

    It does what ``%reset -f`` does for a fresh start (user variables, output
    cache, input history, execution counter, the last traceback) without its
    full garbage collection, which costs ~0.3 s with pandas and plotly loaded.
    """
    return (
        "import os as _cz_os, sys as _cz_sys\n"
        "_cz_ip = get_ipython()\n"
        "for _cz_k in [k for k in _cz_ip.user_ns if k not in _cz_ip.user_ns_hidden\n"
        "              and not k.startswith('_cz_')]:\n"
        "    del _cz_ip.user_ns[_cz_k]\n"
        "_cz_ip.user_ns['_oh'].clear()\n"
        "for _cz_k in ('_', '__', '___'):\n"
        "    setattr(_cz_ip.displayhook, _cz_k, '')\n"
        "_cz_ip.history_manager.reset(new_session=False)\n"
        "_cz_ip.execution_count = 1\n"
        "_cz_sys.last_type = _cz_sys.last_value = _cz_sys.last_traceback = None\n"
        f"_cz_os.chdir({cwd!r})\n"
        "del _cz_os, _cz_sys, _cz_ip, _cz_k\n")


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


class _QuickSave:
    """Stand-in for a papermill execution manager's ``save``: cheap snapshots while running.

    papermill writes the whole notebook through nbformat (line splitting,
    validation) at the start and end of every cell, ~15 ms each. While the
    notebook runs, a plain JSON dump (well under a millisecond, still a valid
    .ipynb) keeps the record current, so a point that hangs shows the cell it
    hung in; the final write (notebook complete, or forced) is papermill's own.
    """

    def __init__(self, nb_man):
        self.nb_man = nb_man
        self.write = nb_man.save

    def __call__(self, **kwargs):
        if self.nb_man.end_time is not None or kwargs.pop("force", False):
            self.write(**kwargs)
            return
        path = self.nb_man.output_path
        if path:
            tmp = f"{path}.partial"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.nb_man.nb, f)
            os.replace(tmp, path)


class WarmKernelEngine(NBClientEngine):
    """Execute with the kernel manager passed as ``km``; never shut its kernel down.

    ``kc``: a connected client of that kernel to reuse (saves ~0.2 s per
    notebook); ``prelude``: code run silently before the first cell.
    """

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, stdout_file=None,
                                 stderr_file=None, start_timeout=60, execution_timeout=None,
                                 km=None, kc=None, prelude="", **kwargs):
        """Run the notebook's cells on ``km``'s kernel and return the executed notebook."""
        if km is None:
            raise ValueError("km must be a kernel manager with a started kernel")
        kwargs = remove_args(["input_path", "timeout", "startup_timeout"], **kwargs)
        saver = _QuickSave(nb_man)
        nb_man.save = saver
        client = PreludeNotebookClient(
            nb_man, km=km, prelude=prelude, timeout=execution_timeout,
            startup_timeout=start_timeout, kernel_name=kernel_name, log=logger,
            log_output=log_output, stdout_file=stdout_file, stderr_file=stderr_file, **kwargs)
        client.kc = kc
        try:
            return client.execute()
        finally:
            saver(force=True)  # a crashed kernel's notebook is still written
            if client.kc is not None and client.kc is not kc:
                client.kc.stop_channels()
            client.kc = None


def register() -> str:
    """Register the engine with papermill (idempotent) and return its name."""
    papermill_engines.register(ENGINE_NAME, WarmKernelEngine)
    return ENGINE_NAME
