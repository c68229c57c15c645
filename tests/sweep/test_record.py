"""record(): how a notebook hands its metrics back to the sweep."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cuzklab.sweep import artifact_path, flatten, record


def test_flatten_nests_to_dotted_keys_and_makes_values_json():
    flat = flatten({"a": 1, "b": {"c": np.float64(2.5), "d": {"e": None}},
                    "f": (1, 2), "g": float("nan"), "h": np.int64(7), "i": True})
    assert flat == {"a": 1, "b.c": 2.5, "b.d.e": None, "f": [1, 2], "g": None, "h": 7,
                    "i": True}
    assert type(flat["h"]) is int
    json.dumps(flat, allow_nan=False)


def test_flatten_rejects_a_non_mapping():
    with pytest.raises(TypeError, match="summary must be a mapping"):
        flatten([1, 2])


def test_record_writes_the_flat_dict(tmp_path):
    path = tmp_path / "p1.result.json"
    flat = record(str(path), {"x": 1, "stage_s": {"synth": 3.0}})
    assert flat == {"x": 1, "stage_s.synth": 3.0}
    assert json.loads(path.read_text()) == flat
    assert [p.name for p in tmp_path.iterdir()] == ["p1.result.json"]  # no temp files left


def test_record_outside_a_sweep_only_returns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert record("", {"x": {"y": 2}}) == {"x.y": 2}
    assert list(tmp_path.iterdir()) == []


def test_artifact_path_sits_beside_the_point():
    assert str(artifact_path("/s/points/abc.result.json", "trace.parquet")) == \
        "/s/points/abc.trace.parquet"
    assert artifact_path("", "trace.parquet") is None
    with pytest.raises(ValueError, match="suffix"):
        artifact_path("/s/abc.result.json", "../x")
