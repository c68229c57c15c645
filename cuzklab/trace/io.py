"""Save and load traces as one Parquet file.

The spans are the table; counters and meta ride in the file's key-value
metadata as JSON, so one file carries the whole run. This module sits below
:mod:`.trace`: it reads and writes the three parts (spans, counters, meta)
and never imports the Trace class; ``Trace.save`` / ``Trace.load`` call it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..atomic import atomic_path
from ..errors import TraceError
from .summary import _jsonable

_META_KEY = b"cuzklab.meta"
_COUNTERS_KEY = b"cuzklab.counters"
FORMAT_VERSION = 1


def save_trace(trace, path) -> Path:
    """Write ``trace`` (anything with spans, counters and meta) to ``path`` atomically; return it."""
    table = pa.Table.from_pandas(trace.spans, preserve_index=False)
    c = trace.counters
    counters = {"t": c["t"].tolist(), "name": c["name"].tolist(), "value": c["value"].tolist()}
    meta = dict(table.schema.metadata or {})
    meta[_META_KEY] = json.dumps(_jsonable({**trace.meta, "format_version": FORMAT_VERSION}),
                                 default=str).encode()
    meta[_COUNTERS_KEY] = json.dumps(counters).encode()
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return Path(path)


def read_trace_parts(path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Return (spans, counters, meta) of a trace file written by :func:`save_trace`."""
    path = Path(path)
    if not path.exists():
        raise TraceError(f"trace file not found: {path}")
    try:
        table = pq.read_table(path)
    except Exception as exc:
        raise TraceError(f"{path} is not a readable Parquet trace: {exc}") from exc
    md = table.schema.metadata or {}
    if _META_KEY not in md:
        raise TraceError(f"{path} is Parquet but not a cuzklab trace (no {_META_KEY.decode()})")
    meta = json.loads(md[_META_KEY])
    meta.pop("format_version", None)
    counters = pd.DataFrame(json.loads(md.get(_COUNTERS_KEY, b'{"t":[],"name":[],"value":[]}')))
    spans = table.replace_schema_metadata(None).to_pandas()
    return spans, counters, meta
