#!/usr/bin/env python3
"""Model against live on the live executor's grid, and the contention curve, in one JSON.

    python benchmarks/bench_compare.py --profile NAME --log2-constraints 20 --backend gpu \\
        [--locks interlock,split_async] [--gw 1,2] [--places 4:1,8:0.25,12:0 | --pw 2,4,8] \\
        [--proofs 3] [--partitions 4] [--gpu-threads 16] [--contention 0,1,2,3,4,6,8,11,12] \\
        [--repeat 3] [--verify] [--traces DIR] [--budget-s 400] [--row-repeats N] --json out.json
    python benchmarks/bench_compare.py --quick --profile NAME   # CPU stand-ins at 2^6

Each grid point (lock x gw x place) is simulated on the profile and run live
(``cuzklab.calibrate.compare_rows``), each in a process of its own (so that
every live row starts from the same resident memory, as the profile's solo run
did; ``--in-process`` runs them in this one). A *place* is ``pw:W``: the
partition workers and the witness work that put a run where it should be
(synthesis-bound, or bound by the CPU stages around the GPU); the model of a
row at another witness work than the profile's uses the profile's measured
witness slope (``profile_at_witness_work``). The JSON is rewritten after every
point, so a run cut short keeps what it measured. Rows the profile was fitted
on are marked ``fitted``; the verdict (targets: s/proof within 10 %, peak RSS
within 15 %, the same bottleneck) counts only the others. Then the contention
curve (prep_msm and b_g2_msm beside 0..N syntheses, on the ``--gpu-threads``
pool, medians of ``--repeat``) is measured with the model's curve beside it; by
default at 0, 1, 2, 4, 8 and 12 syntheses and at the counts the profile's pool
weight was fitted on, so that the curve is also judged on a weight fitted again
on those points in its own passes (``same_pass``, docs/calibrate.md).
``--traces DIR`` keeps each row's two traces there as Parquet
(``ROW-live.parquet`` and ``ROW-model.parquet``, ROW as ``split_async-gw1-pw12-w0``).
``--row-repeats N`` runs the whole grid N times over, pass after pass (so a host
whose speed drifts moves every row alike): each row is then the run of median
s/proof, with every run's s/proof, RSS and verdict and their spread
(``cuzklab.calibrate.compare.merge_repeats``), and the verdict gains
``live_noise``: how far one row's runs spread, against the 10 % target.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.backend import device_name  # noqa: E402
from cuzklab.calibrate.commands import format_curve  # noqa: E402
from cuzklab.calibrate.compare import (compare_rows, format_table, jsonable,  # noqa: E402
                                       merge_repeats, verdict, trace_name, attribute_worst)
from cuzklab.calibrate.contention import contention_curve  # noqa: E402
from cuzklab.model import PipelineConfig, Profile  # noqa: E402


def _list(kind):
    def parse(text):
        vals = [kind(x) for x in text.split(",") if x.strip()]
        if not vals:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        return vals
    return parse


def _places(text):
    out = []
    for item in text.split(","):
        pw, sep, w = item.strip().partition(":")
        try:
            out.append((int(pw), float(w) if sep else None))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected pw:W pairs such as 4:1,8:0.25, got {item!r}") \
                from None
        if out[-1][0] < 1 or (out[-1][1] is not None and out[-1][1] < 0):
            raise argparse.ArgumentTypeError(f"pw must be >= 1 and W >= 0, got {item!r}")
    if not out:
        raise argparse.ArgumentTypeError("expected at least one pw:W pair")
    return out


def _one_row(a) -> int:
    """Child mode: compare one configuration and write its row as JSON."""
    spec = json.loads(a.row)
    row = compare_rows([PipelineConfig.from_dict(spec["config"])], profile=a.profile,
                       log2_constraints=a.log2_constraints, backend=a.backend,
                       witness_work=spec["witness_work"], verify=a.verify,
                       keep_traces=bool(a.traces), track_host=a.track_host)[0]
    _save_traces(a, row, spec.get("pass"))
    write_text(a.row_out, json.dumps(row, indent=1, default=str))
    return 0


def _save_traces(a, row, pass_no=None) -> None:
    """Write a row's two traces under ``--traces`` (and drop them from the row); ``pass_no``:
    the pass of ``--row-repeats`` (its number ends the file names)."""
    traces = row.pop("traces", None)
    if not (a.traces and traces):
        return
    pathlib.Path(a.traces).mkdir(parents=True, exist_ok=True)
    for side, trace in traces.items():
        trace.save(pathlib.Path(a.traces) / trace_name(row["config"], row["witness_work"],
                                                       side, pass_no))


def _isolated(a, cfg, w, timeout_s, pass_no=None):
    """Return the row of one configuration compared in a process of its own (None if it failed)."""
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "row.json")
        cmd = [sys.executable, __file__, "--profile", a.profile, "--log2-constraints",
               str(a.log2_constraints), "--backend", a.backend, "--row",
               json.dumps({"config": cfg.to_dict(), "witness_work": w, "pass": pass_no}),
               "--row-out", out]
        if a.verify:
            cmd.append("--verify")
        if a.track_host:
            cmd.append("--track-host")
        if a.traces:
            cmd += ["--traces", a.traces]
        try:
            proc = subprocess.run(cmd, timeout=timeout_s, capture_output=True, text=True)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout_s:.0f} s"
        if proc.returncode != 0 or not os.path.exists(out):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return None, f"exit {proc.returncode}: " + " | ".join(tail)
        return json.loads(open(out).read()), None


def _tracked_note(row) -> str:
    """Return the host-tracked model's s/proof and error for a row's line ('' without)."""
    if not row.get("model_tracked"):
        return ""
    r, e = row["host_check"]["ratios"], row["error_tracked"]["seconds_per_proof"]
    return (f"; tracked {row['model_tracked']['seconds_per_proof']:.3f} "
            f"({'—' if e is None else f'{100 * e:+.1f} %'}; synth x{r['synth']:.2f}, "
            f"b_g2_msm x{r['b_g2_msm']:.2f})")


def live_table(rows) -> str:
    """Return the live side of the rows: s/proof, peak RSS, GPU busy, overhead, verified, verdict."""
    lines = [f"{'lock':<12} {'gw':>2} {'pw':>3} {'W':>5} {'s/proof':>8} {'peak RSS':>9} "
             f"{'GPU busy':>8} {'overhead':>8} {'verified':>8}  bottleneck"]
    for r in rows:
        c, lv = r["config"], r["live"]
        ver = lv.get("verification") or {}
        v = f"{ver.get('verified')}/{ver.get('checked')}" if ver.get("checked") else "—"
        ov = lv.get("overhead_fraction")
        lines.append(f"{c['lock']:<12} {c['gpu_workers_per_device']:>2} {c['partition_workers']:>3} "
                     f"{r.get('witness_work', 1.0):>5g} {lv['seconds_per_proof']:>8.3f} "
                     f"{lv['peak_rss_gib']:>8.2f}G {100 * (lv['gpu_busy_fraction'] or 0):>7.0f}% "
                     f"{'—' if ov is None else f'{100 * ov:.2f}%':>8} {v:>8}  {lv['bottleneck']}")
    return "\n".join(lines)


#: The contention curve's own counts (beside them, by default, the calibration's).
CURVE_COUNTS = (0, 1, 2, 4, 8, 12)


def curve_counts(prof) -> list[int]:
    """Return the curve's default counts: :data:`CURVE_COUNTS` and the counts the profile's
    pool weight was fitted on (``[calibration] contention_counts``), so that the curve
    also judges the model on a weight fitted again in its own passes (``same_pass``)."""
    fitted = prof.get("calibration", "contention_counts", []) or []
    return sorted({*CURVE_COUNTS, *(int(c) for c in fitted)})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--log2-constraints", type=int, default=20)
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    ap.add_argument("--locks", type=_list(str), default=["interlock", "split_async"])
    ap.add_argument("--gw", type=_list(int), default=[1, 2])
    ap.add_argument("--pw", type=_list(int), default=[2, 4, 8])
    ap.add_argument("--places", type=_places, default=None, metavar="PW:W,...",
                    help="partition workers and witness work per row group (replaces --pw)")
    ap.add_argument("--proofs", type=int, default=3)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--gpu-threads", type=int, default=16)
    ap.add_argument("--witness-work", type=float, default=1.0)
    ap.add_argument("--contention", type=_list(int), default=None,
                    help="syntheses to time prep_msm and b_g2_msm beside, 0 among them "
                         "(0 alone: no curve; default 0,1,2,4,8,12 and the counts the "
                         "profile's pool weight was fitted on, which the weight is fitted "
                         "again on in the same passes: the curve's same_pass)")
    ap.add_argument("--contention-rounds", type=int, default=None, metavar="N",
                    help="passes over the contention counts, each there and back "
                         "(default: the measurement's own)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--verify", action="store_true", help="pairing-check every partition proof")
    ap.add_argument("--in-process", action="store_true", help="run every row in this process")
    ap.add_argument("--traces", default=None, metavar="DIR",
                    help="keep each row's live and model traces in DIR as Parquet")
    ap.add_argument("--budget-s", type=float, default=400.0,
                    help="start no new grid point after this many seconds")
    ap.add_argument("--row-repeats", type=int, default=1,
                    help="run the grid this many times over, pass after pass; each row is then "
                         "the run of median s/proof, with every run's figures and their spread")
    ap.add_argument("--track-host", action="store_true",
                    help="a host check (one-thread synthesis, b_g2_msm calls on the pool) before "
                         "and after every live run, and the model at its speed beside the plain one")
    ap.add_argument("--quick", action="store_true", help="CPU stand-ins at 2^6, pw 1-2, gw 1")
    ap.add_argument("--json", default=None)
    ap.add_argument("--row", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--row-out", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.row_repeats < 1:
        ap.error(f"--row-repeats must be >= 1, got {a.row_repeats}")
    if a.contention_rounds is not None and a.contention_rounds < 1:
        ap.error(f"--contention-rounds must be >= 1, got {a.contention_rounds}")
    if a.row:
        return _one_row(a)
    if a.quick:
        a.backend, a.log2_constraints, a.pw, a.gw, a.proofs, a.partitions = "cpu", 6, [1, 2], [1], 2, 2
        a.gpu_threads, a.contention, a.repeat = 2, [0, 1, 2], 1
    places = a.places or [(pw, None) for pw in a.pw]
    places = [(pw, a.witness_work if w is None else w) for pw, w in places]
    prof = Profile.load(a.profile)
    if a.contention is None:
        a.contention = curve_counts(prof)
    out = {"benchmark": "compare", "device": device_name(a.backend), "backend": a.backend,
           "profile": prof.name, "calibration": prof.data.get("calibration", {}),
           "log2_constraints": a.log2_constraints, "proofs": a.proofs,
           "partitions": a.partitions, "gpu_threads": a.gpu_threads,
           "witness_work": a.witness_work, "places": places,
           "isolated": not a.in_process, "row_repeats": a.row_repeats,
           "track_host": a.track_host,
           "rows": [], "skipped": [], "failed": [],
           "native_stages": "this version's native code (cuzklab/native)"}
    cal = out["calibration"]
    print(f"profile {prof.name}: " + (f"calibrated {cal.get('date', '?')} on "
          f"{cal.get('machine', '?')} ({cal.get('method', '?')})" if cal else
          "no [calibration] table (not made by calibrate)"), flush=True)

    def save():
        if a.json:
            write_text(a.json, json.dumps(out, indent=1, default=str))

    t0 = time.perf_counter()
    grid = list(itertools.product(a.locks, a.gw, places))
    runs: dict = {}  # grid point -> its rows, one per pass

    def merged():
        return [merge_repeats(runs[p]) if len(runs[p]) > 1 else runs[p][0]
                for p in grid if runs.get(p)]
    for rep, (lock, gw, (pw, w)) in itertools.product(range(a.row_repeats), grid):
        left = a.budget_s - (time.perf_counter() - t0)
        point = {"lock": lock, "gw": gw, "pw": pw, "witness_work": w}
        if a.row_repeats > 1:
            point["pass"] = rep + 1
        if left <= 0:
            out["skipped"].append(point)
            continue
        cfg = PipelineConfig(proofs=a.proofs, concurrency=a.proofs, partitions=a.partitions,
                             partition_workers=pw, gpu_workers_per_device=gw, lock=lock,
                             gpu_threads=a.gpu_threads, memory_gib=754.0)
        if a.in_process:
            row = compare_rows([cfg], profile=prof, log2_constraints=a.log2_constraints,
                               backend=a.backend, witness_work=w, verify=a.verify,
                               keep_traces=bool(a.traces), track_host=a.track_host)[0]
            _save_traces(a, row, point.get("pass"))
        else:
            row, why = _isolated(a, cfg, w, max(30.0, left + 60.0), point.get("pass"))
            if row is None:
                out["failed"].append({**point, "why": why})
                save()
                print(f"{lock:<12} gw={gw} pw={pw} W={w:g}: FAILED ({why})", flush=True)
                continue
        runs.setdefault((lock, gw, (pw, w)), []).append(row)
        out["rows"] = merged()
        out["verdict"] = verdict(out["rows"])
        save()
        e = row["error"]
        print(("" if a.row_repeats == 1 else f"pass {rep + 1}: ") +
              f"{lock:<12} gw={gw} pw={pw} W={w:g}: s/proof {row['model']['seconds_per_proof']:.3f} | "
              f"{row['live']['seconds_per_proof']:.3f} ({100 * e['seconds_per_proof']:+.1f} %), "
              f"RSS {row['model']['peak_rss_gib']:.2f} | {row['live']['peak_rss_gib']:.2f} "
              f"({100 * e['peak_rss_gib']:+.1f} %), {row['model']['bottleneck']} | "
              f"{row['live']['bottleneck']}" + (" [fitted]" if row["fitted"] else "")
              + _tracked_note(row), flush=True)
    if out["skipped"]:
        print(f"skipped {len(out['skipped'])} grid point(s): started after --budget-s "
              f"{a.budget_s:g} s", flush=True)
    if out["rows"]:
        attribute_worst(out, out["rows"], prof)
        save()
        print(live_table(out["rows"]))
        print(format_table(jsonable(out)))
    if any(s > 0 for s in a.contention):  # the solo point alone is no curve
        curve = contention_curve(prof, a.log2_constraints, a.contention,
                                 pool_threads=a.gpu_threads, backend=a.backend,
                                 repeat=a.repeat, witness_work=a.witness_work,
                                 rounds=a.contention_rounds)
        out["contention"] = curve
        save()
        print(format_curve(curve, prof.data.get("calibration")))
    out["elapsed_s"] = round(time.perf_counter() - t0, 2)
    save()
    return 0 if not out["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
