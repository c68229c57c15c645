"""Two runs side by side: headline metrics and the stage breakdown.

The top row holds four small panels (s/proof, mean latency, peak RSS, GPU
busy), each with one bar per run; the bottom row is the grouped stage
breakdown. The title names the configuration keys that differ.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ..trace.schema import STAGES
from .breakdown import breakdown_traces, stage_table
from .style import RUN_COLORS, RUN_PATTERNS, base_layout, stage_kind

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


# Panel geometry in paper coordinates: four metric panels on top, the work
# and wait breakdowns below.
_TOP = (0.70, 1.0)
_BOTTOM = (0.0, 0.56)
_METRIC_X = tuple((0.255 * i, 0.255 * i + 0.2) for i in range(4))
_WORK_X = (0.0, 0.6)
_WAIT_X = (0.74, 1.0)


def _ref(letter: str, i: int) -> str:
    """Return the trace reference of axis ``i`` (``x``, ``x2``, ...)."""
    return letter if i == 1 else f"{letter}{i}"


def _key(letter: str, i: int) -> str:
    """Return the layout key of axis ``i`` (``xaxis``, ``xaxis2``, ...)."""
    return f"{letter}axis" if i == 1 else f"{letter}axis{i}"


def _check(a, b, labels):
    for name, t in (("a", a), ("b", b)):
        if not hasattr(t, "spans"):
            raise TypeError(f"{name} must be a cuzklab Trace, got {type(t).__name__}")
    labels = tuple(labels)
    if len(labels) != 2:
        raise ValueError(f"labels must be two names, got {labels!r}")
    return labels


def compare_traces(a, b, labels=("pinned", "current"), *, summaries=None) -> list[dict]:
    """Return the comparison's trace specs (plain dicts): metric bars, then the breakdown."""
    labels = _check(a, b, labels)
    sa, sb = summaries if summaries is not None else (a.summary(), b.summary())
    out = []
    for i, (key, title, scale, fmt) in enumerate(METRICS, start=1):
        ys = [None if s.get(key) is None else s.get(key) * scale for s in (sa, sb)]
        out.append(dict(
            type="bar", x=list(labels), y=ys, showlegend=False, name=title,
            xaxis=_ref("x", i), yaxis=_ref("y", i),
            text=["—" if v is None else format(v, fmt) for v in ys], textposition="outside",
            cliponaxis=False,
            marker=dict(color=list(RUN_COLORS),
                        pattern=dict(shape=list(RUN_PATTERNS), fgcolor="#333", solidity=0.25)),
            hovertemplate="%{x}: %{y:" + fmt + "}<extra>" + title + "</extra>"))
    work, wait = f"{len(METRICS) + 1}", f"{len(METRICS) + 2}"
    for tr in breakdown_traces([a, b], labels):
        is_wait = tr.get("xaxis") == "x2"
        n = int(wait if is_wait else work)
        tr = dict(tr, xaxis=_ref("x", n), yaxis=_ref("y", n))
        out.append(tr)
    return out


def compare_layout(a, b, labels=("pinned", "current"), *, summaries=None) -> dict:
    """Return the comparison's layout: four metric panels over the two breakdown panels."""
    labels = _check(a, b, labels)
    sa, sb = summaries if summaries is not None else (a.summary(), b.summary())
    present = [st for st in STAGES if st in stage_table(a) or st in stage_table(b)]
    work = [st for st in present if stage_kind(st) != "wait"]
    waits = [st for st in present if stage_kind(st) == "wait"]
    layout = base_layout(
        title=dict(text=compare_title(a, b, sa, sb, labels), x=0.0, xanchor="left"),
        barmode="overlay", height=max(560, 260 + 26 * max(len(work), 1) * 2),
        legend=dict(orientation="h", x=0.0, xanchor="left", y=_BOTTOM[1] + 0.03,
                    yanchor="bottom", title=dict(text="run "), bgcolor="rgba(255,255,255,0)"),
        margin=dict(l=100, r=60, t=100, b=50), showlegend=True)
    annotations = []
    for i, (key, title, scale, _fmt) in enumerate(METRICS, start=1):
        ys = [s.get(key) * scale for s in (sa, sb) if s.get(key) is not None]
        top = max(ys or [1.0]) * 1.3 or 1.0
        layout[_key("x", i)] = dict(domain=list(_METRIC_X[i - 1]), anchor=_ref("y", i))
        layout[_key("y", i)] = dict(domain=list(_TOP), anchor=_ref("x", i), range=[0, top],
                                    showticklabels=False)
        annotations.append(dict(text=title, xref="paper", yref="paper", showarrow=False,
                                x=sum(_METRIC_X[i - 1]) / 2, y=_TOP[1], yanchor="bottom",
                                font=dict(size=13)))
    n = len(METRICS)
    layout[f"xaxis{n + 1}"] = dict(domain=list(_WORK_X), anchor=f"y{n + 1}", rangemode="tozero",
                                   title=dict(text="working stages: mean s per span"))
    layout[f"yaxis{n + 1}"] = dict(domain=list(_BOTTOM), anchor=f"x{n + 1}", type="category",
                                   categoryorder="array", categoryarray=work,
                                   autorange="reversed", automargin=True)
    # Same bar thickness as the work panel: the waits use only the top of their cell.
    frac = min(1.0, max(len(waits), 1) / max(len(work), 1))
    lo, hi = _BOTTOM
    layout[f"xaxis{n + 2}"] = dict(domain=list(_WAIT_X), anchor=f"y{n + 2}", rangemode="tozero",
                                   title=dict(text="waits: mean s per span"))
    layout[f"yaxis{n + 2}"] = dict(domain=[hi - (hi - lo) * frac, hi], anchor=f"x{n + 2}",
                                   type="category", categoryorder="array", categoryarray=waits,
                                   autorange="reversed", automargin=True)
    layout["annotations"] = annotations
    return layout


def compare(a, b, labels=("pinned", "current"), *, summaries=None) -> go.Figure:
    """Return a side-by-side comparison figure of two Traces (metrics + breakdown)."""
    labels = _check(a, b, labels)
    summaries = summaries if summaries is not None else (a.summary(), b.summary())
    return go.Figure(data=compare_traces(a, b, labels, summaries=summaries),
                     layout=compare_layout(a, b, labels, summaries=summaries))
