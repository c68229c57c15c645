"""Host checks around live runs, and the model at the host's speed of those checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuzklab.calibrate.compare import (compare, format_table, merge_repeats, remodel,
                                       tracked_side, verdict)
from cuzklab.calibrate.hostcheck import (SCALED, SYNTH_SAMPLES_MAX, SYNTH_SAMPLES_MIN,
                                         HostCheck, host_ratios, predicted, tracked_profile)
from cuzklab.errors import ConfigError
from cuzklab.model import PipelineConfig, Profile

K = 5


def _pooled(name="porep-live-h200", core=1.6, serial=0.05):
    """A live profile with a b_g2_msm pool fit (as calibrate --live writes since its pool step)."""
    return Profile.load(name).replace(b_g2_msm={"pool_core_s": core, "serial_s": serial})


def _check(synth, k_s, *, calls=8, pool=16):
    return {"synth_s": synth, "b_g2_1_s": 0.3, "b_g2_k_s": k_s, "calls": calls,
            "pool_threads": pool}


def test_a_check_times_the_stages_alone_on_this_host():
    from cuzklab.live import workload
    work = workload(K, 0, "cpu", 1.0)
    hc = HostCheck(work, 2, calls=3)
    a, b = hc.measure(), hc.measure()
    for c in (a, b):
        assert c["synth_s"] > 0 and c["b_g2_1_s"] > 0 and c["b_g2_k_s"] > 0
        assert c["calls"] == 3 and c["pool_threads"] == 2
        # a tiny synthesis fills no 1.5 s: the median of the most samples a check takes
        assert c["synth_samples"] == SYNTH_SAMPLES_MAX
    assert b["at"] >= a["at"]
    # the calls are of different partitions: one prep output each
    assert len(hc.preps) == 3 and len({id(p) for p in hc.preps}) == 3


@pytest.mark.parametrize("kw,name", [({"pool_threads": 0}, "pool_threads"),
                                     ({"pool_threads": True}, "pool_threads"),
                                     ({"pool_threads": 2, "calls": 1}, "calls")])
def test_a_check_refuses_a_pool_it_cannot_time(kw, name):
    from cuzklab.live import workload
    with pytest.raises(ConfigError, match=name):
        HostCheck(workload(K, 0, "cpu", 1.0), **kw)


def test_the_ratios_set_each_check_beside_the_profiles_own_prediction():
    prof = _pooled(core=1.6, serial=0.05)
    want = predicted(prof, _check(1.0, 1.0))
    assert want["synth_s"] == pytest.approx(prof["synth"]["work_core_s"])
    assert want["b_g2_k_s"] == pytest.approx(0.05 + 8 * 1.6 / 16)
    t1, k = want["synth_s"], want["b_g2_k_s"]
    # the host ran 2x slow before the run and 8x after: the geometric mean, 4x
    hr = host_ratios(prof, [_check(2 * t1, 1.25 * k), _check(8 * t1, 1.25 * k)])
    assert hr["ratios"]["synth"] == pytest.approx(4.0, rel=1e-3)
    assert hr["ratios"]["b_g2_msm"] == pytest.approx(1.25, rel=1e-3)
    assert "unscaled" not in hr
    # a check missing (a run that failed before its second check) leaves the other
    assert host_ratios(prof, [_check(2 * t1, k), None])["ratios"]["synth"] == pytest.approx(2.0)
    with pytest.raises(ConfigError, match="checks"):
        host_ratios(prof, [None, None])


def test_a_profile_without_a_pool_fit_keeps_b_g2_msm_and_says_so():
    prof = Profile.load("porep-live-h200")
    assert not prof["b_g2_msm"].get("pool_core_s")
    hr = host_ratios(prof, [_check(prof["synth"]["work_core_s"] * 1.5, 9.0)])
    assert hr["ratios"] == {"synth": pytest.approx(1.5), "b_g2_msm": 1.0}
    assert hr["unscaled"] == ["b_g2_msm"]


def test_the_tracked_profile_scales_those_stages_and_nothing_else():
    prof = _pooled()
    out = tracked_profile(prof, {"synth": 1.5, "b_g2_msm": 0.5})
    assert out.name == prof.name
    assert out["synth"]["work_core_s"] == pytest.approx(1.5 * prof["synth"]["work_core_s"])
    for table, key in SCALED["b_g2_msm"]:
        assert out[table][key] == pytest.approx(0.5 * prof[table][key])
    scaled = {(t, k) for keys in SCALED.values() for t, k in keys}
    for table, values in prof.data.items():
        if not isinstance(values, dict):
            continue
        for key, v in values.items():
            if (table, key) not in scaled and isinstance(v, (int, float)) \
                    and table in ("gpu", "prep_msm", "epilogue", "node", "memory"):
                assert out[table][key] == v, (table, key)
    with pytest.raises(ConfigError, match="synth"):
        tracked_profile(prof, {"synth": 0.0})


def test_the_tracked_model_follows_a_slower_host():
    # a synthesis-bound configuration: the host's one-thread synthesis ran 1.3x the
    # profile's around the run; the tracked model is that much slower, the plain one not
    from cuzklab.sim import simulate
    from cuzklab.calibrate.compare import side
    prof = _pooled()
    cfg = PipelineConfig(proofs=3, concurrency=3, partitions=4, partition_workers=2,
                         gpu_threads=16, lock="interlock")
    plain = side(simulate(cfg, prof).summary())
    t1 = prof["synth"]["work_core_s"]
    k = predicted(prof, _check(1, 1))["b_g2_k_s"]
    live = {**plain, "seconds_per_proof": 1.3 * plain["seconds_per_proof"], "rss_start_gib": None}
    out = tracked_side(cfg, prof, {"before": _check(1.3 * t1, k), "after": _check(1.3 * t1, k)},
                       live)
    assert out["host_check"]["ratios"]["synth"] == pytest.approx(1.3, rel=1e-3)
    ratio = out["model_tracked"]["seconds_per_proof"] / plain["seconds_per_proof"]
    assert 1.2 < ratio < 1.35
    assert abs(out["error_tracked"]["seconds_per_proof"]) < abs(plain["seconds_per_proof"]
                                                                / live["seconds_per_proof"] - 1)


def test_compare_tracks_the_host_around_every_run_and_judges_both_models(tmp_path):
    configs = [PipelineConfig(proofs=1, concurrency=1, partitions=2, partition_workers=pw,
                              gpu_threads=2) for pw in (1, 2)]
    res = compare(configs, profile="porep-live-h200", log2_constraints=K, repeats=2,
                  track_host=True)
    assert res["track_host"] is True
    for row in res["rows"]:
        hc = row["host_check"]
        assert hc["before"]["synth_s"] > 0 and hc["after"]["synth_s"] > 0
        assert hc["before"]["pool_threads"] == 2
        assert row["model_tracked"]["seconds_per_proof"] > 0
        assert set(row["error_tracked"]) >= {"seconds_per_proof", "peak_rss_gib", "same_verdict"}
        # every run keeps its own checks and its tracked model's figures
        reps = row["live"]["repeats"]
        assert len(reps) == 2 and all(r["host_check"]["before"] for r in reps)
        assert all(r["tracked"]["seconds_per_proof"] > 0 for r in reps)
    tv = res["verdict"]["tracked"]
    assert tv["rows"] == 2 and tv["runs"]["of"] == 4
    # the shipped profile predates the pool fit: b_g2_msm is named as not scaled
    assert set(tv["ratios"]) == {"synth"} and tv["unscaled"] == ["b_g2_msm"]
    text = format_table(res)
    assert "host-tracked model" in text and "every run against its own checks" in text
    assert "b_g2_msm not scaled (the profile has no fit of its pool)" in text
    # judged again on the same profile: the same tracked figures, from the stored checks
    stored = json.loads(json.dumps(res, default=str))
    again = remodel(stored, "porep-live-h200")
    for old, new in zip(stored["rows"], again["rows"]):
        assert new["model_tracked"]["seconds_per_proof"] == pytest.approx(
            old["model_tracked"]["seconds_per_proof"])
        assert [r["tracked"]["seconds_per_proof"] for r in new["live"]["repeats"]] == \
            pytest.approx([r["tracked"]["seconds_per_proof"] for r in old["live"]["repeats"]])
    assert again["verdict"]["tracked"]["runs"] == tv["runs"]


def test_a_host_that_moved_past_the_target_is_said_in_words(tmp_path):
    from cuzklab.calibrate.compare import host_moved_text
    from cuzklab.plots.model_vs_live import compare_html
    slower = {"ratios": {"synth": [0.95, 1.2], "b_g2_msm": [1.23, 1.46]}}
    text = host_moved_text(slower)
    assert "ran slower than the profile by more than 10 % (b_g2_msm x1.23-1.46)" in text
    assert "synth" not in text  # its checks straddle the profile's speed
    assert "faster than the profile" in host_moved_text({"ratios": {"synth": [0.6, 0.85]}})
    both = host_moved_text({"ratios": {"synth": [0.6, 0.85], "b_g2_msm": [1.2, 1.3]}})
    assert "ran away from the profile's speed by more than 10 % (synth x0.60-0.85, " \
        "b_g2_msm x1.20-1.30)" in both
    for steady in ({"ratios": {"synth": [0.92, 1.1], "b_g2_msm": [1.0, 1.5]}}, {}, None):
        assert host_moved_text(steady) == ""
    # in the table's text and on the page, beside the tracked model
    stored = json.loads(Path("benchmarks/results/compare-live-h100-r28-samehost-tracked.json")
                        .read_text())
    assert "the host moved since the calibration" in format_table(stored)
    compare_html(stored, tmp_path / "c.html", timelines=False)
    assert "The host moved since the calibration" in (tmp_path / "c.html").read_text()


def test_rows_without_checks_have_no_tracked_verdict():
    from tests.calibrate.test_repeats import _row
    rows = [merge_repeats([_row(1.0), _row(1.1)]), _row(2.0)]
    assert "tracked" not in verdict(rows)
    assert all("tracked" not in r and "host_check" not in r for r in rows[0]["live"]["repeats"])
    assert "host-tracked" not in format_table({"profile": "p", "device": "d",
                                               "log2_constraints": 20, "rows": rows,
                                               "verdict": verdict(rows)})


def test_the_cli_takes_track_host_and_refuses_it_on_stored_rows(tmp_path, capsys, cli_error):
    from cuzklab.cli import main
    out, page = tmp_path / "c.json", tmp_path / "c.html"
    assert main(["compare", "--profile", "porep-live-h200", "--log2-constraints", str(K),
                 "--set", "proofs=1", "--set", "concurrency=1", "--set", "partitions=2",
                 "--set", "gpu_threads=2", "--track-host", "--json", str(out),
                 "--html", str(page)]) == 0
    assert "host-tracked model" in capsys.readouterr().out
    html = page.read_text()
    assert "model at the host&#x27;s checked speed" in html or "model at the host's checked" in html
    assert "Host-tracked model" in html and "speed the host showed around each run" in html
    assert json.loads(out.read_text())["rows"][0]["host_check"]["after"]["synth_s"] > 0
    cli_error(["compare", "--profile", "porep-live-h200", "--measured", str(out),
               "--track-host"], "--track-host")


def test_the_worst_row_reason_passes_over_a_stage_without_an_error():
    from cuzklab.calibrate.compare import worst_reason
    from tests.calibrate.test_repeats import _row
    row = _row(2.0)
    row["model"]["stage_s"]["prep_msm"], row["live"]["stage_s"]["prep_msm"] = 0.1, 0.0
    row["error"]["stage_s"]["prep_msm"] = None  # a live mean of 0: no relative error
    assert worst_reason(row).startswith("largest stage gap, synth")


def test_the_page_says_which_rows_ran_fewer_times(tmp_path):
    from cuzklab.calibrate.compare import verdict
    from cuzklab.plots.model_vs_live import compare_html
    from tests.calibrate.test_repeats import _row
    rows = [merge_repeats([_row(1.0), _row(1.1)]), merge_repeats([_row(2.0), _row(2.2)]),
            _row(3.0)]
    for r in rows:
        r["config"].update(proofs=3, partitions=4)
    page = tmp_path / "c.html"
    compare_html({"profile": "p", "device": "d", "log2_constraints": 20, "rows": rows,
                  "verdict": verdict(rows)}, page, timelines=False)
    assert "2 of the 3 rows not fitted (the others once) ran live 2 times" in page.read_text()


def test_a_long_synthesis_is_still_timed_twice(monkeypatch):
    # a synthesis that fills the check's seconds alone is timed the fewest times a check
    # takes: two, their median (mean) the check's figure, not one sample
    import cuzklab.calibrate.hostcheck as H
    from cuzklab.live import workload
    hc = HostCheck(workload(K, 0, "cpu", 1.0), 2, calls=2)
    monkeypatch.setattr(H, "SYNTH_CHECK_S", 0.0)
    assert SYNTH_SAMPLES_MIN == 2
    assert hc.measure()["synth_samples"] == 2
    monkeypatch.setattr(H, "SYNTH_SAMPLES_MIN", 1)
    assert hc.measure()["synth_samples"] == 1


def _stored_live_profile(tmp_path, name="r32"):
    """The forty-first job's profile, made again from its stored calibration (2^20, live)."""
    from cuzklab.calibrate.live import derive_profile
    from cuzklab.calibrate.toml import write_profile
    meas = json.loads(Path("benchmarks/results/calibrate-live-h100-r32.json").read_text())
    return write_profile(derive_profile(meas["measurements"], name)["text"], name, tmp_path)


