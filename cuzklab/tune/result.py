"""What the tuner answers: the recommendation, its evidence, the front, a daemon TOML.

:class:`TuneResult` holds every simulated candidate, the recommendation with
its robustness, the ranked alternatives and what each loses, and the
throughput-against-peak-memory Pareto front; it renders as text
(:meth:`TuneResult.text`), as one JSON object (:meth:`TuneResult.to_dict`)
and as a cuzk daemon TOML with a header saying what it was tuned for
(:meth:`TuneResult.toml`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..atomic import write_text
from .space import Knobs, Node


@dataclass(eq=False)
class Candidate:
    """One configuration, its nominal run and, when checked, its robustness."""

    knobs: Knobs
    metrics: dict
    phase: str = ""
    feasible: bool = False
    robustness: "object | None" = None

    @property
    def s_per_proof(self) -> float | None:
        """Return the nominal run's seconds per proof."""
        return self.metrics.get("seconds_per_proof")

    def to_dict(self) -> dict:
        """Return the candidate as plain data."""
        m = self.metrics
        out = {"label": self.knobs.label(), "knobs": self.knobs.to_dict(), "phase": self.phase,
               "feasible": self.feasible, "seconds_per_proof": m.get("seconds_per_proof"),
               "proof_latency_s": m.get("proof_latency_s"), "peak_rss_gib": m.get("peak_rss_gib"),
               "gpu_busy_fraction": m.get("gpu_busy_fraction"),
               "failure_reason": m.get("failure_reason") if m.get("run_failed") else None,
               "bottleneck": m.get("bottleneck")}
        if self.robustness is not None:
            out["robustness"] = self.robustness.to_dict()
        return out


def pareto_front(cands, limit_gib: float | None = None) -> list[Candidate]:
    """Return the candidates no other beats on both s/proof and peak RSS, by peak RSS.

    Only finished runs count; with ``limit_gib``, only those whose peak is at
    most the limit.
    """
    done = [c for c in cands if c.s_per_proof is not None
            and c.metrics.get("peak_rss_gib") is not None and not c.metrics.get("run_failed")
            and (limit_gib is None or c.metrics["peak_rss_gib"] <= limit_gib)]
    done.sort(key=lambda c: (c.metrics["peak_rss_gib"], c.s_per_proof, c.knobs))
    front, best = [], float("inf")
    for c in done:
        if c.s_per_proof < best:
            front.append(c)
            best = c.s_per_proof
    return front


