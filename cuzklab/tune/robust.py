"""Robustness of a configuration: its results with every stage cost moved and over seeds.

A configuration is re-simulated over several seeds and with each stage's cost
(:data:`~cuzklab.tune.evaluate.STAGE_COSTS`) moved down and up by the same
fraction, one stage at a time. It is *robust* when every one of those runs
finishes within the memory limit (no OOM risk), keeps the latency limit at the
nominal costs, and loses at most :data:`MAX_LOSS_PER_MOVE` times the move in
throughput: a stage that alone bounds throughput moves it by about the same
fraction as its cost, so a larger loss is a cliff (a pile-up, memory pressure)
that the optimum sits on the edge of.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from .evaluate import STAGE_COSTS, Scenario

# A cost move of m may cost up to this many times m in throughput (2: a 10 % move,
# 20 % slower) before the configuration counts as sitting on a cliff.
MAX_LOSS_PER_MOVE = 2.0


def scenarios(seed: int, seeds: int, move: float) -> list[Scenario]:
    """Return the robustness scenarios: ``seeds`` seeds at nominal costs, then each stage -/+ ``move``."""
    out = [Scenario(seed + i) for i in range(seeds)]
    if move > 0:
        for stage in STAGE_COSTS:
            for f in (1.0 - move, 1.0 + move):
                out.append(Scenario(seed, stage, round(f, 6)))
    return out


@dataclass
class Robustness:
    """The runs of one configuration under the robustness scenarios, and the verdict."""

    runs: list[tuple[Scenario, dict]]
    limit_gib: float
    move: float
    max_latency_s: float | None = None
    objective: str = "throughput"
    passes: bool = field(init=False)
    why: str = field(init=False)

    def __post_init__(self):
        self.passes, self.why = self._verdict()

    # -- figures ------------------------------------------------------------------------
    def _values(self, key, runs=None):
        return [m[key] for _, m in (runs or self.runs) if m.get(key) is not None]

    @property
    def nominal(self) -> dict:
        """Return the metrics of the first seed at nominal costs."""
        return self.runs[0][1]

    @property
    def seed_runs(self) -> list[tuple[Scenario, dict]]:
        """Return the nominal-cost runs (one per seed)."""
        return [(s, m) for s, m in self.runs if not s.stage]

    def spread(self, key: str = "seconds_per_proof") -> tuple[float | None, float | None]:
        """Return (min, max) of ``key`` over every run that finished."""
        vals = self._values(key)
        return (min(vals), max(vals)) if vals else (None, None)

    def mean(self, key: str = "seconds_per_proof") -> float | None:
        """Return the mean of ``key`` over the runs (None if any run failed)."""
        vals = self._values(key)
        return statistics.fmean(vals) if vals and len(vals) == len(self.runs) else None

    def seed_median(self, key: str = "seconds_per_proof") -> float | None:
        """Return the median of ``key`` over the seeds at nominal costs."""
        vals = self._values(key, self.seed_runs)
        return statistics.median(vals) if vals else None

    @property
    def peak_max(self) -> float | None:
        """Return the highest peak RSS over the runs."""
        vals = self._values("peak_rss_gib")
        return max(vals) if vals else None

    @property
    def loss(self) -> float | None:
        """Return the worst throughput loss against the nominal run (0.05 = 5 % slower)."""
        base = self.nominal.get("seconds_per_proof")
        worst = self.spread()[1]
        if base is None or worst is None:
            return None
        return worst / base - 1.0

    def worst(self, key: str = "seconds_per_proof") -> Scenario | None:
        """Return the scenario with the largest ``key``."""
        done = [(m[key], s) for s, m in self.runs if m.get(key) is not None]
        return max(done)[1] if done else None

    @property
    def score(self) -> float | None:
        """Return the figure robust configurations are ranked by: the objective's mean over the runs."""
        return self.mean("seconds_per_proof" if self.objective == "throughput"
                         else "proof_latency_s")

    # -- verdict --------------------------------------------------------------------------
    def _verdict(self) -> tuple[bool, str]:
        for s, m in self.runs:
            if m.get("run_failed"):
                return False, f"{m.get('failure_reason') or 'fails'} under {s.label()}"
        for s, m in self.runs:
            peak = m.get("peak_rss_gib")
            if peak is not None and peak > self.limit_gib:
                return False, (f"peak {peak:.1f} GiB > limit {self.limit_gib:g} GiB under "
                               f"{s.label()}")
        if self.max_latency_s is not None:
            for s, m in self.seed_runs:
                lat = m.get("proof_latency_s")
                if lat is not None and lat > self.max_latency_s:
                    return False, (f"latency {lat:.0f} s > {self.max_latency_s:g} s under "
                                   f"{s.label()}")
        loss = self.loss
        if loss is not None and self.move > 0 and loss > MAX_LOSS_PER_MOVE * self.move:
            return False, (f"{100 * loss:.0f} % slower under {self.worst().label()} (a cliff: "
                           f"more than {MAX_LOSS_PER_MOVE:g}x the {100 * self.move:.0f} % move)")
        return True, ""

    def moves_table(self) -> list[dict]:
        """Return per stage the s/proof and peak RSS with its cost moved down and up."""
        rows: dict[str, dict] = {}
        for s, m in self.runs:
            if not s.stage:
                continue
            side = "down" if s.factor < 1 else "up"
            r = rows.setdefault(s.stage, {"stage": s.stage})
            r[f"s_per_proof_{side}"] = m.get("seconds_per_proof")
            r[f"peak_rss_gib_{side}"] = m.get("peak_rss_gib")
            r[f"failed_{side}"] = m.get("failure_reason") if m.get("run_failed") else None
        return list(rows.values())

    def to_dict(self) -> dict:
        """Return the verdict, the spread and every run as plain data."""
        lo, hi = self.spread()
        return {"passes": self.passes, "why": self.why or None,
                "seconds_per_proof_min": lo, "seconds_per_proof_max": hi,
                "seconds_per_proof_mean": self.mean(),
                "seconds_per_proof_seed_median": self.seed_median(),
                "loss": self.loss, "peak_rss_gib_max": self.peak_max,
                "latency_s_max": self.spread("proof_latency_s")[1],
                "move": self.move, "moves": self.moves_table(),
                "runs": [{**s.to_dict(), "seconds_per_proof": m.get("seconds_per_proof"),
                          "proof_latency_s": m.get("proof_latency_s"),
                          "peak_rss_gib": m.get("peak_rss_gib"),
                          "failure_reason": m.get("failure_reason") if m.get("run_failed") else None}
                         for s, m in self.runs]}
