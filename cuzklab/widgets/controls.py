"""The explorer's controls: one widget per configuration key the user can move.

Sliders for counts, dropdowns for strategies, each labelled in words with the
key's help text (``cuzklab.model.KEY_DOCS``) as its tooltip. Sliders report a
value when released (``continuous_update=False``); the explorer debounces on
top of that for keyboard steps.
"""

from __future__ import annotations

import ipywidgets as w

from ..model import ADMISSIONS, KEY_DOCS, LOCKS, PipelineConfig

# Slider ranges. Upper ends cover the documented experiments (cuzk's design notes: up to
# 30 proofs with 20 in flight, pw up to 12, gw up to 4, 192-thread pools,
# 754-768 GiB hosts) with head room; PipelineConfig caps gpus at 64 and gw at 16.
RANGES = {
    "proofs": (1, 60, 1),
    "concurrency": (1, 60, 1),
    "partition_workers": (1, 32, 1),
    "gpus": (1, 8, 1),
    "gpu_workers_per_device": (1, 8, 1),
    "gpu_threads": (0, 192, 4),
    "memory_gib": (64, 1536, 2),
}

LABELS = {
    "proofs": "proofs",
    "concurrency": "proofs in flight",
    "partition_workers": "partition workers",
    "gpus": "GPUs",
    "gpu_workers_per_device": "GPU workers / GPU",
    "gpu_threads": "gpu_threads",
    "lock": "lock strategy",
    "admission": "admission",
    "memory_gib": "host memory (GiB)",
    "profile": "profile",
    "source": "source",
}

# Keys the explorer shows, in display order.
CONTROL_KEYS = ("proofs", "concurrency", "partition_workers", "gpus",
                "gpu_workers_per_device", "gpu_threads", "lock", "admission", "memory_gib")

_STYLE = {"description_width": "135px"}
_LAYOUT = dict(width="330px")


def _slider(key: str, value, cls=w.IntSlider):
    lo, hi, step = RANGES[key]
    return cls(value=min(max(value, lo), max(hi, value)), min=lo, max=max(hi, value), step=step,
               description=LABELS[key], tooltip=KEY_DOCS[key], continuous_update=False,
               style=_STYLE, layout=w.Layout(**_LAYOUT))


def build_controls(config: PipelineConfig, profile: str, profiles: list[str],
                   source: str, sources: list[str]) -> dict[str, w.Widget]:
    """Return {key: widget} for every control, set to ``config`` / ``profile`` / ``source``."""
    if profile not in profiles:
        profiles = [profile, *profiles]
    c = {
        "proofs": _slider("proofs", config.proofs),
        "concurrency": _slider("concurrency", config.concurrency),
        "partition_workers": _slider("partition_workers", config.partition_workers),
        "gpus": _slider("gpus", config.gpus),
        "gpu_workers_per_device": _slider("gpu_workers_per_device",
                                          config.gpu_workers_per_device),
        "gpu_threads": _slider("gpu_threads", config.gpu_threads),
        "lock": w.Dropdown(options=list(LOCKS), value=config.lock, description=LABELS["lock"],
                           tooltip=KEY_DOCS["lock"], style=_STYLE, layout=w.Layout(**_LAYOUT)),
        "admission": w.Dropdown(options=list(ADMISSIONS), value=config.admission,
                                description=LABELS["admission"], tooltip=KEY_DOCS["admission"],
                                style=_STYLE, layout=w.Layout(**_LAYOUT)),
        "memory_gib": _slider("memory_gib", float(config.memory_gib), w.FloatSlider),
        "profile": w.Dropdown(options=list(profiles), value=profile,
                              description=LABELS["profile"],
                              tooltip="stage costs of the node (data/profiles)",
                              style=_STYLE, layout=w.Layout(**_LAYOUT)),
        "source": w.Dropdown(options=list(sources), value=source, description=LABELS["source"],
                             tooltip="where traces come from (sim: the SimPy model)",
                             style=_STYLE, layout=w.Layout(**_LAYOUT)),
    }
    c["concurrency"].max = c["proofs"].value
    c["memory_gib"].readout_format = ".0f"
    for key, widget in c.items():
        widget.add_class(f"cuzklab-control-{key.replace('_', '-')}")
    return c


def config_from_controls(controls: dict, base: PipelineConfig) -> PipelineConfig:
    """Return ``base`` with the control values applied (validated: may raise ConfigError)."""
    changes = {k: controls[k].value for k in CONTROL_KEYS}
    changes["memory_gib"] = float(changes["memory_gib"])
    if base.budget_gib > changes["memory_gib"]:
        changes["budget_gib"] = 0.0  # auto: RAM minus the safety margin
    return base.replace(**changes)
