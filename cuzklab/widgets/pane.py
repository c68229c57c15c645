"""Plotly figures in one widget, redrawn with ``Plotly.react`` from binary arrays.

:class:`FigurePane` shows one or more named figures, top down, in a single
widget. ``pane.show(name, specs, layout)`` takes what the figure functions of
``cuzklab.plots`` return -- trace specs and a layout as plain dicts -- and the
browser redraws that figure with ``Plotly.react``, which draws again only
what changed. Numeric arrays travel as binary buffers (no JSON text to write
in Python or to parse in the browser), and nothing is sent back.

It exists because plotly's ``FigureWidget`` costs an interactive panel most of
its time: every edit is validated in Python, re-applied to a copy of the
figure in the browser, and answered by the browser with the full set of
computed defaults (hundreds of KB for a 2,000-span timeline), which the
kernel then echoes back to the browser. Every FigureWidget also loads its own
copy of plotly.js; a pane loads the one plotly.js that ships with plotly.py
once, however many figures it holds, and shares it with the other panes on
the page.

For code and tests, :meth:`FigurePane.figure` returns the figure as a
``plotly.graph_objects.Figure`` (built and validated on demand, not on the
redraw path) and ``pane.specs[name]`` the (specs, layout) last shown.
"""

from __future__ import annotations

import functools
import math

import anywidget
import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import traitlets as t

# The browser side. ``loadPlotly`` (the plotly.js bundle of the installed
# plotly.py, wrapped in a function) is prepended; it runs once a page.
_JS = r"""
function plotly() {
  if (!globalThis.__cuzklabPlotly) {
    const before = globalThis.Plotly, hadName = "moduleName" in globalThis;
    loadPlotly();
    globalThis.__cuzklabPlotly = globalThis.Plotly;
    if (before !== undefined) globalThis.Plotly = before;
    if (!hadName) delete globalThis.moduleName;
  }
  return globalThis.__cuzklabPlotly;
}

const TYPES = {float64: Float64Array, float32: Float32Array, int32: Int32Array,
               uint32: Uint32Array, int16: Int16Array, uint16: Uint16Array,
               int8: Int8Array, uint8: Uint8Array};

// Numeric arrays arrive as {__nd__: dtype, shape, buffer: DataView}.
function unpack(v) {
  if (Array.isArray(v)) return v.map(unpack);
  if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) return v;
  if (v.__nd__ !== undefined) {
    const T = TYPES[v.__nd__], b = v.buffer;
    const flat = new T(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    if (v.shape.length < 2) return flat;
    const cols = v.shape[1], rows = new Array(v.shape[0]);
    for (let i = 0; i < rows.length; i++) rows[i] = flat.subarray(i * cols, (i + 1) * cols);
    return rows;
  }
  const out = {};
  for (const k in v) out[k] = unpack(v[k]);
  return out;
}

function render({ model, el }) {
  const Plotly = plotly();
  el.classList.add("cuzklab-pane");
  const divs = new Map(), off = [];
  const draw = (name) => {
    const fig = model.get("_fig_" + name), div = divs.get(name);
    if (!fig || !div) return;
    const f = unpack(fig);
    // A template travels once, by name: the same object on every redraw.
    if (typeof f.layout.template === "string")
      f.layout.template = model.get("_templates")[f.layout.template];
    div.style.display = "";
    Plotly.react(div, f.data, f.layout, f.config || {});
  };
  const hide = (name) => {
    const div = divs.get(name);
    if (div && !model.get("_fig_" + name)) { Plotly.purge(div); div.style.display = "none"; }
  };
  for (const name of model.get("names")) {
    const div = document.createElement("div");
    div.className = "cuzklab-figure cuzklab-figure-" + name;
    el.appendChild(div);
    divs.set(name, div);
    const cb = () => (model.get("_fig_" + name) ? draw(name) : hide(name));
    model.on("change:_fig_" + name, cb);
    off.push(["change:_fig_" + name, cb]);
    if (model.get("_fig_" + name)) draw(name); else div.style.display = "none";
  }
  return () => {
    for (const [ev, cb] of off) model.off(ev, cb);
    for (const div of divs.values()) Plotly.purge(div);
  };
}

export default { render };
"""


