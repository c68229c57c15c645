"""The recommendations for cuzk's machine classes, beside cuzk's own guidance.

``python -m cuzklab.tune.table --json FILE --write README.md docs/tuner.md``
tunes nodes of 128 to 768 GiB with one and two GPUs on the default profile
(:func:`cuzklab.tune.tune_series`: from the least RAM up, each search
starting from the previous answer), runs cuzk's own defaults for the machine
class (``memory.total_budget = "auto"``, ``gpu_workers_per_device = 2``,
``gpu_threads = 32``, ``max_parallel_synthesis = 18``) through the same
seeds and cost moves in the same model, keeps the rows as JSON and writes
the markdown table between the ``tune-table`` markers of each page (or
prints it). ``--from FILE`` renders a kept JSON again without tuning.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..pages import markers, with_block
from .space import Knobs

MEMORIES_GIB = (128, 256, 384, 512, 768)
GPUS = (1, 2)

# cuzk's guidance (Curio extern/cuzk: cuzk.example.toml, cuzk-memory-manager.md, phase 11):
# the budget decides ("auto" = MemTotal - 5 GiB), 2 GPU workers per device, gpu_threads = 32,
# pipeline.max_parallel_synthesis = 18.
CUZK_DEFAULT = dict(lock="split_async", admission="budget", partition_workers=18,
                    gpu_workers_per_device=2, gpu_threads=32, budget_gib=0.0)

# The lines of a page between which the table is written.
BEGIN, END = markers("tune-table")


def machine_class(memory_gib: float, gpus: int) -> str:
    """Return cuzk's name for the machine class (small: 96-128 GiB, 1 GPU; large: 256+ GiB)."""
    if memory_gib <= 128:
        return "small" + ("" if gpus == 1 else " (cuzk's small class has 1 GPU)")
    if memory_gib >= 256:
        return "large" + (" (cuzk's large class has 2-8 GPUs)" if gpus == 1 else "")
    return "between classes"


def cuzk_default(result, executor: str = "local", jobs: int | None = None,
                 scheduler=None) -> dict:
    """Return cuzk's defaults run on the node of ``result``, through the same robustness runs.

    The same proofs in flight as the recommendation, the same seeds and stage
    cost moves (:func:`cuzklab.tune.robust.scenarios`): the nominal run's
    metrics, and the mean, range and verdict over all the runs.
    """
    from ..model.profile import Profile
    from .parallel import Evaluator, make_executor
    from .robust import Robustness, scenarios
    r = result.request
    j = result.recommended.knobs.concurrency if result.recommended else 2
    k = Knobs(concurrency=j, **CUZK_DEFAULT)
    prof = result.node.apply(Profile.load(r["profile"]))
    runs = scenarios(r["seed"], r["seeds"], r["cost_move"])
    ev = Evaluator(result.node, prof, r["proofs"], make_executor(executor, jobs, scheduler),
                   progress=False)
    try:
        mets = ev.evaluate([(k, s) for s in runs], "cuzk_default")
    finally:
        ev.close()
    rob = Robustness(list(zip(runs, mets)), result.node.limit_gib, r["cost_move"],
                     r["max_latency_s"], r["objective"])
    failed = next((s for s, m in rob.runs if m["run_failed"]), None)
    return {"knobs": k.to_dict(), "label": k.label(), **mets[0],
            "seconds_per_proof_mean": rob.mean(), "spread": list(rob.spread()),
            "peak_rss_gib_max": rob.peak_max,
            "failed_under": failed.label() if failed is not None else None,
            "failure_reason_moved": next((m["failure_reason"] for _, m in rob.runs
                                          if m["run_failed"]), None),
            "robust": rob.passes, "why": rob.why or None}


def rows(memories=MEMORIES_GIB, gpus=GPUS, **tune_args) -> list[dict]:
    """Return one row per node: the recommendation and cuzk's defaults in the model.

    For each GPU count the nodes are tuned as a series (:func:`cuzklab.tune.tune_series`).
    """
    from .search import tune_series
    run_on = {k: tune_args[k] for k in ("executor", "jobs", "scheduler") if k in tune_args}
    out = []
    for g in gpus:
        for res in tune_series(memories, g, **tune_args):
            out.append(row(res, **run_on))
            print(f"{res.node.memory_gib:g} GiB x{g}: {out[-1].get('label', res.answer)}",
                  file=sys.stderr, flush=True)
    return out


