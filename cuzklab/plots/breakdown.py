"""The stage-time breakdown: how long one span of each stage takes, on average.

One horizontal bar per stage in pipeline order (mean seconds per span), its
color from the shared stage map. Working stages sit in the left panel and
waits (hatched) in the right one, each on its own scale, so a long admission
queue does not flatten the GPU stages. With several runs the bars are
grouped, one pattern per run, so two configurations compare at a glance.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..trace.schema import STAGES
from .style import (RUN_PATTERNS, WAIT_OPACITY, WORK_OPACITY, base_layout,
                    legend_right, stage_color, stage_kind)


def _seconds(v: float) -> str:
    if v == 0:
        return "0 s"
    return f"{v:.3g} s" if v >= 0.01 else f"{1000 * v:.2g} ms"


def stage_table(trace) -> dict[str, dict[str, float]]:
    """Return {stage: {n, mean_s, p95_s, max_s, total_s}} for the stages present, in order."""
    s = trace.spans
    if not len(s):
        return {}
    dur = (s["end"] - s["start"]).to_numpy(dtype=float)
    stage = s["stage"].to_numpy()
    out = {}
    for st in STAGES:
        d = dur[stage == st]
        if len(d):
            out[st] = {"n": int(len(d)), "mean_s": float(d.mean()),
                       "p95_s": float(np.percentile(d, 95)), "max_s": float(d.max()),
                       "total_s": float(d.sum())}
    return out


def _as_runs(traces, labels) -> tuple[list, list[str]]:
    if hasattr(traces, "spans"):
        traces = [traces]
    traces = list(traces)
    if not traces:
        raise ValueError("traces must hold at least one Trace")
    for t in traces:
        if not hasattr(t, "spans"):
            raise TypeError(f"traces must be cuzklab Traces, got {type(t).__name__}")
    if labels is None:
        labels = ["run"] if len(traces) == 1 else [f"run {i + 1}" for i in range(len(traces))]
    labels = list(labels)
    if len(labels) != len(traces):
        raise ValueError(f"labels must have one entry per trace ({len(traces)}), "
                         f"got {len(labels)}")
    return traces, labels


def breakdown_traces(traces, labels=None) -> list:
    """Return the breakdown bar specs (plain dicts): one per (stage, run), STAGES order."""
    traces, labels = _as_runs(traces, labels)
    tables = [stage_table(t) for t in traces]
    multi = len(traces) > 1
    # Explicit bar width and offset per run (instead of barmode="group"), so
    # the bars stay side by side in any figure they are placed in.
    slot = 0.8 / len(traces)
    out = []
    for r, (tb, label) in enumerate(zip(tables, labels)):
        for st in STAGES:
            row = tb.get(st)
            wait = stage_kind(st) == "wait"
            pattern = RUN_PATTERNS[r % len(RUN_PATTERNS)] if multi else ("/" if wait else "")
            if row is None:
                x, y, custom, text = [], [], np.empty((0, 4)), []
            else:
                x, y = [row["mean_s"]], [st]
                custom = np.array([[row["n"], row["p95_s"], row["max_s"], row["total_s"]]])
                text = [_seconds(row["mean_s"])]
            out.append(dict(
                type="bar", orientation="h", x=x, y=y, customdata=custom, text=text,
                xaxis="x2" if wait else "x", yaxis="y2" if wait else "y",
                textposition="outside", cliponaxis=False,
                name=f"{st} · {label}" if multi else st,
                legendgroup=label if multi else st, showlegend=False,
                width=slot if multi else None,
                offset=(-0.4 + r * slot) if multi else None,
                opacity=WAIT_OPACITY + 0.2 if wait else WORK_OPACITY,
                marker=dict(color=stage_color(st),
                            pattern=dict(shape=pattern, fgcolor="#444", solidity=0.25),
                            line=dict(width=0.5, color="#555")),
                hovertemplate=(f"<b>{st}</b>" + (f" · {label}" if multi else "")
                               + "<br>mean %{x:.3f} s over %{customdata[0]} spans"
                               "<br>p95 %{customdata[1]:.3f} s · max %{customdata[2]:.3f} s"
                               "<br>total %{customdata[3]:.1f} span-seconds<extra></extra>"),
            ))
    if multi:
        # Legend-only entries: one neutral swatch per run, in the run's pattern.
        for r, label in enumerate(labels):
            out.append(dict(
                type="bar", orientation="h", x=[None], y=[None], name=label, legendgroup=label,
                showlegend=True, hoverinfo="skip",
                marker=dict(color="#d9d9d9", line=dict(width=0.5, color="#555"),
                            pattern=dict(shape=RUN_PATTERNS[r % len(RUN_PATTERNS)],
                                         fgcolor="#444", solidity=0.25))))
    return out


def breakdown_layout(traces, labels=None, *, title: str | None = None) -> dict:
    """Return the layout of the breakdown for ``traces``."""
    traces, labels = _as_runs(traces, labels)
    tables = [stage_table(t) for t in traces]
    present = [st for st in STAGES if any(st in tb for tb in tables)]
    work = [st for st in present if stage_kind(st) != "wait"]
    waits = [st for st in present if stage_kind(st) == "wait"]
    multi = len(traces) > 1
    rows = max(len(work), len(waits), 1)
    height = max(300, 24 * rows * (len(traces) if multi else 1) + 140)
    # The waits panel is shorter than the work panel: same bar thickness.
    wait_frac = max(len(waits), 1) / rows
    # Without waits (a single live proof, say) the working stages take the width.
    work_right = 0.56 if waits else 1.0
    return base_layout(
        title=dict(text=title or "Stage time per span (mean)", x=0.0, xanchor="left"),
        barmode="overlay",
        height=height,
        xaxis=dict(title=dict(text="working stages: mean s per span"), rangemode="tozero",
                   showgrid=True, domain=[0.0, work_right], anchor="y"),
        yaxis=dict(type="category", categoryorder="array", categoryarray=work,
                   autorange="reversed", automargin=True, anchor="x"),
        xaxis2=dict(title=dict(text="waits: mean s per span"), rangemode="tozero",
                    showgrid=True, domain=[0.72, 1.0], anchor="y2", visible=bool(waits)),
        yaxis2=dict(type="category", categoryorder="array", categoryarray=waits,
                    autorange="reversed", automargin=True, anchor="x2",
                    domain=[1.0 - wait_frac, 1.0], visible=bool(waits)),
        legend=dict(legend_right(), title=dict(text="run")),
        showlegend=multi,
        margin=dict(l=100, r=60, t=56, b=50),
        uniformtext=dict(minsize=9, mode="show"),
    )


def breakdown(traces, labels=None, *, title: str | None = None) -> go.Figure:
    """Return the stage-time breakdown figure for one Trace or a list of Traces."""
    return go.Figure(data=breakdown_traces(traces, labels),
                     layout=breakdown_layout(traces, labels, title=title))
