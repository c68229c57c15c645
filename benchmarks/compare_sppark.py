#!/usr/bin/env python3
"""cuzklab's MSM and NTT beside sppark's, size by size, from one run on the GPU host.

    python benchmarks/compare_sppark.py --msm msm.json --ntt ntt.json \\
        --sppark-msm sppark_msm.jsonl --sppark-ntt sppark_ntt.jsonl [--versions VERSIONS] \\
        [--json sppark-h200.json]

Either pair may be left out (--msm with --sppark-msm, --ntt with --sppark-ntt)
to compare the NTT alone or the MSM alone.

Reads the JSON of ``bench_msm.py`` and ``bench_ntt.py`` and the JSON lines of
the sppark harness (its ``msm_bench`` / ``ntt_bench``: medians of 5, G1 MSM
with points on the device and from host memory, Fr NTT natural order in and
out), run in one job on the same GPU, and writes per size: both medians and
the ratio cuzklab / sppark (below 1: cuzklab is faster). Only results that
both sides checked are compared; anything else is an error (exit 1). The
MSM row is cuzklab's default path (GLV for G1 on plain bases). Prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cuzklab.atomic import write_text  # noqa: E402

NTT_VARIANTS = ("ntt", "intt", "coset_ntt", "coset_intt")


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def compare(msm: dict, ntt: dict, sp_msm: list[dict], sp_ntt: list[dict]) -> tuple[dict, list[str]]:
    """Return ({"msm": rows, "ntt": rows}, problems) for the four inputs."""
    problems: list[str] = []
    rows_msm = []
    sp = {r["log2"]: r for r in sp_msm if r.get("op") == "g1_msm"}
    for r in msm.get("results", []):
        if r.get("group") != "g1" or r.get("precomputed") or not r.get("glv"):
            continue
        k = r["log2_size"]
        if k not in sp:
            continue
        if not r.get("checked"):
            problems.append(f"cuzklab G1 MSM 2^{k} not checked")
        row = {"log2_size": k, "cuzklab_ms": r["median_s"] * 1e3, "sppark_ms": sp[k]["device_ms"],
               "cuzklab_upload_ms": (r.get("upload_median_s") or float("nan")) * 1e3,
               "sppark_upload_ms": sp[k].get("upload_ms")}
        row["ratio"] = row["cuzklab_ms"] / row["sppark_ms"]
        if row["sppark_upload_ms"]:
            row["upload_ratio"] = row["cuzklab_upload_ms"] / row["sppark_upload_ms"]
        rows_msm.append(row)
    rows_ntt = []
    sn = {r["log2"]: r for r in sp_ntt if r.get("op") == "fr_ntt"}
    ours = {(r["log2_size"], r["variant"]): r for r in ntt.get("results", []) if "median_s" in r}
    for k in sorted({key[0] for key in ours}):
        if k not in sn:
            continue
        row = {"log2_size": k}
        for v in NTT_VARIANTS:
            r = ours.get((k, v))
            if r is None:
                continue
            if not r.get("checked"):
                problems.append(f"cuzklab NTT {v} 2^{k} not checked")
            row[f"{v}_cuzklab_ms"] = r["median_s"] * 1e3
            row[f"{v}_sppark_ms"] = sn[k][f"{v}_ms"]
            row[f"{v}_ratio"] = row[f"{v}_cuzklab_ms"] / row[f"{v}_sppark_ms"]
        rows_ntt.append(row)
    return {"msm": rows_msm, "ntt": rows_ntt}, problems


def markdown(table: dict) -> str:
    """Return the comparison as Markdown tables (one per kernel that has rows)."""
    out: list[str] = []
    if table["msm"]:
        out += ["| G1 MSM | cuzklab (GLV) | sppark | ratio | with upload: cuzklab / sppark |",
                "|---|---|---|---|---|"]
    for r in table["msm"]:
        up = (f"{r['cuzklab_upload_ms']:.1f} / {r['sppark_upload_ms']:.1f} ms"
              if r.get("sppark_upload_ms") else "—")
        out.append(f"| 2^{r['log2_size']} | {r['cuzklab_ms']:.2f} ms | {r['sppark_ms']:.2f} ms | "
                   f"{r['ratio']:.2f} | {up} |")
    if table["ntt"]:
        out += ([""] if out else []) + [
            "| Fr NTT | forward: cuzklab / sppark (ratio) | coset inverse: cuzklab / sppark (ratio) |",
            "|---|---|---|"]
    for r in table["ntt"]:
        cells = []
        for v in ("ntt", "coset_intt"):
            if f"{v}_ratio" in r:
                cells.append(f"{r[f'{v}_cuzklab_ms']:.3f} / {r[f'{v}_sppark_ms']:.3f} ms "
                             f"({r[f'{v}_ratio']:.2f})")
            else:
                cells.append("—")
        out.append(f"| 2^{r['log2_size']} | {cells[0]} | {cells[1]} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--msm", type=pathlib.Path, default=None, help="bench_msm.py's JSON")
    ap.add_argument("--ntt", type=pathlib.Path, default=None, help="bench_ntt.py's JSON")
    ap.add_argument("--sppark-msm", type=pathlib.Path, default=None, help="the harness's msm_bench lines")
    ap.add_argument("--sppark-ntt", type=pathlib.Path, default=None, help="the harness's ntt_bench lines")
    ap.add_argument("--versions", type=pathlib.Path, default=None,
                    help="the harness's VERSIONS file (sppark and blst commits), recorded in the JSON")
    ap.add_argument("--json", type=pathlib.Path, default=None)
    args = ap.parse_args(argv)
    for ours, theirs in (("msm", "sppark_msm"), ("ntt", "sppark_ntt")):
        if (getattr(args, ours) is None) != (getattr(args, theirs) is None):
            ap.error(f"--{ours} and --{theirs.replace('_', '-')} go together: give both or neither")
    if args.msm is None and args.ntt is None:
        ap.error("give --msm with --sppark-msm, --ntt with --sppark-ntt, or both pairs")
    for name in ("msm", "ntt", "sppark_msm", "sppark_ntt"):
        path = getattr(args, name)
        if path is not None and not path.is_file():
            ap.error(f"--{name.replace('_', '-')}: no such file: {path}")
    msm = json.loads(args.msm.read_text()) if args.msm else {}
    ntt = json.loads(args.ntt.read_text()) if args.ntt else {}
    sp_msm_text = args.sppark_msm.read_text() if args.sppark_msm else ""
    sp_ntt_text = args.sppark_ntt.read_text() if args.sppark_ntt else ""
    table, problems = compare(msm, ntt, _lines(sp_msm_text), _lines(sp_ntt_text))
    if args.sppark_msm and "# msm all results exact" not in sp_msm_text:
        problems.append("sppark's MSM run did not report all results exact")
    if args.sppark_ntt and "# ntt all checks passed" not in sp_ntt_text:
        problems.append("sppark's NTT run did not report all checks passed")
    versions = {}
    if args.versions:
        for line in args.versions.read_text().splitlines():
            if line.strip():
                name, _, commit = line.partition(" ")
                versions[name] = commit.strip()
    report = {"benchmark": "sppark_side_by_side", "device": msm.get("device") or ntt.get("device"),
              "same_run": True, "versions": versions,
              "ratio": "cuzklab median / sppark median (below 1: cuzklab faster)",
              "msm_timing": "cuzklab: CUDA events around the whole call; sppark: host clock around "
                            "msm_t::invoke (host-synchronous, its window combination included)",
              "ntt_timing": "both: CUDA events around one in-place transform, natural order in and out",
              **table, "problems": problems}
    print(markdown(table))
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    if args.json:
        write_text(args.json, json.dumps(report, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
