"""A sweep point on a harness-managed (stand-in) daemon, and the bench / daemon argv."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cuzklab.cuzk import bench_plan, daemon_plan, parse_logs, run_bench_point
from cuzklab.cuzk.harness import group_members
from cuzklab.model import PipelineConfig

from .test_harness import STANDIN, free_port

HERE = Path(__file__).resolve().parent
BENCH = [sys.executable, str(HERE / "standin_bench.py")]

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(),
                                reason="process-group checks read /proc (Linux)")


@pytest.fixture
def cfg():
    return PipelineConfig(proofs=4, concurrency=2, partitions=2, partition_workers=4,
                          gpu_workers_per_device=2)


def plan(cfg, port, *daemon_extra):
    return ([*STANDIN, "--port", str(port), *daemon_extra],
            bench_plan(cfg, bench=BENCH, addr=f"127.0.0.1:{port}"))


def test_a_point_runs_and_reads_its_own_logs(tmp_path, cfg):
    port = free_port()
    d, b = plan(cfg, port)
    summary, trace = run_bench_point(d, b, cfg, tmp_path, port=port, ready_timeout_s=10)
    assert (tmp_path / "daemon.log").exists() and (tmp_path / "bench.out").exists()
    assert summary["run_failed"] is False and summary["failure_reason"] is None
    assert summary["proofs"] == 4 and summary["failed"] == 0
    assert summary["bench"]["completed"] == 4 and summary["bench"]["count"] == 4
    assert summary["seconds_per_proof"] == summary["bench"]["seconds_per_proof"]
    assert summary["seconds_per_proof_log"] > 0
    assert summary["daemon_exit"]["code"] == 0 and summary["daemon_exit"]["expected"]
    # Nothing malformed. (CPU-side lines of two workers started within a few ms can
    # swap, and under a loaded machine the stand-in's millisecond timings jitter,
    # so unattributed lines are not asserted here; the GPU region is exact.)
    assert summary["parse"]["malformed"] == 0
    assert trace.source == "cuzk-log" and trace.meta["config"] == cfg.to_dict()
    spans = trace.spans
    assert set(spans.stage) >= {"synth", "gpu_queue", "mutex_wait", "ntt_h", "barrier_wait",
                                "batch_add", "tail_msm", "prep_msm", "b_g2_msm"}
    assert len(spans[spans.stage == "synth"]) == 4 * 2
    assert set(spans[spans.stage == "ntt_h"].lane) <= {"gpu0.w0", "gpu0.w1"}
    # Each proof's cuzk-bench prove= equals the daemon's gpu_ms summed over its partitions.
    again = parse_logs([tmp_path / "daemon.log", tmp_path / "bench.out"], config=cfg)
    assert sorted(again.bench.proofs_frame().prove_ms) == sorted(again.proofs.gpu_ms_sum)
    # Every GPU call got its whole CUDA region (the lines printed under the mutex).
    p = again.partitions
    region = ["mutex_wait_ms", "ntt_msm_h_ms", "barrier_wait_ms", "batch_add_ms",
              "tail_msm_ms", "gpu_total_ms", "mutex_held_ms"]
    assert p[region].notna().all().all()
    assert (p.mutex_held_ms == p.gpu_total_ms).all()
    assert not group_members(trace.meta["cuzk"]["daemon_exit"]["pid"])


@pytest.mark.parametrize("how, kernel, reason", [
    ("kill", lambda pid: f"Out of memory: Killed process {pid} (python3)", "oom"),
    ("exit", None, "daemon_died"),
])
def test_a_daemon_that_dies_mid_run_fails_the_point(tmp_path, cfg, how, kernel, reason):
    port = free_port()
    d, b = plan(cfg, port, "--mode", "crash", "--crash-after-proofs", "1", "--crash-how", how)
    box = {}

    def kernel_log():
        return kernel(box["pid"]) if kernel else ""

    # The kernel log is read when the daemon dies; learn its pid from the pid file.
    def reader():
        import json
        box["pid"] = json.loads((tmp_path / "daemon.log.pid").read_text())["pid"]
        return kernel_log()

    summary, trace = run_bench_point(d, b, cfg, tmp_path, port=port, ready_timeout_s=10,
                                     kernel_log=reader)
    assert summary["run_failed"] is True and summary["failure_reason"] == reason
    assert summary["oom"] is (reason == "oom")
    assert summary["proofs"] >= 1                      # what finished before is kept
    assert trace.meta["failure"]["reason"] == reason
    ex = summary["daemon_exit"]
    assert not ex["expected"]
    assert (ex["signal_name"] == "SIGKILL") if how == "kill" else (ex["code"] == 101)


def test_a_daemon_that_does_not_start_is_a_failed_point(tmp_path, cfg):
    port = free_port()
    d, b = plan(cfg, port, "--mode", "exit-at-start")
    summary, trace = run_bench_point(d, b, cfg, tmp_path, port=port, ready_timeout_s=10,
                                     start_tries=1)
    assert summary["run_failed"] is True and summary["failure_reason"] == "daemon_start"
    assert trace.meta["failure"]["detail"] == "exited"
    assert summary["proofs"] == 0 and summary["bench_exit_code"] is None
    assert not (tmp_path / "bench.out").exists()


def test_a_bench_that_overruns_is_stopped(tmp_path, cfg):
    port = free_port()
    d, b = plan(cfg, port, "--synth-ms", "20000")
    summary, trace = run_bench_point(d, b, cfg, tmp_path, port=port, ready_timeout_s=10,
                                     bench_timeout_s=0.5, stop_grace_s=2)
    assert summary["failure_reason"] == "bench_timeout"
    assert summary["proofs"] == 0 and summary["failed"] == 2    # two were in flight
    assert summary["daemon_exit"]["expected"] and summary["daemon_exit"]["code"] == 0


def test_bench_plan_argv():
    cfg = PipelineConfig(proofs=20, concurrency=15)
    assert bench_plan(cfg, addr="127.0.0.1:9820", c1="/data/c1.json") == [
        "cuzk-bench", "--addr", "127.0.0.1:9820", "batch", "-t", "porep",
        "--c1", "/data/c1.json", "-c", "20", "-j", "15"]
    assert bench_plan({"c": 5, "j": 2}, bench=["env", "cuzk-bench"])[-4:] == ["-c", "5", "-j", "2"]
    assert bench_plan({"proofs": 3, "concurrency": 3})[-2:] == ["-j", "3"]
    with pytest.raises(ValueError, match="concurrency"):
        bench_plan({"c": 2, "j": 3})
    with pytest.raises(ValueError, match="proofs"):
        bench_plan({"c": 0, "j": 1})
    with pytest.raises(ValueError, match="needs proofs"):
        bench_plan({"lock": "split_async"})
    with pytest.raises(ValueError, match="proof_type"):
        bench_plan(cfg, proof_type="porep32")
    with pytest.raises(TypeError, match="PipelineConfig"):
        bench_plan(7)


def test_daemon_plan_writes_a_toml_that_reads_back(tmp_path):
    cfg = PipelineConfig(gpu_workers_per_device=3, gpu_threads=32, partition_workers=12)
    argv = daemon_plan(cfg, tmp_path / "cuzk.toml", listen="127.0.0.1:9820")
    assert argv == ["cuzk-daemon", "--config", str(tmp_path / "cuzk.toml"), "--listen",
                    "127.0.0.1:9820"]
    back = PipelineConfig.from_cuzk_toml(tmp_path / "cuzk.toml")
    assert back == cfg


def test_bad_point_arguments(tmp_path, cfg):
    with pytest.raises(TypeError, match="daemon_argv"):
        run_bench_point("cuzk-daemon", ["b"], cfg, tmp_path)
    with pytest.raises(TypeError, match="bench_argv"):
        run_bench_point(["d"], [], cfg, tmp_path)
    with pytest.raises(ValueError, match="bench_timeout_s"):
        run_bench_point(["d"], ["b"], cfg, tmp_path, bench_timeout_s=0)
    with pytest.raises(TypeError, match="config"):
        run_bench_point(["d"], ["b"], 3, tmp_path)
