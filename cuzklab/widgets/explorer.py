"""The pipeline explorer: controls, a headline and figures that follow them.

Move a control and the explorer asks its source (the simulator by default)
for a new trace, then redraws the partition timeline, the stage breakdown,
memory against RAM and utilization per resource in place. Under the headline,
the OOM risk: the share of ``oom_seeds`` seeds whose run of the configuration
goes out of host memory, the seeds after the one shown run in the background
(:mod:`cuzklab.widgets.risk`). Pin a run to keep it, then compare it side by
side with whatever the controls show next.

In a notebook::

    from cuzklab.widgets import Explorer
    Explorer()          # displays itself

In tests, ``Explorer(debounce_s=0)`` updates synchronously: setting
``explorer.controls["lock"].value`` runs the whole update before returning;
``explorer.wait_risk()`` waits for the OOM risk's seeds.
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections import OrderedDict
from pathlib import Path

import ipywidgets as w
import plotly.graph_objects as go

from ..errors import ConfigError, CuzklabError
from ..model import PipelineConfig
from ..paths import output_path, runs_dir
from ..plots.breakdown import breakdown_layout, breakdown_traces
from ..plots.compare import compare_layout, compare_traces, config_diff
from ..plots.compose import stack_specs
from ..plots.headline import headline
from ..plots.memory import memory_layout, memory_traces, ram_gib
from ..plots.report import write_report
from ..plots.timeline import timeline_layout, timeline_traces
from ..plots.utilization import utilization_layout, utilization_traces
from ..trace.summary import throughput
from .controls import CONTROL_KEYS, build_controls, config_from_controls
from .debounce import Debouncer
from .pane import FigurePane
from .risk import DEFAULT_OOM_SEEDS, MAX_OOM_SEEDS, SeedRuns, ran_out_of_memory, risk_text, seed_oom
from .sources import get_source, source_names

# A control change should redraw a 20-proof run in well under a second. The
# first change after a quiet period runs at once; the debounce only coalesces
# the rest of a burst of key presses on a slider.
DEFAULT_DEBOUNCE_S = 0.25
# The timeline as filled rectangles, one SVG path per stage: the browser
# restyles ~13 elements per change, where one SVG bar (or one line piece) per
# span, 2,200 for 20 proofs, took most of a control change's time.
TIMELINE_MODE = "rect"
# Figure width in pixels: a JupyterLab notebook column on a 1440-1920 px
# screen. Figures in a widget do not size themselves to the output area, so
# the explorer sets it (``width=None`` keeps plotly's 700 px).
DEFAULT_WIDTH_PX = 1000
# Two figures in one FigurePane (one copy of plotly.js): the timeline, and the
# details (stage breakdown, memory, utilization) stacked in one figure. The
# timeline is sent first, so the browser draws it while the details are built.
FIGURES = ("timeline", "details")
# Runs of a deterministic source (the simulator: same configuration, profile
# and seed, same trace) are kept for this many configurations, with their
# summary and drawn figures, so going back to one (the lock flipped back, a
# slider returned) redraws without simulating again. Measured sources (live)
# are never kept. ``cache_size=0`` turns it off. A 20-proof run with its figure
# specs holds ~1 MB; larger runs more, in proportion to their spans.
RUN_CACHE_SIZE = 16
# Where Export HTML writes: a file name under papermill_runs/<REPORT_FOLDER>/.
REPORT_FOLDER = "explorer"
DEFAULT_REPORT = "explorer-report.html"
# Errors a source or a config may raise that the explorer shows instead of raising.
_SHOWN_ERRORS = (CuzklabError, ValueError, TypeError, RuntimeError, MemoryError)


def _default_profiles() -> tuple[str, list[str]]:
    from ..model import DEFAULT_PROFILE, list_profiles
    return DEFAULT_PROFILE, list(list_profiles())


def _headline(trace, summary: dict, label: str | None = None) -> str:
    failure = trace.meta.get("failure") or {}
    return headline(summary, memory_gib=ram_gib(trace), label=label,
                    failure_message=failure.get("message"))


def _live_note(trace) -> str:
    """Return the size a live trace ran at (it may be smaller than the controls ask), or
    for a daemon's log the SRS load its figures begin with."""
    live = trace.meta.get("live")
    if not live:
        if trace.meta.get("source") == "cuzk-log":
            from .overlay import startup_left_out
            start = startup_left_out(trace)
            if start:
                return html.escape(f" · a cuzk daemon's log: its first {start:.1f} s were its "
                                   "SRS load, before any synthesis, and count in its s/proof "
                                   "(model_overlay leaves them out)")
        return ""
    cfg = trace.meta.get("config") or {}
    return html.escape(f" · measured live ({live.get('backend')}): {cfg.get('proofs')} proofs x "
                       f"{cfg.get('partitions')} partitions at 2^{live.get('log2_constraints')} "
                       f"rows")


