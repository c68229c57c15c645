"""Per proof kind figures of a mixed-workload run (the summary's ``kinds``)."""

from __future__ import annotations

import math

import numpy as np


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 4) if values else None


def _missing(v) -> bool:
    """True for a value a proof row does not have (None, or NaN in a table)."""
    return v is None or math.isnan(float(v))


def arrival(row) -> float:
    """Return a proof row's arrival: ``arrived`` (a client's limit before the daemon) where
    the row has it, else ``submitted``."""
    a = row.get("arrived")
    return float(row["submitted"] if _missing(a) else a)


def kinds_summary(trace) -> dict | None:
    """Return ``{kind: {...}}`` of a trace with a workload, else None.

    Per kind: proofs completed and not, throughput per hour over the run (None
    when the run failed: a rate up to an out-of-memory stop is not a throughput),
    latency from arrival (mean, p50, p95, p99, max), the deadline and how many
    proofs missed it (finished late or never finished), and the SRS/PCE loads,
    the seconds they took and the evictions; with a client's limit (the
    workload's ``max_pending``), the wait for its slot (mean and max, over the
    proofs that got one); with Curio's ``prove_timeout_s``, ``prove_timeouts``: the
    proofs that were at the daemon longer than that (finished late or unfinished).
    """
    wl = trace.meta.get("workload")
    if not wl:
        return None
    rows = trace.meta.get("proofs") or []
    end = float(trace.meta.get("end_time") or trace.duration or 0.0)
    # a run that failed has no throughput, as its seconds_per_proof is null
    failed = bool(trace.meta.get("failed"))
    out: dict = {}
    for kind, facts in (wl.get("kinds") or {}).items():
        mine = [r for r in rows if r.get("kind") == kind]
        ok = [r for r in mine if r.get("status") == "ok"]
        lat = sorted(float(r["completed"]) - arrival(r) for r in ok)
        misses = 0
        deadlines = set()
        for r in mine:
            d = r.get("deadline_s")
            if _missing(d):
                continue
            deadlines.add(float(d))
            if r.get("status") != "ok" or float(r["completed"]) - arrival(r) > d:
                misses += 1
        loads = [x for x in wl.get("srs_loads", []) if x["kind"] == kind]
        out[kind] = {
            "priority": facts.get("priority"),
            "proofs": len(ok),
            "not_completed": len(mine) - len(ok),
            "throughput_per_hour": (round(len(ok) * 3600.0 / end, 4)
                                    if end > 0 and not failed else None),
            "latency_s_mean": round(float(np.mean(lat)), 4) if lat else None,
            "latency_s_p50": _pct(lat, 50),
            "latency_s_p95": _pct(lat, 95),
            "latency_s_p99": _pct(lat, 99),
            "latency_s_max": round(lat[-1], 4) if lat else None,
            "deadline_s": (min(deadlines) if len(deadlines) == 1 else
                           sorted(deadlines) if deadlines else None),
            "deadline_misses": misses if deadlines else None,
            "srs_loads": len(loads),
            "srs_load_s": round(sum(x["seconds"] for x in loads), 4),
            "srs_evictions": sum(1 for x in wl.get("evictions", []) if x["kind"] == kind),
        }
        # the proofs the daemon received (a client's limit may have held some back)
        sent = [r for r in mine if not _missing(r.get("submitted"))]
        timeout = wl.get("prove_timeout_s")
        if timeout:
            # at the daemon longer than Curio waits: finished late, or still there at the end
            out[kind]["prove_timeouts"] = sum(
                1 for r in sent if (float(r["completed"]) if r.get("status") == "ok" else end)
                - float(r["submitted"]) > timeout)
        if wl.get("max_pending"):
            waits = [float(r["submitted"]) - arrival(r) for r in sent]
            out[kind]["client_wait_s_mean"] = round(float(np.mean(waits)), 4) if waits else None
            out[kind]["client_wait_s_max"] = round(max(waits), 4) if waits else None
    return out
