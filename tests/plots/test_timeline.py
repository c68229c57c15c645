"""The partition timeline: every span drawn once, on its lane, at its time."""

import numpy as np
import pytest

from cuzklab.plots import BAR_SPAN_LIMIT, timeline, timeline_mode
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
