"""Profiles: loading by name and path, variants, validation and derived figures."""

import pytest

from cuzklab.errors import ProfileError
from cuzklab.model import DEFAULT_PROFILE, Profile, list_profiles


def test_named_profiles_load_and_validate():
    names = list_profiles()
    assert DEFAULT_PROFILE in names
    assert {"porep-32g@phase8", "porep-32g@phase9", "porep-32g@phase12-prefix"} <= set(names)
    for n in names:
        p = Profile.load(n)
        assert p.name == n


def test_default_profile_is_the_newest_phase():
    p = Profile.load()
    assert p.phase == 12 and p.name == "porep-32g"
    assert p["partition"]["free_abc_after"] == "gpu"
    # the documented GPU region: ~1.8 s of kernels after the pinned-upload work
    # (plus the in-lock set-up), ~3.75 s before it
    assert 1.4 < p.gpu_kernels_s() < 1.8
    assert p.gpu_kernels_s() < p.gpu_region_s() < 3.2
    assert 3.4 < Profile.load("porep-32g@phase8").gpu_region_s() < 4.0


def test_variants_inherit_and_override():
    base, p9 = Profile.load("porep-32g"), Profile.load("porep-32g@phase9")
    assert p9["partition"]["free_abc_after"] == "finalize"
    assert p9["synth"]["work_core_s"] == base["synth"]["work_core_s"]


def test_b_g2_solo_time_follows_the_pool_size():
    p = Profile.load()
    assert p.b_g2_solo_s(96) == pytest.approx(p["b_g2_msm"]["solo_s_at_all_cores"])
    assert p.b_g2_solo_s(32) == pytest.approx(p["b_g2_msm"]["solo_s_at_32"])
    assert p.b_g2_solo_s(64) < p.b_g2_solo_s(32)


TAGS = ("cuzk:", "fit:", "assumed:", "measured:")  # measured: by `cuzklab calibrate --live`
_NOT_NUMBERS = ("name", "description", "extends")


def test_every_value_carries_a_provenance_tag():
    from cuzklab.model.profile import profiles_dir
    for path in profiles_dir().glob("*.toml"):
        table = None
        for line in path.read_text().splitlines():
            s = line.strip()
            if s.startswith("["):
                table = s.strip("[]")
            if table == "calibration":  # where and how a profile was calibrated, not model values
                continue
            if not s or s.startswith(("#", "[")) or "=" not in s:
                continue
            key = s.split("=", 1)[0].strip()
            if key in _NOT_NUMBERS:
                continue
            assert "#" in s, f"{path.name}: no provenance on {s!r}"
            tag = s.split("#", 1)[1].strip()
            assert tag.startswith(TAGS), f"{path.name}: {key}: comment must start with one of {TAGS}: {s!r}"


def test_abc_and_aux_sizes_are_derived_from_the_circuit():
    p = Profile.load()
    part = p["partition"]
    assert part["abc_gib"] == pytest.approx(3 * 130278869 * 32 / 2**30)
    assert part["aux_gib"] == pytest.approx(130169893 * 32 / 2**30)
    half = p.replace(partition={"constraints": 130278869 // 2})
    assert half["partition"]["abc_gib"] == pytest.approx(part["abc_gib"] / 2, rel=1e-6)


@pytest.mark.parametrize("table,key", [("node", "memory_gib"), ("partition", "proof_bytes"),
                                       ("synth", "age_priority"), ("partition", "abc_gib")])
def test_removed_or_derived_keys_are_errors(table, key, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(f'extends = "porep-32g"\n[{table}]\n{key} = 1.0\n')
    with pytest.raises(ProfileError, match=f"{table}.{key} is not a profile key"):
        Profile.load(bad)
    with pytest.raises(ProfileError, match=f"{table}.{key} is not a profile key"):
        Profile.load().replace(**{table: {key: 1.0}})


def test_the_matvec_witness_copy_is_the_unified_witness():
    # cuzk's evaluate_pce copies [inputs | aux] (328 inputs) into one vector for the MatVec
    p = Profile.load()
    inputs = 328
    expected = (inputs + p["partition"]["aux_variables"]) * p["partition"]["scalar_bytes"] / 2**30
    assert p["synth"]["scratch_gib"] == pytest.approx(expected, abs=0.005)
    assert p["synth"]["scratch_held"] == "matvec" and p["synth"]["abc_touched"] == "matvec_start"
    assert p["synth"]["alloc_at_start"] == 0.0


def test_synthesis_memory_switches_are_checked(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('extends = "porep-32g"\n[synth]\nabc_touched = "early"\n')
    with pytest.raises(ProfileError, match="synth.abc_touched must be 'as_written' or "
                                           "'matvec_start', got 'early'"):
        Profile.load(bad)
    with pytest.raises(ProfileError, match="synth.scratch_held must be 'synthesis' or 'matvec'"):
        Profile.load().replace(synth={"scratch_held": "always"})
    with pytest.raises(ProfileError, match="scratch_held = 'matvec' needs the two steps"):
        Profile.load().replace(synth={"witness_fraction": 0.0, "abc_touched": "as_written"})


def test_phase8_upload_rate_sits_with_its_own_source():
    # ntt_msm_h 2430 ms (phase 8) - 690 ms (phase 9, with a 0.26 s pinned upload): ~2.0 s for 12 GiB
    p8 = Profile.load("porep-32g@phase8")["partition"]
    seconds = p8["abc_upload_gib"] * 2**30 / 1e9 / p8["abc_upload_gbps"]
    assert 1.8 <= seconds <= 2.3


def test_errors(tmp_path):
    with pytest.raises(ProfileError, match="unknown profile 'nope'; known profiles: porep-32g"):
        Profile.load("nope")
    with pytest.raises(ProfileError, match="not found"):
        Profile.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('extends = "porep-32g"\n[synth]\nwork_core_s = -1\n')
    with pytest.raises(ProfileError, match="synth.work_core_s = -1 is outside"):
        Profile.load(bad)
    bad.write_text('extends = "porep-32g"\n[synth]\nwitness_fraction = 1.0\n')
    with pytest.raises(ProfileError, match="synth.witness_fraction must be a number in"):
        Profile.load(bad)
    bad.write_text('extends = "porep-32g"\n[gpu]\nntt_h_s = "fast"\n')
    with pytest.raises(ProfileError, match="gpu.ntt_h_s must be a number"):
        Profile.load(bad)
    bad.write_text('name = "x"\n[node]\ncores = 8\n')
    with pytest.raises(ProfileError, match="missing"):
        Profile.load(bad)
    loop = tmp_path / "loop.toml"
    loop.write_text(f'extends = "{loop}"\n')
    with pytest.raises(ProfileError, match="cycle"):
        Profile.load(loop)
    with pytest.raises(ProfileError, match="unknown table"):
        Profile.load().replace(nope={"x": 1})


def test_replace_returns_a_validated_copy():
    p = Profile.load().replace(gpu={"ntt_h_s": 0.2})
    assert p["gpu"]["ntt_h_s"] == 0.2 and Profile.load()["gpu"]["ntt_h_s"] != 0.2
