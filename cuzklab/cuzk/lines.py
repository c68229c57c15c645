"""One line of daemon output -> one record: the formats cuzk writes, line by line.

The daemon writes these kinds of lines (every format, with the releases that
print it, is in docs/cuzk-daemon.md):

* ``TIMELINE,<ms since engine start>,<EVENT>,<job_id>,<detail>`` on stderr;
* ``CUZK_TIMING: key=value ...`` and ``CUZK_NTT_H: key=NNms ...`` on stderr,
  printed by the CUDA side (no job id, no timestamp), and the CUDA side's
  free-text ``CUZK_TIMING:`` notes;
* tracing lines on stdout, ``TIMESTAMP LEVEL [span{..}:]target: message
  key=value ...``, with ANSI colours unless ``NO_COLOR`` is set, or the same
  events in tracing-subscriber's JSON format (one object per line);
* the runtime's lines on stderr: a Rust panic (``thread 'x' panicked at
  file:line:col:``) and its backtrace note, ``Error: ...`` when the daemon
  exits with an error, ``memory allocation of N bytes failed`` (an abort on
  host OOM), and a C++ exception escaping the CUDA side (``terminate called
  after throwing ...`` and its ``what():``);
* cuzk-bench's report lines (``[i/N] COMPLETED — 70.3s (prove=.. ms, queue=.. ms)``
  and the summary block).

:func:`classify` turns one line into a :class:`Record` (or ``None`` for a line
that belongs to none of them). A line that starts like one of the formats but
does not parse — cut by a kill, or two writers mixed into one line — raises
:class:`Malformed`; the caller counts it and goes on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# ANSI SGR sequences (colours, dim, italic) that tracing-subscriber writes
# when stdout is a terminal or colours are forced.
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# -- TIMELINE ----------------------------------------------------------------
# Events the engine emits (cuzk-core engine.rs, timeline_event()).
TIMELINE_EVENTS = ("SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP",
                   "GPU_START", "GPU_END", "CHAN_SEND")
_TIMELINE_RE = re.compile(
    r"^TIMELINE,(?P<t>\d+),(?P<event>[A-Z_]+),(?P<job>[^,\s]+),(?P<detail>\S*)$")
_DETAIL_KV = re.compile(r"^(?P<k>[a-z_]+)=(?P<v>[\w.-]+)$")
_DETAIL_WORD = re.compile(r"^[a-z][\w-]*$")

# -- CUZK_TIMING / CUZK_NTT_H --------------------------------------------------
# The printf lines of the SupraSeal C2 side (extern/supraseal-c2/cuda/
# groth16_cuda.cu, groth16_ntt_h.cu), keyed by their first key, with the keys
# each must carry and the daemon releases that print it. A line missing a
# required key was cut.
CUZK_TIMING_GROUPS: dict[str, tuple[str, ...]] = {
    "split_vectors_ms": ("split_vectors_ms", "setup_to_split_ms"),
    "pre_lock_cpu_ms": ("pre_lock_cpu_ms", "mutex_wait_ms"),
    "ntt_msm_h_ms": ("gpu_tid", "ntt_msm_h_ms"),
    "prep_msm_ms": ("prep_msm_ms",),
    "barrier_wait_ms": ("gpu_tid", "barrier_wait_ms"),
    "batch_add_ms": ("gpu_tid", "batch_add_ms"),
    "tail_msm_ms": ("gpu_tid", "tail_msm_ms", "gpu_total_ms"),
    "mutex_held_ms": ("mutex_held_ms", "total_start_fn_ms"),
    "b_g2_msm_ms": ("b_g2_msm_ms", "num_circuits"),
    "epilogue_ms": ("epilogue_ms", "pre_destructor_ms"),
    "host_register": ("host_register", "err"),
    "prestage_vram": ("free_mib", "usable_mib", "need_da_mib", "need_dbc_mib", "total_mib"),
    "prestage_setup": ("prestage_setup",),
    "async_dealloc_ms": ("async_dealloc_ms",),
}
# Releases that print each group (first, last; see cuzklab.model.cuzk_versions).
CUZK_TIMING_RELEASES: dict[str, tuple[str, str]] = {
    "split_vectors_ms": ("phase7", "head"), "prep_msm_ms": ("phase7", "head"),
    "ntt_msm_h_ms": ("phase7", "head"), "batch_add_ms": ("phase7", "head"),
    "tail_msm_ms": ("phase7", "head"), "b_g2_msm_ms": ("phase7", "head"),
    "async_dealloc_ms": ("phase7", "head"), "epilogue_ms": ("phase7", "phase11"),
    "host_register": ("phase9", "phase12"), "prestage_vram": ("phase9", "phase12"),
    "prestage_setup": ("phase9", "phase12"), "pre_lock_cpu_ms": ("head", "head"),
    "barrier_wait_ms": ("head", "head"), "mutex_held_ms": ("head", "head"),
    "ntt_h": ("head", "head"),
}
# Lines whose first word is a tag, not a key (``prestage_vram free_mib=...``).
CUZK_TAG_GROUPS = ("prestage_vram",)
# Keys whose value is a word; the words the C side prints, and what each needs.
CUZK_WORD_VALUES: dict[str, dict[str, tuple[str, ...]]] = {
    "prestage_setup": {"ok": ("domain", "lot_of_memory"), "fallback": ("err",),
                       "skip_vram": ()},
    "host_register": {"fallback": ("err",)},
}
NTT_H_KEYS = ("d_b_alloc", "ntt_kernels", "coset_intt_sync", "msm_init", "msm_invoke",
              "msm_dtor", "total")
_CUZK_RE = re.compile(r"^(?P<tag>CUZK_TIMING|CUZK_NTT_H):\s*(?P<body>.*)$")
_INT_KV = re.compile(r"^(?P<k>[a-z_0-9]+)=(?P<v>-?\d+)(?P<unit>ms)?$")
_WORD_KV = re.compile(r"^(?P<k>[a-z_0-9]+)=(?P<v>[a-z_]+)$")
# Free-text lines of the CUDA side (head): what each says, as fields.
CUZK_NOTES: tuple[tuple[str, re.Pattern], ...] = (
    ("pool_release_threshold",
     re.compile(r"^set pool release threshold to MAX on gpu (?P<gpu>\d+)$")),
    ("d_a_cache", re.compile(r"^d_a_cache allocated (?P<mib>\d+) MiB on gpu (?P<gpu>\d+)$")),
)

# -- Rust runtime lines on stderr ----------------------------------------------
# A panic (Rust 1.86, rust-toolchain.toml): "thread 'NAME' panicked at FILE:L:C:"
# with the message on the next line; before Rust 1.73 the message came first.
_PANIC_RE = re.compile(
    r"^thread '(?P<thread>[^']*)' panicked at (?:'(?P<msg>.*)', )?"
    r"(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+):?$")
_PANIC_NOTE_RE = re.compile(r"^note: run with `RUST_BACKTRACE=(?:1|full)` environment variable")
# main() returning an error (anyhow): "Error: failed to load config from ...".
_EXIT_ERROR_RE = re.compile(r"^Error: (?P<msg>.+)$")
# Rust's allocation-failure abort (std alloc::handle_alloc_error), a host OOM.
_ALLOC_FAILED_RE = re.compile(r"^memory allocation of (?P<bytes>\d+) bytes failed$")
# An exception escaping the C++ side (std::terminate), and its what().
_TERMINATE_RE = re.compile(r"^terminate called after throwing an instance of "
                           r"'(?P<type>[^']+)'$")
_WHAT_RE = re.compile(r"^what\(\):\s+(?P<msg>.*)$")

# -- tracing -------------------------------------------------------------------
LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR")
_TRACING_RE = re.compile(
    r"^(?P<ts>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)"
    r"\s+(?P<level>TRACE|DEBUG|INFO|WARN|ERROR)\s+(?P<rest>.*)$")
# Spans print as name{fields}: before the target; only spans with fields are
# told apart from a target here (the daemon's spans all carry fields).
_SPANS_RE = re.compile(r"^(?P<spans>(?:[\w-]+\{[^{}]*\}:)*)\s*")
_SPAN_FIELDS_RE = re.compile(r"\{(?P<f>[^{}]*)\}")
_TARGET_RE = re.compile(r"^(?P<target>[A-Za-z_]\w*(?:::\w+)*): ")
_FIELD = r"[A-Za-z_][\w.]*=(?:\"(?:[^\"\\]|\\.)*\"|\S*)"
_MSG_FIELDS_RE = re.compile(rf"^(?P<msg>.*?)(?P<fields>(?:\s+{_FIELD})*)\s*$")
_FIELD_RE = re.compile(r"(?P<k>[A-Za-z_][\w.]*)=(?P<v>\"(?:[^\"\\]|\\.)*\"|\S*)")

# Messages the builder uses, with the fields each must carry (engine.rs,
# memory.rs, srs_manager.rs, cuzk-daemon main.rs). Matched as message prefixes.
KNOWN_MESSAGES: dict[str, tuple[str, ...]] = {
    "cuzk-daemon ready": (),
    "cuzk-daemon starting": (),
    "cuzk-daemon stopped": (),
    "received SIGINT": (),
    "starting cuzk engine": (),
    "memory budget initialized": ("total_budget_gib",),
    "SRS loaded successfully": ("elapsed_ms",),
    "pipeline GPU worker started": ("worker_id", "gpu"),
    "partition synthesis complete": ("job_id", "partition", "synth_ms"),
    "partition GPU prove complete": ("job_id", "partition", "gpu_ms"),
    "Phase 7: all partitions complete, proof assembled": ("job_id", "total_ms"),
    "budget acquired": ("used_gib",),
    "waiting for budget": ("needed_gib",),
    "partition synthesis failed": ("job_id", "partition"),
    "partition synthesis task panicked": ("job_id", "partition"),
    "skipping GPU prove for failed partitioned job": ("job_id",),
}

# -- cuzk-bench ----------------------------------------------------------------
# The em dash is what cuzk-bench prints; an en dash, a plain hyphen and the
# mojibake of an em dash read as Latin-1 are accepted too.
_DASH = r"(?:\u2014|\u2013|--?|\u00e2\u0080\u0094|\u00e2\u20ac\u201d)"
_BENCH_PROOF_RE = re.compile(
    rf"^\s*\[(?P<i>\d+)/(?P<n>\d+)\]\s+(?P<status>[A-Z]+)\s+{_DASH}\s+"
    r"(?P<wall>[0-9.]+)s\s+\(prove=(?P<prove>\d+) ms, queue=(?P<queue>\d+) ms\)\s*$")
_BENCH_PROOF_START = re.compile(r"^\s*\[\d+/\d*")
_BENCH_HEADER_RE = re.compile(r"^=== (?P<title>[^=]+?) ===\s*$")
_BENCH_KV_RE = re.compile(r"^(?P<k>[a-z][a-z _]*?):\s+(?P<v>.*?)\s*$")
BENCH_HEADERS = ("Batch Benchmark", "Batch Summary", "Proof Result")
BENCH_KEYS = ("proof type", "count", "concurrency", "total time", "completed", "failed",
              "wall time", "prove time", "throughput", "status", "job_id", "timings",
              "proof", "error")


class Malformed(ValueError):
    """A line looks like one of the daemon's formats but does not parse."""

    def __init__(self, kind: str, why: str):
        self.kind = kind
        self.why = why
        super().__init__(f"{kind}: {why}")


