"""Running the tuner's simulations: in this process, a process pool, or on Dask.

:class:`Evaluator` takes batches of (configuration, scenario) pairs, skips the
ones it has already simulated, hands the rest to an executor of
:mod:`cuzklab.sweep.executors` (``local``: a process pool on this machine;
``dask``: a Dask cluster) or runs them here (``inline``, and ``local`` with one
job), and returns the metrics in the batch's order, so the search is the same
for a seed whatever ran it. A progress bar on stderr counts simulations.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable

from ..errors import ConfigError
from ..model.profile import Profile
from ..sweep.executors import Executor, get_executor
from .evaluate import Scenario, evaluate_job, make_job, scenario_profile
from .space import Knobs, Node

EXECUTORS = ("local", "dask", "inline")


class InlineExecutor(Executor):
    """Runs jobs one after another in this process (tests, notebooks, ``--jobs 1``)."""

    name = "inline"

    def run(self, fn, jobs):
        """Yield ``fn(job)`` for each job in order."""
        for job in jobs:
            try:
                yield fn(job)
            except Exception as exc:
                yield self.crashed(job, exc)


def make_executor(executor: str = "local", jobs: int | None = None, scheduler=None) -> Executor:
    """Return the executor named ``executor`` (``local``, ``dask`` or ``inline``)."""
    if executor not in EXECUTORS:
        raise ConfigError("executor", f"must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ConfigError("jobs", f"must be an integer >= 1, got {jobs!r}")
    if executor == "inline" or (executor == "local" and jobs == 1):
        return InlineExecutor(jobs=1)
    if executor == "dask" and not scheduler:
        raise ConfigError("scheduler", "the dask executor needs a scheduler address "
                                       "(for example tcp://10.0.0.5:8786) or a Client")
    if executor == "local" and scheduler:
        raise ConfigError("scheduler", "a scheduler applies only to the dask executor")
    return get_executor(executor)(jobs=jobs, scheduler=scheduler)


class Evaluator:
    """Simulates configurations of one node and profile, each once per scenario."""

    def __init__(self, node: Node, profile: Profile, proofs: int, executor: Executor,
                 progress: bool = True, desc: str = "tune"):
        self.node = node
        self.profile = profile
        self.proofs = proofs
        self.executor = executor
        self.cache: dict[tuple[Node, Knobs, Scenario], dict] = {}
        self.counts: Counter = Counter()
        from tqdm.auto import tqdm
        self.bar = tqdm(total=0, desc=desc, unit="sim", file=sys.stderr, disable=not progress,
                        dynamic_ncols=True, leave=False)
        self._profiles: dict[Scenario, Profile] = {}

    def evaluate(self, pairs: Iterable[tuple[Knobs, Scenario]], phase: str,
                 node: Node | None = None) -> list[dict]:
        """Return the metrics of every (knobs, scenario) pair on ``node`` (default: the evaluator's)."""
        node = node or self.node
        return self.run([(node, k, sc, phase) for k, sc in pairs])

    def run(self, items: Iterable[tuple[Node, Knobs, Scenario, str]]) -> list[dict]:
        """Return the metrics of every (node, knobs, scenario, phase), simulating those not seen yet.

        One batch goes to the executor at once, whatever phases it mixes, so a
        process pool starts with as many processes as it will need.
        """
        items = list(items)
        todo: dict[tuple, str] = {}
        for node, k, sc, phase in items:
            if (node, k, sc) not in self.cache:
                todo.setdefault((node, k, sc), phase)
        if todo:
            keys = sorted(todo, key=lambda t: (t[0].memory_gib, t[1], t[2]))
            jobs, by_id = [], {}
            for i, key in enumerate(keys):
                node, k, sc = key
                prof = self._profiles.get(sc)
                if prof is None:
                    prof = self._profiles[sc] = scenario_profile(self.profile, sc)
                job_id = f"{todo[key]}-{len(self.cache) + i}"
                by_id[job_id] = key
                jobs.append(make_job(job_id, k.config(node, self.proofs, sc.seed), prof))
            self.bar.total += len(jobs)
            self.bar.set_postfix_str(", ".join(dict.fromkeys(todo.values())), refresh=False)
            self.bar.refresh()
            for outcome in self.executor.run(evaluate_job, jobs):
                self.cache[by_id[outcome["id"]]] = _metrics(outcome)
                self.bar.update(1)
            for phase in todo.values():
                self.counts[phase] += 1
        return [self.cache[(node, k, sc)] for node, k, sc, _ in items]

    @property
    def simulations(self) -> int:
        """Return how many simulations ran."""
        return sum(self.counts.values())

    def close(self) -> None:
        """Close the progress bar and the executor."""
        self.bar.close()
        self.executor.close()


def _metrics(outcome: dict) -> dict:
    if outcome.get("status") == "ok":
        return outcome["metrics"]
    err = outcome.get("error") or {}
    return {"seconds_per_proof": None, "proof_latency_s": None, "peak_rss_gib": None,
            "gpu_busy_fraction": None, "proofs": 0, "run_failed": True,
            "failure_reason": "crashed",
            "bottleneck": {"resource": None, "why": f"the simulation raised "
                                                    f"{err.get('type', '')}: {err.get('message', '')}",
                           "utilization": {}}}
