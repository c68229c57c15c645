"""Latency from arrival per proof kind, against each kind's deadline.

One line per proof kind of a mixed-workload run: the share of its proofs
finished within a given time of their arrival (an empirical CDF on a log
time axis, since a WinningPoSt takes seconds and a queued PoRep minutes).
Proofs that never finished stay in the denominator, so such a line ends
below 100 %. A kind with a deadline gets a dashed vertical line at it in
its colour; the legend says how many proofs missed it.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..trace.kinds import arrival
from .style import base_layout

KIND_COLORS = {"porep-c2": "#1f77b4", "snap-deals": "#9467bd", "window-post": "#ff7f0e",
               "winning-post": "#d62728"}


#: Height (in % of the y axis) of the row each deadline's label takes above 100 %.
LABEL_ROW = 8.0


def latency_rows(trace) -> dict[str, dict]:
    """Return {kind: {"latency": sorted seconds of the finished, "n": proofs, "deadline": s}}."""
    out: dict[str, dict] = {}
    for r in trace.meta.get("proofs") or []:
        kind = r.get("kind")
        if not kind:
            continue
        d = out.setdefault(kind, {"latency": [], "n": 0, "deadline": r.get("deadline_s")})
        d["n"] += 1
        if r.get("status") == "ok":
            d["latency"].append(float(r["completed"]) - arrival(r))
    for d in out.values():
        d["latency"].sort()
    return out


def latency(trace, title: str | None = None) -> go.Figure:
    """Return the latency-distribution figure of a mixed-workload trace."""
    rows = latency_rows(trace)
    fig = go.Figure()
    if not rows:
        fig.update_layout(**base_layout(title=title or "Latency from arrival (no proof kinds "
                                                       "in this run: simulate with a workload)"))
        return fig
    xs = [x for d in rows.values() for x in d["latency"]] + \
        [d["deadline"] for d in rows.values() if d["deadline"]]
    lo, hi = max(min(xs), 1e-3) / 2, max(xs) * 3
    middle = np.sqrt(lo * hi)
    # Each deadline's label gets a row of its own above 100 %, so that labels anchored
    # toward each other (a short deadline's to the right, a long one's to the left)
    # cannot run into each other or into the curves on a narrow figure.
    label_y = {kind: 100.0 + LABEL_ROW * (i + 0.5)
               for i, kind in enumerate(k for k, d in rows.items() if d["deadline"])}
    top = 100.0 + LABEL_ROW * (len(label_y) + 0.5)
    for kind, d in rows.items():
        color = KIND_COLORS.get(kind, "#7f7f7f")
        lat = np.maximum(np.asarray(d["latency"], dtype=float), 1e-3)
        y = np.arange(1, len(lat) + 1) / max(d["n"], 1) * 100.0
        deadline = d["deadline"]
        label = f"{kind} ({len(lat)} of {d['n']} done"
        if deadline:
            missed = d["n"] - int(np.sum(lat <= deadline))
            label += f", {missed} missed {deadline:g} s"
        label += ")"
        fig.add_trace(go.Scatter(
            x=np.repeat(lat, 2), y=np.concatenate([[0.0], np.repeat(y, 2)[:-1]]) if len(y)
            else y, mode="lines", name=label,
            line=dict(color=color, width=2),
            hovertemplate=f"{kind}<br>%{{y:.0f}} % within %{{x:.1f}} s<extra></extra>"))
        if deadline:
            row = label_y[kind]
            fig.add_trace(go.Scatter(
                x=[deadline, deadline], y=[0, row], mode="lines",
                name=f"{kind} deadline {deadline:g} s", showlegend=False,
                line=dict(color=color, dash="dash", width=1.5),
                hovertemplate=f"{kind} deadline {deadline:g} s<extra></extra>"))
            fig.add_annotation(x=float(np.log10(deadline)), y=row, showarrow=False,
                               text=f" {kind} deadline {deadline:g} s ",
                               xanchor="left" if deadline < middle else "right",
                               yanchor="middle", font=dict(color=color))
    fig.update_layout(**base_layout(
        title=title or "Latency from arrival, per proof kind",
        margin=dict(l=70, r=20, t=56, b=110),
        legend=dict(orientation="h", x=0.0, xanchor="left", y=-0.18, yanchor="top")))
    fig.update_xaxes(type="log", range=[np.log10(lo), np.log10(hi)],
                     title="seconds from arrival to proof (log scale)")
    fig.update_yaxes(title="proofs finished within that time (%)", range=[0, max(top, 108.0)],
                     tickvals=[0, 20, 40, 60, 80, 100])
    return fig
