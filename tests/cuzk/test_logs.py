"""The sample logs parse into the numbers written in them.

Oracles: plain regexes over the sample files (not the parser), the schedule
that wrote the samples (tests/cuzk/sample_writer.py), and the documented
relations between the daemon's own figures (cuzk-bench ``prove=`` is the sum
of the partitions' ``gpu_ms``; a call's GPU stages add up to ``gpu_total_ms``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from statistics import mean

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuzklab.cuzk import parse_logs, parse_texts
from cuzklab.cuzk.lines import strip_ansi
from cuzklab.cuzk.logs import LogParseError
from cuzklab.trace import STAGES, Trace

from .sample_writer import Run, write_samples

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
DAEMON = SAMPLES / "cuzk-daemon.log"
KILLED = SAMPLES / "cuzk-daemon-killed.log"
BENCH = SAMPLES / "cuzk-bench-batch.txt"
STATUS = SAMPLES / "cuzk-status.json"


def ints(path: Path, pattern: str) -> list[int]:
    return [int(x) for x in re.findall(pattern, path.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def main():
    return parse_logs([DAEMON, BENCH, STATUS])


@pytest.fixture(scope="module")
def killed():
    return parse_logs(KILLED)


def test_committed_samples_are_what_the_writer_writes(tmp_path):
    for name, path in write_samples(tmp_path).items():
        assert path.read_bytes() == (SAMPLES / name).read_bytes(), name


def test_line_counts_by_kind(main):
    text = DAEMON.read_text(encoding="utf-8")
    lines = text.splitlines()
    st = main.stats
    assert st.lines_read == len(lines) + len(BENCH.read_text().splitlines()) \
        + len(STATUS.read_text().splitlines())
    assert st.parsed["timeline"] == sum(x.startswith("TIMELINE,") for x in lines)
    assert st.parsed["cuzk_timing"] == sum(x.startswith("CUZK_TIMING:") and "=" in x
                                           for x in lines)
    assert st.parsed["cuzk_ntt_h"] == sum(x.startswith("CUZK_NTT_H:") for x in lines)
    assert st.parsed["tracing"] == sum("\x1b[" in x for x in lines)
    assert st.ansi_lines == sum("\x1b[" in x for x in lines)
    assert st.status_snapshots == 1
    assert st.parsed["status"] == len(STATUS.read_text().splitlines())
    assert st.malformed == 0 and st.unattributed == 0 and st.other == st.blank
    assert st.lines_read == sum(st.parsed.values()) + st.other + st.malformed


def test_stage_means_equal_the_numbers_in_the_log(main):
    s = main.trace.spans
    pat = {
        "ntt_h": r"ntt_msm_h_ms=(\d+)", "prep_msm": r"prep_msm_ms=(\d+)",
        "barrier_wait": r"barrier_wait_ms=(\d+)", "batch_add": r"batch_add_ms=(\d+)",
        "tail_msm": r"tail_msm_ms=(\d+)", "b_g2_msm": r"b_g2_msm_ms=(\d+)",
        "mutex_wait": r"mutex_wait_ms=(\d+)", "synth": r"SYNTH_END,[^,]+,partition=\d+,"
                                                       r"synth_ms=(\d+)",
    }
    for stage, rx in pat.items():
        expected = ints(DAEMON, rx)
        got = s[s.stage == stage]
        assert len(got) == len(expected), stage
        assert mean(got.end - got.start) == pytest.approx(mean(expected) / 1000, abs=1e-9), stage
        summary = main.summary()["stage_s"][stage]
        assert summary == pytest.approx(mean(expected) / 1000, abs=1e-4)


def test_only_stages_the_logs_show(main):
    shown = set(main.trace.spans.stage)
    assert shown == {"synth", "gpu_queue", "mutex_wait", "ntt_h", "barrier_wait", "batch_add",
                     "tail_msm", "prep_msm", "b_g2_msm"}
    assert shown <= set(STAGES)          # no h2d, epilogue, queue or verify invented


def test_two_interleaved_workers_get_their_own_lines_back(main):
    # The schedule that wrote the sample knows which call printed which line.
    run = Run(proofs=3, concurrency=2, fail=(2, 4), snapshot_at=90000, seed=7).simulate()
    df = main.partitions.set_index(["job_id", "partition"])
    assert len(run.truth) == 20
    for (p, i), truth in run.truth.items():
        row = df.loc[(run.job_ids[p], i)]
        for key, value in truth.items():
            assert row[key] == value, (p, i, key)
    # Both workers were used and their CUDA regions never overlap on the one GPU.
    gpu = main.trace.spans[main.trace.spans.stage.isin(["ntt_h", "barrier_wait", "batch_add",
                                                        "tail_msm"])]
    assert set(gpu.lane) == {"gpu0.w0", "gpu0.w1"}
    regions = gpu.groupby(["proof", "partition"]).agg(start=("start", "min"), end=("end", "max"))
    regions = regions.sort_values("start")
    assert (regions.start.to_numpy()[1:] >= regions.end.to_numpy()[:-1] - 1e-9).all()


def test_gpu_stages_add_up_to_gpu_total(main):
    p = main.partitions.dropna(subset=["gpu_total_ms"])
    total = p.ntt_msm_h_ms + p.barrier_wait_ms + p.batch_add_ms + p.tail_msm_ms
    assert (total == p.gpu_total_ms).all()
    # barrier_wait ends when prep_msm ends (both spans were placed independently).
    s = main.trace.spans
    for (proof, part), g in s.groupby(["proof", "partition"]):
        st = dict(zip(g.stage, zip(g.start, g.end)))
        if "barrier_wait" in st and st["barrier_wait"][1] > st["barrier_wait"][0]:
            assert st["barrier_wait"][1] == pytest.approx(st["prep_msm"][1], abs=0.002)


def test_proofs_and_the_failed_job(main):
    proofs = main.proofs.set_index("proof")
    assert list(proofs.status) == ["ok", "ok", "failed"]
    assert "partition synthesis failed" in proofs.loc[2, "failure"]
    assert "constraint system is not satisfied" in proofs.loc[2, "failure"]
    totals = ints(DAEMON, r"proof assembled.*?total_ms\x1b\[0m\x1b\[2m=\x1b\[0m(\d+)")
    assert list(proofs.total_ms[:2]) == totals
    # submitted = completion - total_ms; completion = the last GPU_END of the proof.
    ends = main.partitions.groupby("proof").gpu_end_s.max()
    for k in (0, 1):
        assert proofs.loc[k, "completed_s"] == ends[k]
        assert proofs.loc[k, "latency_s"] == pytest.approx(totals[k] / 1000)
    summary = main.summary()
    assert summary["proofs"] == 2 and summary["failed"] == 1
    assert summary["run_failed"] is False
    assert main.trace.meta["cuzk"]["failed_jobs"][0]["job_id"] == proofs.loc[2, "job_id"]
    assert main.trace.meta["cuzk"]["stopped_cleanly"] is True


def test_bench_report_numbers(main):
    b = main.bench
    assert (b.mode, b.proof_type, b.count, b.concurrency) == ("batch", "porep", 3, 2)
    text = BENCH.read_text(encoding="utf-8")
    rows = re.findall(r"\[(\d+)/3\] (\w+) \u2014 ([0-9.]+)s \(prove=(\d+) ms, queue=(\d+) ms\)",
                      text)
    df = b.proofs_frame()
    assert [(str(r.index), r.status, f"{r.wall_s:.1f}", str(r.prove_ms), str(r.queue_ms))
            for r in df.itertuples()] == rows
    assert b.summary["completed"] == 2 and b.summary["failed"] == 1
    assert b.summary["total_time_s"] == float(re.search(r"total time:\s+([0-9.]+)s", text)[1])
    assert b.summary["seconds_per_proof"] == float(re.search(r"\(([0-9.]+)s/proof\)", text)[1])
    assert b.summary["throughput_proofs_per_min"] == float(
        re.search(r"throughput:\s+([0-9.]+) proofs/min", text)[1])
    # cuzk-bench's prove= is the daemon's GPU time summed over the proof's partitions.
    sums = main.partitions.groupby("proof").gpu_ms.sum()
    assert df.prove_ms[0] == sums[0] and df.prove_ms[1] == sums[1]


def test_status_snapshot(main):
    snap = json.loads(STATUS.read_text())
    assert main.status == [snap]
    row = main.status_frame().iloc[0]
    assert row.uptime_secs == snap["uptime_secs"]
    assert row.used_bytes == snap["memory"]["used_bytes"]
    c = main.trace.counter("budget_used_gib")
    assert list(c.t) == [snap["uptime_secs"]]
    assert c.value[0] == snap["memory"]["used_bytes"] / 2**30
    assert main.summary()["status"]["pipelines"] == len(snap["pipelines"])


def test_counters_follow_the_timeline(main):
    text = DAEMON.read_text(encoding="utf-8")
    q = main.trace.counter("gpu_queue_depth")
    assert len(q) == text.count(",GPU_QUEUE,") + text.count(",GPU_PICKUP,")
    assert q.value.iloc[-1] == 0 and q.value.min() >= 0
    s = main.trace.counter("synth_running")
    assert s.value.max() == 10          # pw=10 synthesis permits


def test_colours_do_not_change_the_result(main):
    plain = parse_texts({"plain": strip_ansi(DAEMON.read_text(encoding="utf-8"))})
    coloured = parse_logs(DAEMON)
    assert plain.stats.ansi_lines == 0 and coloured.stats.ansi_lines > 0
    a, b = plain.trace.spans, coloured.trace.spans
    assert a.equals(b)
    assert plain.proofs.drop(columns="failure").equals(coloured.proofs.drop(columns="failure"))


def test_clock_places_tracing_lines_on_the_timeline(main):
    clock = main.trace.meta["cuzk"]["clock"]
    assert clock["method"] == "starting cuzk engine"
    # Without that line, SYNTH_END / 'partition synthesis complete' pairs give the same epoch.
    text = "\n".join(x for x in DAEMON.read_text().splitlines()
                     if "starting cuzk engine" not in x) + "\n"
    other = parse_texts({"x": text})
    c2 = other.trace.meta["cuzk"]["clock"]
    assert c2["pairs"] == 29
    assert other.trace.meta["cuzk"]["epoch_wall"] == pytest.approx(
        main.trace.meta["cuzk"]["epoch_wall"], abs=0.005)


def test_killed_run_is_counted_not_fatal(killed):
    st = killed.stats
    lines = KILLED.read_text(encoding="utf-8").split("\n")
    assert st.lines_read == len(lines)
    assert st.malformed == 2
    by_line = {s["line"]: s for s in st.malformed_samples}
    assert by_line[len(lines)]["kind"] == "cut"
    assert by_line[len(lines)]["text"] == lines[-1] == "CUZK_TIMING: gpu_ti"
    torn = next(i for i, x in enumerate(lines, 1) if "pushTIMELINE," in x)
    assert by_line[torn]["kind"] == "mixed"
    assert st.other == 1                 # the torn line's second half
    proofs = killed.proofs.set_index("proof")
    assert list(proofs.status) == ["ok", "incomplete"]
    s = killed.summary()
    assert s["run_failed"] is True and s["failure_reason"] == "incomplete"
    assert s["proofs"] == 1 and s["failed"] == 1
    # The GPU_QUEUE event lost in the torn line leaves that partition without a gpu_queue span.
    q = killed.trace.spans[(killed.trace.spans.stage == "gpu_queue")
                           & (killed.trace.spans.proof == 0)]
    assert sorted(q.partition) == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    # Calls cut by the kill keep what they printed; nothing is invented for the rest.
    cut = killed.partitions[killed.partitions.status == "cut"]
    assert len(cut) > 0 and cut.gpu_end_s.isna().all()


def test_trace_round_trips_and_exports(main, tmp_path):
    t = main.trace
    assert t.source == "cuzk-log"
    t.save(tmp_path / "t.parquet")
    back = Trace.load(tmp_path / "t.parquet")
    assert back.spans.equals(t.spans)
    assert back.summary() == t.summary()
    doc = t.to_perfetto(tmp_path / "t.json")
    assert doc["traceEvents"] and (tmp_path / "t.json").exists()


def test_summary_is_json(main):
    json.dumps(main.summary(), allow_nan=False)


def _call(t0, job, part, worker, lines):
    return ([f"TIMELINE,{t0},GPU_START,{job},worker={worker},partition={part}"] + lines)


def test_multi_gpu_call_is_split_by_gpu_tid():
    # A monolithic call over two GPUs prints one line per gpu_tid.
    text = "\n".join([
        "TIMELINE,0,SYNTH_START,j1,kind=porep-c2",
        "TIMELINE,50000,SYNTH_END,j1,synth_ms=50000",
        "TIMELINE,50000,GPU_QUEUE,j1,monolithic",
        "TIMELINE,50001,GPU_PICKUP,j1,worker=0",
        "TIMELINE,50002,GPU_START,j1,worker=0",
        "CUZK_TIMING: pre_lock_cpu_ms=100 mutex_wait_ms=0",
        "CUZK_TIMING: gpu_tid=1 ntt_msm_h_ms=7000",
        "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=6900",
        "CUZK_TIMING: gpu_tid=0 barrier_wait_ms=0",
        "CUZK_TIMING: gpu_tid=1 barrier_wait_ms=0",
        "CUZK_TIMING: gpu_tid=0 batch_add_ms=3000",
        "CUZK_TIMING: gpu_tid=1 batch_add_ms=3100",
        "CUZK_TIMING: gpu_tid=1 tail_msm_ms=500 gpu_total_ms=10600",
        "CUZK_TIMING: gpu_tid=0 tail_msm_ms=600 gpu_total_ms=10500",
        "CUZK_TIMING: mutex_held_ms=10600 total_start_fn_ms=10700",
        "TIMELINE,84000,GPU_END,j1,worker=0,gpu_ms=34000", ""])
    r = parse_texts({"mono": text})
    s = r.trace.spans
    ntt = s[s.stage == "ntt_h"].set_index("gpu")
    assert ntt.loc[0, "end"] - ntt.loc[0, "start"] == pytest.approx(6.9)
    assert ntt.loc[1, "end"] - ntt.loc[1, "start"] == pytest.approx(7.0)
    assert set(s[s.stage == "tail_msm"].lane) == {"gpu0.w0", "gpu1.w0"}
    assert r.proofs.status[0] == "ok" and r.proofs.partitions[0] == 1
    assert (s.partition == -1).all()


def test_without_timeline_times_lines_go_in_order_and_leftovers_are_counted():
    text = "\n".join(
        _call(0, "a", 0, 0, []) + _call(0, "b", 0, 1, [])
        + ["CUZK_TIMING: prep_msm_ms=1500", "CUZK_TIMING: prep_msm_ms=1600",
           "CUZK_TIMING: prep_msm_ms=1700",          # no third call: unattributed
           "CUZK_TIMING: async_dealloc_ms=30"]) + "\n"
    r = parse_texts({"x": text})
    p = r.partitions.set_index("job_id")
    assert p.loc["a", "prep_msm_ms"] == 1500 and p.loc["b", "prep_msm_ms"] == 1600
    assert r.stats.unattributed == 1
    assert r.stats.unattributed_samples[0]["line"] == 5


def test_worker_gpu_map_from_gpu_workers_per_device():
    text = "\n".join(_call(0, "a", 0, 3, ["CUZK_TIMING: pre_lock_cpu_ms=5 mutex_wait_ms=0",
                                          "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=700"])) + "\n"
    assert set(parse_texts({"x": text}).trace.spans.lane) == {"gpu0.w3"}
    r = parse_texts({"x": text}, gpu_workers_per_device=2)
    assert set(r.trace.spans.lane) == {"gpu1.w3"}
    assert r.trace.meta["resources"]["gpus"] == 1


def test_bad_arguments_fail_before_reading(tmp_path):
    with pytest.raises(LogParseError, match="not found"):
        parse_logs(tmp_path / "nope.log")
    with pytest.raises(LogParseError, match="directory"):
        parse_logs(tmp_path)
    with pytest.raises(ValueError, match="gpu_workers_per_device"):
        parse_logs(DAEMON, gpu_workers_per_device=0)
    with pytest.raises(ValueError, match="at least one"):
        parse_logs([])


def test_bad_status_entries_are_counted(tmp_path):
    good = STATUS.read_text().replace("\n", "")
    f = tmp_path / "status.jsonl"
    f.write_text(good + "\n" + '{"uptime_secs": 3}\n' + '{"uptime_secs": 4, "memo\n')
    r = parse_logs(f)
    assert len(r.status) == 1
    assert r.stats.malformed == 2
    assert sorted(s["line"] for s in r.stats.malformed_samples) == [2, 3]


def test_cuzk_bench_single_report():
    text = ("2025-06-02T10:00:00.000001Z  INFO cuzk_bench: submitting proof proof_type=porep\n"
            "\n=== Proof Result ===\n"
            "status:    COMPLETED\n"
            "job_id:    7734d7c1-73ab-4820-b6b9-309d965eda32\n"
            "timings:   total=91234 ms (queue=3 ms, srs=40123 ms, synth=35000 ms, gpu=16000 ms)\n"
            "wall time: 91300 ms\n"
            "proof:     1920 bytes (hex: a1b2...)\n")
    b = parse_texts({"single.out": text}).bench
    assert b.mode == "single"
    assert b.single == {"status": "COMPLETED", "job_id": "7734d7c1-73ab-4820-b6b9-309d965eda32",
                        "total_ms": 91234, "queue_ms": 3, "srs_ms": 40123, "synth_ms": 35000,
                        "gpu_ms": 16000, "wall_ms": 91300, "proof_bytes": 1920}
    failed = parse_texts({"f": "=== Proof Result ===\nstatus:    FAILED\njob_id:    x\n"
                               "error:     partition 3 synthesis failed: boom\n"}).bench
    assert failed.single["status"] == "FAILED" and "boom" in failed.single["error"]


def test_a_bad_bench_summary_value_is_malformed_not_fatal():
    text = BENCH.read_text(encoding="utf-8").replace("total time:    127.0s", "total time:    12")
    r = parse_texts({"b": text})
    assert r.stats.malformed == 1 and r.stats.malformed_samples[0]["kind"] == "bench"
    assert "total_time_s" not in r.bench.summary and r.bench.summary["completed"] == 2


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 494), st.integers(0, 400), st.text(max_size=12)),
                max_size=25))
def test_cut_and_garbled_lines_never_stop_a_parse(edits):
    # Cut real lines at random places and glue random text to them.
    lines = DAEMON.read_text(encoding="utf-8").splitlines()
    for i, cut, junk in edits:
        lines[i] = lines[i][:cut] + junk
    text = "\n".join(lines) + "\n"
    r = parse_texts({"x": text})
    st_ = r.stats
    assert st_.lines_read == len(text.splitlines())
    assert st_.lines_read == st_.other + st_.malformed + sum(st_.parsed.values())
    json.dumps(r.summary(), allow_nan=False)


def test_lanes_and_stages_match_the_simulator(main):
    # A real run and the simulator on the same (inferred) configuration are drawn alike.
    from cuzklab.sim import simulate

    cfg = main.inferred_config()
    assert (cfg.proofs, cfg.concurrency, cfg.partitions, cfg.partition_workers,
            cfg.gpus, cfg.gpu_workers_per_device) == (3, 2, 10, 10, 1, 2)
    sim = simulate(cfg)

    def family(lane):
        return re.sub(r"\d+", "N", lane)

    real_lanes = {family(x) for x in main.trace.spans.lane}
    sim_lanes = {family(x) for x in sim.spans.lane}
    assert real_lanes <= sim_lanes
    assert set(main.trace.spans.stage) <= set(sim.spans.stage) | {"barrier_wait"}
    assert set(main.summary()["stage_s"]) & set(sim.summary()["stage_s"]) >= {
        "synth", "ntt_h", "prep_msm", "b_g2_msm", "batch_add", "tail_msm", "mutex_wait"}


def test_a_phase9_daemon_log_parses_against_its_schedule():
    # The phase 9-10 formats: CHAN_SEND, pre-staging lines with timings, epilogue, no
    # mutex lines. Every value but a few prep/b_g2 swaps of near-simultaneous calls lands
    # on the call that printed it.
    path = SAMPLES / "cuzk-daemon-phase9.log"
    r = parse_logs(path)
    st = r.stats
    assert st.malformed == 0 and st.unattributed == 0 and st.other == 0
    assert st.releases == ["phase9", "phase10"]
    assert set(r.trace.spans.stage) == {"synth", "gpu_queue", "prep_msm", "b_g2_msm",
                                        "epilogue"}
    assert r.proofs.status.tolist() == ["ok", "ok"]
    run = Run(proofs=2, concurrency=2, seed=5, ansi=False, srs_load_ms=30120,
              era="phase9").simulate()
    parts = r.partitions.set_index(["proof", "partition"])
    right = total = 0
    for (p, i), truth in run.truth.items():
        for key, value in truth.items():
            if key != "worker":
                total += 1
                right += parts.loc[(p, i), key] == value
    assert right / total >= 0.99
    assert all(parts.loc[k, "epilogue_ms"] == t["epilogue_ms"] for k, t in run.truth.items())


def test_status_counters_of_the_memory_manager_daemon(main):
    snap = json.loads(STATUS.read_text())
    c = main.trace.counters
    at = {r.name: r.value for r in c[c.t == snap["uptime_secs"]].itertuples()}
    gib = 2**30
    assert at["budget_used_gib"] == pytest.approx(snap["memory"]["used_bytes"] / gib)
    assert at["budget_available_gib"] == pytest.approx(snap["memory"]["available_bytes"] / gib)
    assert at["budget_total_gib"] == pytest.approx(snap["memory"]["total_bytes"] / gib)
    srs = sum(e["bytes"] for e in snap["allocations"]["srs"]) / gib
    pce = sum(e["bytes"] for e in snap["allocations"]["pce"]) / gib
    assert (at["srs_resident_gib"], at["pce_resident_gib"]) == (pytest.approx(srs),
                                                                pytest.approx(pce))
    assert (at["srs_entries"], at["pce_entries"]) == (len(snap["allocations"]["srs"]),
                                                      len(snap["allocations"]["pce"]))
    assert at["synth_active"] == snap["synthesis"]["active"]
    assert at["synth_max_concurrent"] == snap["synthesis"]["max_concurrent"]
    for key, value in snap["buffers"].items():
        assert at[key] == value
    assert at["proofs_completed"] == snap["counters"]["total_completed"]
    assert at["proofs_failed"] == snap["counters"]["total_failed"]
    assert at["scheduler_queue_depth"] == snap["counters"]["queue_depth"]
    assert at["pipelines_in_flight"] == len(snap["pipelines"])
    assert at["gpu_workers_busy"] == sum(w["state"] == "proving" for w in snap["gpu_workers"])
    row = main.status_frame().iloc[-1]
    assert row.srs_resident == ["porep-32g"] and row.synth_in_flight == 10
