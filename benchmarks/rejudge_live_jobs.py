#!/usr/bin/env python3
"""Judge every stored live job again with this version: the README's tables of jobs and curves.

    python benchmarks/rejudge_live_jobs.py [--jobs 27,30] [--json out.json] [--markdown]
                                           [--png out.png] [--repace N]
                                           [--pool-weight W] [--witness-beside-pool X0,XW]
                                           [--serial-share core|even]

Each job's profile is made again from the measurements of its calibration
(``derive_profile``, as ``cuzklab calibrate --measurements`` does), and the model is
simulated again against the job's stored live rows (``remodel``, as ``cuzklab compare
--measured`` does; nothing runs live). The jobs and their files are listed in ``JOBS``
below, in the order they ran; the seventeenth to nineteenth ran on the sixteenth job's
profile, the twenty-eighth on the twenty-seventh's, the thirty-ninth and fortieth on the
thirty-eighth's, the forty-second and forty-third on the forty-first's and the forty-fifth
and forty-sixth on the forty-fourth's, so they are judged on those (the forty-fourth to
forty-sixth each on that calibration re-paced anew right before its rows, ``REPACED``).
Prints, per job, the rows within 10 % (plain and, where the job timed host checks,
host-tracked), the worst row with the stage whose live time closes most of its gap,
the worst peak RSS error and the verdicts; then every row's error over all jobs (within
10 %, rms). The contention curves measured the present way (``CURVES``) are judged
the same way (``remodel_curve``, on the profile made again from their job's calibration):
each point's b_g2_msm slowdown, live and model, the worst point and whether every point is
within 15 %. For the jobs that timed host checks, each job also gets the median over its
rows of the checks over the profile (``checks``) and the plain model's median error, and
``pace_fit`` says how closely the second follows the first over those jobs. ``--markdown``
prints both tables as the README has them; ``--json`` writes it all; ``--png`` draws the
jobs' errors against their checks; each job with checks is also judged on its profile re-
paced to its ``--repace N`` (default 3) earliest checks (``calibrate --repace`` right
before the rows, as near as the stored job holds; 0: not). Every row with host checks and
a saved live trace also sets when the host-tracked model's first and last syntheses end,
and the run, beside the live run (``waves``, medians per witness work and partition
workers). Each curve is also judged with its pool weight fitted on sets of its own points
(``line_fits``: which counts a calibration's one line should be fitted at). A change of the
model's mechanisms or of how a profile is derived is judged by running this before and
after it; ``--pool-weight``, ``--witness-beside-pool`` and ``--serial-share`` judge every
job with one of the model's alternatives in place of what its calibration gives.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.calibrate.hostcheck import REPACE_CHECKS  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

#: (job number, date, its compare files, the calibration its profile is made from, what
#: the README says of its rows); a compare file's live traces, where the job kept them,
#: are in the folder of its name (``traces-live-h200-NAME``; ``KIND`` names the hosts of
#: the jobs that ran elsewhere)
JOBS = [
    (11, "2026-12-02", ["r10"], "r10", "all twelve rows, one run"),
    (13, "2026-12-03", ["r12"], "r12", "all twelve rows, one run"),
    (14, "2026-12-03", ["r13"], "r13", "all twelve rows, one run"),
    (16, "2026-12-03", ["r15"], "r15", "one run a row"),
    (17, "2026-12-03", ["r15-repeats"], "r15",
     "the sixteenth job's profile, gw=2 rows, median of 3 runs"),
    (18, "2026-12-03", ["r15-repeats-gw1"], "r15",
     "the sixteenth job's profile, interlock gw=1 rows, median of 3 runs"),
    (19, "2026-12-03", ["r15-repeats-split-gw1"], "r15",
     "the sixteenth job's profile, split_async gw=1 rows, median of 3 runs"),
    (24, "2026-12-03", ["r17-samehost-gw2"], "r17",
     "its own host's profile, gw=2 rows, median of 3 runs"),
    (25, "2026-12-03", ["r18-samehost-split-gw1"], "r18",
     "its own host's profile, split_async gw=1 rows, median of 3 runs"),
    (27, "2026-12-03", ["r20-samehost-tracked"], "r20",
     "its own host's profile, all twelve rows, median of 2 runs, 1 on the split_async gw=1 rows"),
    (28, "2026-12-03", ["r21-otherhost-tracked"], "r20",
     "the twenty-seventh's profile on another host, gw=2 rows, one run"),
    (29, "2026-12-03", ["r22-samehost-tracked-gw1", "r22-samehost-tracked-gw2"], "r22",
      "its own host's profile, all twelve rows, median of 3 runs on gw=1 (2 on split_async "
     "pw=12), of 2 on gw=2"),
    (30, "2026-12-04", ["r23-samehost-tracked-gw1", "r23-samehost-tracked-gw2"], "r23",
      "its own host's profile, all twelve rows, median of 2 runs, 1 on the split_async pw=8 "
     "and pw=12 rows"),
    (31, "2026-12-04", ["r24-samehost-tracked-gw2"], "r24",
     "its own host's profile, gw=2 rows, one run"),
    (32, "2026-12-05", ["r25-samehost-tracked"], "r25",
     "its own host's profile, all twelve rows, one run"),
    (33, "2026-12-05", ["r26-samehost-tracked-gw2"], "r26",
     "its own host's profile, the four gw=2 rows at pw=8 and pw=12, one run"),
    (34, "2026-12-05", ["r27-samehost-tracked"], "r27",
     "its own host's profile, all twelve rows, one run"),
    (35, "2026-12-05", ["r28-samehost-tracked"], "r28",
     "its own host's profile (an H100 machine's host, the same 16-vCPU Xeon), eleven of the "
     "twelve rows (the last did not start in the time left), one run"),
    (36, "2026-12-05", ["r29-samehost-gw1", "r29-samehost-gw2"], "r29",
     "its own host's profile, all twelve rows, median of 3 runs, without host checks"),
    (37, "2026-12-05", ["r30-samehost-tracked"], "r30",
     "its own host's profile (an H100 machine's host), ten of the twelve rows (split_async "
     "gw=2 pw=8 and pw=12 did not start in the time left), one run"),
    (38, "2026-12-05", ["r31-samehost-tracked"], "r31",
     "its own host's profile (an H100 machine's host), all twelve rows, one run, then the "
     "contention curve"),
    (39, "2026-12-05", ["r31-samehost-tracked-pass2"], "r31",
     "the thirty-eighth's profile on its host, all twelve rows again, one run"),
    (40, "2026-12-05", ["r31-samehost-tracked-pass3"], "r31",
     "the thirty-eighth's profile on its host, all twelve rows a third time, one run"),
    (41, "2026-12-05", ["r32-samehost-tracked"], "r32",
     "its own host's profile (an H100 machine's host), all twelve rows, one run, then the "
     "contention curve"),
    (42, "2026-12-05", ["r32-samehost-tracked-pass2"], "r32",
     "the forty-first's profile on its host, eleven of the twelve rows again (split_async "
     "gw=2 pw=12 did not start in the time left), one run"),
    (43, "2026-12-05", ["r32-samehost-tracked-pass3"], "r32",
     "the forty-first's profile on its host, all twelve rows a third time, one run"),
    (44, "2026-12-05", ["r33-samehost-repaced"], "r33",
     "its own host's profile (an H100 machine's host) re-paced right before the rows, all "
     "twelve rows, one run"),
    (45, "2026-12-05", ["r33-samehost-repaced-pass2"], "r33",
     "the forty-fourth's profile on its host, re-paced anew right before, all twelve rows "
     "again, one run"),
    (46, "2026-12-05", ["r33-samehost-repaced-pass3"], "r33",
     "the forty-fourth's profile on its host, re-paced anew right before, all twelve rows "
     "a third time, one run"),
    (47, "2026-12-05", ["r33-otherhost-repaced"], "r33",
     "the forty-fourth's profile on another H100 machine's host five hours later, re-paced "
     "right before at both witness works, all twelve rows, one run"),
    (48, "2026-12-05", ["r33-otherhost-repaced-pass2"], "r33",
     "the forty-fourth's profile on the forty-seventh's host, re-paced anew at both works, "
     "all twelve rows again, one run"),
    (49, "2026-12-05", ["r33-otherhost-repaced-pass3"], "r33",
     "the forty-fourth's profile on the forty-seventh's host, re-paced anew at both works, "
     "all twelve rows a third time, one run"),
    (50, "2026-12-06", ["r34-samehost-tracked"], "r34",
     "its own host's profile (calibrated at both witness works, contention beside 3, 6 and "
     "11 syntheses), all twelve rows, one run, then the contention curve"),
    (51, "2026-12-06", ["r34-samehost-repaced"], "r34",
     "the fiftieth's profile on its host, re-paced right before at both works, all twelve "
     "rows again, one run"),
    (52, "2026-12-06", ["r35-samehost-tracked"], "r35",
     "its own host's profile (an H100 machine's host; calibrated at both witness works, with "
     "the witness step of 1 to 16 syntheses at once at work 0), all twelve rows, one run, "
     "then the contention curve"),
    (53, "2026-12-06", ["r35-samehost-repaced"], "r35",
     "the fifty-second's profile on its host, re-paced right before at both works, all "
     "twelve rows again, one run"),
    (54, "2026-12-06", ["r35-samehost-repaced-pass2"], "r35",
     "the fifty-second's profile on its host, re-paced anew at both works, all twelve rows "
     "a third time, one run"),
    (55, "2026-12-06", ["r36-samehost-tracked"], "r36",
     "its own host's profile (an H100 machine's host whose one-thread probe spread 62 % over "
     "the calibration; the first with the prep_msm and W=0 witness beside the b_g2_msm "
     "pool), all twelve rows, one run, then the contention curve"),
    (56, "2026-12-06", ["r36-samehost-repaced"], "r36",
     "the fifty-fifth's profile on its host, re-paced right before at both works, all "
     "twelve rows again, one run"),
    (57, "2026-12-06", ["r37-samehost-tracked"], "r37",
     "its own host's profile (an H100 machine's host; the first with prep_msm's passes on "
     "the b_g2_msm pool's queue, as cuzk runs them), all twelve rows, one run, then the "
     "contention curve"),
    (58, "2026-12-06", ["r37-samehost-repaced"], "r37",
     "the fifty-seventh's profile on its host, re-paced right before at both works, all "
     "twelve rows again, one run"),
    (59, "2026-12-06", ["r38-samehost-tracked"], "r38",
     "its own host's profile (an H100 machine's host whose one-thread probe spread 52 % over "
     "the calibration), eleven of the twelve rows (the last skipped at the run's time "
     "budget), one run, then the contention curve"),
    (60, "2026-12-06", ["r38-samehost-repaced"], "r38",
     "the fifty-ninth's profile on its host, re-paced right before at both works, all "
     "twelve rows again, one run"),
    (61, "2026-12-06", ["r39-samehost-tracked"], "r39",
     "its own host's profile (an H100 machine's host whose one-thread probe spread 1 % over "
     "the calibration; the first with the witness step timed beside the b_g2_msm pool at "
     "both works), all twelve rows, one run, then the contention curve"),
    (62, "2026-12-06", ["r39-samehost-repaced"], "r39",
     "the sixty-first's profile on its host, re-paced right before at both works, all "
     "twelve rows again, one run"),
    (63, "2026-12-06", ["r39-samehost-repaced-pass2"], "r39",
     "the sixty-first's profile on its host, re-paced anew at both works, all twelve rows "
     "a third time, one run"),
    (66, "2026-12-06", ["r41-samehost-repaced"], "r41",
     "the sixty-fifth's profile on its host (an H100 machine's host whose one-thread probe "
     "spread 94 % over the calibration), re-paced right before at both works, all twelve "
     "rows, one run"),
]

#: the jobs whose rows ran on their calibration re-paced right before them (``calibrate
#: --repace``, the suite's repace step): the file that step wrote (its checks), under
#: ``RESULTS``; the job is judged on its calibration re-paced to those checks
REPACED: dict[int, str] = {44: "repace-live-h100-r33.json",
                           45: "repace-live-h100-r33-pass2.json",
                           46: "repace-live-h100-r33-pass3.json",
                           47: "repace-live-h100-r33-otherhost.json",
                           48: "repace-live-h100-r33-otherhost-pass2.json",
                           49: "repace-live-h100-r33-otherhost-pass3.json",
                           51: "repace-live-h200-r34.json",
                           53: "repace-live-h100-r35.json",
                           54: "repace-live-h100-r35-pass2.json",
                           56: "repace-live-h100-r36.json",
                           58: "repace-live-h100-r37.json",
                           60: "repace-live-h100-r38.json",
                           62: "repace-live-h100-r39.json",
                           63: "repace-live-h100-r39-pass2.json",
                           66: "repace-live-h100-r41.json"}

#: the kind of machine a job ran on where it is not an H200's (its files are named for it:
#: ``calibrate-live-KIND-...``)
KIND = {35: "h100", 37: "h100", 38: "h100", 39: "h100", 40: "h100", 41: "h100", 42: "h100",
        43: "h100", 44: "h100", 45: "h100", 46: "h100", 47: "h100", 48: "h100", 49: "h100",
        52: "h100", 53: "h100", 54: "h100", 55: "h100", 56: "h100", 57: "h100", 58: "h100",
        59: "h100", 60: "h100", 61: "h100", 62: "h100", 63: "h100", 64: "h100",
        65: "h100", 66: "h100"}

_ORDINAL = {11: "eleventh", 13: "thirteenth", 14: "fourteenth", 16: "sixteenth",
            17: "seventeenth", 18: "eighteenth", 19: "nineteenth", 24: "twenty-fourth",
            25: "twenty-fifth", 27: "twenty-seventh", 28: "twenty-eighth", 29: "twenty-ninth",
            30: "thirtieth", 31: "thirty-first", 32: "thirty-second", 33: "thirty-third",
            34: "thirty-fourth", 35: "thirty-fifth", 36: "thirty-sixth",
            37: "thirty-seventh", 38: "thirty-eighth", 39: "thirty-ninth", 40: "fortieth",
            41: "forty-first", 42: "forty-second", 43: "forty-third",
            44: "forty-fourth", 45: "forty-fifth", 46: "forty-sixth",
            47: "forty-seventh", 48: "forty-eighth", 49: "forty-ninth", 50: "fiftieth",
            51: "fifty-first", 52: "fifty-second", 53: "fifty-third", 54: "fifty-fourth",
            55: "fifty-fifth", 56: "fifty-sixth", 57: "fifty-seventh", 58: "fifty-eighth",
            59: "fifty-ninth", 60: "sixtieth", 61: "sixty-first", 62: "sixty-second",
            63: "sixty-third", 64: "sixty-fourth", 65: "sixty-fifth", 66: "sixty-sixth",
            23: "twenty-third", 26: "twenty-sixth"}

#: the stored contention curves measured the present way (each prep_msm call over a
#: one-thread probe timed around it, every point's visits kept so that slowdowns pair
#: visits of one pass): (job number, date, the file that holds the curve, the calibration
#: its profile is made from); a compare file holds its curve under ``contention``
CURVES = [
    (23, "2026-12-03", "contention-curve-live-h200-r16.json", "r16"),
    (26, "2026-12-03", "contention-curve-live-h200-r19.json", "r19"),
    (27, "2026-12-03", "contention-curve-live-h200-r20.json", "r20"),
    (29, "2026-12-03", "contention-curve-live-h200-r22.json", "r22"),
    (30, "2026-12-04", "contention-curve-live-h200-r23.json", "r23"),
    (34, "2026-12-05", "compare-live-h200-r27-samehost-tracked.json", "r27"),
    (35, "2026-12-05", "compare-live-h100-r28-samehost-tracked.json", "r28"),
    (38, "2026-12-05", "compare-live-h100-r31-samehost-tracked.json", "r31"),
    (41, "2026-12-05", "compare-live-h100-r32-samehost-tracked.json", "r32"),
    (50, "2026-12-06", "compare-live-h200-r34-samehost-tracked.json", "r34"),
    (52, "2026-12-06", "compare-live-h100-r35-samehost-tracked.json", "r35"),
    (55, "2026-12-06", "compare-live-h100-r36-samehost-tracked.json", "r36"),
    (57, "2026-12-06", "compare-live-h100-r37-samehost-tracked.json", "r37"),
    (59, "2026-12-06", "compare-live-h100-r38-samehost-tracked.json", "r38"),
    (61, "2026-12-06", "compare-live-h100-r39-samehost-tracked.json", "r39"),
    # the curve alone, right after its calibration, with the calibration's counts visited
    # too (the first with a same-pass judgement)
    (64, "2026-12-06", "contention-curve-live-h100-r40.json", "r40"),
    (65, "2026-12-06", "contention-curve-live-h100-r41.json", "r41"),
]


def _row_name(row) -> str:
    c = row["config"]
    return (f"{c['lock']} gw={c['gpu_workers_per_device']} pw={c['partition_workers']} "
            f"W={row['witness_work']:g}")


def _gap(attribution) -> str:
    """The stage whose live time closes most of the worst row's s/proof gap, in words.

    ``attribution``: the comparison's simulations of its worst row again with one stage
    at its live time (``verdict.worst.attribution``)."""
    best = max((a for a in attribution or () if a.get("closes") is not None),
               key=lambda a: a["closes"], default=None)
    if best is None or best["closes"] <= 0:
        return "no single stage at its live time closes its gap"
    return (f"{best['stage']} at its live {best['by']}, x{best['live_over_model']:.2f} the "
            f"model's, closes {100 * best['closes']:.0f} % of the gap")


def earliest_checks(stored: list[dict], n: int, witness_work: float = 1.0) -> list[dict]:
    """Return the ``n`` earliest host checks of a job's stored comparisons, of its rows at
    ``witness_work`` (a check's synthesis is timed at its row's witness work, and a
    re-pacing sets it beside the profile's at the calibration's): what ``calibrate
    --repace`` would have timed right before the rows, as near as the stored job holds."""
    checks = []
    for res in stored:
        for row in res["rows"]:
            if float(row.get("witness_work", 1.0)) != witness_work:
                continue
            for run in [row] + list((row.get("live") or {}).get("repeats") or []):
                hc = run.get("host_check") or {}
                checks += [c for c in (hc.get("before"), hc.get("after")) if c]
    uniq = {c["at"]: c for c in checks}  # a row run once keeps its checks in both places
    return [uniq[t] for t in sorted(uniq)][:n]


def _row_errors(files: list[dict], prof) -> list[float]:
    """Return the s/proof errors of the rows of a job's stored comparisons not fitted, the
    model simulated again on ``prof``."""
    from cuzklab.calibrate.compare import remodel
    return [r["error"]["seconds_per_proof"] for f in files for r in remodel(f, prof)["rows"]
            if not r.get("fitted")]


def _summary(errs: list[float]) -> dict:
    """Return how many of ``errs`` are within 10 %, of how many, and their median."""
    return {"within_10": sum(abs(e) <= 0.10 for e in errs), "rows": len(errs),
            "median_error": round(statistics.median(errs), 4)}


def _gmean(xs) -> float:
    logs = [math.log(x) for x in xs]
    return math.exp(statistics.fmean(logs))


def judge(job, folder: Path, repace: int = 0, pool_weight: float | None = None,
          beside_pool: tuple[float, float] | None = None,
          serial_share: str | None = None, neighbour: bool = False) -> dict:
    """Return one job's rows judged on the profile made again from its calibration.

    ``repace``: also judge them on that profile re-paced to the job's ``repace`` earliest
    host checks (:func:`earliest_checks`), where it has them. ``pool_weight``,
    ``beside_pool``, ``serial_share`` and ``neighbour``: what-ifs (:func:`_load_profile`)."""
    from cuzklab.calibrate.compare import remodel
    number, date, compares, cal, how = job
    kind = KIND.get(number, "h200")
    prof = _load_profile(number, cal, folder, pool_weight, beside_pool, serial_share,
                         neighbour=neighbour)
    rows, worsts, files = [], [], []
    for name in compares:
        stored = json.loads((RESULTS / f"compare-live-{kind}-{name}.json").read_text())
        files.append(stored)
        tr = RESULTS / f"traces-live-{kind}-{name}"
        res = remodel(stored, prof, live_traces=tr if tr.is_dir() else None)
        rows += res["rows"]
        worsts.append((res["verdict"].get("worst") or {}))
    repaced = None
    first = earliest_checks(files, repace) if repace else []
    if first:
        from cuzklab.calibrate.hostcheck import host_ratios, tracked_profile
        ratios = host_ratios(prof, first)["ratios"]
        now = tracked_profile(prof, ratios)
        errs = _row_errors(files, now)
        repaced = {"checks": len(first), "ratios": ratios, **_summary(errs),
                   "errors": [round(e, 4) for e in errs]}
        zero = earliest_checks(files, repace, 0.0)
        if zero and float(prof.get("calibration", "witness_work") or 1.0) == 1.0:
            # and at both witness works: the W=0 synthesis from the checks' own ratio
            ratio = _gmean(c["synth_s"] for c in zero) / _gmean(c["synth_s"] for c in first)
            at0 = {"synth_ratio_at_other": ratio, "other_work": 0.0}
            repaced["both_works"] = {"checks_at_0": len(zero), "synth_ratio_at_0": round(ratio, 4),
                                     **_summary(_row_errors(files, now.replace(calibration=at0)))}
            # the plain profile with that line alone (what calibrate --live now measures)
            line = _summary(_row_errors(files, prof.replace(calibration=at0)))
            repaced["line_only"] = {"within_10": line["within_10"], "rows": line["rows"]}
    judged = [r for r in rows if not r.get("fitted")]
    err = [r["error"]["seconds_per_proof"] for r in judged]
    worst = max(judged, key=lambda r: abs(r["error"]["seconds_per_proof"]))
    attribution = max(worsts, key=lambda w: abs(w.get("seconds_per_proof_error", 0.0)))
    attribution = attribution.get("attribution")
    tracked = [r["error_tracked"]["seconds_per_proof"] for r in judged if r.get("error_tracked")]
    ratios = [r["host_check"]["ratios"] for r in judged if r.get("host_check")]
    checks = ({stage: round(statistics.median(x[stage] for x in ratios), 4)
               for stage in ("synth", "b_g2_msm")} | {"rows": len(ratios)}) if ratios else None
    return {
        "job": number, "date": date, "files": compares, "calibration": cal, "how": how,
        "rows": len(judged), "within_10": sum(abs(e) <= 0.10 for e in err),
        "tracked_rows": len(tracked), "tracked_within_10": sum(abs(e) <= 0.10 for e in tracked),
        "errors": [round(e, 4) for e in err], "median_error": round(statistics.median(err), 4),
        "row_errors": [{"row": _row_name(r), "error": round(r["error"]["seconds_per_proof"], 4),
                        "tracked": (round(r["error_tracked"]["seconds_per_proof"], 4)
                                    if r.get("error_tracked") else None)} for r in judged],
        "checks": checks, **({"repaced": repaced} if repaced else {}),
        "waves": wave_rows(rows),
        "worst": {"row": _row_name(worst), "error": worst["error"]["seconds_per_proof"],
                  "gap": _gap(attribution)},
        "peak_rss_worst": max((r["error"]["peak_rss_gib"] for r in judged), key=abs),
        "same_verdict": sum(bool(r["error"]["same_verdict"]) for r in judged),
    }


def wave_rows(rows: list[dict]) -> list[dict]:
    """Return, for each judged row with host checks and a saved live trace (``remodel``'s
    rows), its witness work, partition workers, the host-tracked model's
    ``compare.synth_ends`` over the live run's, less 1, and its b_g2_msm pool's pace
    likewise (the model at the host's checked speed, as ``compare --track-host`` simulates
    it)."""
    out = []
    for r in rows:
        err = r.get("error_tracked") or {}
        if r.get("fitted") or not err.get("synth_ends_s"):
            continue
        lws = r["live"].get("synth_waves_s") or {}
        lw = lws.get("later_over_first")
        mws = (r.get("model_tracked") or {}).get("synth_waves_s") or {}
        mw = mws.get("later_over_first")
        steps = {f"later_{k}_live": lws[f"{k}_later_over_first"] for k in ("witness", "cpu")
                 if lws.get(f"{k}_later_over_first")}
        if len(steps) < 2:  # both of the live step's figures or neither
            steps = {}
        elif mws.get("witness_later_over_first"):
            steps["later_witness_model"] = mws["witness_later_over_first"]
        out.append({"witness_work": r["witness_work"],
                    "partition_workers": r["config"]["partition_workers"],
                    "lock": r["config"]["lock"], "gw": r["config"]["gpu_workers_per_device"],
                    "cycle": err.get("worker_cycle_s"),
                    **err["synth_ends_s"], "pace": err.get("pool_interval_s"),
                    **({"later_live": lw, "later_model": mw} if lw and mw else {}),
                    **steps})
    return out


def _corr(xs: list[float], ys: list[float]) -> float | None:
    """Return the correlation of ``xs`` and ``ys`` (None for fewer than three or no spread)."""
    if len(xs) < 3:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return round(sxy / math.sqrt(sxx * syy), 4) if sxx > 1e-12 and syy > 1e-12 else None


def waves(jobs: list[dict]) -> list[dict]:
    """Return, per (witness work, partition workers) over the jobs' :func:`wave_rows`, the
    rows, the median error of the first synthesis's end, the last's and the run's, and how
    closely the run's error follows each of the other two over the rows (``r_first``,
    ``r_last``: where the syntheses bound the run, it follows the last); and the same of the
    b_g2_msm pool's pace where both sides had one (``pace_median``, ``r_pace``: where the
    calls after the syntheses bound the run, it follows the pace)."""
    groups: dict[tuple, list[dict]] = {}
    for j in jobs:
        for r in j.get("waves") or ():
            groups.setdefault((r["witness_work"], r["partition_workers"]), []).append(r)
    return [{"witness_work": w, "partition_workers": pw, "rows": len(rs),
             **{f"{k}_median": round(statistics.median(r[k] for r in rs), 4)
                for k in ("first", "last", "end")},
             **{f"r_{k}": _corr([r[k] for r in rs], [r["end"] for r in rs])
                for k in ("first", "last")},
             **_pace_of([r for r in rs if r.get("pace") is not None]),
             **_later_of([r for r in rs if r.get("later_live")])}
            for (w, pw), rs in sorted(groups.items())]


def cycles(jobs: list[dict]) -> list[dict]:
    """Return, per (lock, GPU workers) over the jobs' :func:`wave_rows` that have both sides'
    GPU worker cycle (``compare.worker_cycle_s``), the rows and the median of the
    host-tracked model's cycle over live, less 1."""
    groups: dict[tuple, list[float]] = {}
    for j in jobs:
        for r in j.get("waves") or ():
            if r.get("cycle") is not None and r.get("lock"):
                groups.setdefault((r["lock"], r["gw"]), []).append(r["cycle"])
    return [{"lock": lock, "gw": gw, "rows": len(es),
             "median": round(statistics.median(es), 4)}
            for (lock, gw), es in sorted(groups.items())]


