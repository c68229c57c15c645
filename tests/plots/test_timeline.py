"""The partition timeline: every span drawn once, on its lane, at its time."""

import re

import numpy as np
import pytest

from cuzklab.plots import BAR_SPAN_LIMIT, timeline, timeline_mode
from cuzklab.plots.timeline import HOVER_POINTS_ACROSS
from cuzklab.sim import simulate
from cuzklab.trace import STAGES

from .synthetic import many_spans_trace, pipeline_trace


def _drawn(fig):
    return {t.name: t for t in fig.data}


def test_one_bar_per_span_at_its_start_and_duration():
    tr = pipeline_trace(proofs=3, partitions=2, pw=2, gw=1)
    fig = timeline(tr)
    assert [t.name for t in fig.data] == list(STAGES)
    assert all(t.type == "bar" and t.orientation == "h" for t in fig.data)
    total = sum(len(t.x) for t in fig.data)
    assert total == len(tr.spans)
    for t in fig.data:
        s = tr.spans[tr.spans["stage"] == t.name]
        assert t.showlegend == bool(len(s))
        if not len(s):
            continue
        np.testing.assert_allclose(np.asarray(t.base, dtype=float), s["start"].to_numpy())
        np.testing.assert_allclose(t.x, (s["end"] - s["start"]).to_numpy())
        assert list(t.y) == list(s["lane"])
        # customdata: proof, partition, start, end, duration, slowdown
        np.testing.assert_array_equal(np.asarray(t.customdata, dtype=float)[:, 0], s["proof"])
        np.testing.assert_array_equal(np.asarray(t.customdata, dtype=float)[:, 1], s["partition"])
    assert fig.layout.barmode == "overlay"


def test_hover_names_proof_partition_stage_and_slowdown():
    fig = timeline(pipeline_trace(proofs=2, partitions=2))
    d = _drawn(fig)
    assert "proof %{customdata[0]}" in d["synth"].hovertemplate
    assert "partition %{customdata[1]}" in d["synth"].hovertemplate
    assert "<b>synth</b>" in d["synth"].hovertemplate
    assert "slowdown" in d["synth"].hovertemplate       # synth spans carry a slowdown
    assert "slowdown" not in d["ntt_h"].hovertemplate   # GPU spans do not


def test_lanes_ordered_top_down_and_axes_have_units():
    tr = pipeline_trace(proofs=2, partitions=2, pw=2, gw=2)
    fig = timeline(tr)
    cats = list(fig.layout.yaxis.categoryarray)
    assert cats[0] == "synth.0" or cats[0] == "admission"
    assert cats.index("synth.1") < cats.index("gpu0.w0") < cats.index("gpu0.w0.cpu")
    assert fig.layout.yaxis.autorange == "reversed"
    assert "(s)" in fig.layout.xaxis.title.text
    assert fig.layout.xaxis.range[1] >= tr.duration
    # The legend sits right of the plot, not over it.
    assert fig.layout.legend.x > 1.0


def test_title_names_the_config_and_throughput():
    tr = pipeline_trace(proofs=2, partitions=2, lock="interlock")
    s = tr.summary()
    fig = timeline(tr, summary=s)
    assert "lock=interlock" in fig.layout.title.text
    assert f"{s['seconds_per_proof']:.1f} s/proof" in fig.layout.title.text


def test_large_traces_switch_to_webgl_segments():
    n = BAR_SPAN_LIMIT + 500
    tr = many_spans_trace(n)
    assert timeline_mode(n) == "gl"
    fig = timeline(tr)
    drawn = [t for t in fig.data if len(t.x)]
    assert all(t.type == "scattergl" for t in drawn)
    # Three points per span: start, end, and a gap.
    assert sum(len(t.x) for t in drawn) == 3 * n
    t = drawn[0]
    s = tr.spans[tr.spans["stage"] == t.name]
    np.testing.assert_allclose(np.asarray(t.x, dtype=float)[0::3], s["start"].to_numpy())
    np.testing.assert_allclose(np.asarray(t.x, dtype=float)[1::3], s["end"].to_numpy())
    assert np.isnan(np.asarray(t.x, dtype=float)[2::3]).all()


def test_hundred_thousand_spans_build():
    fig = timeline(many_spans_trace(100_000, lanes=100))
    assert sum(len(t.x) for t in fig.data) == 300_000


def test_mode_can_be_forced_and_is_validated():
    tr = pipeline_trace(proofs=1, partitions=2)
    assert {t.type for t in timeline(tr, mode="gl").data} == {"scattergl"}
    with pytest.raises(ValueError, match="mode must be one of"):
        timeline(tr, mode="svg")
    with pytest.raises(TypeError, match="Trace"):
        timeline({"spans": []})


