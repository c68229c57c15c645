"""A sweep's results on disk: one JSON sidecar per point, and the table built from them.

Layout of a sweep folder::

    sweep.json              the grid and the planned points, in order
    points/<id>.ipynb       the executed notebook of each point
    points/<id>.<suffix>    files the notebook saved beside it (e.g. trace.parquet)
    points/<id>.json        the sidecar: parameters, status, error, metrics, timings
    results.csv / .parquet  one row per point, rebuilt from the sidecars
    report.html

A sidecar is written last and atomically, after the point's files: a point
counts as run exactly when its sidecar exists. The table is always rebuilt
from the sidecars, so it agrees with them and never loses a finished point.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ..atomic import write_bytes, write_text
from ..errors import SweepError
from .outcome import error_text
from .points import SweepPoint

POINTS_DIR = "points"
SWEEP_FILE = "sweep.json"
SIDECAR_FORMAT = 1
# Table columns that come before parameters and metrics; a metric of the same
# name as one of these or as a parameter is stored as "metric.<name>".
LEADING_COLUMNS = ("id", "label", "repeat", "status", "error")
TRAILING_COLUMNS = ("attempt", "notebook", "host")
TIMING_PREFIX = "run."


def sidecar_path(out: str | os.PathLike, pid: str) -> Path:
    """Return the path of a point's sidecar."""
    return Path(out) / POINTS_DIR / f"{pid}.json"


def write_point(out: str | os.PathLike, point: SweepPoint, outcome: dict[str, Any], *,
                sweep: str = "", attempt: int = 1) -> dict[str, Any]:
    """Write a point's files, then its sidecar (atomically); return the sidecar."""
    from .. import __version__
    pdir = Path(out) / POINTS_DIR
    pdir.mkdir(parents=True, exist_ok=True)
    names = []
    for name, data in sorted((outcome.get("artifacts") or {}).items()):
        if "/" in name or name.startswith("."):
            continue  # only plain file names travel back
        write_bytes(pdir / name, data)
        names.append(name)
    nb_name = f"{point.id}.ipynb"
    sidecar = {
        "format": SIDECAR_FORMAT,
        "sweep": sweep,
        "id": point.id,
        "label": point.label,
        "repeat": point.repeat,
        "parameters": point.parameters,
        "status": outcome["status"],
        "error": outcome.get("error"),
        "metrics": outcome.get("metrics") or {},
        "timings": outcome.get("timings") or {},
        "notebook": f"{POINTS_DIR}/{nb_name}" if nb_name in names else None,
        "files": [f"{POINTS_DIR}/{n}" for n in names],
        "attempt": int(attempt),
        "host": outcome.get("host"),
        "written": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cuzklab_version": __version__,
    }
    write_text(sidecar_path(out, point.id),
               json.dumps(sidecar, indent=1, sort_keys=False, default=str))
    return sidecar


def read_sidecars(out: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """Return every readable sidecar of a sweep folder, by point id."""
    pdir = Path(out) / POINTS_DIR
    found: dict[str, dict[str, Any]] = {}
    if not pdir.is_dir():
        return found
    for p in sorted(pdir.glob("*.json")):
        if p.name.startswith("."):
            continue
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not ours, or damaged: the point will simply run again
        if isinstance(data, dict) and data.get("id") == p.stem and "status" in data:
            found[p.stem] = data
    return found


def read_plan(out: str | os.PathLike) -> dict[str, Any] | None:
    """Return a sweep folder's ``sweep.json`` (grid and planned points), or None."""
    p = Path(out) / SWEEP_FILE
    if not p.is_file():
        return None
    try:
        plan = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SweepError(f"{p} is not valid JSON ({exc}); run `cuzklab sweep` again "
                         f"to rewrite it") from None
    points = plan.get("points") if isinstance(plan, dict) else None
    if not isinstance(points, list) or not all(isinstance(q, dict) and "id" in q for q in points):
        raise SweepError(f"{p} is not a sweep plan (an object whose points each have an id); "
                         f"run `cuzklab sweep` again to rewrite it")
    return plan


def write_plan(out: str | os.PathLike, plan: dict[str, Any]) -> Path:
    """Write ``sweep.json`` atomically and return its path."""
    return write_text(Path(out) / SWEEP_FILE, json.dumps(plan, indent=1, default=str))


def build_table(out: str | os.PathLike, plan_ids: list[str] | None = None):
    """Return the results table of a sweep folder: one row per point that has a sidecar.

    With ``plan_ids`` (default: the ids in ``sweep.json``) rows follow the
    plan's order and sidecars of points no longer planned are left out.
    """
    import pandas as pd
    sidecars = read_sidecars(out)
    if plan_ids is None:
        plan = read_plan(out)
        plan_ids = [p["id"] for p in plan["points"]] if plan else None
    if plan_ids is not None:
        rows_src = [sidecars[i] for i in plan_ids if i in sidecars]
    else:
        rows_src = list(sidecars.values())
    params = []
    for s in rows_src:
        params.extend(k for k in s.get("parameters", {}) if k not in params)
    reserved = set(LEADING_COLUMNS) | set(TRAILING_COLUMNS) | set(params)
    rows = []
    for s in rows_src:
        row: dict[str, Any] = {"id": s["id"], "label": s.get("label", s["id"]),
                               "repeat": s.get("repeat", 0), "status": s["status"],
                               "error": error_text(s.get("error"))}
        row.update(s.get("parameters", {}))
        for k, v in (s.get("metrics") or {}).items():
            row[f"metric.{k}" if k in reserved else k] = v
        for k, v in (s.get("timings") or {}).items():
            row[f"{TIMING_PREFIX}{k}"] = v
        row.update({"attempt": s.get("attempt", 1), "notebook": s.get("notebook"),
                    "host": s.get("host")})
        rows.append(row)
    if not rows:
        return pd.DataFrame(columns=[*LEADING_COLUMNS, *TRAILING_COLUMNS])
    df = pd.DataFrame(rows)
    first = [*LEADING_COLUMNS, *params]
    last = [c for c in df.columns if c.startswith(TIMING_PREFIX)] + list(TRAILING_COLUMNS)
    middle = [c for c in df.columns if c not in first and c not in last]
    return df[first + middle + last]


def _arrow_safe(df):
    """Return a copy whose object columns hold one type each (lists as JSON text)."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype != object:
            continue
        vals = out[col].dropna()
        if vals.map(lambda v: isinstance(v, (list, dict))).any():
            out[col] = out[col].map(lambda v: v if v is None else json.dumps(v)
                                    if isinstance(v, (list, dict)) else str(v))
            continue
        kinds = {type(v) for v in vals}
        if kinds <= {int, float} and kinds:
            out[col] = out[col].astype(float)
        elif len(kinds) > 1 or (kinds and kinds != {str} and kinds != {bool}):
            out[col] = out[col].map(lambda v: None if v is None else str(v))
    return out


def write_table(out: str | os.PathLike, table=None) -> tuple[Path, Path]:
    """Write ``results.csv`` and ``results.parquet`` (rebuilt from the sidecars unless given)."""
    from ..atomic import atomic_path
    out = Path(out)
    if table is None:
        table = build_table(out)
    safe = _arrow_safe(table)
    csv_path, pq_path = out / "results.csv", out / "results.parquet"
    write_text(csv_path, safe.to_csv(index=False))
    with atomic_path(pq_path) as tmp:
        safe.to_parquet(tmp, index=False)
    return csv_path, pq_path
