"""compare --logs: the model beside a cuzk daemon's own runs, read from their logs."""

from __future__ import annotations

import json
import re

import pytest

from cuzklab.calibrate import calibrate_logs
from cuzklab.calibrate.compare import format_table
from cuzklab.calibrate.logcompare import after_startup, compare_logs, startup_s
from cuzklab.calibrate.toml import write_profile
from cuzklab.cli import main
from cuzklab.cuzk import parse_logs
from cuzklab.errors import ConfigError
from cuzklab.model import PipelineConfig
from cuzklab.sim import simulate

SAMPLE = "data/samples/cuzk-daemon.log"
PHASE9 = "data/samples/cuzk-daemon-phase9.log"
KILLED = "data/samples/cuzk-daemon-killed.log"
BENCH = "data/samples/cuzk-bench-batch.txt"
STATUS = "data/samples/cuzk-status.json"


def _first_synth_ms(path) -> int:
    """The first SYNTH_START's milliseconds, read from the log's text (not the parser)."""
    for line in open(path, encoding="utf-8"):
        m = re.match(r"TIMELINE,(\d+),SYNTH_START,", line)
        if m:
            return int(m.group(1))
    raise AssertionError("no SYNTH_START line")


def test_each_run_is_its_logs_beside_the_model_of_the_logged_configuration():
    res = compare_logs([SAMPLE], profile="porep-32g")
    assert res["against"] == "logs" and len(res["rows"]) == 1
    row = res["rows"][0]
    cfg = parse_logs([SAMPLE]).inferred_config()
    assert row["config"] == cfg.to_dict()
    # the model side is the profile simulated on that configuration, nothing else
    spp = simulate(cfg, "porep-32g").summary()["seconds_per_proof"]
    assert row["model"]["seconds_per_proof"] == spp
    logged = row["live"]["seconds_per_proof"]
    assert row["error"]["seconds_per_proof"] == pytest.approx(spp / logged - 1, abs=1e-4)
    assert row["logs"] == [SAMPLE] and row["releases"] == ["head"] and not row["fitted"]


def test_the_srs_load_before_the_first_synthesis_is_left_out_of_the_logged_side():
    # the sample's daemon loaded its SRS (elapsed_ms=38214) before any synthesis: the logged
    # figures count from its first synthesis, as the model starts with the SRS resident
    first = _first_synth_ms(SAMPLE) / 1000.0
    lp = parse_logs([SAMPLE])
    assert startup_s(lp.trace) == pytest.approx(first)
    proofs = lp.trace.proofs()
    done = proofs[proofs["status"] == "ok"]
    by_hand = (done["completed"].max() - first) / len(done)
    row = compare_logs([SAMPLE], profile="porep-32g")["rows"][0]
    assert row["live"]["startup_s"] == pytest.approx(first)
    assert row["live"]["seconds_per_proof"] == pytest.approx(by_hand, abs=1e-3)
    assert row["live"]["seconds_per_proof_with_startup"] == \
        lp.trace.summary()["seconds_per_proof"]
    # the cut trace keeps every span, moved back by the start-up
    cut = after_startup(lp.trace, first)
    assert len(cut.spans) == len(lp.trace.spans)
    assert cut.spans["start"].min() == pytest.approx(0.0, abs=1e-6)
    assert cut.duration == pytest.approx(lp.trace.duration - first)


def test_a_run_without_a_load_before_it_keeps_its_start():
    lp = parse_logs([SAMPLE])
    lp.trace.meta["cuzk"]["srs_load_ms"] = []
    assert startup_s(lp.trace) is None
    # a load far shorter than the wait before the first synthesis is not that wait
    lp.trace.meta["cuzk"]["srs_load_ms"] = [1000]
    assert startup_s(lp.trace) is None


def test_the_run_a_profile_was_fitted_on_is_marked_and_the_others_are_judged(tmp_path):
    res = calibrate_logs([SAMPLE], name="node-a")
    path = write_profile(res["text"], "node-a", tmp_path)
    out = compare_logs([SAMPLE, PHASE9], profile=path)
    fitted = {r["logs"][0]: r["fitted"] for r in out["rows"]}
    assert fitted == {SAMPLE: True, PHASE9: False}
    v = out["verdict"]
    assert v["fitted"] == 1 and v["judged"] == 1
    assert v["worst"]["config"].startswith("lock=interlock")


