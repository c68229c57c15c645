"""``report.html`` of a sweep: the headline finding, the sweep figures, every point.

Built from the sweep folder alone (``sweep.json`` and the sidecars), so it
works on a finished or a partial sweep and can be rebuilt at any time
(``cuzklab sweep-report DIR``). The figures are ``cuzklab.plots``'
``sweep_lines`` and ``sweep_heatmap``; the page embeds plotly.js once and
views offline.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path
from typing import Any

from ..atomic import write_text
from ..errors import SweepError
from .results import build_table, read_plan

# The metric a sweep optimizes when its grid names none, first one present wins.
DEFAULT_METRICS = (("seconds_per_proof", "min"), ("seconds", "min"), ("throughput", "max"))
MEMORY_METRIC = "peak_rss_gib"
STATUS_COLORS = {"ok": "#2e7d32", "failed": "#c62828", "timeout": "#ef6c00",
                 "crashed": "#6a1b9a", "invalid": "#546e7a", "oom": "#8e0000"}
# Summary columns shown in the points table when the notebook recorded them.
# ``oom_risk``: the fraction of seeds whose run went out of memory, where the
# summary carries it.
OPTIONAL_COLUMNS = ("oom_risk",)
# The notebook whose parameters are PipelineConfig keys: its memory_gib
# defaults to PipelineConfig's, which is the RAM line when a grid sets none.
PIPELINE_NOTEBOOK = "sweep-pipeline.ipynb"


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _hashable(table):
    """Return the table with list and dict cells as JSON text (they can then be grouped)."""
    import json
    for col in table.columns:
        if table[col].dtype == object and table[col].map(lambda v: isinstance(v, (list, dict))).any():
            table[col] = table[col].map(
                lambda v: json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v)
    return table


def _choose(plan: dict[str, Any], table) -> dict[str, Any]:
    """Return the report's settings: metric, goal, x, color, varying keys."""
    grid = plan.get("grid", {}) if plan else {}
    settings = dict(grid.get("report") or {})
    varying = list(grid.get("grid") or {})
    for p in grid.get("points") or []:
        varying.extend(k for k in p if k not in varying)
    if not varying and plan:
        params = [p["parameters"] for p in plan.get("points", [])]
        varying = [k for k in (params[0] if params else {})
                   if len({repr(q.get(k)) for q in params}) > 1]
    if "metric" not in settings:
        for name, goal in DEFAULT_METRICS:
            if name in table.columns:
                settings.update(metric=name, goal=settings.get("goal", goal))
                break
        else:
            numeric = [c for c in table.columns if c not in varying and not c.startswith("run.")
                       and c not in ("repeat", "attempt")
                       and table[c].map(_is_number).any()]
            settings["metric"] = numeric[0] if numeric else None
    settings.setdefault("goal", "min")
    numeric_keys = [k for k in varying if k in table.columns
                    and table[k].map(_is_number).all()]
    settings.setdefault("x", (numeric_keys or varying or [None])[0])
    settings.setdefault("color", None)
    settings["varying"] = varying
    return settings


def _usable(table, metric):
    """Return the rows whose point ended ok, did not run out of memory, and have the metric."""
    if metric is None or metric not in table.columns or not len(table):
        return table.iloc[0:0]
    ok = table[table["status"] == "ok"]
    if "oom" in ok.columns:
        ok = ok[ok["oom"] != True]  # noqa: E712 - the column may hold None
    return ok[ok[metric].map(_is_number)]


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _describe(row, keys) -> str:
    def text(v):
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
    return ", ".join(f"{k}={text(row[k])}" for k in keys if not _missing(row[k]))


