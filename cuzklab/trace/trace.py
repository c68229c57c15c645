"""The Trace: spans, counters and meta of one run of the pipeline.

Every source (the simulator, the live executor, parsed daemon logs) builds a
Trace through a :class:`TraceBuilder`; every consumer (summary, plots,
Perfetto export, sweeps) reads one. Spans are one row per stage interval;
counters are time series; meta says where the run came from and whether it
failed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import TraceError
from .io import read_trace_parts, save_trace
from .schema import COUNTER_COLUMNS, SOURCES, SPAN_COLUMNS, STAGES

_SPAN_DTYPES = {
    "proof": "int64", "partition": "int64", "stage": "object", "lane": "object",
    "start": "float64", "end": "float64", "gpu": "int64", "bytes": "float64",
    "slowdown": "float64",
}


def _empty_spans() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _SPAN_DTYPES.items()})


def _empty_counters() -> pd.DataFrame:
    return pd.DataFrame({"t": pd.Series(dtype="float64"),
                         "name": pd.Series(dtype="object"),
                         "value": pd.Series(dtype="float64")})


@dataclass
class Trace:
    """One run: ``spans`` and ``counters`` DataFrames and a ``meta`` dict.

    ``meta`` keys: ``source`` (sim / live / cuzk-log), ``config`` (dict),
    ``profile`` (name), ``seed``, ``versions``, ``host``, ``failed`` (bool),
    ``failure`` ({reason, message} or None), ``proofs`` (list of
    {proof, submitted, started, completed, status}) and ``resources``
    (capacities used by the bottleneck analysis).
    """

    spans: pd.DataFrame = field(default_factory=_empty_spans)
    counters: pd.DataFrame = field(default_factory=_empty_counters)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self.spans = _normalize_spans(self.spans)
        self.counters = _normalize_counters(self.counters)
        source = self.meta.get("source")
        if source is not None and source not in SOURCES:
            raise TraceError(f"meta.source must be one of {SOURCES}, got {source!r}")

    # -- views -------------------------------------------------------------
    @property
    def source(self) -> str | None:
        """Return where this trace came from (sim, live or cuzk-log)."""
        return self.meta.get("source")

    @property
    def failed(self) -> bool:
        """Return True when the run failed (e.g. out of host memory)."""
        return bool(self.meta.get("failed", False))

    @property
    def duration(self) -> float:
        """Return the time of the last event in seconds (0 for an empty trace)."""
        ends = [0.0]
        if len(self.spans):
            ends.append(float(self.spans["end"].max()))
        if len(self.counters):
            ends.append(float(self.counters["t"].max()))
        return max(ends)

    def stage(self, name: str) -> pd.DataFrame:
        """Return the spans of one stage."""
        if name not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, got {name!r}")
        return self.spans[self.spans["stage"] == name]

    def counter(self, name: str) -> pd.DataFrame:
        """Return one counter's series as a DataFrame with columns t, value."""
        c = self.counters
        return c.loc[c["name"] == name, ["t", "value"]].reset_index(drop=True)

    def proofs(self) -> pd.DataFrame:
        """Return one row per proof: submitted, started, completed, status."""
        rec = self.meta.get("proofs")
        if rec:
            df = pd.DataFrame(rec)
            for col in ("submitted", "started", "completed"):
                if col not in df:
                    df[col] = np.nan
            if "status" not in df:
                df["status"] = np.where(df["completed"].notna(), "ok", "failed")
            return df[["proof", "submitted", "started", "completed", "status"]]
        # Derive from spans when the source recorded no proof table.
        s = self.spans[self.spans["proof"] >= 0]
        if s.empty:
            return pd.DataFrame(columns=["proof", "submitted", "started", "completed", "status"])
        g = s.groupby("proof")
        df = pd.DataFrame({"submitted": g["start"].min(), "completed": g["end"].max()})
        synth = s[s["stage"] == "synth"].groupby("proof")["start"].min()
        df["started"] = synth.reindex(df.index)
        df["status"] = "ok"
        return df.reset_index()[["proof", "submitted", "started", "completed", "status"]]

    # -- analysis ------------------------------------------------------------
    def summary(self) -> dict:
        """Return the flat, JSON-able summary of the run (see docs/design.md)."""
        from .summary import summarize
        return summarize(self)

    def bottleneck(self) -> dict:
        """Return the resource that bounds throughput, with the evidence."""
        from .summary import bottleneck
        return bottleneck(self)

    # -- IO ------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the trace to a Parquet file atomically."""
        save_trace(self, path)

    @classmethod
    def load(cls, path) -> "Trace":
        """Read a trace written by :meth:`save`."""
        spans, counters, meta = read_trace_parts(path)
        return cls(spans=spans, counters=counters, meta=meta)

    def to_perfetto(self, path=None) -> dict:
        """Return (and optionally write) the Chrome-trace JSON for Perfetto."""
        from .perfetto import to_chrome_trace, write_chrome_trace
        if path is not None:
            return write_chrome_trace(self, path)
        return to_chrome_trace(self)

    def __repr__(self) -> str:
        return (f"Trace(source={self.source!r}, spans={len(self.spans)}, "
                f"counters={len(self.counters)}, failed={self.failed})")