def test_a_killed_run_is_kept_failed_and_not_judged():
    out = compare_logs([SAMPLE, KILLED], profile="porep-32g")
    killed = out["rows"][1]
    assert killed["live"]["failed"] and killed["live"]["seconds_per_proof"] is None
    assert killed["error"]["seconds_per_proof"] is None
    assert out["verdict"]["judged"] == 1
    text = format_table(out)
    assert "(failed: incomplete; not judged)" in text


def test_the_files_of_one_run_are_read_together():
    out = compare_logs([[SAMPLE, BENCH, STATUS]], profile="porep-32g")
    row = out["rows"][0]
    assert row["logs"] == [SAMPLE, BENCH, STATUS]
    # cuzk-bench's -j is the run's concurrency
    assert row["config"]["concurrency"] == parse_logs([SAMPLE, BENCH, STATUS]).bench.concurrency


def test_overrides_set_what_the_logs_do_not_show():
    out = compare_logs([SAMPLE], profile="porep-32g", overrides={"gpu_threads": 64})
    assert out["rows"][0]["config"]["gpu_threads"] == 64
    with pytest.raises(ConfigError, match="logs: no such file"):
        compare_logs(["no-such.log"], profile="porep-32g")
    with pytest.raises(ConfigError, match="logs: give at least one"):
        compare_logs([], profile="porep-32g")


def test_the_table_says_what_was_not_measured_and_what_was_left_out():
    text = format_table(compare_logs([SAMPLE], profile="porep-32g"))
    first = text.splitlines()[0]
    assert "against cuzk daemon logs (1 run)" in first and "model / daemon log - 1" in first
    # the logs hold no RSS: the target is not judged, rather than "NOT met"
    assert "peak RSS: not measured on the 1 rows not fitted" in text
    assert "cuzk-daemon.log: the daemon's first 38.2 s were its SRS load" in text
    assert "(60.651 s/proof with it)" in text


def test_cli_compare_logs_prints_and_writes_json_and_the_page(tmp_path, capsys):
    js, page = tmp_path / "c.json", tmp_path / "c.html"
    rc = main(["compare", "--profile", "porep-32g@phase9", "--logs", PHASE9,
               f"{SAMPLE},{STATUS}", "--json", str(js), "--html", str(page)])
    out = capsys.readouterr().out
    assert rc == 0 and "against cuzk daemon logs (2 runs)" in out
    assert "cuzk-daemon-phase9.log (phase9, phase10)" in out
    data = json.loads(js.read_text())
    assert data["against"] == "logs" and [r["logs"] for r in data["rows"]] == \
        [[PHASE9], [SAMPLE, STATUS]]
    assert all("traces" not in r for r in data["rows"])
    html = page.read_text()
    assert "against a cuzk daemon's logs (2 runs)" in html
    assert "s/proof daemon log" in html and "measured (cuzk-log)" in html
    assert "its time axis starts after the SRS load (30.1 s)" in html


@pytest.mark.parametrize("extra,option", [
    (["--log2-constraints", "4"], "--log2-constraints"),
    (["--repeats", "2"], "--repeats"),
    (["--track-host"], "--track-host"),
    (["--config", "cuzk.toml"], "--config"),
    (["--contention", "0,1"], "--contention"),
    (["--measured", "x.json"], "--logs"),
    (["--set", "bogus=1"], "--set"),
])
def test_bad_inputs_with_logs_name_the_option(cli_error, extra, option):
    msg = cli_error(["compare", "--profile", "porep-32g", "--logs", SAMPLE, *extra])
    assert option in msg


