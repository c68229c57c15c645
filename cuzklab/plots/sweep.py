"""Figures over a sweep table: one row per sweep point.

The table holds parameter columns (``proofs``, ``lock``, ...), a ``status``
column (``ok`` or why the point did not finish: ``failed``, ``timeout``,
``crashed``, ``invalid``; an OOM run is ``ok`` as a point but has ``oom``
true) and summary metric columns (``seconds_per_proof``, ``peak_rss_gib``,
...). Points that did not produce the metric are never dropped silently, and
never drawn on the value axis: they are marked in a lane of their own,
labelled with the reason (``oom``, ``failed``, ``timeout``...).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import HIGHLIGHT_COLOR, base_layout, legend_right

# Axis titles with units for the summary metrics (names from docs/design.md).
METRIC_TITLES = {
    "seconds_per_proof": "throughput (s/proof, lower is better)",
    "wall_s": "wall time (s)",
    "proof_latency_s_mean": "mean proof latency (s)",
    "prove_s_mean": "mean prove time (s)",
    "peak_rss_gib": "peak RSS (GiB)",
    "gpu_busy_fraction": "GPU busy (fraction)",
    "proofs": "proofs completed",
    "failed": "proofs failed",
    "concurrency": "proofs in flight (j)",
    "partition_workers": "partition workers (pw)",
    "gpu_workers_per_device": "GPU workers per device (gw)",
    "gpu_threads": "gpu_threads",
    "memory_gib": "host RAM (GiB)",
}

# Metrics where a smaller value is better (the heatmap scale is reversed).
LOWER_IS_BETTER = {"seconds_per_proof", "wall_s", "proof_latency_s_mean", "prove_s_mean",
                   "peak_rss_gib", "failed"}

# Series colors: D3's category10 without its red, which marks failures and the
# RAM line on these figures (and without yellows, which vanish on white).
SERIES_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                 "#17becf", "#7f7f7f", "#bcbd22")
# Dashes and marker symbols, so lines that lie on top of each other stay apart.
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "pentagon")
# Why a point has no value, in the order of the lanes below the value axis.
NO_RESULT = ("oom", "failed", "timeout", "crashed", "invalid", "no value")
PUBLISHED_NAME = "published (cuzk)"


def axis_title(column: str) -> str:
    """Return the axis title (with units) for a table column."""
    return METRIC_TITLES.get(column, column.replace("_", " "))


def _check_table(table, **columns) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    for param, col in columns.items():
        if col is None:
            continue
        for c in ([col] if not isinstance(col, (list, tuple)) else col):
            if not isinstance(c, str):
                raise TypeError(f"{param} must be a column name (str) or a list of them, "
                                f"got {type(c).__name__}")
            if c not in table.columns:
                raise ValueError(f"{param}={c!r} is not a column of the table; "
                                 f"columns: {', '.join(map(str, table.columns))}")
    return table


def _flag(v) -> bool:
    """Return True for a set flag cell (True, 1, "true"); False for unset, NaN or None."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return False
    if isinstance(v, str):
        return v.strip().lower() == "true"
    return bool(v)


def _point_ok(table: pd.DataFrame, y: str) -> pd.Series:
    ok = table[y].notna()
    if "status" in table:
        ok &= table["status"].fillna("ok").astype(str).eq("ok")
    # A run that went out of memory or failed finished as a point, but its
    # value is not a result to compare.
    for flag in ("oom", "run_failed"):
        if flag in table:
            ok &= ~table[flag].map(_flag)
    return ok


def why_not(row) -> str:
    """Return why a sweep row has no value: ``oom``, ``failed``, its status, or ``no value``."""
    status = str(row.get("status", "") or "")
    if _flag(row.get("oom")) or str(row.get("failure_reason", "")) == "oom":
        return "oom"
    if status and status != "ok":
        return status
    if _flag(row.get("run_failed")):
        return "failed"
    return "no value"


def _sort_key(values):
    try:
        return sorted(values, key=float)
    except (TypeError, ValueError):
        return sorted(values, key=str)


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def series_label(keys, values) -> str:
    """Return a legend name such as ``lock=interlock, proofs=10``."""
    return ", ".join(f"{k}={'-' if _missing(v) else v}" for k, v in zip(keys, values))


