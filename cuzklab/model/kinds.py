"""Proof kinds: every proof cuzk serves, its circuit, SRS/PCE sizes and priority.

The newest cuzk daemon serves PoRep C2, SnapDeals, WindowPoSt and WinningPoSt
(32 GiB sectors) from the same GPUs, RAM and CPU. :data:`KINDS` holds each
kind's published figures, every one with its provenance in ``provenance``:

- "cuzk-project §3" is the circuit table of cuzk's project notes (Curio
  repository, ``extern/cuzk/cuzk-project.md``: constraints, FFT domain,
  partitions, priority);
- "memory-manager §N" is cuzk's memory-manager specification
  (``extern/cuzk/cuzk-memory-manager.md``: SRS and PCE sizes, §1.3-1.4; the
  per-partition budget estimates, §6);
- "profile" is the PoRep profile's own value (``data/profiles/porep-32g.toml``).

Where the notes disagree the value used is named and the other given beside it.
A kind's stage costs are not published except for WinningPoSt (0.8 s in all,
GPU 666 ms, synthesis 52 ms); :func:`kind_profile` scales the PoRep profile's
per-partition costs by the constraint count (buffers, synthesis, MSMs) and by
``N log N`` of the FFT domain (the NTTs), and uses the published figures where
there are some. A profile may override any field of a kind in a
``[kinds.<name>]`` table.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, fields, replace

from ..errors import ProfileError

KIND_NAMES = ("porep-c2", "snap-deals", "window-post", "winning-post")
# cuzk's scheduler priorities, most urgent first (cuzk-project §2, proto Priority).
PRIORITIES = ("critical", "high", "normal", "low")
# The kinds whose Curio tasks are time-sensitive (Curio, tasks/window/compute_task.go and
# tasks/winning/winning_task.go: ``TimeSensitive: true``): when a slot of Curio's in-flight
# limit to the daemon frees, harmonytask tries them first (its waterfall puts time-sensitive
# task types ahead, oldest first). They cannot pre-empt for such a slot: Curio's
# pre-emption frees CPU, RAM and GPU, not the limit.
CLIENT_TIME_SENSITIVE = ("window-post", "winning-post")


@dataclass(frozen=True)
class ProofKind:
    """One proof kind's circuit, memory and scheduling facts (see the module docstring)."""

    name: str
    priority: str              # critical, high, normal, low
    partitions: int            # partitions (circuits) per proof
    constraints: int           # constraints per partition
    domain_log2: int           # FFT domain 2^k
    srs_gib: float             # SRS in pinned host memory
    pce_gib: float             # pre-compiled circuit in memory
    reserve_gib: float         # budget reserved per partition before synthesis
    release_gpu_gib: float     # of it, released after prove_start (a/b/c freed)
    deadline_s: float | None = None   # latency from arrival the proof must meet
    synth_s: float | None = None      # measured solo synthesis per partition (None: scaled)
    gpu_s: float | None = None        # measured GPU region per partition (None: scaled)
    provenance: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def rank(self) -> int:
        """Return the priority rank (0 = critical, the most urgent)."""
        return PRIORITIES.index(self.priority)

    @property
    def resident_gib(self) -> float:
        """Return the GiB its SRS and PCE hold while resident."""
        return self.srs_gib + self.pce_gib

    @property
    def batchable(self) -> bool:
        """Return True for kinds the batch collector may group (NORMAL priority)."""
        return self.priority == "normal"


_NUMERIC = {f.name for f in fields(ProofKind)} - {"name", "priority", "provenance"}


