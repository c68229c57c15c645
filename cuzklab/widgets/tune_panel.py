"""A panel that tunes a node: RAM, GPUs, cores and profile in, the answer out.

Moving the controls does nothing until *Tune* is pressed (a search runs a
hundred or more simulations); then the panel shows the recommendation in
words, the throughput-against-peak-memory figure and the daemon TOML to copy.
"""

from __future__ import annotations

import html

import ipywidgets as w

from ..model.profile import DEFAULT_PROFILE, Profile, list_profiles

_STYLE = {"description_width": "120px"}
_LAYOUT = dict(width="320px")


class TunePanel:
    """Controls for a node, a *Tune* button, and the tuner's answer (``.result`` after a run)."""

    def __init__(self, memory_gib: float = 256, gpus: int = 1, cores: int | None = None,
                 profile: str = DEFAULT_PROFILE, margin_gib: float = 16.0, **tune_args):
        default_cores = int(Profile.load(profile)["node"]["cores"])
        self.memory = w.IntSlider(value=int(memory_gib), min=64, max=1536, step=16,
                                  description="host RAM (GiB)", continuous_update=False,
                                  style=_STYLE, layout=_LAYOUT)
        self.gpus = w.IntSlider(value=gpus, min=1, max=8, description="GPUs",
                                continuous_update=False, style=_STYLE, layout=_LAYOUT)
        self.cores = w.IntSlider(value=cores or default_cores, min=8, max=256, step=8,
                                 description="CPU cores", continuous_update=False,
                                 style=_STYLE, layout=_LAYOUT)
        self.margin = w.IntSlider(value=int(margin_gib), min=0, max=64, description="margin (GiB)",
                                  continuous_update=False, style=_STYLE, layout=_LAYOUT)
        self.profile = w.Dropdown(options=list_profiles() or [profile], value=profile,
                                  description="profile", style=_STYLE, layout=_LAYOUT)
        self.button = w.Button(description="Tune", button_style="primary")
        self.status = w.HTML()
        self.figure = w.Output()
        self.toml = w.Textarea(layout=dict(width="100%", height="260px"),
                               placeholder="the recommended cuzk daemon TOML appears here")
        self.tune_args = tune_args
        self.result = None
        self.button.on_click(lambda _: self.run())
        controls = w.VBox([self.memory, self.gpus, self.cores, self.margin, self.profile,
                           self.button])
        self.widget = w.VBox([w.HBox([controls, self.status]), self.figure, self.toml])

    def run(self):
        """Tune the node the controls describe and show the answer; return the TuneResult."""
        from ..plots.pareto import pareto_figure
        from ..tune import tune
        from ..tune.report_text import format_result
        self.status.value = "<i>tuning…</i>"
        self.button.disabled = True
        try:
            self.result = tune(float(self.memory.value), self.gpus.value, cores=self.cores.value,
                               profile=self.profile.value, margin_gib=float(self.margin.value),
                               progress=False, **self.tune_args)
        except Exception as exc:
            self.status.value = f"<b>error:</b> {html.escape(str(exc))}"
            raise
        finally:
            self.button.disabled = False
        self.status.value = ("<pre style='font-size:11px'>"
                             + html.escape(format_result(self.result)) + "</pre>")
        self.figure.clear_output()
        with self.figure:
            pareto_figure(self.result).show()
        self.toml.value = self.result.toml() if self.result.feasible else ""
        return self.result

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)