def test_two_runs_in_one_are_refused_before_any_fit(cli_error):
    # two daemon logs read as one run would overlay two timelines on one clock (4 proofs in
    # flight, 20 syntheses at once): neither command fits or judges that
    with pytest.raises(ConfigError, match="started 2 times"):
        compare_logs([[SAMPLE, PHASE9]], profile="porep-32g")
    with pytest.raises(ConfigError, match="started 2 times"):
        calibrate_logs([SAMPLE, PHASE9], name="x")
    msg = cli_error(["calibrate", "--logs", SAMPLE, PHASE9, "--name", "x"])
    assert "--logs" in msg and "started 2 times" in msg
    msg = cli_error(["compare", "--profile", "porep-32g", "--logs", f"{SAMPLE},{PHASE9}"])
    assert "--logs" in msg and "give the files of one run" in msg
    # one run's own files (its log, cuzk-bench report, /status) are one start
    compare_logs([[SAMPLE, BENCH, STATUS]], profile="porep-32g")


def test_a_live_profile_is_not_a_daemons(cli_error):
    # a profile of the live executor's 2^20-row partitions would put a 32 GiB daemon's run
    # 89 % "fast": refused, naming the profiles that model the daemon
    msg = cli_error(["compare", "--profile", "porep-live-2p20-h200", "--logs", SAMPLE])
    assert "--profile" in msg and "2^20 rows" in msg and "porep-32g" in msg


def test_a_run_with_no_synthesis_is_refused(tmp_path):
    # a log cut before the first synthesis (the daemon's start, its SRS load) holds no
    # pipeline: nothing to judge the model on, and nothing to infer its configuration from
    head = tmp_path / "start.log"
    head.write_text("".join(open(SAMPLE, encoding="utf-8").readlines()[:12]))
    with pytest.raises(ConfigError, match="no synthesis in these logs"):
        compare_logs([head], profile="porep-32g")


def test_a_missing_log_is_named(cli_error):
    msg = cli_error(["compare", "--profile", "porep-32g", "--logs", "no-such.log"])
    assert "--logs" in msg and "no-such.log" in msg
    msg = cli_error(["compare", "--profile", "porep-32g", "--logs", ","])
    assert "--logs" in msg


def test_the_logged_configuration_is_a_config_the_model_takes():
    # what the logs show is a whole configuration: the model runs it as it is
    cfg = PipelineConfig.from_dict(compare_logs([PHASE9], profile="porep-32g@phase9")
                                   ["rows"][0]["config"])
    assert cfg.lock == "interlock" and cfg.admission == "semaphore_prefix"


def test_a_verdict_the_logs_cannot_show_is_judged_as_they_can(tmp_path):
    # memory_bandwidth is the model's synthesis-bound verdict with its ddr_gbps counter
    # saturated; a daemon log records no bandwidth, so its side can only say synthesis
    from cuzklab.calibrate.logcompare import as_logged
    from cuzklab.model.profile import Profile
    lp = parse_logs([SAMPLE, BENCH])
    assert not len(lp.trace.counter("ddr_gbps"))
    model = {"bottleneck": "memory_bandwidth"}
    as_logged(model, lp.trace)
    assert model == {"bottleneck": "synthesis", "bottleneck_detail": "memory_bandwidth"}
    other = {"bottleneck": "gpu"}
    as_logged(other, lp.trace)
    assert other == {"bottleneck": "gpu"}
    # a trace that records the bandwidth (the model's own) keeps the finer verdict
    sim = simulate(PipelineConfig(proofs=2, concurrency=2), Profile.load("porep-32g"))
    assert len(sim.counter("ddr_gbps"))
    kept = {"bottleneck": "memory_bandwidth"}
    as_logged(kept, sim)
    assert kept == {"bottleneck": "memory_bandwidth"}
    # the table prints both and says why
    res = calibrate_logs([SAMPLE, BENCH], name="verdict-logs")
    path = write_profile(res["text"], "verdict-logs", tmp_path)
    out = compare_logs([[SAMPLE, BENCH]], profile=str(path))
    (row,) = out["rows"]
    assert row["model"]["bottleneck_detail"] == "memory_bandwidth"
    assert row["live"]["bottleneck"] == "synthesis" and row["error"]["same_verdict"]
    text = format_table(out)
    assert "synthesis (memory_bandwidth)|synthesis" in text
    assert "A verdict in brackets is the model's own where the logs cannot show it" in text
