"""The joint refit of the profiles' fitted values (cuzklab.sim.refit)."""

from __future__ import annotations

import json
import os

import pytest

from cuzklab.errors import ConfigError, ProfileError
from cuzklab.model.profile import Profile, profiles_dir
from cuzklab.sim import calibration as cal
from cuzklab.sim import refit

# One cheap row: three proofs, one at a time.
CASE = next(c for c in cal.CASES if c.name.startswith("phase 9, gw=1 c=3 j=1"))


def _param(name):
    return refit.parse_param(name, refit.fitted_params())


def test_fitted_params_are_the_fit_tagged_numbers():
    params = {p.name: p.value for p in refit.fitted_params()}
    assert params["porep-32g:synth.mem_bound"] == 0.073
    assert params["porep-32g:memory.pressure_start"] == 0.62
    assert params["porep-32g@phase9:gpu.in_lock_setup_s"] == 0.92
    # cuzk:- and assumed:-tagged values are not the model's to refit
    assert "porep-32g:synth.witness_fraction" not in params
    assert "porep-32g:memory.srs_gib" not in params
    assert "porep-32g:gpu.setup_mem_bound" not in params
    shipped = Profile.load("porep-32g")
    for name, v in params.items():
        prof, _, rest = name.partition(":")
        table, key = rest.split(".")
        if prof == "porep-32g":
            assert shipped[table][key] == v


def test_write_profiles_changes_one_line_and_keeps_the_rest(tmp_path, monkeypatch):
    p = _param("synth.mem_bound")
    folder = refit.write_profiles(tmp_path / "profiles", {p: 0.1})
    text = (folder / "porep-32g.toml").read_text()
    orig = (profiles_dir() / "porep-32g.toml").read_text()
    changed = [(a, b) for a, b in zip(orig.splitlines(), text.splitlines()) if a != b]
    assert len(changed) == 1 and len(orig.splitlines()) == len(text.splitlines())
    assert changed[0][1].split("#")[0].split("=")[1].strip() == "0.1"
    assert "# fit:" in changed[0][1]                       # the provenance stays
    monkeypatch.setenv("CUZKLAB_PROFILES", str(folder))
    prof = Profile.load("porep-32g@phase9")                # derived profiles inherit it
    assert prof["synth"]["mem_bound"] == 0.1
    monkeypatch.delenv("CUZKLAB_PROFILES")
    assert (folder / "porep-32g@phase8.toml").read_text() == \
        (profiles_dir() / "porep-32g@phase8.toml").read_text()


def test_evaluate_simulates_with_the_values_and_restores_the_environment():
    before = os.environ.get("CUZKLAB_PROFILES")
    p = _param("porep-32g@phase9:gpu.pre_lock_s")
    base = refit.evaluate({}, [CASE], [0], workers=1)[0]["model"]
    moved = refit.evaluate({p: 1.2}, [CASE], [0], workers=1)[0]["model"]
    assert moved > base + 0.5                   # ten partitions, each ~1 s longer on the GPU worker
    assert os.environ.get("CUZKLAB_PROFILES") == before


def test_score_counts_failing_rows_then_grades_them():
    rows = [{"ok": True, "seeds": [0, 1], "hits": 2, "error": 0.05, "tolerance": 0.1},
            {"ok": False, "seeds": [0, 1], "hits": 1, "error": 0.15, "tolerance": 0.1},
            {"ok": False, "seeds": [0, 1], "hits": 0, "error": None, "tolerance": 0.1}]
    fails, graded = refit.score(rows)
    assert fails == 2
    assert graded == pytest.approx(0.5 + 0.5 + 1.0)


def test_search_is_reproducible_and_logs_every_evaluation(tmp_path):
    params = [_param("porep-32g@phase9:gpu.pre_lock_s"), _param("gpu.jitter")]
    out = tmp_path / "log.jsonl"
    seen = []
    best = refit.search(params, iterations=2, cases=[CASE], seeds=[0], rng_seed=3, workers=1,
                        out=out, progress=lambda i, n, rec: seen.append((i, n)))
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["it"] for r in lines] == [0, 1, 2] and seen == [(0, 2), (1, 2), (2, 2)]
    assert lines[0]["accepted"] and lines[0]["values"][params[0].name] == params[0].value
    assert all(set(r["values"]) == {p.name for p in params} for r in lines)
    assert (best["fails"], best["score"]) <= (lines[0]["fails"], lines[0]["score"])
    again = refit.search(params, iterations=2, cases=[CASE], seeds=[0], rng_seed=3, workers=1)
    assert again["values"] == best["values"]


def test_bad_input_is_refused_before_any_simulation(capsys):
    known = refit.fitted_params()
    with pytest.raises(ConfigError, match="--param"):
        refit.parse_param("synth.witness_fraction", known)   # cuzk:-tagged, not fitted
    with pytest.raises(ConfigError, match="iterations"):
        refit.search(known[:1], iterations=-1, cases=[CASE])
    with pytest.raises(ConfigError, match="sigma"):
        refit.search(known[:1], iterations=1, cases=[CASE], sigma=0)
    with pytest.raises(ConfigError, match="params"):
        refit.search([], iterations=1, cases=[CASE])
    with pytest.raises(ProfileError, match="no profile"):
        refit.fitted_params(profiles=("no-such-profile",))
    assert refit.main(["--seeds", "0"]) == 2
    assert "--seeds: must be at least 1" in capsys.readouterr().err
