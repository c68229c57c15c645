"""The cuzk daemon's releases and the TOML keys each one reads, with its own defaults.

Facts from the Curio repository (``extern/cuzk/cuzk-core/src/config.rs``,
``engine.rs`` and ``cuzk-daemon/src/main.rs`` at each commit named in
:data:`DAEMON_VERSIONS`). The daemon deserializes its TOML with serde: a
missing key takes the default below, an unknown key or table is ignored, and a
value of the wrong type stops the daemon before it starts. Deprecated keys of
the newest release are still type-checked, then ignored (with a warning line).

Nothing here knows about PipelineConfig; :mod:`cuzklab.model.cuzk_toml` maps
these settings onto it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ConfigError

GIB = 2**30


@dataclass(frozen=True)
class DaemonVersion:
    """One release of the daemon: its commit and the pipeline it runs."""

    name: str
    commit: str
    lock: str              # the lock strategy of this phase (PipelineConfig.lock)
    admission: str         # how partition syntheses are admitted (PipelineConfig.admission)
    rank: int
    note: str = ""


# Commits of filecoin-project/curio; "head" is the merged engine (3f74a5cd,
# "10x cheaper C2/PRU: CuZK Proving engine"). Phase 10 (two locks) was tried
# and reverted: its only commit is documentation, the code is phase 9's.
# Phases 7-11 and the first phase-12 commit released a synthesis permit before
# the hand-off to the GPU channel (the pile-up fixed by 98a52b33).
DAEMON_VERSIONS: dict[str, DaemonVersion] = {v.name: v for v in (
    DaemonVersion("phase7", "f5bfb669", "wide_mutex", "semaphore_prefix", 7,
                  "engine-level per-partition pipeline, one GPU worker per GPU"),
    DaemonVersion("phase8", "2fac031f", "interlock", "semaphore_prefix", 8,
                  "dual-worker GPU interlock"),
    DaemonVersion("phase9", "599522de", "interlock", "semaphore_prefix", 9,
                  "pinned pre-staged uploads (c4effc85) and their timing lines"),
    DaemonVersion("phase10", "a737c729", "interlock", "semaphore_prefix", 10,
                  "two-lock interlock abandoned: the code is phase 9's"),
    DaemonVersion("phase11", "39387fbe", "interlock", "semaphore_prefix", 11,
                  "memory-bandwidth-aware scheduling"),
    DaemonVersion("phase12-split", "99c31c2c", "split_async", "semaphore_prefix", 12,
                  "split GPU API, permit still released before the hand-off"),
    DaemonVersion("phase12", "98a52b33", "split_async", "semaphore", 13,
                  "split GPU API with the permit held through the hand-off"),
    DaemonVersion("head", "3f74a5cd", "split_async", "budget", 14,
                  "memory manager: one budget, partition_workers deprecated"),
)}
DEFAULT_VERSION = "head"
NEWEST = DAEMON_VERSIONS[DEFAULT_VERSION]


def daemon_version(name: str | None) -> DaemonVersion:
    """Return the DaemonVersion called ``name`` (None: the newest)."""
    if name is None:
        return NEWEST
    if isinstance(name, DaemonVersion):
        return name
    v = DAEMON_VERSIONS.get(str(name).lower())
    if v is None:
        raise ConfigError("daemon_version", f"must be one of {', '.join(DAEMON_VERSIONS)}, "
                                            f"got {name!r}")
    return v


@dataclass(frozen=True)
class DaemonKey:
    """One key of the daemon's TOML: its type, default and the releases that read it."""

    name: str              # "table.key"
    kind: str              # u32, u64, bool, str, u32_list, str_list, opt_str
    default: object
    since: int = 7         # first DaemonVersion.rank that reads it
    until: int = 99        # last rank that reads it
    deprecated_from: int = 99   # rank from which it is parsed but ignored (a warning)

    def read_by(self, v: DaemonVersion) -> bool:
        """Return True if release ``v`` declares this key (parsed, maybe ignored)."""
        return self.since <= v.rank <= max(self.until, self.deprecated_from if
                                           self.deprecated_from < 99 else self.until)

    def used_by(self, v: DaemonVersion) -> bool:
        """Return True if release ``v`` acts on this key."""
        return self.since <= v.rank <= self.until and v.rank < self.deprecated_from


_P12 = DAEMON_VERSIONS["phase12"].rank
_HEAD = NEWEST.rank