@dataclass
class Record:
    """One parsed line: its kind, where it was, and what it says.

    Kinds: ``timeline`` (``t_ms``, ``event``, ``job_id``, ``detail``),
    ``cuzk_timing`` / ``cuzk_ntt_h`` (``group`` and integer ``values``),
    ``cuzk_note`` (free text from the CUDA side: ``note``, its fields,
    ``text``), ``tracing`` (``ts``, ``level``, ``target``, ``message``,
    ``fields``, ``known``), ``runtime`` (``item``: ``panic``,
    ``backtrace_note``, ``exit_error``, ``caused_by``, ``alloc_failed``,
    ``terminate``, ``what``) and ``bench`` (``item`` and its values).
    """

    kind: str
    line_no: int
    data: dict[str, Any] = field(default_factory=dict)
    file: str = ""
    ansi: bool = False

    def __getitem__(self, key):
        return self.data[key]

    def get(self, key, default=None):
        """Return ``data[key]`` or ``default``."""
        return self.data.get(key, default)


def strip_ansi(line: str) -> str:
    """Return ``line`` without ANSI colour sequences."""
    return ANSI_RE.sub("", line)


def parse_timeline(line: str) -> dict:
    """Return ``{t_ms, event, job_id, detail}`` of a ``TIMELINE,...`` line."""
    m = _TIMELINE_RE.match(line)
    if not m:
        raise Malformed("timeline", "expected TIMELINE,<ms>,<EVENT>,<job_id>,<detail>")
    event = m.group("event")
    if event not in TIMELINE_EVENTS:
        raise Malformed("timeline", f"unknown event {event!r}")
    detail: dict[str, Any] = {}
    for part in filter(None, m.group("detail").split(",")):
        kv = _DETAIL_KV.match(part)
        if kv:
            v = kv.group("v")
            detail[kv.group("k")] = int(v) if v.isascii() and v.isdigit() else v
        elif _DETAIL_WORD.match(part):
            detail[part] = True           # e.g. "monolithic"
        else:
            raise Malformed("timeline", f"bad detail item {part!r}")
    need = {"SYNTH_END": ("synth_ms",), "GPU_PICKUP": ("worker",), "GPU_START": ("worker",),
            "GPU_END": ("worker",)}.get(event, ())
    missing = [k for k in need if k not in detail]
    if missing:
        raise Malformed("timeline", f"{event} lacks {', '.join(missing)}")
    bad = [k for k in ("partition", "worker", "synth_ms", "gpu_ms")
           if k in detail and not isinstance(detail[k], int)]
    if bad:
        raise Malformed("timeline", f"{', '.join(bad)} must be integers")
    return {"t_ms": int(m.group("t")), "event": event, "job_id": m.group("job"),
            "detail": detail}


