"""Profile: the costs of one partition's stages on a given node.

A profile is a TOML file in ``data/profiles/`` (or any path): solo seconds and
thread counts of the CPU stages, bytes moved through host memory, GPU stage
times, memory sizes and when each buffer is freed, and the node's cores,
memory bandwidth, PCIe bandwidth and VRAM (the RAM is the configuration's
``memory_gib``). Every number in those files carries a provenance tag in its
comment: ``cuzk:`` (measured or stated by cuzk's authors), ``fit:`` (a model
parameter fitted on calibration rows) or ``assumed:`` (reasoned, no source). The
a/b/c and aux sizes are derived from the circuit (``constraints``,
``aux_variables``, ``scalar_bytes``) and read as ``partition.abc_gib`` /
``aux_gib``. A variant (``porep-32g@phase8``) names
the profile it ``extends`` and overrides only what differs.

A variant that describes an earlier phase of cuzk also carries that era's
default configuration in an optional ``[config]`` table (``lock =
"interlock"``, ``gpu_threads = 0``: how cuzk ran then). :meth:`Profile.configure`
applies it under the keys a user set explicitly.
"""

from __future__ import annotations

import copy
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import ConfigError, ProfileError

DEFAULT_PROFILE = "porep-32g"

# Required keys per table, with the allowed range of each value.
_SCHEMA: dict[str, dict[str, tuple[float, float]]] = {
    "node": {"cores": (1, 4096), "ddr_gbps": (1, 1e5),
             "pcie_gbps": (0.01, 1e4), "vram_gib": (0.1, 1e4), "cpu_pool_weight": (0.01, 1e3)},
    "partition": {"constraints": (1, 1e12), "aux_variables": (0, 1e12), "scalar_bytes": (1, 1024),
                  "abc_upload_gib": (0, 1e4), "abc_upload_gbps": (0.01, 1e4),
                  "device_buffers_gib": (0, 1e4)},
    "memory": {"srs_gib": (0, 1e5), "pce_gib": (0, 1e5), "runtime_gib": (0, 1e5),
               "budget_reserve_gib": (0, 1e4), "budget_release_gpu_gib": (0, 1e4),
               "safety_margin_gib": (0, 1e4), "dealloc_s": (0, 1e3),
               "b_g2_bucket_mib_per_thread": (0, 1e4), "pressure_start": (0, 1),
               "reclaim_window_s": (0, 1e5), "reclaim_growth_gib": (0, 1e5)},
    "synth": {"work_core_s": (1e-6, 1e7), "max_threads": (1, 4096),
              "bw_gbps_per_thread": (0, 1e3), "mem_bound": (0, 1), "alloc_at_start": (0, 1), "scratch_gib": (0, 1e4),
              "pipeline_lookahead": (0, 1e4), "pressure_sensitivity": (0, 1e3)},
    "prep_msm": {"solo_s": (0, 1e5), "threads": (1, 4096), "bw_gbps_per_thread": (0, 1e3),
                 "mem_bound": (0, 1), "pressure_sensitivity": (0, 1e3)},
    "b_g2_msm": {"solo_s_at_all_cores": (0, 1e5), "solo_s_at_32": (0, 1e5),
                 "bw_gbps_per_thread": (0, 1e3), "mem_bound": (0, 1), "pressure_sensitivity": (0, 1e3)},
    "epilogue": {"solo_s": (0, 1e5), "pressure_sensitivity": (0, 1e3)},
    "gpu": {"ntt_h_s": (0, 1e5), "batch_add_s": (0, 1e5), "tail_msm_s": (0, 1e5),
            "ntt_h_host_gib": (0, 1e5), "batch_add_host_gib": (0, 1e5),
            "tail_msm_host_gib": (0, 1e5),
            "overhead_s": (0, 1e5), "pre_lock_s": (0, 1e5), "in_lock_setup_s": (0, 1e5),
            "setup_bw_gbps": (0, 1e3), "setup_mem_bound": (0, 1),
            "setup_pressure_sensitivity": (0, 1e3), "handoff_s": (0, 1e3), "jitter": (0, 1)},
}

