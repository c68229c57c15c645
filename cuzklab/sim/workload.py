"""Workloads: which proofs arrive at the daemon, of which kind, and when.

A workload is a list of streams, each one proof kind with an arrival process:

- ``closed``: a client keeps ``in_flight`` proofs submitted (``cuzk-bench -c
  N -j J``), ``count`` in all or until ``duration_s``; the default single
  PoRep stream is today's behaviour;
- ``poisson``: arrivals at ``rate_per_hour`` (exponential gaps, seeded);
- ``periodic``: one every ``period_s`` from ``offset_s`` (WindowPoSt: one per
  deadline, 48 a day, ``period_s = 1800``);
  with ``per_arrival = N`` (periodic and Poisson streams), N proofs arrive together
  each time: a deadline's N WindowPoSt partitions, each one task and one proof in
  Curio;
- ``replay``: the (time_s, kind) rows of a CSV file.

Read from TOML (``cuzklab simulate --workload FILE.toml``)::

    duration_s = 7200            # open streams stop arriving here
    [[stream]]
    kind = "porep-c2"
    arrival = "closed"
    in_flight = 15
    [[stream]]
    kind = "window-post"
    arrival = "periodic"
    period_s = 1800

A top-level ``max_pending`` is Curio's ``[Cuzk] MaxPending`` (Curio's
default: 10): one limit on the proofs a Curio node has at the daemon, shared by
every stream (Curio's PoRep, SnapDeals, WindowPoSt and WinningPoSt tasks all
count against it). A proof arrives, waits for a slot, and holds it until its
proof comes back; the WindowPoSt and WinningPoSt waiting get the next free slot
first. 0 (Curio: 0 or less) or left out: no client limit (each closed stream's
``in_flight`` alone, as cuzk-bench). ``prove_timeout_s`` is Curio's ``[Cuzk]
ProveTimeout`` (its default: 1800 s), how long Curio waits for a proof once the
daemon has it before it gives up and retries the task: the summary counts the
proofs of each kind that took longer at the daemon (the retry is not modelled).
``time_sensitive_slots`` keeps that many of ``max_pending``'s slots for WindowPoSt
and WinningPoSt: not a Curio setting, a way to see what such a change to Curio
would do.

Every stream key is checked before the run; an error names the stream and
the key.
"""

from __future__ import annotations

import csv
import math
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import numpy as np

from ..errors import ConfigError
from ..model.kinds import KIND_NAMES

ARRIVALS = ("closed", "poisson", "periodic", "replay")
_STREAM_KEYS = {"kind", "arrival", "count", "in_flight", "rate_per_hour", "period_s",
                "offset_s", "deadline_s", "path", "partitions", "per_arrival"}
_TOP_KEYS = {"duration_s", "warm_start", "max_pending", "time_sensitive_slots",
              "prove_timeout_s", "stream"}


@dataclass(frozen=True)
class Stream:
    """One stream of proofs of one kind (see the module docstring)."""

    kind: str = "porep-c2"
    arrival: str = "closed"
    count: int | None = None          # proofs in all (closed: default config.proofs)
    in_flight: int | None = None      # closed: proofs kept submitted (default config.concurrency)
    rate_per_hour: float | None = None  # poisson
    period_s: float | None = None     # periodic
    offset_s: float = 0.0             # periodic / poisson: first arrival not before this
    deadline_s: float | None = None   # latency target (default: the kind's)
    path: str | None = None           # replay: CSV of time_s,kind
    partitions: int | None = None     # partitions per proof (default: the kind's)
    per_arrival: int = 1              # periodic / poisson: proofs arriving together each time
    rows: tuple = field(default=(), compare=False, repr=False)  # replay: the CSV's (t, kind)


