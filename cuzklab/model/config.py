"""PipelineConfig: one configuration of a proving node and its workload.

Frozen and validated on construction: an unknown key, a wrong type, an
out-of-range or inconsistent value raises :class:`~cuzklab.errors.ConfigError`
naming the key and what is allowed. Defaults describe the documented 32 GiB
PoRep node at cuzk's newest phase (split GPU API, ``gpu_threads=32``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any

from ..errors import ConfigError
from . import cuzk_toml

LOCKS = ("monolithic", "wide_mutex", "interlock", "two_lock", "split_async")
ADMISSIONS = ("semaphore", "semaphore_prefix", "budget")

# What each key means, for --help, widgets and error messages.
KEY_DOCS = {
    "proofs": "proofs submitted (cuzk-bench -c)",
    "concurrency": "proofs in flight at once (cuzk-bench -j)",
    "partitions": "partitions per proof (10 for 32 GiB PoRep)",
    "partition_workers": "concurrent partition syntheses (pw)",
    "admission": "synthesis admission: " + ", ".join(ADMISSIONS),
    "gpus": "GPUs",
    "gpu_workers_per_device": "GPU worker tasks per GPU (gw)",
    "gpu_threads": "threads of the prep_msm / b_g2_msm pool (0 = all cores)",
    "synthesis_threads": "rayon threads shared by all syntheses (0 = all cores)",
    "lock": "GPU lock strategy: " + ", ".join(LOCKS),
    "memory_gib": "host RAM in GiB; the run fails with oom past it",
    "budget_gib": "memory budget for admission='budget' (0 = auto: RAM - 5 GiB)",
    "seed": "random seed; same seed, same trace",
    "sort_by_type": "scheduler.sort_by_type: take queued proofs of the kind last served first "
                    "(fewer SRS swaps); matters only with a mixed workload",
    "max_batch_size": "scheduler.max_batch_size: same-kind NORMAL proofs the batch collector "
                      "gathers before dispatch (1 = no batching)",
    "max_batch_wait_ms": "scheduler.max_batch_wait_ms: longest a batch waits to fill (ms)",
    "eviction_min_idle_s": "memory.eviction_min_idle in seconds: an SRS/PCE idle this long may "
                           "be evicted under budget pressure",
}


@dataclass(frozen=True)
class PipelineConfig:
    """A proving node's configuration and workload (keys: docs/design.md)."""

    proofs: int = 20
    concurrency: int = 15
    partitions: int = 10
    partition_workers: int = 10
    admission: str = "semaphore"
    gpus: int = 1
    gpu_workers_per_device: int = 2
    gpu_threads: int = 32
    synthesis_threads: int = 0
    lock: str = "split_async"
    memory_gib: float = 754.0
    budget_gib: float = 0.0
    seed: int = 0
    sort_by_type: bool = True
    max_batch_size: int = 1
    max_batch_wait_ms: int = 10000
    eviction_min_idle_s: float = 300.0

    def __post_init__(self):
        _validate(self)

    # -- constructors ----------------------------------------------------------
    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """Return the configuration keys in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def coerce(cls, config: "PipelineConfig | dict | None") -> "PipelineConfig":
        """Return ``config`` as a PipelineConfig (a dict of keys, or None for the defaults)."""
        if config is None:
            return cls()
        if isinstance(config, dict):
            return cls.from_dict(config)
        if not isinstance(config, cls):
            raise TypeError(f"config must be a PipelineConfig, a dict or None, got "
                            f"{type(config).__name__}")
        return config

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None = None, **overrides) -> "PipelineConfig":
        """Return a config from a dict of keys (unknown keys are an error)."""
        merged = {**(data or {}), **overrides}
        unknown = sorted(set(merged) - set(cls.keys()))
        if unknown:
            raise ConfigError(unknown[0], f"unknown key; allowed keys: {', '.join(cls.keys())}")
        return cls(**merged)

    def replace(self, **changes) -> "PipelineConfig":
        """Return a copy with ``changes`` applied (validated); a TOML it was read from stays."""
        new = self.from_dict(self.to_dict(), **changes)
        source = getattr(self, "_cuzk_source", None)
        if source is not None:
            object.__setattr__(new, "_cuzk_source", source)
        return new

    def with_overrides(self, assignments: list[str]) -> "PipelineConfig":
        """Return a copy with ``key=value`` strings applied (values parsed by type)."""
        changes: dict[str, Any] = {}
        for item in assignments:
            if "=" not in item:
                raise ConfigError(item, "expected key=value")
            key, _, raw = item.partition("=")
            key = key.strip()
            if key not in self.keys():
                raise ConfigError(key, f"unknown key; allowed keys: {', '.join(self.keys())}")
            changes[key] = parse_value(key, raw.strip())
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """Return the config as a plain dict."""
        return dataclasses.asdict(self)

    # -- cuzk daemon TOML --------------------------------------------------------
    @classmethod
    def from_cuzk_toml(cls, source, daemon_version: str | None = None,
                       **overrides) -> "PipelineConfig":
        """Return the config a cuzk daemon TOML (path or text) runs under ``daemon_version``.

        Missing keys take that release's defaults (the newest when None; see
        ``cuzklab.model.cuzk_versions.DAEMON_VERSIONS``); ``overrides`` win.
        """
        return cuzk_toml.config_from_toml(cls, source, daemon_version, **overrides)

    @classmethod
    def read_cuzk_toml(cls, source, daemon_version: str | None = None, **overrides):
        """Return the CuzkToml of a daemon TOML: config, the daemon's settings, notes."""
        return cuzk_toml.read_cuzk_toml(cls, source, daemon_version=daemon_version,
                                        **overrides)

    def to_cuzk_toml(self, path=None, extra: dict | None = None,
                     daemon_version: str | None = None) -> str:
        """Return (and optionally write) a cuzk daemon TOML; ``extra`` adds other tables.

        A config read from a TOML writes that file back, changed only where the
        config changed.
        """
        return cuzk_toml.config_to_toml(self, path, extra, daemon_version)

    @classmethod
    def parse_value(cls, key: str, raw: str):
        """Return ``raw`` (a command-line string) converted to ``key``'s type."""
        return parse_value(key, raw)

    # -- derived -----------------------------------------------------------------
    def effective_budget_gib(self, safety_margin_gib: float = 5.0) -> float:
        """Return the admission budget in GiB (auto = RAM minus the safety margin)."""
        return self.budget_gib if self.budget_gib > 0 else self.memory_gib - safety_margin_gib