def _builtin(profile) -> dict[str, ProofKind]:
    part = profile["partition"]
    mem = profile["memory"]
    porep = ProofKind(
        name="porep-c2", priority="normal", partitions=10,
        constraints=int(part.get("constraints", 130_278_869)), domain_log2=27,
        srs_gib=float(mem["srs_gib"]), pce_gib=float(mem["pce_gib"]),
        reserve_gib=float(mem["budget_reserve_gib"]),
        release_gpu_gib=float(mem["budget_release_gpu_gib"]),
        provenance={
            "priority": "cuzk-project §3: PoRep C2 NORMAL",
            "partitions": "cuzk-project §3: 10 partitions",
            "constraints": "profile partition.constraints (cuzk: 130,278,869 a partition)",
            "domain_log2": "cuzk-project §3: FFT domain 2^27",
            "srs_gib": "profile memory.srs_gib (memory-manager §1.3: ~44 GiB; file ~47 GiB)",
            "pce_gib": "profile memory.pce_gib (memory-manager §1.4: ~26 GiB)",
            "reserve_gib": "profile memory.budget_reserve_gib (memory-manager §6: 14 GiB)",
            "release_gpu_gib": "profile memory.budget_release_gpu_gib (memory-manager §6: 13 GiB)",
            "deadline_s": "none: no protocol deadline on the proving itself",
        })
    snap = ProofKind(
        name="snap-deals", priority="normal", partitions=16, constraints=81_000_000,
        domain_log2=27, srs_gib=33.0, pce_gib=17.0, reserve_gib=9.0, release_gpu_gib=8.0,
        provenance={
            "priority": "cuzk-project §3: SnapDeals NORMAL",
            "partitions": "cuzk-project §3: 16 partitions (memory-manager §6 says 1)",
            "constraints": "cuzk-project §3 and memory-manager §6: ~81M",
            "domain_log2": "cuzk-project §3: 2^27",
            "srs_gib": "memory-manager §1.3: ~33 GiB pinned (cuzk-project §3: ~626 MB file)",
            "pce_gib": "memory-manager §1.4: ~17 GiB",
            "reserve_gib": "memory-manager §6: SNAP_PARTITION_FULL 9 GiB (~8.6 rounded up)",
            "release_gpu_gib": "memory-manager §6: SNAP_PARTITION_ABC 8 GiB",
            "deadline_s": "none",
        })
    wpost = ProofKind(
        name="window-post", priority="high", partitions=1, constraints=125_000_000,
        domain_log2=27, srs_gib=57.0, pce_gib=26.0, reserve_gib=14.0, release_gpu_gib=13.0,
        deadline_s=1800.0,
        provenance={
            "priority": "cuzk-project §3: WindowPoSt HIGH",
            "partitions": "cuzk-project §3: one request per WindowPoSt partition",
            "constraints": "cuzk-project §3 and memory-manager §6: ~125M",
            "domain_log2": "cuzk-project §3: 2^27",
            "srs_gib": "memory-manager §1.3: ~57 GiB (cuzk-project §3: multi-GiB, VK 2.4 MB; "
                       "§9: ~5 GiB file, estimated)",
            "pce_gib": "memory-manager §1.4: ~26 GiB",
            "reserve_gib": "memory-manager §6: WPOST_FULL 14 GiB (~13.2 rounded up)",
            "release_gpu_gib": "memory-manager §6: WPOST_ABC 13 GiB",
            "deadline_s": "Filecoin: a deadline's challenge window is 60 epochs of 30 s = 30 min "
                          "(cuzk notes: ~30 min window)",
        })
    winning = ProofKind(
        name="winning-post", priority="critical", partitions=1, constraints=3_500_000,
        domain_log2=22, srs_gib=184 / 1024, pce_gib=0.4, reserve_gib=0.5,
        release_gpu_gib=0.25, deadline_s=30.0, synth_s=0.052, gpu_s=0.666,
        provenance={
            "priority": "cuzk-project §3: WinningPoSt CRITICAL",
            "partitions": "cuzk-project §3: 1",
            "constraints": "cuzk-project §3 and memory-manager §6: ~3.5M",
            "domain_log2": "cuzk-project §3: 2^22",
            "srs_gib": "memory-manager §1.3: ~184 MiB (cuzk-project §3: ~11 MB)",
            "pce_gib": "memory-manager §1.4: ~0.4 GiB",
            "reserve_gib": "memory-manager §6: WINNING_FULL 0.5 GiB",
            "release_gpu_gib": "memory-manager §6: WINNING_ABC 0.25 GiB",
            "deadline_s": "cuzk notes: must finish within ~30 s (one epoch)",
            "synth_s": "cuzk: one WinningPoSt measured 0.8 s in all, synthesis 52 ms",
            "gpu_s": "cuzk: one WinningPoSt measured 0.8 s in all, GPU 666 ms",
        })
    return {k.name: k for k in (porep, snap, wpost, winning)}


