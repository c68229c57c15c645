"""The tuner's search space: a node, the knobs of one configuration, which are valid.

A :class:`Node` is what the operator has (RAM, GPUs, cores, VRAM) and the
memory margin to keep free. A :class:`Knobs` is one point of the space: the
lock strategy, the admission rule, partition workers, GPU workers per device,
``gpu_threads``, proofs in flight and the admission budget. The coarse grid
(:func:`coarse_grid`) spans the space at a few values per knob, bounded by
what the node's memory can hold; :func:`neighbors` gives the points one step
away, for local refinement; :func:`invalid_reason` says why a point cannot
run on the node (too little VRAM for ``two_lock``, a pool larger than the
cores, a budget reservation that can never fit) before anything is simulated.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from ..errors import ConfigError
from ..model.config import LOCKS, PipelineConfig
from ..model.profile import Profile

# Partition workers tried by the coarse grid (roughly x1.4 apart; refinement fills the gaps).
PW_COARSE = (1, 2, 3, 5, 7, 10, 14, 20, 28, 40, 56)
# gpu_threads values the refinement steps through (0 = all cores, after the largest).
# cuzk recommends 32 (phase 11: 38.0 -> 36.7 s/proof); the others bracket it.
GPU_THREADS_STEPS = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256)
# The pool size every coarse point uses: cuzk's recommendation (reference: gpu_threads=32).
GPU_THREADS_COARSE = 32
# GPU workers per device: cuzk measured 1 to 4 (phase 11: gw=3 37.2, gw=4 37.4 s/proof).
GW_MAX = 4
# Proofs in flight the refinement steps through when the client's concurrency is free.
CONCURRENCY_STEPS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 64)
# Admission rules the tuner searches. ``semaphore_prefix`` is the phase 12 pile-up
# bug (the permit dropped before the hand-off): a daemon behaviour, never a choice.
ADMISSIONS = ("semaphore", "budget")
OBJECTIVES = ("throughput", "latency")


@dataclass(frozen=True)
class Node:
    """The machine being tuned for: RAM, GPUs, cores and VRAM, and the RAM kept free."""

    memory_gib: float
    gpus: int = 1
    cores: int | None = None      # None: the profile's
    vram_gib: float | None = None  # None: the profile's
    margin_gib: float = 16.0

    def __post_init__(self):
        for key in ("memory_gib", "margin_gib"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ConfigError(key, f"must be a finite number of GiB, got {v!r}")
        if self.memory_gib <= 0:
            raise ConfigError("memory_gib", f"must be > 0 GiB, got {self.memory_gib}")
        if self.margin_gib < 0:
            raise ConfigError("margin_gib", f"must be >= 0 GiB, got {self.margin_gib}")
        if self.margin_gib >= self.memory_gib:
            raise ConfigError("margin_gib", f"must be less than memory_gib ({self.memory_gib:g} "
                                            f"GiB), got {self.margin_gib:g}")
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or not 1 <= self.gpus <= 64:
            raise ConfigError("gpus", f"must be an integer from 1 to 64, got {self.gpus!r}")
        if self.cores is not None and (isinstance(self.cores, bool) or not isinstance(self.cores, int)
                                       or not 1 <= self.cores <= 4096):
            raise ConfigError("cores", f"must be an integer from 1 to 4096, got {self.cores!r}")
        if self.vram_gib is not None and (isinstance(self.vram_gib, bool)
                                          or not isinstance(self.vram_gib, (int, float))
                                          or not 0.1 <= self.vram_gib <= 1e4):
            raise ConfigError("vram_gib", f"must be a number of GiB from 0.1 to 10000, "
                                          f"got {self.vram_gib!r}")

    @property
    def limit_gib(self) -> float:
        """Return the peak RSS a recommendation may reach: RAM minus the margin."""
        return self.memory_gib - self.margin_gib

    def apply(self, profile: Profile) -> Profile:
        """Return ``profile`` with this node's cores and VRAM (where given) in place of its own."""
        changes = {}
        if self.cores is not None:
            changes["cores"] = self.cores
        if self.vram_gib is not None:
            changes["vram_gib"] = float(self.vram_gib)
        return profile.replace(node=changes) if changes else profile

    def to_dict(self) -> dict:
        """Return the node as a plain dict (with the memory limit)."""
        return {**asdict(self), "limit_gib": self.limit_gib}