# Every key of config.rs, with the default its serde attributes give.
DAEMON_KEYS: tuple[DaemonKey, ...] = (
    DaemonKey("daemon.listen", "str", "unix:///run/curio/cuzk.sock"),
    DaemonKey("daemon.status_listen", "str", "", since=_HEAD),
    DaemonKey("memory.pinned_budget", "str", "50GiB", deprecated_from=_HEAD),
    DaemonKey("memory.working_memory_budget", "str", "80GiB", deprecated_from=_HEAD),
    DaemonKey("memory.total_budget", "str", "auto", since=_HEAD),
    DaemonKey("memory.safety_margin", "str", "5GiB", since=_HEAD),
    DaemonKey("memory.eviction_min_idle", "str", "5m", since=_HEAD),
    DaemonKey("gpus.devices", "u32_list", ()),
    DaemonKey("gpus.gpu_threads", "u32", 0),
    DaemonKey("gpus.gpu_workers_per_device", "u32", 2, since=8),
    DaemonKey("scheduler.max_batch_size", "u32", 1),
    DaemonKey("scheduler.max_batch_wait_ms", "u64", 10000),
    DaemonKey("scheduler.sort_by_type", "bool", True),
    DaemonKey("synthesis.threads", "u32", 0),
    DaemonKey("synthesis.partition_workers", "u32", 20, deprecated_from=_HEAD),
    DaemonKey("pipeline.enabled", "bool", True),
    DaemonKey("pipeline.synthesis_lookahead", "u32", 1),
    DaemonKey("pipeline.synthesis_concurrency", "u32", 1),
    DaemonKey("pipeline.max_parallel_synthesis", "u32", 18, since=_HEAD),
    DaemonKey("pipeline.slot_size", "u32", 0),
    DaemonKey("pipeline.max_gpu_queue_depth", "u32", 0, since=_HEAD),
    DaemonKey("srs.param_cache", "str", "/data/zk/params"),
    DaemonKey("srs.preload", "str_list", (), deprecated_from=_HEAD),
    DaemonKey("logging.level", "str", "info"),
    DaemonKey("logging.format", "opt_str", None),
)
KEYS_BY_NAME = {k.name: k for k in DAEMON_KEYS}
TABLES = tuple(dict.fromkeys(k.name.split(".")[0] for k in DAEMON_KEYS))

# What the daemon does with a value where it is not the plain value
# (engine.rs / main.rs): 0 worker per GPU is one, 0 parallel syntheses the default.
MAX_PARALLEL_SYNTHESIS_DEFAULT = 18      # engine.rs: `if cfg == 0 { 18 }`
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


def _check(key: DaemonKey, value):
    """Return ``value`` as the daemon would hold it, or raise ConfigError."""
    refuse = "the daemon would refuse to start"
    if key.kind in ("u32", "u64"):
        top = U32_MAX if key.kind == "u32" else U64_MAX
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
            raise ConfigError(key.name, f"expected an integer 0..{top} ({key.kind}), got "
                                        f"{value!r}: {refuse}")
        return value
    if key.kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(key.name, f"expected true or false, got {value!r}: {refuse}")
        return value
    if key.kind in ("str", "opt_str"):
        if not isinstance(value, str):
            raise ConfigError(key.name, f"expected a string, got {value!r}: {refuse}")
        return value
    if key.kind == "u32_list":
        if not isinstance(value, list) or any(isinstance(x, bool) or not isinstance(x, int)
                                              or not 0 <= x <= U32_MAX for x in value):
            raise ConfigError(key.name, f"expected a list of GPU ordinals, got {value!r}: "
                                        f"{refuse}")
        return list(value)
    if key.kind == "str_list":
        if not isinstance(value, list) or any(not isinstance(x, str) for x in value):
            raise ConfigError(key.name, f"expected a list of strings, got {value!r}: {refuse}")
        return list(value)
    raise AssertionError(key.kind)


def daemon_settings(doc: dict, version: str | DaemonVersion | None = None
                    ) -> tuple[dict, dict, list[str]]:
    """Return (settings, unknown, notes) of a parsed TOML document under one release.

    ``settings`` maps every ``table.key`` the release declares to the value it
    runs with (the file's, else the default); ``unknown`` holds the keys and
    tables it ignores, ``notes`` says what it ignores or warns about.
    """
    v = daemon_version(version)
    settings: dict = {}
    unknown: dict = {}
    notes: list[str] = []
    for table, body in doc.items():
        if table not in TABLES:
            unknown[table] = body
            notes.append(f"[{table}] is not read by the {v.name} daemon")
            continue
        if not isinstance(body, dict):
            raise ConfigError(table, f"expected a table [{table}], got {body!r}: the daemon "
                                     f"would refuse to start")
        for k, value in body.items():
            name = f"{table}.{k}"
            key = KEYS_BY_NAME.get(name)
            if key is None or not key.read_by(v):
                unknown[name] = value
                notes.append(f"{name} is not read by the {v.name} daemon")
                continue
            settings[name] = _check(key, value)
            if not key.used_by(v):
                notes.append(f"{name} is deprecated in the {v.name} daemon (a warning; "
                             f"no effect)")
    for key in DAEMON_KEYS:
        if key.read_by(v) and key.name not in settings:
            # A deprecated key is an Option there: absent is None, not its old default.
            d = key.default if key.used_by(v) else None
            settings[key.name] = list(d) if isinstance(d, tuple) else d
    return settings, unknown, notes