def _later_of(rs: list[dict]) -> dict:
    """Return the medians over :func:`waves`' rows of a later synthesis's mean seconds over a
    first one's, live and in the host-tracked model (``compare.synth_waves``: how much the
    calls beside it slow a synthesis that starts after the first wave), where a row has them."""
    if not rs:
        return {}
    out = {"later_rows": len(rs),
           **{f"later_{k}_median": round(statistics.median(r[f"later_{k}"] for r in rs), 4)
              for k in ("live", "model")}}
    steps = [r for r in rs if "later_cpu_live" in r]  # live rows that kept the thread's CPU
    if steps:
        out.update(later_steps_rows=len(steps),
                   **{f"later_{k}_live_median": round(statistics.median(
                       r[f"later_{k}_live"] for r in steps), 4) for k in ("witness", "cpu")})
        model = [r["later_witness_model"] for r in steps if "later_witness_model" in r]
        if len(model) == len(steps):  # the model's witness steps, over the same rows
            out["later_witness_model_median"] = round(statistics.median(model), 4)
    return out


def _pace_of(rs: list[dict]) -> dict:
    """Return the median pace error of :func:`waves`' rows that have one, and how closely
    their run's error follows it."""
    if not rs:
        return {"pace_rows": 0, "pace_median": None, "r_pace": None}
    return {"pace_rows": len(rs), "pace_median": round(statistics.median(r["pace"] for r in rs), 4),
            "r_pace": _corr([r["pace"] for r in rs], [r["end"] for r in rs])}