def headline(table, settings: dict[str, Any], planned: int) -> str:
    """Return the headline finding of a sweep as an HTML fragment."""
    metric, goal = settings["metric"], settings["goal"]
    varying = settings["varying"]
    esc = html.escape
    parts = []
    done = len(table)
    if planned and done < planned:
        parts.append(f"<p><b>Partial sweep:</b> {done} of {planned} points have run; "
                     f"run again with <code>--resume</code> to finish it.</p>")
    usable = _usable(table, metric)
    if len(usable):
        if varying:
            agg = usable.groupby(varying, dropna=False)[metric].mean().reset_index()
            values = agg[metric].astype(float)
            best = agg.loc[values.idxmin() if goal == "min" else values.idxmax()]
            worst = agg.loc[values.idxmax() if goal == "min" else values.idxmin()]
            best_val, worst_val = float(best[metric]), float(worst[metric])
            best_desc, worst_desc = _describe(best, varying), _describe(worst, varying)
            mask = True
            for k in varying:  # NaN (a parameter some points leave out) matches NaN
                mask = mask & ((usable[k] == best[k]) | (usable[k].isna() & _missing(best[k])))
            best_row = usable[mask].iloc[0]
        else:
            best_row = usable.iloc[0]
            best_val = worst_val = float(best_row[metric])
            best_desc = worst_desc = best_row["label"]
        word = "lowest" if goal == "min" else "highest"
        oom_note = " without running out of memory" if "oom" in table.columns else ""
        text = (f"<p class='headline'><b>Best {esc(metric)}{oom_note}: {best_val:.4g}</b> at "
                f"<code>{esc(best_desc)}</code> ({word} of {len(usable)} usable points")
        if len(usable) > 1 and worst_desc != best_desc:
            text += f"; worst {worst_val:.4g} at <code>{esc(worst_desc)}</code>"
        text += ")"
        risk = best_row.get("oom_risk")
        if _is_number(risk):
            text += f"; out of memory in {risk:.0%} of seeds"
        text += ".</p>"
        parts.append(text)
        res = best_row.get("bottleneck.resource")
        if isinstance(res, str) and res:
            why = best_row.get("bottleneck.why") or ""
            util = best_row.get("bottleneck.utilization")
            verb = "held" if res == "gpu_mutex" else "busy"
            util_txt = f" ({util:.0%} {verb})" if _is_number(util) else ""
            parts.append(f"<p>What bounds it: <b>{esc(res)}</b>{util_txt}"
                         f"{': ' + esc(str(why)) if why else ''}.</p>")
    elif metric:
        parts.append(f"<p><b>No point has a usable {esc(metric)} yet.</b></p>")
    if "oom" in table.columns:
        oom = table[table["oom"] == True]  # noqa: E712
        if len(oom):
            labels = ", ".join(f"<code>{esc(str(x))}</code>" for x in oom["label"][:8])
            more = f" and {len(oom) - 8} more" if len(oom) > 8 else ""
            parts.append(f"<p>{len(oom)} point{'s' if len(oom) > 1 else ''} ran out of host "
                         f"memory (oom): {labels}{more}.</p>")
    bad = table[table["status"] != "ok"] if len(table) else table
    if len(bad):
        counts = bad["status"].value_counts()
        desc = ", ".join(f"{n} {s}" for s, n in counts.items())
        parts.append(f"<p>{len(bad)} point{'s' if len(bad) > 1 else ''} did not finish ok "
                     f"({desc}); see the table below.</p>")
    return "\n".join(parts)


# -- figures -------------------------------------------------------------------------
def _series(table, settings) -> tuple[Any, list[str]]:
    """Return the table and the columns that split points into series: the grid's
    ``color``, else the other varying parameters, less those that x determines (a
    parameter that changes with x, such as proofs in flight set to proofs, makes no
    series of its own)."""
    x = settings["x"]
    color = settings.get("color")
    if color:
        return table, [color]
    others = [k for k in settings["varying"] if k != x and k in table.columns]
    if len(table) and x in table.columns:
        keyed = table[[x, *others]].astype(str)
        others = [k for k in others if keyed.groupby(x)[k].nunique().max() > 1]
    return table, others


def ram_line(table, plan) -> list[float] | None:
    """Return the host RAM values (GiB) of a sweep's points, for the peak-RSS chart."""
    if "memory_gib" in table.columns:
        vals = [float(v) for v in table["memory_gib"].dropna().unique() if _is_number(v)]
        return vals or None
    grid = (plan or {}).get("grid") or {}
    if Path(str(grid.get("notebook", ""))).name == PIPELINE_NOTEBOOK:
        from ..model import PipelineConfig
        return [PipelineConfig().memory_gib]
    return None


