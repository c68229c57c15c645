"""Export a Trace as Chrome-trace JSON, which Perfetto (ui.perfetto.dev) opens.

One process per resource group (the lane's prefix: ``synth``, ``gpu0``,
``cpu``), one thread (track) per lane, so each GPU is one track group.
Complete events on one track must nest, so a lane whose spans overlap
(waiting lanes such as ``admission`` or ``gpu_queue``) is written as async
begin/end pairs instead; counters (RSS, GPU queue depth, bandwidth) become
counter tracks, and a per-GPU counter (``vram_gib.gpu1``) sits in its GPU's
group. Zero-length spans (a proof admitted the moment it was submitted) are
left out: Perfetto would draw them as slivers that read as work; the
metadata counts them.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ..atomic import write_text

_US = 1e6


def to_chrome_trace(trace) -> dict:
    """Return the Chrome-trace JSON object (``traceEvents``) for ``trace``."""
    events: list[dict] = []
    s = trace.spans
    lanes = sorted(s["lane"].unique()) if len(s) else []
    groups: dict[str, int] = {}
    tids: dict[str, tuple[int, int]] = {}
    for lane in lanes:
        group = lane.split(".", 1)[0]
        pid = groups.setdefault(group, len(groups) + 1)
        tids[lane] = (pid, len(tids) + 1)
    for group, pid in groups.items():
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": group}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                       "args": {"sort_index": pid}})
    for lane, (pid, tid) in tids.items():
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                       "args": {"name": lane}})
    overlapping = _overlapping_lanes(s)
    skipped = 0
    for n, row in enumerate(s.itertuples(index=False)):
        if not row.end > row.start:
            skipped += 1
            continue
        pid, tid = tids[row.lane]
        args = {"proof": int(row.proof), "partition": int(row.partition)}
        if not math.isnan(row.slowdown):
            args["slowdown"] = round(float(row.slowdown), 4)
        if not math.isnan(row.bytes):
            args["bytes"] = float(row.bytes)
        if row.lane in overlapping:
            common = {"name": row.stage, "cat": row.lane, "pid": pid, "tid": tid,
                      "id": f"{row.lane}:{n}"}
            events.append({**common, "ph": "b", "ts": row.start * _US, "args": args})
            events.append({**common, "ph": "e", "ts": row.end * _US})
            continue
        events.append({"ph": "X", "name": row.stage, "cat": row.stage, "pid": pid,
                       "tid": tid, "ts": row.start * _US,
                       "dur": (row.end - row.start) * _US, "args": args})
    c = trace.counters
    if len(c):
        cpid = len(groups) + 1
        events.append({"ph": "M", "name": "process_name", "pid": cpid, "tid": 0,
                       "args": {"name": "counters"}})
        for row in c.itertuples(index=False):
            # a per-GPU counter (``vram_gib.gpu1``) joins that GPU's track group
            base, _, group = row.name.rpartition(".")
            pid = groups.get(group, cpid) if base else cpid
            name = base if pid != cpid else row.name
            events.append({"ph": "C", "name": name, "pid": pid, "tid": 0,
                           "ts": row.t * _US, "args": {name: float(row.value)}})
    meta = {k: v for k, v in trace.meta.items() if k in ("source", "profile", "seed", "failed")}
    meta["zero_length_spans_left_out"] = skipped
    return {"traceEvents": events, "displayTimeUnit": "ms", "metadata": meta}


def _overlapping_lanes(spans) -> set:
    """Return the lanes on which some span starts before the previous one ended."""
    out = set()
    if not len(spans):
        return out
    for lane, g in spans.groupby("lane"):
        g = g.sort_values("start", kind="stable")
        ends = g["end"].to_numpy()
        starts = g["start"].to_numpy()
        if len(g) > 1 and bool((starts[1:] < np.maximum.accumulate(ends)[:-1] - 1e-12).any()):
            out.add(lane)
    return out


def write_chrome_trace(trace, path) -> dict:
    """Write the Chrome-trace JSON of ``trace`` to ``path`` atomically; return it."""
    obj = to_chrome_trace(trace)
    write_text(path, json.dumps(obj, default=str))
    return obj