# Optional keys (absent: the mechanism is off), with the allowed range of each value.
_OPTIONAL: dict[str, dict[str, tuple[float, float]]] = {
    "node": {"busy_slowdown": (0, 10), "busy_knee": (2, 4096), "llc_mib": (0, 1e6)},
    "synth": {"matvec_serial": (0, 0.99), "matvec_miss_penalty": (0, 100),
              "matvec_max_threads": (1, 1e5), "matvec_bw_gbps_per_thread": (0, 1e4),
              "matvec_mem_bound": (0, 1), "matvec_weight": (0.01, 1e3),
              "witness_spread": (0, 2), "witness_pool_slowdown": (1, 100)},
    "gpu": {"host_share": (0, 1)},
    "memory": {"request_gib": (0, 1e3)},
    "partition": {"pinned_alloc_s": (0, 1e3), "pinned_warm": (0, 1e6)},
    "b_g2_msm": {"pool_core_s": (0, 1e6), "serial_s": (0, 1e5), "neighbour_slowdown": (0, 10),
                 "pool_width": (1, 4096)},
}

# Values the model derives from others; a profile may not set them (they would contradict).
DERIVED = {"partition": ("abc_gib", "aux_gib")}
# Keys that used to exist and were removed, with why (a clear error instead of a silent no-op).
_REMOVED = {
    ("node", "memory_gib"): "the node's RAM is the configuration's memory_gib",
    ("partition", "proof_bytes"): "the model never read it",
    ("synth", "age_priority"): "syntheses share the rayon pool equally (each takes at most "
                               "max_threads, so an age weighting never binds on this node)",
    ("partition", "abc_gib"): "it is derived: 3 x constraints x scalar_bytes",
    ("partition", "aux_gib"): "it is derived: aux_variables x scalar_bytes",
}


def _derive(data: dict) -> None:
    """Fill the derived values (a/b/c and aux GiB from the circuit's size) in place."""
    part = data.get("partition")
    if not isinstance(part, dict):
        return
    n, aux, sb = (part.get(k) for k in ("constraints", "aux_variables", "scalar_bytes"))
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (n, aux, sb)):
        part["abc_gib"] = 3 * n * sb / 2**30
        part["aux_gib"] = aux * sb / 2**30


def profiles_dir() -> Path:
    """Return the folder holding the named profiles.

    ``CUZKLAB_PROFILES`` if set, else the checkout's ``data/profiles`` when
    cuzklab runs from one, else the copies installed with the package.
    """
    env = os.environ.get("CUZKLAB_PROFILES")
    if env:
        return Path(env)
    from ..resources import data_dir
    return data_dir("profiles")


def list_profiles() -> list[str]:
    """Return the names of the profiles in the profiles folder."""
    d = profiles_dir()
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


