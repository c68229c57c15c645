"""In-place FigureWidget updates: only what changed is sent."""

import numpy as np
import plotly.graph_objects as go

from cuzklab.widgets import FigureSync


def _spec(x, name="a", color="red"):
    return dict(type="bar", x=np.asarray(x, dtype=float), y=["l"] * len(x), name=name,
                marker=dict(color=color))


def test_patch_in_place_and_skip_unchanged(monkeypatch):
    fw = go.FigureWidget()
    sync = FigureSync(fw)
    assert sync.update([_spec([1, 2])], {"title": {"text": "one"}}) == "rebuilt"
    trace = fw.data[0]
    sent = []
    orig = type(trace).__setitem__

    def spy(self, key, value):
        sent.append(key)
        return orig(self, key, value)

    monkeypatch.setattr(type(trace), "__setitem__", spy)
    assert sync.update([_spec([3, 4, 5])], {"title": {"text": "one"}}) == "patched"
    assert fw.data[0] is trace                      # the same trace object, updated
    assert list(fw.data[0].x) == [3, 4, 5]
    assert sorted(sent) == ["x", "y"]               # name and marker unchanged: not sent
    sent.clear()
    sync.update([_spec([3, 4, 5], color="blue")], {"title": {"text": "two"}})
    assert sent == ["marker"] and fw.layout.title.text == "two"
    assert fw.data[0].marker.color == "blue"


def test_rebuild_when_trace_kinds_change_and_layout_keys_dropped():
    fw = go.FigureWidget()
    sync = FigureSync(fw)
    sync.update([_spec([1])], {"title": {"text": "t"}, "height": 300})
    spec = dict(type="scattergl", x=[1, 2], y=[1, 2], name="gl")
    assert sync.update([spec, spec], {"title": {"text": "t"}}) == "rebuilt"
    assert [t.type for t in fw.data] == ["scattergl", "scattergl"]
    assert fw.layout.height is None
    assert sync.rebuilds == 2
