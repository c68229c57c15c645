"""Stacking figures into bands of one figure."""

import pytest

from cuzklab.plots import breakdown, compare, memory, stack, utilization

from .synthetic import pipeline_trace


def _bands(fig):
    lay = fig.layout.to_plotly_json()
    return {k: v["domain"] for k, v in lay.items() if k.startswith("yaxis")}


def test_every_trace_lands_on_its_own_renumbered_axes():
    a = pipeline_trace(proofs=2, partitions=2)
    b = pipeline_trace(proofs=2, partitions=2, lock="interlock")
    figs = [breakdown(a), memory(a), utilization(a), compare(a, b)]
    fig = stack(figs)
    assert len(fig.data) == sum(len(f.data) for f in figs)
    lay = fig.layout.to_plotly_json()
    for t in fig.data:
        x = "xaxis" + t.xaxis[1:]
        y = "yaxis" + t.yaxis[1:]
        assert x in lay and y in lay, (t.name, t.xaxis, t.yaxis)
    # Bands go top to bottom and do not overlap: breakdown above memory above utilization.
    domains = _bands(fig)
    assert all(0.0 <= lo < hi <= 1.0 for lo, hi in domains.values())
    mem_y = next(t.yaxis for t in fig.data if t.name == "RSS")
    util_y = next(t.yaxis for t in fig.data if t.name == "mean utilization")
    work_y = next(t.yaxis for t in fig.data if t.name == "synth")
    dom = lambda ref: domains["yaxis" + ref[1:]]  # noqa: E731
    assert dom(work_y)[0] > dom(mem_y)[1] and dom(mem_y)[0] > dom(util_y)[1]
    # Each figure keeps its title (as an annotation) and its own legend.
    texts = [a.text for a in fig.layout.annotations]
    assert any("Host memory" in t for t in texts) and any("pinned vs current" in t for t in texts)
    assert {t.legend for t in fig.data} >= {"legend", "legend2", "legend3", "legend4"}


def test_stack_validates():
    with pytest.raises(ValueError, match="at least one"):
        stack([])
    with pytest.raises(TypeError, match="plotly Figures"):
        stack([{"data": []}])


def test_shapes_follow_their_figure_onto_its_axes_and_legend():
    from cuzklab.plots import timeline

    a = pipeline_trace(proofs=2, partitions=2)
    tl = timeline(a, mode="rect")
    fig = stack([breakdown(a), tl])
    assert len(fig.layout.shapes) == len(tl.layout.shapes) > 0
    hover_axes = {(t.xaxis, t.yaxis) for t in fig.data if t.type == "scatter"}
    assert {(sh.xref, sh.yref) for sh in fig.layout.shapes} == hover_axes != {("x", "y")}
    assert {sh.legend for sh in fig.layout.shapes} == {"legend2"}
    assert [sh.path for sh in fig.layout.shapes] == [sh.path for sh in tl.layout.shapes]