def row(res, **run_on) -> dict:
    """Return the table's row for one tune: the recommendation, and cuzk's defaults beside it."""
    m, rec = res.node.memory_gib, res.recommended
    out = {"memory_gib": int(m) if float(m).is_integer() else m, "gpus": res.node.gpus,
           "class": machine_class(m, res.node.gpus), "feasible": res.feasible,
           "answer": res.answer, "simulations": res.simulation_count,
           "elapsed_s": res.elapsed_s, "limit_gib": res.node.limit_gib,
           "start": res.request.get("start", []), "cuzk_default": cuzk_default(res, **run_on)}
    if rec is not None:
        rob = rec.robustness
        out.update(label=rec.knobs.label(), knobs=rec.knobs.to_dict(),
                   seconds_per_proof=rec.s_per_proof, seconds_per_proof_mean=rob.mean(),
                   spread=list(rob.spread()), peak_rss_gib=rec.metrics["peak_rss_gib"],
                   peak_rss_gib_max=rob.peak_max, latency_s=rec.metrics["proof_latency_s"],
                   bottleneck=rec.metrics["bottleneck"]["resource"])
    return out


def markdown(table: list[dict]) -> str:
    """Return the table as markdown: s/proof is the mean over the robustness runs (their range)."""
    def f(v, fmt=".1f"):
        return "—" if v is None else format(v, fmt)

    def cuzk(d):
        if d["run_failed"]:
            return "out of memory" if d["failure_reason"] == "oom" else f"fails ({d['failure_reason']})"
        if d.get("failed_under"):
            what = "out of memory" if d["failure_reason_moved"] == "oom" else "fails"
            return (f"{f(d['seconds_per_proof'])} s/proof nominal; {what} under "
                    f"{d['failed_under']}")
        lo, hi = d["spread"]
        return (f"{f(d['seconds_per_proof_mean'])} ({f(lo)}–{f(hi)}) s/proof, peak "
                f"{f(d['peak_rss_gib_max'], '.0f')} GiB")
    lines = ["| RAM | GPUs | cuzk class | recommended (lock pw gw gt j admission) "
             "| s/proof: mean (range) | peak RSS: most (limit) | bound by "
             "| cuzk defaults in the model |",
             "|---|---|---|---|---|---|---|---|"]
    for r in table:
        if r["feasible"]:
            lo, hi = r["spread"]
            lines.append(f"| {r['memory_gib']} GiB | {r['gpus']} | {r['class']} | {r['label']} | "
                         f"{f(r['seconds_per_proof_mean'])} ({f(lo)}–{f(hi)}) | "
                         f"{f(r['peak_rss_gib_max'], '.0f')} GiB ({r['limit_gib']:g}) | "
                         f"{r['bottleneck']} | {cuzk(r['cuzk_default'])} |")
        else:
            lines.append(f"| {r['memory_gib']} GiB | {r['gpus']} | {r['class']} | none: "
                         f"{r['answer']} | — | — | — | {cuzk(r['cuzk_default'])} |")
    return "\n".join(lines)


def write_into(path, table_md: str) -> None:
    """Replace the lines between the ``tune-table`` markers of the page at ``path``."""
    from ..atomic import write_text
    text = Path(path).read_text(encoding="utf-8")
    write_text(path, with_block(text, BEGIN, END, table_md, str(path)))


def main(argv=None) -> int:
    """Tune the machine classes (or read ``--from``), keep the JSON, write or print the table."""
    p = argparse.ArgumentParser(prog="python -m cuzklab.tune.table", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", default=None, metavar="FILE", help="write the rows as JSON")
    p.add_argument("--from", dest="source", default=None, metavar="FILE",
                   help="render the rows of an earlier --json instead of tuning")
    p.add_argument("--write", nargs="+", default=[], metavar="PAGE",
                   help="write the table between the tune-table markers of these pages")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: the cores)")
    args = p.parse_args(argv)
    for page in args.write:
        text = Path(page).read_text(encoding="utf-8") if Path(page).is_file() else ""
        if text.count(BEGIN) != 1 or text.count(END) != 1:
            p.error(f"--write {page}: needs exactly one pair of lines {BEGIN} ... {END}")
    if args.source:
        table = json.loads(Path(args.source).read_text(encoding="utf-8"))
    else:
        table = rows(jobs=args.jobs, progress=False)
    if args.json:
        from ..atomic import write_text
        write_text(args.json, json.dumps(table, indent=1))
    md = markdown(table)
    for page in args.write:
        write_into(page, md)
    if not args.write:
        print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