def published_table(table, settings, plan):
    """Return the published figures of the grid's ``[[report.published]]`` matched to
    the sweep's points (one row per figure: the point's parameters and the values),
    or None."""
    import pandas as pd
    grid = (plan or {}).get("grid") or {}
    entries = ((grid.get("report") or {}).get("published")) or []
    if not entries or not len(table):
        return None
    params = [k for k in settings["varying"] if k in table.columns]
    fixed = set((grid.get("parameters") or {}))
    rows = []
    for entry in entries:
        match = {k: v for k, v in entry.items() if k in params or k in fixed}
        values = {k: v for k, v in entry.items() if k not in match and k != "source"}
        mask = pd.Series(True, index=table.index)
        for k, v in match.items():
            if k in table.columns:
                mask &= table[k] == v
        hit = table[mask]
        if len(hit):
            row = {k: hit.iloc[0][k] for k in params}
            row.update(values)
            row["source"] = entry.get("source", "")
            rows.append(row)
    return pd.DataFrame(rows) if rows else None


def _best_per_cell(table, x, y, metric, goal):
    """Return one row per (x, y): the best usable point, else the first (it carries the status)."""
    usable = _usable(table, metric)
    rows = []
    for _, g in table.groupby([x, y], dropna=False, sort=False):
        u = usable.loc[usable.index.intersection(g.index)]
        if len(u):
            idx = u[metric].astype(float).idxmin() if goal == "min" else \
                u[metric].astype(float).idxmax()
            rows.append(table.loc[idx])
        else:
            rows.append(g.iloc[0])
    import pandas as pd
    return pd.DataFrame(rows)


def figures(table, settings, plan=None) -> list[tuple[str, Any, str]]:
    """Return (title, plotly figure or None, note) for each sweep figure that applies.

    The figures are ``cuzklab.plots.sweep_lines`` of the metric (and of peak
    RSS where recorded, with the RAM line) against x, with the published
    figures of a grid that replays a cuzk experiment, and ``sweep_heatmap``
    over x and the next varying parameter; a figure that cannot be drawn is
    replaced by a note.
    """
    metric, x = settings["metric"], settings["x"]
    out: list[tuple[str, Any, str]] = []
    if metric is None or x is None or metric not in table.columns or not len(table):
        return out
    from ..plots import sweep_heatmap, sweep_lines
    t, keys = _series(table, settings)
    published = published_table(table, settings, plan)
    ys = [metric]
    if MEMORY_METRIC in t.columns and metric != MEMORY_METRIC:
        ys.append(MEMORY_METRIC)
    for y in ys:
        title = f"{y} by {x}" + (f" and {', '.join(keys)}" if keys else "")
        has_pub = published is not None and y in published.columns
        note = ("diamonds: the figures cuzk's authors published for these points, labelled "
                "with the model's error") if has_pub else ""
        try:
            fig = sweep_lines(t, x, y, color=keys or None,
                              ram_gib=ram_line(t, plan) if y == MEMORY_METRIC else None,
                              published=published if has_pub else None)
            out.append((title, fig, note))
        except (ValueError, TypeError, KeyError) as exc:
            out.append((title, None, f"figure not drawn: {type(exc).__name__}: {exc}"))
    others = [k for k in settings["varying"] if k != x]
    if keys:  # a heatmap needs a second parameter that x does not determine
        yk = settings.get("color") or keys[0]
        title = f"{metric} over {x} × {yk}"
        note = f"best ({settings['goal']}) over {', '.join(k for k in others if k != yk)}" \
            if len(others) > 1 else ""
        try:
            cells = _best_per_cell(table, x, yk, metric, settings["goal"])
            out.append((title, sweep_heatmap(cells, x, yk, metric), note))
        except (ValueError, TypeError, KeyError) as exc:
            out.append((title, None, f"figure not drawn: {type(exc).__name__}: {exc}"))
    return out


# -- the page ------------------------------------------------------------------------
def point_status(row) -> str:
    """Return the badge of a point: its status, or ``oom`` / ``failed`` for a point that
    ran but whose run went out of memory or failed (never ``ok`` for those)."""
    from ..plots.sweep import why_not
    status = str(row.get("status") or "")
    if status == "ok":
        why = why_not(row)
        if why in ("oom", "failed"):
            return why
    return status