def _series(df: pd.DataFrame, keys: list[str]) -> list[tuple[tuple, pd.DataFrame]]:
    if not keys:
        return [((), df)]
    sub = df[keys].astype(object).where(df[keys].notna(), None)
    combos = list(dict.fromkeys(map(tuple, sub.to_numpy().tolist())))
    per_key = [_sort_key([v for v in dict.fromkeys(c[i] for c in combos) if v is not None])
               + ([None] if any(c[i] is None for c in combos) else []) for i in range(len(keys))]
    combos.sort(key=lambda c: tuple(per_key[i].index(v) for i, v in enumerate(c)))
    out = []
    for combo in combos:
        mask = np.ones(len(df), dtype=bool)
        for k, v in zip(keys, combo):
            mask &= (df[k].isna() if v is None else df[k] == v).to_numpy()
        out.append((combo, df[mask]))
    return out


def _style(i: int, combo: tuple, combos: list[tuple]) -> tuple[str, str, str, float, int]:
    """Return (color, dash, symbol, line width, marker size) of series ``i``.

    Color by the first key, dash and symbol by the others (with one key each
    series also gets its own dash and symbol). Earlier colors are drawn wider
    and with larger markers, so a line lying exactly on another shows as a
    colored band around it instead of vanishing.
    """
    if len(combo) <= 1:
        ci, j, nc = i, i, len(combos)
    else:
        firsts = list(dict.fromkeys(c[0] for c in combos))
        rests = list(dict.fromkeys(c[1:] for c in combos))
        ci, j, nc = firsts.index(combo[0]), rests.index(combo[1:]), len(firsts)
    rank = max(0, min(nc, 4) - 1 - min(ci, 3))   # 3 for the first of four colors, 0 for the last
    return (SERIES_COLORS[ci % len(SERIES_COLORS)], DASHES[j % len(DASHES)],
            SYMBOLS[j % len(SYMBOLS)], 2.0 + 1.6 * rank, 7 + 3 * rank)


