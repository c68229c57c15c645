"""Proof kinds: provenance of every figure, scaling from PoRep, and the scheduler keys."""

from __future__ import annotations

from dataclasses import fields

import pytest

from cuzklab.errors import ConfigError, ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.model.cuzk_versions import parse_duration_s
from cuzklab.model.kinds import KIND_NAMES, PRIORITIES, ProofKind, kind_profile, kinds_for


@pytest.fixture(scope="module")
def prof():
    return Profile.load()


def test_every_kind_and_every_figure_has_its_provenance(prof):
    kinds = prof.kinds()
    assert tuple(kinds) == KIND_NAMES
    for k in kinds.values():
        for f in fields(ProofKind):
            if f.name in ("name", "provenance"):
                continue
            if getattr(k, f.name) is None and f.name in ("synth_s", "gpu_s"):
                continue
            assert k.provenance.get(f.name), (k.name, f.name)
    assert [kinds[n].priority for n in KIND_NAMES] == ["normal", "normal", "high", "critical"]
    assert kinds["winning-post"].rank == PRIORITIES.index("critical") == 0


def test_porep_is_the_profile_itself(prof):
    assert prof.for_kind("porep-c2") is prof


def test_other_kinds_scale_porep_by_constraints(prof):
    snap = prof.for_kind("snap-deals")
    r = 81_000_000 / prof["partition"]["constraints"]
    assert snap["synth"]["work_core_s"] == pytest.approx(prof["synth"]["work_core_s"] * r)
    assert snap["partition"]["abc_gib"] == pytest.approx(prof["partition"]["abc_gib"] * r)
    assert snap["prep_msm"]["solo_s"] == pytest.approx(prof["prep_msm"]["solo_s"] * r)
    assert snap["gpu"]["batch_add_s"] == pytest.approx(prof["gpu"]["batch_add_s"] * r)
    assert snap["gpu"]["ntt_h_s"] == prof["gpu"]["ntt_h_s"]          # same 2^27 domain
    assert snap["memory"]["srs_gib"] == 33.0 and snap["memory"]["budget_reserve_gib"] == 9.0
    assert snap["gpu"]["handoff_s"] == prof["gpu"]["handoff_s"]


def test_winning_post_uses_its_measured_times(prof):
    win = prof.for_kind("winning-post")
    assert win.gpu_region_s() == pytest.approx(0.666)
    assert win["synth"]["work_core_s"] / win["synth"]["max_threads"] == pytest.approx(0.052)


def test_a_profile_overrides_a_kind(prof):
    data = prof.to_dict()
    data["kinds"] = {"window-post": {"srs_gib": 5.0, "partitions": 2}}
    p = Profile(name="x", data=data)
    k = p.kinds()["window-post"]
    assert k.srs_gib == 5.0 and k.partitions == 2
    assert k.provenance["srs_gib"] == "profile x [kinds.window-post]"
    for bad, match in (({"wpost": {}}, "not a proof kind"),
                       ({"window-post": {"colour": 1}}, "not a kind field"),
                       ({"window-post": {"srs_gib": -1}}, "must be a number"),
                       ({"window-post": {"priority": "urgent"}}, "priority must be one of")):
        data["kinds"] = bad
        with pytest.raises(ProfileError, match=match):
            kinds_for(Profile(name="x", data=data))


def test_unknown_kind(prof):
    with pytest.raises(ProfileError, match="unknown proof kind"):
        prof.for_kind("porep")


def test_kind_profile_is_a_valid_profile(prof):
    for k in prof.kinds().values():
        kind_profile(prof, k).validate()


# -- the scheduler and memory keys -------------------------------------------------------

def test_scheduler_keys_defaults_match_the_daemon():
    c = PipelineConfig()
    assert (c.sort_by_type, c.max_batch_size, c.max_batch_wait_ms, c.eviction_min_idle_s) == \
        (True, 1, 10000, 300.0)


@pytest.mark.parametrize("key, value", [("sort_by_type", "yes please"), ("max_batch_size", 0),
                                        ("max_batch_wait_ms", -1),
                                        ("eviction_min_idle_s", -5.0)])
def test_scheduler_keys_are_checked(key, value):
    with pytest.raises(ConfigError) as err:
        PipelineConfig().replace(**{key: value})
    assert err.value.key == key


def test_scheduler_keys_parse_from_the_command_line():
    c = PipelineConfig().with_overrides(["sort_by_type=false", "max_batch_size=4",
                                         "eviction_min_idle_s=60"])
    assert (c.sort_by_type, c.max_batch_size, c.eviction_min_idle_s) == (False, 4, 60.0)
    with pytest.raises(ConfigError, match="true or false"):
        PipelineConfig().with_overrides(["sort_by_type=maybe"])


def test_scheduler_keys_round_trip_through_the_daemon_toml():
    c = PipelineConfig().replace(sort_by_type=False, max_batch_size=3, max_batch_wait_ms=500,
                                 eviction_min_idle_s=120.0)
    text = c.to_cuzk_toml()
    assert "sort_by_type = false" in text and "max_batch_size = 3" in text
    assert 'eviction_min_idle = "2m"' in text
    assert PipelineConfig.from_cuzk_toml(text) == c
    # seconds that are not whole minutes; and a release that has no eviction key
    c2 = PipelineConfig().replace(eviction_min_idle_s=90.0)
    assert 'eviction_min_idle = "90s"' in c2.to_cuzk_toml()
    old = c2.to_cuzk_toml(daemon_version="phase12")
    assert "eviction_min_idle =" not in old and "# cuzklab: eviction_min_idle_s = 90.0" in old
    assert PipelineConfig.from_cuzk_toml(old, daemon_version="phase12") == c2


def test_reading_the_daemon_keys():
    text = '[scheduler]\nsort_by_type = false\nmax_batch_size = 0\n[memory]\neviction_min_idle = "45s"\n'
    c = PipelineConfig.from_cuzk_toml(text)
    assert c.sort_by_type is False and c.max_batch_size == 1 and c.eviction_min_idle_s == 45.0
    ct = PipelineConfig.read_cuzk_toml('[memory]\neviction_min_idle = "1h"\n')
    assert ct.config.eviction_min_idle_s == 300.0
    assert any("eviction_min_idle" in n for n in ct.notes)


@pytest.mark.parametrize("text, secs, warned", [("5m", 300, False), ("30s", 30, False),
                                                ("120", 120, False), ("xm", 300, True),
                                                ("1h", 300, True)])
def test_parse_duration_like_the_daemon(text, secs, warned):
    got, warn = parse_duration_s(text)
    assert got == secs and (warn is not None) == warned
