"""A sweep whose points end every way a point can end, then resumed.

One point raises, one runs past the cell timeout (interrupted), one ignores
the interrupt (the watchdog kills it), one kills its kernel, one is rejected
by the notebook (ConfigError), one has a value papermill cannot inject; the
ok points complete all the same, and ``resume`` reruns only the others.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pytest

from cuzklab.sweep import STATUSES, build_table, read_sidecars, run_sweep

HERE = Path(__file__).parent
# Short limits keep the timeout and watchdog points cheap; the other cells
# take milliseconds.
TIMEOUT_S = 3
GRACE_S = 2

GRID = f"""
name = "statuses"
notebook = "{HERE / 'point.ipynb'}"
timeout_s = {TIMEOUT_S}

[[points]]
mode = "ok"
value = 3
[[points]]
mode = "raise"
[[points]]
mode = "invalid"
value = 5
[[points]]
mode = "ok"
value = 2026-01-01
[[points]]
mode = "sleep"
[[points]]
mode = "hang"
[[points]]
mode = "kill"
[[points]]
mode = "ok"
value = 4

[report]
metric = "square"
x = "value"
"""

EXPECTED = {  # (mode, value) -> (status, error type, words in the message)
    ("ok", 3): ("ok", None, ""),
    ("ok", 4): ("ok", None, ""),
    ("raise", None): ("failed", "ZeroDivisionError", "boom at value 1"),
    ("invalid", 5): ("invalid", "ConfigError", "must be small, got 5"),
    ("ok", "2026-01-01"): ("invalid", "NotPlainError", "not a plain JSON value"),
    ("sleep", None): ("timeout", "CellTimeout", f"{TIMEOUT_S} s cell timeout"),
    ("hang", None): ("timeout", "Watchdog", "killed with its kernel"),
    ("kill", None): ("crashed", "DeadKernelError", "kernel died"),
}


def _key(params):
    v = params.get("value")
    return params["mode"], None if v is None else str(v) if not isinstance(v, int) else v


def _gone(pid: int, wait_s: float = 10.0) -> bool:
    """Return True once ``pid`` no longer runs (absent, or a zombie)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps") / "statuses"
    result = run_sweep(GRID, out=out, jobs=2, grace_s=GRACE_S, progress=False)
    sidecars = {k: json.loads(json.dumps(v)) for k, v in read_sidecars(out).items()}
    mtimes = {p.name: p.stat().st_mtime_ns for p in (out / "points").iterdir()}
    return out, result, sidecars, mtimes


def test_every_point_gets_its_status_and_message(swept):
    out, result, sidecars, _ = swept
    assert len(sidecars) == len(EXPECTED)
    seen = {}
    for s in sidecars.values():
        status, etype, words = EXPECTED[_key(s["parameters"])]
        seen[_key(s["parameters"])] = s["status"]
        assert s["status"] == status, s
        if etype is None:
            assert s["error"] is None
        else:
            assert s["error"]["type"] == etype
            assert words in s["error"]["message"]
    assert len(seen) == len(EXPECTED)
    assert result.counts == {"ok": 2, "failed": 1, "timeout": 2, "crashed": 1, "invalid": 2}
    assert not result.ok and not result.interrupted and result.ran == 8


def test_ok_points_recorded_their_metrics(swept):
    _, _, sidecars, _ = swept
    for s in sidecars.values():
        if s["status"] == "ok":
            v = s["parameters"]["value"]
            assert s["metrics"]["square"] == v * v
            assert s["metrics"]["nested.half"] == v / 2
        else:
            assert s["metrics"] == {}


def test_each_run_point_has_its_executed_notebook(swept):
    out, _, sidecars, _ = swept
    for s in sidecars.values():
        if s["error"] and s["error"]["type"] == "NotPlainError":
            assert s["notebook"] is None  # never ran
            continue
        nb = json.loads((out / s["notebook"]).read_text())
        injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
        assert len(injected) == 1 and "result_path" in "".join(injected[0]["source"])
        assert nb["metadata"]["papermill"]["parameters"]["mode"] == s["parameters"]["mode"]
    hung = next(s for s in sidecars.values() if s["parameters"]["mode"] == "hang")
    nb = json.loads((out / hung["notebook"]).read_text())
    states = [c["metadata"].get("papermill", {}).get("status") for c in nb["cells"]]
    assert "running" in states  # the record shows where the point hung


def test_table_has_one_row_per_point_and_agrees_with_the_sidecars(swept):
    out, result, sidecars, _ = swept
    for table in (result.table, pd.read_csv(out / "results.csv"),
                  pd.read_parquet(out / "results.parquet")):
        assert len(table) == len(sidecars)
        assert dict(zip(table["id"], table["status"])) == \
            {k: s["status"] for k, s in sidecars.items()}
        assert set(table["status"]) <= set(STATUSES)
        assert {"mode", "value", "square", "nested.half", "error", "run.wall_s"} <= set(table.columns)
    row = result.table.set_index("id").loc[
        next(k for k, s in sidecars.items() if s["parameters"]["mode"] == "raise")]
    assert row["error"].startswith("ZeroDivisionError: boom at value 1")
    assert (out / "report.html").stat().st_size > 1_000_000  # plotly.js embedded: views offline


def test_no_process_is_left_behind(swept):
    _, _, sidecars, _ = swept
    pids = [s["metrics"]["kernel_pid"] for s in sidecars.values() if s["status"] == "ok"]
    assert pids and all(_gone(pid) for pid in pids)


def test_resume_reruns_only_the_points_that_did_not_end_ok(swept):
    out, _, before, mtimes = swept
    # Shorter limits: the reruns end the same way, sooner. The ids do not change.
    again = run_sweep(GRID, out=out, jobs=2, resume=True, timeout_s=2, grace_s=1,
                      progress=False)
    after = read_sidecars(out)
    ok_ids = {k for k, s in before.items() if s["status"] == "ok"}
    assert again.skipped == len(ok_ids) == 2
    assert again.ran == len(before) - 2
    for k, s in after.items():
        if k in ok_ids:
            assert s == before[k]
            assert (out / "points" / f"{k}.json").stat().st_mtime_ns == mtimes[f"{k}.json"]
            assert (out / "points" / f"{k}.ipynb").stat().st_mtime_ns == mtimes[f"{k}.ipynb"]
        else:
            assert s["attempt"] == 2 and s["status"] == before[k]["status"]
    assert len(build_table(out)) == len(before)
