"""The stage breakdown: mean seconds per span per stage, waits apart."""

import pytest

from cuzklab.plots import breakdown, stage_table

from . import synthetic as syn
from .synthetic import pipeline_trace


def _bars(fig):
    return {t.name: t for t in fig.data if len(t.x)}


def test_means_match_the_spans():
    tr = pipeline_trace(proofs=3, partitions=2, pw=2)
    fig = breakdown(tr)
    bars = _bars(fig)
    assert bars["synth"].x[0] == pytest.approx(syn.SYNTH_S)
    assert bars["ntt_h"].x[0] == pytest.approx(syn.NTT_S)
    assert bars["b_g2_msm"].x[0] == pytest.approx(syn.BG2_S)
    table = stage_table(tr)
    assert table["synth"]["n"] == 6
    assert table["queue"]["mean_s"] == pytest.approx(bars["queue"].x[0])
    # Waits in their own panel with their own scale.
    assert bars["queue"].xaxis == "x2" and bars["synth"].xaxis == "x"
    assert list(fig.layout.yaxis.categoryarray)[0] == "synth"
    assert "queue" in fig.layout.yaxis2.categoryarray
    assert "mean s" in fig.layout.xaxis.title.text


def test_two_runs_side_by_side_with_a_legend_per_run():
    a = pipeline_trace(proofs=2, partitions=2)
    b = pipeline_trace(proofs=2, partitions=2, lock="interlock")
    fig = breakdown([a, b], ["pinned", "current"])
    legend = [t.name for t in fig.data if t.showlegend]
    assert legend == ["pinned", "current"]
    synth = [t for t in fig.data if t.name.startswith("synth ·")]
    assert len(synth) == 2 and synth[0].offset != synth[1].offset


def test_bad_arguments():
    tr = pipeline_trace(proofs=1, partitions=1)
    with pytest.raises(ValueError, match="labels must have one entry per trace"):
        breakdown([tr, tr], ["only one"])
    with pytest.raises(ValueError, match="at least one"):
        breakdown([])
    with pytest.raises(TypeError, match="Traces"):
        breakdown(["x"])
