"""Update a plotly FigureWidget in place from new trace specs and layout.

The figure functions in ``cuzklab.plots`` build their traces as plain dicts
(``*_traces``) and their layout as a dict (``*_layout``). Rebuilding a
FigureWidget from them would flicker and re-validate everything; instead
:class:`FigureSync` remembers what it last sent and, inside one
``batch_update()``, assigns only what changed: the data arrays and the few
settings that differ. When the new figure has a different number or kind of
traces, the traces are replaced instead.
"""

from __future__ import annotations

import copy

import numpy as np


def _same(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype == object:
            return bool(np.all(a == b)) if a.size else True
        return bool(np.array_equal(a, b, equal_nan=True))
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # containers holding arrays: treat as changed
        return False


class FigureSync:
    """Keep one FigureWidget in step with a sequence of (specs, layout) updates."""

    def __init__(self, fig_widget):
        self.fig = fig_widget
        self._types: list[str] = [t.type for t in fig_widget.data]
        self._traces: list[dict] = [{} for _ in fig_widget.data]
        self._layout: dict = {}
        self.rebuilds = 0
        self.patches = 0

    def update(self, specs: list[dict], layout: dict) -> str:
        """Apply new trace specs and layout; return ``patched`` or ``rebuilt``."""
        types = [s.get("type", "scatter") for s in specs]
        fig = self.fig
        if types != self._types:
            with fig.batch_update():
                fig.data = []
            fig.add_traces(specs)
            self._types = types
            self._traces = [dict(s) for s in specs]
            self._apply_layout(layout, force=True)
            self.publish()
            self.rebuilds += 1
            return "rebuilt"
        with fig.batch_update():
            for i, spec in enumerate(specs):
                last = self._traces[i]
                target = fig.data[i]
                for key, value in spec.items():
                    if key == "type":
                        continue
                    if key in last and _same(last[key], value):
                        continue
                    target[key] = value
                    last[key] = value
            self._apply_layout(layout)
        self.patches += 1
        return "patched"

    def publish(self) -> None:
        """Copy the figure's data and layout into the widget state a new view starts from.

        plotly's FigureWidget sends edits to the views that are open as messages,
        and refreshes the state a view is created from (``_widget_data``,
        ``_widget_layout``) only when the FigureWidget itself is displayed. Inside
        a VBox it never is, so a view opened after traces were added would start
        from the state at construction: an empty figure. Called on every rebuild
        and before the explorer is displayed; patches need no copy.
        """
        fig = self.fig
        fig._widget_layout = copy.deepcopy(fig._layout_obj._props)
        fig._widget_data = copy.deepcopy(fig._data)

    def _apply_layout(self, layout: dict, force: bool = False) -> None:
        lay = self.fig.layout
        for key in [k for k in self._layout if k not in layout]:
            lay[key] = None
            del self._layout[key]
        for key, value in layout.items():
            if not force and key in self._layout and _same(self._layout[key], value):
                continue
            lay[key] = value
            self._layout[key] = value
