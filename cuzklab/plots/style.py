"""The look shared by every figure: one stage color map, lane order, axis units.

Every figure colors a stage the same way, so a reader who learned that green
is ``ntt_h`` in the timeline finds it green in the breakdown too. Waiting
stages are pale and hatched; working stages are saturated.
"""

from __future__ import annotations

import re

from ..trace.schema import CPU_STAGES, GPU_STAGES, STAGES, WAIT_STAGES

# One color per canonical stage (trace/schema.py STAGES). Built from the
# Tableau 10 palette, grouped by where a stage runs: blue for synthesis,
# oranges/yellows for the CPU stages around the GPU, greens/purples for the
# serialized CUDA region, greys and pinks for waits.
STAGE_COLORS: dict[str, str] = {
    "queue": "#c9c9c9",
    "synth": "#4e79a7",
    "gpu_queue": "#a0a0a0",
    "prep_msm": "#f28e2b",
    "mutex_wait": "#e15759",
    "h2d": "#76b7b2",
    "ntt_h": "#59a14f",
    "barrier_wait": "#ff9da7",
    "batch_add": "#b07aa1",
    "tail_msm": "#7b4f9d",
    "b_g2_msm": "#edc948",
    "epilogue": "#9c755f",
    "verify": "#17becf",
}
assert set(STAGE_COLORS) == set(STAGES)

# Waiting stages are drawn translucent, so overlapping waits on one lane
# (the admission queue, the GPU queue) darken where many pile up.
WAIT_OPACITY = 0.45
WORK_OPACITY = 0.95

# Colors for things that are not stages.
RAM_COLOR = "#d62728"
RSS_COLOR = "#1f3b73"
BUDGET_COLOR = "#8c6d31"
HIGHLIGHT_COLOR = "#d62728"
MUTED_COLOR = "#8da0cb"
RUN_COLORS = ("#7f7f7f", "#1f77b4")  # pinned (a), current (b) in comparisons
RUN_PATTERNS = ("/", "")

FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=12)
TIME_AXIS_TITLE = "time since first submit (s)"


def stage_color(stage: str) -> str:
    """Return the color of ``stage`` (grey for a name outside the vocabulary)."""
    return STAGE_COLORS.get(stage, "#7f7f7f")


def stage_kind(stage: str) -> str:
    """Return ``wait``, ``gpu``, ``cpu`` or ``other`` for a stage name."""
    if stage in WAIT_STAGES:
        return "wait"
    if stage in GPU_STAGES:
        return "gpu"
    if stage in CPU_STAGES:
        return "cpu"
    return "other"


# Lane groups, top to bottom: the admission queue, synthesis slots, the GPU
# queue, each GPU worker (its CUDA lane, then its CPU lane), finalizers.
_LANE_GROUPS = (
    (re.compile(r"^admission$"), 0),
    (re.compile(r"^synth\.(\d+)$"), 1),
    (re.compile(r"^gpu_queue$"), 2),
    (re.compile(r"^gpu(\d+)\.w(\d+)$"), 3),
    (re.compile(r"^gpu(\d+)\.w(\d+)\.cpu$"), 3),
    (re.compile(r"^final\.(\d+)$"), 4),
)


def lane_sort_key(lane: str) -> tuple:
    """Return a key that orders lanes by pipeline position, then numerically."""
    for pattern, group in _LANE_GROUPS:
        m = pattern.match(lane)
        if m:
            nums = tuple(int(g) for g in m.groups())
            is_cpu = 1 if lane.endswith(".cpu") else 0
            return (group, nums, is_cpu, lane)
    # Unknown lanes (other sources): after the known ones, natural order.
    parts = tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", lane))
    return (5, (), 0, str(parts))


def order_lanes(lanes) -> list[str]:
    """Return ``lanes`` (any iterable of names) sorted top-to-bottom for a timeline."""
    return sorted(set(lanes), key=lane_sort_key)


def base_layout(**overrides) -> dict:
    """Return the layout settings every figure starts from."""
    layout = dict(
        template="plotly_white",
        font=FONT,
        margin=dict(l=70, r=20, t=56, b=50),
        hoverlabel=dict(namelength=-1),
    )
    layout.update(overrides)
    return layout


def legend_right() -> dict:
    """Return a legend placed right of the plot area, so it never covers data."""
    return dict(orientation="v", x=1.01, xanchor="left", y=1.0, yanchor="top",
                bgcolor="rgba(255,255,255,0)", tracegroupgap=2)


def legend_above() -> dict:
    """Return a horizontal legend above the plot area, clear of the data."""
    return dict(orientation="h", x=0.0, xanchor="left", y=1.02, yanchor="bottom",
                bgcolor="rgba(255,255,255,0)")
