"""The tuner: the best configuration of a proving node, searched with the daemon model.

``tune(256, gpus=1)`` searches partition workers, GPU workers per device,
``gpu_threads``, admission, budget, lock strategy and proofs in flight for the
most throughput (or the lowest latency) whose peak RSS stays under the RAM
minus a margin, checks the best candidates with every stage cost moved and
over seeds, and returns a :class:`TuneResult`: the recommendation, why, the
alternatives, the Pareto front and a cuzk daemon TOML.
"""

from __future__ import annotations

from ..errors import ConfigError, ProfileError
from .evaluate import STAGE_COSTS, Scenario, moved_profile
from .result import Candidate, TuneResult, pareto_front
from .search import tune, tune_series
from .space import Knobs, Node, Space

__all__ = ["tune", "tune_series", "TuneResult", "Candidate", "pareto_front", "Knobs", "Node", "Space",
           "Scenario", "STAGE_COSTS", "moved_profile", "ConfigError", "ProfileError"]
