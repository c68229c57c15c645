"""The explorer with a mixed workload: arrival rates per proof kind and latency per kind.

:class:`MixedExplorer` is the :class:`~cuzklab.widgets.Explorer` with a row of
workload controls -- how long the open streams arrive, WindowPoSt deadlines
an hour, WinningPoSt and SnapDeals arrivals an hour, the SRS/PCE idle time
before eviction, Curio's in-flight limit (``[Cuzk] MaxPending``, 0: none) and
``sort_by_type`` -- and a figure of each kind's latency
from arrival against its deadline (:func:`cuzklab.plots.latency`). PoRep
stays the closed-loop stream of the ``proofs`` / ``proofs in flight``
controls. With every rate and the limit at 0 it runs today's single PoRep stream. The
workload runs on the ``sim`` source; another source ignores it and says so.
"""

from __future__ import annotations

import html
import json

import ipywidgets as w
import plotly.graph_objects as go

from ..plots.latency import latency
from .explorer import FIGURES, Explorer

_STYLE = {"description_width": "150px"}
_LAYOUT = dict(width="330px")

# control -> (description, default, min, max, step, tooltip)
WORKLOAD_CONTROLS = {
    "duration_s": ("open arrivals (s)", 1800.0, 60.0, 14400.0, 60.0,
                   "how long the WindowPoSt, WinningPoSt and SnapDeals streams keep arriving"),
    "window_post_per_hour": ("WindowPoSt / hour", 2.0, 0.0, 12.0, 1.0,
                             "deadlines an hour (one every 30 min: 2), one partition each"),
    "winning_post_per_hour": ("WinningPoSt / hour", 4.0, 0.0, 120.0, 1.0,
                              "Poisson arrivals an hour; each due within 30 s"),
    "snap_deals_per_hour": ("SnapDeals / hour", 0.0, 0.0, 60.0, 1.0,
                            "Poisson arrivals an hour (NORMAL priority, 16 partitions)"),
    "eviction_min_idle_s": ("evict SRS idle (s)", 300.0, 0.0, 7200.0, 30.0,
                            "memory.eviction_min_idle: idle time before an SRS/PCE may be evicted"),
    "max_pending": ("Curio MaxPending", 0.0, 0.0, 1000.0, 1.0,
                    "Curio's [Cuzk] MaxPending: proofs of every kind the node has at the daemon "
                    "at once (Curio's default 10; 0: no limit, the proofs in flight above alone)"),
}


def workload_from_values(values: dict, config):
    """Return the Workload the control values describe, or None for today's PoRep stream."""
    from ..sim.workload import Stream, Workload
    streams = [Stream(kind="porep-c2", arrival="closed", count=config.proofs,
                      in_flight=config.concurrency)]
    wpost = float(values.get("window_post_per_hour", 0.0))
    if wpost > 0:
        streams.append(Stream(kind="window-post", arrival="periodic", period_s=3600.0 / wpost,
                              offset_s=min(900.0, 1800.0 / wpost)))
    for kind, key in (("winning-post", "winning_post_per_hour"),
                      ("snap-deals", "snap_deals_per_hour")):
        rate = float(values.get(key, 0.0))
        if rate > 0:
            streams.append(Stream(kind=kind, arrival="poisson", rate_per_hour=rate))
    pending = int(round(float(values.get("max_pending", 0.0))))
    if len(streams) == 1 and not pending:
        return None
    return Workload(streams=tuple(streams), duration_s=float(values["duration_s"]),
                    max_pending=pending or None)


class MixedExplorer(Explorer):
    """The explorer plus workload controls (rates per kind) and the latency figure."""

    def __init__(self, *args, workload: dict | None = None, **kwargs):
        values = {k: spec[1] for k, spec in WORKLOAD_CONTROLS.items()}
        unknown = sorted(set(workload or {}) - set(values))
        if unknown:
            raise ValueError(f"unknown workload control {unknown[0]!r}; controls: "
                             f"{', '.join(WORKLOAD_CONTROLS)}")
        values.update(workload or {})
        self.workload_controls = {
            key: w.BoundedFloatText(value=float(values[key]), min=lo, max=hi, step=step,
                                    description=desc, tooltip=tip, style=_STYLE,
                                    layout=w.Layout(**_LAYOUT))
            for key, (desc, _d, lo, hi, step, tip) in WORKLOAD_CONTROLS.items()}
        self.workload_controls["sort_by_type"] = w.Checkbox(
            value=True, description="sort by type (fewer SRS swaps)", indent=False,
            layout=w.Layout(**_LAYOUT))
        self.workload_note = w.HTML()
        super().__init__(*args, **kwargs)
        for widget in self.workload_controls.values():
            widget.observe(self._on_change, names="value")

    @property
    def latency_figure(self) -> go.Figure:
        """Return the latency figure shown now, as a plotly Figure."""
        return self.pane.figure("latency")

    def _figure_names(self) -> tuple[str, ...]:
        return (*FIGURES, "latency")

    @property
    def workload(self):
        """Return the Workload the controls describe now (None: one PoRep stream)."""
        values = {k: c.value for k, c in self.workload_controls.items()}
        return workload_from_values(values, self.config)

    def set_workload(self, **values) -> None:
        """Set several workload controls at once and update once."""
        self._set_controls(self.workload_controls, values, "workload control")

    def _layout(self) -> w.VBox:
        root = super()._layout()
        box = w.GridBox(list(self.workload_controls.values()),
                        layout=w.Layout(grid_template_columns="repeat(3, 340px)",
                                        grid_gap="2px 8px"))
        children = list(root.children)
        children[2:2] = [w.HTML("<b>workload</b> (PoRep: the closed loop of proofs / proofs "
                                "in flight above)"), box, self.workload_note]
        root.children = tuple(children)
        return root

    def _config_key(self, cfg):
        """Return what names a run: the plain explorer's key plus the workload controls."""
        values = {k: c.value for k, c in self.workload_controls.items()}
        return json.dumps([super()._config_key(cfg), values], sort_keys=True, default=str)

    def _sim_config(self, cfg):
        """Return ``cfg`` with the workload controls' daemon keys (eviction, sort by type)."""
        c = self.workload_controls
        return cfg.replace(eviction_min_idle_s=float(c["eviction_min_idle_s"].value),
                           sort_by_type=bool(c["sort_by_type"].value))

    def _risk_job(self, cfg):
        """Return ``seed -> (function, args)``: the background run with the workload."""
        from .risk import seed_oom
        config, profile = self._sim_config(cfg).to_dict(), self.profile
        wl = self.workload if self.source_name == "sim" else None
        return lambda seed: (seed_oom, (config, profile, seed, wl))

    def _run_source(self, source, cfg):
        from ..sim import simulate
        cfg = self._sim_config(cfg)
        wl = self.workload
        if wl is None:
            self.workload_note.value = ""
            return source(cfg, self.profile)
        if self.source_name != "sim":
            self.workload_note.value = (f"<span style='color:#b00020'>the workload runs on the "
                                        f"sim source only; {html.escape(self.source_name)} "
                                        f"runs PoRep alone</span>")
            return source(cfg, self.profile)
        self.workload_note.value = ""
        return simulate(cfg, self.profile, workload=wl)

    def _draw_details(self) -> None:
        super()._draw_details()
        fig = latency(self.trace)
        if self.width:
            fig.update_layout(width=self.width, height=420)
        self.pane.show("latency", [t.to_plotly_json() for t in fig.data],
                       fig.layout.to_plotly_json())
