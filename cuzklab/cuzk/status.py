"""The daemon's ``GET /status`` JSON: one snapshot, an array, or JSON lines of them.

A snapshot (cuzk-core status.rs; only the memory-manager daemon serves
``/status``) has ``uptime_secs`` (seconds since the engine started, the
timeline's clock), ``memory`` (the memory budget: total, used, available
bytes), ``synthesis`` (``max_concurrent``, ``active``), ``pipelines``
(in-flight proofs with their partitions' state and ``synth_ms`` /
``gpu_ms``), ``gpu_workers``, ``allocations`` (resident SRS and PCE entries:
``circuit_id``, ``bytes``, ``last_used_secs_ago``, ``evictable``),
``counters`` (completed and failed, also by proof kind, queue depth) and
``buffers`` (synthesis outputs, provers, aux vectors, shells and pending GPU
handles in flight). :func:`parse_status_text` returns the snapshots and the
malformed entries it skipped; :func:`snapshot_counters` the numbers that
become Trace counters.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

REQUIRED = ("uptime_secs", "memory", "pipelines", "gpu_workers", "counters")
PARTITION_STATES = ("pending", "synthesizing", "synth_done", "gpu", "done", "failed")


def looks_like_status(text: str) -> bool:
    """Return True if ``text`` is JSON that holds status snapshots."""
    s = text.lstrip()
    return s[:1] in ("{", "[") and '"uptime_secs"' in s[:4096]


def _check(snap: Any) -> str | None:
    if not isinstance(snap, dict):
        return "a snapshot must be a JSON object"
    missing = [k for k in REQUIRED if k not in snap]
    if missing:
        return f"lacks {', '.join(missing)}"
    if not isinstance(snap["memory"], dict) or not isinstance(snap["pipelines"], list):
        return "memory must be an object and pipelines a list"
    return None


def parse_status_text(text: str) -> tuple[list[dict], list[tuple[int, str, str]]]:
    """Return (snapshots, bad) where bad lists (line, why, text) of skipped entries."""
    bad: list[tuple[int, str, str]] = []
    try:
        doc = json.loads(text)
        entries = [(1, d) for d in (doc if isinstance(doc, list) else [doc])]
    except json.JSONDecodeError:
        entries = []
        for i, line in enumerate(text.splitlines(), 1):   # JSON lines, one poll each
            if not line.strip():
                continue
            try:
                entries.append((i, json.loads(line)))
            except json.JSONDecodeError as exc:
                bad.append((i, f"not JSON: {exc.msg}", line))
    snaps = []
    for i, d in entries:
        why = _check(d)
        if why:
            bad.append((i, why, json.dumps(d)[:160] if not isinstance(d, str) else d))
        else:
            snaps.append(d)
    return snaps, bad


def snapshot_row(snap: dict) -> dict:
    """Return the flat facts of one snapshot (memory, counters, pipeline and worker counts)."""
    mem, ctr = snap.get("memory") or {}, snap.get("counters") or {}
    workers = snap.get("gpu_workers") or []
    alloc = snap.get("allocations") or {}
    syn, buf = snap.get("synthesis") or {}, snap.get("buffers") or {}
    return {
        "uptime_secs": snap.get("uptime_secs"),
        "total_bytes": mem.get("total_bytes"), "used_bytes": mem.get("used_bytes"),
        "available_bytes": mem.get("available_bytes"),
        "pipelines": len(snap.get("pipelines") or []),
        "gpu_workers": len(workers),
        "gpu_workers_busy": sum(1 for w in workers if w.get("state") == "proving"),
        "total_completed": ctr.get("total_completed"), "total_failed": ctr.get("total_failed"),
        "queue_depth": ctr.get("queue_depth"),
        "synth_active": syn.get("active"), "synth_max_concurrent": syn.get("max_concurrent"),
        "srs_resident": [e.get("circuit_id") for e in alloc.get("srs") or []
                         if isinstance(e, dict)],
        "pce_resident": [e.get("circuit_id") for e in alloc.get("pce") or []
                         if isinstance(e, dict)],
        **{k: buf.get(k) for k in BUFFER_KEYS},
    }


# Trace counter name -> how to read it from a snapshot (status.rs field names).
BUFFER_KEYS = ("synth_in_flight", "provers_in_flight", "aux_in_flight", "shells_in_flight",
               "pending_handles")


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def snapshot_counters(snap: dict) -> dict[str, float]:
    """Return the Trace counters of one snapshot: budget, residency, buffers, work in flight."""
    mem, ctr = snap.get("memory") or {}, snap.get("counters") or {}
    syn, buf = snap.get("synthesis") or {}, snap.get("buffers") or {}
    alloc = snap.get("allocations") or {}
    out: dict[str, float | None] = {
        "budget_used_gib": _num(mem.get("used_bytes")),
        "budget_available_gib": _num(mem.get("available_bytes")),
        "budget_total_gib": _num(mem.get("total_bytes")),
    }
    out = {k: v / 2**30 for k, v in out.items() if v is not None}
    for kind in ("srs", "pce"):
        entries = [e for e in alloc.get(kind) or [] if isinstance(e, dict)]
        if kind in alloc:
            out[f"{kind}_resident_gib"] = sum(_num(e.get("bytes")) or 0 for e in entries) / 2**30
            out[f"{kind}_entries"] = len(entries)
    for name, v in (("synth_active", syn.get("active")),
                    ("synth_max_concurrent", syn.get("max_concurrent")),
                    ("scheduler_queue_depth", ctr.get("queue_depth")),
                    ("proofs_completed", ctr.get("total_completed")),
                    ("proofs_failed", ctr.get("total_failed")),
                    ("pipelines_in_flight", len(snap.get("pipelines") or [])),
                    ("gpu_workers_busy", sum(1 for w in snap.get("gpu_workers") or []
                                             if isinstance(w, dict)
                                             and w.get("state") == "proving"))):
        if _num(v) is not None:
            out[name] = v
    for key in BUFFER_KEYS:
        if _num(buf.get(key)) is not None:
            out[key] = buf[key]
    return out


def snapshots_frame(snaps: list[dict]) -> pd.DataFrame:
    """Return one row per snapshot (see :func:`snapshot_row`)."""
    return pd.DataFrame([snapshot_row(s) for s in snaps])


def partitions_frame(snaps: list[dict]) -> pd.DataFrame:
    """Return one row per (snapshot, job, partition): state, synth_ms, gpu_ms."""
    rows = []
    for s in snaps:
        for p in s.get("pipelines") or []:
            for part in p.get("partitions") or []:
                rows.append({"uptime_secs": s.get("uptime_secs"), "job_id": p.get("job_id"),
                             "proof_kind": p.get("proof_kind"), "partition": part.get("index"),
                             "state": part.get("state"), "synth_ms": part.get("synth_ms"),
                             "gpu_ms": part.get("gpu_ms")})
    return pd.DataFrame(rows, columns=["uptime_secs", "job_id", "proof_kind", "partition",
                                       "state", "synth_ms", "gpu_ms"])


def workers_frame(snaps: list[dict]) -> pd.DataFrame:
    """Return one row per (snapshot, GPU worker): state, current job and partition."""
    rows = []
    for s in snaps:
        for w in s.get("gpu_workers") or []:
            rows.append({"uptime_secs": s.get("uptime_secs"), **{
                k: w.get(k) for k in ("worker_id", "gpu_ordinal", "state", "current_job",
                                      "current_partition", "busy_secs")}})
    return pd.DataFrame(rows, columns=["uptime_secs", "worker_id", "gpu_ordinal", "state",
                                       "current_job", "current_partition", "busy_secs"])
