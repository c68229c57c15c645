"""The explorer in a real browser: JupyterLab, Chromium, run all, move controls.

Starts JupyterLab on a free local port in a temporary root holding a copy of
the explorer notebook, drives the system Chromium with Playwright to run every
cell, changes the lock strategy and a slider, and checks that the headline and
the timeline changed each time. Screenshots go to ``test-artifacts/``. The
server and its kernels are stopped whatever happens.
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

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "01-explore-pipeline.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SERVER_START_S = 90
STEP_TIMEOUT_MS = 150_000  # per step; generous for a loaded 2-core machine
SMALL_RUN = {"proofs": "10", "concurrency": "8"}


def _chromium() -> str | None:
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
def jupyterlab(tmp_path: Path):
    """Run JupyterLab over a temp copy of the explorer notebook; yield its base URL."""
    root = tmp_path / "root"
    root.mkdir()
    # A copy with a smaller starting run (as papermill would set it): less to draw.
    nb = json.loads(NOTEBOOK.read_text())
    params = next(c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", []))
    params["source"] = [re.sub(r"^(proofs|concurrency) = \d+", lambda m: f"{m.group(1)} = "
                               + SMALL_RUN[m.group(1)], line) for line in params["source"]]
    (root / NOTEBOOK.name).write_text(json.dumps(nb))
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    env = dict(os.environ)
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


@pytest.fixture
def lab(tmp_path):
    """Yield the base URL of a JupyterLab serving a temp copy of the explorer notebook."""
    with jupyterlab(tmp_path) as url:
        yield url


def _text(page, selector: str) -> str:
    return page.locator(selector).first.text_content() or ""


def _wait_change(page, selector: str, old: str, what: str) -> str:
    page.wait_for_function(
        "([sel, old]) => { const e = document.querySelector(sel);"
        " return e && e.textContent.trim() !== old.trim(); }",
        arg=[selector, old], timeout=STEP_TIMEOUT_MS)
    new = _text(page, selector)
    assert new.strip() != old.strip(), f"{what} did not change"
    return new


def _spp(text: str) -> str:
    return re.search(r"([0-9.]+) s/proof", text).group(1)


HEADLINE = ".cuzklab-headline-box .cuzklab-headline"
TIMELINE_TITLE = ".cuzklab-explorer .js-plotly-plot .gtitle"


def test_explorer_in_jupyterlab(lab):
    chromium = _chromium()
    if chromium is None:
        pytest.skip("needs Chromium")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 3000})
            logs = []
            page.on("console", lambda m: logs.append(f"{m.type}: {m.text}"))
            page.set_default_timeout(STEP_TIMEOUT_MS)
            page.goto(lab + "lab/tree/" + NOTEBOOK.name)
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
            head0 = _text(page, HEADLINE)
            title0 = _text(page, TIMELINE_TITLE)
            assert "s/proof" in head0 and "lock=split_async" in title0
            assert "10 proofs" in title0
            explorer = page.locator(".cuzklab-explorer").first
            explorer.screenshot(path=str(ARTIFACTS / "explorer-1-initial.png"))

            # The lock strategy: a dropdown.
            page.select_option(".cuzklab-control-lock select", "interlock")
            title1 = _wait_change(page, TIMELINE_TITLE, title0, "timeline title")
            head1 = _text(page, HEADLINE)
            assert "lock=interlock" in title1
            assert head1 != head0, "headline did not change with the lock strategy"
            explorer.screenshot(path=str(ARTIFACTS / "explorer-2-interlock.png"))

            # Pin this run: the next ones are compared with it.
            page.get_by_role("button", name="Pin for comparison").click()
            page.wait_for_selector(".cuzklab-pinned-headline .cuzklab-headline",
                                   state="visible")

            # A slider: partition workers, moved with the keyboard on its handle.
            handle = page.locator(".cuzklab-control-partition-workers .noUi-handle").first
            handle.focus()
            for _ in range(6):
                handle.press("ArrowLeft")
            title2 = _wait_change(page, TIMELINE_TITLE, title1, "timeline title")
            pw = int(re.search(r"pw=(\d+)", title2).group(1))
            assert pw < 10
            page.wait_for_function(
                "([sel, old]) => { const e = document.querySelector(sel);"
                " return e && e.textContent.trim() !== old.trim(); }",
                arg=[HEADLINE, head1])
            head2 = _text(page, HEADLINE)
            assert head2 != head1, "headline did not change with partition workers"
            page.wait_for_function(
                "() => document.querySelectorAll('.cuzklab-explorer .js-plotly-plot').length >= 3")
            pinned = _text(page, ".cuzklab-pinned-headline")
            current = _text(page, ".cuzklab-current-headline")
            assert _spp(pinned) == _spp(head1) and _spp(current) == _spp(head2)
            time.sleep(0.5)  # let plotly finish its transition before the picture
            explorer.screenshot(path=str(ARTIFACTS / "explorer-3-fewer-workers.png"))
            page.screenshot(path=str(ARTIFACTS / "explorer-page.png"), full_page=True)
            (ARTIFACTS / "explorer-browser.json").write_text(json.dumps(
                {"headlines": [head0, head1, head2], "titles": [title0, title1, title2]},
                indent=1))
        except BaseException:
            (ARTIFACTS / "explorer-console.log").write_text("\n".join(logs))
            page.screenshot(path=str(ARTIFACTS / "explorer-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