class Explorer:
    """An interactive explorer of one pipeline configuration (an ipywidgets panel)."""

    def __init__(self, config: PipelineConfig | dict | None = None, profile: str | None = None,
                 *, source: str = "sim", debounce_s: float = DEFAULT_DEBOUNCE_S,
                 profiles: list[str] | None = None, report_path: str = DEFAULT_REPORT,
                 report_dir: str | Path | None = None, width: int | None = DEFAULT_WIDTH_PX,
                 cache_size: int = RUN_CACHE_SIZE, oom_seeds: int = DEFAULT_OOM_SEEDS):
        config = PipelineConfig.coerce(config)
        get_source(source)  # fails early, naming the registered sources
        if width is not None and (not isinstance(width, int) or isinstance(width, bool)
                                  or width < 300):
            raise ValueError(f"width must be None or an integer >= 300 (pixels), got {width!r}")
        self.width = width
        if not isinstance(cache_size, int) or isinstance(cache_size, bool) or cache_size < 0:
            raise ValueError(f"cache_size must be an integer >= 0 (runs kept), got {cache_size!r}")
        self.cache_size = cache_size
        if not isinstance(oom_seeds, int) or isinstance(oom_seeds, bool) or \
                not 1 <= oom_seeds <= MAX_OOM_SEEDS:
            raise ValueError(f"oom_seeds must be an integer from 1 to {MAX_OOM_SEEDS} (seeds "
                             f"behind the OOM risk), got {oom_seeds!r}")
        self._seeds = SeedRuns()
        self._risk_key: str | None = None
        self._loop = None
        self._runs: OrderedDict[str, dict] = OrderedDict()
        self._run: dict = {}
        # Exports go under papermill_runs/ (ignored by git), not beside the notebook.
        self.report_dir = Path(report_dir) if report_dir is not None else \
            runs_dir(REPORT_FOLDER)
        default_profile, known = _default_profiles()
        profile = profile or default_profile
        profiles = list(profiles) if profiles is not None else known
        self.base_config = config
        self.trace = None
        self.summary: dict | None = None
        self.pinned = None
        self.pinned_summary: dict | None = None
        self.error: str | None = None
        self.timings: dict[str, float] = {}
        self.updates = 0
        self._suspended = False

        self.controls = build_controls(config, profile, profiles, source, source_names())
        self.controls["oom_seeds"] = w.IntSlider(
            value=oom_seeds, min=1, max=MAX_OOM_SEEDS, step=1, description="OOM risk seeds",
            tooltip="the OOM risk is the share of this many seeds (from the configuration's "
                    "seed) whose run goes out of host memory; the seeds after the one shown "
                    "run in the background", continuous_update=False,
            style={"description_width": "135px"}, layout=w.Layout(width="330px"))
        self.controls["oom_seeds"].add_class("cuzklab-control-oom-seeds")
        self.headline = w.HTML(layout=w.Layout(margin="4px 0 4px 0"))
        self.headline.add_class("cuzklab-headline-box")
        self.risk = w.HTML(layout=w.Layout(margin="0 0 4px 0", display="none"))
        self.risk.add_class("cuzklab-oom-risk")
        self.status = w.HTML(layout=w.Layout(margin="0 0 0 4px"))
        self.status.add_class("cuzklab-status")
        self.pane = FigurePane(self._figure_names())

        self.pin_button = w.Button(description="Pin for comparison", icon="thumb-tack",
                                   tooltip="keep this run and compare the next ones with it")
        self.unpin_button = w.Button(description="Clear pin", disabled=True)
        self.report_path = w.Text(value=str(report_path), description="report",
                                  style={"description_width": "50px"},
                                  layout=w.Layout(width="300px"),
                                  tooltip=f"a relative path is written under {self.report_dir}")
        self.export_button = w.Button(description="Export HTML", icon="download",
                                      tooltip="write an offline HTML page with these figures")
        self.pin_button.on_click(lambda _b: self.pin())
        self.unpin_button.on_click(lambda _b: self.unpin())
        self.export_button.on_click(lambda _b: self._export_clicked())

        # Leading edge: a single change redraws at once; a burst is coalesced.
        self._debounced = Debouncer(self.refresh, debounce_s, leading=True)
        # The bound on proofs in flight moves first, so the update sees a valid pair.
        self.controls["proofs"].observe(self._on_proofs, names="value")
        for key, widget in self.controls.items():
            if key != "oom_seeds":   # more seeds: the same run, more of them behind the risk
                widget.observe(self._on_change, names="value")
        self.controls["oom_seeds"].observe(lambda _c: self._start_risk(), names="value")

        self.compare_box = w.VBox(layout=w.Layout(display="none"))
        self.widget = self._layout()
        self.refresh()

    # -- layout -------------------------------------------------------------------
    def _layout(self) -> w.VBox:
        c = self.controls
        grid = w.GridBox(
            [c[k] for k in (*CONTROL_KEYS, "profile", "source", "oom_seeds")],
            layout=w.Layout(grid_template_columns="repeat(3, 340px)", grid_gap="2px 8px"))
        buttons = w.HBox([self.pin_button, self.unpin_button, self.report_path,
                          self.export_button], layout=w.Layout(flex_flow="row wrap"))
        root = w.VBox([
            w.HTML("<b style='font-size:1.15em'>cuzk pipeline explorer</b>"),
            grid, buttons, self.status, self.headline, self.risk, self.pane, self.compare_box,
        ])
        root.add_class("cuzklab-explorer")
        return root

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)

    def _figure_names(self) -> tuple[str, ...]:
        """Return the names of the figures the explorer's pane holds, top down."""
        return FIGURES

    # -- state ----------------------------------------------------------------------
    @property
    def figures(self) -> dict[str, go.Figure]:
        """Return the figures shown now, by name, as plotly Figures (built on each call)."""
        return {name: self.pane.figure(name) for name in self.pane.names}

    @property
    def compare_figure(self) -> go.Figure | None:
        """Return the pinned-vs-current figure as a plotly Figure (None before a pin)."""
        pane = getattr(self, "_compare_pane", None)
        return pane.figure("compare") if pane is not None else None

    @property
    def config(self) -> PipelineConfig:
        """Return the configuration the controls describe now (may raise ConfigError)."""
        return config_from_controls(self.controls, self.base_config)

    @property
    def profile(self) -> str:
        """Return the profile selected in the controls."""
        return self.controls["profile"].value

    @property
    def source_name(self) -> str:
        """Return the name of the trace source selected in the controls."""
        return self.controls["source"].value

    def set(self, **values) -> None:
        """Set several controls at once (keys of the controls) and update once."""
        # proofs first: it bounds proofs in flight
        first = {"proofs": values["proofs"]} if "proofs" in values else {}
        self._set_controls(self.controls, {**first, **values}, "control")

    def _set_controls(self, controls: dict, values: dict, what: str) -> None:
        """Set ``values`` on ``controls`` (checked against their keys), then update once."""
        unknown = sorted(set(values) - set(controls))
        if unknown:
            raise ValueError(f"unknown {what} {unknown[0]!r}; controls: {', '.join(controls)}")
        self._suspended = True
        try:
            for key, value in values.items():
                controls[key].value = value
        finally:
            self._suspended = False
        self.refresh()

    # -- events -------------------------------------------------------------------------
    def _on_proofs(self, change) -> None:
        # Proofs in flight cannot exceed proofs: move the bound without a second update.
        conc = self.controls["concurrency"]
        was = self._suspended
        self._suspended = True
        try:
            conc.max = max(int(change["new"]), 1)
        finally:
            self._suspended = was

    def _on_change(self, _change) -> None:
        if self._suspended:
            return
        self._debounced()

    def flush(self) -> None:
        """Run a pending debounced update now."""
        self._debounced.flush()

    # -- the OOM risk -----------------------------------------------------------------------
    @property
    def oom_risk(self) -> float | None:
        """Return the OOM risk of the configuration shown (None while its seeds run)."""
        return (self.summary or {}).get("oom_risk")

    def wait_risk(self, timeout: float | None = None) -> float | None:
        """Wait for the seeds behind the OOM risk of the run shown; show and return the risk."""
        if self._risk_key is not None:
            self._seeds.wait(self._risk_key, timeout)
        self._show_risk()
        return self.oom_risk

    def _risk_job(self, cfg: PipelineConfig):
        """Return ``seed -> (function, args)``: the background run of ``cfg`` with a seed."""
        config, profile = cfg.to_dict(), self.profile
        return lambda seed: (seed_oom, (config, profile, seed, None))

    def _start_risk(self) -> None:
        """Start the seeds behind the OOM risk of the run shown; show what is known."""
        source, trace = get_source(self.source_name), self.trace
        if trace is None or self.error or not getattr(source, "seeded", False):
            self._risk_key = None
            self.risk.layout.display = "none"
            return
        try:
            cfg = self.config
        except ConfigError:   # the controls describe no valid run: the shown run's risk stays
            return
        key = self._config_key(cfg)
        self._risk_key = key
        self._seeds.known(key)[cfg.seed] = ran_out_of_memory(trace)
        seeds = range(cfg.seed, cfg.seed + self.controls["oom_seeds"].value)
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a script, a test): wait_risk() shows the result
            self._loop = None
        self._seeds.start(key, self._risk_job(cfg), seeds[1:], on_done=self._risk_progress)
        self._show_risk()

    def _risk_progress(self) -> None:
        # A worker thread: show the result on the thread that owns the widgets.
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._show_risk)

    def _show_risk(self) -> None:
        key = self._risk_key
        if key is None or self.trace is None:
            return
        seed = int((self.trace.meta.get("config") or {}).get("seed", 0))
        n = self.controls["oom_seeds"].value
        known = self._seeds.known(key)
        done = [known[s] for s in range(seed, seed + n) if s in known]
        summary = {k: v for k, v in self._run["summary"].items()
                   if k not in ("oom_risk", "oom_seeds")}
        if len(done) == n:
            summary.update(oom_risk=sum(done) / n, oom_seeds=n)
        color = "#b00020" if any(done) else "#444"
        self.risk.value = (f"<span style='color:{color};font-size:0.9em'>"
                           f"{html.escape(risk_text(seed, n, known))}</span>")
        self.risk.layout.display = "block"
        if summary != self.summary:
            self.summary = summary
            self.headline.value = _headline(self.trace, summary)
            if self.pinned is not None:
                self._heads[1].value = _headline(self.trace, summary, label="current")

    # -- the update -----------------------------------------------------------------------
    def refresh(self) -> dict | None:
        """Fetch a trace for the current controls and redraw; return the summary (None on error)."""
        t0 = time.perf_counter()
        try:
            cfg = self.config
        except ConfigError as exc:
            return self._fail(f"invalid configuration: {exc}")
        source = get_source(self.source_name)
        key = self._run_key(source, cfg)
        run = self._runs.get(key) if key is not None else None
        kept = run is not None
        if kept:  # the same run again: nothing to simulate or summarize
            self._runs.move_to_end(key)
            trace = run["trace"]
            t1 = time.perf_counter()
        else:
            message = getattr(source, "running_message", None)
            if message is not None:  # a slow source (live): say what runs while it runs
                self.status.value = (f"<span class='cuzklab-running' style='color:#666'>"
                                     f"{html.escape(message(cfg))}</span>")
            try:
                trace = self._run_source(source, cfg)
            except _SHOWN_ERRORS as exc:
                return self._fail(f"{self.source_name} failed: {type(exc).__name__}: {exc}")
            t1 = time.perf_counter()
            run = {"trace": trace}
            if key is not None:
                self._runs[key] = run
                while len(self._runs) > self.cache_size:
                    self._runs.popitem(last=False)
        self.trace, self.error = trace, None
        self._run = run
        # The timeline first (its title needs only s/proof): the browser draws it
        # while the summary and the details are computed.
        self._draw_timeline()
        t2 = time.perf_counter()
        if "summary" not in run:
            run["summary"] = trace.summary()
        t3 = time.perf_counter()
        self.summary = run["summary"]
        self._draw_details()
        t4 = time.perf_counter()
        self.timings = {"source_s": t1 - t0, "summary_s": t3 - t2, "draw_s": (t2 - t1) + (t4 - t3),
                        "total_s": t4 - t0, "cached": kept}
        self.updates += 1
        self.status.value = (
            f"<span style='color:#666;font-size:0.85em'>{html.escape(self.source_name)}"
            f"{' (kept)' if kept else ''}: "
            f"{len(trace.spans)} spans · source {1000 * (t1 - t0):.0f} ms · summary "
            f"{1000 * (t3 - t2):.0f} ms · drawn {1000 * ((t2 - t1) + (t4 - t3)):.0f} ms"
            f"{_live_note(trace)}</span>")
        self._start_risk()
        return self.summary

    def _run_source(self, source, cfg):
        """Return the trace of ``cfg`` from ``source`` (a subclass may add a workload)."""
        return source(cfg, self.profile)

    def _run_key(self, source, cfg: PipelineConfig) -> str | None:
        """Return the key a run of ``source`` on ``cfg`` is kept under (None: not kept)."""
        if self.cache_size <= 0 or not getattr(source, "deterministic", False):
            return None
        return self._config_key(cfg)

    def _config_key(self, cfg: PipelineConfig) -> str:
        """Return what names a run of ``cfg`` (source, profile, configuration)."""
        return json.dumps([self.source_name, self.profile, cfg.to_dict()], sort_keys=True,
                          default=str)

    def _fail(self, message: str) -> None:
        self.error = message
        self.status.value = (f"<span class='cuzklab-error' style='color:#b00020'>"
                             f"{html.escape(message)}</span>")
        return None

    def _draw_timeline(self) -> None:
        trace, run = self.trace, self._run
        if "timeline" not in run:
            # The title's s/proof and OOM verdict, before (or from) the full summary.
            title = run.get("summary") or throughput(trace)
            lay = timeline_layout(trace, title, mode=TIMELINE_MODE)
            if self.width:
                lay["width"] = self.width
            run["timeline"] = (timeline_traces(trace, mode=TIMELINE_MODE), lay)
        self.pane.show("timeline", *run["timeline"])

    def _draw_details(self) -> None:
        trace, summary, run = self.trace, self.summary, self._run
        self.headline.value = _headline(trace, summary)
        if "details" not in run:
            run["details"] = stack_specs([
                (breakdown_traces(trace), breakdown_layout(trace)),
                (memory_traces(trace), memory_layout(trace)),
                (utilization_traces(trace, summary), utilization_layout(trace, summary)),
            ], width=self.width)
        self.pane.show("details", *run["details"])
        if self.pinned is not None:
            self._draw_compare()

    # -- pin and compare ------------------------------------------------------------------------
    def pin(self) -> None:
        """Keep the current run as the reference that later runs are compared with."""
        if self.trace is None:
            raise CuzklabError("nothing to pin: the explorer has no trace yet")
        self.pinned, self.pinned_summary = self.trace, self.summary
        self._pinned_run = self._run
        self.unpin_button.disabled = False
        if not self.compare_box.children:
            self._compare_pane = FigurePane(["compare"])
            self._heads = (w.HTML(layout=w.Layout(width="50%")),
                           w.HTML(layout=w.Layout(width="50%")))
            self._heads[0].add_class("cuzklab-pinned-headline")
            self._heads[1].add_class("cuzklab-current-headline")
            self._diff = w.HTML()
            self.compare_box.children = [
                w.HTML("<b>Pinned vs current</b>"), w.HBox(list(self._heads)), self._diff,
                self._compare_pane]
        specs, lay = self._pinned_run["timeline"]
        lay = dict(lay, title=dict(lay["title"], text="Pinned: " + lay["title"]["text"]))
        lay.pop("width", None)
        self._pinned_part = (specs, lay)
        self.compare_box.layout.display = "flex"
        self._draw_compare()

    def unpin(self) -> None:
        """Forget the pinned run and hide the comparison."""
        self.pinned = self.pinned_summary = None
        self.unpin_button.disabled = True
        self.compare_box.layout.display = "none"

    def _draw_compare(self) -> None:
        a, b = self.pinned, self.trace
        self._heads[0].value = _headline(a, self.pinned_summary, label="pinned")
        self._heads[1].value = _headline(b, self.summary, label="current")
        diff = config_diff(a.meta.get("config") or {}, b.meta.get("config") or {})
        if a.meta.get("profile") != b.meta.get("profile"):
            diff["profile"] = (a.meta.get("profile"), b.meta.get("profile"))
        self._diff.value = ("<span style='color:#444'>changed: " + html.escape(", ".join(
            f"{k} {x} → {y}" for k, (x, y) in diff.items())) + "</span>") if diff else \
            "<span style='color:#444'>same configuration as the pinned run</span>"
        sums = (self.pinned_summary, self.summary)
        self._compare_pane.show("compare", *stack_specs([
            (compare_traces(a, b, summaries=sums), compare_layout(a, b, summaries=sums)),
            self._pinned_part], width=self.width))

    # -- export --------------------------------------------------------------------------------
    def export(self, html_path=None, png_path=None) -> dict[str, Path]:
        """Write the current run (and the pinned one, if any) as a report; return the paths.

        A relative path (default: the report box's) is written under
        ``report_dir`` (``papermill_runs/explorer/`` of the workbench, made when
        missing); an absolute path is used as is.
        """
        if self.trace is None:
            raise CuzklabError("nothing to export: the explorer has no trace yet")
        html_path = output_path(html_path or self.report_path.value, self.report_dir)
        png_path = output_path(png_path, self.report_dir) if png_path else None
        traces = [self.trace] if self.pinned is None else [self.pinned, self.trace]
        labels = None if self.pinned is None else ["pinned", "current"]
        return write_report(traces, html_path, png_path, labels=labels)

    def _export_clicked(self) -> None:
        try:
            out = self.export(self.report_path.value)
        except (CuzklabError, OSError) as exc:
            self._fail(f"export failed: {exc}")
            return
        self.status.value = (f"<span style='color:#2a7d2a'>wrote "
                             f"{html.escape(str(out['html']))}</span>")