@dataclass(frozen=True)
class Workload:
    """The streams of a run; ``duration_s`` ends the open streams' arrivals."""

    streams: tuple[Stream, ...]
    duration_s: float | None = None
    warm_start: bool = True           # kinds of the workload resident at t=0 while they fit
    max_pending: int | None = None    # Curio's [Cuzk] MaxPending: proofs at the daemon (0: no limit)
    prove_timeout_s: float | None = None  # Curio's [Cuzk] ProveTimeout: its wait for a proof
    time_sensitive_slots: int = 0     # of max_pending, kept for WindowPoSt/WinningPoSt (what-if)

    # -- constructors ----------------------------------------------------------
    @classmethod
    def porep(cls) -> "Workload":
        """Return today's workload: one PoRep stream in closed loop."""
        return cls(streams=(Stream(),))

    @classmethod
    def coerce(cls, value) -> "Workload":
        """Return ``value`` (a Workload, dict, TOML path or text) as a Workload."""
        if isinstance(value, Workload):
            return value
        if isinstance(value, dict):
            return cls.from_dict(value)
        if isinstance(value, (str, Path)):
            return cls.load(value)
        raise ConfigError("workload", f"expected a Workload, a dict or a TOML path, got "
                                      f"{type(value).__name__}")

    @classmethod
    def load(cls, source) -> "Workload":
        """Return the workload of a TOML file, a name in ``data/workloads/``, or TOML text."""
        base = None
        text = str(source)
        if isinstance(source, Path) or "\n" not in text:
            path = resolve(source)
            if not path.is_file():
                raise ConfigError("workload", f"file not found: {path}")
            text = path.read_text(encoding="utf-8")
            base = path.parent
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError("workload", f"not valid TOML: {exc}") from None
        return cls.from_dict(doc, base_dir=base)

    @classmethod
    def from_dict(cls, doc: dict, base_dir=None) -> "Workload":
        """Return the workload of a dict shaped like the TOML (``stream``: a list of tables)."""
        unknown = sorted(set(doc) - _TOP_KEYS)
        if unknown:
            raise ConfigError(f"workload.{unknown[0]}", f"unknown key; keys: "
                                                        f"{', '.join(sorted(_TOP_KEYS))}")
        raw = doc.get("stream")
        if not isinstance(raw, list) or not raw:
            raise ConfigError("workload.stream", "needs at least one [[stream]] table")
        duration = doc.get("duration_s")
        if duration is not None and (isinstance(duration, bool) or
                                     not isinstance(duration, (int, float)) or duration <= 0):
            raise ConfigError("workload.duration_s", f"must be a number of seconds > 0, "
                                                     f"got {duration!r}")
        warm = doc.get("warm_start", True)
        if not isinstance(warm, bool):
            raise ConfigError("workload.warm_start", f"must be true or false, got {warm!r}")
        pending = doc.get("max_pending")
        if pending is not None and (isinstance(pending, bool) or not isinstance(pending, int)
                                    or pending < 0):
            raise ConfigError("workload.max_pending", f"must be an integer >= 0 (Curio's "
                                                      f"[Cuzk] MaxPending; 0: no limit), got "
                                                      f"{pending!r}")
        timeout = doc.get("prove_timeout_s")
        if timeout is not None and (isinstance(timeout, bool) or
                                    not isinstance(timeout, (int, float)) or
                                    not math.isfinite(timeout) or timeout <= 0):
            raise ConfigError("workload.prove_timeout_s", f"must be a number of seconds > 0 "
                                                          f"(Curio's [Cuzk] ProveTimeout), got "
                                                          f"{timeout!r}")
        kept = doc.get("time_sensitive_slots", 0)
        if isinstance(kept, bool) or not isinstance(kept, int) or kept < 0 or \
                (kept and not (pending and kept < pending)):
            raise ConfigError("workload.time_sensitive_slots",
                              f"must be an integer >= 0 and below max_pending (the slots of "
                              f"Curio's limit kept for WindowPoSt and WinningPoSt), got "
                              f"{kept!r} with max_pending {pending!r}")
        streams = tuple(_stream(i, s, base_dir) for i, s in enumerate(raw))
        wl = cls(streams=streams, duration_s=None if duration is None else float(duration),
                 warm_start=warm, max_pending=pending,
                 prove_timeout_s=None if timeout is None else float(timeout),
                 time_sensitive_slots=kept)
        for i, s in enumerate(streams):
            if s.arrival != "closed" and s.arrival != "replay" and s.count is None \
                    and wl.duration_s is None:
                raise ConfigError(f"stream[{i}].count", f"a {s.arrival} stream needs count "
                                                        f"or the workload's duration_s")
        return wl

    def to_dict(self) -> dict:
        """Return the workload as a TOML-shaped dict."""
        out: dict = {"warm_start": self.warm_start, "stream": []}
        if self.duration_s is not None:
            out["duration_s"] = self.duration_s
        if self.max_pending is not None:
            out["max_pending"] = self.max_pending
        if self.prove_timeout_s is not None:
            out["prove_timeout_s"] = self.prove_timeout_s
        if self.time_sensitive_slots:
            out["time_sensitive_slots"] = self.time_sensitive_slots
        for s in self.streams:
            d = {k: v for k, v in asdict(s).items() if v is not None and k != "rows"}
            if s.per_arrival == 1:
                d.pop("per_arrival")
            if s.arrival != "periodic" and s.arrival != "poisson":
                d.pop("offset_s", None)
            out["stream"].append(d)
        return out

    # -- views -----------------------------------------------------------------
    def kinds(self) -> tuple[str, ...]:
        """Return the proof kinds of the workload, in stream order."""
        seen: list[str] = []
        for s in self.streams:
            for k in ([r[1] for r in s.rows] if s.arrival == "replay" else [s.kind]):
                if k not in seen:
                    seen.append(k)
        return tuple(seen)

    def is_default(self) -> bool:
        """Return True for today's single closed PoRep stream with no limits."""
        return self == Workload.porep()

    def open_arrivals(self, rng: np.random.Generator) -> list[tuple[float, str, int]]:
        """Return the (time, kind, stream) arrivals of the open streams, in time order."""
        out: list[tuple[float, str, int]] = []
        end = self.duration_s if self.duration_s is not None else math.inf
        for i, s in enumerate(self.streams):
            if s.arrival == "periodic":
                n = s.count if s.count is not None else \
                    int(math.floor((end - s.offset_s) / s.period_s - 1e-9)) + 1
                out += [(s.offset_s + k * s.period_s, s.kind, i) for k in range(max(n, 0))
                        for _ in range(s.per_arrival) if s.offset_s + k * s.period_s < end]
            elif s.arrival == "poisson":
                t, k = s.offset_s, 0
                while s.count is None or k < s.count:
                    t += float(rng.exponential(3600.0 / s.rate_per_hour))
                    if t >= end:
                        break
                    out += [(t, s.kind, i)] * s.per_arrival
                    k += 1
            elif s.arrival == "replay":
                out += [(t, kind, i) for t, kind in s.rows if t < end]
        out.sort(key=lambda a: (a[0], a[2]))
        return out


