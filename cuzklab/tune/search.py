"""The search: the best configuration of a node, found with the daemon model.

:func:`tune` runs four steps, each a batch of simulations (in parallel through
the sweep executors):

1. *minimum*: the configuration that needs the least memory (one synthesis,
   one GPU worker) on ample RAM; if even its peak does not fit under the limit
   (RAM minus the margin), the node cannot prove and the answer says what RAM
   it would need;
2. *coarse*: a grid over every lock strategy and a ladder of partition
   workers, with both admission rules, bounded by what the RAM can hold;
3. *refine*: points one step away along each knob (pw, gw, gpu_threads,
   admission, budget, proofs in flight) around the best few, until the best
   stop changing;
4. *robust*: the best candidates re-simulated over seeds and with every stage
   cost moved down and up (:mod:`cuzklab.tune.robust`); the recommendation is
   the best of those that stay inside the limit and off cliffs, ranked by the
   mean of the objective over those runs (flat optima win).

``start`` hands the search configurations found elsewhere, such as the answer
for a node with less RAM: they are simulated with the coarse grid and checked
in step 4 beside the search's own candidates (which they do not displace), so
the answer is at least as good, by that mean, as both the search's own and
theirs (a configuration valid on a smaller node is valid on a larger one).
:func:`tune_series` tunes nodes from the least RAM up, each search starting
from the previous answer, so more RAM never gives a slower recommendation.

The same arguments and seed give the same answer, whichever executor ran it.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from ..errors import ConfigError
from ..model.config import LOCKS
from ..model.profile import Profile
from .evaluate import Scenario
from .parallel import Evaluator, make_executor
from .result import Candidate, TuneResult
from .robust import Robustness, scenarios
from .space import OBJECTIVES, Knobs, Node, Space

# Points around which each refinement round looks, and the most rounds.
REFINE_FROM = 2
REFINE_ROUNDS = 3
# Candidates re-simulated for robustness per round, and the most rounds: when none
# of the best three is robust, the next three are tried.
FINALISTS = 3
ROBUST_ROUNDS = 4
# RAM on which the smallest configuration is simulated to find the node's minimum:
# enough that it never runs short (SRS + PCE + this many partitions' worth).
_AMPLE_PARTITIONS = 8


def tune(memory_gib: float, gpus: int = 1, *, profile: "str | Profile | None" = None,
         proofs: int = 20, concurrency: int | None = None, objective: str = "throughput",
         max_latency_s: float | None = None, margin_gib: float = 16.0,
         cores: int | None = None, vram_gib: float | None = None,
         locks: "tuple[str, ...] | None" = None, seed: int = 0, seeds: int = 3,
         cost_move: float = 0.10, finalists: int = FINALISTS,
         refine_rounds: int = REFINE_ROUNDS, executor: str = "local",
         jobs: int | None = None, scheduler=None, progress: bool = True,
         start=None) -> TuneResult:
    """Return the best configuration for a node of ``memory_gib`` GiB RAM and ``gpus`` GPUs.

    Most throughput (``objective="throughput"``) or the lowest mean proof latency
    (``"latency"``), with peak RSS at most ``memory_gib - margin_gib`` under
    every cost move and seed, and mean latency at most ``max_latency_s`` when
    given. ``concurrency`` fixes the proofs in flight (cuzk-bench ``-j``; None:
    the tuner chooses); ``cores`` / ``vram_gib`` replace the profile's;
    ``locks`` limits the lock strategies searched. ``executor``: ``local``
    (a process pool of ``jobs`` processes), ``dask`` (at ``scheduler``) or
    ``inline``. ``finalists``: candidates checked for robustness per round;
    ``refine_rounds``: the most refinement rounds (0: the coarse grid only).
    ``start``: a :class:`Knobs`, a :class:`TuneResult` (its recommendation) or
    a list of them, simulated beside the coarse grid and checked for robustness
    beside the search's own finalists (a TuneResult's only when the search's
    answer is worse than its score there); a recommendation's ``budget =
    "auto"`` is pinned to the budget it had on its own node, so the same
    configuration is tried.
    """
    t0 = time.perf_counter()
    node = Node(memory_gib=memory_gib, gpus=gpus, cores=cores, vram_gib=vram_gib,
                margin_gib=margin_gib)
    _check(proofs=proofs, concurrency=concurrency, objective=objective,
           max_latency_s=max_latency_s, seed=seed, seeds=seeds, cost_move=cost_move,
           finalists=finalists)
    if isinstance(refine_rounds, bool) or not isinstance(refine_rounds, int) or refine_rounds < 0:
        raise ConfigError("refine_rounds", f"must be an integer >= 0, got {refine_rounds!r}")
    locks = tuple(LOCKS if locks is None else locks)
    bad = [lk for lk in locks if lk not in LOCKS]
    if bad or not locks:
        raise ConfigError("locks", f"each must be one of {', '.join(LOCKS)}, got "
                                   f"{', '.join(map(repr, bad)) or 'none'}")
    prof = node.apply(Profile.load(profile))
    starts = _start_knobs(start, prof)
    space = Space(node=node, profile=prof, proofs=proofs, concurrency=concurrency,
                  locks=locks, objective=objective)
    ex = make_executor(executor, jobs, scheduler)
    request = {"profile": prof.name, "base_gib": round(space.base_gib, 3), "cores": int(prof["node"]["cores"]),
               "vram_gib": float(prof["node"]["vram_gib"]), "proofs": proofs, "concurrency": concurrency,
               "objective": objective, "max_latency_s": max_latency_s, "locks": list(locks),
               "seed": seed, "seeds": seeds, "cost_move": cost_move, "executor": ex.name,
               "start": [{"label": k.label(), "invalid": space.invalid_reason(k)}
                         for k, _ in starts]}
    bounds = {k: _start_bound(res, node, request) for k, res in starts}
    ev = Evaluator(node, prof, proofs, ex, progress=progress,
                   desc=f"tune {memory_gib:g} GiB x{gpus} GPU")
    try:
        result = _search(space, ev, request, seed=seed, seeds=seeds, move=cost_move,
                         max_latency_s=max_latency_s, finalists=finalists,
                         refine_rounds=refine_rounds, starts=bounds)
    finally:
        ev.close()
    result.simulations = dict(ev.counts)
    result.elapsed_s = time.perf_counter() - t0
    return result


def tune_series(memories, gpus: int = 1, **tune_args) -> list[TuneResult]:
    """Return :func:`tune` for each RAM in ``memories``, in the order given.

    The nodes are tuned from the least RAM up (whatever the order of
    ``memories``), each search starting from the last recommendation found,
    so a node's recommendation is never slower, by the mean over its
    robustness runs, than that of a node with less RAM: the smaller node's
    answer is checked on the larger one too. ``tune_args`` go to every tune.
    """
    if "start" in tune_args:
        raise ConfigError("start", "tune_series chooses each search's start itself")
    memories = list(memories)
    if not memories:
        raise ConfigError("memories", "give at least one node's RAM")
    done: dict[float, TuneResult] = {}
    last = None
    for m in sorted(set(memories)):
        res = done[m] = tune(m, gpus, start=last, **tune_args)
        if res.feasible:
            last = res
    return [done[m] for m in memories]


def _start_knobs(start, profile: Profile) -> "list[tuple[Knobs, TuneResult | None]]":
    """Return the configurations ``start`` names (see :func:`tune`) and the result each came from."""
    if start is None:
        return []
    items = [start] if isinstance(start, (Knobs, TuneResult)) else list(start)
    out: dict[Knobs, TuneResult | None] = {}
    for item in items:
        if isinstance(item, TuneResult):
            if item.recommended is None:
                continue
            k = item.recommended.knobs
            if k.admission == "budget" and k.budget_gib == 0:
                # cuzk's auto budget (RAM - safety margin) grows with the RAM: pin it
                auto = item.node.memory_gib - profile["memory"]["safety_margin_gib"]
                k = replace(k, budget_gib=float(auto))
            out.setdefault(k, item)
        elif isinstance(item, Knobs):
            out.setdefault(k := item, None)
        else:
            raise ConfigError("start", f"must be Knobs or a TuneResult (or a list of them), "
                                       f"got {type(item).__name__}")
    return list(out.items())


# What a start's own result must share with this search for its figure to be comparable.
_SAME_TERMS = ("profile", "cores", "vram_gib", "proofs", "concurrency", "objective",
               "max_latency_s", "locks", "seed", "seeds", "cost_move")


def _start_bound(res: "TuneResult | None", node: Node, request: dict) -> float | None:
    """Return the start's score on its own node when it compares with this search's, else None."""
    if res is None or res.node.gpus != node.gpus or res.node.margin_gib != node.margin_gib:
        return None
    if any(res.request.get(k) != request.get(k) for k in _SAME_TERMS):
        return None
    return res.recommended.robustness.score


def _check(*, proofs, concurrency, objective, max_latency_s, seed, seeds, cost_move, finalists):
    def integer(key, v, lo):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ConfigError(key, f"must be an integer >= {lo}, got {v!r}")
    integer("proofs", proofs, 1)
    if concurrency is not None:
        integer("concurrency", concurrency, 1)
        if concurrency > proofs:
            raise ConfigError("concurrency", f"must be <= proofs ({proofs}), got {concurrency}")
    if objective not in OBJECTIVES:
        raise ConfigError("objective", f"must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if max_latency_s is not None and (isinstance(max_latency_s, bool)
                                      or not isinstance(max_latency_s, (int, float))
                                      or not (max_latency_s > 0 and math.isfinite(max_latency_s))):
        raise ConfigError("max_latency_s", f"must be a finite number of seconds > 0, "
                                           f"got {max_latency_s!r}")
    integer("seed", seed, 0)
    integer("seeds", seeds, 1)
    integer("finalists", finalists, 1)
    if isinstance(cost_move, bool) or not isinstance(cost_move, (int, float)) \
            or not 0 <= cost_move < 1:
        raise ConfigError("cost_move", f"must be a fraction in [0, 1) (0.1 = +-10 %), "
                                       f"got {cost_move!r}")


def _search(space: Space, ev: Evaluator, request: dict, *, seed, seeds, move,
            max_latency_s, finalists, refine_rounds, starts=None) -> TuneResult:
    node = space.node
    starts = starts or {}
    carried = list(starts)
    nominal = Scenario(seed)
    result = TuneResult(node=node, request=request)

    # 1. the smallest configuration, on ample RAM: what the node needs at least
    smallest = space.smallest()
    need = space.base_gib + _AMPLE_PARTITIONS * space.partition_gib
    ample = node if node.memory_gib >= need else Node(
        memory_gib=need, gpus=node.gpus, cores=node.cores, vram_gib=node.vram_gib, margin_gib=0.0)
    reason = space.invalid_reason(smallest)
    if reason is not None:
        result.answer = (f"this node cannot prove: even the smallest configuration "
                         f"({smallest.label()}) is invalid here: {reason}")
        return result
    # The minimum and the coarse grid go to the executor as one batch.
    points: dict[Knobs, Candidate] = {}
    fits_one = space.base_gib + space.partition_gib <= node.limit_gib
    coarse = list(dict.fromkeys(space.coarse_grid() + [smallest])) if fits_one else []
    started = [k for k in space.valid(carried) if k not in coarse] if fits_one else []
    mets = ev.run([(ample, smallest, nominal, "minimum")]
                  + [(node, k, nominal, "coarse") for k in coarse]
                  + [(node, k, nominal, "start") for k in started])
    m = mets[0]
    if m["run_failed"] or m["peak_rss_gib"] is None:
        result.answer = (f"this node cannot prove: the smallest configuration ({smallest.label()}) "
                         f"fails even with ample RAM ({m['failure_reason']})")
        return result
    result.minimum_memory_gib = math.ceil(m["peak_rss_gib"] + node.margin_gib)
    result.smallest = Candidate(smallest, m)
    if m["peak_rss_gib"] > node.limit_gib:
        result.answer = (f"this node cannot prove: the smallest configuration "
                         f"({smallest.label()}) peaks at {m['peak_rss_gib']:.1f} GiB (SRS + PCE "
                         f"{space.base_gib:.1f} GiB, then one synthesis at a time), above the "
                         f"limit of {node.limit_gib:g} GiB ({node.memory_gib:g} GiB RAM minus a "
                         f"{node.margin_gib:g} GiB margin); it needs at least "
                         f"{result.minimum_memory_gib} GiB RAM with this margin")
        return result

    # 2. coarse grid, 3. refinement
    def add(knobs, mets, phase):
        for k, met in zip(knobs, mets):
            points[k] = Candidate(k, met, phase=phase)
            points[k].feasible = _feasible(met, node.limit_gib, max_latency_s)

    add(coarse, mets[1:1 + len(coarse)], "coarse")
    add(started, mets[1 + len(coarse):], "start")
    # the start points that run here, each with its score on its own node (None: unknown)
    must = [(points[k], starts[k]) for k in space.valid(carried)
            if k in points and points[k].feasible]
    # The search's own points: the grid and what refinement reaches. It ranks and refines
    # only these, so it runs as it would without start points, which are checked beside.
    own = set(coarse)

    def ranked_own():
        return _ranked((points[k] for k in own), space.objective)

    for _ in range(refine_rounds):
        top = ranked_own()[:REFINE_FROM]
        around = list(dict.fromkeys(n for c in top for n in space.neighbors(c.knobs)))
        new = [k for k in around if k not in points]
        if not any(k not in own for k in around):
            break
        own.update(around)
        if new:
            add(new, ev.evaluate([(k, nominal) for k in new], "refine"), "refine")
        if ranked_own()[:REFINE_FROM] == top:
            break

    # 4. robustness of the best candidates
    runs = scenarios(seed, seeds, move)
    ranked = ranked_own()
    checked: list[Candidate] = []

    def check(cands):
        todo = [c for c in dict.fromkeys(cands) if c not in checked]
        mets = ev.evaluate([(c.knobs, s) for c in todo for s in runs], "robust")
        for i, c in enumerate(todo):
            pairs = list(zip(runs, mets[i * len(runs):(i + 1) * len(runs)]))
            c.robustness = Robustness(pairs, node.limit_gib, move, max_latency_s,
                                      space.objective)
            checked.append(c)

    for r in range(ROBUST_ROUNDS):
        batch = ranked[r * finalists:(r + 1) * finalists]
        if not batch:
            break
        # start points of unknown score go with the first round, in the same executor batch
        check(batch + ([c for c, bound in must if bound is None] if r == 0 else []))
        if any(c.robustness.passes for c in batch):
            break
    # a start point with a known score is checked when the search's own answer is worse
    # than that score (or there is none): the answer is then at least as good as it
    best = min((c.robustness.score for c in checked if c.robustness.passes), default=None)
    check([c for c, bound in must if bound is not None and (best is None or best > bound)])

    result.points = sorted(points.values(), key=lambda c: c.knobs)
    robust = sorted((c for c in checked if c.robustness.passes),
                    key=lambda c: (c.robustness.score, _key(c, space.objective)))
    if robust:
        result.recommended = robust[0]
        result.answer = "ok"
    elif ranked:
        result.answer = (f"no configuration stays inside the {node.limit_gib:g} GiB limit and "
                         f"off cliffs under +-{100 * move:.0f} % stage costs: the best by its "
                         f"nominal run, {ranked[0].knobs.label()}, fails with "
                         f"{ranked[0].robustness.why}")
    else:
        result.answer = _none_feasible(points.values(), node, max_latency_s)
    result.alternatives = _alternatives(result, checked, ranked, points.values())
    return result


def _feasible(m: dict, limit: float, max_latency_s) -> bool:
    if m["run_failed"] or m["seconds_per_proof"] is None or m["peak_rss_gib"] is None:
        return False
    if m["peak_rss_gib"] > limit:
        return False
    return max_latency_s is None or (m["proof_latency_s"] is not None
                                     and m["proof_latency_s"] <= max_latency_s)


# On a tie (at one partition worker every lock gives the same run) the current daemon's
# code path and the simpler admission rule come first.
_LOCK_RANK = {lk: i for i, lk in enumerate(("split_async", "interlock", "two_lock", "wide_mutex",
                                            "monolithic"))}
_ADMISSION_RANK = {"semaphore": 0, "budget": 1}


def _key(c: Candidate, objective: str):
    m = c.metrics
    spp, lat, peak = m["seconds_per_proof"], m["proof_latency_s"], m["peak_rss_gib"]
    tie = (_LOCK_RANK.get(c.knobs.lock, 9), _ADMISSION_RANK.get(c.knobs.admission, 9), c.knobs)
    return (spp, lat, peak, *tie) if objective == "throughput" else (lat, spp, peak, *tie)


def _ranked(cands, objective: str) -> list[Candidate]:
    """Return the feasible candidates, best first by their nominal run."""
    return sorted((c for c in cands if c.feasible), key=lambda c: _key(c, objective))


def _none_feasible(cands, node: Node, max_latency_s) -> str:
    done = [c for c in cands if not c.metrics["run_failed"]
            and c.metrics["peak_rss_gib"] is not None]
    fits = [c for c in done if c.metrics["peak_rss_gib"] <= node.limit_gib]
    if max_latency_s is not None and fits:
        best = min(fits, key=lambda c: c.metrics["proof_latency_s"])
        return (f"no configuration meets the latency limit of {max_latency_s:g} s inside the "
                f"{node.limit_gib:g} GiB limit: the lowest mean latency found is "
                f"{best.metrics['proof_latency_s']:.0f} s ({best.knobs.label()})")
    return (f"no configuration fits under the {node.limit_gib:g} GiB limit "
            f"({len(done)} of {len(list(cands))} finished)")


# Rows of the alternatives table, after the recommendation.
ALTERNATIVES = 7


def _alternatives(result: TuneResult, checked, ranked, cands) -> list[Candidate]:
    """Return the next-best candidates, each showing a different way the node could run.

    First the other candidates checked for robustness (the nearest rivals, and
    the faster ones the moves ruled out), then the best of each other lock
    strategy and of the other admission rule, then the fastest run beyond the
    limits: what more memory (or a looser latency limit) would buy.
    """
    rec = result.recommended
    obj = result.request["objective"]
    out: list[Candidate] = []

    def add(c):
        if c is not None and c is not rec and c not in out and len(out) < ALTERNATIVES - 1:
            out.append(c)
    for c in sorted((c for c in checked if c.robustness.passes),
                    key=lambda c: (c.robustness.score, _key(c, obj)))[:2]:
        add(c)
    for c in [c for c in checked if not c.robustness.passes][:2]:
        add(c)
    shown = {c.knobs.lock for c in out} | ({rec.knobs.lock} if rec else set())
    for c in ranked:
        if c.knobs.lock not in shown:
            add(c)
            shown.add(c.knobs.lock)
    if rec is not None:
        add(next((c for c in ranked if c.knobs.admission != rec.knobs.admission), None))
    over = sorted((c for c in cands if not c.feasible and not c.metrics["run_failed"]
                   and c.metrics["seconds_per_proof"] is not None),
                  key=lambda c: _key(c, obj))
    if over and rec is not None and _key(over[0], obj) < _key(rec, obj):
        out.append(over[0])
    return out