def _cuzk_note(body: str) -> dict:
    for note, rx in CUZK_NOTES:
        m = rx.match(body)
        if m:
            return {"note": note, **{k: int(v) for k, v in m.groupdict().items()},
                    "text": body}
    return {"note": None, "text": body}


def parse_cuzk(line: str) -> tuple[str, dict]:
    """Return (kind, data) of a ``CUZK_TIMING:`` / ``CUZK_NTT_H:`` line."""
    m = _CUZK_RE.match(line)
    if not m:
        raise Malformed("cuzk_timing", "expected CUZK_TIMING: or CUZK_NTT_H:")
    tag, body = m.group("tag"), m.group("body").strip()
    kind = "cuzk_ntt_h" if tag == "CUZK_NTT_H" else "cuzk_timing"
    tokens = body.split()
    if tag == "CUZK_TIMING" and len(tokens) >= 2 and not any("=" in t for t in tokens):
        return "cuzk_note", _cuzk_note(body)    # e.g. "d_a_cache allocated 4096 MiB on gpu 0"
    values: dict[str, Any] = {}
    group = None
    if tokens and tag == "CUZK_TIMING" and tokens[0] in CUZK_TAG_GROUPS:
        group = tokens.pop(0)
    for tok in tokens:
        kv = _INT_KV.match(tok)
        if kv:
            values[kv.group("k")] = int(kv.group("v"))
            continue
        wv = _WORD_KV.match(tok)
        if wv and wv.group("v") in CUZK_WORD_VALUES.get(wv.group("k"), {}):
            values[wv.group("k")] = wv.group("v")
            continue
        raise Malformed(kind, f"bad item {tok!r}")
    if tag == "CUZK_NTT_H":
        missing = [k for k in NTT_H_KEYS if k not in values]
        if missing:
            raise Malformed("cuzk_ntt_h", f"lacks {', '.join(missing)}")
        return "cuzk_ntt_h", {"group": "ntt_h", "values": values}
    if group is None:
        group = next((k for k in CUZK_TIMING_GROUPS if k in values
                      and k not in CUZK_TAG_GROUPS), None)
    if group is None:
        raise Malformed("cuzk_timing", f"unknown keys {sorted(values)}")
    need = list(CUZK_TIMING_GROUPS[group])
    for key, words in CUZK_WORD_VALUES.items():
        if key in values:
            need += words[values[key]]
    missing = [k for k in need if k not in values]
    if missing:
        raise Malformed("cuzk_timing", f"{group} line lacks {', '.join(missing)}")
    return "cuzk_timing", {"group": group, "values": values}


