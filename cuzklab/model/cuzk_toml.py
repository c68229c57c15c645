"""Mapping between PipelineConfig and a cuzk daemon TOML file.

Keys the daemon has are written as TOML keys under its own tables; keys it
has not (workload and model keys: proofs, concurrency, lock, seed, ...) are
kept in ``# cuzklab: key = value`` comments, which the daemon ignores and
``from_cuzk_toml`` reads back, so a file round-trips.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..atomic import write_text
from ..errors import ConfigError

_GIB = re.compile(r"^\s*([0-9.]+)\s*(GiB|GB|MiB|MB|TiB|TB|G|M|T)?\s*$", re.I)
_UNIT_GIB = {None: 1.0, "gib": 1.0, "g": 1.0, "gb": 1e9 / 2**30, "mib": 1 / 1024,
             "m": 1 / 1024, "mb": 1e6 / 2**30, "tib": 1024.0, "t": 1024.0, "tb": 1e12 / 2**30}
_COMMENT = re.compile(r"^#\s*cuzklab:\s*(\w+)\s*=\s*(.+?)\s*$")

# Keys with no place in the daemon's TOML.
MODEL_KEYS = ("proofs", "concurrency", "partitions", "admission", "lock", "memory_gib", "seed")


def parse_size_gib(key: str, value) -> float:
    """Return a size such as "512GiB" or 5 (GiB) as GiB."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _GIB.match(str(value))
    if not m:
        raise ConfigError(key, f"expected a size like '512GiB' or 'auto', got {value!r}")
    unit = m.group(2).lower() if m.group(2) else None
    return float(m.group(1)) * _UNIT_GIB[unit]


def config_from_toml(cls, source, **overrides):
    """Return ``cls`` (PipelineConfig) read from a cuzk TOML path or text."""
    text = _read(source)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("toml", f"not valid TOML: {exc}") from exc
    values: dict = {}
    for line in text.splitlines():
        m = _COMMENT.match(line.strip())
        if m and m.group(1) in cls.keys():
            from .config import parse_value
            values[m.group(1)] = parse_value(m.group(1), m.group(2).strip().strip('"'))
    gpus = doc.get("gpus", {})
    if "gpu_workers_per_device" in gpus:
        values["gpu_workers_per_device"] = gpus["gpu_workers_per_device"]
    if "gpu_threads" in gpus:
        values["gpu_threads"] = gpus["gpu_threads"]
    if "devices" in gpus:
        devices = gpus["devices"]
        if not isinstance(devices, list):
            raise ConfigError("gpus.devices", f"expected a list of GPU ordinals, got {devices!r}")
        if devices:
            values["gpus"] = len(devices)
    synth = doc.get("synthesis", {})
    if "threads" in synth:
        values["synthesis_threads"] = synth["threads"]
    pipeline = doc.get("pipeline", {})
    if "partition_workers" in synth:
        values["partition_workers"] = synth["partition_workers"]
        values.setdefault("admission", "semaphore")
    elif "max_parallel_synthesis" in pipeline:
        values["partition_workers"] = pipeline["max_parallel_synthesis"]
    if pipeline.get("enabled") is False:
        values["lock"] = "monolithic"   # no per-partition pipeline: whole proofs
    memory = doc.get("memory", {})
    budget = memory.get("total_budget")
    if budget is not None and str(budget).lower() != "auto":
        values["budget_gib"] = parse_size_gib("memory.total_budget", budget)
    if memory and "partition_workers" not in synth:
        values.setdefault("admission", "budget")
    values.update(overrides)
    return cls.from_dict(values)


def config_to_toml(config, path=None, extra: dict | None = None) -> str:
    """Return the cuzk daemon TOML of ``config``; write it atomically to ``path``.

    ``extra`` adds daemon tables the model has no key for, e.g.
    ``{"daemon": {"listen": "127.0.0.1:9820"}, "srs": {"param_cache": "/params"},
    "logging": {"level": "info"}}``; a table the config also writes is an error.
    """
    lines = ["# cuzk daemon configuration written by cuzklab.",
             "# Model keys the daemon does not read are kept as comments:"]
    for key in MODEL_KEYS:
        lines.append(f"# cuzklab: {key} = {getattr(config, key)}")
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
    if extra:
        import tomli_w
        own = {"gpus", "synthesis", "pipeline", "memory"}
        for table, values in extra.items():
            if table in own:
                raise ConfigError(f"extra.{table}", f"the table [{table}] is written from the "
                                                    f"config; set its keys through the config")
            if not isinstance(values, dict):
                raise ConfigError(f"extra.{table}", f"expected a table (dict), got {values!r}")
        lines.append(tomli_w.dumps(extra))
    text = "\n".join(lines)
    if path is not None:
        write_text(path, text)
    return text


def _read(source) -> str:
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                    and source.endswith(".toml")):
        p = Path(source)
        if not p.exists():
            raise ConfigError("config", f"cuzk TOML file not found: {p}")
        return p.read_text(encoding="utf-8")
    return str(source)