def sweep_lines(table: pd.DataFrame, x: str, y: str = "seconds_per_proof",
                color: str | list[str] | None = None, *, title: str | None = None,
                ram_gib=None, published: pd.DataFrame | None = None) -> go.Figure:
    """Return a line figure of metric ``y`` against parameter ``x``, one line per series.

    ``color`` names the column (or columns) that split the points into series,
    named plainly in the legend (``lock=interlock, proofs=10``): the first
    column picks the color, the others the dash and marker. Repeated points
    are averaged, with min–max error bars. A point without a value (out of
    memory, failed, timed out) is never drawn on the value axis: it sits in a
    lane of its own below it, labelled with the reason. ``ram_gib`` (a number
    or several) draws the host RAM line; ``published`` (rows with ``x``, the
    ``color`` columns and ``y``) draws published figures beside the model's,
    with the error of each point.
    """
    keys = [] if color is None else ([color] if isinstance(color, str) else list(color))
    table = _check_table(table, x=x, y=y, color=keys or None)
    df = table.copy()
    df["_ok"] = _point_ok(df, y)
    groups = _series(df, keys)
    combos = [c for c, _ in groups]
    fig = go.Figure()
    numeric_x = pd.api.types.is_numeric_dtype(df[x])
    lanes = [r for r in NO_RESULT if r in {why_not(row) for row in
                                           df[~df["_ok"]].to_dict("records")}]
    means: dict[tuple, pd.Series] = {}
    n = max(len(groups), 1)
    for i, (combo, g) in enumerate(groups):
        name = series_label(keys, combo) if keys else "all points"
        col, dash, symbol, width, size = _style(i, combo, combos)
        good = g[g["_ok"]]
        if len(good):
            agg = good.groupby(x, sort=False)[y].agg(["mean", "min", "max", "count"])
            agg = agg.loc[_sort_key(agg.index)]
            means[combo] = agg["mean"]
            repeated = bool((agg["count"] > 1).any())
            fig.add_trace(go.Scatter(
                x=list(agg.index), y=agg["mean"], mode="lines+markers", name=name,
                legendgroup=name, line=dict(color=col, width=width, dash=dash),
                marker=dict(size=size, symbol=symbol, color=col,
                            line=dict(width=1, color="white")),
                error_y=dict(type="data", symmetric=False, array=agg["max"] - agg["mean"],
                             arrayminus=agg["mean"] - agg["min"], visible=repeated),
                customdata=agg["count"],
                hovertemplate=f"{name}<br>{x}=%{{x}}<br>{y}=%{{y:.4g}}"
                              "<br>%{customdata} run(s)<extra></extra>"))
        bad = g[~g["_ok"]]
        if len(bad):
            why = [why_not(r) for r in bad.to_dict("records")]
            err = bad["error"].fillna("").astype(str).str.slice(0, 120) if "error" in bad \
                else pd.Series([""] * len(bad))
            vals = [("" if _missing(v) else f"{y}={v:.4g} (not a result)") for v in bad[y]]
            # spread the series inside a lane so their markers do not hide each other
            offset = 0.0 if n == 1 else (i / (n - 1) - 0.5) * 0.6
            fig.add_trace(go.Scatter(
                x=bad[x], y=[lanes.index(w) + offset for w in why], yaxis="y2",
                mode="markers", name=f"{name}: no result", legendgroup=name, showlegend=False,
                marker=dict(symbol="x", size=10, color=col, line=dict(width=1, color=col)),
                customdata=np.column_stack([why, err.to_numpy(), vals]),
                hovertemplate=f"{name}<br>{x}=%{{x}}: %{{customdata[0]}}"
                              "<br>%{customdata[2]}<br>%{customdata[1]}<extra></extra>"))
    if published is not None and len(published):
        _add_published(fig, published, x, y, keys, groups, means)
    rams = [] if ram_gib is None else sorted({float(v) for v in np.atleast_1d(ram_gib)
                                              if not _missing(v)})
    xs = _sort_key(df[x].dropna().unique())
    for ram in rams:
        fig.add_trace(go.Scatter(
            x=[xs[0], xs[-1]] if numeric_x else xs, y=[ram] * (2 if numeric_x else len(xs)),
            mode="lines", name=f"RAM {ram:.0f} GiB", line=dict(color=HIGHLIGHT_COLOR, width=2,
                                                              dash="dash"),
            hovertemplate=f"host RAM {ram:.0f} GiB<extra></extra>"))
    layout = dict(
        title=dict(text=title or f"{axis_title(y)} vs {axis_title(x)}", x=0.0, xanchor="left"),
        height=440 + (24 * len(lanes) if lanes else 0),
        xaxis=dict(title=dict(text=axis_title(x)),
                   type="linear" if numeric_x else "category"),
        yaxis=dict(title=dict(text=axis_title(y)), rangemode="tozero"),
        legend=dict(legend_right(), title=dict(text=", ".join(keys))),
        margin=dict(l=70, r=20, t=56, b=50))
    if lanes:
        lane_h = min(0.08 * len(lanes), 0.3)
        layout["yaxis"].update(domain=[lane_h + 0.1, 1.0])
        layout["yaxis2"] = dict(
            domain=[0.0, lane_h], range=[-0.5, len(lanes) - 0.5], tickvals=list(range(len(lanes))),
            ticktext=lanes, showgrid=False, zeroline=False, fixedrange=True,
            title=dict(text="no result", font=dict(size=11)), autorange="reversed")
        layout["xaxis"]["anchor"] = "y2"
        if numeric_x:
            layout["xaxis"]["showline"] = True
    fig.update_layout(**base_layout(**layout))
    return fig