def parse_runtime(line: str) -> dict | None:
    """Return ``{item, ...}`` of a Rust panic or exit-error line, None if it is not one."""
    m = _PANIC_RE.match(line)
    if m:
        return {"item": "panic", "thread": m.group("thread"), "file": m.group("file"),
                "line": int(m.group("line")), "col": int(m.group("col")),
                "message": m.group("msg")}
    if _PANIC_NOTE_RE.match(line):
        return {"item": "backtrace_note"}
    m = _EXIT_ERROR_RE.match(line)
    if m:
        return {"item": "exit_error", "message": m.group("msg")}
    if line == "Caused by:":
        return {"item": "caused_by"}
    m = _ALLOC_FAILED_RE.match(line)
    if m:
        return {"item": "alloc_failed", "bytes": int(m.group("bytes"))}
    m = _TERMINATE_RE.match(line)
    if m:
        return {"item": "terminate", "type": m.group("type")}
    m = _WHAT_RE.match(line)
    if m:
        return {"item": "what", "message": m.group("msg")}
    return None


def _field_value(raw: str):
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return raw[1:-1].replace('\\"', '"')
    if raw.startswith("Some(") and raw.endswith(")"):
        raw = raw[5:-1]
    if raw == "None":
        return None
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if re.fullmatch(r"-?\d+\.\d*(?:e-?\d+)?", raw):
        return float(raw)
    if raw in ("true", "false"):
        return raw == "true"
    return raw