@dataclass(frozen=True, order=True)
class Knobs:
    """One configuration of the space (the keys a daemon operator chooses)."""

    lock: str = "split_async"
    admission: str = "semaphore"
    partition_workers: int = 1
    gpu_workers_per_device: int = 2
    gpu_threads: int = GPU_THREADS_COARSE
    concurrency: int = 1
    budget_gib: float = 0.0   # admission budget (0 = cuzk's auto: RAM - 5 GiB)

    def config(self, node: Node, proofs: int, seed: int = 0) -> PipelineConfig:
        """Return the PipelineConfig of these knobs on ``node`` for ``proofs`` proofs."""
        return PipelineConfig(proofs=proofs, concurrency=self.concurrency,
                              partition_workers=self.partition_workers,
                              admission=self.admission, gpus=node.gpus,
                              gpu_workers_per_device=self.gpu_workers_per_device,
                              gpu_threads=self.gpu_threads, lock=self.lock,
                              memory_gib=float(node.memory_gib), budget_gib=self.budget_gib,
                              seed=seed)

    def label(self) -> str:
        """Return a short readable name: ``split_async pw=7 gw=2 gt=32 j=2 semaphore``."""
        gt = "all" if self.gpu_threads == 0 else str(self.gpu_threads)
        text = (f"{self.lock} pw={self.partition_workers} gw={self.gpu_workers_per_device} "
                f"gt={gt} j={self.concurrency}")
        text += f" {self.admission}"
        if self.admission == "budget" and self.budget_gib > 0:
            text += f"={self.budget_gib:g}GiB"
        return text

    def to_dict(self) -> dict:
        """Return the knobs as a plain dict."""
        return asdict(self)

    def diff(self, other: "Knobs") -> str:
        """Return what differs from ``other``, e.g. ``pw 7->8, gw 2->1`` (empty if nothing)."""
        short = {"partition_workers": "pw", "gpu_workers_per_device": "gw",
                 "gpu_threads": "gt", "concurrency": "j", "budget_gib": "budget"}
        out = []
        for key, value in asdict(self).items():
            theirs = getattr(other, key)
            if value != theirs:
                out.append(f"{short.get(key, key)} {_fmt(theirs)}->{_fmt(value)}")
        return ", ".join(out)


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


