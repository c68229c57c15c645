"""A stand-in for cuzk-bench: ``batch -c N -j J`` against the stand-in daemon.

It prints what cuzk-bench prints (the per-proof lines with an em dash, then
the summary) and exits 1 with an error when the daemon cannot be reached.
Standard library only.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time


def prove(addr: str) -> tuple[str, float, int, int]:
    host, port = addr.replace("http://", "").rsplit(":", 1)
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=60) as s:
        s.sendall(b"PROVE\n")
        reply = s.makefile("rb").readline().decode().split()
    elapsed = time.monotonic() - start
    if not reply:
        raise ConnectionError("daemon closed the connection")
    if reply[0] == "COMPLETED":
        return "COMPLETED", elapsed, int(reply[1]), int(reply[2])
    return "FAILED", elapsed, 0, 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="cuzk-bench")
    ap.add_argument("-a", "--addr", default="http://127.0.0.1:9820")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("batch")
    b.add_argument("-t", "--type", default="porep")
    b.add_argument("--c1", default=None)
    b.add_argument("-c", "--count", type=int, default=3)
    b.add_argument("-j", "--concurrency", type=int, default=1)
    args = ap.parse_args(argv)

    print("=== Batch Benchmark ===")
    print(f"proof type:  {args.type}")
    print(f"count:       {args.count}")
    print(f"concurrency: {args.concurrency}")
    print(flush=True)
    sem = threading.Semaphore(args.concurrency)
    results: list = [None] * args.count
    done = [threading.Event() for _ in range(args.count)]
    t0 = time.monotonic()

    def one(i):
        try:
            results[i] = prove(args.addr)
        except OSError as exc:
            results[i] = exc
        finally:
            sem.release()
            done[i].set()

    for i in range(args.count):
        sem.acquire()
        threading.Thread(target=one, args=(i,), daemon=True).start()
    ok = []
    for i in range(args.count):
        done[i].wait()
        r = results[i]
        if isinstance(r, Exception):
            print(f"Error: failed to connect to daemon: {r}", file=sys.stderr)
            return 1
        status, wall, prove_ms, queue_ms = r
        print(f"  [{i + 1}/{args.count}] {status} \u2014 {wall:.1f}s "
              f"(prove={prove_ms} ms, queue={queue_ms} ms)", flush=True)
        if status == "COMPLETED":
            ok.append((wall, prove_ms / 1000))
    total = time.monotonic() - t0
    print()
    print("=== Batch Summary ===")
    print(f"total time:    {total:.1f}s")
    print(f"completed:     {len(ok)}")
    print(f"failed:        {args.count - len(ok)}")
    if ok:
        w = [x[0] for x in ok]
        p = [x[1] for x in ok]
        print(f"wall time:     avg={sum(w) / len(w):.1f}s min={min(w):.1f}s max={max(w):.1f}s")
        print(f"prove time:    avg={sum(p) / len(p):.1f}s min={min(p):.1f}s max={max(p):.1f}s")
        print(f"throughput:    {len(ok) / total * 60:.3f} proofs/min ({total / len(ok):.1f}s/proof)")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
