"""Read what a real cuzk run wrote and return a Trace, result tables and parse statistics.

``parse_logs(paths)`` takes any mix of files: the daemon's stdout and stderr
(together or apart, with or without ANSI colours), cuzk-bench's report, and
``/status`` JSON snapshots. Each line is classified on its own, so files may
be concatenated or interleaved. Lines that do not parse are counted with
their line numbers and never stop the parse. The last line of a file that
does not end with a newline was cut while being written (a kill) and is
counted as malformed.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import LogParseError
from ..trace import Trace
from . import status as status_mod
from .bench import BenchReader, BenchReport
from ..model.cuzk_versions import DAEMON_VERSIONS
from .formats import format_of, releases_printing
from .lines import Malformed, Record, classify
from .stats import ParseStats
from .timeline import LogModel


@dataclass
class LogParse:
    """The result of parsing a run's files: Trace, tables, bench report, statistics."""

    trace: Trace
    proofs: pd.DataFrame
    partitions: pd.DataFrame
    bench: BenchReport | None
    status: list[dict] = field(default_factory=list)
    stats: ParseStats = field(default_factory=ParseStats)

    def status_frame(self) -> pd.DataFrame:
        """Return one row per /status snapshot."""
        return status_mod.snapshots_frame(self.status)

    def inferred_config(self, **overrides):
        """Return a PipelineConfig guessed from what the logs show (for the simulator).

        proofs: proofs seen; concurrency: cuzk-bench's ``-j`` if its report was
        read, else the most proofs in flight at once; partitions: the most
        partitions of one proof; partition_workers: the most syntheses running at
        once; gpus and gpu_workers_per_device: from the GPU workers seen;
        memory_gib: the memory budget (/status or the start-up line) plus the
        daemon's 5 GiB safety margin; lock and admission: those of the daemon
        releases whose line formats the logs hold, where they agree. The rest
        keep their defaults; ``overrides`` win.
        """
        from ..model import PipelineConfig
        values: dict[str, Any] = {}
        for key in ("lock", "admission"):
            seen = {getattr(DAEMON_VERSIONS[n], key) for n in self.stats.releases or ()}
            if len(seen) == 1:
                values[key] = seen.pop()
        cfg = self.trace.meta.get("config")
        if cfg:
            values.update(cfg)
        proofs = self.proofs
        if len(proofs):
            values["proofs"] = int(len(proofs))
            spans = [(r.started_s, r.completed_s if r.completed_s == r.completed_s
                      and r.completed_s is not None else math.inf)
                     for r in proofs.itertuples() if r.started_s == r.started_s]
            edges = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans],
                           key=lambda e: (e[0], e[1]))
            level = peak = 0
            for _, d in edges:
                level += d
                peak = max(peak, level)
            values["concurrency"] = max(1, peak)
        if self.bench is not None and self.bench.concurrency:
            values["concurrency"] = self.bench.concurrency
        parts = self.partitions
        if len(parts) and (parts.partition >= 0).any():
            values["partitions"] = int(parts[parts.partition >= 0]
                                       .groupby("proof").partition.nunique().max())
        running = self.trace.counter("synth_running")
        if len(running):
            values["partition_workers"] = max(1, int(running.value.max()))
        workers = (self.trace.meta.get("cuzk") or {}).get("workers") or {}
        if workers:
            gpus = sorted(set(workers.values()))
            values["gpus"] = len(gpus)
            values["gpu_workers_per_device"] = max(
                sum(1 for g in workers.values() if g == x) for x in gpus)
        # The daemon's budget is MemTotal minus its 5 GiB safety margin (cuzk.example.toml).
        budget = (self.trace.meta.get("resources") or {}).get("budget_gib")
        if self.status:
            total = (self.status[-1].get("memory") or {}).get("total_bytes")
            budget = total / 2**30 if total else budget
        if budget:
            values["memory_gib"] = round(budget + 5.0, 1)
        values.update(overrides)
        if "concurrency" in values and "proofs" in values:
            values["concurrency"] = min(values["concurrency"], values["proofs"])
        return PipelineConfig.from_dict(values)

    def summary(self) -> dict:
        """Return the summary (docs/design.md) of the trace plus bench, status and parse facts."""
        out = self.trace.summary()
        if self.bench is not None:
            out["bench"] = self.bench.to_dict()
        if self.status:
            out["status"] = status_mod.snapshot_row(self.status[-1])
        out["parse"] = self.stats.to_dict()
        return _jsonable(out)


def _jsonable(obj):
    from ..trace.summary import _jsonable as j
    return j(obj)


def _read(path: Path) -> str:
    if not path.exists():
        raise LogParseError(f"log file not found: {path}")
    if path.is_dir():
        raise LogParseError(f"expected a log file, got a directory: {path}")
    return path.read_text(encoding="utf-8", errors="replace")


def _records(text: str, name: str, stats: ParseStats) -> list[Record]:
    recs: list[Record] = []
    lines = text.splitlines(keepends=True)
    in_bench = False
    for i, raw in enumerate(lines, 1):
        stats.lines_read += 1
        if not raw.strip():
            stats.blank += 1          # counted in other too: read = parsed + other + malformed
            stats.other += 1
            continue
        if "\x1b[" in raw:
            stats.ansi_lines += 1
        if i == len(lines) and not raw.endswith(("\n", "\r")):
            stats.add_malformed(name, i, "cut", "last line has no end of line (cut while "
                                "being written)", raw)
            continue
        try:
            rec = classify(raw, i, file=name, in_bench=in_bench)
        except Malformed as exc:
            stats.add_malformed(name, i, exc.kind, exc.why, raw.rstrip("\r\n"))
            continue
        if rec is None:
            stats.other += 1
            continue
        if rec.kind == "bench" and rec["item"] == "header":
            in_bench = True
        recs.append(rec)
    return recs


