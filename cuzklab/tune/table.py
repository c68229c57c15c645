"""The recommendations for cuzk's machine classes, beside cuzk's own guidance.

``python -m cuzklab.tune.table [--json FILE]`` tunes nodes of 128 to 768 GiB
with one and two GPUs on the default profile and prints a markdown table:
the recommendation, its predicted figures, and what cuzk's own defaults for
the machine class (``memory.total_budget = "auto"``, ``gpu_workers_per_device
= 2``, ``gpu_threads = 32``, ``max_parallel_synthesis = 18``) give in the same
model. docs/tuner.md and the README show its output.
"""

from __future__ import annotations

import argparse
import json
import sys

from .space import Knobs

MEMORIES_GIB = (128, 256, 384, 512, 768)
GPUS = (1, 2)

# cuzk's guidance (Curio extern/cuzk: cuzk.example.toml, cuzk-memory-manager.md, phase 11):
# the budget decides ("auto" = MemTotal - 5 GiB), 2 GPU workers per device, gpu_threads = 32,
# pipeline.max_parallel_synthesis = 18.
CUZK_DEFAULT = dict(lock="split_async", admission="budget", partition_workers=18,
                    gpu_workers_per_device=2, gpu_threads=32, budget_gib=0.0)


def machine_class(memory_gib: float, gpus: int) -> str:
    """Return cuzk's name for the machine class (small: 96-128 GiB, 1 GPU; large: 256+ GiB)."""
    if memory_gib <= 128:
        return "small" + ("" if gpus == 1 else " (cuzk's small class has 1 GPU)")
    if memory_gib >= 256:
        return "large" + (" (cuzk's large class has 2-8 GPUs)" if gpus == 1 else "")
    return "between classes"


def cuzk_default(result) -> dict:
    """Return the model's run of cuzk's defaults on the node of ``result`` (same proofs in flight)."""
    from ..model.profile import Profile
    from ..sim import simulate
    from .evaluate import metrics_of
    r = result.request
    j = result.recommended.knobs.concurrency if result.recommended else 2
    k = Knobs(concurrency=j, **CUZK_DEFAULT)
    prof = result.node.apply(Profile.load(r["profile"]))
    cfg = k.config(result.node, r["proofs"], r["seed"])
    return {"knobs": k.to_dict(), "label": k.label(), **metrics_of(simulate(cfg, prof).summary())}


def rows(memories=MEMORIES_GIB, gpus=GPUS, **tune_args) -> list[dict]:
    """Return one row per node: the recommendation and cuzk's defaults in the model."""
    from .search import tune
    out = []
    for g in gpus:
        for m in memories:
            res = tune(m, g, **tune_args)
            rec = res.recommended
            row = {"memory_gib": m, "gpus": g, "class": machine_class(m, g),
                   "feasible": res.feasible, "answer": res.answer,
                   "simulations": res.simulation_count, "elapsed_s": res.elapsed_s,
                   "limit_gib": res.node.limit_gib, "cuzk_default": cuzk_default(res)}
            if rec is not None:
                lo, hi = rec.robustness.spread()
                row.update(label=rec.knobs.label(), knobs=rec.knobs.to_dict(),
                           seconds_per_proof=rec.s_per_proof, spread=[lo, hi],
                           peak_rss_gib=rec.metrics["peak_rss_gib"],
                           peak_rss_gib_max=rec.robustness.peak_max,
                           latency_s=rec.metrics["proof_latency_s"],
                           bottleneck=rec.metrics["bottleneck"]["resource"])
            out.append(row)
            print(f"{m} GiB x{g}: {row.get('label', res.answer)}", file=sys.stderr, flush=True)
    return out


def markdown(table: list[dict]) -> str:
    """Return the table as markdown."""
    def f(v, fmt=".1f"):
        return "—" if v is None else format(v, fmt)
    lines = ["| RAM | GPUs | cuzk class | recommended (lock pw gw gt j admission) | s/proof (spread) "
             "| peak RSS (limit) | bound by | cuzk defaults in the model |",
             "|---|---|---|---|---|---|---|---|"]
    for r in table:
        d = r["cuzk_default"]
        dflt = (("out of memory" if d["failure_reason"] == "oom" else f"fails ({d['failure_reason']})")
                if d["run_failed"]
                else f"{f(d['seconds_per_proof'])} s/proof, peak {f(d['peak_rss_gib'], '.0f')} GiB")
        if r["feasible"]:
            lo, hi = r["spread"]
            lines.append(f"| {r['memory_gib']} GiB | {r['gpus']} | {r['class']} | {r['label']} | "
                         f"{f(r['seconds_per_proof'])} ({f(lo)}–{f(hi)}) | "
                         f"{f(r['peak_rss_gib'], '.0f')} GiB ({r['limit_gib']:g}) | "
                         f"{r['bottleneck']} | {dflt} |")
        else:
            lines.append(f"| {r['memory_gib']} GiB | {r['gpus']} | {r['class']} | none: "
                         f"{r['answer']} | — | — | — | {dflt} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Tune the machine classes and print the markdown table (``--json FILE`` keeps the rows)."""
    p = argparse.ArgumentParser(prog="python -m cuzklab.tune.table", description=__doc__)
    p.add_argument("--json", default=None, metavar="FILE", help="write the rows as JSON")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: the cores)")
    args = p.parse_args(argv)
    table = rows(jobs=args.jobs, progress=False)
    if args.json:
        from ..atomic import write_text
        write_text(args.json, json.dumps(table, indent=1))
    print(markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
