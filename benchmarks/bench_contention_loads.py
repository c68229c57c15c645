#!/usr/bin/env python3
"""Where the contention curve's spread comes from: prep_msm's visits and b_g2_msm beside three loads.

    python benchmarks/bench_contention_loads.py [--log2 20] [--backend gpu]
        [--visits 16] [--counts 0,4,8,12] [--rounds 4] [--pool 16] [--json out.json]

Two measurements on the live executor's own stage calls (``cuzklab.live.work``):

* **prep_msm's visits.** ``--visits`` times over: start and stop a thread,
  wait 0.3 s, then time 21 prep_msm calls one by one (a visit of the
  contention curve), recording each call, the minor page faults it took and
  the CPU it ran on. Once free to move, once pinned to one CPU; then the
  median of 9 calls pinned to each CPU in turn. A host whose one-thread speed
  flips between states shows it here: whole visits at one speed, runs of
  calls at another inside a visit, on a pinned thread as on a free one.
* **b_g2_msm beside S busy threads of three kinds**: syntheses (the contention
  curve's load), chains of Fr products in registers (no memory traffic) and
  memory streams (``copyto`` of 32 MiB arrays). Each count and kind is visited
  ``--rounds`` times, there and back; the figure of a visit is the median of 3
  calls. If register-only chains slow the pool as much as syntheses do, its
  slowdown is the CPU's scheduling, not memory. Each call also reports its
  phases (``cuzklab.native.msm_g2.PHASES``: the caller thread's set-up, the
  digit pass and the window tasks on the pool, the combination on the caller's
  thread), so a visit says which of them the load slows: the pool's tasks
  (cores shared among more threads than the pool has) or the caller's own
  steps (the part the model's ``b_g2_msm.serial_s`` stands for). With a pool of
  more than one thread each call also gives the pool's width profile (seconds
  with k of its threads inside a task), which says how much of it ran on fewer
  threads than the pool has. On Linux each call also says who had the CPUs
  meanwhile (the kernel's per-thread schedstat): the pool's CPU seconds and its
  seconds waiting runnable, and the busy threads' CPU seconds. The pool's CPU
  seconds a call tell a smaller share of the cores (the same CPU seconds over a
  longer wall) from dearer work (more CPU seconds a call beside the load).

The JSON (host, every call, every visit, the medians) is written at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.calibrate.measure import b_g2_profile, busy, median_profile  # noqa: E402
from cuzklab.native.bench import host  # noqa: E402

PREP_CALLS = 21
LOADS = ("synth", "chain", "stream")
#: what :func:`accounted` adds to a call's phases
ACCOUNTING = ("wall_s", "pool_cpu_s", "pool_wait_s", "load_cpu_s")


def _ints(text: str) -> list[int]:
    vals = [int(x) for x in text.split(",") if x.strip()]
    if not vals or min(vals) < 0:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of ints >= 0, got {text!r}")
    return vals


def _cpu_now() -> int:
    """Return the CPU this thread last ran on (field 39 of its /proc stat line; -1 if unknown)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return -1


def _tasks() -> set[int]:
    """Return the thread ids of this process (its /proc tasks; empty where there are none)."""
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}
    except OSError:
        return set()


def _schedstat(tids) -> tuple[float, float]:
    """Return the seconds ``tids`` have run on a CPU and waited runnable for one, summed
    (the kernel's per-thread schedstat; a thread gone or a kernel without it counts 0)."""
    run = wait = 0
    for t in tids:
        try:
            with open(f"/proc/self/task/{t}/schedstat") as f:
                r, w = f.read().split()[:2]
        except (OSError, ValueError):
            continue
        run, wait = run + int(r), wait + int(w)
    return run / 1e9, wait / 1e9


def accounted(call, pool_tids, load_tids) -> dict:
    """Run ``call()`` (a b_g2_msm call returning its phases) and add to its phases who had
    the CPUs meanwhile: ``wall_s``, the pool threads' CPU seconds (``pool_cpu_s``) and
    seconds waiting runnable (``pool_wait_s``), and the busy threads' CPU seconds
    (``load_cpu_s``). CPU seconds over the wall are cores: the pool's share of the host."""
    p0, l0 = _schedstat(pool_tids), _schedstat(load_tids)
    t = time.perf_counter()
    ph = dict(call())
    wall = time.perf_counter() - t
    p1, l1 = _schedstat(pool_tids), _schedstat(load_tids)
    ph.update(wall_s=wall, pool_cpu_s=p1[0] - p0[0], pool_wait_s=p1[1] - p0[1],
              load_cpu_s=l1[0] - l0[0])
    return ph