def test_a_repaced_profile_is_the_calibration_at_the_checks_pace(tmp_path):
    import re
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from cuzklab.calibrate.hostcheck import calibration_size, repaced_text
    from cuzklab.sim import simulate
    path = _stored_live_profile(tmp_path)
    prof = Profile.load(path)
    assert calibration_size(prof) == {"log2_constraints": 20, "witness_work": 1.0,
                                      "gpu_threads": 16, "backend": "gpu"}
    # checks at 1.2x and 1.1x the profile's own prediction of them
    want = predicted(prof, _check(1.0, 1.0))
    checks = [_check(want["synth_s"] * 1.2, want["b_g2_k_s"] * 1.1) for _ in range(3)]
    text, res = repaced_text(path.read_text(), prof, checks, name="r32-now",
                             command="cuzklab calibrate --repace r32 --name r32-now",
                             date="2026-12-05T18:00:00Z")
    assert res["ratios"] == pytest.approx({"synth": 1.2, "b_g2_msm": 1.1})
    new_path = tmp_path / "r32-now.toml"
    new_path.write_text(text)
    new = Profile.load(new_path)
    assert new.name == "r32-now"
    # the scaled keys move by their stage's ratio; every other number is the calibration's
    scaled = {(t, k): s for s, keys in SCALED.items() for t, k in keys}
    for table in ("node", "partition", "memory", "synth", "prep_msm", "b_g2_msm", "epilogue",
                  "gpu"):
        for key, v in prof[table].items():
            f = {"synth": 1.2, "b_g2_msm": 1.1}.get(scaled.get((table, key)), 1.0)
            if isinstance(v, float):
                assert new[table][key] == pytest.approx(v * f, rel=1e-5), (table, key)
            else:
                assert new[table][key] == v, (table, key)
    # each moved key says so, with the value and the provenance it replaces
    for line in text.splitlines():
        if line.startswith("work_core_s"):
            assert "# fit: x1.2000 of" in line and "was measured:" in line
    raw = tomllib.loads(text)
    assert raw["calibration"]["repaced_by"].startswith("cuzklab calibrate --repace")
    assert raw["calibration"]["repaced_ratios"] == pytest.approx({"synth": 1.2, "b_g2_msm": 1.1})
    assert "re-paced on 2026-12-05T18:00:00Z" in text.splitlines()[0]
    section = None
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif section not in (None, "calibration") and line and not line.startswith("#") \
                and "=" in line:
            assert re.search(r"#\s*(measured|cuzk|fit|assumed):", line), line
    # the re-paced profile models a run as the host-tracked model at those checks does
    cfg = PipelineConfig(proofs=2, concurrency=2, partitions=4, partition_workers=8,
                         gpu_threads=16)
    a = simulate(cfg, new).summary()["seconds_per_proof"]
    b = simulate(cfg, tracked_profile(prof, res["ratios"])).summary()["seconds_per_proof"]
    assert a == pytest.approx(b, rel=1e-4)
    # re-pacing again keeps one record of it (ratios over the profile it was given)
    again, res2 = repaced_text(text, new, [_check(want["synth_s"] * 1.2, want["b_g2_k_s"] * 1.1)],
                               name="r32-later")
    raw2 = tomllib.loads(again)
    assert res2["ratios"] == pytest.approx({"synth": 1.0, "b_g2_msm": 1.0})
    assert again.count("repaced_by") == 1 and raw2["name"] == "r32-later"


