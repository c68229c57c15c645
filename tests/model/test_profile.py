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


def test_every_number_has_its_provenance_beside_it():
    from cuzklab.model.profile import profiles_dir
    for path in profiles_dir().glob("*.toml"):
        for line in path.read_text().splitlines():
            s = line.strip()
            if "=" in s and not s.startswith("#") and s.split("=")[1].strip()[:1] in "0123456789.":
                assert "#" in s, f"{path.name}: no provenance on {s!r}"


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
