"""Two runs side by side."""

import pytest

from cuzklab.plots import compare, config_diff

from .synthetic import pipeline_trace


def test_metric_panels_and_changed_keys():
    a = pipeline_trace(proofs=3, partitions=2, lock="interlock", gw=1)
    b = pipeline_trace(proofs=3, partitions=2, lock="split_async", gw=2)
    sa, sb = a.summary(), b.summary()
    fig = compare(a, b)
    spp = next(t for t in fig.data if t.name == "s/proof")
    assert list(spp.x) == ["pinned", "current"]
    assert list(spp.y) == [pytest.approx(sa["seconds_per_proof"]),
                           pytest.approx(sb["seconds_per_proof"])]
    busy = next(t for t in fig.data if t.name == "GPU busy (%)")
    assert busy.y[1] == pytest.approx(100 * sb["gpu_busy_fraction"])
    title = fig.layout.title.text
    assert "lock interlock → split_async" in title
    assert "gpu_workers_per_device 1 → 2" in title
    assert [t.name for t in fig.data if t.showlegend] == ["pinned", "current"]


def test_config_diff_and_errors():
    assert config_diff({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4}) == {"b": (2, 3), "c": (None, 4)}
    tr = pipeline_trace(proofs=1, partitions=1)
    with pytest.raises(ValueError, match="two names"):
        compare(tr, tr, labels=("one",))
    with pytest.raises(TypeError, match="b must be a cuzklab Trace"):
        compare(tr, {})
    assert "same configuration" in compare(tr, tr).layout.title.text
