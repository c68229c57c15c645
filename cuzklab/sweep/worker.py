"""The process that executes sweep points: papermill on a kept-warm kernel.

Started by :mod:`cuzklab.sweep.runner` as ``python -m cuzklab.sweep.worker``
in a session of its own (so the watchdog can kill it and everything it
started). It reads jobs, one JSON object per line, on stdin and answers on
its original stdout with JSON events, one per line:

- ``{"event": "ready"}`` once papermill is imported;
- ``{"event": "started"}`` when a job's kernel is up (the point's clock starts);
- ``{"event": "done", "status": ..., "error": ..., "timings": ...}``.

Anything else written to stdout (by libraries, by C code) goes to stderr, so
the event stream stays clean. One kernel serves job after job (its namespace
is reset before each); a kernel that died is replaced. End of input: the
kernel is shut down and the process exits.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

# IPython keeps its history in SQLite; parallel kernels must not share a file.
KERNEL_EXTRA_ARGS = ["--HistoryManager.hist_file=:memory:"]
# Seconds a kernel has to start and answer kernel_info (papermill's default is 60).
KERNEL_START_TIMEOUT_S = 60.0


class KernelHolder:
    """The worker's kernel: started on demand, reused while alive."""

    def __init__(self):
        self.km = None
        self.kc = None
        self.name = None
        self.started = 0
        self.unused_start_s: float | None = None  # set while a started kernel awaits its first job

    def launch(self, kernel_name: str, cwd: str) -> None:
        """Start a kernel process (without waiting for it to answer)."""
        from jupyter_core.utils import run_sync

        from .kernel import IPCKernelManager
        self.discard()
        km = IPCKernelManager(kernel_name=kernel_name)
        self.km, self.name = km, kernel_name
        run_sync(km.start_kernel)(extra_arguments=list(KERNEL_EXTRA_ARGS), cwd=cwd)
        self.started += 1

    def wait_ready(self) -> None:
        """Connect a client to the launched kernel and wait until it answers."""
        from jupyter_core.utils import run_sync
        kc = self.km.client()
        self.kc = kc
        try:
            kc.start_channels()
            run_sync(kc.wait_for_ready)(timeout=KERNEL_START_TIMEOUT_S)
        except BaseException:
            self.discard()
            raise
        kc.allow_stdin = False

    def ensure(self, kernel_name: str, cwd: str) -> float:
        """Return seconds spent starting a kernel (0 when the warm one is reused)."""
        from jupyter_core.utils import run_sync
        if self.km is not None and self.kc is not None and self.name == kernel_name \
                and run_sync(self.km.is_alive)():
            return 0.0
        self.unused_start_s = None
        t0 = time.perf_counter()
        self.launch(kernel_name, cwd)
        self.wait_ready()
        return time.perf_counter() - t0

    def discard(self) -> None:
        """Shut the kernel down (it may already be dead) and forget it."""
        from jupyter_core.utils import run_sync
        km, self.km = self.km, None
        kc, self.kc = self.kc, None
        if kc is not None:
            try:
                kc.stop_channels()
            except Exception:  # already closed
                pass
        if km is None:
            return
        try:
            run_sync(km.shutdown_kernel)(now=True)
        except Exception:  # a dead kernel cannot be asked to stop; clean up what is left
            try:
                km.cleanup_resources()
            except Exception:
                pass


def _read_notebook(path: str) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _last_started_cell(output_path: str) -> int | None:
    """Return the index of the last cell papermill started (where a dead kernel died)."""
    last = None
    for i, cell in enumerate(_read_notebook(output_path).get("cells", [])):
        if cell.get("metadata", {}).get("papermill", {}).get("start_time"):
            last = i
    return last


def _cells_seconds(output_path: str) -> float | None:
    """Return the summed papermill cell durations of an executed notebook."""
    nb = _read_notebook(output_path)
    if not nb:
        return None
    total = 0.0
    for cell in nb.get("cells", []):
        d = cell.get("metadata", {}).get("papermill", {}).get("duration")
        if isinstance(d, (int, float)):
            total += d
    return round(total, 4)


