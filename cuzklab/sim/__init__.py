"""The SimPy model of the cuzk daemon: ``simulate(config, profile) -> Trace``."""

from __future__ import annotations

from ..errors import ConfigError, ProfileError
from ..model.config import PipelineConfig
from ..model.profile import Profile
from ..trace import Trace


def simulate(config: PipelineConfig | dict | None = None,
             profile: "str | Profile | None" = None, *, workload=None, **overrides) -> Trace:
    """Return the Trace of one simulated run of ``config`` on ``profile``.

    ``config`` may be a PipelineConfig, a dict of its keys, or None for the
    documented 32 GiB PoRep node; keyword overrides are applied on top.
    ``workload`` (a :class:`~cuzklab.sim.workload.Workload`, a dict shaped
    like its TOML, or a TOML path) mixes proof kinds and arrival processes;
    None, or one PoRep stream in closed loop, is today's single-kind run.
    """
    config = PipelineConfig.coerce(config)
    if overrides:
        config = config.replace(**overrides)
    prof = Profile.load(profile)
    if workload is not None:
        from .workload import Workload
        workload = Workload.coerce(workload)
        if not workload.is_default():
            from .mixed import MixedModel
            return MixedModel(config, prof, workload).run()
    from .daemon import DaemonModel
    return DaemonModel(config, prof).run()


__all__ = ["simulate", "ConfigError", "ProfileError"]
