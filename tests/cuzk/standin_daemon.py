"""A stand-in for cuzk-daemon: prints the daemon's documented lines on a schedule.

It listens on 127.0.0.1:PORT and serves one proof per connection (the line
``PROVE``; reply ``COMPLETED <prove_ms> <queue_ms>`` or ``FAILED <why>``).
Each proof's partitions are synthesized by threads under ``--pw`` permits and
proved by ``--gw`` GPU worker threads sharing one mutex, printing TIMELINE,
CUZK_TIMING / CUZK_NTT_H (stderr) and tracing lines (stdout) as the real
daemon does. Modes make it fail the ways the real one was seen to fail:

  ok            start, print the ready line, serve, exit 0 on SIGINT
  exit-at-start print an error and exit 1 at once
  never-ready   run but never print the ready line
  crash         die after --crash-after seconds (or proofs): --crash-how
                exit (code 101, a Rust panic), kill (SIGKILL) or segv
  hang          serve, but ignore SIGINT and SIGTERM (only SIGKILL stops it)
  hold-port     bind the port and do nothing else
  no-port       print the ready line but never listen

``--fail-starts N --state FILE`` makes the first N starts exit 1 (a start
that fails once and works on retry).

Standard library only; run as ``python standin_daemon.py --port N --mode M``.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone

T0 = time.monotonic()
PRINT = threading.Lock()
OUT = sys.stdout
ERR = sys.stderr


def ms() -> int:
    return int((time.monotonic() - T0) * 1000)


def say(stream, text: str) -> None:
    with PRINT:
        stream.write(text + "\n")
        stream.flush()


def info(message: str, level: str = "INFO", target: str = "cuzk_core::engine", **fields):
    ts = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    body = " ".join(f"{k}={v}" for k, v in fields.items())
    say(OUT, f"{ts} {level:>5} {target}: {message}" + (f" {body}" if body else ""))


def timeline(event: str, job: str, detail: str) -> None:
    say(ERR, f"TIMELINE,{ms()},{event},{job},{detail}")


def cuzk(text: str) -> None:
    say(ERR, text)


class Engine:
    """Synthesis permits, a GPU queue and gw workers sharing one GPU mutex."""

    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.permits = threading.Semaphore(args.pw)
        self.gpu_mutex = threading.Lock()
        self.queue: list = []
        self.queue_cv = threading.Condition()
        self.proofs_done = 0
        self.lock = threading.Lock()
        for w in range(args.gw):
            info("pipeline GPU worker started", worker_id=w, gpu=0, sub_id=w)
            threading.Thread(target=self.worker, args=(w,), daemon=True).start()

    def sleep_ms(self, base: float) -> int:
        with self.lock:
            d = base * (0.8 + 0.4 * self.rng.random())
        time.sleep(d / 1000)
        return int(d)

    def prove(self) -> tuple[int, int]:
        job = str(uuid.uuid4())
        submitted = time.monotonic()
        n = self.args.partitions
        done = threading.Event()
        state = {"left": n, "gpu_ms": 0, "synth_ms": 0}

        def synth(i):
            with self.permits:
                timeline("SYNTH_START", job, f"partition={i}")
                s = self.sleep_ms(self.args.synth_ms)
                timeline("SYNTH_END", job, f"partition={i},synth_ms={s}")
                info("partition synthesis complete, pushing to GPU queue", job_id=job,
                     partition=i, synth_ms=s)
                timeline("GPU_QUEUE", job, f"partition={i}")
                state["synth_ms"] += s
            with self.queue_cv:
                self.queue.append((job, i, state, done))
                self.queue_cv.notify()

        for i in range(n):
            threading.Thread(target=synth, args=(i,), daemon=True).start()
        done.wait()
        total = int((time.monotonic() - submitted) * 1000)
        info("Phase 7: all partitions complete, proof assembled", job_id=job, proof_len=1920,
             total_ms=total, synth_ms=state["synth_ms"], gpu_ms=state["gpu_ms"])
        with self.lock:
            self.proofs_done += 1
        return state["gpu_ms"], 1

    def worker(self, w: int) -> None:
        g = self.args.gpu_ms
        while True:
            with self.queue_cv:
                while not self.queue:
                    self.queue_cv.wait()
                job, i, state, done = self.queue.pop(0)
            timeline("GPU_PICKUP", job, f"worker={w},partition={i}")
            start = time.monotonic()
            timeline("GPU_START", job, f"worker={w},partition={i}")
            t_entry = time.monotonic()
            setup = self.sleep_ms(g * 0.05)
            cuzk(f"CUZK_TIMING: split_vectors_ms={max(setup - 1, 0)} setup_to_split_ms={setup}")
            prep_done = threading.Event()
            bg2_box = {}

            def prep(prep_done=prep_done, bg2_box=bg2_box):
                p = self.sleep_ms(g * 1.2)
                cuzk(f"CUZK_TIMING: prep_msm_ms={p}")
                prep_done.set()
                b = self.sleep_ms(g * 0.8)
                cuzk(f"CUZK_TIMING: b_g2_msm_ms={b} num_circuits=1")
                bg2_box["ms"] = b

            th = threading.Thread(target=prep, daemon=True)
            th.start()
            before = time.monotonic()
            self.gpu_mutex.acquire()
            locked = time.monotonic()
            pre = int((before - t_entry) * 1000)
            wait = int((locked - before) * 1000)
            cuzk(f"CUZK_TIMING: pre_lock_cpu_ms={pre} mutex_wait_ms={wait}")
            ntt = self.sleep_ms(g * 0.7)
            cuzk(f"CUZK_NTT_H: d_b_alloc=0ms ntt_kernels={ntt // 2}ms coset_intt_sync=0ms "
                 f"msm_init=0ms msm_invoke={ntt - ntt // 2}ms msm_dtor=0ms total={ntt}ms")
            cuzk(f"CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms={ntt}")
            b0 = time.monotonic()
            prep_done.wait()
            bw = int((time.monotonic() - b0) * 1000)
            cuzk(f"CUZK_TIMING: gpu_tid=0 barrier_wait_ms={bw}")
            ba = self.sleep_ms(g * 0.6)
            cuzk(f"CUZK_TIMING: gpu_tid=0 batch_add_ms={ba}")
            tail = self.sleep_ms(g * 0.1)
            total = int((time.monotonic() - locked) * 1000)
            cuzk(f"CUZK_TIMING: gpu_tid=0 tail_msm_ms={tail} gpu_total_ms={total}")
            cuzk(f"CUZK_TIMING: mutex_held_ms={total} "
                 f"total_start_fn_ms={int((time.monotonic() - t_entry) * 1000)}")
            self.gpu_mutex.release()

            # Bind this partition's values now: the loop rebinds the names at once.
            def finalize(job=job, i=i, state=state, done=done, th=th, start=start):
                th.join()
                gpu_ms = int((time.monotonic() - start) * 1000)
                timeline("GPU_END", job, f"worker={w},partition={i},gpu_ms={gpu_ms}")
                info("partition GPU prove complete", job_id=job, partition=i, gpu_ms=gpu_ms)
                with self.lock:
                    state["gpu_ms"] += gpu_ms
                    state["left"] -= 1
                    last = state["left"] == 0
                if last:
                    done.set()

            threading.Thread(target=finalize, daemon=True).start()


def serve(args, engine: Engine, listener: socket.socket) -> None:
    def handle(conn):
        with conn:
            f = conn.makefile("rwb", buffering=0)
            line = f.readline().decode().strip()
            if line != "PROVE":
                f.write(b"FAILED bad request\n")
                return
            prove_ms, queue_ms = engine.prove()
            f.write(f"COMPLETED {prove_ms} {queue_ms}\n".encode())

    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--mode", default="ok", choices=["ok", "exit-at-start", "never-ready", "crash",
                                                     "hang", "hold-port", "no-port"])
    ap.add_argument("--startup-ms", type=float, default=50)
    ap.add_argument("--crash-after", type=float, default=0.3, help="seconds after ready")
    ap.add_argument("--crash-after-proofs", type=int, default=0)
    ap.add_argument("--crash-how", default="exit", choices=["exit", "kill", "segv"])
    ap.add_argument("--child", action="store_true", help="start a child process in the group")
    ap.add_argument("--gw", type=int, default=2)
    ap.add_argument("--pw", type=int, default=4)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--synth-ms", type=float, default=40)
    ap.add_argument("--gpu-ms", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fail-starts", type=int, default=0,
                    help="exit 1 at start this many times (counted in --state)")
    ap.add_argument("--state", default=None, help="file counting failed starts")
    args = ap.parse_args(argv)

    if args.fail_starts:
        failed = int(open(args.state).read()) if os.path.exists(args.state) else 0
        if failed < args.fail_starts:
            with open(args.state, "w") as f:
                f.write(str(failed + 1))
            say(ERR, "Error: CUDA error 999: unknown error (start failed, try again)")
            return 1

    if args.child:
        # A helper in the same process group (as a daemon's subprocesses would be).
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    if args.mode == "hold-port":
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", args.port))
        s.listen()
        say(OUT, "holding the port")
        while True:
            time.sleep(1)

    info("cuzk-daemon starting", target="cuzk_daemon")
    info("configuration loaded", target="cuzk_daemon", listen=f"127.0.0.1:{args.port}")
    if args.mode == "exit-at-start":
        say(ERR, 'Error: failed to load config from "/nonexistent/cuzk.toml"')
        return 1
    info("memory budget initialized", total_budget_gib=749)
    info("starting cuzk engine", pipeline_enabled="true")
    if args.mode == "hang":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        def on_sigint(*_):
            info("received SIGINT, shutting down", target="cuzk_daemon")
            info("cuzk-daemon stopped", target="cuzk_daemon")
            os._exit(0)
        signal.signal(signal.SIGINT, on_sigint)
    engine = Engine(args)
    time.sleep(args.startup_ms / 1000)
    if args.mode == "never-ready":
        while True:
            time.sleep(1)
    listener = None
    if args.mode != "no-port":
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", args.port))
        listener.listen(64)
        info("listening on TCP", target="cuzk_daemon", addr=f"127.0.0.1:{args.port}")
    info(f"cuzk-daemon ready, serving on 127.0.0.1:{args.port}", target="cuzk_daemon")
    if args.mode == "crash":
        def crash():
            if args.crash_after_proofs:
                while engine.proofs_done < args.crash_after_proofs:
                    time.sleep(0.01)
            else:
                time.sleep(args.crash_after)
            if args.crash_how == "exit":
                say(ERR, "thread 'tokio-runtime-worker' panicked at cuzk-core/src/engine.rs:1:1:")
                os._exit(101)
            os.kill(os.getpid(), signal.SIGKILL if args.crash_how == "kill" else signal.SIGSEGV)
        threading.Thread(target=crash, daemon=True).start()
    if listener is None:
        while True:
            time.sleep(1)
    serve(args, engine, listener)
    return 0


if __name__ == "__main__":
    sys.exit(main())