def list_workloads() -> list[str]:
    """Return the names of the workloads shipped in ``data/workloads/``."""
    from ..resources import data_dir
    d = data_dir("workloads")
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


def resolve(name_or_path) -> Path:
    """Return the file of a workload path, or of a name in ``data/workloads/``."""
    p = Path(name_or_path)
    if p.is_file() or p.suffix == ".toml" or "/" in str(name_or_path):
        return p
    from ..resources import data_dir
    cand = data_dir("workloads") / f"{name_or_path}.toml"
    if cand.is_file():
        return cand
    raise ConfigError("workload", f"unknown workload {str(name_or_path)!r}: not a file, and "
                                  f"not one of {', '.join(list_workloads()) or '(none)'}")


def _number(i, key, value, lo, *, integer=False, strict=False):
    bad = isinstance(value, bool) or not isinstance(value, (int, float)) or \
        (integer and not isinstance(value, int)) or value < lo or (strict and value == lo) or \
        (isinstance(value, float) and not math.isfinite(value))
    if bad:
        what = "an integer" if integer else "a number"
        raise ConfigError(f"stream[{i}].{key}", f"must be {what} {'>' if strict else '>='} "
                                                f"{lo:g}, got {value!r}")
    return value


def _stream(i: int, raw, base_dir) -> Stream:
    if not isinstance(raw, dict):
        raise ConfigError(f"stream[{i}]", f"must be a table, got {raw!r}")
    unknown = sorted(set(raw) - _STREAM_KEYS)
    if unknown:
        raise ConfigError(f"stream[{i}].{unknown[0]}", f"unknown key; keys: "
                                                       f"{', '.join(sorted(_STREAM_KEYS))}")
    arrival = raw.get("arrival", "closed")
    if arrival not in ARRIVALS:
        raise ConfigError(f"stream[{i}].arrival", f"must be one of {', '.join(ARRIVALS)}, "
                                                  f"got {arrival!r}")
    kind = raw.get("kind", "porep-c2" if arrival != "replay" else "")
    if arrival != "replay" and kind not in KIND_NAMES:
        raise ConfigError(f"stream[{i}].kind", f"must be one of {', '.join(KIND_NAMES)}, "
                                               f"got {kind!r}")
    needs = {"poisson": "rate_per_hour", "periodic": "period_s", "replay": "path"}
    allowed = {"closed": {"count", "in_flight"},
               "poisson": {"count", "rate_per_hour", "offset_s", "per_arrival"},
               "periodic": {"count", "period_s", "offset_s", "per_arrival"},
               "replay": {"path"}}[arrival]
    for key in ("count", "in_flight", "rate_per_hour", "period_s", "offset_s", "path",
                "per_arrival"):
        if key in raw and key not in allowed:
            raise ConfigError(f"stream[{i}].{key}", f"does not apply to a {arrival} stream "
                                                    f"(its keys: {', '.join(sorted(allowed))})")
    if arrival in needs and needs[arrival] not in raw:
        raise ConfigError(f"stream[{i}].{needs[arrival]}", f"a {arrival} stream needs it")
    vals: dict = {"kind": kind, "arrival": arrival}
    for key in ("count", "in_flight", "partitions", "per_arrival"):
        if key in raw:
            vals[key] = _number(i, key, raw[key], 1, integer=True)
    for key, strict in (("rate_per_hour", True), ("period_s", True), ("offset_s", False),
                        ("deadline_s", True)):
        if key in raw:
            vals[key] = float(_number(i, key, raw[key], 0, strict=strict))
    if arrival == "replay":
        if not isinstance(raw["path"], str):
            raise ConfigError(f"stream[{i}].path", f"must be a CSV path, got {raw['path']!r}")
        path = Path(raw["path"])
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        vals["path"] = str(raw["path"])
        vals["rows"] = read_replay(path, f"stream[{i}].path")
        if "kind" in raw:
            raise ConfigError(f"stream[{i}].kind", "a replay stream takes its kinds from the "
                                                   "CSV's kind column")
    return Stream(**vals)


