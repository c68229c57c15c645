#!/usr/bin/env python3
"""How much of the model-against-live target is the host's own noise.

    python benchmarks/row_noise.py [--target 0.10] [--trials 20000] [--json FILE]

Reads the stored comparison jobs (``benchmarks/results/compare-live-*.json``, the
rows run more than once: ``compare --repeats N``, or a job's later passes over its rows
stored beside it as ``NAME-passN.json``) and measures, per row of the live
executor's table (lock, gw, pw, witness work), the spread of one run's s/proof about
its row's mean: the pooled standard deviation of log s/proof within each row of each
job, so a host's speed from job to job does not enter it, its drift from pass to pass
does. Where the runs carry host checks (``--track-host``) it also measures the spread
of each run's error against its own host-tracked model.

Then it asks what that noise alone allows: a model with no error at all, judged as
``compare`` judges a repeated row (its median run, the lower of an even count), puts
every row of the table within ``--target`` with what probability, for 1 to 5 runs a
row? Runs are drawn lognormal with each row's measured spread, independently (a host
that drifts makes passes move together, which this leaves out). Prints both tables and
writes JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import pathlib
import random
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuzklab.atomic import write_text  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def row_key(row: dict) -> tuple:
    c = row["config"]
    return (c["lock"], int(c["gpu_workers_per_device"]), int(c["partition_workers"]),
            float(row.get("witness_work") if row.get("witness_work") is not None else 1.0))


def _runs(row: dict) -> list[tuple[float, float | None]]:
    """Return a stored row's runs: each one's s/proof and its host-tracked model's s/proof
    (None without host checks); the runs under ``live.repeats``, else the one live run."""
    live = row.get("live") or {}
    reps = live.get("repeats")
    if reps is None:
        reps = [dict(live, tracked=row.get("model_tracked"))]
    return [(float(x["seconds_per_proof"]), (x.get("tracked") or {}).get("seconds_per_proof"))
            for x in reps if x.get("seconds_per_proof") and not x.get("failed")]


def _job_and_pass(path) -> tuple[str, int]:
    """Return the job a stored comparison belongs to and its pass: ``NAME-passN.json`` is
    the N-th pass over the rows of ``NAME.json`` (pass 1) on its profile and host."""
    m = re.fullmatch(r"(.*)-pass(\d+)", pathlib.Path(path).stem)
    return (m.group(1), int(m.group(2))) if m else (pathlib.Path(path).stem, 1)


def pass_job(path) -> str:
    """Return the job a stored comparison belongs to: its passes' runs are more runs of
    the same rows."""
    return _job_and_pass(path)[0] + ".json"


def repeated_rows(paths) -> list[dict]:
    """Return every stored row run at least twice in one job (``compare --repeats N``, or
    a job's passes stored as ``-passN`` files beside it): its key, job, and each run's
    s/proof and host-tracked model s/proof (None where the run had no host checks)."""
    by: dict[tuple, list] = {}
    for path in sorted(paths, key=_job_and_pass):  # a job's own file first, then its passes
        d = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        for r in d.get("rows", []):
            by.setdefault((pass_job(path), row_key(r)), []).extend(_runs(r))
    return [{"key": key, "job": job, "live": [v for v, _ in runs],
             "tracked": [t for _, t in runs]}
            for (job, key), runs in by.items() if len(runs) >= 2]


def pooled_sd(groups: list[list[float]]) -> tuple[float | None, int]:
    """Return the pooled within-group standard deviation of the log values, and its degrees
    of freedom (None where no group has two values)."""
    ss = dof = 0
    for g in groups:
        if len(g) < 2:
            continue
        logs = [math.log(v) for v in g]
        m = sum(logs) / len(logs)
        ss += sum((x - m) ** 2 for x in logs)
        dof += len(logs) - 1
    return (math.sqrt(ss / dof) if dof else None), dof


def spreads(rows: list[dict]) -> dict:
    """Return per row key (and pooled over all): the run spread and the tracked residual's."""
    by: dict[tuple, dict] = {}
    for r in rows:
        b = by.setdefault(r["key"], {"live": [], "resid": [], "jobs": set()})
        b["live"].append(r["live"])
        b["jobs"].add(r["job"])
        if all(t for t in r["tracked"]):
            b["resid"].append([v / t for v, t in zip(r["live"], r["tracked"])])
            b.setdefault("live_tracked", []).append(r["live"])
    out = {}
    for key, b in sorted(by.items()):
        sd, dof = pooled_sd(b["live"])
        rsd, rdof = pooled_sd(b["resid"])
        out[key] = {"rows": len(b["live"]), "jobs": len(b["jobs"]), "sd": sd, "dof": dof,
                    "tracked_sd": rsd, "tracked_dof": rdof}
    all_sd, all_dof = pooled_sd([g for b in by.values() for g in b["live"]])
    all_rsd, all_rdof = pooled_sd([g for b in by.values() for g in b["resid"]])
    same_sd, _ = pooled_sd([g for b in by.values() for g in b.get("live_tracked", [])])
    out["all"] = {"rows": sum(len(b["live"]) for b in by.values()), "sd": all_sd, "dof": all_dof,
                  "tracked_sd": all_rsd, "tracked_dof": all_rdof,
                  "sd_of_tracked_rows": same_sd}
    return out


def p_all_within(sds: list[float], n: int, target: float, trials: int, seed: int = 0) -> float:
    """Return the probability that a model with no error puts every row within ``target``,
    each row judged on the median of ``n`` lognormal runs with its own spread (the lower
    median of an even count, as compare takes it)."""
    rng = random.Random(seed)
    lo, hi = math.log(1 / (1 + target)), math.log(1 / (1 - target))  # model/live - 1 in range
    ok = 0
    for _ in range(trials):
        for sd in sds:
            runs = sorted(rng.gauss(0.0, sd) for _ in range(n))
            judged = runs[(n - 1) // 2]
            if not lo <= judged <= hi:
                break
        else:
            ok += 1
    return ok / trials


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", type=float, default=0.10, help="the s/proof target (default 0.10)")
    ap.add_argument("--trials", type=int, default=20000, help="draws per probability (default 20000)")
    ap.add_argument("--results", type=pathlib.Path, default=RESULTS)
    ap.add_argument("--json", type=pathlib.Path, default=None)
    args = ap.parse_args(argv)
    if not 0 < args.target < 1:
        ap.error(f"--target must lie between 0 and 1, got {args.target}")
    if args.trials < 100:
        ap.error(f"--trials must be at least 100, got {args.trials}")
    paths = sorted(p for p in glob.glob(str(args.results / "compare-live-*.json"))
                   if "rejudged" not in p)
    rows = repeated_rows(paths)
    if not rows:
        ap.error(f"--results: no stored comparison in {args.results} has a row run twice")
    sp = spreads(rows)
    keys = [k for k in sp if k != "all"]
    print("| row (lock gw pw W) | rows run 2+ times | one run's spread (SD) | against its "
          "host-tracked model |")
    print("|---|---|---|---|")

    def pct(v):
        return "—" if v is None else f"{100 * v:.1f} %"
    for k in keys:
        s = sp[k]
        print(f"| {k[0]} {k[1]} {k[2]} {k[3]:g} | {s['rows']} ({s['jobs']} jobs) | {pct(s['sd'])} "
              f"(dof {s['dof']}) | {pct(s['tracked_sd'])} |")
    a = sp["all"]
    print(f"| all, pooled | {a['rows']} | {pct(a['sd'])} (dof {a['dof']}) | {pct(a['tracked_sd'])} "
          f"(dof {a['tracked_dof']}) |")
    if a["sd_of_tracked_rows"] is not None:
        print(f"(the runs with host checks alone: {pct(a['sd_of_tracked_rows'])} about their rows' "
              f"means, {pct(a['tracked_sd'])} against their host-tracked models)")
    per_row = [sp[k]["sd"] for k in keys]
    probs = []
    print(f"\nA model with no error, every one of the {len(keys)} rows within {100 * args.target:g} %:")
    print("| runs a row | each row's own spread | the host-tracked spread (pooled) |")
    print("|---|---|---|")
    for n in range(1, 6):
        p = p_all_within(per_row, n, args.target, args.trials)
        pt = (p_all_within([a["tracked_sd"]] * len(keys), n, args.target, args.trials)
              if a["tracked_sd"] else None)
        probs.append({"runs": n, "p_all_rows": p, "p_all_rows_tracked": pt})
        print(f"| {n} | {100 * p:.0f} % | {'—' if pt is None else f'{100 * pt:.0f} %'} |")
    if args.json:
        report = {"benchmark": "row_noise", "target": args.target, "trials": args.trials,
                  "jobs": sorted({r["job"] for r in rows}),
                  "spreads": [{"row": list(k), **{kk: vv for kk, vv in sp[k].items()}}
                              for k in keys],
                  "pooled": a, "probabilities": probs}
        write_text(args.json, json.dumps(report, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