def run_job(job: dict[str, Any], kernel: KernelHolder, emit) -> dict[str, Any]:
    """Execute one point's notebook and return its status, error and timings."""
    import papermill
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    from .engine import ENGINE_NAME, KernelResetError, reset_code
    from .outcome import classify_cell_error, error_dict

    timings: dict[str, Any] = {}
    cwd = job["cwd"]
    try:
        start_s = kernel.ensure(job["kernel"], cwd)
    except Exception as exc:
        return {"status": "crashed", "timings": timings,
                "error": error_dict(type(exc).__name__, f"kernel did not start: {exc}")}
    if kernel.unused_start_s is not None:  # started with the worker, first use now
        start_s, kernel.unused_start_s = kernel.unused_start_s, None
    timings["kernel_start_s"] = round(start_s, 4)
    timings["kernel_reused"] = start_s == 0.0
    emit({"event": "started"})
    params = {**job["parameters"], "result_path": job["result_path"]}
    status, error = "ok", None
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(
            job["notebook"], job["output_path"], parameters=params, engine_name=ENGINE_NAME,
            kernel_name=job["kernel"], progress_bar=False, log_output=False,
            start_timeout=KERNEL_START_TIMEOUT_S, execution_timeout=job["timeout_s"],
            interrupt_on_timeout=True, store_widget_state=False,
            km=kernel.km, kc=kernel.kc, prelude=reset_code(cwd))
    except PapermillExecutionError as exc:
        status, error = classify_cell_error(exc.ename, str(exc.evalue), exc.cell_index,
                                            job["timeout_s"])
    except DeadKernelError as exc:
        status = "crashed"
        error = error_dict("DeadKernelError", f"the kernel died ({exc}); it was killed "
                                              f"(e.g. out of memory) or crashed",
                           _last_started_cell(job["output_path"]))
        kernel.discard()
    except CellTimeoutError as exc:
        status, error = "timeout", error_dict("CellTimeoutError", str(exc).splitlines()[0])
        kernel.discard()
    except KernelResetError as exc:
        status, error = "crashed", error_dict(type(exc).__name__, str(exc))
        kernel.discard()
    except Exception as exc:  # papermill, nbformat and zmq raise many kinds; record them all
        status, error = "crashed", error_dict(type(exc).__name__, str(exc))
        kernel.discard()
    timings["execute_s"] = round(time.perf_counter() - t0, 4)
    timings["cells_s"] = _cells_seconds(job["output_path"])
    if status == "ok" and not Path(job["result_path"]).is_file():
        status = "failed"
        error = error_dict("NoResults", "the notebook finished without recording results; "
                                        "its last cell should call "
                                        "cuzklab.sweep.record(result_path, summary)")
    return {"status": status, "error": error, "timings": timings}


def main(argv: list[str] | None = None) -> int:
    """Serve jobs from stdin until it closes; return the exit code.

    ``--kernel NAME`` starts that kernel at once, so that it boots while
    papermill is imported (both take about a second).
    """
    import argparse
    parser = argparse.ArgumentParser(prog="python -m cuzklab.sweep.worker")
    parser.add_argument("--kernel", default=None, help="kernel to start before the first job")
    args = parser.parse_args(argv)
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # stray prints (Python or C) must not corrupt the event stream

    def emit(event: dict[str, Any]) -> None:
        """Send one event to the runner."""
        proto.write(json.dumps(event) + "\n")
        proto.flush()

    t0 = time.perf_counter()
    kernel = KernelHolder()
    if args.kernel:
        kernel.launch(args.kernel, os.getcwd())
    import warnings
    warnings.filterwarnings("ignore", module="nbformat")
    from .engine import register
    register()
    if args.kernel:
        kernel.wait_ready()
        kernel.unused_start_s = time.perf_counter() - t0
    emit({"event": "ready", "pid": os.getpid(), "start_s": round(time.perf_counter() - t0, 4)})
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            job = json.loads(line)
            result = run_job(job, kernel, emit)
            result["timings"]["kernels_started"] = kernel.started
            emit({"event": "done", "id": job.get("id"), **result})
    finally:
        kernel.discard()
    return 0


if __name__ == "__main__":
    sys.exit(main())