def _add_published(fig, published, x, y, keys, groups, means) -> None:
    """Draw published values as open markers of their series' color, with the model's
    error at each point in the hover and as a label."""
    if y not in published.columns:
        return
    pub = published[published[y].notna()]
    combos = [c for c, _ in groups]
    first = True
    for i, (combo, _g) in enumerate(groups):
        mask = np.ones(len(pub), dtype=bool)
        for k, v in zip(keys, combo):
            if k in pub.columns:
                mask &= (pub[k] == v).to_numpy()
        rows = pub[mask]
        if not len(rows):
            continue
        col = _style(i, combo, combos)[0]
        model = means.get(combo, pd.Series(dtype=float))
        g = _g
        errs, labels = [], []
        for xv, pv in zip(rows[x], rows[y]):
            mv = model.get(xv) if xv in model.index else None
            if mv is None or _missing(mv) or not pv:
                bad = g[(g[x] == xv) & ~g["_ok"]]
                why = why_not(bad.iloc[0].to_dict()) if len(bad) else "not run"
                errs.append(f"model: {why}")
                labels.append(f"model: {why}")
            else:
                e = 100.0 * (float(mv) - float(pv)) / float(pv)
                errs.append(f"model {float(mv):.4g}, error {e:+.1f} %")
                labels.append(f"{e:+.1f} %")
        name = series_label(keys, combo) if keys else "all points"
        fig.add_trace(go.Scatter(
            x=list(rows[x]), y=list(rows[y]), mode="markers+text", name=PUBLISHED_NAME,
            legendgroup="published", showlegend=first, text=labels, textposition="middle right",
            textfont=dict(size=10, color=col),
            marker=dict(symbol="diamond-open", size=13, color=col, line=dict(width=2, color=col)),
            customdata=np.column_stack([errs, rows["source"].fillna("").astype(str)
                                        if "source" in rows else [""] * len(rows)]),
            hovertemplate=f"published, {name}<br>{x}=%{{x}}<br>{y}=%{{y:.4g}}"
                          "<br>%{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
        first = False


def sweep_heatmap(table: pd.DataFrame, x: str, y: str, z: str = "seconds_per_proof", *,
                  title: str | None = None) -> go.Figure:
    """Return a heatmap of metric ``z`` over parameters ``x`` × ``y`` (mean over repeats).

    Cells where no point produced a value show the reason (OOM, failed,
    timeout) instead of a number.
    """
    table = _check_table(table, x=x, y=y, z=z)
    if x == y:
        raise ValueError(f"x and y must be different columns, both are {x!r}")
    df = table.copy()
    df["_ok"] = _point_ok(df, z)
    xs = _sort_key(df[x].dropna().unique())
    ys = _sort_key(df[y].dropna().unique())
    zs = np.full((len(ys), len(xs)), np.nan)
    text = [["" for _ in xs] for _ in ys]
    for (xv, yv), g in df.groupby([x, y], sort=False):
        i, j = ys.index(yv), xs.index(xv)
        good = g.loc[g["_ok"], z]
        if len(good):
            zs[i, j] = float(good.mean())
            text[i][j] = f"{zs[i, j]:.3g}" + (f" ({len(good)}/{len(g)})" if len(good) < len(g)
                                              else "")
        else:
            text[i][j] = why_not(g.iloc[0].to_dict())
    finite = zs[np.isfinite(zs)]
    fig = go.Figure(go.Heatmap(
        x=[str(v) for v in xs], y=[str(v) for v in ys], z=zs, text=text,
        texttemplate="%{text}", textfont=dict(size=12),
        colorscale="Viridis", reversescale=z in LOWER_IS_BETTER,
        zmin=float(finite.min()) if len(finite) else None,
        zmax=float(finite.max()) if len(finite) else None,
        colorbar=dict(title=dict(text=axis_title(z), side="right")),
        hoverongaps=True,
        hovertemplate=f"{x}=%{{x}}<br>{y}=%{{y}}<br>{z}: %{{text}}<extra></extra>"))
    fig.update_layout(**base_layout(
        title=dict(text=title or f"{axis_title(z)} over {x} × {y}", x=0.0, xanchor="left"),
        height=max(320, 48 * len(ys) + 160),
        xaxis=dict(title=dict(text=axis_title(x)), type="category"),
        yaxis=dict(title=dict(text=axis_title(y)), type="category"),
        plot_bgcolor="#f2f2f2"))
    return fig
