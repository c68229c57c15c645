"""The partition timeline: one row per lane, one bar per span, colored by stage.

Bars are ``go.Bar(orientation="h", base=start, x=duration)`` on a numeric
seconds axis (``px.timeline`` needs datetimes and rounds to milliseconds).
Past :data:`BAR_SPAN_LIMIT` spans each lane is drawn as ``go.Scattergl`` line
segments instead, which the browser draws with WebGL and stays responsive up
to 10^5 spans and beyond. ``mode="lines"`` draws the same segments as SVG
``go.Scatter`` lines: one path per stage instead of one shape per span, which
the browser redraws in a few milliseconds and needs no WebGL.

``mode="rect"`` draws each span as a filled rectangle: all the rectangles of
a stage are one SVG path, a layout shape (``type="path"`` in data
coordinates, which carries the stage's legend entry), so the browser styles
one element per stage instead of one per span, and builds each path from a
short string instead of running the data through plotly's line and fill
machinery (with a filled ``scatter`` per stage, the 20-proof timeline took
~55-70 ms to redraw in Chromium instead of ~35-45 ms). Lanes
sit at integer positions on a linear axis labelled with their names. The
hover comes from an invisible trace per stage (no markers, so nothing to
draw) with points along each span, one every 1/:data:`HOVER_POINTS_ACROSS`
of the time axis and at least one a span: the hover finds any span along its
length. A stage's shape and hover trace share a legend group, so clicking
the stage in the legend hides both. The explorer uses it: a control change
redraws ~13 paths, not ~2,200.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..trace.schema import STAGES
from .style import (TIME_AXIS_TITLE, WAIT_OPACITY, WORK_OPACITY, base_layout,
                    legend_right, order_lanes, stage_color, stage_kind)

# SVG bars stay smooth to a few thousand shapes; past ~10^4 the browser
# stalls on hover and zoom (plotly's own guidance for SVG traces), so larger
# traces switch to WebGL segments.
BAR_SPAN_LIMIT = 10_000
MODES = ("auto", "bar", "gl", "lines", "rect")
# Half the height of a span's rectangle in ``rect`` mode, in lanes: a bar fills
# most of its lane, as in ``bar`` mode (bargap 0.15).
RECT_HALF = 0.42
# Hover points of ``rect`` mode along a span: one every 1/HOVER_POINTS_ACROSS
# of the time axis (~20 px on a 1000 px figure, plotly's hover distance), so
# the pointer finds a long span anywhere along it.
HOVER_POINTS_ACROSS = 40
# Segment width in pixels: most of a lane's LANE_PX, as a bar would fill it.
SEGMENT_PX = 14

# Pixels per lane and fixed chrome around the plot area.
LANE_PX = 20
CHROME_PX = 150
MIN_HEIGHT_PX = 320
LEGEND_ROW_PX = 21


def timeline_mode(n_spans: int, mode: str = "auto") -> str:
    """Return ``bar``, ``gl``, ``lines`` or ``rect``: the drawing mode used for ``n_spans``."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if mode != "auto":
        return mode
    return "gl" if n_spans > BAR_SPAN_LIMIT else "bar"


def _hovertemplate(stage: str, has_slowdown: bool, lane: str = "%{y}") -> str:
    lines = [f"<b>{stage}</b> on {lane}",
             "proof %{customdata[0]} · partition %{customdata[1]}",
             "%{customdata[2]:.3f} s → %{customdata[3]:.3f} s (%{customdata[4]:.3f} s)"]
    if has_slowdown:
        lines.append("slowdown ×%{customdata[5]:.2f}")
    return "<br>".join(lines) + "<extra></extra>"


def _points_customdata(custom: np.ndarray, per_span: int) -> np.ndarray:
    """Return hover rows for ``per_span`` points a span (the last one its gap).

    ``custom`` holds one row per span; each row serves all its span's points
    but the gap, which never shows a hover (its row is zeros: widget messages
    must be strict JSON, so no NaN). Times are rounded to the millisecond the
    hover shows (``.3f``), which keeps the text the browser parses short.
    """
    n, cols = custom.shape
    rows = np.zeros((per_span * n, cols))
    for k in range(per_span - 1):
        rows[k::per_span] = custom
    return np.round(rows, 3)


def _rect_path(lane_pos: np.ndarray, start: np.ndarray, end: np.ndarray) -> str:
    """Return an SVG path of one rectangle a span (data coordinates, one winding)."""
    top, bottom = lane_pos - RECT_HALF, lane_pos + RECT_HALF
    return "".join(f"M{s:.9g},{t:.6g}H{e:.9g}V{b:.6g}H{s:.9g}Z"
                   for s, e, t, b in zip(start.tolist(), end.tolist(), top.tolist(),
                                         bottom.tolist()))