@dataclass(eq=False)
class TuneResult:
    """The tuner's answer for one node (see :func:`cuzklab.tune.tune`)."""

    node: Node
    request: dict
    answer: str = ""
    recommended: Candidate | None = None
    smallest: Candidate | None = None
    minimum_memory_gib: float | None = None
    points: list[Candidate] = field(default_factory=list)
    alternatives: list[Candidate] = field(default_factory=list)
    simulations: dict = field(default_factory=dict)
    elapsed_s: float = 0.0

    # -- verdict -----------------------------------------------------------------------
    @property
    def feasible(self) -> bool:
        """Return True when a configuration is recommended."""
        return self.recommended is not None

    @property
    def simulation_count(self) -> int:
        """Return the simulations the search ran."""
        return int(sum(self.simulations.values()))

    def config(self):
        """Return the recommended PipelineConfig (None when nothing is recommended)."""
        if self.recommended is None:
            return None
        return self.recommended.knobs.config(self.node, self.request["proofs"],
                                             self.request["seed"])

    def pareto(self, within_limit: bool = True) -> list[Candidate]:
        """Return the Pareto front of the simulated candidates (within the limit by default)."""
        return pareto_front(self.points, self.node.limit_gib if within_limit else None)

    def headroom_gib(self) -> float | None:
        """Return the recommendation's RSS headroom to the RAM line (RAM minus peak RSS)."""
        if self.recommended is None:
            return None
        return self.node.memory_gib - self.recommended.metrics["peak_rss_gib"]

    # -- renderings ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Return the whole answer as one JSON-able dict."""
        rec = self.recommended
        out = {"feasible": self.feasible, "answer": self.answer,
               "node": self.node.to_dict(), "request": self.request,
               "minimum_memory_gib": self.minimum_memory_gib,
               "recommended": None, "alternatives": [], "pareto": [],
               "simulations": {**self.simulations, "total": self.simulation_count},
               "evaluated": len(self.points), "elapsed_s": round(self.elapsed_s, 3)}
        if rec is not None:
            out["recommended"] = {**rec.to_dict(), "config": self.config().to_dict(),
                                  "headroom_gib": self.headroom_gib(),
                                  "margin_left_gib": self.node.limit_gib
                                  - rec.metrics["peak_rss_gib"],
                                  "proofs_per_hour": 3600.0 / rec.s_per_proof}
            out["toml"] = self.toml()
            out["alternatives"] = [self.alternative_row(c) for c in self.alternatives]
        out["pareto"] = [c.to_dict() for c in self.pareto()]
        out["points"] = [c.to_dict() for c in self.points]
        return out

    def alternative_row(self, c: Candidate) -> dict:
        """Return a row of the alternatives table: the candidate and what it loses."""
        rec = self.recommended
        row = {"label": c.knobs.label(), "changes": c.knobs.diff(rec.knobs) if rec else "",
               "seconds_per_proof": c.s_per_proof,
               "proof_latency_s": c.metrics.get("proof_latency_s"),
               "peak_rss_gib": c.metrics.get("peak_rss_gib"), "loses": self.loses(c)}
        if rec is not None and c.s_per_proof is not None:
            row["throughput_change"] = rec.s_per_proof / c.s_per_proof - 1.0
        return row

    def loses(self, c: Candidate) -> str:
        """Return what candidate ``c`` loses against the recommendation, in words."""
        rec = self.recommended
        bits = []
        peak = c.metrics.get("peak_rss_gib")
        if not c.feasible and peak is not None and peak > self.node.limit_gib:
            bits.append(f"over the limit: peak {peak:.0f} GiB > {self.node.limit_gib:g} GiB")
        lim = self.request.get("max_latency_s")
        lat = c.metrics.get("proof_latency_s")
        if not c.feasible and lim is not None and lat is not None and lat > lim:
            bits.append(f"latency {lat:.0f} s > {lim:g} s")
        if c.robustness is not None and not c.robustness.passes:
            bits.append(f"not robust: {c.robustness.why}")
        if rec is not None and c.s_per_proof is not None:
            d = c.s_per_proof / rec.s_per_proof - 1.0
            if c.robustness is not None and c.robustness.passes and rec.robustness is not None:
                dm = c.robustness.mean() / rec.robustness.mean() - 1.0
                bits.append(f"{100 * dm:+.1f} % s/proof over the cost moves ({100 * d:+.1f} % "
                            f"nominal)")
            else:
                bits.append(f"{100 * d:+.1f} % s/proof")
            if peak is not None and rec.metrics.get("peak_rss_gib") is not None:
                dp = peak - rec.metrics["peak_rss_gib"]
                if abs(dp) >= 1:
                    bits.append(f"{dp:+.0f} GiB peak")
        if c.robustness is None and c.feasible:
            bits.append("robustness not checked")
        return "; ".join(bits)

    def toml(self) -> str:
        """Return the recommended configuration as a cuzk daemon TOML with a header."""
        if self.recommended is None:
            raise ValueError(f"nothing to write: {self.answer}")
        cfg = self.config()
        rec = self.recommended
        r = self.request
        n = self.node
        rob = rec.robustness
        lo, hi = rob.spread() if rob is not None else (None, None)
        from .. import __version__
        lines = [
            f"# Tuned by cuzklab {__version__} (cuzklab tune) for a node with {n.memory_gib:g} GiB RAM,",
            f"# {n.gpus} GPU(s), {self._cores()} cores and {self._vram():g} GiB VRAM per GPU, on the "
            f"profile {r['profile']};",
            f"# objective {r['objective']}"
            + (f", mean proof latency <= {r['max_latency_s']:g} s" if r.get("max_latency_s") else "")
            + f", peak RSS <= {n.limit_gib:g} GiB (a {n.margin_gib:g} GiB margin),",
            f"# {r['proofs']} proofs"
            + (f" with {r['concurrency']} in flight" if r.get("concurrency") else
               f" with {cfg.concurrency} in flight (chosen by the tuner)") + ".",
            f"# Proofs in flight are the client's: in Curio, [Cuzk] MaxPending = {cfg.concurrency} "
            f"(its default is 10, one limit",
            "# for every proof kind the node sends, WindowPoSt and WinningPoSt included).",
            f"# Predicted: {rec.s_per_proof:.1f} s/proof"
            + (f" ({lo:.1f}-{hi:.1f} under +-{100 * rob.move:.0f} % stage costs and "
               f"{r['seeds']} seeds)" if lo is not None else "")
            + f", mean latency {rec.metrics['proof_latency_s']:.0f} s,",
            f"# peak RSS {rec.metrics['peak_rss_gib']:.0f} GiB"
            + (f" (at most {rob.peak_max:.0f} GiB under the moves)" if rob is not None else "")
            + f", bound by {rec.metrics['bottleneck']['resource']}.",
        ]
        if cfg.lock != "split_async":
            lines.append(f"# The lock strategy {cfg.lock} is a cuzk code path (its history), not a "
                         f"daemon key: it needs a daemon built that way.")
        lines.append("")
        return "\n".join(lines) + cfg.to_cuzk_toml()

    def write_toml(self, path) -> str:
        """Write :meth:`toml` to ``path`` atomically and return the text."""
        text = self.toml()
        write_text(path, text)
        return text

    def _cores(self) -> int:
        return int(self.request.get("cores", 0))

    def _vram(self) -> float:
        return float(self.request.get("vram_gib", 0.0))

    def text(self) -> str:
        """Return the answer as a readable report (the CLI's output)."""
        from .report_text import format_result
        return format_result(self)