def kinds_for(profile) -> dict[str, ProofKind]:
    """Return the proof kinds of ``profile``: the built-in figures, then its ``[kinds.*]``."""
    kinds = _builtin(profile)
    table = profile.data.get("kinds", {})
    if not isinstance(table, dict):
        raise ProfileError(f"profile {profile.name}: [kinds] must be a table of kinds")
    for name, over in table.items():
        if name not in kinds:
            raise ProfileError(f"profile {profile.name}: [kinds.{name}] is not a proof kind; "
                               f"kinds: {', '.join(KIND_NAMES)}")
        if not isinstance(over, dict):
            raise ProfileError(f"profile {profile.name}: [kinds.{name}] must be a table")
        for key, value in over.items():
            if key == "priority":
                if value not in PRIORITIES:
                    raise ProfileError(f"profile {profile.name}: kinds.{name}.priority must be "
                                       f"one of {', '.join(PRIORITIES)}, got {value!r}")
                continue
            if key not in _NUMERIC:
                raise ProfileError(f"profile {profile.name}: kinds.{name}.{key} is not a kind "
                                   f"field; fields: priority, {', '.join(sorted(_NUMERIC))}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ProfileError(f"profile {profile.name}: kinds.{name}.{key} must be a "
                                   f"number >= 0, got {value!r}")
        prov = {**kinds[name].provenance, **{k: f"profile {profile.name} [kinds.{name}]"
                                             for k in over}}
        kinds[name] = replace(kinds[name], **over, provenance=prov)
        k = kinds[name]
        if k.partitions < 1 or k.constraints < 1 or not 10 <= k.domain_log2 <= 32:
            raise ProfileError(f"profile {profile.name}: kinds.{name} needs partitions >= 1, "
                               f"constraints >= 1 and domain_log2 in [10, 32]")
    return kinds


