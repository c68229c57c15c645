"""Figures over a sweep table: one row per sweep point.

The table holds parameter columns (``proofs``, ``lock``, ...), a ``status``
column (``ok`` or why the point did not finish: ``failed``, ``timeout``,
``crashed``, ``invalid``; an OOM run is ``ok`` as a point but has ``oom``
true) and summary metric columns (``seconds_per_proof``, ``peak_rss_gib``,
...). Points that did not produce the metric are never dropped silently: they
are marked on the figure with their status.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.colors

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

PALETTE = plotly.colors.qualitative.Set1


def axis_title(column: str) -> str:
    """Return the axis title (with units) for a table column."""
    return METRIC_TITLES.get(column, column.replace("_", " "))


def _check_table(table, **columns) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    for param, col in columns.items():
        if col is None:
            continue
        if not isinstance(col, str):
            raise TypeError(f"{param} must be a column name (str), got {type(col).__name__}")
        if col not in table.columns:
            raise ValueError(f"{param}={col!r} is not a column of the table; "
                             f"columns: {', '.join(map(str, table.columns))}")
    return table


def _point_ok(table: pd.DataFrame, y: str) -> pd.Series:
    ok = table[y].notna()
    if "status" in table:
        ok &= table["status"].fillna("ok").astype(str).eq("ok")
    # A run that went out of memory or failed finished as a point, but its
    # throughput is not a result to compare.
    for flag in ("oom", "run_failed"):
        if flag in table:
            ok &= ~table[flag].fillna(False).astype(bool)
    return ok


def _why_not(row) -> str:
    status = str(row.get("status", "") or "")
    if row.get("oom") in (True, 1, "true", "True") or str(row.get("failure_reason", "")) == "oom":
        return "OOM"
    if status and status != "ok":
        return status
    return "no value"


def _sort_key(values):
    try:
        return sorted(values, key=float)
    except (TypeError, ValueError):
        return sorted(values, key=str)


def sweep_lines(table: pd.DataFrame, x: str, y: str = "seconds_per_proof",
                color: str | None = None, *, title: str | None = None) -> go.Figure:
    """Return a line figure of metric ``y`` against parameter ``x``, one line per ``color`` value.

    Repeated points are averaged, with min–max error bars; points without a
    value (failed, timed out, OOM) are drawn as red crosses on the x axis
    with their status in the hover.
    """
    table = _check_table(table, x=x, y=y, color=color)
    df = table.copy()
    df["_ok"] = _point_ok(df, y)
    groups = [(None, df)] if color is None else [
        (k, g) for k, g in ((k, df[df[color] == k]) for k in _sort_key(df[color].dropna().unique()))]
    fig = go.Figure()
    numeric_x = pd.api.types.is_numeric_dtype(df[x])
    for i, (key, g) in enumerate(groups):
        name = "all points" if key is None else f"{color}={key}"
        col = PALETTE[i % len(PALETTE)]
        good = g[g["_ok"]]
        if len(good):
            agg = good.groupby(x, sort=False)[y].agg(["mean", "min", "max", "count"])
            agg = agg.loc[_sort_key(agg.index)]
            repeated = bool((agg["count"] > 1).any())
            fig.add_trace(go.Scatter(
                x=list(agg.index), y=agg["mean"], mode="lines+markers", name=name,
                legendgroup=name, line=dict(color=col, width=2), marker=dict(size=8),
                error_y=dict(type="data", symmetric=False, array=agg["max"] - agg["mean"],
                             arrayminus=agg["mean"] - agg["min"], visible=repeated),
                customdata=agg["count"],
                hovertemplate=f"{name}<br>{x}=%{{x}}<br>{y}=%{{y:.3g}}"
                              "<br>%{customdata} run(s)<extra></extra>"))
        bad = g[~g["_ok"]]
        if len(bad):
            why = [_why_not(r) for r in bad.to_dict("records")]
            err = bad["error"].fillna("").astype(str).str.slice(0, 120) if "error" in bad \
                else pd.Series([""] * len(bad))
            fig.add_trace(go.Scatter(
                x=bad[x], y=[0.0] * len(bad), mode="markers", name=f"{name}: no result",
                legendgroup=name, showlegend=True,
                marker=dict(symbol="x", size=11, color=HIGHLIGHT_COLOR,
                            line=dict(width=1.5, color=col)),
                customdata=np.column_stack([why, err.to_numpy()]),
                hovertemplate=f"{name}<br>{x}=%{{x}}: %{{customdata[0]}}"
                              "<br>%{customdata[1]}<extra></extra>"))
    fig.update_layout(**base_layout(
        title=dict(text=title or f"{axis_title(y)} vs {axis_title(x)}", x=0.0, xanchor="left"),
        height=420,
        xaxis=dict(title=dict(text=axis_title(x)),
                   type="linear" if numeric_x else "category"),
        yaxis=dict(title=dict(text=axis_title(y)), rangemode="tozero"),
        legend=dict(legend_right(), title=dict(text=color or "")),
        margin=dict(l=70, r=20, t=56, b=50)))
    return fig


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
            text[i][j] = _why_not(g.iloc[0].to_dict())
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