def _points_table(table, settings, params: list[str], published=None) -> str:
    esc = html.escape
    metric = settings["metric"]
    extra = [c for c in (metric, MEMORY_METRIC, *OPTIONAL_COLUMNS, "bottleneck.resource")
             if c and c in table.columns]
    extra = list(dict.fromkeys(extra))
    pub = {}
    if published is not None and metric in published.columns:
        for _, pr in published.iterrows():
            if _is_number(pr.get(metric)):
                pub[tuple(str(pr[k]) for k in params)] = float(pr[metric])
    head = ["point", "status", *params, *extra,
            *((f"published {metric}", "model error") if pub else ()), "run s", "error",
            "notebook"]
    rows = ["<tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for _, r in table.iterrows():
        badge = point_status(r.to_dict())
        cells = [f"<code>{esc(r['id'])}</code>",
                 f"<span class='st' style='background:{STATUS_COLORS.get(badge, '#999')}'>"
                 f"{esc(badge)}</span>"]
        for c in [*params, *extra]:
            v = r.get(c)
            cells.append(esc(f"{v:.4g}" if _is_number(v) and isinstance(v, float) else
                             "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)))
        if pub:
            pv = pub.get(tuple(str(r[k]) for k in params))
            mv = r.get(metric)
            cells.append(f"{pv:.4g}" if pv is not None else "")
            cells.append(f"{100 * (mv - pv) / pv:+.1f} %" if pv and badge == "ok"
                         and _is_number(mv) else "")
        wall = r.get("run.wall_s")
        cells.append(f"{wall:.1f}" if _is_number(wall) else "")
        cells.append(f"<span class='err'>{esc(str(r.get('error') or ''))}</span>")
        nb = r.get("notebook")
        cells.append(f"<a href='{esc(str(nb))}'>ipynb</a>" if isinstance(nb, str) and nb else "")
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { margin-bottom: 0.2em; } .sub { color: #666; margin-top: 0; }
.headline { font-size: 1.15em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; } .st { color: white; padding: 1px 6px; border-radius: 3px; }
.err { color: #8e0000; } .note { color: #777; font-size: 0.85em; }
"""


def write_report(out: str | os.PathLike, path: str | os.PathLike | None = None) -> Path:
    """Write (or rewrite) a sweep folder's ``report.html`` and return its path."""
    out = Path(out)
    plan = read_plan(out)
    if plan is None:
        raise SweepError(f"{out} is not a sweep folder (no sweep.json); run `cuzklab sweep` first")
    table = _hashable(build_table(out))
    settings = _choose(plan, table)
    planned = len(plan.get("points", []))
    grid = plan.get("grid", {})
    esc = html.escape
    params = [k for k in settings["varying"] if k in table.columns]
    body = [f"<h1>Sweep {esc(plan.get('name', out.name))}</h1>",
            f"<p class='sub'>{esc(grid.get('description') or '')} "
            f"Notebook <code>{esc(Path(grid.get('notebook', '')).name)}</code>; "
            f"{len(table)} of {planned} points run; updated {esc(plan.get('updated', ''))}.</p>",
            headline(table, settings, planned)]
    fixed = grid.get("parameters") or {}
    if fixed:
        body.append("<p class='note'>Fixed parameters: " + ", ".join(
            f"<code>{esc(k)}={esc(str(v))}</code>" for k, v in fixed.items()) + "</p>")
    first = True
    for title, fig, note in figures(table, settings, plan):
        if fig is not None:
            fig.update_layout(title=dict(text=title, x=0.0, xanchor="left"))
            body.append(fig.to_html(full_html=False, include_plotlyjs=first))
            first = False
        else:
            body.append(f"<h3>{esc(title)}</h3>")
        if note:
            body.append(f"<p class='note'>{esc(note)}</p>")
    body.append("<h2>Points</h2>")
    body.append(_points_table(table, settings, params, published_table(table, settings, plan))
                if len(table) else "<p>No point has run yet.</p>")
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>Sweep {esc(plan.get('name', ''))}</title><style>{_CSS}</style></head>"
            "<body>" + "\n".join(body) + "</body></html>")
    target = Path(path) if path else out / "report.html"
    write_text(target, page)
    return target