def by_row(jobs: list[dict]) -> list[dict]:
    """Return each row of the table over every job: its runs, the plain and the host-tracked
    model's mean error and how many within 10 %, in the order the rows first appear. A row
    whose host-tracked mean sits away from zero is a gap of the model the host's pace does
    not explain."""
    rows: dict[str, dict] = {}
    for j in jobs:
        for r in j.get("row_errors") or ():
            rows.setdefault(r["row"], {"plain": [], "tracked": []})
            rows[r["row"]]["plain"].append(r["error"])
            if r["tracked"] is not None:
                rows[r["row"]]["tracked"].append(r["tracked"])
    out = []
    for name, e in rows.items():
        item = {"row": name, "jobs": len(e["plain"]),
                "plain_mean": round(statistics.fmean(e["plain"]), 4),
                "plain_within_10": sum(abs(x) <= 0.10 for x in e["plain"]),
                "tracked_jobs": len(e["tracked"])}
        if e["tracked"]:
            item.update(tracked_mean=round(statistics.fmean(e["tracked"]), 4),
                        tracked_within_10=sum(abs(x) <= 0.10 for x in e["tracked"]))
        out.append(item)
    return out


def pace_fit(jobs: list[dict]) -> dict | None:
    """How closely the plain model's error follows the host's pace at the rows.

    Over the jobs with host checks: the correlation between the log of a job's median
    b_g2_msm check (the calls alone around its runs over the profile's figure: above 1, the
    host slower at the rows than at its calibration) and the log of one plus the plain
    model's median error, and the slope of the second on the first. A model whose only
    error were the host's move would lie on slope -1 through the origin (error = 1 / pace
    - 1) where every row were bound by b_g2_msm; synthesis-bound rows pull the slope
    towards the synthesis checks'. None with fewer than three such jobs."""
    pts = [(math.log(j["checks"]["b_g2_msm"]), math.log1p(j["median_error"]))
           for j in jobs if j.get("checks")]
    if len(pts) < 3:
        return None
    x, y = zip(*pts)
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    sxy = sum((a - mx) * (b - my) for a, b in pts)
    r = sxy / math.sqrt(sxx * syy) if sxx and syy else 0.0
    slope = sxy / sxx if sxx else 0.0
    return {"jobs": len(pts), "r": round(r, 3), "slope": round(slope, 3),
            "intercept": round(my - slope * mx, 4)}


