"""Mapping between PipelineConfig and a cuzk daemon TOML file, release by release.

Reading applies the daemon's own defaults (:mod:`cuzklab.model.cuzk_versions`)
for every key the file leaves out, and the daemon's own reading of special
values (``gpu_workers_per_device = 0`` is one worker, ``max_parallel_synthesis
= 0`` is 18, ``total_budget = "auto"`` is RAM minus ``safety_margin``), for
the release named by ``daemon_version`` (the newest by default).

Model keys the daemon has no place for (proofs, concurrency, lock, seed, ...)
live in ``# cuzklab: key = value`` comments, which the daemon ignores and
reading takes back (they win over what the daemon keys imply). Writing back a
file that was read keeps everything else of it as it was -- comments, keys
the workbench does not model, their order -- and changes only the keys whose
value the config changed; so reading and writing an unchanged file gives the
same text.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..atomic import write_text
from ..errors import ConfigError
from .cuzk_versions import GIB, KEYS_BY_NAME, DaemonVersion, daemon_settings
from .cuzk_versions import daemon_version as _version
from .cuzk_versions import (effective, effective_max_parallel, effective_workers_per_gpu,
                            parse_duration_s, parse_size_bytes)

_GIB = re.compile(r"^\s*([0-9.]+)\s*(GiB|GB|MiB|MB|TiB|TB|G|M|T)?\s*$", re.I)
_UNIT_GIB = {None: 1.0, "gib": 1.0, "g": 1.0, "gb": 1e9 / 2**30, "mib": 1 / 1024,
             "m": 1 / 1024, "mb": 1e6 / 2**30, "tib": 1024.0, "t": 1024.0, "tb": 1e12 / 2**30}
_COMMENT = re.compile(r"^#\s*cuzklab:\s*(\w+)\s*=\s*(.+?)\s*$")

# Keys with no place in the daemon's TOML, always written as comments.
MODEL_KEYS = ("proofs", "concurrency", "partitions", "admission", "lock", "memory_gib", "seed")

# PipelineConfig keys that are one daemon key, value for value: mapping a new
# PipelineConfig key is one line here (read with the daemon's default, written
# back only where the release reads it). Names listed before the key exists
# are mapped as soon as PipelineConfig has them.
SIMPLE_KEYS: dict[str, str] = {
    "gpu_threads": "gpus.gpu_threads",
    "synthesis_threads": "synthesis.threads",
    "synthesis_concurrency": "pipeline.synthesis_concurrency",
    "synthesis_lookahead": "pipeline.synthesis_lookahead",
    "max_gpu_queue_depth": "pipeline.max_gpu_queue_depth",
    "max_batch_size": "scheduler.max_batch_size",
    "max_batch_wait_ms": "scheduler.max_batch_wait_ms",
    "sort_by_type": "scheduler.sort_by_type",
}
# The daemon's default safety margin (config.rs default_safety_margin).
DEFAULT_SAFETY_MARGIN_GIB = 5.0


def parse_size_gib(key: str, value) -> float:
    """Return a size such as "512GiB" or 5 (GiB) as GiB (the workbench's own reading)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _GIB.match(str(value))
    if not m:
        raise ConfigError(key, f"expected a size like '512GiB' or 'auto', got {value!r}")
    unit = m.group(2).lower() if m.group(2) else None
    return float(m.group(1)) * _UNIT_GIB[unit]


@dataclass
class CuzkToml:
    """A daemon TOML read under one release: the config and what the daemon runs with.

    ``settings``: every ``table.key`` of that release with the value the
    daemon uses (defaults filled in); ``unmodeled``: keys and tables the
    daemon ignores, kept for writing back; ``notes``: what the daemon would
    ignore, warn about or read differently from how it looks.
    """

    config: Any
    version: DaemonVersion
    text: str
    settings: dict = field(default_factory=dict)
    unmodeled: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _read(source) -> str:
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                    and source.endswith(".toml")):
        p = Path(source)
        if not p.exists():
            raise ConfigError("config", f"cuzk TOML file not found: {p}")
        return p.read_text(encoding="utf-8")
    return str(source)