def kind_profile(profile, kind: ProofKind):
    """Return the per-partition profile of ``kind``: PoRep's costs scaled to its circuit.

    Sizes and CPU work scale with the constraint count r = constraints /
    PoRep's; ntt_h with the domain's N log N; the in-lock set-up (a device
    allocation) with the buffer size; the fixed costs (pre-lock set-up,
    hand-off, MSM overhead, epilogue) stay. A measured synthesis or GPU time
    replaces the scaled one. PoRep's own kind gives ``profile`` itself.
    """
    from .profile import Profile
    base_c = float(profile["partition"].get("constraints", 130_278_869))
    if (kind.name == "porep-c2" and kind.constraints == base_c
            and kind.srs_gib == profile["memory"]["srs_gib"]
            and kind.pce_gib == profile["memory"]["pce_gib"]
            and kind.reserve_gib == profile["memory"]["budget_reserve_gib"]
            and kind.release_gpu_gib == profile["memory"]["budget_release_gpu_gib"]
            and kind.synth_s is None and kind.gpu_s is None):
        return profile
    r = kind.constraints / base_c
    n, n0 = 2.0 ** kind.domain_log2, 2.0 ** 27
    ntt_r = (n * kind.domain_log2) / (n0 * 27)
    d = copy.deepcopy(profile.data)
    part = d["partition"]
    part["constraints"] = kind.constraints
    for key in ("abc_gib", "aux_gib", "abc_upload_gib", "device_buffers_gib"):
        part[key] = part[key] * r
    mem = d["memory"]
    mem.update(srs_gib=kind.srs_gib, pce_gib=kind.pce_gib, budget_reserve_gib=kind.reserve_gib,
               budget_release_gpu_gib=min(kind.release_gpu_gib, kind.reserve_gib))
    syn = d["synth"]
    if kind.synth_s is not None:
        syn["work_core_s"] = max(kind.synth_s * syn["max_threads"], 1e-6)
    else:
        syn["work_core_s"] = syn["work_core_s"] * r
    syn["scratch_gib"] = syn.get("scratch_gib", 0.0) * r
    d["prep_msm"]["solo_s"] *= r
    d["b_g2_msm"]["solo_s_at_all_cores"] *= r
    d["b_g2_msm"]["solo_s_at_32"] *= r
    g = d["gpu"]
    g["ntt_h_s"] *= ntt_r
    g["batch_add_s"] *= r
    g["tail_msm_s"] *= r
    for key in ("ntt_h_host_gib", "batch_add_host_gib", "tail_msm_host_gib"):
        g[key] = g.get(key, 0.0) * r
    # the in-lock set-up is mostly the device allocation of the a/b/c buffers
    # (porep-32g.toml: "a 12 GiB device allocation"): it scales with their size
    g["in_lock_setup_s"] = g.get("in_lock_setup_s", 0.0) * r
    if kind.gpu_s is not None:
        # a measured GPU region: everything in the lock but the upload takes its share
        upload = part["abc_upload_gib"] * 2**30 / 1e9 / part["abc_upload_gbps"]
        parts = ("in_lock_setup_s", "overhead_s", "ntt_h_s", "batch_add_s", "tail_msm_s")
        scaled = sum(g[key] for key in parts)
        if kind.gpu_s > upload and scaled > 0:
            f = (kind.gpu_s - upload) / scaled
            for key in parts:
                g[key] *= f
    d["kind"] = kind.name
    prof = Profile(name=f"{profile.name}:{kind.name}", data=d, source=profile.source)
    prof.validate()
    return prof


def load_seconds(gib: float, rate_gib_s: float) -> float:
    """Return the seconds to load ``gib`` at ``rate_gib_s`` (0 for nothing to load)."""
    return 0.0 if gib <= 0 else gib / rate_gib_s if rate_gib_s > 0 else math.inf


# Load rates of the SRS and PCE, from cuzk's figures for PoRep's 44 GiB SRS and
# 26 GiB PCE: a cold SRS load (disk, deserialize, cudaHostAlloc) 30-90 s, a warm
# one (file in the OS page cache, re-pin) 2-10 s (cuzk-project §5), a PCE
# reload ~5 s (memory-manager §2.4); the middles of those ranges, per GiB.
SRS_COLD_GIB_S = 44.0 / 60.0
SRS_WARM_GIB_S = 44.0 / 6.0
PCE_GIB_S = 26.0 / 5.0
LOAD_PROVENANCE = {
    "srs_cold_gib_s": "cuzk-project §5: cold SRS load 30-90 s for PoRep's 44 GiB (60 s used)",
    "srs_warm_gib_s": "cuzk-project §5: warm (mmap'd, page cache) 2-10 s (6 s used)",
    "pce_gib_s": "memory-manager §2.4: PCE reload from disk ~5 s for ~26 GiB",
}


def residency_rates(profile) -> dict[str, float]:
    """Return the SRS/PCE load rates (GiB/s): the defaults above, or the profile's ``[residency]``."""
    table = profile.data.get("residency", {})
    out = {"srs_cold_gib_s": SRS_COLD_GIB_S, "srs_warm_gib_s": SRS_WARM_GIB_S,
           "pce_gib_s": PCE_GIB_S}
    for key, value in table.items():
        if key not in out:
            raise ProfileError(f"profile {profile.name}: residency.{key} is not a load rate; "
                               f"rates: {', '.join(out)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ProfileError(f"profile {profile.name}: residency.{key} must be a number > 0 "
                               f"(GiB/s), got {value!r}")
        out[key] = float(value)
    return out