def _profile(number: int, cal: str, folder: Path, neighbour: bool = False) -> Path:
    """Return the profile made again from calibration ``cal`` (job ``number``'s host kind),
    re-paced to the job's stored checks where it ran on a re-paced profile (``REPACED``).
    ``neighbour``: made with the b_g2_msm pool's width and neighbour slowdown (a mechanism
    under trial, ``derive_profile(neighbour=True)``)."""
    from cuzklab.calibrate.live import derive_profile
    kind = KIND.get(number, "h200")
    if neighbour:  # the trial's profiles apart from the plain ones (the same names)
        folder = folder / "neighbour"
        folder.mkdir(exist_ok=True)
    path = folder / f"{cal}.toml"
    if not path.exists():
        meas = json.loads((RESULTS / f"calibrate-live-{kind}-{cal}.json").read_text())
        path.write_text(derive_profile(meas["measurements"], cal, neighbour=neighbour)["text"])
    if number not in REPACED:
        return path
    from cuzklab.calibrate.hostcheck import repaced_text
    from cuzklab.model import Profile
    stored = json.loads((RESULTS / REPACED[number]).read_text())
    now = folder / f"{cal}-now-{number}.toml"
    text, _ = repaced_text(path.read_text(), Profile.load(path), stored["checks"],
                           name=f"{cal}-now", date=stored.get("date", ""))
    now.write_text(text)
    return now


