"""``cuzklab simulate --workload``: a mixed workload from the command line."""

import json

from cuzklab.cli import main
from cuzklab.trace import load

SMALL = ('[[stream]]\nkind = "porep-c2"\narrival = "closed"\ncount = 2\nin_flight = 2\n'
         '[[stream]]\nkind = "winning-post"\narrival = "periodic"\nperiod_s = 20.0\ncount = 2\n')


def test_workload_table_has_a_line_per_kind(tmp_path, capsys):
    wl = tmp_path / "w.toml"
    wl.write_text(SMALL)
    trace = tmp_path / "t.parquet"
    rc = main(["simulate", "--workload", str(wl), "--trace", str(trace)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "workload         porep-c2 closed j=2 x2, winning-post every 20 s" in out
    assert "winning-post     2 done (critical)" in out and "30 s deadline" in out
    t = load(trace)            # the workload and the proof kinds survive the Parquet file
    assert [r["kind"] for r in t.meta["proofs"]].count("winning-post") == 2
    assert t.summary()["kinds"]["winning-post"]["proofs"] == 2


def test_curio_s_limit_and_misses_over_seeds_are_printed(tmp_path, capsys):
    """With MaxPending 1 held by a PoRep proof (about a minute), both WinningPoSt, arriving
    at 5 and 6 s, wait for it and miss their 30 s: each kind line says how long it
    waited, and --seeds sums the misses over the seeds."""
    wl = tmp_path / "w.toml"
    wl.write_text("max_pending = 1\n" + SMALL.replace("period_s = 20.0",
                                                       "period_s = 1.0\noffset_s = 5.0"))
    assert main(["simulate", "--workload", str(wl), "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "; Curio's MaxPending 1 (every kind)" in out
    assert "for a MaxPending slot" in out
    assert "  winning-post     4 of 4 proofs missed the 30 s deadline over the 2 seeds" in out
    assert main(["simulate", "--json", "--workload", str(wl), "--seeds", "2"]) == 0
    agg = json.loads(capsys.readouterr().out)["over_seeds"]["deadline_misses"]["winning-post"]
    assert agg == {"missed": 4, "proofs": 4, "deadline_s": 30.0}


def test_workload_json(tmp_path, capsys):
    wl = tmp_path / "w.toml"
    wl.write_text(SMALL)
    assert main(["simulate", "--json", "--workload", str(wl)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert set(s["kinds"]) == {"porep-c2", "winning-post"}
    assert s["kinds"]["porep-c2"]["proofs"] == 2


def test_bad_workload_is_one_error_naming_the_key(tmp_path, capsys):
    wl = tmp_path / "w.toml"
    wl.write_text('[[stream]]\nkind = "window-post"\narrival = "periodic"\n')
    assert main(["simulate", "--workload", str(wl)]) == 2
    err = capsys.readouterr().err
    assert "--workload: stream[0].period_s: a periodic stream needs it" in err
    assert main(["simulate", "--workload", "no-such-workload"]) == 2
    assert "unknown workload 'no-such-workload'" in capsys.readouterr().err


def test_shipped_workloads_load():
    from cuzklab.sim.workload import Workload, list_workloads
    names = list_workloads()
    assert {"curio-node-2h", "porep-2h", "porep-wpost-winning"} <= set(names)
    for n in names:
        assert Workload.load(n).streams