def prep_visits(prep, visits: int, pin: int | None = None) -> list[dict]:
    """Return ``visits`` visits of PREP_CALLS prep_msm calls: seconds, page faults and CPU of each."""
    everyone = os.sched_getaffinity(0)
    rows = []
    for _ in range(visits):
        th = threading.Thread(target=time.sleep, args=(0.01,))
        th.start()
        th.join()
        time.sleep(0.3)
        if pin is not None:
            os.sched_setaffinity(0, {pin})
        try:
            secs, faults = [], []
            for _ in range(PREP_CALLS):
                f0 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
                t = time.perf_counter()
                prep()
                secs.append(time.perf_counter() - t)
                faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - f0)
            rows.append({"cpu": _cpu_now(), "s": [round(x, 6) for x in secs], "faults": faults,
                         "median_s": round(statistics.median(secs), 6)})
        finally:
            os.sched_setaffinity(0, everyone)
    return rows


def per_cpu(prep, calls: int = 9) -> dict[int, float]:
    """Return prep_msm's median seconds pinned to each CPU this process may use."""
    everyone = os.sched_getaffinity(0)
    out = {}
    try:
        for c in sorted(everyone):
            os.sched_setaffinity(0, {c})
            xs = []
            for _ in range(calls):
                t = time.perf_counter()
                prep()
                xs.append(time.perf_counter() - t)
            out[c] = round(statistics.median(xs), 6)
    finally:
        os.sched_setaffinity(0, everyone)
    return out


def _loader(kind: str, synth):
    """Return the step ``step(i, k)`` one busy thread of ``kind`` runs over and over
    (:func:`cuzklab.calibrate.measure.busy`: thread i, its k-th call)."""
    from cuzklab.native.bench import chain_length, chain_s
    if kind == "synth":
        return synth
    if kind == "chain":
        n = chain_length(0.025)   # long native calls: the GIL is taken 40 times a second
        return lambda i, k: chain_s(n, 1)
    import numpy as np
    mine = threading.local()      # each thread's two arrays, made at its first call

    def copy(i, k):
        if k == 0:
            mine.a = np.ones(1 << 25, dtype=np.uint8)
            mine.b = np.empty_like(mine.a)
        np.copyto(mine.b, mine.a)
    return copy


def _rounded(profile: dict) -> dict:
    """Return a call profile with its seconds rounded to microseconds (the JSON's)."""
    return {k: [round(x, 6) for x in v] if isinstance(v, list) else round(v, 6)
            for k, v in profile.items()}


def b_g2_beside(b_g2, synth, counts: list[int], rounds: int, settle_s: float,
                pool_tids=frozenset()) -> tuple[dict, dict]:
    """Return b_g2_msm beside ``count`` busy threads of each kind: {kind: {count: [visit
    medians]}}, and {kind: {count: [each visit's median seconds of each phase]}}.

    ``b_g2()`` runs one call and returns its phases (seconds by name). ``pool_tids``: the
    pool's threads; where given, each call's phases also say who had the CPUs meanwhile
    (:func:`accounted`; the busy threads are the ones the visit started).
    """
    loops = {kind: _loader(kind, synth) for kind in LOADS}
    out: dict = {kind: {} for kind in LOADS}
    phases: dict = {kind: {} for kind in LOADS}
    for rnd in range(rounds):
        order = counts if rnd % 2 == 0 else counts[::-1]
        for kind in LOADS:
            for s in order:
                if s == 0 and kind != "synth":   # one solo point, under the syntheses' name
                    continue
                before = _tasks()
                with busy(s, loops[kind], settle_s):
                    loaders = _tasks() - before
                    xs, ph = [], []
                    for _ in range(3):
                        t0 = time.perf_counter()
                        ph.append(accounted(b_g2, pool_tids, loaders) if pool_tids else b_g2())
                        xs.append(time.perf_counter() - t0)
                out[kind].setdefault(s, []).append(round(statistics.median(xs), 6))
                phases[kind].setdefault(s, []).append(_rounded(median_profile(ph)))
    return out, phases


def run(log2: int, backend: str, visits: int, counts: list[int], rounds: int, pool: int,
        settle_s: float = 0.8) -> dict:
    """Return both measurements (JSON-able)."""
    from cuzklab.live import work as W
    from cuzklab.live import workload
    from cuzklab.stages import StageClock
    work = workload(log2, 0, backend, 1.0)
    out = W.synthesize(work, 0, 0, StageClock(), 1)
    po = W.prep(out, StageClock())
    before = _tasks()
    W.b_g2(po, work, StageClock(), pool)   # the pool started, the bases touched
    pool_tids = frozenset(_tasks() - before)   # the threads that call started: its pool

    def prep():
        W.prep(out, StageClock())

    def b_g2():  # what W.b_g2 runs, with its phases and the pool's width profile
        return b_g2_profile(po, work, pool)

    def synth(i, k):
        W.synthesize(work, 1 + i, k % 200, StageClock(), 1)

    prep()
    free = prep_visits(prep, visits)
    pinned_to = min(os.sched_getaffinity(0))
    pinned = prep_visits(prep, visits, pin=pinned_to)
    cpus = per_cpu(prep)
    beside, phases = b_g2_beside(b_g2, synth, counts, rounds, settle_s, pool_tids)
    base = statistics.median(beside["synth"][0]) if 0 in beside["synth"] else None
    slow = {kind: {s: round(statistics.median(v) / base, 4) for s, v in pts.items()}
            for kind, pts in beside.items()} if base else {}
    return {"benchmark": "contention_loads", "host": host(), "log2_constraints": log2,
            "backend": backend, "pool_threads": pool, "prep_calls_per_visit": PREP_CALLS,
            "prep_visits": {"free": free, "pinned": pinned, "pinned_to": pinned_to},
            "prep_per_cpu_s": cpus,
            "b_g2_beside": {k: {str(s): v for s, v in pts.items()} for k, pts in beside.items()},
            "b_g2_slowdown": {k: {str(s): v for s, v in pts.items()} for k, pts in slow.items()},
            "b_g2_phases": {k: {str(s): v for s, v in pts.items()} for k, pts in phases.items()},
            "rounds": rounds, "pool_tids_found": len(pool_tids)}