def _load_profile(number: int, cal: str, folder: Path, pool_weight: float | None = None,
                  beside_pool: tuple[float, float] | None = None,
                  serial_share: str | None = None, *, neighbour: bool = False):
    """Return :func:`_profile`'s profile, with ``node.cpu_pool_weight`` set to ``pool_weight``
    where one is given (a mechanism's test: one weight for every job, nothing fitted), and
    the witness step's two parts' slowdowns beside the b_g2_msm pool set to ``beside_pool``
    (``[calibration] witness_beside_pool``, ``witness_work_beside_pool``) on every profile
    that records its witness work, where given (one host's timings for every job), and
    ``synth.serial_share`` to ``serial_share`` where given (the model's two ways of sharing
    the cores with a synthesis's one-thread steps); ``neighbour``: see :func:`_profile`."""
    from cuzklab.calibrate.compare import witness_pool_slowdown_at
    from cuzklab.model import Profile
    prof = Profile.load(_profile(number, cal, folder, neighbour))
    if pool_weight is not None:
        prof = prof.replace(node={"cpu_pool_weight": pool_weight})
    if serial_share is not None:
        prof = prof.replace(synth={"serial_share": serial_share})
    w_cal = prof.get("calibration", "witness_work")
    if beside_pool is not None and w_cal is not None:
        x0, x_work = beside_pool
        prof = prof.replace(calibration={"witness_beside_pool": x0,
                                         "witness_work_beside_pool": x_work})
        prof = prof.replace(synth={"witness_pool_slowdown":
                                   witness_pool_slowdown_at(prof, float(w_cal))})
    return prof


def judge_curve(curve_job, folder: Path, pool_weight: float | None = None,
                serial_share: str | None = None, neighbour: bool = False) -> dict:
    """Return one stored contention curve judged on the profile made again from its job's
    calibration: each point's b_g2_msm and prep_msm slowdown, live and model, the worst
    point over those not fitted, and whether it is within the target."""
    from cuzklab.calibrate.contention import calibration_points, remodel_curve
    number, date, name, cal = curve_job
    stored = json.loads((RESULTS / name).read_text())
    raw = stored.get("contention") or stored
    prof = _load_profile(number, cal, folder, pool_weight, serial_share=serial_share,
                         neighbour=neighbour)
    curve = remodel_curve(raw, prof)
    kind = KIND.get(number, "h200")
    cores = json.loads((RESULTS / f"calibrate-live-{kind}-{cal}.json").read_text())[
        "measurements"]["cores"]
    pool, each = int(raw["pool_threads"]), int(raw.get("synth_threads") or 1)
    points = [{"syntheses": r["syntheses"], "fitted": bool(r.get("fitted")),
               **{f"{s}_{side}_x": round(r[f"{s}_{side}_x"], 4)
                  for s in ("b_g2_msm", "prep_msm") for side in ("live", "model")},
               "b_g2_msm_error": round(r["b_g2_msm_x_error"], 4),
               "prep_msm_error": round(r["prep_msm_x_error"], 4),
               "b_g2_msm_even_x": round(even_share_x(pool, r["syntheses"] * each, cores), 4)}
              for r in curve["rows"]]
    judged = [p for p in points if not p["fitted"]]
    worst = max(((p[f"{s}_error"], s, p["syntheses"]) for p in judged
                 for s in ("b_g2_msm", "prep_msm")), key=lambda w: abs(w[0]))
    t = curve["target"]
    return {"job": number, "date": date, "file": name, "calibration": cal, "cores": cores,
            "pool_threads": pool, "points": points,
            "worst": {"error": worst[0], "stage": worst[1], "syntheses": worst[2]},
            "prep_msm_worst": max((p["prep_msm_error"] for p in judged), key=abs),
            "target": t["slowdown_error"], "met": bool(t["met"]),
            "line_fits": line_fits(raw, prof),
            # the weight fitted again on the curve's own visits of the calibration's counts
            # (a curve asked for them too), every other point judged on it
            "same_pass": curve.get("same_pass"),
            # the b_g2_msm points the calibration fitted its weight on, over this curve's live
            # slowdown at the same counts (interpolated): where the calibration's own points
            # did not hold, its weight carries that into the model's curve
            "calibration_points": [{"syntheses": c, "calibration_x": round(x, 4),
                                    "curve_x": round(y, 4), "ratio": round(x / y, 4)}
                                   for c, x, y in calibration_points(raw, prof.data.get(
                                       "calibration"))]}


