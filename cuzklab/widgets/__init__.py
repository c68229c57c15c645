"""The ipywidgets explorer of the proving pipeline and its trace sources.

:class:`Explorer` is the panel (controls, headline, figures, pin and
compare); :func:`register_source` plugs in another way of getting a trace
(the live executor, parsed daemon logs) next to the built-in simulator;
:func:`model_overlay` puts the model's prediction beside a measured trace.
"""

from ..errors import ConfigError
from .debounce import Debouncer
from .explorer import Explorer
from .overlay import model_overlay
from .sources import (cuzk_log_source, get_source, register_source, source_names,
                      unregister_source)
from .sync import FigureSync

__all__ = ["Explorer", "Debouncer", "FigureSync", "register_source", "unregister_source",
           "get_source", "source_names", "cuzk_log_source", "model_overlay", "ConfigError"]
