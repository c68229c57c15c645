"""Start a real cuzk daemon, prove that it is up, notice when it dies, stop only what we started.

``Daemon(argv, log_path=...)`` runs the daemon in a new session (its own
process group) with stdout and stderr going to ``log_path``. ``start()``
verifies instead of assuming, in this order, and raises
:class:`~cuzklab.errors.DaemonStartError` with ``reason``:

* ``stale_instance`` — a daemon this harness started earlier with the same
  log path (recorded in ``<log_path>.pid``) is still running;
* ``port_in_use`` — something already accepts connections on the port;
* ``exited`` — the process exited while starting (exit code or signal, and
  the tail of its log);
* ``no_log`` — the log file never appeared;
* ``not_ready`` — no line matching ``ready_pattern`` within
  ``ready_timeout_s``, or the port never accepted a connection.

On any failure nothing it started is left running. ``stop()`` sends SIGINT
(the only signal cuzk handles), then SIGTERM and SIGKILL after a grace
period, to the process group it started and to nothing else: it never looks
processes up by name. A watcher thread records the exit of a daemon that
dies on its own (exit code or signal; an OOM kill named as such when the
kernel log says so).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import DaemonDiedError, DaemonError, DaemonStartError
from .kernel_log import kernel_oom_kills
from .lines import strip_ansi

# What cuzk-daemon prints once it listens (cuzk-daemon main.rs).
READY_PATTERN = "cuzk-daemon ready"
LOG_TAIL_LINES = 25
# Seconds between checks while waiting for readiness.
POLL_S = 0.05


@dataclass
class DaemonExit:
    """How a daemon process ended."""

    pid: int
    code: int | None = None            # exit status, when it exited
    signal: int | None = None          # signal number, when a signal killed it
    signal_name: str | None = None
    oom: bool | None = None            # True: the kernel log names an OOM kill of this pid
    kernel_message: str | None = None
    expected: bool = False             # True when stop() ended it
    uptime_s: float | None = None
    log_tail: str = ""

    def describe(self) -> str:
        """Return one line saying how the process ended."""
        if self.oom:
            how = "killed by the kernel's OOM killer"
        elif self.signal is not None:
            how = f"killed by {self.signal_name or self.signal}"
        else:
            how = f"exited with code {self.code}"
        up = f" after {self.uptime_s:.1f}s" if self.uptime_s is not None else ""
        return f"daemon pid {self.pid} {how}{up}" + ("" if not self.expected else " (stopped)")

    def to_dict(self) -> dict:
        """Return the exit as a JSON-able dict."""
        return asdict(self)


def _start_ticks(pid: int) -> int | None:
    """Return the start time of ``pid`` in clock ticks since boot (Linux), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    try:
        return int(text[text.rindex(")") + 2:].split()[19])
    except (ValueError, IndexError):
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_members(pgid: int) -> list[int]:
    """Return the pids whose process group is ``pgid`` (Linux /proc; [] elsewhere)."""
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for name in entries:
        if not name.isdigit():
            continue
        try:
            text = Path(f"/proc/{name}/stat").read_text()
            fields = text[text.rindex(")") + 2:].split()
        except (OSError, ValueError):
            continue
        # fields[0] is the state, [2] the process group; zombies hold no resources.
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(name))
    return out