def _normalize_spans(df: pd.DataFrame) -> pd.DataFrame:
    if df is None:
        return _empty_spans()
    df = pd.DataFrame(df).copy()
    missing = [c for c in SPAN_COLUMNS if c not in df.columns]
    if missing:
        raise TraceError(f"spans lack required columns {missing}")
    if "gpu" not in df:
        df["gpu"] = -1
    if "bytes" not in df:
        df["bytes"] = np.nan
    if "slowdown" not in df:
        df["slowdown"] = np.nan
    df["gpu"] = df["gpu"].fillna(-1)
    df = df[list(_SPAN_DTYPES)].astype(_SPAN_DTYPES)
    bad = set(df["stage"].unique()) - set(STAGES)
    if bad:
        raise TraceError(f"unknown stage names {sorted(bad)}; allowed: {STAGES}")
    if len(df) and bool((df["end"] < df["start"]).any()):
        n = int((df["end"] < df["start"]).sum())
        raise TraceError(f"{n} spans end before they start")
    return df.reset_index(drop=True)


def _normalize_counters(df: pd.DataFrame) -> pd.DataFrame:
    if df is None:
        return _empty_counters()
    df = pd.DataFrame(df).copy()
    missing = [c for c in COUNTER_COLUMNS if c not in df.columns]
    if missing:
        raise TraceError(f"counters lack required columns {missing}")
    return df[list(COUNTER_COLUMNS)].astype(
        {"t": "float64", "name": "object", "value": "float64"}).reset_index(drop=True)


class TraceBuilder:
    """Collect spans and counters cheaply (lists of tuples), then build a Trace."""

    def __init__(self, **meta):
        self._spans: list[tuple] = []
        self._counters: list[tuple] = []
        self.meta: dict[str, Any] = dict(meta)

    def span(self, proof: int, partition: int, stage: str, lane: str,
             start: float, end: float, *, gpu: int = -1,
             bytes: float = math.nan, slowdown: float = math.nan) -> None:
        """Record one stage interval."""
        self._spans.append((int(proof), int(partition), stage, lane, float(start),
                            float(end), int(gpu), float(bytes), float(slowdown)))

    def counter(self, t: float, name: str, value: float) -> None:
        """Record one counter sample."""
        self._counters.append((float(t), name, float(value)))

    @staticmethod
    def proof_rows(records: dict, proofs: int, failed: bool) -> list[dict]:
        """Return the ``proofs`` meta rows from {proof: {submitted, started, completed}}.

        A proof with a completion time is ``ok``; any other is ``failed`` when
        the run failed, else ``pending``; missing times are NaN.
        """
        rows = []
        for i in range(proofs):
            r = records.get(i, {})
            rows.append({"proof": i, "submitted": r.get("submitted", math.nan),
                         "started": r.get("started", math.nan),
                         "completed": r.get("completed", math.nan),
                         "status": "ok" if "completed" in r else
                                   ("failed" if failed else "pending")})
        return rows

    def build(self, **meta) -> Trace:
        """Return the Trace of everything recorded so far."""
        spans = (pd.DataFrame(self._spans, columns=list(_SPAN_DTYPES))
                 if self._spans else _empty_spans())
        if len(spans):
            spans = spans.sort_values(["start", "proof", "partition"], kind="stable")
        counters = (pd.DataFrame(self._counters, columns=list(COUNTER_COLUMNS))
                    if self._counters else _empty_counters())
        return Trace(spans=spans, counters=counters, meta={**self.meta, **meta})