def test_a_repacing_at_two_witness_works_records_the_synthesis_line(tmp_path):
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from cuzklab.calibrate.compare import profile_at_witness_work
    from cuzklab.calibrate.hostcheck import other_work_ratio, repaced_text
    path = _stored_live_profile(tmp_path)
    prof = Profile.load(path)
    want = predicted(prof, _check(1.0, 1.0))
    # each check also timed a one-thread synthesis at witness work 0: 0.2 and 0.18 of its own
    checks = [_check(want["synth_s"] * 1.1, want["b_g2_k_s"]) | {
        "other_work": 0.0, "synth_s_other": want["synth_s"] * 1.1 * f} for f in (0.2, 0.18)]
    assert other_work_ratio(checks) == (0.0, pytest.approx((0.2 * 0.18) ** 0.5, abs=1e-4))
    assert other_work_ratio([_check(1.0, 1.0)]) is None
    text, res = repaced_text(path.read_text(), prof, checks, name="r32-now")
    assert res["synth_ratio_at_other"] == pytest.approx(0.1897, abs=1e-4)
    raw = tomllib.loads(text)
    assert raw["calibration"]["other_work"] == 0.0
    assert raw["calibration"]["synth_ratio_at_other"] == pytest.approx(0.1897, abs=1e-4)
    assert "on the line through the two" in text
    (tmp_path / "r32-now.toml").write_text(text)
    new = Profile.load(tmp_path / "r32-now.toml")
    # the model at W=0: the re-paced synthesis times the checks' ratio; W=0.5 half-way
    work = new["synth"]["work_core_s"]
    assert work == pytest.approx(prof["synth"]["work_core_s"] * 1.1, rel=1e-5)
    assert profile_at_witness_work(new, 0.0)["synth"]["work_core_s"] == pytest.approx(
        0.1897 * work, rel=1e-3)
    assert profile_at_witness_work(new, 0.5)["synth"]["work_core_s"] == pytest.approx(
        (0.1897 + 1) / 2 * work, rel=1e-3)
    # re-paced again at both works: one record of the line, the newest
    again, _ = repaced_text(text, new, [c | {"synth_s_other": c["synth_s"] * 0.3}
                                        for c in checks], name="r32-later")
    assert again.count("synth_ratio_at_other =") == 1
    assert tomllib.loads(again)["calibration"]["synth_ratio_at_other"] == pytest.approx(0.3)
    # at the calibration's pace only: the line it had is kept
    kept, _ = repaced_text(text, new, [_check(1.0, 1.0)], name="r32-later")
    assert tomllib.loads(kept)["calibration"]["synth_ratio_at_other"] == pytest.approx(
        0.1897, abs=1e-4)
    # checks at two other works are refused
    mixed = [checks[0], checks[1] | {"other_work": 0.5}]
    with pytest.raises(ConfigError, match="one value"):
        other_work_ratio(mixed)


