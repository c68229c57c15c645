"""The ipywidgets explorer of the proving pipeline and its trace sources.

:class:`Explorer` is the panel (controls, headline, figures, pin and
compare), :class:`MixedExplorer` the same with a mixed workload's controls
and latency figure; :func:`register_source` plugs in another way of getting a trace
(the live executor, parsed daemon logs) next to the built-in simulator;
:func:`model_overlay` puts the model's prediction beside a measured trace;
:class:`FigurePane` holds the explorers' plotly figures.
"""

from ..errors import ConfigError
from .debounce import Debouncer
from .explorer import Explorer
from .mixed import MixedExplorer
from .overlay import model_overlay
from .pane import FigurePane
from .sources import (cuzk_log_source, get_source, register_source, source_names,
                      unregister_source)

__all__ = ["Explorer", "MixedExplorer", "Debouncer", "FigurePane", "register_source",
           "unregister_source", "get_source", "source_names", "cuzk_log_source",
           "model_overlay", "ConfigError"]