def read_replay(path: Path, key: str = "path") -> tuple[tuple[float, str], ...]:
    """Return the (time_s, kind) rows of a replay CSV (a header row is optional)."""
    if not Path(path).is_file():
        raise ConfigError(key, f"replay file not found: {path}")
    rows: list[tuple[float, str]] = []
    with open(path, newline="", encoding="utf-8") as fh:
        for n, row in enumerate(csv.reader(fh), 1):
            if not row or row[0].strip().startswith("#"):
                continue
            if len(row) < 2:
                raise ConfigError(key, f"{path}:{n}: expected time_s,kind, got {row!r}")
            t_raw, kind = row[0].strip(), row[1].strip()
            try:
                t = float(t_raw)
            except ValueError:
                if n == 1:
                    continue       # the header
                raise ConfigError(key, f"{path}:{n}: time_s must be a number, got "
                                       f"{t_raw!r}") from None
            if not math.isfinite(t) or t < 0:
                raise ConfigError(key, f"{path}:{n}: time_s must be >= 0, got {t_raw!r}")
            if kind not in KIND_NAMES:
                raise ConfigError(key, f"{path}:{n}: kind must be one of "
                                       f"{', '.join(KIND_NAMES)}, got {kind!r}")
            rows.append((t, kind))
    if not rows:
        raise ConfigError(key, f"{path}: no (time_s, kind) rows")
    return tuple(sorted(rows))