def test_compare_names_a_witness_work_the_profile_has_off_by_itself(tmp_path):
    from cuzklab.calibrate.compare import format_table, witness_line_text
    from cuzklab.plots.model_vs_live import compare_html

    def result(w1, w0, line=False):
        cal = {"witness_work": 1.0} | ({"synth_ratio_at_other": 0.2} if line else {})
        rows = [{"witness_work": w, "host_check": {"ratios": {"synth": x, "b_g2_msm": 1.0}}}
                for w, xs in ((1.0, w1), (0.0, w0)) for x in xs]
        return {"calibration": cal, "rows": rows}
    # the W=0 checks x1.5-1.8 where the W=1 ones sit at the profile's pace: off by itself
    (line,) = witness_line_text(result([0.98, 1.02, 1.0], [1.5, 1.8]))
    assert "witness work 0 is off by itself" in line and "x1.50-1.80" in line
    assert "--other-work 0" in line and "its witness slope" in line
    assert "the line its calibration timed" in witness_line_text(
        result([1.0], [0.7, 0.8], line=True))[0]
    # the host's pace moved both works alike: nothing of the line; one row or a mixed
    # spread says nothing either
    assert witness_line_text(result([1.5, 1.6], [1.55, 1.7])) == []
    assert witness_line_text(result([1.0], [1.5])) == []
    assert witness_line_text(result([1.0], [1.5, 0.95])) == []
    assert witness_line_text(result([], [1.5, 1.8])) == []
    # the forty-fourth job: its W=0 checks x1.24-2.19, its W=1 ones x1.04 (median)
    stored = json.loads(Path("benchmarks/results/compare-live-h100-r33-samehost-repaced.json")
                        .read_text())
    (line,) = witness_line_text(stored)
    assert "x1.24-2.19" in line and "x1.04 (median)" in line
    assert line in format_table(stored)
    compare_html(stored, tmp_path / "page.html", timelines=False)
    page = (tmp_path / "page.html").read_text()
    assert "The profile&#x27;s one-thread synthesis at witness work 0 is off by itself" in page
    assert "pw=12 (3×4) W=0<" in page  # each row's witness work, where the rows differ in it


