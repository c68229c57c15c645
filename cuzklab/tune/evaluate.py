"""One evaluation of the tuner: a configuration simulated under one scenario.

A scenario is a seed and, optionally, one stage's cost moved by a factor
(``("synth", 1.1)``: synthesis takes 10 % longer). :data:`STAGE_COSTS` says
which profile values make up each stage's cost. :func:`evaluate_job` is the
function the executors run (in this process, a process pool or on a Dask
worker): it takes a plain dict and returns one, so jobs travel anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.config import PipelineConfig
from ..model.profile import Profile

# The profile values that make up each stage's cost, and how a cost factor f applies:
# "time" values are multiplied by f, "rate" values divided by it (a 10 % slower upload
# is a 10 % lower rate). Stage names are the trace's; "setup" is the GPU worker's CPU
# set-up around the mutex (cuzk's pre_lock_cpu_ms and the in-lock pool trim and
# allocation), which has no canonical stage of its own.
STAGE_COSTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "synth": (("synth", "work_core_s", "time"),),
    "prep_msm": (("prep_msm", "solo_s", "time"),),
    "setup": (("gpu", "pre_lock_s", "time"), ("gpu", "in_lock_setup_s", "time")),
    "h2d": (("partition", "abc_upload_gbps", "rate"),),
    "ntt_h": (("gpu", "ntt_h_s", "time"), ("gpu", "overhead_s", "time")),
    "batch_add": (("gpu", "batch_add_s", "time"),),
    "tail_msm": (("gpu", "tail_msm_s", "time"),),
    "b_g2_msm": (("b_g2_msm", "solo_s_at_all_cores", "time"), ("b_g2_msm", "solo_s_at_32", "time")),
    "epilogue": (("epilogue", "solo_s", "time"),),
}


@dataclass(frozen=True, order=True)
class Scenario:
    """A seed and an optional cost move: ``stage``'s cost times ``factor``."""

    seed: int = 0
    stage: str = ""
    factor: float = 1.0

    def label(self) -> str:
        """Return ``seed 1`` or ``synth -10 %``."""
        if not self.stage:
            return f"seed {self.seed}"
        return f"{self.stage} {100 * (self.factor - 1):+.0f} %"

    def to_dict(self) -> dict:
        """Return the scenario as a plain dict."""
        return {"seed": self.seed, "stage": self.stage or None, "factor": self.factor}


def moved_profile(profile: Profile, stage: str, factor: float) -> Profile:
    """Return ``profile`` with ``stage``'s cost multiplied by ``factor``."""
    if stage not in STAGE_COSTS:
        raise ValueError(f"stage must be one of {', '.join(STAGE_COSTS)}, got {stage!r}")
    if not factor > 0:
        raise ValueError(f"factor must be > 0, got {factor!r}")
    tables: dict[str, dict] = {}
    for table, key, kind in STAGE_COSTS[stage]:
        v = profile[table][key]
        tables.setdefault(table, {})[key] = v * factor if kind == "time" else v / factor
    moved = profile.replace(**tables)
    return Profile(name=profile.name, data=moved.data, source=profile.source)


def scenario_profile(profile: Profile, scenario: Scenario) -> Profile:
    """Return the profile a scenario runs on."""
    if not scenario.stage or scenario.factor == 1.0:
        return profile
    return moved_profile(profile, scenario.stage, scenario.factor)


def make_job(job_id: str, config: PipelineConfig, profile: Profile) -> dict:
    """Return a job for :func:`evaluate_job`: plain data that pickles and travels."""
    return {"id": job_id, "config": config.to_dict(), "profile_name": profile.name,
            "profile": profile.to_dict()}


def evaluate_job(job: dict) -> dict:
    """Simulate one job and return ``{id, status, metrics}`` (status ``ok`` or ``crashed``)."""
    from ..sim.daemon import DaemonModel
    try:
        profile = Profile(name=job["profile_name"], data=job["profile"])
        config = PipelineConfig.from_dict(job["config"])
        summary = DaemonModel(config, profile).run().summary()
    except Exception as exc:  # recorded as a failed point; the search goes on
        return {"id": job["id"], "status": "crashed", "metrics": {},
                "error": {"type": type(exc).__name__, "message": str(exc)}}
    return {"id": job["id"], "status": "ok", "metrics": metrics_of(summary)}


def metrics_of(summary: dict) -> dict:
    """Return the few numbers of a run's summary that the tuner ranks and reports."""
    b = summary.get("bottleneck") or {}
    return {
        "seconds_per_proof": summary.get("seconds_per_proof"),
        "proof_latency_s": summary.get("proof_latency_s_mean"),
        "peak_rss_gib": summary.get("peak_rss_gib"),
        "gpu_busy_fraction": summary.get("gpu_busy_fraction"),
        "proofs": summary.get("proofs"),
        "run_failed": bool(summary.get("run_failed")),
        "failure_reason": summary.get("failure_reason"),
        "bottleneck": {"resource": b.get("resource"), "why": b.get("why"),
                       "utilization": (b.get("evidence") or {}).get("utilization", {})},
    }
