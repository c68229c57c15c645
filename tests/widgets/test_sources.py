"""The source registry: name -> callable(config, profile) -> Trace."""

import pytest

from cuzklab.model import PipelineConfig
from cuzklab.widgets import get_source, register_source, source_names, unregister_source


def test_sim_is_built_in_and_returns_a_trace():
    assert source_names()[0] == "sim"
    tr = get_source("sim")(PipelineConfig(proofs=2, concurrency=2), None)
    assert tr.source == "sim" and len(tr.spans)


def test_register_replace_unregister():
    fn = lambda config, profile: None  # noqa: E731
    register_source("test-a", fn)
    try:
        assert get_source("test-a") is fn and "test-a" in source_names()
        with pytest.raises(ValueError, match="already registered"):
            register_source("test-a", fn)
        register_source("test-a", print, replace=True)
        assert get_source("test-a") is print
    finally:
        unregister_source("test-a")
    with pytest.raises(ValueError, match="source must be one of sim"):
        get_source("test-a")
    with pytest.raises(ValueError, match="cannot be removed"):
        unregister_source("sim")
    with pytest.raises(TypeError, match="callable"):
        register_source("x", 3)
    with pytest.raises(ValueError, match="non-empty"):
        register_source("", fn)


def test_live_is_built_in_runs_small_and_says_so():
    from cuzklab.widgets import Explorer
    from cuzklab.widgets.sources import LIVE_MAX_PARTITIONS, LIVE_MAX_PROOFS, live_config
    assert "live" in source_names()
    cfg = PipelineConfig(proofs=2, concurrency=2, partitions=10, partition_workers=2,
                         gpu_workers_per_device=1, lock="split_async")
    small = live_config(cfg)
    assert small.partitions == LIVE_MAX_PARTITIONS and small.proofs <= LIVE_MAX_PROOFS
    assert "running live" in get_source("live").running_message(cfg)
    ex = Explorer(cfg, source="live", debounce_s=0)
    assert ex.error is None, ex.error
    assert ex.trace.source == "live" and ex.summary["proofs"] == 2
    assert "measured live" in ex.status.value and "2 partitions at 2^4" in ex.status.value
