"""Plotly figures over a Trace or a sweep table, and shareable reports.

Figures: :func:`timeline` (lanes × time, colored by stage), :func:`breakdown`
(mean time per stage), :func:`memory` (RSS against the RAM line),
:func:`utilization` (per resource, overall and over time), :func:`latency`
(latency from arrival per proof kind of a mixed workload), :func:`compare`
(two runs side by side), :func:`sweep_lines` and :func:`sweep_heatmap` (over
a sweep table); :func:`headline` (the run in one paragraph) and
:func:`write_report` (HTML, optionally PNG). Every figure colors stages with
:data:`STAGE_COLORS`.

Importing this package loads plotly's figure classes (lazy on plotly's side,
a few tens of milliseconds) and no figure is built until asked for. The
function names shadow their modules (``cuzklab.plots.memory`` is the
function; the module stays importable as ``cuzklab.plots.memory`` through
``importlib``/``sys.modules``).
"""

from __future__ import annotations

from ..errors import ExportError
from .breakdown import breakdown, stage_table
from .compare import compare, config_diff
from .compose import stack
from .export import find_chrome, write_html, write_png
from .headline import headline
from .latency import latency
from .memory import memory
from .report import dashboard, report_figures, report_html, write_report
from .style import STAGE_COLORS, order_lanes, stage_color
from .sweep import sweep_heatmap, sweep_lines
from .timeline import BAR_SPAN_LIMIT, timeline, timeline_mode
from .utilization import utilization, utilization_over_time

__all__ = [
    "timeline", "timeline_mode", "BAR_SPAN_LIMIT", "breakdown", "stage_table", "memory",
    "utilization", "utilization_over_time", "compare", "config_diff", "sweep_lines",
    "sweep_heatmap", "headline", "stack", "write_html", "write_png", "find_chrome",
    "latency", "write_report", "report_html", "dashboard", "report_figures", "STAGE_COLORS",
    "stage_color", "order_lanes", "ExportError",
]
