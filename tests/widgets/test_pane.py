"""Figures in one pane: numeric arrays travel as binary buffers, templates once by name."""

import numpy as np
import plotly.graph_objects as go
import pytest
from ipywidgets.widgets.widget import _remove_buffers

from cuzklab.widgets import FigurePane


def _spec(x, name="a"):
    return dict(type="scatter", x=np.asarray(x, dtype=float), y=np.arange(len(x)),
                text=np.array([f"p{i}" for i in range(len(x))], dtype=object), name=name,
                customdata=np.column_stack([x, x]))


def test_show_sends_numbers_as_buffers_and_keeps_the_specs():
    pane = FigurePane(["one", "two"])
    pane.show("one", [_spec([1.5, np.nan, 3.0])], {"title": {"text": "t"}, "height": 300,
                                                    "template": "plotly_white"})
    state, paths, buffers = _remove_buffers({"fig": pane._fig_one})
    trace = state["fig"]["data"][0]
    assert trace["x"]["__nd__"] == "float64" and trace["x"]["shape"] == [3]
    assert trace["y"]["__nd__"] == "int32"                  # no 64-bit integers in a browser
    assert trace["customdata"]["shape"] == [3, 2]
    assert trace["text"] == ["p0", "p1", "p2"]
    assert np.isnan(np.frombuffer(buffers[0], dtype=float)[1])   # NaN survives, in binary
    assert ["fig", "data", 0, "x", "buffer"] in paths
    # the template goes once, by name; the figure names it
    assert state["fig"]["layout"]["template"] == "plotly_white"
    assert set(pane._templates) == {"plotly_white"}
    assert pane._fig_two is None and pane.sent == {"one": 1, "two": 0}
    fig = pane.figure("one")
    assert isinstance(fig, go.Figure) and fig.layout.title.text == "t"
    assert list(fig.data[0].x[[0, 2]]) == [1.5, 3.0]


def test_nothing_comes_back_from_the_browser_and_bad_names_are_errors():
    pane = FigurePane(["main"])
    assert pane.trait_metadata("_fig_main", "echo_update") is False
    with pytest.raises(KeyError, match="no figure called 'other'"):
        pane.show("other", [], {})
    with pytest.raises(ValueError, match="distinct identifiers"):
        FigurePane(["a", "a"])
    pane.show("main", [], {"title": {"text": float("nan")}})
    assert pane._fig_main["layout"]["title"]["text"] is None   # strict JSON
    pane.hide("main")
    assert pane._fig_main is None and pane.figure("main").data == ()