def _brackets(recs: list[Record]) -> list[tuple[float, float]]:
    """Return, per record, the times of the timeline events before and after it."""
    lo = []
    last = -math.inf
    for r in recs:
        if r.kind == "timeline":
            last = r["t_ms"]
        lo.append(last)
    hi = [math.inf] * len(recs)
    nxt = math.inf
    for k in range(len(recs) - 1, -1, -1):
        if recs[k].kind == "timeline":
            nxt = recs[k]["t_ms"]
        hi[k] = nxt
    return list(zip(lo, hi))


def parse_texts(texts: dict[str, str], *, config: Any = None,
                gpu_workers_per_device: int | None = None,
                partitions: int | None = None, require_content: bool = False) -> LogParse:
    """Return the LogParse of in-memory files given as {name: text}, in order.

    With ``require_content``, a file with no daemon, cuzk-bench or /status
    line at all (a wrong file) is a LogParseError naming it.
    """
    if config is not None and not hasattr(config, "to_dict"):
        raise TypeError(f"config must be a PipelineConfig or None, got {type(config).__name__}")
    for key, value in (("gpu_workers_per_device", gpu_workers_per_device),
                       ("partitions", partitions)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise ValueError(f"{key} must be a positive integer or None, got {value!r}")
    if gpu_workers_per_device is None and config is not None:
        gpu_workers_per_device = config.gpu_workers_per_device
    if partitions is None and config is not None:
        partitions = config.partitions
    stats = ParseStats()
    model = LogModel(gpu_workers_per_device=gpu_workers_per_device, partitions=partitions)
    bench = BenchReader()
    snaps: list[dict] = []
    for name, text in texts.items():
        stats.files.append(name)
        if status_mod.looks_like_status(text):
            got, bad = status_mod.parse_status_text(text)
            n_lines = len(text.splitlines())
            stats.lines_read += n_lines
            for line, why, sample in bad:
                stats.add_malformed(name, line, "status", why, sample)
            # Every line of the file is parsed but blank ones and those of bad entries.
            n_blank = sum(1 for ln in text.splitlines() if not ln.strip())
            stats.blank += n_blank
            stats.other += n_blank
            stats.parsed["status"] += max(0, n_lines - n_blank - len(bad))
            stats.status_snapshots += len(got)
            stats.content_by_file[name] = len(got) + len(bad)
            snaps.extend(got)
            continue
        before = stats.malformed - stats.malformed_by_kind["cut"]
        recs = _records(text, name, stats)
        stats.content_by_file[name] = len(recs) + (
            stats.malformed - stats.malformed_by_kind["cut"] - before)
        # Tracing lines first within a file is wrong: keep file order, but learn
        # the worker -> GPU map before GPU calls are opened.
        for r in recs:
            if r.kind == "tracing" and r["known"] == "pipeline GPU worker started":
                model.worker_gpu[int(r["fields"]["worker_id"])] = int(r["fields"]["gpu"])
        for r, (lo, hi) in zip(recs, _brackets(recs)):
            stats.parsed[r.kind] += 1
            stats.add_format(format_of(r), name, r.line_no, r.data)
            if r.kind == "timeline":
                model.feed_timeline(r)
            elif r.kind in ("cuzk_timing", "cuzk_ntt_h"):
                model.feed_cuzk(r, lo, hi, stats)
            elif r.kind == "tracing":
                model.feed_tracing(r)
            elif r.kind == "runtime":
                model.feed_runtime(r)
            elif r.kind == "bench":
                try:
                    bench.feed(r)
                except Malformed as exc:
                    stats.parsed["bench"] -= 1
                    stats.add_malformed(name, r.line_no, exc.kind, exc.why,
                                        f"{r['key']}: {r['value']}")
    empty = [n for n in texts if not stats.content_by_file.get(n)]
    if require_content and empty:
        raise LogParseError(f"no cuzk daemon, cuzk-bench or /status content found in "
                            f"{', '.join(empty)}")
    if stats.formats:
        messages = {r["known"] for r in model.tracing if r["known"]}
        stats.releases = releases_printing(stats.formats, messages)
    snaps.sort(key=lambda s: s.get("uptime_secs") or 0)
    flat = [{"uptime_secs": s.get("uptime_secs"), "counters": status_mod.snapshot_counters(s)}
            for s in snaps]
    trace, proofs, parts = model.build_trace(stats, config=config, files=list(texts),
                                             status_snapshots=flat)
    trace.meta.setdefault("cuzk", {})["releases"] = stats.releases
    return LogParse(trace=trace, proofs=proofs, partitions=parts,
                    bench=bench.report if bench.seen else None, status=snaps, stats=stats)


def parse_logs(paths, *, config: Any = None, gpu_workers_per_device: int | None = None,
               partitions: int | None = None, require_content: bool = False) -> LogParse:
    """Return the LogParse of daemon logs, cuzk-bench output and /status JSON files."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    try:
        paths = [Path(p) for p in paths]
    except TypeError:
        raise TypeError("paths must be a path or a list of paths") from None
    if not paths:
        raise ValueError("paths: give at least one log file")
    texts: dict[str, str] = {}
    for p in paths:
        name = str(p)
        while name in texts:
            name += "'"
        texts[name] = _read(p)
    return parse_texts(texts, config=config, gpu_workers_per_device=gpu_workers_per_device,
                       partitions=partitions, require_content=require_content)
