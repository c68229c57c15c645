"""A JupyterLab on a free local port over a temporary copy of the explorer notebook.

Shared by the browser test and ``benchmarks/bench_explorer_browser.py``: the
server runs in a session of its own with its own runtime, config and settings
folders (no news, no update check, nothing fetched) and is stopped, kernels
included, whatever happens.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "01-explore-pipeline.ipynb"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SERVER_START_S = 90


def chromium_path() -> str | None:
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    """Return the ids of the direct children of ``pid`` (kernels run in their own sessions)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _wait_ready(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "api/status", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"JupyterLab did not answer in {SERVER_START_S} s:\n"
                       f"{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen, url: str) -> None:
    kids = set(_children(proc.pid))
    try:  # a clean shutdown also stops the kernels
        req = urllib.request.Request(url + "api/shutdown", method="POST", data=b"")
        urllib.request.urlopen(req, timeout=5).close()
    except (urllib.error.URLError, OSError):
        pass
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        kids |= set(_children(proc.pid))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    for kid in kids:  # each kernel leads its own session: end its group by its id
        try:
            os.killpg(kid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@contextlib.contextmanager
def jupyterlab(tmp_path: Path, parameters: dict[str, str] | None = None,
               code_root: Path | None = None):
    """Run JupyterLab over a temp copy of the explorer notebook; yield its base URL.

    ``parameters`` replace values of the notebook's parameters cell (source text,
    e.g. ``{"proofs": "10"}``), as papermill would. ``code_root`` is the checkout
    whose notebook and cuzklab the kernel uses (default: this one).
    """
    code_root = Path(code_root) if code_root is not None else ROOT
    root = tmp_path / "root"
    root.mkdir()
    nb = json.loads((code_root / NOTEBOOK.relative_to(ROOT)).read_text())
    params = next(c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", []))
    for key, value in (parameters or {}).items():
        params["source"] = [re.sub(rf"^{key} = [^#\n]*", f"{key} = {value}", line)
                            for line in params["source"]]
    (root / NOTEBOOK.name).write_text(json.dumps(nb))
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    env = dict(os.environ)
    # The kernel imports this checkout's cuzklab, whatever the environment installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code_root), env.get("PYTHONPATH")]))
    env.update(JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               IPYTHONDIR=str(tmp_path / "ipython"))
    # No news or update prompts over the notebook (and nothing fetched).
    notes = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    notes.mkdir(parents=True)
    (notes / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    log = tmp_path / "jupyterlab.log"
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           "--IdentityProvider.token=", "--ServerApp.password=",
           "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}",
           "--LabApp.expose_app_in_browser=True",
           f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
           f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
           # Nothing to fetch from outside: no extension catalogue, no update check.
           "--LabApp.extension_manager=readonly",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI containers run as root
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_ready(url, proc, log)
        yield url
    finally:
        _stop(proc, url)


HEADLINE = ".cuzklab-headline-box .cuzklab-headline"
TIMELINE_TITLE = ".cuzklab-explorer .js-plotly-plot .gtitle"


def open_explorer(page, url: str) -> None:
    """Open the notebook in a Playwright page, run every cell, wait for the first drawing."""
    page.goto(url + "lab/tree/" + NOTEBOOK.name)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell"
                           " && document.querySelector('.jp-Notebook')")
    # Wait until the kernel is up, then run every cell.
    page.wait_for_selector(".jp-Notebook .jp-Cell", state="visible")
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext && w.sessionContext.session"
        " && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.status === 'idle'; }")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_selector(HEADLINE, state="visible")
    page.wait_for_function(
        "(sel) => { const e = document.querySelector(sel);"
        " return e && /s\\/proof/.test(e.textContent); }", arg=TIMELINE_TITLE)