def port_open(host: str, port: int, timeout_s: float = 0.25) -> bool:
    """Return True if something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 16384))
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(strip_ansi(data).splitlines()[-lines:])


class Daemon:
    """A cuzk daemon process this harness started, verified and will stop."""

    def __init__(self, argv: Sequence[str], *, log_path, ready_pattern: str = READY_PATTERN,
                 ready_timeout_s: float = 60, port: int | None = None,
                 env: Mapping[str, str] | None = None, host: str = "127.0.0.1",
                 cwd=None, capture: bool = True, stop_grace_s: float = 10.0,
                 kernel_log: Callable[[], str | None] | None = None):
        if isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence) or not argv \
                or not all(isinstance(a, (str, os.PathLike)) for a in argv):
            raise TypeError(f"argv must be a non-empty list of strings, got {argv!r}")
        if not isinstance(ready_timeout_s, (int, float)) or ready_timeout_s <= 0:
            raise ValueError(f"ready_timeout_s must be > 0 seconds, got {ready_timeout_s!r}")
        if not isinstance(stop_grace_s, (int, float)) or stop_grace_s < 0:
            raise ValueError(f"stop_grace_s must be >= 0 seconds, got {stop_grace_s!r}")
        if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                                 or not 1 <= port <= 65535):
            raise ValueError(f"port must be an integer in 1..65535 or None, got {port!r}")
        if not ready_pattern:
            raise ValueError("ready_pattern must be a non-empty regular expression")
        try:
            self._ready = re.compile(ready_pattern)
        except re.error as exc:
            raise ValueError(f"ready_pattern is not a regular expression: {exc}") from None
        self.argv = [os.fspath(a) for a in argv]
        self.log_path = Path(log_path)
        self.pid_path = self.log_path.with_name(self.log_path.name + ".pid")
        self.ready_timeout_s = float(ready_timeout_s)
        self.port = port
        self.host = host
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.capture = capture
        self.stop_grace_s = float(stop_grace_s)
        self.kernel_log = kernel_log
        self.exits: list[DaemonExit] = []          # every exit, across restarts
        self.ready_line: str | None = None
        self._proc: subprocess.Popen | None = None
        self._log = None
        self._started = 0.0
        self._stopping = False
        self._watcher: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- state ------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """Return the pid of the process started (None before start)."""
        return self._proc.pid if self._proc else None

    @property
    def alive(self) -> bool:
        """Return True while the process this harness started is running."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def exit(self) -> DaemonExit | None:
        """Return how the last started process ended (None while it runs)."""
        if self._proc is None or self.alive:
            return None
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        return self.exits[-1] if self.exits else None

    @property
    def died(self) -> bool:
        """Return True if the daemon ended without being stopped by this harness."""
        e = self.exit
        return e is not None and not e.expected

    def check(self) -> None:
        """Raise DaemonDiedError if the daemon died on its own since it started."""
        e = self.exit
        if e is not None and not e.expected:
            raise DaemonDiedError(e.describe(), exit=e.to_dict())

    # -- start --------------------------------------------------------------------
    def _fail(self, reason: str, message: str, *, exit_code: int | None = None) -> None:
        tail = _tail(self.log_path) if self.log_path.exists() else ""
        self._kill_group(verbose=False)
        self._release()
        if tail:
            message = f"{message}\n--- last lines of {self.log_path.name} ---\n{tail}"
        raise DaemonStartError(reason, message, exit_code=exit_code, log_tail=tail)

    def _check_stale(self) -> None:
        try:
            rec = json.loads(self.pid_path.read_text())
        except (OSError, ValueError):
            return
        pid = rec.get("pid")
        if isinstance(pid, int) and pid > 1 and _pid_alive(pid) and (
                rec.get("start_ticks") is None or _start_ticks(pid) == rec.get("start_ticks")):
            raise DaemonStartError(
                "stale_instance",
                f"a daemon started earlier with this log ({' '.join(rec.get('argv', []))}) "
                f"is still running as pid {pid} (process group {rec.get('pgid')}); stop it "
                f"first, e.g. Daemon.stop_recorded({str(self.log_path)!r})")
        self.pid_path.unlink(missing_ok=True)     # it is gone: the record is stale

    def _rotate_log(self) -> None:
        if not self.capture or not self.log_path.exists():
            return
        n = 1
        while self.log_path.with_name(f"{self.log_path.name}.{n}").exists():
            n += 1
        self.log_path.rename(self.log_path.with_name(f"{self.log_path.name}.{n}"))

    def start(self, *, tries: int = 1, backoff_s: float = 0.5) -> "Daemon":
        """Start the daemon and verify it; retry up to ``tries`` times; return self."""
        if isinstance(tries, bool) or not isinstance(tries, int) or tries < 1:
            raise ValueError(f"tries must be a positive integer, got {tries!r}")
        errors: list[DaemonStartError] = []
        for attempt in range(tries):
            try:
                self._start_once()
                return self
            except DaemonStartError as exc:
                errors.append(exc)
                if exc.reason == "stale_instance" or attempt == tries - 1:
                    break
                time.sleep(backoff_s * (attempt + 1))
        last = errors[-1]
        if len(errors) > 1:
            reasons = ", ".join(e.reason for e in errors)
            raise DaemonStartError(last.reason, f"{len(errors)} tries failed ({reasons}); "
                                   f"last: {last}", exit_code=last.exit_code,
                                   log_tail=last.log_tail) from last
        raise last

    def _start_once(self) -> None:
        if self.alive:
            raise DaemonError(f"daemon already running as pid {self.pid}")
        self._check_stale()
        if self.port is not None and port_open(self.host, self.port):
            raise DaemonStartError("port_in_use",
                                   f"{self.host}:{self.port} already accepts connections "
                                   "before the daemon was started")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._rotate_log()
        if self.capture:
            try:
                self._log = open(self.log_path, "ab", buffering=0)
            except OSError as exc:
                raise DaemonStartError("no_log", f"cannot open {self.log_path}: {exc}") from exc
            out = self._log
        else:
            out = subprocess.DEVNULL
        env = None if self.env is None else {**os.environ, **self.env}
        self._stopping = False
        self.ready_line = None
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out,
                                          stderr=subprocess.STDOUT, env=env, cwd=self.cwd,
                                          start_new_session=True)
        except OSError as exc:
            self._release()
            raise DaemonStartError("exited", f"cannot execute {self.argv[0]!r}: {exc}",
                                   exit_code=127) from exc
        self._started = time.monotonic()
        self.pid_path.write_text(json.dumps({
            "pid": self._proc.pid, "pgid": self._proc.pid, "argv": self.argv,
            "start_ticks": _start_ticks(self._proc.pid), "log": str(self.log_path),
            "started": time.time()}))
        self._wait_ready()
        self._watcher = threading.Thread(target=self._watch, args=(self._proc,),
                                         name=f"cuzk-daemon-{self._proc.pid}", daemon=True)
        self._watcher.start()

    def _wait_ready(self) -> None:
        deadline = self._started + self.ready_timeout_s
        offset, partial = 0, ""
        port_ok = self.port is None
        while True:
            rc = self._proc.poll()
            if rc is not None:
                e = self._record_exit(self._proc, rc)
                self._fail("exited", f"{e.describe()} before it was ready",
                           exit_code=rc if rc >= 0 else None)
            if self.ready_line is None and self.log_path.exists():
                try:
                    with open(self.log_path, "rb") as f:
                        f.seek(offset)
                        data = f.read()
                except OSError:
                    data = b""
                offset += len(data)
                text = partial + data.decode("utf-8", "replace")
                lines = text.split("\n")
                partial = lines.pop()
                for line in lines:
                    if self._ready.search(strip_ansi(line)):
                        self.ready_line = strip_ansi(line).strip()
                        break
            if self.ready_line is not None and not port_ok:
                port_ok = port_open(self.host, self.port)
            if self.ready_line is not None and port_ok:
                return
            if time.monotonic() >= deadline:
                if not self.log_path.exists():
                    self._fail("no_log", f"{self.log_path} did not appear within "
                                         f"{self.ready_timeout_s:g}s")
                if self.ready_line is None:
                    self._fail("not_ready", f"no line matching {self._ready.pattern!r} in "
                                            f"{self.log_path.name} within "
                                            f"{self.ready_timeout_s:g}s")
                self._fail("not_ready", f"the ready line appeared but {self.host}:{self.port} "
                                        f"accepted no connection within "
                                        f"{self.ready_timeout_s:g}s")
            time.sleep(POLL_S)

    # -- death ----------------------------------------------------------------------
    def _record_exit(self, proc: subprocess.Popen, rc: int) -> DaemonExit:
        with self._lock:
            for e in self.exits:
                if e.pid == proc.pid:
                    return e
            e = DaemonExit(pid=proc.pid, expected=self._stopping,
                           uptime_s=round(time.monotonic() - self._started, 3))
            if rc < 0:
                e.signal = -rc
                try:
                    e.signal_name = signal.Signals(-rc).name
                except ValueError:
                    e.signal_name = None
            else:
                e.code = rc
            if e.signal == signal.SIGKILL and not self._stopping:
                kills = kernel_oom_kills(proc.pid, source=self.kernel_log)
                if kills is None:
                    e.oom = None                   # kernel log not readable here
                else:
                    e.oom = bool(kills)
                    e.kernel_message = kills[-1]["message"] if kills else None
            elif not self._stopping:
                e.oom = False
            e.log_tail = _tail(self.log_path)
            self.exits.append(e)
            return e

    def _watch(self, proc: subprocess.Popen) -> None:
        rc = proc.wait()
        self._record_exit(proc, rc)

    # -- stop -----------------------------------------------------------------------
    def _signal_group(self, sig: int) -> None:
        pgid = self._proc.pid if self._proc else None
        # Our process group only: its id is the pid of the leader we started.
        if pgid is None or pgid <= 1 or pgid == os.getpgrp():
            return
        if self._proc.poll() is not None and not group_members(pgid):
            return                                 # nothing of ours is left
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass

    def _wait_group(self, timeout_s: float) -> bool:
        """Return True once the leader and the rest of its group are gone."""
        deadline = time.monotonic() + timeout_s
        while True:
            leader_gone = self._proc.poll() is not None
            if leader_gone and not group_members(self._proc.pid):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def _kill_group(self, verbose: bool = True) -> None:
        if self._proc is None:
            return
        self._stopping = True
        self._signal_group(signal.SIGKILL)
        self._wait_group(5.0)
        if self._proc.poll() is None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def _release(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._proc is not None:
            try:
                rec = json.loads(self.pid_path.read_text())
                if rec.get("pid") == self._proc.pid:
                    self.pid_path.unlink(missing_ok=True)
            except (OSError, ValueError):
                pass

    def stop(self, grace_s: float | None = None) -> DaemonExit | None:
        """Stop the process group started (SIGINT, then SIGTERM, SIGKILL); return its exit."""
        if self._proc is None:
            return None
        grace = self.stop_grace_s if grace_s is None else float(grace_s)
        if self._proc.poll() is None:
            self._stopping = True
            for sig, wait in ((signal.SIGINT, grace), (signal.SIGTERM, max(grace / 2, 0.5)),
                              (signal.SIGKILL, 5.0)):
                self._signal_group(sig)
                if self._wait_group(wait):
                    break
        elif group_members(self._proc.pid):
            # The leader is gone but something it started is still in our group.
            self._signal_group(signal.SIGKILL)
            self._wait_group(5.0)
        try:
            rc = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = None
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        e = self._record_exit(self._proc, rc) if rc is not None else None
        self._release()
        return e

    def restart(self, *, tries: int = 3, backoff_s: float = 0.5) -> "Daemon":
        """Stop the daemon if running, then start it again, verified, in at most ``tries``."""
        self.stop()
        return self.start(tries=tries, backoff_s=backoff_s)

    @staticmethod
    def stop_recorded(log_path, grace_s: float = 10.0) -> bool:
        """Stop a daemon recorded in ``<log_path>.pid`` by an earlier harness; return True if one was."""
        pid_path = Path(str(log_path) + ".pid")
        try:
            rec = json.loads(pid_path.read_text())
        except (OSError, ValueError):
            return False
        pid, pgid = rec.get("pid"), rec.get("pgid")
        if not (isinstance(pid, int) and pid > 1 and pgid == pid and pgid != os.getpgrp()):
            return False
        if not _pid_alive(pid) or (rec.get("start_ticks") is not None
                                   and _start_ticks(pid) != rec["start_ticks"]):
            pid_path.unlink(missing_ok=True)
            return False
        for sig, wait in ((signal.SIGINT, grace_s), (signal.SIGTERM, max(grace_s / 2, 0.5)),
                          (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and group_members(pgid):
                time.sleep(0.05)
            if not group_members(pgid):
                break
        pid_path.unlink(missing_ok=True)
        return True

    # -- context manager --------------------------------------------------------------
    def __enter__(self) -> "Daemon":
        if not self.alive:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "alive" if self.alive else ("exited" if self._proc else "not started")
        return f"Daemon(pid={self.pid}, {state}, log={str(self.log_path)!r})"