@dataclass(frozen=True)
class Profile:
    """The stage costs and node facts of one proving node (see data/profiles/)."""

    name: str
    data: dict[str, Any] = field(repr=False)
    source: str = ""

    # -- loading ---------------------------------------------------------------
    @classmethod
    def load(cls, name_or_path: "str | os.PathLike | Profile | None" = None) -> "Profile":
        """Return the profile with this name (``porep-32g``) or at this path."""
        if isinstance(name_or_path, Profile):
            return name_or_path
        raw, source = _load_raw(name_or_path or DEFAULT_PROFILE, seen=())
        _check_removed(raw, Path(source).stem)
        _derive(raw)
        prof = cls(name=str(raw.get("name", Path(source).stem)), data=raw, source=source)
        prof.validate()
        return prof

    def validate(self) -> None:
        """Raise ProfileError if a required value is missing or out of range."""
        for table, keys in _SCHEMA.items():
            sect = self.data.get(table)
            if not isinstance(sect, dict):
                raise ProfileError(f"profile {self.name}: missing table [{table}]")
            for key, (lo, hi) in keys.items():
                if key not in sect:
                    raise ProfileError(f"profile {self.name}: missing {table}.{key}")
                v = sect[key]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ProfileError(f"profile {self.name}: {table}.{key} must be a number, "
                                       f"got {v!r}")
                if not lo <= v <= hi:
                    raise ProfileError(f"profile {self.name}: {table}.{key} = {v} is outside "
                                       f"[{lo}, {hi}]")
        for table, keys in _OPTIONAL.items():
            for key, (lo, hi) in keys.items():
                v = self.data.get(table, {}).get(key)
                if v is None:
                    continue
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                    raise ProfileError(f"profile {self.name}: {table}.{key} must be a number in "
                                       f"[{lo}, {hi}], got {v!r}")
        wf = self.data["synth"].get("witness_fraction", 0.0)
        if isinstance(wf, bool) or not isinstance(wf, (int, float)) or not 0 <= wf < 1:
            raise ProfileError(f"profile {self.name}: synth.witness_fraction must be a number in "
                               f"[0, 1), got {wf!r}")
        pq = self.data["prep_msm"].get("queue", "own")
        if pq not in ("own", "pool"):
            raise ProfileError(f"profile {self.name}: prep_msm.queue must be 'own' or 'pool', "
                               f"got {pq!r}")
        mq = self.data["synth"].get("matvec_queue", "shared")
        if mq not in ("shared", "fifo"):
            raise ProfileError(f"profile {self.name}: synth.matvec_queue must be 'shared' or "
                               f"'fifo', got {mq!r}")
        ss = self.data["synth"].get("serial_share", "core")
        if ss not in ("core", "even"):
            raise ProfileError(f"profile {self.name}: synth.serial_share must be 'core' or "
                               f"'even', got {ss!r}")
        mp = self.data["synth"].get("matvec_pool", "")
        if mp not in ("", "rayon", "per_worker"):
            raise ProfileError(f"profile {self.name}: synth.matvec_pool must be 'rayon' or "
                               f"'per_worker' (or absent: one-job synthesis), got {mp!r}")
        for key, allowed in (("abc_touched", ("as_written", "matvec_start")),
                             ("scratch_held", ("synthesis", "matvec"))):
            v = self.data["synth"].get(key, allowed[0])
            if v not in allowed:
                raise ProfileError(f"profile {self.name}: synth.{key} must be "
                                   f"{' or '.join(repr(a) for a in allowed)}, got {v!r}")
            if v != allowed[0] and not wf:
                raise ProfileError(f"profile {self.name}: synth.{key} = {v!r} needs the two steps "
                                   f"of synthesis: set synth.witness_fraction above 0")
        fa = self.data["partition"].get("free_abc_after", "finalize")
        if fa not in ("gpu", "finalize"):
            raise ProfileError(f"profile {self.name}: partition.free_abc_after must be 'gpu' or "
                               f"'finalize', got {fa!r}")

        self.config_defaults()  # the [config] table's keys and values are checked too

    def config_defaults(self) -> dict[str, Any]:
        """Return the profile's ``[config]`` table: the era's default configuration keys."""
        from .config import PipelineConfig
        table = self.data.get("config", {})
        if not isinstance(table, dict):
            raise ProfileError(f"profile {self.name}: [config] must be a table of "
                               f"configuration keys, got {table!r}")
        unknown = sorted(set(table) - set(PipelineConfig.keys()))
        if unknown:
            raise ProfileError(f"profile {self.name}: [config] {unknown[0]} is not a "
                               f"configuration key; keys: {', '.join(PipelineConfig.keys())}")
        try:
            PipelineConfig().replace(**table)
        except ConfigError as exc:
            raise ProfileError(f"profile {self.name}: [config] {exc}") from None
        return dict(table)

    def configure(self, config, explicit=()) -> tuple[Any, dict[str, Any]]:
        """Return (config with this profile's era defaults, the defaults applied).

        Keys named in ``explicit`` (set by the user: ``--set``, a daemon TOML)
        keep their value; every other key of ``[config]`` takes the profile's.
        """
        applied = {k: v for k, v in self.config_defaults().items() if k not in set(explicit)}
        return (config.replace(**applied) if applied else config), applied

    # -- access ----------------------------------------------------------------
    def __getitem__(self, table: str) -> dict:
        return self.data[table]

    def get(self, table: str, key: str, default=None):
        """Return ``table.key`` or ``default``."""
        return self.data.get(table, {}).get(key, default)

    def replace(self, **tables) -> "Profile":
        """Return a copy with some values changed: ``replace(gpu={"ntt_h_s": 0.3})``."""
        data = copy.deepcopy(self.data)
        for table, values in tables.items():
            if table not in data or not isinstance(values, dict):
                raise ProfileError(f"replace: unknown table {table!r}; tables: {sorted(data)}")
            _check_removed({table: values}, self.name)
            data[table].update(values)
        _derive(data)
        prof = Profile(name=self.name + "*", data=data, source=self.source)
        prof.validate()
        return prof

    @property
    def phase(self) -> int:
        """Return the cuzk phase this profile describes."""
        return int(self.data.get("phase", 12))

    def gpu_kernels_s(self) -> float:
        """Return the solo seconds of the GPU kernels per partition (ntt_h, batch_add, tail_msm)."""
        g = self.data["gpu"]
        return g["ntt_h_s"] + g["overhead_s"] + g["batch_add_s"] + g["tail_msm_s"]

    def gpu_region_s(self) -> float:
        """Return the solo seconds a partition holds the GPU mutex (set-up, upload, kernels)."""
        g = self.data["gpu"]
        h2d = (self.data["partition"]["abc_upload_gib"] * 2**30 / 1e9
               / self.data["partition"]["abc_upload_gbps"]) + self.data["gpu"].get("in_lock_setup_s", 0.0)
        return h2d + g["ntt_h_s"] + g["overhead_s"] + g["batch_add_s"] + g["tail_msm_s"]

    def b_g2_solo_s(self, threads: int) -> float:
        """Return b_g2_msm's solo seconds on a pool of ``threads`` threads."""
        b = self.data["b_g2_msm"]
        cores = self.data["node"]["cores"]
        hi_t, lo_t = cores, min(32, cores)
        hi_w = b["solo_s_at_all_cores"] * hi_t
        lo_w = b["solo_s_at_32"] * lo_t
        if hi_t == lo_t:
            work = hi_w
        else:
            frac = (min(max(threads, 1), hi_t) - lo_t) / (hi_t - lo_t)
            work = lo_w + (hi_w - lo_w) * frac
        return max(work, 1e-9) / max(threads, 1)

    def b_g2_call(self, threads: int) -> tuple[float, float]:
        """Return (seconds on one core, thread-seconds on the pool) of one b_g2_msm call.

        With ``b_g2_msm.pool_core_s`` (its pool measured under load): ``serial_s``
        and ``pool_core_s``; without: nothing serial, and the solo time on a pool of
        ``threads`` threads times those threads.
        """
        b = self.data["b_g2_msm"]
        if "pool_core_s" in b:
            return b.get("serial_s", 0.0), b["pool_core_s"]
        return 0.0, self.b_g2_solo_s(threads) * threads

    def b_g2_pool_step(self, threads: int) -> tuple[float, float, float]:
        """Return (seconds on one core, thread-seconds on the pool, the pool part's width)
        of one b_g2_msm call on a pool of ``threads``.

        ``b_g2_call``'s two parts; with ``b_g2_msm.pool_width`` (the mean number of its
        threads inside its window tasks in a call alone, measured) below ``threads``, the
        pool part asks that many threads, its thread-seconds scaled so that a call alone
        takes the same time: the cores its tasks leave idle are free for other threads.
        """
        ser, work = self.b_g2_call(threads)
        width = float(threads)
        pw = self.data["b_g2_msm"].get("pool_width")
        if pw and 0 < pw < threads:
            work, width = work * pw / threads, float(pw)
        return ser, work, width

    def kinds(self) -> dict:
        """Return the proof kinds this profile's node serves (``cuzklab.model.kinds``)."""
        from .kinds import kinds_for
        return kinds_for(self)

    def for_kind(self, kind: str) -> "Profile":
        """Return the per-partition profile of proof kind ``kind`` (PoRep: this one)."""
        from .kinds import KIND_NAMES, kind_profile
        kinds = self.kinds()
        if kind not in kinds:
            raise ProfileError(f"unknown proof kind {kind!r}; kinds: {', '.join(KIND_NAMES)}")
        return kind_profile(self, kinds[kind])

    def to_dict(self) -> dict:
        """Return the profile's values as a plain dict."""
        return copy.deepcopy(self.data)


def _check_removed(raw: dict, name: str) -> None:
    for (table, key), why in _REMOVED.items():
        if isinstance(raw.get(table), dict) and key in raw[table]:
            raise ProfileError(f"profile {name}: {table}.{key} is not a profile key: {why}")


def _deep_merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _resolve(name_or_path) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists() or os.sep in str(name_or_path):
        if not p.exists():
            raise ProfileError(f"profile file not found: {p}")
        return p
    cand = profiles_dir() / f"{name_or_path}.toml"
    if not cand.exists():
        raise ProfileError(f"unknown profile {name_or_path!r}; known profiles: "
                           f"{', '.join(list_profiles()) or '(none)'}")
    return cand


def _load_raw(name_or_path, seen: tuple) -> tuple[dict, str]:
    path = _resolve(name_or_path)
    if str(path) in seen:
        raise ProfileError(f"profile {path.stem}: 'extends' forms a cycle")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"profile {path}: not valid TOML: {exc}") from exc
    base_name = raw.pop("extends", None)
    if base_name:
        base, _ = _load_raw(base_name, seen + (str(path),))
        raw = _deep_merge(base, raw)
    return raw, str(path)