@functools.lru_cache(maxsize=1)
def _module() -> str:
    from plotly.offline import get_plotlyjs
    return "function loadPlotly() {\n" + get_plotlyjs() + "\n}\n" + _JS


# Values a widget message carries as they are (floats are checked for NaN).
_PLAIN = (str, int, bool, type(None))


def _pack(value):
    """Return ``value`` ready for a widget message: numeric arrays as binary buffers."""
    if isinstance(value, dict):
        return {k: _pack(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):  # long lists are mostly labels: pass those through
        return [v if type(v) in _PLAIN else _pack(v) for v in value]
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
        if kind in "iuf" and value.ndim in (1, 2):
            if kind in "iu" and value.dtype.itemsize == 8:  # JS has no 64-bit integer arrays
                fits = value.size == 0 or (value.min() >= -2**31 and value.max() < 2**31)
                value = value.astype(np.int32 if fits else np.float64)
            value = np.ascontiguousarray(value)
            return {"__nd__": value.dtype.name, "shape": list(value.shape),
                    "buffer": memoryview(value.reshape(-1).view(np.uint8))}
        return _pack(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None  # widget messages are strict JSON; arrays carry NaN in binary
    return value


class FigurePane(anywidget.AnyWidget):
    """Named plotly figures, top down, in one widget; :meth:`show` redraws one."""

    _esm = _module()
    names = t.List(t.Unicode()).tag(sync=True)
    # plotly.py templates by name (``plotly_white``...), sent once each.
    _templates = t.Dict().tag(sync=True)

    def __init__(self, names, *, config: dict | None = None, **kwargs):
        names = list(names)
        if not names or len(set(names)) != len(names) or \
                not all(isinstance(n, str) and n.isidentifier() for n in names):
            raise ValueError(f"names must be distinct identifiers, got {names!r}")
        super().__init__(names=names, **kwargs)
        self.add_traits(**{f"_fig_{n}": t.Dict(allow_none=True, default_value=None)
                           .tag(sync=True, echo_update=False) for n in names})
        self.config = dict(config or {})
        self.specs: dict[str, tuple[list[dict], dict] | None] = dict.fromkeys(names)
        self.sent = dict.fromkeys(names, 0)   # figures sent, per name

    def show(self, name: str, specs: list[dict], layout: dict) -> None:
        """Draw ``specs`` (plain trace dicts) with ``layout`` as the figure ``name``."""
        if name not in self.specs:
            raise KeyError(f"no figure called {name!r}; figures: {', '.join(self.specs)}")
        self.specs[name] = (specs, layout)
        template = layout.get("template", pio.templates.default)
        if hasattr(template, "to_plotly_json"):
            layout = {**layout, "template": template.to_plotly_json()}
        elif isinstance(template, str):   # as plotly.py would: the template's settings
            if template not in self._templates:
                self._templates = {**self._templates,
                                   template: pio.templates[template].to_plotly_json()}
            layout = {**layout, "template": template}
        setattr(self, f"_fig_{name}", _pack({"data": specs, "layout": layout,
                                             "config": self.config}))
        self.sent[name] += 1

    def hide(self, name: str) -> None:
        """Remove the figure ``name`` (its place collapses)."""
        if name not in self.specs:
            raise KeyError(f"no figure called {name!r}; figures: {', '.join(self.specs)}")
        self.specs[name] = None
        setattr(self, f"_fig_{name}", None)

    def figure(self, name: str) -> go.Figure:
        """Return the figure ``name`` as last shown, as a validated plotly Figure."""
        shown = self.specs[name]
        if shown is None:
            return go.Figure()
        specs, layout = shown
        return go.Figure(data=list(specs), layout=layout)
