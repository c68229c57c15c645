"""Utilization per resource: how busy each resource was, overall and over time.

The top panel shows each resource's utilization over the run (the numbers the
bottleneck analysis in ``cuzklab.trace.summary`` ranks), the bottleneck in a
strong color; the bottom panel shows the same resources binned over time, so
fill, steady state and drain are visible.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..trace.schema import GPU_STAGES
from ..trace.summary import mutex_held
from .style import (HIGHLIGHT_COLOR, MUTED_COLOR, TIME_AXIS_TITLE, base_layout,
                    legend_above, stage_color)

# Resources in the order the bottleneck analysis names them, each drawn in
# the color of the stage that loads it most.
RESOURCES = ("gpu", "gpu_mutex", "synthesis", "cpu_pool", "memory_bandwidth", "memory_budget")
RESOURCE_COLORS = {
    "gpu": stage_color("ntt_h"),
    # The lock is no stage: a dark neutral that reads apart from every stage color.
    "gpu_mutex": "#37474f",
    "synthesis": stage_color("synth"),
    "cpu_pool": stage_color("prep_msm"),
    "memory_bandwidth": stage_color("batch_add"),
    "memory_budget": stage_color("epilogue"),
}
DEFAULT_BINS = 80


def merge_intervals(starts, ends) -> tuple[np.ndarray, np.ndarray]:
    """Return the disjoint blocks (starts, ends) covering the union of intervals."""
    s = np.asarray(starts, dtype=float)
    e = np.asarray(ends, dtype=float)
    if not len(s):
        return s, e
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    run_end = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > run_end[:-1]
    idx = np.flatnonzero(new)
    return s[idx], np.append(run_end[idx[1:] - 1], run_end[-1])


def covered_per_bin(starts, ends, edges) -> np.ndarray:
    """Return the interval-seconds inside each bin [edges[i], edges[i+1]).

    Uses F(t) = Σ clip(t - s_i, 0, e_i - s_i), the time covered before t,
    evaluated at the edges from sorted starts and ends: O((n + bins) log n).
    """
    edges = np.asarray(edges, dtype=float)
    s = np.sort(np.asarray(starts, dtype=float))
    e = np.sort(np.asarray(ends, dtype=float))
    if not len(s):
        return np.zeros(len(edges) - 1)
    cs = np.concatenate([[0.0], np.cumsum(s)])
    ce = np.concatenate([[0.0], np.cumsum(e)])
    ks = np.searchsorted(s, edges, side="left")
    ke = np.searchsorted(e, edges, side="left")
    covered = (ks * edges - cs[ks]) - (ke * edges - ce[ke])
    return np.diff(covered)


def step_mean_per_bin(t, v, edges) -> np.ndarray:
    """Return the mean per bin of a step function (value v[i] from t[i] on)."""
    edges = np.asarray(edges, dtype=float)
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    if not len(t):
        return np.full(len(edges) - 1, np.nan)
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    # Integral of the step function from t[0] up to each sample, then to each edge.
    cum = np.concatenate([[0.0], np.cumsum(v[:-1] * np.diff(t))])
    k = np.searchsorted(t, edges, side="right") - 1
    before = k < 0
    kc = np.clip(k, 0, None)
    integral = np.where(before, 0.0, cum[kc] + v[kc] * (edges - t[kc]))
    return np.diff(integral) / np.diff(edges)


def _capacity(trace, key: str, default: float) -> float:
    res = trace.meta.get("resources") or {}
    v = res.get(key)
    return float(v) if v else default


def utilization_over_time(trace, bins: int = DEFAULT_BINS) -> tuple[np.ndarray, dict]:
    """Return (bin centers in s, {resource: utilization per bin in 0..1})."""
    if not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    end = max(trace.duration, 1e-9)
    edges = np.linspace(0.0, end, int(bins) + 1)
    width = np.diff(edges)
    s = trace.spans
    stage = s["stage"].to_numpy()
    start = s["start"].to_numpy(dtype=float)
    stop = s["end"].to_numpy(dtype=float)
    out: dict[str, np.ndarray] = {}
    gmask = np.isin(stage, GPU_STAGES)
    if gmask.any():
        gpu_ids = s["gpu"].to_numpy()[gmask]
        busy = np.zeros(len(width))
        for g in np.unique(gpu_ids):
            m = gpu_ids == g
            bs, be = merge_intervals(start[gmask][m], stop[gmask][m])
            busy += covered_per_bin(bs, be, edges)
        gpus = _capacity(trace, "gpus", float(len(np.unique(gpu_ids))))
        out["gpu"] = busy / (width * gpus)
    held = mutex_held(trace)
    if held:
        busy = np.zeros(len(width))
        for a, b in held.values():
            bs, be = merge_intervals(a, b)
            busy += covered_per_bin(bs, be, edges)
        gpus = max(_capacity(trace, "gpus", float(len(held))), float(len(held)))
        out["gpu_mutex"] = busy / (width * gpus)
    smask = stage == "synth"
    if smask.any():
        slots = _capacity(trace, "synthesis_slots",
                          float(s.loc[smask, "lane"].nunique()))
        out["synthesis"] = covered_per_bin(start[smask], stop[smask], edges) / (width * slots)
    pmask = np.isin(stage, ("prep_msm", "b_g2_msm"))
    if pmask.any():
        bs, be = merge_intervals(start[pmask], stop[pmask])
        out["cpu_pool"] = covered_per_bin(bs, be, edges) / width
    for name, counter, cap_key in (("memory_bandwidth", "ddr_gbps", "ddr_gbps"),
                                   ("memory_budget", "budget_used_gib", "budget_gib")):
        c = trace.counter(counter)
        cap = _capacity(trace, cap_key, 0.0)
        if len(c) and cap:
            out[name] = step_mean_per_bin(c["t"], c["value"], edges) / cap
    centers = (edges[:-1] + edges[1:]) / 2
    # Before a counter's first sample nothing was recorded: count it as idle
    # (and send no NaN to the browser).
    return centers, {k: np.clip(np.nan_to_num(v, nan=0.0), 0.0, 1.0) for k, v in out.items()}


def utilization_traces(trace, summary: dict | None = None, *,
                       bins: int = DEFAULT_BINS) -> list:
    """Return trace specs (plain dicts): mean-utilization bars, then a line per resource."""
    summary = summary if summary is not None else trace.summary()
    bott = summary.get("bottleneck") or {}
    util = (bott.get("evidence") or {}).get("utilization") or {}
    names = [r for r in RESOURCES if r in util] + [r for r in util if r not in RESOURCES]
    values = [100.0 * float(util[r]) for r in names]
    colors = [HIGHLIGHT_COLOR if r == bott.get("resource") else MUTED_COLOR for r in names]
    out = [dict(
        type="bar", x=values, y=names, orientation="h", name="mean utilization", showlegend=False,
        marker=dict(color=colors), text=[f"{v:.0f} %" for v in values],
        textposition="outside", cliponaxis=False, xaxis="x", yaxis="y",
        hovertemplate="%{y}: %{x:.1f} % busy over the run<extra></extra>")]
    centers, series = utilization_over_time(trace, bins)
    for r in RESOURCES:
        v = series.get(r)
        out.append(dict(
            type="scatter", x=centers if v is not None else [], y=100.0 * v if v is not None else [],
            name=r, mode="lines", showlegend=v is not None, xaxis="x2", yaxis="y2",
            line=dict(color=RESOURCE_COLORS[r], width=3 if r == bott.get("resource") else 1.6),
            hovertemplate=f"{r}: %{{y:.0f}} %% at %{{x:.0f}} s<extra></extra>"))
    return out


def utilization_layout(trace, summary: dict | None = None, *, title: str | None = None) -> dict:
    """Return the two-panel layout of the utilization figure."""
    summary = summary if summary is not None else trace.summary()
    bott = summary.get("bottleneck") or {}
    if title is None:
        res = bott.get("resource")
        u = bott.get("utilization")
        title = "Utilization per resource"
        if res:
            title += f" — bottleneck: {res}" + (f" ({100 * u:.0f} %)" if u is not None else "")
    return base_layout(
        title=dict(text=title, x=0.0, xanchor="left"),
        height=460,
        xaxis=dict(title=dict(text="busy over the run (%)"), range=[0, 112], domain=[0, 1],
                   anchor="y"),
        yaxis=dict(type="category", autorange="reversed", domain=[0.64, 1.0], anchor="x",
                   automargin=True),
        xaxis2=dict(title=dict(text=TIME_AXIS_TITLE), range=[0, max(trace.duration, 1e-9)],
                    domain=[0, 1], anchor="y2"),
        yaxis2=dict(title=dict(text="busy (%)"), range=[0, 105], domain=[0.0, 0.42],
                    anchor="x2"),
        legend=dict(legend_above(), y=0.455, yanchor="bottom"),
        margin=dict(l=120, r=30, t=56, b=50),
        bargap=0.3,
        hovermode="closest",
    )


def utilization(trace, *, summary: dict | None = None, bins: int = DEFAULT_BINS,
                title: str | None = None) -> go.Figure:
    """Return the utilization-per-resource figure of ``trace`` (overall and over time)."""
    if not hasattr(trace, "spans"):
        raise TypeError(f"trace must be a cuzklab Trace, got {type(trace).__name__}")
    summary = summary if summary is not None else trace.summary()
    return go.Figure(data=utilization_traces(trace, summary, bins=bins),
                     layout=utilization_layout(trace, summary, title=title))