def parse_fields(text: str) -> dict:
    """Return the ``key=value`` pairs in ``text`` (values typed)."""
    return {m.group("k"): _field_value(m.group("v")) for m in _FIELD_RE.finditer(text)}


def _known(message: str, fields: dict, body: str) -> str | None:
    """Return the KNOWN_MESSAGES entry ``message`` is, checking its fields; raise Malformed."""
    known = next((k for k in KNOWN_MESSAGES if message.startswith(k)), None)
    if known is None:
        # A known message whose fields were cut off: it no longer ends in fields.
        known_cut = next((k for k in KNOWN_MESSAGES
                          if KNOWN_MESSAGES[k] and body.startswith(k)), None)
        if known_cut:
            raise Malformed("tracing", f"{known_cut!r} line cut short")
    elif KNOWN_MESSAGES[known]:
        missing = [k for k in KNOWN_MESSAGES[known] if k not in fields]
        if missing:
            raise Malformed("tracing", f"{known!r} lacks {', '.join(missing)}")
        # Every required field but the job id is a number.
        bad = [k for k in KNOWN_MESSAGES[known] if k != "job_id"
               and (isinstance(fields[k], bool) or not isinstance(fields[k], (int, float)))]
        if bad:
            raise Malformed("tracing", f"{known!r}: {', '.join(bad)} must be numbers")
    return known


def parse_tracing(line: str) -> dict:
    """Return ``{ts, level, target, spans, message, fields, known}`` of a tracing line."""
    m = _TRACING_RE.match(line)
    if not m:
        raise Malformed("tracing", "expected TIMESTAMP LEVEL target: message")
    rest = m.group("rest")
    sm = _SPANS_RE.match(rest)
    span_text = sm.group("spans") if sm else ""
    rest = rest[sm.end():] if sm else rest
    tm = _TARGET_RE.match(rest)
    target = tm.group("target") if tm else None
    body = rest[tm.end():] if tm else rest
    mf = _MSG_FIELDS_RE.match(" " + body)
    message = mf.group("msg").strip()
    fields: dict = {}
    for sf in _SPAN_FIELDS_RE.finditer(span_text):   # span fields (job_id, worker_id) ...
        fields.update(parse_fields(sf.group("f")))
    fields.update(parse_fields(mf.group("fields")))  # ... overridden by the event's own
    known = _known(message, fields, body)
    ts = _parse_ts(m.group("ts"))
    return {"ts": ts, "level": m.group("level"), "target": target,
            "spans": span_text.rstrip(":"), "message": message, "fields": fields,
            "known": known}


def _json_value(v):
    # The text format writes Display and Debug values bare; type them the same way.
    return _field_value(v) if isinstance(v, str) else v


# Keys of a JSON event that are not the event's fields (with flatten_event the fields
# sit beside them); tracing-subscriber's json() writes these names.
_JSON_META_KEYS = ("timestamp", "level", "target", "span", "spans", "threadName", "threadId",
                   "filename", "line_number")


def looks_like_json_tracing(line: str) -> bool:
    """Return True if ``line`` is one event of tracing-subscriber's JSON format."""
    return line.startswith("{") and '"level"' in line and ('"fields"' in line
                                                           or '"message"' in line)