def parse_size_bytes(text: str) -> tuple[int, str | None]:
    """Return (bytes, warning) of a size as config.rs ``parse_size`` reads it.

    Integers with a GiB, MiB, GB or MB suffix, else a plain byte count. What it
    cannot read becomes its fallback (50 GiB; 0 for MiB/MB), as in the daemon.
    """
    s = text.strip()
    for suffix, unit, fallback in (("GiB", GIB, 50), ("MiB", 2**20, 0), ("GB", 10**9, 50),
                                   ("MB", 10**6, 0)):
        if s.endswith(suffix):
            n = s[:-len(suffix)].strip()
            if re.fullmatch(r"\+?\d+", n):
                return int(n) * unit, None
            return fallback * unit, (f"{text!r} is not a whole number of {suffix}: the "
                                     f"daemon uses {fallback} {suffix}")
    if re.fullmatch(r"\+?\d+", s):
        return int(s), None
    return 50 * GIB, f"{text!r} is not a size the daemon reads: it uses 50 GiB"


def parse_duration_s(text: str) -> tuple[float, str | None]:
    """Return (seconds, warning) of a duration as the daemon's ``parse_duration`` reads it.

    ``"5m"`` is minutes, ``"30s"`` seconds, a bare integer seconds (cuzk's
    memory-manager specification, config.rs); a number it cannot read becomes
    its fallback (5 minutes), as in the daemon.
    """
    s = str(text).strip()
    for suffix, unit, fallback in (("m", 60, 5), ("s", 1, 300)):
        if s.endswith(suffix):
            n = s[:-len(suffix)].strip()
            if re.fullmatch(r"\+?\d+", n):
                return float(int(n) * unit), None
            return float(fallback * unit), (f"{text!r} is not a whole number of "
                                            f"{'minutes' if unit == 60 else 'seconds'}: the "
                                            f"daemon uses {fallback * unit // 60:g} minutes")
    if re.fullmatch(r"\+?\d+", s):
        return float(int(s)), None
    return 300.0, f"{text!r} is not a duration the daemon reads: it uses 5 minutes"


# Keys whose 0 the engine reads as 1 (engine.rs: `.max(1)`, every release); a
# max_batch_size of 0 or 1 both mean no batching (batch_collector.rs `<= 1`).
AT_LEAST_ONE = ("pipeline.synthesis_lookahead", "pipeline.synthesis_concurrency",
                "scheduler.max_batch_size")


def effective(name: str, value):
    """Return the value the engine acts on for daemon key ``name`` set to ``value``."""
    if name in AT_LEAST_ONE:
        return max(1, value)
    if name == "pipeline.max_parallel_synthesis":
        return value or MAX_PARALLEL_SYNTHESIS_DEFAULT
    return value


def effective_workers_per_gpu(settings: dict, version: DaemonVersion) -> int:
    """Return the GPU workers per GPU the release starts (phase 7: one; 0 means 1)."""
    if "gpus.gpu_workers_per_device" not in settings:
        return 1
    if not settings["pipeline.enabled"]:
        return 1                 # the monolithic path has one worker per GPU
    return max(1, settings["gpus.gpu_workers_per_device"])


def effective_max_parallel(settings: dict) -> int:
    """Return the newest daemon's cap on parallel partition syntheses (0 = 18)."""
    n = settings.get("pipeline.max_parallel_synthesis", 0)
    return n if n else MAX_PARALLEL_SYNTHESIS_DEFAULT


def _releases(key: DaemonKey) -> str:
    names = [v.name for v in DAEMON_VERSIONS.values() if key.used_by(v)]
    dep = [v.name for v in DAEMON_VERSIONS.values() if key.read_by(v) and not key.used_by(v)]
    text = names[0] if len(names) == 1 else f"{names[0]}–{names[-1]}"
    return text + (f" (deprecated in {', '.join(dep)})" if dep else "")


def daemon_keys_markdown() -> str:
    """Return the daemon keys as the Markdown table of docs/cuzk-daemon.md."""
    rows = ["| key | type | default | read by |", "|---|---|---|---|"]
    for k in DAEMON_KEYS:
        d = k.default
        shown = "[]" if d == () else "none" if d is None else (
            f'"{d}"' if isinstance(d, str) else str(d).lower() if isinstance(d, bool) else str(d))
        rows.append(f"| `{k.name}` | {k.kind} | `{shown}` | {_releases(k)} |")
    return "\n".join(rows)


def versions_markdown() -> str:
    """Return the releases as the Markdown table of docs/cuzk-daemon.md."""
    rows = ["| `daemon_version` | commit | lock | admission | what |", "|---|---|---|---|---|"]
    for v in DAEMON_VERSIONS.values():
        rows.append(f"| `{v.name}` | `{v.commit}` | `{v.lock}` | `{v.admission}` | {v.note} |")
    return "\n".join(rows)
