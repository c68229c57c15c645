"""Model and measurement side by side: calibrate a profile, then compare.

* :func:`calibrate_live` measures this machine (each stage alone, the host's
  memory bandwidth, prep_msm and b_g2_msm beside 0..N syntheses) with the
  live executor and returns a profile whose every number says where it came
  from; :func:`calibrate_logs` does the same from a real cuzk daemon's logs.
* :func:`write_profile` writes such a profile as ``data/profiles/NAME.toml``.
* :func:`compare` simulates and runs live the same configurations and returns
  the error of the model per metric; rows the profile was fitted on are marked.
  :func:`compare_logs` sets the model beside a real daemon's own runs, read
  from their logs.
* :func:`contention_curve` measures the contention curve live and puts the
  model's curve beside it.

See docs/calibrate.md. Names are imported on first use.
"""

from __future__ import annotations

from ..errors import ConfigError, ProfileError
from ..lazy import lazy_exports

_EXPORTS = {
    "calibrate_live": "live", "measure_solo": "measure", "measure_bandwidth": "measure",
    "measure_contention": "measure", "calibrate_logs": "logs", "write_profile": "toml",
    "profile_text": "toml", "compare": "compare", "compare_rows": "compare",
    "model_contention": "contention", "contention_curve": "contention",
    "fitted_configs": "compare", "compare_logs": "logcompare",
}

__all__ = sorted([*_EXPORTS, "ConfigError", "ProfileError"])

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)

# ``compare`` names both a submodule and its function. Imported lazily, the function
# would only be found while the submodule is not yet loaded: once any code had imported
# ``cuzklab.calibrate.compare``, the package attribute would be the module. Bound here,
# the function stays (the submodule's own imports need only the standard library).
from .compare import compare  # noqa: E402
