"""Ctrl-C during a sweep: finished points stay, running ones die with their kernels, resume completes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cuzklab.sweep import read_sidecars, run_sweep

from .test_statuses import _gone

HERE = Path(__file__).parent


def _wait_for(cond, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_interrupted_sweep_keeps_finished_points_and_resumes(tmp_path):
    block = tmp_path / "block"
    block.write_text("")
    pidfile = Path(f"{block}.pid")
    grid = tmp_path / "interrupt.toml"
    grid.write_text(
        f'notebook = "{HERE / "point.ipynb"}"\ntimeout_s = 300\n'
        '[[points]]\nvalue = 1\n[[points]]\nvalue = 2\n'
        f'[[points]]\nvalue = 3\nblock_file = "{block}"\n'
        f'[[points]]\nvalue = 4\nblock_file = "{block}"\n')
    out = tmp_path / "out"
    cli = subprocess.Popen(
        [sys.executable, "-m", "cuzklab", "sweep", str(grid), "--out", str(out), "-j", "2", "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        # Ctrl-C's default action even when this test runs from a shell's background job,
        # whose children start with SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(lambda: len(read_sidecars(out)) == 2, 120, "the two quick points")
        _wait_for(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2, 60,
                  "the two blocked points")
        os.killpg(cli.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        _, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
    assert cli.returncode == 130, err
    assert "--resume" in err
    blocked = [int(p) for p in pidfile.read_text().split()]
    assert all(_gone(pid) for pid in blocked)  # their kernels were killed too
    done = read_sidecars(out)
    assert sorted(s["parameters"]["value"] for s in done.values()) == [1, 2]
    assert all(s["status"] == "ok" for s in done.values())
    assert (out / "results.csv").read_text().count("\n") == 3  # header + the two finished points
    before = {k: (out / "points" / f"{k}.json").stat().st_mtime_ns for k in done}

    block.unlink()
    result = run_sweep(grid, out=out, jobs=2, resume=True, progress=False, report=False)
    assert (result.ran, result.skipped) == (2, 2)
    assert result.counts == {"ok": 4, "failed": 0, "timeout": 0, "crashed": 0, "invalid": 0}
    for k, mtime in before.items():
        assert (out / "points" / f"{k}.json").stat().st_mtime_ns == mtime
    after = read_sidecars(out)
    assert {s["parameters"]["value"]: s["attempt"] for s in after.values()} == \
        {1: 1, 2: 1, 3: 1, 4: 1}
    assert json.loads((out / "sweep.json").read_text())["name"] == "interrupt"