def _columns(trace) -> dict[str, np.ndarray]:
    """Return the spans' columns as arrays, and ``pos``: each span's lane position (rect mode)."""
    spans = trace.spans
    cols = {"stage": spans["stage"].to_numpy(), "lane": spans["lane"].to_numpy(dtype=object),
            "start": spans["start"].to_numpy(dtype=float),
            "end": spans["end"].to_numpy(dtype=float),
            "slowdown": spans["slowdown"].to_numpy(dtype=float),
            "proof": spans["proof"].to_numpy(), "partition": spans["partition"].to_numpy()}
    codes, names = pd.factorize(spans["lane"])
    index = {lane: i for i, lane in enumerate(lane_positions(trace))}
    cols["pos"] = np.array([index[v] for v in names], dtype=float)[codes] if len(codes) else \
        np.empty(0)
    return cols


def rect_shapes(trace) -> list[dict]:
    """Return the ``rect`` mode's layout shapes: one filled path a stage that ran, STAGES order.

    Each shape carries its stage's legend entry (``name``, ``legendgroup``) and
    covers its spans with rectangles of half-height :data:`RECT_HALF` about
    the lane's position (lane i at y = i, see :func:`lane_positions`). The
    shapes sit above the plot (nothing else is drawn there: the hover traces
    have no markers): plotly.js 4.1 leaves a shape drawn in the layer between
    the grid and the traces when its legend entry hides it. Overlapping spans
    of a stage fill their union once (``nonzero``), as one path must.
    """
    if not len(trace.spans):
        return []
    cols = _columns(trace)
    out = []
    for stage in STAGES:
        m = cols["stage"] == stage
        if not m.any():
            continue
        color = stage_color(stage)
        out.append(dict(
            type="path", xref="x", yref="y", layer="above", fillrule="nonzero",
            path=_rect_path(cols["pos"][m], cols["start"][m], cols["end"][m]),
            fillcolor=color, line=dict(width=0),
            opacity=WAIT_OPACITY if stage_kind(stage) == "wait" else WORK_OPACITY,
            name=stage, legendgroup=stage, showlegend=True))
    return out


def _hover_points(stage: str, lane_pos: np.ndarray, lanes: np.ndarray, start: np.ndarray,
                  end: np.ndarray, custom: np.ndarray, hovertemplate: str,
                  axis_end: float) -> dict:
    """Return one stage's invisible hover trace: points spread along each span."""
    n = len(start)
    # Points spread along each span, evenly, at least one a span.
    step = max(axis_end, 1e-9) / HOVER_POINTS_ACROSS
    count = np.maximum(1, np.ceil((end - start) / step)).astype(np.int64)
    span = np.repeat(np.arange(n), count)
    first = np.repeat(np.cumsum(count) - count, count)
    frac = (np.arange(len(span)) - first + 0.5) / count[span]
    return dict(
        type="scatter", x=start[span] + frac * (end - start)[span],
        y=lane_pos[span].astype(np.float32), text=lanes[span], customdata=np.round(custom[span], 3),
        mode="none", hoveron="points", hovertemplate=hovertemplate,
        hoverlabel=dict(bgcolor=stage_color(stage)), name=stage, legendgroup=stage,
        showlegend=False)


def lane_positions(trace) -> list[str]:
    """Return the lanes of ``trace`` top down: lane i sits at y = i in ``rect`` mode."""
    return order_lanes(trace.spans["lane"].unique()) if len(trace.spans) else []


def timeline_traces(trace, *, mode: str = "auto") -> list:
    """Return the timeline trace specs (plain dicts): one per stage in STAGES order.

    Every stage gets a trace, empty when the run has none of it, so a figure
    can be updated in place when a new run has a different set of stages. In
    ``rect`` mode these are the stages' invisible hover layers; the
    rectangles are the layout's shapes (:func:`rect_shapes`, which
    :func:`timeline_layout` adds in that mode).
    """
    drawn = timeline_mode(len(trace.spans), mode)
    cols = _columns(trace)
    out = []
    for stage in STAGES:
        mask = cols["stage"] == stage
        n = int(mask.sum())
        start, end = cols["start"][mask], cols["end"][mask]
        dur = end - start
        slow = cols["slowdown"][mask]
        has_slow = bool(n) and not np.isnan(slow).all()
        # No NaN leaves for the browser (widget messages must be strict JSON);
        # a span without a recorded slowdown ran uncontended as far as we know.
        slow = np.nan_to_num(slow, nan=1.0)
        custom = np.column_stack([cols["proof"][mask], cols["partition"][mask],
                                  start, end, dur, slow]) if n else np.empty((0, 6))
        lanes = cols["lane"][mask]
        opacity = WAIT_OPACITY if stage_kind(stage) == "wait" else WORK_OPACITY
        common = dict(name=stage, legendgroup=stage, showlegend=bool(n),
                      opacity=opacity, hovertemplate=_hovertemplate(stage, has_slow))
        if drawn == "rect":
            out.append(_hover_points(stage, cols["pos"][mask], lanes, start, end,
                                     custom if has_slow else custom[:, :5],
                                     _hovertemplate(stage, has_slow, lane="%{text}"),
                                     trace.duration))
        elif drawn == "bar":
            out.append(dict(
                type="bar", orientation="h", y=lanes, x=dur, base=start, customdata=custom,
                marker=dict(color=stage_color(stage), line=dict(width=0)),
                **common))
        else:
            xs = np.empty(3 * n)
            xs[0::3], xs[1::3], xs[2::3] = start, end, np.nan
            ys = np.empty(3 * n, dtype=object)
            ys[0::3], ys[1::3], ys[2::3] = lanes, lanes, None
            cd = _points_customdata(custom if has_slow else custom[:, :5], 3)
            out.append(dict(
                type="scattergl" if drawn == "gl" else "scatter", x=xs, y=ys, customdata=cd,
                mode="lines", connectgaps=False,
                line=dict(color=stage_color(stage), width=9 if drawn == "gl" else SEGMENT_PX),
                **common))
    return out


