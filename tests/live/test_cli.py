"""``cuzklab live``: the simulate-style summary, its JSON, files, and one-line errors."""

from __future__ import annotations

import json

import pytest

from cuzklab.cli import main

SMALL = ["--log2-constraints", "4", "--set", "proofs=1", "--set", "concurrency=1",
         "--set", "partitions=1", "--set", "partition_workers=1"]


def test_live_prints_the_summary_and_writes_trace_and_perfetto(tmp_path, capsys):
    from cuzklab.trace import load
    out = tmp_path / "run.parquet"
    pf = tmp_path / "run.json"
    rc = main(["live", *SMALL, "--trace", str(out), "--perfetto", str(pf)])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "live cpu" in text and "2^4 rows" in text and "14 constraints" in text
    assert "bottleneck" in text and "1 of 1 partition proofs pass" in text
    trace = load(out)
    assert trace.source == "live" and trace.summary()["proofs"] == 1
    events = json.loads(pf.read_text())["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
    assert {"synth", "gpu0"} <= names


def test_live_json_is_one_object(capsys):
    rc = main(["live", *SMALL, "--json", "--no-verify"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.count("\n") == 1
    s = json.loads(out)
    assert s["source"] == "live" and s["proofs"] == 1 and s["verification"]["skipped"] is True
    assert 0 <= s["overhead_fraction"] < 1 and s["log2_constraints"] == 4


@pytest.mark.parametrize("argv, parts", [
    (["--log2-constraints", "3"], ["--log2-constraints", "[4, 26]"]),
    (["--log2-constraints", "x"], ["--log2-constraints", "integer"]),
    (["--log2-constraints", "4", "--backend", "tpu"], ["--backend", "cpu", "gpu"]),
    (["--log2-constraints", "4", "--set", "lock=foo"], ["lock", "split_async"]),
    (["--log2-constraints", "4", "--set", "warp=1"], ["warp", "unknown key"]),
    (["--log2-constraints", "4", "--set", "admission=budget", "--set", "budget_gib=1e-9"],
     ["budget_gib", "never be admitted"]),
    (["--log2-constraints", "4", "--trace", "/"], ["--trace", "folder"]),
])
def test_live_errors_are_one_line(cli_error, argv, parts):
    cli_error(["live", *argv], *parts)


def test_ctrl_c_writes_the_partial_trace_and_exits_130(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from cuzklab.trace import load
    out = tmp_path / "partial.parquet"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    # 400 tiny proofs run for about a minute: the Ctrl-C lands well before the end
    proc = subprocess.Popen(
        [sys.executable, "-m", "cuzklab", "live", "--log2-constraints", "4", "--set", "proofs=400",
         "--set", "concurrency=1", "--set", "partitions=1", "--set", "partition_workers=1",
         "--no-verify", "--trace", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
        # Ctrl-C's default action even when this test runs from a shell's background job,
        # whose children start with SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = b""
    while b"cuzklab live" not in seen:       # the progress bar: the run is under way
        chunk = proc.stderr.read1(4096)
        assert chunk, f"the run ended before it could be interrupted: {seen!r}"
        seen += chunk
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert b"interrupted" in stderr and b"Traceback" not in stderr
    trace = load(out)
    assert trace.failed and trace.meta["failure"]["reason"] == "interrupted"
    assert 0 < trace.summary()["proofs"] < 400