#: Sets of a curve's own points its pool weight is fitted on by :func:`line_fits`: the
#: middle of the range, a low point and the top, and every point (in sample: the most one
#: straight line can do)
LINE_POINTS = ((4, 8), (2, 4, 12), (2, 8, 12), (4, 8, 12), (1, 2, 4, 8, 12))


def line_fits(raw: dict, prof, points=LINE_POINTS) -> list[dict]:
    """Return, for each set of ``points``, the pool weight fitted on a stored curve's
    (``raw``) own slowdowns at those counts and the curve judged again on it with ``prof``:
    its worst point over every count and whether that is within the target. Where the
    calibration's counts sit on the curve's range decides how far its one line can follow
    a curve that bends; this asks the stored curves which counts would have served, nothing
    measured anew."""
    from cuzklab.calibrate.contention import refit_curve
    target = float((raw.get("target") or {}).get("slowdown_error", 0.15))
    out = []
    for at in points:
        fit = refit_curve(raw, prof, at)
        worst, held = fit["worst"], fit["held_out"]
        # the points the weight was not fitted on alone (``held_out``): how a weight fitted
        # in the same passes predicts the rest (what a curve that also visits the
        # calibration's counts is judged on, ``same_pass``)
        out.append({"points": list(at), "weight": round(fit["pool_weight"], 4),
                    "worst": {k: worst[k] for k in ("error", "stage", "syntheses")},
                    "met": abs(worst["error"]) <= target,
                    "held_out": held and {"error": held["error"], "stage": held["stage"],
                                          "syntheses": held["syntheses"],
                                          "met": abs(held["error"]) <= target}})
    return out


def line_fits_total(curves: list[dict]) -> list[dict]:
    """Return, per set of points of :func:`line_fits`, how many curves it puts within the
    target at every point."""
    sets: dict[tuple, list[bool]] = {}
    for c in curves:
        for f in c.get("line_fits") or ():
            sets.setdefault(tuple(f["points"]), []).append(
                (f["met"], (f.get("held_out") or {}).get("met")))
    return [{"points": list(k), "curves": len(v), "met": sum(m for m, _ in v),
             # None unless every curve has points the set leaves out (all five: none)
             "held_out_met": (sum(bool(h) for _, h in v)
                              if all(h is not None for _, h in v) else None)}
            for k, v in sets.items()]


def even_share_x(pool: int, others: int, cores: int) -> float:
    """Return a pool's slowdown beside ``others`` busy threads where every runnable thread
    gets an even share of the ``cores`` (the scheduler's fair share, nothing else): its
    ``pool`` threads hold ``cores x pool / (pool + others)`` of them once the threads
    outnumber the cores, against ``min(pool, cores)`` alone."""
    total = pool + others
    if total <= cores:
        return 1.0
    return min(pool, cores) * total / (cores * pool)


def over_even_share(curves: list[dict]) -> list[dict]:
    """Return, per count of syntheses, the live b_g2_msm slowdown over the even share of
    the cores (:func:`even_share_x`) over every curve: median and range."""
    by: dict[int, list[float]] = {}
    for c in curves:
        for p in c["points"]:
            if p["syntheses"]:
                by.setdefault(p["syntheses"], []).append(p["b_g2_msm_live_x"]
                                                         / p["b_g2_msm_even_x"])
    return [{"syntheses": k, "curves": len(v), "median": round(statistics.median(v), 4),
             "low": round(min(v), 4), "high": round(max(v), 4)} for k, v in sorted(by.items())]


def markdown_curves(curves: list[dict]) -> str:
    """The README's table of contention curves."""
    judged = [[p for p in c["points"] if p["syntheses"] and not p["fitted"]] for c in curves]
    counts = [p["syntheses"] for p in judged[0]] if curves else []
    by = " / ".join(map(str, counts))
    target = f"{100 * curves[0]['target']:.0f} %" if curves else ""
    out = [f"| curve (job, date, file) | b_g2_msm beside {by} syntheses, live | model | "
           f"worst point | prep_msm worst | the calibration's points over the curve there | "
           f"within {target} | the weight fitted in the curve's passes: worst point |",
           "|---|---|---|---|---|---|---|---|"]
    for c, pts in zip(curves, judged):
        w = c["worst"]
        cal = c.get("calibration_points") or []
        held = (" / ".join(f"x{p['ratio']:.2f}" for p in cal) + " (beside "
                + ", ".join(str(p["syntheses"]) for p in cal) + ")") if cal else "—"
        same = c.get("same_pass")
        again = "—"
        if same:
            sw = same["worst"]
            again = (f"w={same['pool_weight']:.3g} (beside "
                     f"{', '.join(map(str, same['counts']))}): {sw['stage']} beside "
                     f"{sw['syntheses']}, {100 * sw['error']:+.1f} %, "
                     + ("**met**" if same["met"] else "missed"))
        out.append(
            f"| {_ORDINAL[c['job']]} ({c['date']}, `{c['file']}`) | "
            + " / ".join(f"x{p['b_g2_msm_live_x']:.2f}" for p in pts) + " | "
            + " / ".join(f"x{p['b_g2_msm_model_x']:.2f}" for p in pts) + " | "
            f"{w['stage']} beside {w['syntheses']}, {100 * w['error']:+.1f} % | "
            f"{100 * c['prep_msm_worst']:+.1f} % | {held} | "
            f"{'**met**' if c['met'] else 'missed'} | {again} |")
    return "\n".join(out)


def _checks(checks) -> str:
    if not checks:
        return "—"
    return f"x{checks['synth']:.2f} / x{checks['b_g2_msm']:.2f}"


