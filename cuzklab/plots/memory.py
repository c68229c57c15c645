"""Host memory over time against the RAM line.

The resident set (``rss_gib``) is drawn as a step line, the admission budget
in use (``budget_used_gib``) dashed beside it, and the node's RAM as a red
line: where RSS meets RAM the run is out of memory, and the figure marks the
failure.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .style import (BUDGET_COLOR, RAM_COLOR, RSS_COLOR, TIME_AXIS_TITLE,
                    base_layout, legend_above)


def ram_gib(trace) -> float | None:
    """Return the node's host RAM in GiB from the trace's meta, or None if unknown."""
    res = trace.meta.get("resources") or {}
    cfg = trace.meta.get("config") or {}
    for v in (res.get("memory_gib"), cfg.get("memory_gib")):
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            return float(v)
    return None


def budget_gib(trace) -> float | None:
    """Return the admission memory budget in GiB from the trace's meta, or None."""
    res = trace.meta.get("resources") or {}
    v = res.get("budget_gib")
    return float(v) if v else None


def failure_time(trace) -> float | None:
    """Return when a failed run failed (meta.failure.t, else its last event), or None."""
    if not trace.failed:
        return None
    failure = trace.meta.get("failure") or {}
    for key in ("t", "time", "at"):
        if failure.get(key) is not None:
            return float(failure[key])
    return trace.duration


def memory_traces(trace) -> list:
    """Return the memory trace specs (plain dicts): RSS, budget, RAM, OOM marker."""
    end = max(trace.duration, 1e-9)
    rss = trace.counter("rss_gib")
    budget = trace.counter("budget_used_gib")
    ram = ram_gib(trace)
    out = [dict(
        type="scatter", x=rss["t"].to_numpy(), y=rss["value"].to_numpy(), name="RSS",
        mode="lines", line=dict(color=RSS_COLOR, width=2, shape="hv"),
        fill="tozeroy", fillcolor="rgba(31,59,115,0.12)",
        hovertemplate="t %{x:.1f} s<br>RSS %{y:.1f} GiB<extra></extra>")]
    # A budget is in use only when the run had one (admission = "budget" gives it a
    # size); without one the simulator still records the reserved SRS as a single
    # sample, which is no budget and gets no line or legend entry.
    cap = budget_gib(trace) if len(budget) else None
    used = bool(cap)
    out.append(dict(
        type="scatter", x=budget["t"].to_numpy() if used else [],
        y=budget["value"].to_numpy() if used else [], name="budget in use",
        mode="lines", line=dict(color=BUDGET_COLOR, width=1.5, dash="dash", shape="hv"),
        showlegend=used,
        hovertemplate="t %{x:.1f} s<br>budget in use %{y:.1f} GiB<extra></extra>"))
    out.append(dict(
        type="scatter", x=[0, end] if cap else [], y=[cap, cap] if cap else [],
        name=f"budget {cap:.0f} GiB" if cap else "budget", mode="lines",
        line=dict(color=BUDGET_COLOR, width=1, dash="dot"), showlegend=bool(cap),
        hoverinfo="skip"))
    out.append(dict(
        type="scatter", x=[0, end] if ram else [], y=[ram, ram] if ram else [],
        name=f"RAM {ram:.0f} GiB" if ram else "RAM", mode="lines",
        line=dict(color=RAM_COLOR, width=2, dash="dash"), showlegend=bool(ram),
        hovertemplate="host RAM %{y:.0f} GiB<extra></extra>"))
    t_fail = failure_time(trace)
    oom = bool(trace.failed and (trace.meta.get("failure") or {}).get("reason") == "oom")
    if t_fail is not None:
        y_fail = ram if (oom and ram) else (float(rss["value"].max()) if len(rss) else 0.0)
        label = "OOM" if oom else "failed"
        out.append(dict(
        type="scatter", x=[t_fail], y=[y_fail], name=label, mode="markers+text", text=[label],
            textposition="top left", textfont=dict(color=RAM_COLOR, size=13),
            marker=dict(symbol="x", size=14, color=RAM_COLOR, line=dict(width=2)),
            hovertemplate=f"{label} at %{{x:.1f}} s<extra></extra>"))
    else:
        out.append(dict(type="scatter", x=[], y=[], name="OOM", mode="markers", showlegend=False))
    return out


def memory_layout(trace, *, title: str | None = None) -> dict:
    """Return the layout of the memory figure for ``trace``."""
    rss = trace.counter("rss_gib")
    peak = float(rss["value"].max()) if len(rss) else 0.0
    ram = ram_gib(trace) or 0.0
    top = max(peak, ram, 1.0) * 1.1
    if title is None:
        title = f"Host memory — peak RSS {peak:.0f} GiB" + (f" of {ram:.0f} GiB RAM" if ram else "")
    return base_layout(
        title=dict(text=title, x=0.0, xanchor="left"),
        height=360,
        xaxis=dict(title=dict(text=TIME_AXIS_TITLE), range=[0, max(trace.duration, 1e-9) * 1.02],
                   zeroline=False),
        yaxis=dict(title=dict(text="host memory (GiB)"), range=[0, top], zeroline=False),
        legend=legend_above(),
        margin=dict(l=70, r=20, t=90, b=50),
        hovermode="closest",
    )


def memory(trace, *, title: str | None = None) -> go.Figure:
    """Return the host-memory-over-time figure of ``trace`` with the RAM line."""
    if not hasattr(trace, "counters"):
        raise TypeError(f"trace must be a cuzklab Trace, got {type(trace).__name__}")
    return go.Figure(data=memory_traces(trace), layout=memory_layout(trace, title=title))
