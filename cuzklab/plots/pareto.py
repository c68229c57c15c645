"""The tuner's figure: throughput against peak memory, with the Pareto front.

Every configuration the tuner simulated is a point (throughput in proofs per
hour up, peak RSS right), a ring colored by lock strategy (dotted inside the
memory limit, plain past it; locks that tie show as nested rings). The step line is the Pareto front within the limit (no
configuration left of it is faster); the dashed line is the limit (RAM minus
the margin), the red line the RAM. The recommendation is a star, its bars the
spread under the cost moves and seeds. Runs that failed (out of memory) have
no throughput: the figure counts them in a note instead of drawing them.
"""

from __future__ import annotations

import plotly.graph_objects as go

from .style import HIGHLIGHT_COLOR, RAM_COLOR, base_layout, legend_right
from .sweep import SERIES_COLORS as PALETTE

THROUGHPUT_TITLE = "throughput (proofs per hour, higher is better)"
MEMORY_TITLE = "peak RSS (GiB)"
FRONT_COLOR = "#222222"


def _pph(spp: float) -> float:
    return 3600.0 / spp


def _hover(c) -> str:
    m = c.metrics
    b = (m.get("bottleneck") or {}).get("resource") or "—"
    lat = m.get("proof_latency_s")
    return (f"{c.knobs.label()}<br>{m['seconds_per_proof']:.1f} s/proof, peak "
            f"{m['peak_rss_gib']:.1f} GiB<br>latency {lat:.0f} s; bound by {b}"
            if lat is not None else c.knobs.label())


def pareto_figure(result, *, title: str | None = None) -> go.Figure:
    """Return the throughput-against-peak-RSS figure of a :class:`~cuzklab.tune.TuneResult`."""
    if not hasattr(result, "points") or not hasattr(result, "node"):
        raise TypeError(f"result must be a TuneResult, got {type(result).__name__}")
    node = result.node
    done = [c for c in result.points if c.s_per_proof is not None
            and not c.metrics.get("run_failed") and c.metrics.get("peak_rss_gib") is not None]
    failed = [c for c in result.points if c not in done]
    fig = go.Figure()
    locks = sorted({c.knobs.lock for c in done})
    for i, lock in enumerate(locks):
        color = PALETTE[i % len(PALETTE)]
        # Locks often tie (at few partition workers every lock gives the same run): each
        # lock's rings are smaller than the one before, so tied points show as nested rings.
        size = 16 - 2.5 * i
        for inside in (True, False):
            pts = [c for c in done if c.knobs.lock == lock
                   and (c.metrics["peak_rss_gib"] <= node.limit_gib) == inside]
            if not pts:
                continue
            fig.add_trace(go.Scatter(
                x=[c.metrics["peak_rss_gib"] for c in pts], y=[_pph(c.s_per_proof) for c in pts],
                mode="markers", name=lock + ("" if inside else " (over the limit)"),
                legendgroup=lock,
                marker=dict(size=size, color=color, opacity=0.9,
                            line=dict(color=color, width=2),
                            symbol="circle-open" if not inside else "circle-open-dot"),
                text=[_hover(c) for c in pts], hovertemplate="%{text}<extra></extra>"))
    rec = result.recommended
    if rec is not None:
        m = rec.metrics
        y = _pph(m["seconds_per_proof"])
        err = {}
        rob = rec.robustness
        if rob is not None:
            lo, hi = rob.spread()
            if lo is not None:
                err["error_y"] = dict(type="data", symmetric=False, array=[_pph(lo) - y],
                                      arrayminus=[y - _pph(hi)], color=HIGHLIGHT_COLOR,
                                      thickness=1.5)
            if rob.peak_max is not None:
                err["error_x"] = dict(type="data", symmetric=False,
                                      array=[rob.peak_max - m["peak_rss_gib"]], arrayminus=[0],
                                      color=HIGHLIGHT_COLOR, thickness=1.5)
        fig.add_trace(go.Scatter(
            x=[m["peak_rss_gib"]], y=[y], mode="markers", name="recommended",
            marker=dict(symbol="star", size=18, color=HIGHLIGHT_COLOR,
                        line=dict(color="white", width=1)),
            text=[_hover(rec)], hovertemplate="recommended: %{text}<extra></extra>", **err))
    # The front is drawn over the star's bars: where the recommendation is the front's last
    # step, its rise would otherwise hide under the red bar and the star look above the front.
    front = result.pareto()
    if front:
        fig.add_trace(go.Scatter(
            x=[c.metrics["peak_rss_gib"] for c in front], y=[_pph(c.s_per_proof) for c in front],
            mode="lines+markers", line=dict(color=FRONT_COLOR, width=1.5, shape="hv"),
            marker=dict(size=4, color=FRONT_COLOR),
            name="Pareto front within the limit", hoverinfo="skip"))
    base = result.request.get("base_gib")
    if base:
        fig.add_vrect(x0=0, x1=base, fillcolor="#bbbbbb", opacity=0.25, line_width=0,
                      annotation=dict(text=f"SRS + PCE resident ({base:.0f} GiB)",
                                      font=dict(size=11, color="#555555")),
                      annotation_position="bottom left")
    for x, name, dash, color in ((node.limit_gib, f"limit {node.limit_gib:g} GiB", "dash",
                                  FRONT_COLOR),
                                 (node.memory_gib, f"RAM {node.memory_gib:g} GiB", "solid",
                                  RAM_COLOR)):
        fig.add_vline(x=x, line=dict(color=color, dash=dash, width=1.5),
                      annotation=dict(text=name, textangle=-90, font=dict(color=color, size=11)),
                      annotation_position="bottom left")
    notes = []
    if failed:
        reasons: dict[str, int] = {}
        for c in failed:
            r = c.metrics.get("failure_reason") or "no result"
            reasons[r] = reasons.get(r, 0) + 1
        notes.append("not drawn (no throughput): " + ", ".join(
            f"{n} {'ran out of host memory' if r == 'oom' else r}" for r, n in sorted(reasons.items())))
    if notes:
        fig.add_annotation(text="; ".join(notes), xref="paper", yref="paper", x=0.0, y=-0.16,
                           xanchor="left", yanchor="top", showarrow=False,
                           font=dict(size=11, color="#555555"))
    gpus = f"{node.gpus} GPU" + ("s" if node.gpus > 1 else "")
    fig.update_layout(**base_layout(
        title=dict(text=title or f"Throughput against peak memory: {node.memory_gib:g} GiB RAM, "
                                 f"{gpus} ({result.request['profile']}, "
                                 f"{result.request['proofs']} proofs)", x=0.0, xanchor="left"),
        height=480,
        xaxis=dict(title=dict(text=MEMORY_TITLE), rangemode="tozero",
                   range=[0, node.memory_gib * 1.04]),
        yaxis=dict(title=dict(text=THROUGHPUT_TITLE), rangemode="tozero"),
        legend=legend_right(),
        margin=dict(l=70, r=20, t=56, b=90)))
    return fig
