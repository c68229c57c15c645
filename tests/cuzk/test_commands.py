"""``cuzklab logs parse``: one JSON object, trace files, a readable report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuzklab.cli import main
from cuzklab.trace import Trace

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"


def test_json_prints_exactly_one_object(capsys, tmp_path):
    files = [str(SAMPLES / n) for n in ("cuzk-daemon.log", "cuzk-bench-batch.txt",
                                        "cuzk-status.json")]
    rc = main(["logs", "parse", *files, "--json", "--trace", str(tmp_path / "t.parquet"),
               "--perfetto", str(tmp_path / "t.json")])
    assert rc == 0
    out = capsys.readouterr().out
    doc = json.loads(out)                      # fails on anything but one JSON value
    assert isinstance(doc, dict)
    for key in ("proofs", "failed", "wall_s", "seconds_per_proof", "proof_latency_s_mean",
                "peak_rss_gib", "gpu_busy_fraction", "stage_s", "bottleneck", "oom", "parse"):
        assert key in doc
    assert doc["source"] == "cuzk-log"
    assert doc["parse"]["malformed"] == 0 and doc["parse"]["parsed"]["timeline"] == 157
    assert doc["bench"]["seconds_per_proof"] == 63.5
    t = Trace.load(tmp_path / "t.parquet")
    assert t.summary()["proofs"] == doc["proofs"]
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"]


def test_human_report_names_the_malformed_lines(capsys):
    rc = main(["logs", "parse", str(SAMPLES / "cuzk-daemon-killed.log")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "malformed 2" in out
    assert "cut while being written" in out
    assert "run failed:" in out and "incomplete" in out


def test_missing_file_is_a_clean_error(capsys, tmp_path):
    rc = main(["logs", "parse", str(tmp_path / "none.log"), "--json"])
    assert rc == 2
    assert "not found" in capsys.readouterr().err


@pytest.mark.parametrize("argv,parts", [
    (["--config", "{d}/missing.toml"], ["--config ", "missing.toml: no such file"]),
    (["--config", "{d}/missing"], ["--config ", "missing: no such file"]),
    (["--config", "{d}/adir"], ["--config ", "adir: is a folder, not a file"]),
    (["--config", "{d}/bin.toml"], ["--config ", "bin.toml: not UTF-8 text"]),
    (["--config", "{d}/bad.toml"], ["--config ", "bad.toml: toml: not valid TOML"]),
    (["--config", "{d}/inf.toml"], ["--config ", "inf.toml: memory_gib: must be a finite number"]),
    (["--gpu-workers-per-device", "0"], ["argument --gpu-workers-per-device: must be >= 1, got 0"]),
    (["--gpu-workers-per-device", "x"], ["--gpu-workers-per-device: expected an integer >= 1"]),
    (["--partitions", "-1"], ["argument --partitions: must be >= 1, got -1"]),
    (["--trace", "{d}/adir"], ["--trace ", "adir: is a folder; give a file name"]),
    (["--perfetto", "{d}/adir"], ["--perfetto ", "adir: is a folder; give a file name"]),
    (["--trace", "{d}/empty.toml/t.parquet"], ["--trace ", "empty.toml is a file, not a folder"]),
])
def test_bad_options_get_a_clear_error_before_work(cli_error, bad_files, monkeypatch, argv, parts):
    import cuzklab.cuzk.logs as L

    def fail(*args, **kwargs):
        raise AssertionError("the logs were parsed before the options were checked")
    monkeypatch.setattr(L, "parse_logs", fail)
    argv = [a.format(d=bad_files) for a in argv]
    cli_error(["logs", "parse", str(SAMPLES / "cuzk-daemon.log"), *argv], *parts)


@pytest.mark.parametrize("text", ["node-07\n", "", "no newline at the end",
                                  "{\"hello\": 1}\n"])
def test_a_file_with_no_cuzk_content_is_an_error(tmp_path, capsys, text):
    f = tmp_path / "hostname"
    f.write_text(text)
    assert main(["logs", "parse", str(f), "--json"]) == 2
    err = capsys.readouterr()
    assert err.out == ""
    assert err.err.strip() == (f"cuzklab: error: no cuzk daemon, cuzk-bench or /status "
                               f"content found in {f}")
    # Named among good files too.
    assert main(["logs", "parse", str(SAMPLES / "cuzk-daemon.log"), str(f)]) == 2
    assert f"content found in {f}" in capsys.readouterr().err


@pytest.mark.parametrize("names", [("cuzk-daemon.log",), ("cuzk-daemon-killed.log",),
                                   ("cuzk-bench-batch.txt",), ("cuzk-status.json",),
                                   ("cuzk-daemon.log", "cuzk-bench-batch.txt",
                                    "cuzk-status.json")])
def test_parse_statistics_add_up_for_every_input_kind(capsys, names):
    assert main(["logs", "parse", *[str(SAMPLES / n) for n in names], "--json"]) == 0
    st = json.loads(capsys.readouterr().out)["parse"]
    total = sum(len((SAMPLES / n).read_text(encoding="utf-8").splitlines()) for n in names)
    assert st["lines_read"] == total
    assert st["lines_read"] == st["parsed_total"] + st["other"] + st["malformed"]


def test_status_json_lines_count_each_line(tmp_path, capsys):
    snap = json.loads((SAMPLES / "cuzk-status.json").read_text())
    f = tmp_path / "status.jsonl"
    f.write_text(json.dumps(snap) + "\n\n" + json.dumps({**snap, "uptime_secs": 95.0})
                 + "\n{\"uptime_secs\": 1}\nnot json\n")
    assert main(["logs", "parse", str(f), "--json"]) == 0
    st = json.loads(capsys.readouterr().out)["parse"]
    assert (st["lines_read"], st["parsed_total"], st["other"], st["malformed"]) == (5, 2, 1, 2)
    assert st["status_snapshots"] == 2


def test_daemon_version_chooses_the_defaults_of_the_config(tmp_path, capsys):
    toml = tmp_path / "cuzk.toml"
    toml.write_text("[synthesis]\npartition_workers = 12\n")
    log = str(SAMPLES / "cuzk-daemon.log")
    for version, pw in (("phase9", 12), (None, 18)):
        extra = ["--daemon-version", version] if version else []
        trace = tmp_path / f"{version}.parquet"
        assert main(["logs", "parse", log, "--config", str(toml), "--trace", str(trace),
                     *extra]) == 0
        assert Trace.load(trace).meta["config"]["partition_workers"] == pw