def _loads(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("toml", f"not valid TOML: {exc}") from exc


def _comments(cls, text: str) -> dict:
    values: dict = {}
    for line in text.splitlines():
        m = _COMMENT.match(line.strip())
        if m and m.group(1) in cls.keys():
            values[m.group(1)] = cls.parse_value(m.group(1), m.group(2).strip().strip('"'))
    return values


def _derive(cls, s: dict, v: DaemonVersion, base: dict, notes: list[str]) -> dict:
    """Return the PipelineConfig keys the daemon settings ``s`` imply under release ``v``."""
    keys = set(cls.keys())
    out: dict = {}
    for ckey, dkey in SIMPLE_KEYS.items():
        if ckey in keys and dkey in s:
            out[ckey] = effective(dkey, s[dkey])
    if "eviction_min_idle_s" in keys and "memory.eviction_min_idle" in s:
        idle, warn = parse_duration_s(s["memory.eviction_min_idle"])
        if warn:
            notes.append(f"memory.eviction_min_idle: {warn}")
        out["eviction_min_idle_s"] = idle
    out["gpu_workers_per_device"] = effective_workers_per_gpu(s, v)
    if s["gpus.devices"]:
        out["gpus"] = len(s["gpus.devices"])
    else:
        notes.append("gpus.devices = [] is every GPU nvidia-smi lists; the workbench keeps "
                     "gpus (give gpus= to set it)")
    out["lock"] = v.lock
    out["admission"] = v.admission
    if v.admission == "budget":
        out["partition_workers"] = effective_max_parallel(s)
        margin_b, warn = parse_size_bytes(s["memory.safety_margin"])
        if warn:
            notes.append(f"memory.safety_margin: {warn}")
        margin = margin_b / GIB
        if "safety_margin_gib" in keys:
            out["safety_margin_gib"] = margin
        if s["memory.total_budget"] == "auto":
            memory = base.get("memory_gib", cls().memory_gib)
            if "safety_margin_gib" in keys or margin == DEFAULT_SAFETY_MARGIN_GIB:
                out["budget_gib"] = 0.0
            elif memory - margin <= 0:
                raise ConfigError("memory.safety_margin", f"{margin:g} GiB leaves no budget "
                                                          f"of memory_gib = {memory:g}")
            else:
                out["budget_gib"] = memory - margin
        else:
            total_b, warn = parse_size_bytes(s["memory.total_budget"])
            if warn:
                notes.append(f"memory.total_budget: {warn}")
            out["budget_gib"] = total_b / GIB
            if "memory_gib" not in base and out["budget_gib"] > cls().memory_gib:
                # The daemon does not check an explicit budget against RAM; the model
                # needs RAM >= budget, so the host is taken to have budget + margin.
                out["memory_gib"] = out["budget_gib"] + margin
                notes.append(f"memory_gib taken as {out['memory_gib']:g} (the budget plus "
                             f"safety_margin); give memory_gib= for the host's RAM")
    else:
        pw = s["synthesis.partition_workers"]
        if pw > 0:
            out["partition_workers"] = pw
        elif s["pipeline.slot_size"] > 0:
            out["partition_workers"] = s["pipeline.slot_size"]
            notes.append("synthesis.partition_workers = 0 with slot_size > 0 is the phase-6 "
                         "slotted pipeline; modelled as slot_size partition workers")
        else:
            out["lock"] = "monolithic"
            notes.append("synthesis.partition_workers = 0 and slot_size = 0: all partitions "
                         "of a proof are synthesized together (monolithic)")
    if not s["pipeline.enabled"]:
        out["lock"] = "monolithic"     # no pipeline: whole proofs, one GPU pass
    return {k: val for k, val in out.items() if k in keys}


def read_cuzk_toml(cls, source, *, daemon_version=None, **overrides) -> CuzkToml:
    """Return the CuzkToml of a daemon TOML (path or text) read as release ``daemon_version``."""
    v = _version(daemon_version)
    text = _read(source)
    doc = _loads(text)
    settings, unknown, notes = daemon_settings(doc, v)
    comments = _comments(cls, text)
    base = {**comments, **overrides}
    values = _derive(cls, settings, v, base, notes)
    values.update(base)
    config = cls.from_dict(values)
    object.__setattr__(config, "_cuzk_source", (text, v.name))
    return CuzkToml(config=config, version=v, text=text, settings=settings,
                    unmodeled=unknown, notes=notes)


def config_from_toml(cls, source, daemon_version=None, **overrides):
    """Return ``cls`` (PipelineConfig) read from a cuzk TOML path or text."""
    return read_cuzk_toml(cls, source, daemon_version=daemon_version, **overrides).config


# -- writing ------------------------------------------------------------------

def _literal(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(x) for x in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")


def set_key(text: str, name: str, value) -> str:
    """Return ``text`` with ``table.key`` set to ``value``, everything else untouched."""
    table, key = name.split(".", 1)
    lines = text.splitlines(keepends=True)
    key_re = re.compile(rf"^(\s*){re.escape(key)}\s*=")
    current = None
    start = end = None            # the table's header line and its last key line
    for i, line in enumerate(lines):
        h = _HEADER.match(line)
        if h:
            current = h.group(1)
            if current == table:
                start = end = i
            continue
        if current != table:
            continue
        m = key_re.match(line)
        if m:
            j = i                                    # an array may span lines
            depth = line.count("[") - line.count("]")
            while depth > 0 and j + 1 < len(lines):
                j += 1
                depth += lines[j].count("[") - lines[j].count("]")
            lines[i:j + 1] = [f"{m.group(1)}{key} = {_literal(value)}\n"]
            return "".join(lines)
        if line.strip() and not line.lstrip().startswith("#"):
            end = i
    entry = f"{key} = {_literal(value)}\n"
    if start is None:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n")
                                                             else "\n\n")
        return text + sep + f"[{table}]\n" + entry
    if lines[end] and not lines[end].endswith("\n"):
        lines[end] += "\n"
    lines.insert(end + 1, entry)
    return "".join(lines)


def set_comment(text: str, key: str, value) -> str:
    """Return ``text`` with the ``# cuzklab: key = value`` comment set (first lines)."""
    line = f"# cuzklab: {key} = {value}\n"
    lines = text.splitlines(keepends=True)
    for i, old in enumerate(lines):
        m = _COMMENT.match(old.strip())
        if m and m.group(1) == key:
            lines[i] = line
            return "".join(lines)
    at = 0
    while at < len(lines) and lines[at].startswith("#"):
        at += 1                                      # after the file's opening comments
    lines.insert(at, line)
    return "".join(lines)


def _daemon_keys_for(ckey: str, config, v: DaemonVersion) -> dict:
    """Return the daemon keys (and values) that express ``config.ckey`` under release ``v``."""
    return {k: val for k, val in _daemon_keys_any(ckey, config, v).items()
            if KEYS_BY_NAME[k].read_by(v)}


def _daemon_keys_any(ckey: str, config, v: DaemonVersion) -> dict:
    val = getattr(config, ckey)
    if ckey in SIMPLE_KEYS:
        return {SIMPLE_KEYS[ckey]: val}
    if ckey == "gpu_workers_per_device":
        return {"gpus.gpu_workers_per_device": val} if v.rank >= 8 else {}
    if ckey == "gpus":
        return {"gpus.devices": list(range(val))}
    if ckey == "eviction_min_idle_s":
        if val != int(val):
            return {}                      # whole seconds only: kept as a comment
        n = int(val)
        return {"memory.eviction_min_idle": f"{n // 60}m" if n % 60 == 0 else f"{n}s"}
    if ckey == "partition_workers":
        if v.admission == "budget":
            return {"pipeline.max_parallel_synthesis": val}
        return {"synthesis.partition_workers": val}
    if ckey == "lock":
        return {"pipeline.enabled": val != "monolithic"}
    if ckey == "budget_gib" and v.admission == "budget":
        return {"memory.total_budget": "auto" if val <= 0 else f"{val:g}GiB"}
    return {}


def _fresh_text(config) -> str:
    """Return a new daemon TOML of ``config`` (both old and new daemons read it)."""
    lines = ["# cuzk daemon configuration written by cuzklab.",
             "# Model keys the daemon does not read are kept as comments:"]
    lines += [f"# cuzklab: {key} = {getattr(config, key)}" for key in MODEL_KEYS]
    lines += ["", "[gpus]",
              f"devices = [{', '.join(str(i) for i in range(config.gpus))}]",
              f"gpu_workers_per_device = {config.gpu_workers_per_device}",
              f"gpu_threads = {config.gpu_threads}",
              "", "[synthesis]",
              f"threads = {config.synthesis_threads}"]
    if config.admission != "budget":
        lines.append(f"partition_workers = {config.partition_workers}")
    lines += ["", "[pipeline]",
              f"enabled = {'false' if config.lock == 'monolithic' else 'true'}",
              f"max_parallel_synthesis = {config.partition_workers}",
              "", "[memory]",
              'total_budget = "auto"' if config.budget_gib <= 0
              else f'total_budget = "{config.budget_gib:g}GiB"',
              'safety_margin = "5GiB"', ""]
    return "\n".join(lines)


def config_to_toml(config, path=None, extra: dict | None = None,
                   daemon_version=None) -> str:
    """Return the cuzk daemon TOML of ``config``; write it atomically to ``path``.

    A config read from a TOML writes that file back with only the keys it
    changed; any other config gets a new file. ``extra`` adds daemon tables
    the model has no key for, e.g. ``{"daemon": {"listen": "127.0.0.1:9820"},
    "srs": {"param_cache": "/params"}, "logging": {"level": "info"}}``; a
    table the config writes itself is an error. Keys the release cannot say
    are kept as ``# cuzklab:`` comments, so reading the result under
    ``daemon_version`` gives ``config`` back.
    """
    cls = type(config)
    source = getattr(config, "_cuzk_source", None)
    v = _version(daemon_version if daemon_version is not None
                 else source[1] if source else None)
    own = {"gpus", "synthesis", "pipeline", "memory"}
    for table, values in (extra or {}).items():
        if table in own:
            raise ConfigError(f"extra.{table}", f"the table [{table}] is written from the "
                                                f"config; set its keys through the config")
        if not isinstance(values, dict):
            raise ConfigError(f"extra.{table}", f"expected a table (dict), got {values!r}")
    text = source[0] if source else _fresh_text(config)
    for table, values in (extra or {}).items():
        for key, value in values.items():
            text = set_key(text, f"{table}.{key}", value)

    def back():
        return read_cuzk_toml(cls, text, daemon_version=v.name).config

    for ckey in cls.keys():
        if getattr(back(), ckey) != getattr(config, ckey):
            for dkey, value in _daemon_keys_for(ckey, config, v).items():
                text = set_key(text, dkey, value)
    got = back()
    for ckey in cls.keys():                # what the release cannot say
        if getattr(got, ckey) != getattr(config, ckey):
            text = set_comment(text, ckey, getattr(config, ckey))
            got = back()
    if path is not None:
        write_text(path, text)
    return text
