"""Stack several figures into one tall figure, each in its own horizontal band.

Each figure's axes are renumbered and squeezed into its band, its title
becomes an annotation above it, and its legend becomes one of the figure's
several legends (plotly ``legend2``, ...) beside the band; its layout shapes
(the rect timeline's rectangles) move onto its axes and legend. Used for the
one shareable PNG of a report, and by the explorer, which draws the stage
breakdown, memory and utilization as one figure (one redraw, not three).

:func:`stack_specs` works on (trace specs, layout) pairs of plain dicts, as
the ``*_traces`` / ``*_layout`` functions of this package return them;
:func:`stack` on finished figures.
"""

from __future__ import annotations

import re

import plotly.graph_objects as go

from .style import base_layout

_AXIS = re.compile(r"^([xy])axis(\d*)$")
GAP_PX = 90        # between bands: room for the x-axis title and the next title
TITLE_PX = 55      # inside a band, above its plot area
XTITLE_PX = 45     # inside a band, below its plot area
TOP_PX = 40


def _axis_id(letter: str, n: int) -> str:
    return letter if n == 1 else f"{letter}{n}"


def _layout_key(axis_id: str) -> str:
    return f"{axis_id[0]}axis{axis_id[1:]}"


def stack_specs(parts, *, width: int | None = None, title: str | None = None,
                margin_right: int = 200) -> tuple[list[dict], dict]:
    """Return (trace specs, layout) of ``parts`` — (specs, layout) pairs — stacked top down."""
    parts = list(parts)
    if not parts:
        raise ValueError("parts must hold at least one (specs, layout) pair")
    heights = [int(lay.get("height") or 400) for _specs, lay in parts]
    top = TOP_PX + (24 * (title.count("<br>") + 1) + 20 if title else 0)
    bottom = 40
    # Paper coordinates span the plot area only (inside the margins).
    plot_h = sum(heights) + GAP_PX * (len(parts) - 1)
    total = plot_h + top + bottom
    layout: dict = base_layout(height=total, margin=dict(l=110, r=margin_right, t=top, b=bottom))
    if width is not None:
        layout["width"] = width
    if title:
        layout["title"] = dict(text=title, x=0.0, xanchor="left", y=1.0, yanchor="top",
                               yref="container", pad=dict(t=16, l=12), font=dict(size=13))
    data: list[dict] = []
    annotations: list[dict] = []
    shapes: list[dict] = []
    counters = {"x": 0, "y": 0}
    y_cursor = plot_h  # in pixels from the bottom of the plot area
    for i, (specs, fl) in enumerate(parts):
        h = heights[i]
        band_top = y_cursor / plot_h
        band_bottom = (y_cursor - h + XTITLE_PX) / plot_h
        band_top_plot = (y_cursor - TITLE_PX) / plot_h
        y_cursor -= h + GAP_PX
        remap: dict[str, str] = {}
        for key in sorted(fl):
            m = _AXIS.match(key)
            if m:
                letter, num = m.group(1), int(m.group(2) or 1)  # "xaxis1" is "xaxis"
                counters[letter] += 1
                remap[_axis_id(letter, num)] = _axis_id(letter, counters[letter])
        for letter in "xy":  # a figure with default axes only still needs one pair
            if _axis_id(letter, 1) not in remap:
                counters[letter] += 1
                remap[_axis_id(letter, 1)] = _axis_id(letter, counters[letter])
        for old, new in remap.items():
            src = dict(fl.get(_layout_key(old)) or fl.get(_layout_key(old) + "1" * (len(old) == 1))
                       or {})
            if old[0] == "y":
                lo, hi = src.get("domain", [0.0, 1.0])
                src["domain"] = [band_bottom + lo * (band_top_plot - band_bottom),
                                 band_bottom + hi * (band_top_plot - band_bottom)]
            for ref in ("anchor", "overlaying", "matches", "scaleanchor"):
                if src.get(ref) in remap:
                    src[ref] = remap[src[ref]]
            if "anchor" not in src:
                src["anchor"] = remap[_axis_id("y" if old[0] == "x" else "x", 1)]
            layout[_layout_key(new)] = src
        legend_id = "legend" if i == 0 else f"legend{i + 1}"
        show_legend = fl.get("showlegend", True) is not False
        layout[legend_id] = dict(x=1.01, xanchor="left", y=band_top_plot, yanchor="top",
                                 orientation="v", bgcolor="rgba(255,255,255,0)",
                                 font=dict(size=10), tracegroupgap=1,
                                 title=(fl.get("legend") or {}).get("title", {}))
        for spec in specs:
            tj = dict(spec)
            tj["xaxis"] = remap.get(tj.get("xaxis", "x"), remap["x"])
            tj["yaxis"] = remap.get(tj.get("yaxis", "y"), remap["y"])
            tj["legend"] = legend_id
            if not show_legend:
                tj["showlegend"] = False
            data.append(tj)
        t = (fl.get("title") or {}).get("text")
        if t:
            annotations.append(dict(text=f"<b>{t}</b>", xref="paper", yref="paper", x=0.0,
                                    y=band_top, xanchor="left", yanchor="top",
                                    showarrow=False, font=dict(size=14), align="left"))
        for a in fl.get("annotations", []) or []:
            a = dict(a)
            if a.get("yref", "y") == "paper":
                a["y"] = band_bottom + a.get("y", 0) * (band_top_plot - band_bottom)
            for ref, letter in (("xref", "x"), ("yref", "y")):
                r = a.get(ref, letter)
                if r in remap:
                    a[ref] = remap[r]
            annotations.append(a)
        for sh in fl.get("shapes", []) or []:  # the timeline's rectangles, legend entries too
            sh = dict(sh)
            for ref, letter in (("xref", "x"), ("yref", "y")):
                r = sh.get(ref, letter)
                if r in remap:
                    sh[ref] = remap[r]
            if sh.get("yref") == "paper":
                for key in ("y0", "y1"):
                    sh[key] = band_bottom + sh.get(key, 0) * (band_top_plot - band_bottom)
            sh["legend"] = legend_id
            if not show_legend:
                sh["showlegend"] = False
            shapes.append(sh)
        for k in ("barmode", "bargap"):
            if k in fl and k not in layout:
                layout[k] = fl[k]
    layout["annotations"] = annotations
    if shapes:
        layout["shapes"] = shapes
    layout["hovermode"] = "closest"
    return data, layout


def stack(figures, *, width: int = 1200, title: str | None = None) -> go.Figure:
    """Return one figure with ``figures`` stacked top to bottom, each in its own band."""
    figures = list(figures)
    if not figures:
        raise ValueError("figures must hold at least one figure")
    parts = []
    for f in figures:
        if not isinstance(f, go.Figure):
            raise TypeError(f"figures must be plotly Figures, got {type(f).__name__}")
        parts.append(([t.to_plotly_json() for t in f.data], f.layout.to_plotly_json()))
    data, layout = stack_specs(parts, width=width, title=title)
    return go.Figure(data=data, layout=layout)