def table(res: dict) -> str:
    """Return both measurements as text."""
    ms = lambda rows: " ".join(f"{r['median_s'] * 1e3:.1f}" for r in rows)  # noqa: E731
    lines = [f"# prep_msm visits at 2^{res['log2_constraints']} on {res['host']['cpu']} "
             f"({res['host']['cores']} cores), ms (median of {res['prep_calls_per_visit']} calls)",
             f"free:    {ms(res['prep_visits']['free'])}",
             f"pinned to CPU {res['prep_visits']['pinned_to']}: {ms(res['prep_visits']['pinned'])}",
             "per CPU: " + " ".join(f"{c}:{s * 1e3:.1f}" for c, s in res["prep_per_cpu_s"].items()),
             f"# b_g2_msm beside S busy threads (pool of {res['pool_threads']}), ms per visit and slowdown"]
    for kind, pts in res["b_g2_beside"].items():
        for s, v in pts.items():
            x = res["b_g2_slowdown"].get(kind, {}).get(s, float("nan"))
            lines.append(f"{kind:6s} {s:>3}  {' '.join(f'{t * 1e3:.0f}' for t in v)}  x{x:.2f}")
    phases = res.get("b_g2_phases") or {}
    if phases:
        lines.append("# its phases, ms (median over the visits of each visit's median)")
        for kind, pts in phases.items():
            for s, visits in pts.items():
                names = [k for k in visits[0] if k != "widths_s" and k not in ACCOUNTING]
                line = f"{kind:6s} {s:>3}  " + "  ".join(
                    f"{k[:-2]} {statistics.median(v[k] for v in visits) * 1e3:.1f}"
                    for k in names)
                if "widths_s" in visits[0]:  # the share of the call at each width, %
                    w = [statistics.median(v["widths_s"][i] for v in visits)
                         for i in range(len(visits[0]["widths_s"]))]
                    tot = sum(w) or 1.0
                    line += "  widths% " + " ".join(f"{100 * x / tot:.0f}" for x in w)
                if "pool_cpu_s" in visits[0]:  # cores each side held, and the pool's CPU-s
                    med = {k: statistics.median(v[k] for v in visits) for k in ACCOUNTING}
                    wall = med["wall_s"] or 1.0
                    line += (f"  cores: pool {med['pool_cpu_s'] / wall:.1f}, load "
                             f"{med['load_cpu_s'] / wall:.1f}, pool waiting "
                             f"{med['pool_wait_s'] / wall:.1f}; pool CPU-s a call "
                             f"{med['pool_cpu_s']:.3f}")
                lines.append(line)
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=20, help="rows per partition 2^K (default 20)")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu",
                    help="where the keys are set up (the stages timed run on the CPU either way)")
    ap.add_argument("--visits", type=int, default=16, help="prep_msm visits, free and pinned")
    ap.add_argument("--counts", type=_ints, default=[0, 4, 8, 12], help="busy threads beside b_g2_msm")
    ap.add_argument("--rounds", type=int, default=4, help="visits of each count, there and back")
    ap.add_argument("--pool", type=int, default=16, help="b_g2_msm's pool threads")
    ap.add_argument("--quick", action="store_true", help="2^4 on the CPU, 2 visits, counts 0,1, one round")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    for name in ("visits", "rounds", "pool"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be >= 1, got {getattr(a, name)}")
    if not 2 <= a.log2 <= 24:
        ap.error(f"--log2 must be in [2, 24], got {a.log2}")
    settle = 0.8
    if a.quick:
        a.log2, a.backend, a.visits, a.counts, a.rounds, a.pool, settle = 4, "cpu", 2, [0, 1], 1, 2, 0.05
    res = run(a.log2, a.backend, a.visits, a.counts, a.rounds, a.pool, settle)
    print(table(res))
    if a.json:
        write_text(a.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
