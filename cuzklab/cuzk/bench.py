"""cuzk-bench: the argv of a run, and what its report says.

``cuzk-bench batch -c N -j J`` submits N proofs with at most J in flight and
prints one line per proof, ``[i/N] COMPLETED — 70.3s (prove=65700 ms,
queue=120 ms)`` (an em dash; ``prove`` is the daemon's GPU time summed over
partitions), then a summary whose ``throughput`` is elapsed time over
completed proofs, fill and drain included. ``cuzk-bench single`` prints a
``=== Proof Result ===`` block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .lines import Malformed, Record

PROOF_TYPES = ("porep", "snap", "wpost", "winning")
BENCH_PROOF_COLUMNS = ("index", "count", "status", "wall_s", "prove_ms", "queue_ms")

_SECONDS = re.compile(r"^([0-9.]+)s$")
_AVG_MIN_MAX = re.compile(r"^avg=([0-9.]+)s\s+min=([0-9.]+)s\s+max=([0-9.]+)s$")
_THROUGHPUT = re.compile(r"^([0-9.]+) proofs/min \(([0-9.]+)s/proof\)$")
_TIMINGS = re.compile(r"^total=(\d+) ms \(queue=(\d+) ms, srs=(\d+) ms, synth=(\d+) ms, "
                      r"gpu=(\d+) ms\)$")
_MS = re.compile(r"^(\d+) ms$")


@dataclass
class BenchReport:
    """What one cuzk-bench run printed: its mode, the proofs and the summary."""

    mode: str | None = None                   # "batch" or "single"
    proof_type: str | None = None
    count: int | None = None
    concurrency: int | None = None
    proofs: list[dict] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    single: dict[str, Any] = field(default_factory=dict)

    def proofs_frame(self) -> pd.DataFrame:
        """Return one row per reported proof (index, status, wall_s, prove_ms, queue_ms)."""
        return pd.DataFrame(self.proofs, columns=list(BENCH_PROOF_COLUMNS))

    @property
    def complete(self) -> bool:
        """Return True when the report reached its summary (the bench was not cut)."""
        return bool(self.summary) or bool(self.single)

    def to_dict(self) -> dict:
        """Return the report's facts as a flat JSON-able dict."""
        out: dict[str, Any] = {"mode": self.mode, "proof_type": self.proof_type,
                               "count": self.count, "concurrency": self.concurrency,
                               "proofs_reported": len(self.proofs),
                               "complete": self.complete}
        out.update(self.summary)
        out.update({f"single_{k}": v for k, v in self.single.items()})
        return out


def _value(key: str, value: str, section: str | None) -> dict:
    """Return the summary facts of one ``key: value`` line of the report."""
    if key == "proof type":
        return {"proof_type": value}
    if key in ("count", "concurrency", "completed", "failed"):
        if not (value.isascii() and value.isdigit()):
            raise Malformed("bench", f"{key}: expected an integer, got {value!r}")
        return {key: int(value)}
    if key == "total time":
        m = _SECONDS.match(value)
        if not m:
            raise Malformed("bench", f"total time: expected N.Ns, got {value!r}")
        return {"total_time_s": float(m.group(1))}
    if key in ("wall time", "prove time") and section != "Proof Result":
        m = _AVG_MIN_MAX.match(value)
        if not m:
            raise Malformed("bench", f"{key}: expected avg=..s min=..s max=..s")
        p = key.split()[0]
        return {f"{p}_avg_s": float(m.group(1)), f"{p}_min_s": float(m.group(2)),
                f"{p}_max_s": float(m.group(3))}
    if key == "throughput":
        m = _THROUGHPUT.match(value)
        if not m:
            raise Malformed("bench", "throughput: expected N proofs/min (N.Ns/proof)")
        return {"throughput_proofs_per_min": float(m.group(1)),
                "seconds_per_proof": float(m.group(2))}
    if key == "wall time":            # single: "wall time: 1234 ms"
        m = _MS.match(value)
        if not m:
            raise Malformed("bench", "wall time: expected N ms")
        return {"wall_ms": int(m.group(1))}
    if key == "timings":
        m = _TIMINGS.match(value)
        if not m:
            raise Malformed("bench", "timings: expected total=.. ms (queue=.., srs=.., "
                                     "synth=.., gpu=.. ms)")
        return dict(zip(("total_ms", "queue_ms", "srs_ms", "synth_ms", "gpu_ms"),
                        map(int, m.groups())))
    if key in ("status", "job_id", "error"):
        return {key: value}
    if key == "proof":
        m = re.match(r"^(\d+) bytes", value)
        return {"proof_bytes": int(m.group(1))} if m else {}
    return {}


class BenchReader:
    """Fold cuzk-bench records, in order, into a :class:`BenchReport`."""

    def __init__(self):
        self.report = BenchReport()
        self.section: str | None = None
        self.seen = False

    def feed(self, rec: Record) -> None:
        """Apply one bench record (raises Malformed for a bad value)."""
        self.seen = True
        r = self.report
        item = rec["item"]
        if item == "header":
            self.section = rec["title"]
            if self.section == "Batch Benchmark":
                r.mode = "batch"
            elif self.section == "Proof Result":
                r.mode = "single"
            return
        if item == "proof":
            r.mode = r.mode or "batch"
            r.proofs.append({k: rec[k] for k in BENCH_PROOF_COLUMNS})
            return
        facts = _value(rec["key"], rec["value"], self.section)
        if self.section == "Batch Benchmark":
            r.proof_type = facts.get("proof_type", r.proof_type)
            r.count = facts.get("count", r.count)
            r.concurrency = facts.get("concurrency", r.concurrency)
        elif self.section == "Proof Result":
            r.single.update(facts)
        else:
            r.summary.update(facts)


def _c_j(config) -> tuple[int, int]:
    if hasattr(config, "proofs") and hasattr(config, "concurrency"):
        return int(config.proofs), int(config.concurrency)
    if isinstance(config, Mapping):
        c = config.get("proofs", config.get("c"))
        j = config.get("concurrency", config.get("j"))
        if c is None or j is None:
            raise ValueError("config: a sweep point needs proofs (c) and concurrency (j), "
                             f"got keys {sorted(config)}")
        return int(c), int(j)
    raise TypeError(f"config must be a PipelineConfig or a mapping with proofs/concurrency, "
                    f"got {type(config).__name__}")


def bench_plan(config, *, bench: str | Sequence[str] = "cuzk-bench", addr: str | None = None,
               proof_type: str = "porep", c1: str | None = None,
               extra: Sequence[str] = ()) -> list[str]:
    """Return the argv of ``cuzk-bench batch -c N -j J`` for a config or sweep point."""
    c, j = _c_j(config)
    if c < 1:
        raise ValueError(f"proofs (-c) must be >= 1, got {c}")
    if not 1 <= j <= c:
        raise ValueError(f"concurrency (-j) must be between 1 and proofs ({c}), got {j}")
    if proof_type not in PROOF_TYPES:
        raise ValueError(f"proof_type must be one of {PROOF_TYPES}, got {proof_type!r}")
    argv = [bench] if isinstance(bench, str) else list(bench)
    if not argv or not all(isinstance(a, str) and a for a in argv):
        raise ValueError(f"bench must be a program name or a non-empty argv, got {bench!r}")
    if addr:
        argv += ["--addr", addr]
    argv += ["batch", "-t", proof_type]
    if c1:
        argv += ["--c1", str(c1)]
    argv += ["-c", str(c), "-j", str(j)]
    argv += [str(a) for a in extra]
    return argv
