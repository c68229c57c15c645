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