def test_simulated_run_draws_every_lane():
    tr = simulate(proofs=3, concurrency=3)
    fig = timeline(tr)
    assert sum(len(t.x) for t in fig.data) == len(tr.spans)
    assert set(fig.layout.yaxis.categoryarray) == set(tr.spans["lane"])


def _rects(path):
    """Return the rectangles of a rect-mode shape's path: rows of (x0, y0, x1, y1)."""
    rows = re.findall(r"M([-\d.e+]+),([-\d.e+]+)H([-\d.e+]+)V([-\d.e+]+)H([-\d.e+]+)Z",
                      path)
    assert "".join(f"M{a},{b}H{c}V{d}H{e}Z" for a, b, c, d, e in rows) == path
    out = np.array(rows, dtype=float)
    assert (out[:, 4] == out[:, 0]).all()      # closed back at its start
    return out[:, :4]


def test_rect_mode_draws_every_span_as_a_rectangle_on_its_lane():
    tr = simulate(proofs=3, concurrency=3)
    fig = timeline(tr, mode="rect")
    # One path a stage that ran, in the layout: no trace draws a rectangle.
    shapes = fig.layout.shapes
    ran = [st for st in STAGES if (tr.spans["stage"] == st).any()]
    assert [sh.name for sh in shapes] == ran
    assert all(sh.type == "path" and sh.xref == "x" and sh.yref == "y" and sh.showlegend
               and sh.legendgroup == sh.name and sh.fillrule == "nonzero" for sh in shapes)
    assert [t.name for t in fig.data] == list(STAGES)
    assert all(t.mode == "none" and t.showlegend is False for t in fig.data)
    lanes = list(fig.layout.yaxis.ticktext)
    assert set(lanes) == set(tr.spans["lane"]) and list(fig.layout.yaxis.tickvals) == \
        list(range(len(lanes)))
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]    # first lane on top
    drawn = 0
    for sh in shapes:
        s = tr.spans[tr.spans["stage"] == sh.name]
        rects = _rects(sh.path)
        drawn += len(rects)
        np.testing.assert_allclose(rects[:, 0], s["start"].to_numpy(), rtol=1e-8)
        np.testing.assert_allclose(rects[:, 2], s["end"].to_numpy(), rtol=1e-8)
        pos = np.array([lanes.index(v) for v in s["lane"]], dtype=float)
        np.testing.assert_allclose((rects[:, 1] + rects[:, 3]) / 2, pos, atol=1e-6)
        assert (rects[:, 3] - rects[:, 1] > 0.5).all() and (rects[:, 3] - rects[:, 1] < 1).all()
    assert drawn == len(tr.spans)


def test_rect_mode_hover_finds_every_span_along_its_length():
    tr = simulate(proofs=3, concurrency=3)
    fig = timeline(tr, mode="rect")
    lanes = list(fig.layout.yaxis.ticktext)
    step = tr.duration / HOVER_POINTS_ACROSS
    for t in fig.data:
        s = tr.spans[tr.spans["stage"] == t.name].reset_index(drop=True)
        assert t.mode == "none" and t.hoveron == "points" and t.showlegend is False
        assert "on %{text}" in t.hovertemplate and f"<b>{t.name}</b>" in t.hovertemplate
        x, y, cd = np.asarray(t.x, dtype=float), np.asarray(t.y, dtype=float), \
            np.asarray(t.customdata, dtype=float)
        assert len(x) == len(y) == len(t.text) == len(cd) >= len(s)
        # Each point names its span: lane, proof, partition, start, end, duration.
        for row in range(len(s)):
            sp = s.iloc[row]
            mine = (cd[:, 0] == sp["proof"]) & (cd[:, 1] == sp["partition"]) & \
                (np.abs(cd[:, 2] - sp["start"]) < 1e-3) & np.array([v == sp["lane"]
                                                                    for v in t.text])
            assert mine.any(), f"span {row} of {t.name} has no hover point"
            assert (y[mine] == lanes.index(sp["lane"])).all()
            assert np.abs(cd[mine, 3] - sp["end"]).max() < 1e-3
            assert np.abs(cd[mine, 4] - (sp["end"] - sp["start"])).max() < 1e-3
            xs = np.sort(x[mine])
            assert sp["start"] <= xs[0] and xs[-1] <= sp["end"]      # on the span
            # evenly along it, no farther apart than one step of the axis
            assert xs[0] - sp["start"] <= step / 2 + 1e-9
            assert np.all(np.diff(xs) <= step + 1e-9)
