"""Stack several finished figures into one tall figure (for one shareable PNG).

Each figure becomes a horizontal band: its axes are renumbered and squeezed
into the band, its title becomes an annotation above it, and its legend
becomes one of the figure's several legends (plotly ``legend2``, ...) beside
the band, so no figure has to be rebuilt to be shown with the others.
"""

from __future__ import annotations

import re

import plotly.graph_objects as go

from .style import base_layout

_AXIS = re.compile(r"^([xy])axis(\d*)$")
GAP_PX = 90
TOP_PX = 40


def _axis_id(letter: str, n: int) -> str:
    return letter if n == 1 else f"{letter}{n}"


def stack(figures, *, width: int = 1200, title: str | None = None) -> go.Figure:
    """Return one figure with ``figures`` stacked top to bottom, each in its own band."""
    figures = list(figures)
    if not figures:
        raise ValueError("figures must hold at least one figure")
    for f in figures:
        if not isinstance(f, go.Figure):
            raise TypeError(f"figures must be plotly Figures, got {type(f).__name__}")
    heights = [int(f.layout.height or 400) for f in figures]
    top = TOP_PX + (24 * (title.count("<br>") + 1) + 20 if title else 0)
    bottom = 40
    # Paper coordinates span the plot area only (inside the margins).
    plot_h = sum(heights) + GAP_PX * (len(figures) - 1)
    total = plot_h + top + bottom
    layout: dict = base_layout(height=total, width=width,
                               margin=dict(l=110, r=200, t=top, b=bottom))
    if title:
        layout["title"] = dict(text=title, x=0.0, xanchor="left", y=1.0, yanchor="top",
                               yref="container", pad=dict(t=16, l=12), font=dict(size=13))
    data = []
    annotations = []
    counters = {"x": 0, "y": 0}
    y_cursor = plot_h  # in pixels from the bottom of the plot area
    for i, f in enumerate(figures):
        h = heights[i]
        band_top = y_cursor / plot_h
        # Leave room in the band for the sub-figure's own title and x title.
        band_bottom = (y_cursor - h + 45) / plot_h
        band_top_plot = (y_cursor - 55) / plot_h
        y_cursor -= h + GAP_PX
        fl = f.layout.to_plotly_json()
        remap: dict[str, str] = {}
        for key in sorted(fl):
            m = _AXIS.match(key)
            if m:
                letter, num = m.group(1), int(m.group(2) or 1)
                counters[letter] += 1
                remap[_axis_id(letter, num)] = _axis_id(letter, counters[letter])
        for letter in "xy":  # figures with default axes only still need one pair
            if _axis_id(letter, 1) not in remap:
                counters[letter] += 1
                remap[_axis_id(letter, 1)] = _axis_id(letter, counters[letter])
        for old, new in remap.items():
            src = dict(fl.get(f"{old[0]}axis{old[1:]}", {}))
            if old[0] == "y":
                lo, hi = src.get("domain", [0.0, 1.0])
                src["domain"] = [band_bottom + lo * (band_top_plot - band_bottom),
                                 band_bottom + hi * (band_top_plot - band_bottom)]
            for ref in ("anchor", "overlaying", "matches", "scaleanchor"):
                if src.get(ref) in remap:
                    src[ref] = remap[src[ref]]
            if "anchor" not in src:
                src["anchor"] = remap[_axis_id("y" if old[0] == "x" else "x", 1)]
            layout[f"{new[0]}axis{new[1:]}"] = src
        legend_id = "legend" if i == 0 else f"legend{i + 1}"
        show_legend = fl.get("showlegend", True) is not False
        layout[legend_id] = dict(x=1.01, xanchor="left", y=band_top_plot, yanchor="top",
                                 orientation="v", bgcolor="rgba(255,255,255,0)",
                                 font=dict(size=10), tracegroupgap=1,
                                 title=(fl.get("legend") or {}).get("title", {}))
        for tr in f.data:
            tj = tr.to_plotly_json()
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
        for k in ("barmode", "bargap"):
            if k in fl and k not in layout:
                layout[k] = fl[k]
    layout["annotations"] = annotations
    return go.Figure(data=data, layout=layout)