def test_only_a_live_calibration_can_be_repaced():
    from cuzklab.calibrate.hostcheck import calibration_size, measure_checks
    with pytest.raises(ConfigError, match="no live calibration"):
        calibration_size(Profile.load("porep-32g"))
    with pytest.raises(ConfigError, match="--checks"):
        measure_checks(Profile.load("porep-live-h200"), 0)


def test_calibrate_repace_times_checks_and_writes_the_profile(tmp_path, capsys):
    # a live calibration at 2^4 on this machine's CPU, re-paced by two real checks
    from cuzklab.calibrate.live import derive_profile
    from cuzklab.calibrate.toml import write_profile
    from cuzklab.cli import main
    meas = json.loads(Path("benchmarks/results/calibrate-live-h100-r32.json").read_text())
    m = meas["measurements"]
    text = derive_profile(m, "tiny")["text"]
    # the same profile, as if calibrated at 2^4 with the CPU stand-ins and a pool of 2
    text = (text.replace("log2_constraints = 20", "log2_constraints = 4")
            .replace('backend = "gpu"', 'backend = "cpu"')
            .replace("gpu_threads = 16  # measured", "gpu_threads = 2  # measured"))
    src = write_profile(text, "tiny", tmp_path)
    rc = main(["calibrate", "--repace", str(src), "--name", "tiny-now", "--checks", "2",
               "--out", str(tmp_path), "--json", str(tmp_path / "r.json")])
    cap = capsys.readouterr()
    assert rc == 0 and "tiny-now.toml" in cap.out and "re-paced: synthesis x" in cap.out
    assert "calibrate --repace [2/2] host check" in cap.err and "2^4" in cap.err
    new = Profile.load(tmp_path / "tiny-now.toml")
    out = json.loads((tmp_path / "r.json").read_text())
    assert len(out["checks"]) == 2 and out["repaced_from"] == "tiny"
    r = out["ratios"]
    old = Profile.load(src)
    assert new["synth"]["work_core_s"] == pytest.approx(old["synth"]["work_core_s"] * r["synth"],
                                                        rel=1e-5)
    assert new["b_g2_msm"]["pool_core_s"] == pytest.approx(
        old["b_g2_msm"]["pool_core_s"] * r["b_g2_msm"], rel=1e-5)
    # with --other-work 0 each check also times a one-thread synthesis at witness work 0
    rc = main(["calibrate", "--repace", str(src), "--name", "tiny-both", "--checks", "2",
               "--other-work", "0", "--out", str(tmp_path), "--json", str(tmp_path / "b.json")])
    cap = capsys.readouterr()
    assert rc == 0 and "(the synthesis also at 0)" in cap.err
    assert "a one-thread synthesis at witness work 0: x" in cap.out
    out = json.loads((tmp_path / "b.json").read_text())
    assert all(c["other_work"] == 0.0 and c["synth_s_other"] > 0 for c in out["checks"])
    both = Profile.load(tmp_path / "tiny-both.toml")
    assert both.get("calibration", "synth_ratio_at_other") == pytest.approx(
        out["synth_ratio_at_other"]) and 0 < out["synth_ratio_at_other"]


@pytest.mark.parametrize("argv, parts", [
    (["calibrate", "--repace", "porep-32g", "--name", "x"], ["--repace", "no live calibration"]),
    (["calibrate", "--repace", "no-such-profile", "--name", "x"], ["--repace"]),
    (["calibrate", "--live", "--log2-constraints", "4", "--name", "x", "--checks", "2"],
     ["--checks", "--repace"]),
    (["calibrate", "--repace", "porep-live-h200", "--name", "x", "--checks", "0"], ["--checks"]),
    (["calibrate", "--live", "--log2-constraints", "4", "--name", "x", "--other-work", "0"],
     ["--other-work", "--repace"]),
    (["calibrate", "--repace", "porep-live-h200", "--name", "x", "--other-work", "1"],
     ["--other-work", "must differ", "(1)"]),
    (["calibrate", "--repace", "porep-live-h200", "--name", "x", "--other-work", "-1"],
     ["--other-work"]),
])
def test_bad_repace_inputs_give_one_error_line(cli_error, argv, parts):
    cli_error(argv, *parts)