def parse_json_tracing(line: str) -> dict:
    """Return the same dict as :func:`parse_tracing` for a JSON-format tracing event.

    tracing-subscriber's ``.json()`` writes ``{"timestamp", "level", "fields":
    {"message", ...}, "target", "span", "spans": [{"name", ...}]}`` per line
    (with ``flatten_event`` the fields sit at the top level).
    """
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise Malformed("tracing", f"JSON event does not parse: {exc.msg}") from None
    if not isinstance(obj, dict) or obj.get("level") not in LEVELS:
        raise Malformed("tracing", "JSON event lacks a level")
    if isinstance(obj.get("fields"), dict):
        ev = dict(obj["fields"])
    elif "message" in obj:                       # flatten_event(true)
        ev = {k: v for k, v in obj.items() if k not in _JSON_META_KEYS}
    else:
        raise Malformed("tracing", "JSON event lacks fields")
    message = str(ev.pop("message", ""))
    fields: dict = {}
    spans = obj.get("spans") or ([obj["span"]] if isinstance(obj.get("span"), dict) else [])
    names = []
    for sp in spans:
        if isinstance(sp, dict):
            sp = dict(sp)
            name = sp.pop("name", "")
            names.append(f"{name}{{{' '.join(f'{k}={v}' for k, v in sp.items())}}}")
            fields.update({k: _json_value(v) for k, v in sp.items()})
    fields.update({k: _json_value(v) for k, v in ev.items()})
    known = _known(message, fields, message)
    ts = obj.get("timestamp")
    return {"ts": _parse_ts(ts) if isinstance(ts, str) else None, "level": obj["level"],
            "target": obj.get("target"), "spans": ":".join(names), "message": message,
            "fields": fields, "known": known, "json": True}


def _parse_ts(text: str) -> float | None:
    t = text.replace(" ", "T")
    if t.endswith("Z"):
        t = t[:-1] + "+00:00"
    # Python < 3.11 accepts at most 6 fractional digits.
    t = re.sub(r"(\.\d{6})\d+", r"\1", t)
    try:
        return datetime.fromisoformat(t).timestamp()
    except ValueError:
        return None


def parse_bench(line: str) -> dict | None:
    """Return ``{item, ...}`` of a cuzk-bench report line, or None if it is not one."""
    m = _BENCH_PROOF_RE.match(line)
    if m:
        return {"item": "proof", "index": int(m.group("i")), "count": int(m.group("n")),
                "status": m.group("status"), "wall_s": float(m.group("wall")),
                "prove_ms": int(m.group("prove")), "queue_ms": int(m.group("queue"))}
    if _BENCH_PROOF_START.match(line) and ("COMPLETED" in line or "FAILED" in line
                                           or "prove=" in line or "TIMEOUT" in line):
        raise Malformed("bench", "expected [i/N] STATUS \u2014 W.Ws (prove=N ms, queue=N ms)")
    h = _BENCH_HEADER_RE.match(line.strip())
    if h and h.group("title") in BENCH_HEADERS:
        return {"item": "header", "title": h.group("title")}
    kv = _BENCH_KV_RE.match(line.strip())
    if kv and kv.group("k") in BENCH_KEYS:
        return {"item": "kv", "key": kv.group("k"), "value": kv.group("v")}
    return None


def classify(raw: str, line_no: int, *, file: str = "", in_bench: bool = False) -> Record | None:
    """Return the Record of one line, None if it is no known format; raise Malformed."""
    ansi = "\x1b[" in raw
    line = strip_ansi(raw).rstrip("\r\n") if ansi else raw.rstrip("\r\n")
    s = line.strip()
    if not s:
        return None
    if s.startswith("TIMELINE"):
        return Record("timeline", line_no, parse_timeline(s), file, ansi)
    if s.startswith("CUZK_TIMING") or s.startswith("CUZK_NTT_H"):
        kind, data = parse_cuzk(s)
        if kind != "cuzk_note" and ("TIMELINE" in s or "CUZK_" in s[12:]):
            raise Malformed(kind, "two lines mixed into one")
        return Record(kind, line_no, data, file, ansi)
    if looks_like_json_tracing(s):
        return Record("tracing", line_no, parse_json_tracing(s), file, ansi)
    if "TIMELINE," in s or "CUZK_TIMING:" in s or "CUZK_NTT_H:" in s:
        # A marker in the middle of a line: two writers interleaved mid-line.
        raise Malformed("mixed", "a daemon line starts in the middle of another")
    if _TRACING_RE.match(s):
        return Record("tracing", line_no, parse_tracing(s), file, ansi)
    runtime = parse_runtime(s)
    if runtime is not None:
        return Record("runtime", line_no, runtime, file, ansi)
    bench = parse_bench(line)
    if bench is not None:
        if bench["item"] == "kv" and not in_bench:
            return None           # "status: ok" outside a cuzk-bench report
        return Record("bench", line_no, bench, file, ansi)
    return None