_TYPES = {f.name: f.type for f in fields(PipelineConfig)}


def parse_value(key: str, raw: str):
    """Return ``raw`` (a command-line string) converted to ``key``'s type."""
    kind = _TYPES[key]
    if kind == "bool":
        low = raw.strip().lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise ConfigError(key, f"expected true or false, got {raw!r}")
    try:
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
    except ValueError:
        raise ConfigError(key, f"expected {'an integer' if kind == 'int' else 'a number'}, "
                               f"got {raw!r}") from None
    return raw


def _validate(c: PipelineConfig) -> None:
    for f in fields(c):
        v = getattr(c, f.name)
        if f.type == "int":
            if isinstance(v, bool) or not isinstance(v, int):
                if hasattr(v, "item") and isinstance(v.item(), int):  # numpy ints
                    object.__setattr__(c, f.name, int(v.item()))
                    continue
                raise ConfigError(f.name, f"expected an integer, got {type(v).__name__} {v!r}")
        elif f.type == "float":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                if hasattr(v, "item"):
                    object.__setattr__(c, f.name, float(v.item()))
                    continue
                raise ConfigError(f.name, f"expected a number, got {type(v).__name__} {v!r}")
            object.__setattr__(c, f.name, float(v))
        elif f.type == "bool":
            if hasattr(v, "item") and isinstance(v.item(), bool):  # numpy bools
                object.__setattr__(c, f.name, bool(v.item()))
            elif not isinstance(v, bool):
                raise ConfigError(f.name, f"expected true or false, got {type(v).__name__} {v!r}")
        elif f.type == "str" and not isinstance(v, str):
            raise ConfigError(f.name, f"expected a string, got {type(v).__name__} {v!r}")

    def at_least(key, lo):
        if getattr(c, key) < lo:
            raise ConfigError(key, f"must be >= {lo} ({KEY_DOCS[key]}), got {getattr(c, key)}")

    for key in ("proofs", "concurrency", "partitions", "partition_workers", "gpus",
                "gpu_workers_per_device"):
        at_least(key, 1)
    for key in ("gpu_threads", "synthesis_threads", "seed", "max_batch_wait_ms"):
        at_least(key, 0)
    at_least("max_batch_size", 1)
    if c.max_batch_size > 1024:
        raise ConfigError("max_batch_size", f"must be <= 1024, got {c.max_batch_size}")
    if not 0 <= c.eviction_min_idle_s <= 86400:
        raise ConfigError("eviction_min_idle_s", f"must be in [0, 86400] seconds, got "
                                                 f"{c.eviction_min_idle_s}")
    if c.memory_gib <= 0:
        raise ConfigError("memory_gib", f"must be > 0 GiB, got {c.memory_gib}")
    if c.budget_gib < 0:
        raise ConfigError("budget_gib", f"must be >= 0 (0 = auto), got {c.budget_gib}")
    if c.budget_gib > c.memory_gib:
        raise ConfigError("budget_gib", f"must not exceed memory_gib ({c.memory_gib}), "
                                        f"got {c.budget_gib}")
    if c.lock not in LOCKS:
        raise ConfigError("lock", f"must be one of {', '.join(LOCKS)}, got {c.lock!r}")
    if c.admission not in ADMISSIONS:
        raise ConfigError("admission", f"must be one of {', '.join(ADMISSIONS)}, "
                                        f"got {c.admission!r}")
    if c.concurrency > c.proofs:
        raise ConfigError("concurrency", f"must be <= proofs ({c.proofs}): cannot have "
                                          f"{c.concurrency} proofs in flight")
    if c.partitions > 64:
        raise ConfigError("partitions", f"must be <= 64, got {c.partitions}")
    if c.gpus > 64:
        raise ConfigError("gpus", f"must be <= 64, got {c.gpus}")
    if c.gpu_workers_per_device > 16:
        raise ConfigError("gpu_workers_per_device", f"must be <= 16, got {c.gpu_workers_per_device}")
