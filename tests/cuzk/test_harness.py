"""The daemon harness against the stand-in daemon: every failure reason, death, stop, restart."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cuzklab.cuzk import Daemon, kernel_oom_kills
from cuzklab.cuzk.harness import group_members, port_open
from cuzklab.errors import DaemonDiedError, DaemonError, DaemonStartError

HERE = Path(__file__).resolve().parent
STANDIN = [sys.executable, str(HERE / "standin_daemon.py")]

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(),
                                reason="process-group checks read /proc (Linux)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def port():
    return free_port()


def standin(port, *extra):
    return [*STANDIN, "--port", str(port), *extra]


def gone(pid: int) -> bool:
    """Return True when neither ``pid`` nor anything in its process group runs."""
    return not group_members(pid)


@pytest.fixture
def bystander():
    """Processes a test starts outside the harness; killed by pid at the end."""
    procs = []
    yield procs
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_start_verifies_and_stop_sends_sigint(tmp_path, port):
    d = Daemon(standin(port), log_path=tmp_path / "d.log", port=port, ready_timeout_s=10)
    d.start()
    try:
        assert d.alive and d.pid and d.exit is None
        assert "cuzk-daemon ready, serving on 127.0.0.1:" in d.ready_line
        assert port_open("127.0.0.1", port)
        rec = json.loads((tmp_path / "d.log.pid").read_text())
        assert rec["pid"] == d.pid == rec["pgid"]
        assert os.getpgid(d.pid) == d.pid != os.getpgrp()     # its own process group
    finally:
        e = d.stop()
    assert not d.alive and gone(d.pid)
    assert e.code == 0 and e.signal is None and e.expected
    assert "received SIGINT, shutting down" in (tmp_path / "d.log").read_text()
    assert not (tmp_path / "d.log.pid").exists()
    assert not d.died
    d.check()                                            # a stopped daemon did not die


def test_context_manager_stops_on_error(tmp_path, port):
    with pytest.raises(RuntimeError):
        with Daemon(standin(port), log_path=tmp_path / "d.log", port=port,
                    ready_timeout_s=10) as d:
            pid = d.pid
            raise RuntimeError("the sweep point failed")
    assert gone(pid)


def test_exited_reports_code_and_log_tail(tmp_path, port):
    d = Daemon(standin(port, "--mode", "exit-at-start"), log_path=tmp_path / "d.log",
               port=port, ready_timeout_s=10)
    with pytest.raises(DaemonStartError) as err:
        d.start()
    assert err.value.reason == "exited" and err.value.exit_code == 1
    assert "failed to load config" in err.value.log_tail
    assert "exited with code 1" in str(err.value)
    assert gone(d.pid) and not (tmp_path / "d.log.pid").exists()


def test_a_missing_program_is_exited(tmp_path):
    d = Daemon([str(tmp_path / "no-such-daemon")], log_path=tmp_path / "d.log",
               ready_timeout_s=1)
    with pytest.raises(DaemonStartError) as err:
        d.start()
    assert err.value.reason == "exited" and err.value.exit_code == 127


def test_not_ready_without_the_ready_line(tmp_path, port):
    d = Daemon(standin(port, "--mode", "never-ready"), log_path=tmp_path / "d.log",
               port=port, ready_timeout_s=0.8)
    with pytest.raises(DaemonStartError) as err:
        d.start()
    assert err.value.reason == "not_ready"
    assert "starting cuzk engine" in err.value.log_tail
    assert gone(d.pid)


def test_not_ready_when_the_port_never_accepts(tmp_path, port):
    d = Daemon(standin(port, "--mode", "no-port"), log_path=tmp_path / "d.log", port=port,
               ready_timeout_s=0.8)
    with pytest.raises(DaemonStartError) as err:
        d.start()
    assert err.value.reason == "not_ready"
    assert "accepted no connection" in str(err.value)
    assert gone(d.pid)


def test_no_log_when_the_log_never_appears(tmp_path, port):
    # Not captured: the daemon is expected to write the log itself, and this one does not.
    d = Daemon(standin(port), log_path=tmp_path / "own.log", port=port, ready_timeout_s=0.8,
               capture=False)
    with pytest.raises(DaemonStartError) as err:
        d.start()
    assert err.value.reason == "no_log"
    assert gone(d.pid)


def test_port_in_use_leaves_the_holder_alone(tmp_path, port, bystander):
    holder = subprocess.Popen(standin(port, "--mode", "hold-port"), stdout=subprocess.PIPE,
                              start_new_session=True)
    bystander.append(holder)
    holder.stdout.readline()                             # "holding the port"
    d = Daemon(standin(port), log_path=tmp_path / "d.log", port=port, ready_timeout_s=5)
    with pytest.raises(DaemonStartError) as err:
        d.start()
    assert err.value.reason == "port_in_use"
    assert d.pid is None                                 # nothing was started
    assert holder.poll() is None


def test_stale_instance_is_detected_and_not_killed(tmp_path, port):
    log = tmp_path / "d.log"
    first = Daemon(standin(port), log_path=log, port=port, ready_timeout_s=10).start()
    try:
        second = Daemon(standin(port), log_path=log, port=port, ready_timeout_s=5)
        with pytest.raises(DaemonStartError) as err:
            second.start()
        assert err.value.reason == "stale_instance"
        assert str(first.pid) in str(err.value)
        assert first.alive
    finally:
        first.stop()
    # Once the earlier one is stopped, the same log path starts again.
    with Daemon(standin(port), log_path=log, port=port, ready_timeout_s=10) as again:
        assert again.alive
    assert (tmp_path / "d.log.1").exists()               # the earlier log was kept


def test_a_record_of_a_dead_process_is_not_stale(tmp_path, port):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / "d.log.pid").write_text(json.dumps({"pid": dead.pid, "pgid": dead.pid,
                                                    "argv": ["x"]}))
    with Daemon(standin(port), log_path=tmp_path / "d.log", port=port,
                ready_timeout_s=10) as d:
        assert d.alive


def test_stop_recorded_stops_an_orphaned_daemon(tmp_path, port):
    log = tmp_path / "d.log"
    first = Daemon(standin(port), log_path=log, port=port, ready_timeout_s=10).start()
    pid = first.pid
    assert Daemon.stop_recorded(log, grace_s=2)
    first.stop()
    assert gone(pid) and not Path(str(log) + ".pid").exists()
    assert not Daemon.stop_recorded(log)


@pytest.mark.parametrize("how, code, sig", [("exit", 101, None), ("segv", None, "SIGSEGV")])
def test_death_during_a_run_is_recorded(tmp_path, port, how, code, sig):
    d = Daemon(standin(port, "--mode", "crash", "--crash-after", "0.2", "--crash-how", how),
               log_path=tmp_path / "d.log", port=port, ready_timeout_s=10).start()
    deadline = time.monotonic() + 10
    while d.alive and time.monotonic() < deadline:
        time.sleep(0.02)
    assert d.died
    e = d.exit
    assert e.code == code and e.signal_name == sig and not e.expected
    assert e.oom is False
    with pytest.raises(DaemonDiedError) as err:
        d.check()
    assert err.value.exit["pid"] == d.pid
    assert d.stop() is e                                 # stopping a dead daemon is harmless
    assert gone(d.pid)


@pytest.mark.parametrize("kernel, oom", [("oom", True), ("other", False), (None, None)])
def test_sigkill_is_named_oom_only_when_the_kernel_log_says_so(tmp_path, port, kernel, oom):
    d = Daemon(standin(port, "--mode", "crash", "--crash-after", "0.2", "--crash-how", "kill"),
               log_path=tmp_path / "d.log", port=port, ready_timeout_s=10)

    def kernel_log():
        if kernel is None:
            return None                                  # not readable here
        if kernel == "other":
            return "[ 812.1] Out of memory: Killed process 1 (init) total-vm:1kB\n"
        return (f"[ 812.0] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=python3,"
                f"pid={d.pid},uid=0\n[ 812.1] Out of memory: Killed process {d.pid} (python3) "
                f"total-vm:812345678kB, anon-rss:701234567kB\n")

    d.kernel_log = kernel_log
    d.start()
    deadline = time.monotonic() + 10
    while d.alive and time.monotonic() < deadline:
        time.sleep(0.02)
    e = d.exit
    assert e.signal_name == "SIGKILL" and e.oom is oom
    if oom:
        assert f"Killed process {d.pid}" in e.kernel_message
        assert "OOM" in e.describe()
    d.stop()


def test_stop_kills_only_its_own_group(tmp_path, port, bystander):
    # Same program, same arguments, started by someone else: it must survive.
    other_port = free_port()
    other = subprocess.Popen(standin(other_port), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    bystander.append(other)
    d = Daemon(standin(port, "--child"), log_path=tmp_path / "d.log", port=port,
               ready_timeout_s=10).start()
    members = group_members(d.pid)
    assert len(members) == 2                             # the daemon and its child
    d.stop()
    assert gone(d.pid)
    assert all(not Path(f"/proc/{m}").exists() or m not in group_members(d.pid)
               for m in members)
    assert other.poll() is None and group_members(other.pid)


def test_stop_escalates_when_sigint_and_sigterm_are_ignored(tmp_path, port):
    d = Daemon(standin(port, "--mode", "hang"), log_path=tmp_path / "d.log", port=port,
               ready_timeout_s=10, stop_grace_s=0.3).start()
    e = d.stop()
    assert e.signal_name == "SIGKILL" and e.expected
    assert gone(d.pid)


def test_restart_retries_a_bounded_number_of_times(tmp_path, port):
    state = tmp_path / "fails"
    flaky = standin(port, "--fail-starts", "2", "--state", str(state))
    d = Daemon(flaky, log_path=tmp_path / "d.log", port=port, ready_timeout_s=10)
    d.restart(tries=3, backoff_s=0.05)
    try:
        assert d.alive and state.read_text() == "2"
        assert len(d.exits) == 2 and all(e.code == 1 for e in d.exits)
        assert (tmp_path / "d.log.1").exists() and (tmp_path / "d.log.2").exists()
        d.restart(tries=1)                               # a verified restart of a live daemon
        assert d.alive and len(d.exits) == 3 and d.exits[-1].expected
    finally:
        d.stop()

    state.unlink()
    always = standin(port, "--fail-starts", "9", "--state", str(state))
    d2 = Daemon(always, log_path=tmp_path / "d2.log", port=port, ready_timeout_s=10)
    with pytest.raises(DaemonStartError) as err:
        d2.restart(tries=3, backoff_s=0.05)
    assert err.value.reason == "exited" and "3 tries failed" in str(err.value)
    assert state.read_text() == "3"
    assert not d2.alive


def test_starting_twice_is_an_error(tmp_path, port):
    with Daemon(standin(port), log_path=tmp_path / "d.log", port=port,
                ready_timeout_s=10) as d:
        with pytest.raises(DaemonError, match="already running"):
            d.start()


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"argv": "cuzk-daemon --config x"}, TypeError, "argv"),
    ({"argv": []}, TypeError, "argv"),
    ({"port": 0}, ValueError, "port"),
    ({"port": 70000}, ValueError, "port"),
    ({"ready_timeout_s": 0}, ValueError, "ready_timeout_s"),
    ({"ready_pattern": "("}, ValueError, "ready_pattern"),
    ({"stop_grace_s": -1}, ValueError, "stop_grace_s"),
])
def test_bad_arguments(tmp_path, kwargs, exc, match):
    args = {"argv": ["cuzk-daemon"], "log_path": tmp_path / "d.log", **kwargs}
    argv = args.pop("argv")
    with pytest.raises(exc, match=match):
        Daemon(argv, **args)
    with pytest.raises(ValueError, match="tries"):
        Daemon(["x"], log_path=tmp_path / "d.log").start(tries=0)


def test_kernel_log_parsing():
    text = ("[ 1.0] Out of memory: Killed process 4242 (cuzk-daemon) total-vm:1kB\n"
            "[ 2.0] Memory cgroup out of memory: Killed process 77 (other) total-vm:1kB\n"
            "[ 3.0] oom-kill:constraint=CONSTRAINT_MEMCG,task=cuzk-daemon,pid=4243,uid=0\n"
            "[ 4.0] usb 1-1: new device\n")
    kills = kernel_oom_kills(source=lambda: text)
    assert [k["pid"] for k in kills] == [4242, 77, 4243]
    assert kernel_oom_kills(4242, source=lambda: text)[0]["comm"] == "cuzk-daemon"
    assert kernel_oom_kills(5, source=lambda: text) == []
    assert kernel_oom_kills(5, source=lambda: None) is None
    with pytest.raises(ValueError, match="pid"):
        kernel_oom_kills(-1, source=lambda: text)
