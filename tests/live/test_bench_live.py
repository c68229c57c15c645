"""``benchmarks/bench_live.py``: a grid over GPU counts on CPU stand-in devices."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest


def _bench():
    path = Path(__file__).parents[2] / "benchmarks" / "bench_live.py"
    spec = importlib.util.spec_from_file_location("bench_live_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gpus_is_a_grid_axis(tmp_path, capsys):
    out = tmp_path / "live.json"
    rc = _bench().main(["--quick", "--gpus", "1,2", "--locks", "split_async", "--gw", "1",
                        "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["complete"] and res["warmup_s"] > 0     # the untimed run came first
    assert [(r["gpus"], r["pw"]) for r in res["rows"]] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    for r in res["rows"]:
        assert r["verified"] == "4/4" and not r["failed"]
        assert r["utilization"]["gpu"] > 0 and r["gpu_region_s"] > 0
    text = capsys.readouterr().out
    assert "gpus" in text.splitlines()[1]


@pytest.mark.parametrize("bad", ["0", "x", ""])
def test_bad_gpus_is_one_clear_error(bad, capsys):
    with pytest.raises(SystemExit):
        _bench().main(["--quick", "--gpus", bad])
    assert "--gpus" in capsys.readouterr().err


def test_no_warmup_and_a_spent_budget_skip_what_they_say(tmp_path):
    out = tmp_path / "live.json"
    rc = _bench().main(["--quick", "--no-warmup", "--budget-s", "0", "--locks", "interlock",
                        "--gw", "1", "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["warmup_s"] is None and res["complete"]
    assert res["rows"] == [] and [s["pw"] for s in res["skipped"]] == [1, 2]



def test_prep_msm_says_where_its_time_went(tmp_path):
    out = tmp_path / "live.json"
    rc = _bench().main(["--quick", "--no-warmup", "--locks", "split_async", "--gw", "1",
                        "--json", str(out)])
    assert rc == 0
    for r in json.loads(out.read_text())["rows"]:
        p = r["prep_steps_s"]
        assert 0 < p["thread_cpu"] <= p["own"] + 2e-3
        assert p["preempted"] >= 0 and p["waited"] >= 0
