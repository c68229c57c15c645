"""Two runs side by side: headline metrics and the stage breakdown.

The top row holds four small panels (s/proof, mean latency, peak RSS, GPU
busy), each with one bar per run; the bottom row is the grouped stage
breakdown. The title names the configuration keys that differ.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..trace.schema import STAGES
from .breakdown import breakdown_traces, stage_table
from .style import RUN_COLORS, RUN_PATTERNS, base_layout, legend_right, stage_kind

# (summary key, panel title, scale, number format)
METRICS = (
    ("seconds_per_proof", "s/proof", 1.0, ".1f"),
    ("proof_latency_s_mean", "mean latency (s)", 1.0, ".0f"),
    ("peak_rss_gib", "peak RSS (GiB)", 1.0, ".0f"),
    ("gpu_busy_fraction", "GPU busy (%)", 100.0, ".0f"),
)


def config_diff(a: dict, b: dict) -> dict[str, tuple]:
    """Return {key: (a value, b value)} for the config keys that differ."""
    keys = list(dict.fromkeys([*a, *b]))
    return {k: (a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)}


def compare_title(a, b, sa: dict, sb: dict, labels) -> str:
    """Return the comparison's title: the s/proof change and the keys that changed."""
    pa, pb = sa.get("seconds_per_proof"), sb.get("seconds_per_proof")
    head = f"{labels[0]} vs {labels[1]}"
    if pa and pb:
        head += f" — s/proof {pa:.1f} → {pb:.1f} ({100 * (pb - pa) / pa:+.1f} %)"
    diff = config_diff(a.meta.get("config") or {}, b.meta.get("config") or {})
    if a.meta.get("profile") != b.meta.get("profile"):
        diff["profile"] = (a.meta.get("profile"), b.meta.get("profile"))
    if diff:
        shown = list(diff.items())[:4]
        more = f" +{len(diff) - 4} more" if len(diff) > 4 else ""
        head += "<br><sup>changed: " + ", ".join(f"{k} {x} → {y}" for k, (x, y) in shown) \
            + more + "</sup>"
    else:
        head += "<br><sup>same configuration</sup>"
    return head


def compare(a, b, labels=("pinned", "current"), *, summaries=None) -> go.Figure:
    """Return a side-by-side comparison figure of two Traces (metrics + breakdown)."""
    for name, t in (("a", a), ("b", b)):
        if not hasattr(t, "spans"):
            raise TypeError(f"{name} must be a cuzklab Trace, got {type(t).__name__}")
    labels = tuple(labels)
    if len(labels) != 2:
        raise ValueError(f"labels must be two names, got {labels!r}")
    sa, sb = summaries if summaries is not None else (a.summary(), b.summary())
    fig = make_subplots(
        rows=2, cols=len(METRICS), row_heights=[0.34, 0.66], vertical_spacing=0.14,
        horizontal_spacing=0.07,
        specs=[[{} for _ in METRICS], [{"colspan": 3}, None, None, {}]],
        subplot_titles=[m[1] for m in METRICS] + ["", ""])
    for col, (key, _title, scale, fmt) in enumerate(METRICS, start=1):
        vals = [s.get(key) for s in (sa, sb)]
        ys = [None if v is None else v * scale for v in vals]
        fig.add_trace(go.Bar(
            x=list(labels), y=ys, showlegend=False, name=_title,
            text=["—" if v is None else format(v, fmt) for v in ys], textposition="outside",
            cliponaxis=False,
            marker=dict(color=list(RUN_COLORS),
                        pattern=dict(shape=list(RUN_PATTERNS), fgcolor="#333", solidity=0.25)),
            hovertemplate="%{x}: %{y:" + fmt + "}<extra>" + _title + "</extra>"),
            row=1, col=col)
        top = max([y for y in ys if y is not None] or [1.0])
        fig.update_yaxes(range=[0, top * 1.25 or 1.0], row=1, col=col, showticklabels=False)
    for tr in breakdown_traces([a, b], labels):
        # Working stages bottom left, waits bottom right (each on its own scale).
        fig.add_trace(tr, row=2, col=len(METRICS) if tr.xaxis == "x2" else 1)
    present = [st for st in STAGES if st in stage_table(a) or st in stage_table(b)]
    for col, kinds, xtitle in ((1, ("cpu", "gpu", "other"), "working stages: mean s per span"),
                               (len(METRICS), ("wait",), "waits: mean s per span")):
        cats = [st for st in present if stage_kind(st) in kinds]
        fig.update_yaxes(type="category", categoryorder="array", categoryarray=cats,
                         autorange="reversed", automargin=True, row=2, col=col)
        fig.update_xaxes(title_text=xtitle, rangemode="tozero", row=2, col=col)
        if kinds == ("wait",):
            # Same bar thickness as the work panel: only the top part of the cell.
            n_work = max(len(present) - len(cats), 1)
            lo, hi = fig.get_subplot(2, col).yaxis.domain
            fig.update_yaxes(domain=[hi - (hi - lo) * min(1.0, len(cats) / n_work), hi],
                             row=2, col=col)
    fig.update_layout(**base_layout(
        title=dict(text=compare_title(a, b, sa, sb, labels), x=0.0, xanchor="left"),
        barmode="overlay", height=max(560, 230 + 30 * len(present) * 2),
        legend=dict(legend_right(), y=0.62, title=dict(text="run")),
        margin=dict(l=100, r=60, t=100, b=50)))
    return fig
