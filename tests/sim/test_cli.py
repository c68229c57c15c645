"""The ``cuzklab simulate`` command."""

import json
import subprocess
import sys

import pytest

from cuzklab.cli import main
from cuzklab.trace import load


def test_json_prints_exactly_one_object(capsys):
    rc = main(["simulate", "--json", "--set", "proofs=2", "--set", "concurrency=2"])
    out = capsys.readouterr().out
    assert rc == 0
    s = json.loads(out)
    assert s["proofs"] == 2 and "bottleneck" in s and out.count("\n") == 1


def test_table_and_files(tmp_path, capsys):
    trace, perf = tmp_path / "t.parquet", tmp_path / "t.json"
    rc = main(["simulate", "--profile", "porep-32g@phase9", "--set", "proofs=2",
               "--set", "concurrency=1", "--trace", str(trace), "--perfetto", str(perf)])
    out = capsys.readouterr().out
    assert rc == 0 and "throughput" in out and "bottleneck" in out and "perfetto" in out
    assert load(trace).meta["profile"] == "porep-32g@phase9"
    assert json.loads(perf.read_text())["traceEvents"]


def test_reads_a_cuzk_toml(tmp_path, capsys):
    cfg = tmp_path / "cuzk.toml"
    cfg.write_text("# cuzklab: proofs = 2\n# cuzklab: concurrency = 2\n"
                   "[gpus]\ngpu_workers_per_device = 1\n")
    assert main(["simulate", "--json", "--config", str(cfg)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["proofs"] == 2


@pytest.mark.parametrize("args,words", [
    (["--set", "lock=bogus"], "lock: must be one of"),
    (["--set", "proofs=x"], "proofs: expected an integer"),
    (["--set", "nope=1"], "nope: unknown key"),
    (["--profile", "missing"], "unknown profile 'missing'"),
])
def test_bad_input_exits_2_with_a_message(args, words, capsys):
    assert main(["simulate", "--json", *args]) == 2
    err = capsys.readouterr()
    assert words in err.err and err.out == ""


def test_failed_run_exits_1(capsys):
    assert main(["simulate", "--json", "--set", "memory_gib=120", "--set", "proofs=2",
                 "--set", "concurrency=2"]) == 1
    assert json.loads(capsys.readouterr().out)["oom"] is True


def test_module_entry_point():
    r = subprocess.run([sys.executable, "-m", "cuzklab", "simulate", "--json", "--set",
                        "proofs=1", "--set", "concurrency=1"], capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["proofs"] == 1


def test_simulate_seeds_reports_mean_spread_and_oom_risk(capsys):
    import json

    from cuzklab.cli import main
    rc = main(["simulate", "--seeds", "3", "--set", "proofs=2", "--set", "concurrency=2", "--json"])
    out = json.loads(capsys.readouterr().out)
    agg = out["over_seeds"]
    assert rc == 0 and agg["seeds"] == [0, 1, 2] and agg["oom_fraction"] == 0.0
    sp = agg["seconds_per_proof"]
    assert sp["n"] == 3 and sp["min"] <= sp["mean"] <= sp["max"]
    rc = main(["simulate", "--seeds", "2", "--set", "proofs=2", "--set", "concurrency=2",
               "--set", "memory_gib=80"])
    text = capsys.readouterr().out
    assert rc == 1 and "OOM risk         100% of seeds ran out of memory (2/2)" in text


def test_simulate_seeds_rejects_bad_counts(capsys):
    import pytest

    from cuzklab.cli import main
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--seeds", "0"])
    assert e.value.code == 2 and "--seeds must be a whole number from 1 to 1000" in capsys.readouterr().err


def test_the_headline_shows_the_oom_risk_over_seeds():
    from cuzklab.plots.headline import headline_parts
    from cuzklab.sim import simulate
    s = simulate(proofs=2, concurrency=2).summary()
    assert headline_parts({**s, "oom_risk": 0.0, "oom_seeds": 3})["warning"] == ""
    warn = headline_parts({**s, "oom_risk": 2 / 3, "oom_seeds": 3})["warning"]
    assert warn == "OOM risk 67%: 2 of 3 seeds ran out of host memory"
