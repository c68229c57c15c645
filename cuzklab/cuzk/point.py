"""One sweep point on a real daemon: start it, run cuzk-bench, parse what both wrote.

``run_bench_point(daemon_argv, bench_argv, config, workdir)`` starts the
daemon under :class:`~cuzklab.cuzk.Daemon` (verified, retried), runs the bench
in its own process group while watching the daemon, stops the daemon, and
parses ``daemon.log`` and ``bench.out`` in ``workdir`` into a Trace and a
flat summary. A point that fails (the daemon does not start, dies, the bench
fails or overruns) still returns its summary, with ``run_failed`` and
``failure_reason`` set (``daemon_start``, ``oom``, ``daemon_died``,
``bench_timeout``, ``bench_failed``, ``incomplete``), so it never disappears
from a sweep.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import DaemonStartError
from ..model import PipelineConfig
from ..trace import Trace
from .harness import READY_PATTERN, Daemon, group_members
from .logs import parse_logs

# Seconds between checks of the bench and the daemon while the bench runs.
WATCH_S = 0.05
BENCH_STOP_GRACE_S = 2.0


def daemon_plan(config: PipelineConfig, toml_path, *, daemon: str | Sequence[str] = "cuzk-daemon",
                listen: str | None = None, extra: Sequence[str] = ()) -> list[str]:
    """Return the cuzk-daemon argv for ``config``, writing its TOML to ``toml_path``."""
    if not isinstance(config, PipelineConfig):
        raise TypeError(f"config must be a PipelineConfig, got {type(config).__name__}")
    config.to_cuzk_toml(toml_path)
    argv = [daemon] if isinstance(daemon, str) else list(daemon)
    if not argv:
        raise ValueError("daemon must be a program name or a non-empty argv")
    argv += ["--config", str(toml_path)]
    if listen:
        argv += ["--listen", listen]
    return argv + [str(a) for a in extra]


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on ``host`` that nothing listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def plan_point(daemon_cmd: str, bench_cmd: str, config: PipelineConfig, workdir, *,
               port: int = 0, addr: str = "127.0.0.1:{port}", c1: str | None = None,
               proof_type: str = "porep") -> tuple[list[str], list[str], int]:
    """Return (daemon_argv, bench_argv, port) of one point from command templates.

    In ``daemon_cmd`` and ``addr``, ``{port}`` is the port (a free one when
    ``port`` is 0), ``{toml}`` the point's daemon TOML (written into
    ``workdir`` from ``config``) and ``{workdir}`` the point's folder. The
    bench argv is ``bench_cmd`` plus ``--addr ADDR batch -t TYPE [--c1 C1]
    -c N -j J`` (:func:`~cuzklab.cuzk.bench_plan`).
    """
    from .bench import bench_plan
    if not isinstance(config, PipelineConfig):
        raise TypeError(f"config must be a PipelineConfig, got {type(config).__name__}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer in 0..65535 (0 = pick a free one), "
                         f"got {port!r}")
    for name, cmd in (("daemon_cmd", daemon_cmd), ("bench_cmd", bench_cmd)):
        if not isinstance(cmd, str) or not cmd.strip():
            raise ValueError(f"{name} must be a non-empty command line, got {cmd!r}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    toml = workdir / "cuzk.toml"
    config.to_cuzk_toml(toml)
    fields = {"port": port, "toml": str(toml), "workdir": str(workdir)}
    try:
        daemon_argv = [a.format(**fields) for a in shlex.split(daemon_cmd)]
        address = addr.format(**fields)
    except (KeyError, IndexError) as exc:
        raise ValueError(f"unknown placeholder {exc} in a command; use {{port}}, {{toml}} "
                         f"or {{workdir}}") from None
    bench_argv = bench_plan(config, bench=shlex.split(bench_cmd), addr=address, c1=c1 or None,
                            proof_type=proof_type)
    return daemon_argv, bench_argv, port


def copy_point_files(workdir, path_for) -> list[Path]:
    """Copy a point's daemon.log, bench.out and cuzk.toml to ``path_for(name)``; return the copies.

    ``path_for`` maps a file name to where it should go, or None to skip it
    (e.g. ``functools.partial(cuzklab.sweep.artifact_path, result_path)``).
    """
    out = []
    for name in ("daemon.log", "bench.out", "cuzk.toml"):
        src = Path(workdir) / name
        dest = path_for(name)
        if dest is not None and src.is_file():
            shutil.copyfile(src, dest)
            out.append(Path(dest))
    return out


def _config(config) -> PipelineConfig | None:
    if config is None or isinstance(config, PipelineConfig):
        return config
    if isinstance(config, Mapping):
        return PipelineConfig.from_dict(dict(config))
    raise TypeError(f"config must be a PipelineConfig, a dict of its keys or None, "
                    f"got {type(config).__name__}")


def _argv(name: str, argv) -> list[str]:
    if isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence) or not argv \
            or not all(isinstance(a, (str, os.PathLike)) for a in argv):
        raise TypeError(f"{name} must be a non-empty list of strings, got {argv!r}")
    return [os.fspath(a) for a in argv]


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop the bench's process group (it was started in its own session)."""
    for sig, wait in ((signal.SIGINT, BENCH_STOP_GRACE_S), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None and not group_members(proc.pid):
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc.poll() is not None and not group_members(proc.pid):
                return
            time.sleep(0.02)


def _tail(path: Path, n: int = 10) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def run_bench_point(daemon_argv: Sequence[str], bench_argv: Sequence[str], config, workdir, *,
                    port: int | None = None, ready_pattern: str = READY_PATTERN,
                    ready_timeout_s: float = 60, start_tries: int = 2,
                    bench_timeout_s: float | None = None, env: Mapping[str, str] | None = None,
                    bench_env: Mapping[str, str] | None = None, stop_grace_s: float = 10.0,
                    kernel_log=None) -> tuple[dict, Trace]:
    """Return (summary, trace) of one cuzk-bench run against a harness-managed daemon."""
    daemon_argv = _argv("daemon_argv", daemon_argv)
    bench_argv = _argv("bench_argv", bench_argv)
    cfg = _config(config)
    if bench_timeout_s is not None and (not isinstance(bench_timeout_s, (int, float))
                                        or bench_timeout_s <= 0):
        raise ValueError(f"bench_timeout_s must be > 0 seconds or None, got {bench_timeout_s!r}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    daemon_log, bench_out = workdir / "daemon.log", workdir / "bench.out"
    daemon = Daemon(daemon_argv, log_path=daemon_log, ready_pattern=ready_pattern,
                    ready_timeout_s=ready_timeout_s, port=port, env=env,
                    stop_grace_s=stop_grace_s, kernel_log=kernel_log)
    failure: dict[str, Any] | None = None
    bench_rc: int | None = None
    t0 = time.monotonic()
    try:
        daemon.start(tries=start_tries)
    except DaemonStartError as exc:
        failure = {"reason": "daemon_start", "detail": exc.reason, "message": str(exc)}
    if failure is None:
        try:
            failure, bench_rc = _run_bench(daemon, bench_argv, bench_out, bench_env,
                                           bench_timeout_s)
        finally:
            daemon.stop()
    files = [p for p in (daemon_log, bench_out) if p.exists()]
    if files:
        result = parse_logs(files, config=cfg)
    else:
        from .logs import parse_texts
        result = parse_texts({}, config=cfg)
    trace = result.trace
    parsed_failure = trace.meta.get("failure")
    if failure is None and parsed_failure is not None:
        failure = parsed_failure                  # e.g. proofs still in flight at the end
    trace.meta["failed"] = failure is not None
    trace.meta["failure"] = failure
    if cfg is not None:
        trace.meta["config"] = cfg.to_dict()
    ex = daemon.exits[-1] if daemon.exits else None
    exit_info = None
    if ex is not None:
        exit_info = {k: v for k, v in ex.to_dict().items() if k != "log_tail"}
    trace.meta.setdefault("cuzk", {}).update({
        "daemon_argv": daemon_argv, "bench_argv": bench_argv, "workdir": str(workdir),
        "daemon_exit": exit_info, "bench_exit_code": bench_rc,
        "ready_line": daemon.ready_line})
    summary = result.summary()
    bench = result.bench.summary if result.bench is not None else {}
    summary["seconds_per_proof_log"] = summary.get("seconds_per_proof")
    if bench.get("seconds_per_proof") is not None:
        summary["seconds_per_proof"] = bench["seconds_per_proof"]   # the figure cuzk-bench prints
    summary["failure_message"] = (failure or {}).get("message")
    summary["bench_exit_code"] = bench_rc
    summary["daemon_exit"] = exit_info
    summary["elapsed_s"] = round(time.monotonic() - t0, 3)
    return summary, trace


def _run_bench(daemon: Daemon, argv: list[str], out: Path, env, timeout_s):
    """Run the bench while watching the daemon; return (failure or None, exit code)."""
    full_env = None if env is None else {**os.environ, **env}
    with open(out, "wb") as f:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=f,
                                    stderr=subprocess.STDOUT, env=full_env,
                                    start_new_session=True)
        except OSError as exc:
            return {"reason": "bench_failed", "message": f"cannot execute {argv[0]!r}: {exc}"}, 127
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        try:
            while True:
                rc = proc.poll()
                if rc is not None:
                    break
                if not daemon.alive:
                    _stop_group(proc)
                    e = daemon.exit
                    reason = "oom" if e is not None and e.oom else "daemon_died"
                    msg = e.describe() if e is not None else "daemon exited"
                    return {"reason": reason, "message": f"{msg} while cuzk-bench ran"}, \
                        proc.returncode
                if deadline is not None and time.monotonic() >= deadline:
                    _stop_group(proc)
                    return {"reason": "bench_timeout",
                            "message": f"cuzk-bench ran past {timeout_s:g}s and was stopped"}, \
                        proc.returncode
                time.sleep(WATCH_S)
        finally:
            if proc.poll() is None or group_members(proc.pid):
                _stop_group(proc)
    if rc != 0:
        # A bench that fails because the daemon died: name the death, not the bench.
        settle = time.monotonic() + 1.0
        while daemon.alive and time.monotonic() < settle:
            time.sleep(WATCH_S)
        if daemon.died:
            e = daemon.exit
            return {"reason": "oom" if e.oom else "daemon_died",
                    "message": f"{e.describe()} while cuzk-bench ran"}, rc
        return {"reason": "bench_failed",
                "message": f"cuzk-bench exited with code {rc}: {_tail(out, 3)}"}, rc
    return None, rc
