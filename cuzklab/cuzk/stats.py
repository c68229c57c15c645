"""Parse statistics: what was read, what was understood, and what was not.

A daemon log is evidence; a parser that silently drops lines hides what
happened. Every file read through :func:`cuzklab.cuzk.parse_logs` counts its
lines by kind, and keeps the line numbers and text of lines it could not
parse (cut by a kill, or two writers mixed into one line) and of CUDA timing
lines it could not attribute to a GPU call.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# How many bad lines keep their text in the report (all are counted).
MAX_SAMPLES = 20
MAX_SAMPLE_CHARS = 160


@dataclass
class ParseStats:
    """Counters of one parse: lines read, parsed per kind, malformed with samples.

    ``lines_read == parsed_total + other + malformed`` for every input: blank
    lines are part of ``other`` (``blank`` says how many), and the lines of a
    /status JSON file are parsed (kind ``status``) but those of its bad entries.
    ``content_by_file`` counts, per file, the lines (or /status entries) in one
    of the daemon's formats, well formed or not. ``formats`` counts the lines
    of each format of :data:`cuzklab.cuzk.formats.FORMATS`, ``format_samples``
    keeps the fields of the first of each, and ``releases`` names the daemon
    releases that print every format seen (None when no daemon line was read).
    """

    files: list[str] = field(default_factory=list)
    lines_read: int = 0
    parsed: Counter = field(default_factory=Counter)
    other: int = 0
    blank: int = 0
    ansi_lines: int = 0
    malformed: int = 0
    malformed_by_kind: Counter = field(default_factory=Counter)
    malformed_samples: list[dict] = field(default_factory=list)
    unattributed: int = 0
    unattributed_samples: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status_snapshots: int = 0
    content_by_file: dict = field(default_factory=dict)
    formats: Counter = field(default_factory=Counter)
    format_samples: dict = field(default_factory=dict)
    releases: list | None = None

    def add_format(self, name: str | None, file: str, line_no: int, data: dict) -> None:
        """Count one line of a known format (cuzklab.cuzk.formats) and keep its first fields."""
        if name is None:
            return
        self.formats[name] += 1
        if name not in self.format_samples:
            fields = data.get("values") or data.get("fields") or data.get("detail") or {
                k: v for k, v in data.items() if k not in ("text",)}
            self.format_samples[name] = {"file": file, "line": line_no, "fields": dict(fields)}

    def add_malformed(self, file: str, line_no: int, kind: str, why: str, text: str) -> None:
        """Count one malformed line and keep a sample of it."""
        self.malformed += 1
        self.malformed_by_kind[kind] += 1
        if len(self.malformed_samples) < MAX_SAMPLES:
            self.malformed_samples.append({"file": file, "line": line_no, "kind": kind,
                                           "why": why, "text": text[:MAX_SAMPLE_CHARS]})

    def add_unattributed(self, file: str, line_no: int, group: str, why: str) -> None:
        """Count one CUDA timing line that no GPU call could take."""
        self.unattributed += 1
        if len(self.unattributed_samples) < MAX_SAMPLES:
            self.unattributed_samples.append({"file": file, "line": line_no, "group": group,
                                              "why": why})

    def note(self, text: str) -> None:
        """Record a remark about the input (e.g. a restart inside one file)."""
        if text not in self.notes:
            self.notes.append(text)

    def to_dict(self) -> dict:
        """Return the statistics as a JSON-able dict."""
        return {
            "files": list(self.files),
            "lines_read": self.lines_read,
            "parsed": dict(sorted(self.parsed.items())),
            "parsed_total": int(sum(self.parsed.values())),
            "other": self.other,
            "blank": self.blank,
            "ansi_lines": self.ansi_lines,
            "malformed": self.malformed,
            "malformed_by_kind": dict(sorted(self.malformed_by_kind.items())),
            "malformed_samples": list(self.malformed_samples),
            "unattributed": self.unattributed,
            "unattributed_samples": list(self.unattributed_samples),
            "notes": list(self.notes),
            "status_snapshots": self.status_snapshots,
            "content_by_file": dict(self.content_by_file),
            "formats": dict(sorted(self.formats.items())),
            "format_samples": dict(sorted(self.format_samples.items())),
            "releases": None if self.releases is None else list(self.releases),
        }