def markdown(jobs: list[dict]) -> str:
    """The README's table of jobs."""
    out = ["| job (date) | s/proof within 10 % | worst row | peak RSS worst | verdict | "
           "host checks over the profile, synthesis / b_g2_msm (median) |",
           "|---|---|---|---|---|---|"]
    for j in jobs:
        files = ", ".join(f"`-{f}`" for f in j["files"])
        within = f"{j['within_10']} of {j['rows']}"
        if j["within_10"] == j["rows"]:
            within = f"**{within}**"
        if j["tracked_rows"]:
            within += f" (with host checks: {j['tracked_within_10']} of {j['tracked_rows']})"
        w = j["worst"]
        out.append(f"| {_ORDINAL[j['job']]} ({j['date']}, {files}, {j['how']}) | {within} | "
                   f"{w['row']}, {100 * w['error']:+.1f} % ({w['gap']}) | "
                   f"{100 * j['peak_rss_worst']:+.1f} % | {j['same_verdict']} of {j['rows']} | "
                   f"{_checks(j.get('checks'))} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    numbers = sorted({j[0] for j in JOBS} | {c[0] for c in CURVES})
    ap.add_argument("--jobs", default=None, metavar="N,N,...",
                    help="only these jobs' rows and curves (their numbers: "
                         + ", ".join(map(str, numbers)) + ")")
    ap.add_argument("--markdown", action="store_true", help="print the README's tables")
    ap.add_argument("--json", default=None, metavar="FILE", help="write the results as JSON")
    ap.add_argument("--repace", type=int, default=REPACE_CHECKS, metavar="N",
                    help="also judge each job with host checks on its profile re-paced to its "
                         "N earliest checks, as calibrate --repace right before the rows would "
                         f"have made it (default {REPACE_CHECKS}, as the command; 0: not)")
    ap.add_argument("--pool-weight", type=float, default=None, metavar="W",
                    help="judge every job and curve with node.cpu_pool_weight = W (> 0) "
                         "instead of each calibration's fitted weight (1: an even share of "
                         "the cores for every runnable thread)")
    ap.add_argument("--witness-beside-pool", default=None, metavar="X0,XW",
                    help="judge every job whose calibration records its witness work with the "
                         "witness step's part at witness work 0 X0 times slower beside a full "
                         "b_g2_msm pool and the part the work adds XW times (each >= 1; "
                         "bench_witness_beside_pool.py measures both) instead of each "
                         "calibration's own timings")
    ap.add_argument("--serial-share", default=None, choices=("even", "core"),
                    help="judge every job and curve with synth.serial_share set so (core, "
                         "the default: a synthesis's one-thread steps keep a core, the witness "
                         "step slowed beside a full b_g2_msm pool; even: an even share of the "
                         "cores among the runnable threads)")
    ap.add_argument("--neighbour", action="store_true",
                    help="judge every job and curve on profiles made with the b_g2_msm pool's "
                         "measured width and a neighbour slowdown fitted with the pool weight "
                         "(a mechanism tried and not kept; docs/calibrate.md)")
    ap.add_argument("--png", default=None, metavar="FILE",
                    help="draw each job's median plain-model error against its host checks")
    a = ap.parse_args(argv)
    jobs, curves = JOBS, CURVES
    if a.repace < 0:
        ap.error(f"--repace: expected a number of checks >= 0, got {a.repace}")
    if a.pool_weight is not None and not a.pool_weight > 0:
        ap.error(f"--pool-weight: expected a weight > 0, got {a.pool_weight}")
    beside_pool = None
    if a.witness_beside_pool is not None:
        try:
            beside_pool = tuple(float(x) for x in a.witness_beside_pool.split(","))
        except ValueError:
            beside_pool = ()
        if len(beside_pool) != 2 or not all(1.0 <= x <= 100.0 for x in beside_pool):
            ap.error("--witness-beside-pool: expected two slowdowns in [1, 100] as X0,XW, "
                     f"got {a.witness_beside_pool!r}")
        if a.serial_share == "even":
            ap.error("--witness-beside-pool: the even share leaves the witness step's "
                     "slowdown beside the pool out; leave --serial-share at core")
    if a.jobs:
        try:
            wanted = [int(x) for x in a.jobs.split(",") if x.strip()]
        except ValueError:
            ap.error(f"--jobs: expected job numbers, e.g. 27,30; got {a.jobs!r}")
        bad = [n for n in wanted if n not in numbers]
        if bad or not wanted:
            ap.error(f"--jobs: unknown job(s) {bad or a.jobs!r}; known: "
                     + ", ".join(map(str, numbers)))
        jobs = [j for j in JOBS if j[0] in wanted]
        curves = [c for c in CURVES if c[0] in wanted]
    res, judged_curves = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k, job in enumerate(jobs, 1):
            print(f"[{k}/{len(jobs)}] job {job[0]} ({', '.join(job[2])})", file=sys.stderr)
            res.append(judge(job, Path(tmp), a.repace, a.pool_weight, beside_pool,
                             a.serial_share, a.neighbour))
        for k, c in enumerate(curves, 1):
            print(f"[{k}/{len(curves)}] curve of job {c[0]} ({c[2]})", file=sys.stderr)
            judged_curves.append(judge_curve(c, Path(tmp), a.pool_weight, a.serial_share,
                                             a.neighbour))
    every = [e for j in res for e in j["errors"]]
    total = {"rows": len(every), "within_10": sum(abs(e) <= 0.10 for e in every),
             "rms": math.sqrt(sum(e * e for e in every) / len(every)) if every else 0.0,
             "tracked_rows": sum(j["tracked_rows"] for j in res),
             "tracked_within_10": sum(j["tracked_within_10"] for j in res),
             "curves": len(judged_curves), "curves_met": sum(c["met"] for c in judged_curves),
             "pace": pace_fit(res), "by_row": by_row(res),
             "over_even_share": over_even_share(judged_curves), "waves": waves(res),
             "cycles": cycles(res),
             "line_fits": line_fits_total(judged_curves),
             "same_pass": {"curves": sum(bool(c.get("same_pass")) for c in judged_curves),
                           "met": sum(bool((c.get("same_pass") or {}).get("met"))
                                      for c in judged_curves)}}
    if a.repace:
        rep = [j for j in res if j.get("repaced")]
        total["repaced"] = {"checks": a.repace, "jobs": len(rep),
                            "rows": sum(j["repaced"]["rows"] for j in rep),
                            "within_10": sum(j["repaced"]["within_10"] for j in rep),
                            "plain_within_10": sum(j["within_10"] for j in rep),
                            "tracked_rows": sum(j["tracked_rows"] for j in rep),
                            "tracked_within_10": sum(j["tracked_within_10"] for j in rep)}
        two = [j for j in rep if j["repaced"].get("both_works")]
        total["repaced_both_works"] = {
            "jobs": len(two), "rows": sum(j["repaced"]["both_works"]["rows"] for j in two),
            "within_10": sum(j["repaced"]["both_works"]["within_10"] for j in two),
            "repaced_within_10": sum(j["repaced"]["within_10"] for j in two),
            "line_only_within_10": sum(j["repaced"]["line_only"]["within_10"] for j in two),
            "plain_within_10": sum(j["within_10"] for j in two)}
    if a.markdown:
        if res:
            print(markdown(res))
        if judged_curves:
            print(("\n" if res else "") + markdown_curves(judged_curves))
    else:
        for j in res:
            print(f"{_ORDINAL[j['job']]:>15}: {j['within_10']:2d} of {j['rows']:2d} within 10 %"
                  + (f" (tracked {j['tracked_within_10']} of {j['tracked_rows']})"
                     if j["tracked_rows"] else "")
                  + f"; worst {j['worst']['row']} {100 * j['worst']['error']:+.1f} %"
                  + "; errors " + " ".join(f"{100 * e:+.0f}" for e in j["errors"]))
        for c in judged_curves:
            w = c["worst"]
            print(f"{_ORDINAL[c['job']]:>15}: curve {'met' if c['met'] else 'missed'}, worst "
                  f"{w['stage']} beside {w['syntheses']} {100 * w['error']:+.1f} %; live over "
                  "an even share of the cores "
                  + " / ".join(f"x{p['b_g2_msm_live_x'] / p['b_g2_msm_even_x']:.2f}"
                               for p in c["points"] if p["syntheses"]))
    if res:
        print(f"all jobs: {total['within_10']} of {total['rows']} rows within 10 % "
              f"(rms {100 * total['rms']:.1f} %); host-tracked {total['tracked_within_10']} of "
              f"{total['tracked_rows']}")
        if total["pace"]:
            pf = total["pace"]
            print(f"the host's pace: over the {pf['jobs']} jobs with host checks, a job's median "
                  "plain-model error follows its median b_g2_msm check, r = "
                  f"{pf['r']:+.2f}, log slope {pf['slope']:+.2f} (-1: the pace alone)")
        if total["waves"]:
            print("when the syntheses end, the host-tracked model over live - 1 (medians over "
                  "the rows with a saved live trace):")
            for g in total["waves"]:
                print(f"  W={g['witness_work']:g} pw={g['partition_workers']} ({g['rows']} rows):"
                      f" first {100 * g['first_median']:+.1f} %, last "
                      f"{100 * g['last_median']:+.1f} %, the run's end "
                      f"{100 * g['end_median']:+.1f} %"
                      + (f" (the end's error follows the first's r = {g['r_first']:+.2f}, "
                         f"the last's r = {g['r_last']:+.2f})"
                         if g["r_first"] is not None and g["r_last"] is not None else "")
                      + (f"; the b_g2_msm pool's pace {100 * g['pace_median']:+.1f} % on "
                         f"{g['pace_rows']} rows (the end follows it r = {g['r_pace']:+.2f})"
                         if g["r_pace"] is not None else "")
                      + (f"; a later synthesis over a first-wave one x{g['later_live_median']:.2f}"
                         f" live, x{g['later_model_median']:.2f} in the model "
                         f"({g['later_rows']} rows)" if g.get("later_rows") else "")
                      + (f"; its witness step live x{g['later_witness_live_median']:.2f} the "
                         f"wall, x{g['later_cpu_live_median']:.2f} its thread's CPU"
                         + (f", the model's x{g['later_witness_model_median']:.2f}"
                            if g.get("later_witness_model_median") else "")
                         + f" ({g['later_steps_rows']} rows)" if g.get("later_steps_rows") else ""))
        if total.get("cycles"):
            print("the GPU worker's cycle (one prep_msm start to the next on a worker), the "
                  "host-tracked model over live - 1 (medians over the rows with a saved live "
                  "trace): " + "; ".join(f"{c['lock']} gw={c['gw']} {100 * c['median']:+.1f} % "
                                         f"({c['rows']} rows)" for c in total["cycles"]))
        if not a.markdown:
            print("each row over the jobs (the host-tracked model's mean error away from zero "
                  "is a gap the host's pace does not explain):")
            for r in total["by_row"]:
                print(f"{r['row']:>28}: plain mean {100 * r['plain_mean']:+.1f} %, "
                      f"{r['plain_within_10']} of {r['jobs']} within 10 %"
                      + (f"; host-tracked mean {100 * r['tracked_mean']:+.1f} %, "
                         f"{r['tracked_within_10']} of {r['tracked_jobs']}"
                         if r["tracked_jobs"] else ""))
        if total.get("repaced"):
            rp = total["repaced"]
            print(f"re-paced to each job's {rp['checks']} earliest host checks: "
                  f"{rp['within_10']} of {rp['rows']} rows within 10 % over {rp['jobs']} jobs "
                  f"(the plain model {rp['plain_within_10']}; the host-tracked model, every run "
                  f"on its own checks, {rp['tracked_within_10']} of {rp['tracked_rows']})")
            bw = total["repaced_both_works"]
            if bw["jobs"]:
                print(f"and at both witness works (the W=0 synthesis at the {rp['checks']} "
                      f"earliest W=0 checks over the W=1 ones): {bw['within_10']} of "
                      f"{bw['rows']} rows within 10 % over {bw['jobs']} jobs (at W=1 alone "
                      f"{bw['repaced_within_10']}); the plain profile on that line alone, not "
                      f"re-paced: {bw['line_only_within_10']} (without it "
                      f"{bw['plain_within_10']})")
            if not a.markdown:
                for j in res:
                    if j.get("repaced"):
                        r = j["repaced"]
                        b = r.get("both_works")
                        print(f"{_ORDINAL[j['job']]:>15}: re-paced x{r['ratios']['synth']:.2f} / "
                              f"x{r['ratios']['b_g2_msm']:.2f}, {r['within_10']} of {r['rows']} "
                              f"within 10 % (plain {j['within_10']})"
                              + (f"; at both works (W=0 synthesis x{b['synth_ratio_at_0']:.3f} "
                                 f"the W=1 one) {b['within_10']}" if b else ""))
    if judged_curves:
        print(f"contention curves: {total['curves_met']} of {total['curves']} within 15 % at "
              "every point not fitted")
        if total["over_even_share"]:
            print("the live b_g2_msm pool over an even share of the cores for every runnable "
                  "thread (median, range over the curves): "
                  + "; ".join(f"beside {e['syntheses']} x{e['median']:.2f} ({e['low']:.2f}-"
                              f"{e['high']:.2f}, {e['curves']} "
                              f"curve{'s' if e['curves'] != 1 else ''})"
                              for e in total["over_even_share"]))
        held = [c for c in judged_curves if c["calibration_points"]]
        if held:
            print("the calibration's own points over its curve's live slowdowns at the same "
                  "counts (the points its weight was fitted on; range per curve): "
                  + "; ".join(f"job {c['job']} x{min(r):.2f}-{max(r):.2f}"
                              + (" (met)" if c["met"] else "")
                              for c in held
                              for r in [[p["ratio"] for p in c["calibration_points"]]]))
        same = [c for c in judged_curves if c.get("same_pass")]
        if same:
            print("the pool weight fitted again on a curve's own visits of its calibration's "
                  "counts (timed in the same passes; the other points judged on it): "
                  + "; ".join(f"job {c['job']} beside {', '.join(map(str, s['counts']))} "
                              f"w={s['pool_weight']:.3g} (calibration {s['profile_pool_weight']:.3g})"
                              f", worst {100 * s['max_abs_error']:.1f} %"
                              + (" (met)" if s["met"] else "")
                              for c in same for s in [c["same_pass"]]))
        if total["line_fits"]:
            print("the pool weight fitted on each curve's own points instead (which counts a "
                  "calibration's one line should be fitted at; every point judged): "
                  + "; ".join(f"at {', '.join(map(str, f['points']))}: {f['met']} of "
                              f"{f['curves']}" for f in total["line_fits"]))
            print("the same, each curve judged on its other points only (a weight fitted in "
                  "the same passes, predicting the rest): "
                  + "; ".join(f"at {', '.join(map(str, f['points']))}: {f['held_out_met']} of "
                              f"{f['curves']}" for f in total["line_fits"]
                              if f["held_out_met"] is not None))
    if a.png:
        if not total["pace"]:
            print("--png: no figure, fewer than three of these jobs have host checks",
                  file=sys.stderr)
        else:
            from cuzklab.plots.export import write_png
            from cuzklab.plots.model_vs_live import pace_figure
            labels = {j["job"]: _ORDINAL[j["job"]] for j in res}
            write_png(pace_figure(res, total["pace"], labels=labels,
                                  kinds={n: KIND.get(n, "h200") for n in labels},
                                  repaced_before=set(REPACED),
                                  repaced_total=total.get("repaced")),
                      a.png, width=900, height=620)
            print(f"wrote {a.png}", file=sys.stderr)
    if a.json:
        write_text(a.json, json.dumps({"benchmark": "rejudge_live_jobs", "jobs": res,
                                       "curves": judged_curves, "total": total}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