@dataclass(frozen=True)
class Space:
    """What the search may choose, given a node, a profile and the workload."""

    node: Node
    profile: Profile
    proofs: int = 20
    concurrency: int | None = None          # None: the tuner chooses proofs in flight
    locks: tuple[str, ...] = LOCKS
    objective: str = "throughput"

    # -- memory facts of the profile --------------------------------------------------
    @property
    def base_gib(self) -> float:
        """Return the resident memory: SRS + PCE + runtime."""
        m = self.profile["memory"]
        return m["srs_gib"] + m["pce_gib"] + m["runtime_gib"]

    @property
    def partition_gib(self) -> float:
        """Return a synthesized partition's output held until the GPU takes it (a/b/c + aux)."""
        p = self.profile["partition"]
        return p["abc_gib"] + p["aux_gib"]

    @property
    def partitions(self) -> int:
        """Return the partitions of one proof."""
        return PipelineConfig().partitions

    def budget_partitions(self, budget_gib: float) -> int:
        """Return how many partitions a budget admits at once (its per-partition reservation)."""
        m = self.profile["memory"]
        total = budget_gib if budget_gib > 0 else self.node.memory_gib - m["safety_margin_gib"]
        return max(0, int((total - self.base_gib) // m["budget_reserve_gib"]))

    def pw_cap(self) -> int:
        """Return the most partition workers worth trying on this node.

        One past the ideal count that fits under the limit (each synthesis holding
        only its finished output, no scratch), so the grid shows where the front
        ends, or what the auto budget admits, whichever is more; never more
        partitions than can be in flight.
        """
        room = self.node.limit_gib - self.base_gib
        ideal = int(room // self.partition_gib) + 1 if room > 0 else 1
        cap = max(1, ideal, self.budget_partitions(0.0))
        return max(1, min(cap, self.max_inflight_partitions(), 64))

    def max_inflight_partitions(self) -> int:
        """Return the partitions that can be in flight (proofs in flight x partitions)."""
        j = self.concurrency or self.proofs
        return j * self.partitions

    # -- the knobs ------------------------------------------------------------------------
    def default_concurrency(self, pw: int, lock: str = "split_async") -> int:
        """Return proofs in flight for ``pw`` workers: enough to keep them all busy, plus one."""
        if self.concurrency is not None:
            return self.concurrency
        if lock == "monolithic":
            need = max(1, pw // self.partitions) + 1
        else:
            need = math.ceil(pw / self.partitions) + 1
        return max(1, min(self.proofs, need))

    def gpu_threads_steps(self) -> tuple[int, ...]:
        """Return the gpu_threads values that fit the cores, then 0 (all cores)."""
        cores = int(self.profile["node"]["cores"])
        return tuple(t for t in GPU_THREADS_STEPS if t < cores) + (0,)

    def coarse_grid(self) -> list[Knobs]:
        """Return the coarse grid: every lock x a ladder of pw, both admissions, valid only."""
        cap = self.pw_cap()
        pws = [p for p in PW_COARSE if p <= cap]
        if cap not in pws and cap > pws[-1]:
            pws.append(cap)
        gt = GPU_THREADS_COARSE if GPU_THREADS_COARSE < self.profile["node"]["cores"] else 0
        out: list[Knobs] = []
        for lock in self.locks:
            gw = 2 if self._gw_fits(lock, 2) else 1
            if lock == "monolithic":
                lock_pws = sorted({max(self.partitions, p - p % self.partitions) for p in pws
                                   if p >= self.partitions} or {self.partitions})
            else:
                lock_pws = pws
            for pw in lock_pws:
                js = {self.default_concurrency(pw, lock)}
                if self.objective == "latency" and self.concurrency is None:
                    js.add(1)
                for j in sorted(js):
                    out.append(Knobs(lock, "semaphore", pw, gw, gt, j))
                    if lock == "split_async":
                        out.append(Knobs(lock, "budget", pw, gw, gt, j))
        return self.valid(out)

    def neighbors(self, k: Knobs) -> list[Knobs]:
        """Return the valid points one step from ``k`` along each knob."""
        step = self.partitions if k.lock == "monolithic" else 1
        cand = [replace(k, partition_workers=k.partition_workers + d)
                for d in (-2 * step, -step, step, 2 * step)]
        cand += [replace(k, gpu_workers_per_device=k.gpu_workers_per_device + d) for d in (-1, 1)]
        gts = self.gpu_threads_steps()
        if k.gpu_threads in gts:
            i = gts.index(k.gpu_threads)
            cand += [replace(k, gpu_threads=gts[i + d]) for d in (-1, 1) if 0 <= i + d < len(gts)]
        if k.admission == "semaphore":
            cand.append(replace(k, admission="budget", budget_gib=0.0))
        else:
            cand.append(replace(k, admission="semaphore", budget_gib=0.0))
            # cuzk's auto budget is RAM - 5 GiB; a budget at the tuner's limit keeps the margin
            limit = round(self.node.limit_gib, 1)
            cand.append(replace(k, budget_gib=0.0 if k.budget_gib > 0 else limit))
        if self.concurrency is None:
            js = tuple(j for j in CONCURRENCY_STEPS if j < self.proofs) + (self.proofs,)
            below = [j for j in js if j < k.concurrency]
            above = [j for j in js if j > k.concurrency]
            if below:
                cand.append(replace(k, concurrency=below[-1]))
            if above:
                cand.append(replace(k, concurrency=above[0]))
        return self.valid(cand)

    def valid(self, knobs) -> list[Knobs]:
        """Return the valid, distinct ``knobs`` in a fixed order."""
        return sorted({k for k in knobs if self.invalid_reason(k) is None})

    def smallest(self) -> Knobs:
        """Return the configuration that needs the least memory: one synthesis, one worker."""
        lock = "split_async" if "split_async" in self.locks else self.locks[0]
        pw = self.partitions if lock == "monolithic" else 1
        gt = GPU_THREADS_COARSE if GPU_THREADS_COARSE < self.profile["node"]["cores"] else 0
        return Knobs(lock, "semaphore", pw, 1, gt, self.concurrency or 1)

    def _gw_fits(self, lock: str, gw: int) -> bool:
        vram = self.profile["node"]["vram_gib"]
        need = self.profile["partition"]["device_buffers_gib"] * (gw if lock == "two_lock" else 1)
        return need <= vram

    def invalid_reason(self, k: Knobs) -> str | None:
        """Return why ``k`` cannot run on this node (None when it can)."""
        if k.lock not in self.locks:
            return f"lock {k.lock} is not searched"
        if not 1 <= k.gpu_workers_per_device <= GW_MAX:
            return f"gpu_workers_per_device must be 1..{GW_MAX}"
        if k.partition_workers < 1 or k.partition_workers > 64:
            return "partition_workers must be 1..64"
        if not 1 <= k.concurrency <= self.proofs:
            return f"concurrency must be 1..{self.proofs} (proofs)"
        if self.concurrency is not None and k.concurrency != self.concurrency:
            return f"concurrency is fixed at {self.concurrency}"
        if k.partition_workers > k.concurrency * self.partitions:
            return (f"{k.partition_workers} partition workers but only "
                    f"{k.concurrency * self.partitions} partitions in flight")
        if k.lock == "monolithic" and k.partition_workers % self.partitions:
            return f"monolithic synthesizes whole proofs: pw must be a multiple of {self.partitions}"
        cores = int(self.profile["node"]["cores"])
        if k.gpu_threads > cores:
            return f"gpu_threads {k.gpu_threads} > {cores} cores"
        if k.gpu_threads < 0:
            return "gpu_threads must be >= 0"
        if not self._gw_fits(k.lock, k.gpu_workers_per_device):
            per = self.profile["partition"]["device_buffers_gib"]
            n = k.gpu_workers_per_device if k.lock == "two_lock" else 1
            return (f"device buffers {per * n:g} GiB > VRAM {self.profile['node']['vram_gib']:g} GiB"
                    + (" (two_lock keeps a set per worker)" if k.lock == "two_lock" else ""))
        if k.admission not in ADMISSIONS:
            return f"admission must be one of {', '.join(ADMISSIONS)}"
        if k.admission != "budget" and k.budget_gib:
            return "budget_gib applies only to admission=budget"
        if k.admission == "budget":
            if k.budget_gib > self.node.memory_gib:
                return "budget above RAM"
            need = 1 if k.lock != "monolithic" else self.partitions
            if self.budget_partitions(k.budget_gib) < need:
                return "a partition's budget reservation can never fit (cuzk would block forever)"
        return None
