#!/usr/bin/env python3
"""The README's kernel figures, written from the result files they come from.

    python benchmarks/kernel_table.py                      # print the tables
    python benchmarks/kernel_table.py --write README.md    # between the kernel-table markers
    python benchmarks/kernel_table.py --check README.md    # exit 1 if the page is stale

Each row names one JSON file under ``benchmarks/results/`` (``CURRENT`` below:
the job a figure comes from) and reads its median from there; whether a target
is met is computed from the figure, not written by hand. A figure whose run did
not check its result (``checked`` false, a side-by-side file with problems, a
proof not verified) is refused with the file's name, so no unchecked number
reaches the page. To move the page to a newer job, point ``CURRENT`` at its
files and run ``--write``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuzklab.atomic import write_text  # noqa: E402
from cuzklab.pages import block, markers, with_block  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
BEGIN, END = markers("kernel-table")

# The job each figure of the page comes from (files under benchmarks/results/).
CURRENT = {
    "field_fr": "field-lowwords2-h200.json",     # Fr even/odd multiply, the NTT's
    "field_fp": "field-sqr-h200.json",           # Fp even/odd multiply, the default
    "msm_sppark": "sppark-pairmap-h200.json",    # G1 MSM beside sppark, one job
    "msm_run": "msm-pairmap-run-h200.json",      # the same job's bench_msm.py (2^26, G2)
    "msm_upload": "msm-upload-pairmap-h200.json",  # 2^24 from pinned host memory, same job
    "ntt_sppark": "sppark-plans-h200.json",      # Fr NTT beside sppark, one job
    "prove": "prove-24-plans-h200.json",         # the 2^24 proof end to end
}

# Targets: (size, bound) in the row's unit; "le" is at most, "ge" at least.
MSM_G1_TARGET_MS = {20: 10.0, 22: 32.0, 24: 105.0, 26: 400.0}
MSM_G2_TARGET_MS = {20: 45.0}
NTT_TARGET_MS = {20: 0.25, 24: 4.0, 27: 36.0}
UPLOAD_TARGET_X = 1.2
PROOF_TARGET_S = 0.3
REPEATS = 5  # the benchmarks' default; a row timed otherwise says so
FIELD_TARGET_GMUL = {"fr": 25.0, "fp": 10.0}


class Stale(Exception):
    """A result file is missing, unchecked or lacks the row the page needs."""


def _load(key: str, results: pathlib.Path) -> dict:
    path = results / CURRENT[key]
    if not path.is_file():
        raise Stale(f"{CURRENT[key]}: no such result file under {results.name}/")
    return json.loads(path.read_text(encoding="utf-8"))


def _field(d: dict, name: str, field: str) -> float:
    for rep in d.get("reports", []):
        for r in rep.get("results", []):
            if r.get("field") == field and r.get("op", "mul") == "mul":
                if not r.get("checked"):
                    raise Stale(f"{name}: the {field} multiply was not checked")
                return {"gmul": r["gmul_per_s"], "repeats": r.get("repeats")}
    raise Stale(f"{name}: no {field} multiply")


def _msm(d: dict, name: str, group: str, k: int) -> dict:
    for r in d.get("results", []):
        if r.get("op") == "msm" and r.get("group") == group and r.get("log2_size") == k \
                and not r.get("precomputed"):
            if not r.get("checked"):
                raise Stale(f"{name}: {group.upper()} MSM 2^{k} was not checked")
            return r
    raise Stale(f"{name}: no {group.upper()} MSM at 2^{k}")


def _side_by_side(d: dict, name: str) -> dict:
    if d.get("problems"):
        raise Stale(f"{name}: the side-by-side run reported problems: {d['problems']}")
    if not d.get("same_run"):
        raise Stale(f"{name}: the two sides were not timed in one run")
    return d


def collect(results: pathlib.Path = RESULTS) -> dict:
    """Read every figure of the page from its result file; raise :class:`Stale` if one is missing."""
    fr = _load("field_fr", results)
    fp = _load("field_fp", results)
    sp_msm = _side_by_side(_load("msm_sppark", results), CURRENT["msm_sppark"])
    run = _load("msm_run", results)
    up = _load("msm_upload", results)
    sp_ntt = _side_by_side(_load("ntt_sppark", results), CURRENT["ntt_sppark"])
    prove = _load("prove", results)

    out: dict = {"device": sp_msm.get("device"), "sppark": sp_msm.get("versions", {}).get("sppark", "")}
    out["field"] = {"fr": _field(fr, CURRENT["field_fr"], "fr"),
                    "fp": _field(fp, CURRENT["field_fp"], "fp")}
    g1 = {r["log2_size"]: {"ms": r["cuzklab_ms"], "sppark_ms": r["sppark_ms"], "ratio": r["ratio"]}
          for r in sp_msm.get("msm", [])}
    for k in MSM_G1_TARGET_MS:
        if k not in g1:
            g1[k] = {"ms": _msm(run, CURRENT["msm_run"], "g1", k)["median_s"] * 1e3,
                     "sppark_ms": None, "ratio": None}
    out["g1"] = dict(sorted(g1.items()))
    out["g2"] = {k: _msm(run, CURRENT["msm_run"], "g2", k)["median_s"] * 1e3 for k in MSM_G2_TARGET_MS}
    r = _msm(up, CURRENT["msm_upload"], "g1", 24)
    if "pinned_upload_warm_median_s" not in r or "pinned_upload_median_s" not in r:
        raise Stale(f"{CURRENT['msm_upload']}: no pinned-upload medians at 2^24")
    out["upload"] = {"device_ms": r["median_s"] * 1e3,
                     "warm_ms": r["pinned_upload_warm_median_s"] * 1e3,
                     "freed_ms": r["pinned_upload_median_s"] * 1e3,
                     "pageable_ms": (r.get("upload_median_s") or float("nan")) * 1e3,
                     "sppark_pageable_ms": next((x.get("sppark_upload_ms") for x in sp_msm.get("msm", [])
                                                 if x["log2_size"] == 24), None)}
    out["ntt"] = sorted(sp_ntt.get("ntt", []), key=lambda row: row["log2_size"])
    if not out["ntt"]:
        raise Stale(f"{CURRENT['ntt_sppark']}: no NTT rows")
    res = [x for x in prove.get("results", []) if x.get("log2_domain") == 24]
    if not res:
        raise Stale(f"{CURRENT['prove']}: no 2^24 proof")
    if not res[0].get("verified"):
        raise Stale(f"{CURRENT['prove']}: the 2^24 proof was not verified")
    out["prove"] = {"s": res[0]["prove_s"], "runs": res[0].get("prove_warm_s") or [],
                    "identical": bool(res[0].get("identical_proofs"))}
    return out


def _met(ok: bool) -> str:
    return "**met**" if ok else "not met"


def _ratio(x: float) -> str:
    """Two decimals, three where two would read 1.00 (which side is ahead must show)."""
    return f"{x:.2f}" if round(x, 2) != 1.0 else f"{x:.3f}"


def _ms(v: float) -> str:
    return f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def markdown(d: dict) -> str:
    """Return the page's two tables: the kernels against their targets, and the NTT size by size."""
    f = CURRENT
    lines = ["| kernel | cuzklab | sppark, same job (ratio) | target | source |",
             "|---|---|---|---|---|"]
    for fld, label in (("fr", "Fr multiply (even/odd-row, the NTT's)"),
                       ("fp", "Fp multiply (even/odd-row, the default)")):
        v, t = d["field"][fld]["gmul"], FIELD_TARGET_GMUL[fld]
        n = d["field"][fld]["repeats"]
        of = f" (median of {n})" if n and n != REPEATS else ""
        src = f["field_fr"] if fld == "fr" else f["field_fp"]
        lines.append(f"| {label} | {v:.1f} G/s{of} | — | ≥ {t:g} G/s: {_met(v >= t)} | `{src}` |")
    for k, r in d["g1"].items():
        t = MSM_G1_TARGET_MS[k]
        sp = (f"{r['sppark_ms']:.2f} ms ({_ratio(r['ratio'])})" if r["sppark_ms"] else "— (not in the job)")
        src = f["msm_sppark"] if r["sppark_ms"] else f["msm_run"]
        lines.append(f"| G1 MSM 2^{k}, points on device | {r['ms']:.2f} ms | {sp} | "
                     f"≤ {t:g} ms: {_met(r['ms'] <= t)} | `{src}` |")
    u = d["upload"]
    warm, freed = u["warm_ms"] / u["device_ms"], u["freed_ms"] / u["device_ms"]
    sp_up = (f"from pageable memory {u['sppark_pageable_ms']:.1f} ms "
             f"({_ratio(u['pageable_ms'] / u['sppark_pageable_ms'])})" if u["sppark_pageable_ms"] else "—")
    lines.append(f"| G1 MSM 2^24 with upload from host memory | from pinned memory {u['warm_ms']:.1f} ms, {warm:.2f}× the "
                 f"{u['device_ms']:.1f} ms on device (device memory pool warm); {u['freed_ms']:.1f} ms, "
                 f"{freed:.2f}×, from freed device memory; {u['pageable_ms']:.1f} ms from pageable memory | "
                 f"{sp_up} | ≤ {UPLOAD_TARGET_X:g}× on device: "
                 f"{_met(warm <= UPLOAD_TARGET_X)} warm, {_met(freed <= UPLOAD_TARGET_X)} from freed "
                 f"memory | `{f['msm_upload']}`, sppark's in `{f['msm_sppark']}` |")
    for k, ms in d["g2"].items():
        t = MSM_G2_TARGET_MS[k]
        lines.append(f"| G2 MSM 2^{k}, points on device | {ms:.2f} ms | — | ≤ {t:g} ms: "
                     f"{_met(ms <= t)} | `{f['msm_run']}` |")
    ntt = {r["log2_size"]: r for r in d["ntt"]}
    for k, t in NTT_TARGET_MS.items():
        if k in ntt:
            r = ntt[k]
            lines.append(f"| Fr NTT 2^{k}, forward | {_ms(r['ntt_cuzklab_ms'])} ms | "
                         f"{_ms(r['ntt_sppark_ms'])} ms ({_ratio(r['ntt_ratio'])}) | ≤ {t:g} ms: "
                         f"{_met(r['ntt_cuzklab_ms'] <= t)} | `{f['ntt_sppark']}` |")
    ahead_f = [k for k, r in ntt.items() if r["ntt_ratio"] < 1]
    ahead_c = [k for k, r in ntt.items() if r.get("coset_intt_ratio", 2) < 1]
    sizes = f"2^{min(ntt)}–2^{max(ntt)}"
    for label, ahead in (("forward", ahead_f), ("coset inverse", ahead_c)):
        lines.append(f"| Fr NTT {label}, ahead of sppark at every size {sizes} | ahead at "
                     f"{len(ahead)} of {len(ntt)} sizes | (below) | every size: "
                     f"{_met(len(ahead) == len(ntt))} | `{f['ntt_sppark']}` |")
    p = d["prove"]
    runs = (f"; runs {min(p['runs']):.3f}–{max(p['runs']):.3f} s" if p["runs"] else "")
    lines.append(f"| Groth16 proof, 2^24 constraints, end to end | {p['s']:.3f} s warm, verified"
                 f"{runs}{', every proof the same bytes' if p['identical'] else ''} | — | ≤ "
                 f"{PROOF_TARGET_S:g} s: {_met(p['s'] <= PROOF_TARGET_S)} | `{f['prove']}` |")
    lines += ["", "| Fr NTT (natural order in and out) | forward: cuzklab / sppark, ms (ratio) | "
                  "coset inverse: cuzklab / sppark, ms (ratio) |", "|---|---|---|"]
    for k, r in ntt.items():
        cells = []
        for v in ("ntt", "coset_intt"):
            if f"{v}_ratio" not in r:
                cells.append("—")
                continue
            ratio = _ratio(r[f"{v}_ratio"])
            cells.append(f"{_ms(r[f'{v}_cuzklab_ms'])} / {_ms(r[f'{v}_sppark_ms'])} "
                         f"({'**' + ratio + '**' if r[f'{v}_ratio'] < 1 else ratio})")
        lines.append(f"| 2^{k} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", nargs="+", default=[], metavar="PAGE",
                    help="write the tables between the kernel-table markers of these pages")
    ap.add_argument("--check", nargs="+", default=[], metavar="PAGE",
                    help="exit 1 if these pages' tables differ from the result files")
    ap.add_argument("--results", type=pathlib.Path, default=RESULTS,
                    help="the folder of result files (default: benchmarks/results)")
    args = ap.parse_args(argv)
    if not args.results.is_dir():
        ap.error(f"--results: no such folder: {args.results}")
    pages = {}
    for page in args.write + args.check:
        path = pathlib.Path(page)
        if not path.is_file():
            ap.error(f"{page}: no such page")
        pages[page] = path.read_text(encoding="utf-8")
        block(pages[page], BEGIN, END, page)
    try:
        md = markdown(collect(args.results))
    except Stale as e:
        print(f"kernel_table: {e}", file=sys.stderr)
        return 1
    stale = [p for p in args.check if block(pages[p], BEGIN, END, p).strip() != md.strip()]
    for page in args.write:
        write_text(page, with_block(pages[page], BEGIN, END, md, page))
        print(f"wrote the kernel tables into {page}")
    for page in stale:
        print(f"{page}: its kernel tables differ from the result files; "
              f"run python benchmarks/kernel_table.py --write {page}", file=sys.stderr)
    if not args.write and not args.check:
        print(md)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
