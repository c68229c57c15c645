"""The contention curve's slowdowns: visits paired by pass, prep_msm over the probe on both sides."""

from __future__ import annotations

import json
import statistics

import pytest

from cuzklab.calibrate.contention import model_contention, remodel_curve
from cuzklab.calibrate.measure import add_slowdowns, paired_slowdown
from cuzklab.model import Profile


def _rows(true_x: dict[int, float], drift: list[float]) -> list[dict]:
    """Rows of a curve whose host runs at drift[i] in pass i: b_g2_msm takes 0.2 s x its
    true slowdown x the pass's drift, and each point's seconds are the median of its visits."""
    rows = []
    for s, x in true_x.items():
        visits = [0.2 * x * d for d in drift]
        rows.append({"syntheses": s, "b_g2_msm_s": statistics.median(visits),
                     "visits": {"b_g2_msm_s": visits}})
    return rows


def test_visits_paired_by_pass_leave_out_a_host_that_drifts():
    # the host runs slow for the last passes: the medians of the points mix fast and slow
    # passes unevenly (the solo point's visits sit on both sides of the change, a loaded
    # point's too, but its median lands elsewhere); pairs within a pass do not
    drift = [1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5, 1.5]
    true_x = {0: 1.0, 4: 1.3, 12: 2.2}
    rows = _rows(true_x, drift)
    rows[2]["visits"]["b_g2_msm_s"][0] *= 1.4   # one visit's luck, as a real one has
    assert add_slowdowns(rows, over_probe=False) is True
    for r in rows:
        assert r["b_g2_msm_slowdown"] == pytest.approx(true_x[r["syntheses"]], rel=1e-9)
    # of medians, the same visits give something else once the visits do not line up
    medians = _rows(true_x, drift)
    medians[1]["visits"]["b_g2_msm_s"] = medians[1]["visits"]["b_g2_msm_s"][:4]
    medians[1]["b_g2_msm_s"] = statistics.median(medians[1]["visits"]["b_g2_msm_s"])
    assert add_slowdowns(medians, over_probe=False) is False
    assert medians[1]["b_g2_msm_slowdown"] == pytest.approx(1.3 * 1.0 / 1.5)


def test_a_pair_needs_two_visits_of_each_the_same_number():
    assert paired_slowdown([2.0, 4.0], [1.0, 2.0]) == 2.0
    assert paired_slowdown([2.0], [1.0]) is None           # one pass: nothing to pair
    assert paired_slowdown([2.0, 4.0, 3.0], [1.0, 2.0]) is None
    assert paired_slowdown([2.0, 4.0], [0.0, 2.0]) is None
    assert add_slowdowns([{"syntheses": 1, "b_g2_msm_s": 1.0}], over_probe=False) is False


def test_prep_over_the_probe_pairs_its_ratios():
    rows = [{"syntheses": 0, "prep_msm_s": 0.02, "prep_msm_raw_s": 0.02, "host_probe_s": 0.001,
             "visits": {"prep_msm_ratio": [20.0, 30.0], "prep_msm_raw_s": [0.02, 0.03],
                        "host_probe_s": [0.001, 0.001]}},
            {"syntheses": 2, "prep_msm_s": 0.025, "prep_msm_raw_s": 0.03, "host_probe_s": 0.0012,
             "visits": {"prep_msm_ratio": [22.0, 33.0], "prep_msm_raw_s": [0.026, 0.039],
                        "host_probe_s": [0.0012, 0.0012]}}]
    assert add_slowdowns(rows, over_probe=True) is True
    assert rows[1]["prep_msm_slowdown"] == pytest.approx(1.1)       # the ratios' pairs
    assert rows[1]["prep_msm_raw_slowdown"] == pytest.approx(1.3)
    assert rows[1]["host_probe_slowdown"] == pytest.approx(1.2)
    raw = [dict(r) for r in rows]
    add_slowdowns(raw, over_probe=False)
    assert raw[1]["prep_msm_slowdown"] == pytest.approx(1.3)         # its seconds as run


def test_the_model_takes_prep_over_its_own_probe():
    # a busy machine slows every thread (node.busy_slowdown): the probe, a one-thread job
    # with no memory traffic, shows it; prep_msm over the probe keeps what is its own
    prof = Profile.load("porep-live-2p20-h200").replace(
        node={"busy_slowdown": 0.2, "busy_knee": 2.0})
    kw = dict(pool_threads=16, synth_threads=1)
    raw = model_contention(prof, [0, 4], **kw)
    over = model_contention(prof, [0, 4], over_probe=True, **kw)
    assert raw[1]["host_probe_slowdown"] == pytest.approx(1.2, rel=1e-6)
    assert raw[1]["prep_msm_slowdown"] > 1.15                        # the busy factor, as run
    assert over[1]["prep_msm_raw_slowdown"] == pytest.approx(raw[1]["prep_msm_slowdown"])
    assert over[1]["prep_msm_slowdown"] == pytest.approx(
        raw[1]["prep_msm_slowdown"] / raw[1]["host_probe_slowdown"])
    assert over[1]["b_g2_msm_slowdown"] == raw[1]["b_g2_msm_slowdown"]
    # no busy machine: the probe does not move beside four syntheses on sixteen cores
    quiet = model_contention(prof.replace(node={"busy_slowdown": 0.0}), [0, 4], **kw)
    assert quiet[1]["host_probe_slowdown"] == pytest.approx(1.0)


def test_a_stored_curve_is_judged_again_on_paired_visits():
    # the twenty-seventh H200 job's curve: eight visits a point, prep_msm over the probe
    stored = json.load(open("benchmarks/results/contention-curve-live-h200-r20.json"))
    curve = stored["contention"]
    again = remodel_curve(curve, "porep-live-2p20-h200")
    assert again["slowdowns"] == "paired"
    base = curve["rows"][0]["live_visits"]["b_g2_msm_s"]
    for old, new in zip(curve["rows"], again["rows"]):
        v = old["live_visits"]
        assert new["b_g2_msm_live_x"] == pytest.approx(
            statistics.median(x / b for x, b in zip(v["b_g2_msm_s"], base)), abs=1e-4)
        assert new["host_probe_model_x"] >= 1.0 and "prep_msm_raw_model_x" in new
    # the visits' seconds are kept: only the slowdowns are taken another way
    assert [r["b_g2_msm_live_s"] for r in again["rows"]] == \
        [r["b_g2_msm_live_s"] for r in curve["rows"]]


def test_a_curve_from_before_the_flag_is_taken_over_its_probe():
    # the twenty-third job's curve kept every call's ratio to its probe but says nothing of
    # prep_over_probe (the flag came later): it was taken over the probe, and is judged so
    stored = json.load(open("benchmarks/results/contention-curve-live-h200-r16.json"))
    curve = stored.get("contention", stored)
    assert "prep_over_probe" not in curve
    again = remodel_curve(curve, "porep-live-2p20-h200")
    base = curve["rows"][0]["live_visits"]["prep_msm_ratio"]
    for old, new in zip(curve["rows"], again["rows"]):
        ratios = old["live_visits"]["prep_msm_ratio"]
        assert new["prep_msm_live_x"] == pytest.approx(
            statistics.median(x / b for x, b in zip(ratios, base)), abs=1e-4)
        assert new["prep_msm_model_x"] == pytest.approx(
            new["prep_msm_raw_model_x"] / new["host_probe_model_x"], abs=2e-4)
