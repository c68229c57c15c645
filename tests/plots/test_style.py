"""The shared look: one color per stage, lanes in pipeline order."""

from cuzklab.plots.style import STAGE_COLORS, order_lanes, stage_color, stage_kind
from cuzklab.trace import STAGES


def test_every_stage_has_its_own_color():
    assert set(STAGE_COLORS) == set(STAGES)
    assert len(set(STAGE_COLORS.values())) == len(STAGES)
    assert stage_color("not-a-stage") == "#7f7f7f"


def test_stage_kinds():
    assert stage_kind("queue") == "wait"
    assert stage_kind("ntt_h") == "gpu"
    assert stage_kind("synth") == "cpu"
    assert stage_kind("verify") == "other"


def test_lanes_follow_the_pipeline_and_sort_numerically():
    lanes = ["final.0", "gpu0.w1.cpu", "synth.10", "gpu_queue", "gpu0.w0", "synth.2",
             "admission", "gpu1.w0", "gpu0.w1", "gpu0.w0.cpu", "cpu.pool", "synth.0"]
    assert order_lanes(lanes) == [
        "admission", "synth.0", "synth.2", "synth.10", "gpu_queue",
        "gpu0.w0", "gpu0.w0.cpu", "gpu0.w1", "gpu0.w1.cpu", "gpu1.w0", "final.0", "cpu.pool"]