def timeline_title(trace, summary: dict | None = None) -> str:
    """Return the title line of a timeline: config highlights and s/proof."""
    cfg = trace.meta.get("config") or {}
    parts = []
    wl = trace.meta.get("workload")
    if cfg and wl:                        # a mixed workload: its proofs by kind, not -c/-j
        kinds: dict[str, int] = {}
        for r in trace.meta.get("proofs") or []:
            kinds[r.get("kind")] = kinds.get(r.get("kind"), 0) + 1
        parts.append(" + ".join(f"{n} {k}" for k, n in kinds.items()) +
                     f", pw={cfg.get('partition_workers', '?')}, "
                     f"gw={cfg.get('gpu_workers_per_device', '?')}, "
                     f"lock={cfg.get('lock', '?')}")
    elif cfg:
        parts.append(f"{cfg.get('proofs', '?')} proofs, j={cfg.get('concurrency', '?')}, "
                     f"pw={cfg.get('partition_workers', '?')}, "
                     f"gw={cfg.get('gpu_workers_per_device', '?')}, "
                     f"lock={cfg.get('lock', '?')}")
    if summary is not None:
        spp = summary.get("seconds_per_proof")
        if spp is not None:
            parts.append(f"{spp:.1f} s/proof")
        if summary.get("oom"):
            parts.append("OOM")
    head = "Partition timeline"
    return head + (" — " + " · ".join(parts) if parts else "")


def timeline_layout(trace, summary: dict | None = None, *, title: str | None = None,
                    mode: str = "auto") -> dict:
    """Return the layout of the timeline for ``trace`` (lanes, height, axes) drawn in ``mode``."""
    lanes = lane_positions(trace)
    n_stages = trace.spans["stage"].nunique() if len(trace.spans) else 0
    # Tall enough for every lane and for the whole stage legend beside them.
    height = max(MIN_HEIGHT_PX, LANE_PX * len(lanes) + CHROME_PX, LEGEND_ROW_PX * n_stages + 160)
    end = max(trace.duration, 1e-9)
    extra = {}
    if timeline_mode(len(trace.spans), mode) == "rect":
        # Lane i at y = i, top down, labelled with its name.
        yaxis = dict(title=dict(text="lane"), type="linear", tickmode="array",
                     tickvals=list(range(len(lanes))), ticktext=lanes,
                     range=[len(lanes) - 0.5, -0.5], automargin=True, showgrid=False,
                     zeroline=False)
        extra["shapes"] = rect_shapes(trace)
    else:
        yaxis = dict(title=dict(text="lane"), type="category", categoryorder="array",
                     categoryarray=lanes, autorange="reversed", automargin=True,
                     showgrid=False)
    return base_layout(
        title=dict(text=title if title is not None else timeline_title(trace, summary),
                   x=0.0, xanchor="left"),
        barmode="overlay",
        bargap=0.15,
        height=height,
        xaxis=dict(title=dict(text=TIME_AXIS_TITLE), range=[0, end * 1.01],
                   showgrid=True, zeroline=False),
        yaxis=yaxis,
        legend=dict(legend_right(), title=dict(text="stage")),
        hovermode="closest",
        **extra,
    )


def timeline(trace, *, mode: str = "auto", title: str | None = None,
             summary: dict | None = None) -> go.Figure:
    """Return the partition timeline figure of ``trace`` (lanes × time, by stage)."""
    if not hasattr(trace, "spans"):
        raise TypeError(f"trace must be a cuzklab Trace, got {type(trace).__name__}")
    fig = go.Figure(data=timeline_traces(trace, mode=mode),
                    layout=timeline_layout(trace, summary, title=title, mode=mode))
    return fig
