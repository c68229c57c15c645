"""The witness step beside a busy b_g2_msm pool (``synth.witness_pool_slowdown``).

A live calibration times the witness step of syntheses alone and beside b_g2_msm calls
back to back on their pool at witness work 0 (x2.09 to x2.44 on three H100 hosts) and
at its own work; the model's witness step slows, while the pool is full, by its two
parts' slowdowns (what witness work 0 keeps, and what the work adds) weighted by their
seconds alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuzklab.calibrate.compare import (parts_slowdown, profile_at_witness_work,
                                       witness_pool_slowdown_at, work_part_slowdown)
from cuzklab.calibrate.live import derive_profile
from cuzklab.errors import ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

from .machine_runs import run_jobs

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


_run = run_jobs


def test_a_job_runs_slower_only_while_the_pool_is_full_and_in_proportion():
    slow = {"cap": 1.0, "pool_slowdown": 3.0}
    # alone: its own time, whatever its slowdown beside the pool
    assert _run({"w": (0, "synth", 1.0, slow)})["w"] == pytest.approx((0.0, 1.0))
    # beside a pool job that fills the pool's 16 threads: x3, and the OS's
    # share of the 16 cores for one thread beside 16 busy ones (16 / 17 of a core)
    full = _run({"w": (0, "synth", 1.0, slow),
                 "pool": (0, "pool", 100.0, {"cap": 16.0})})
    assert full["w"][1] == pytest.approx(3.0 * 17 / 16, rel=1e-6)
    # beside a pool half full: 1 + (3 - 1) x 0.5 = x2
    half = _run({"w": (0, "synth", 1.0, slow),
                 "pool": (0, "pool", 100.0, {"cap": 8.0})})
    assert half["w"][1] == pytest.approx(2.0, rel=1e-6)
    # the same pool beside a job without the slowdown: its own time
    plain = _run({"w": (0, "synth", 1.0, {"cap": 1.0}),
                  "pool": (0, "pool", 100.0, {"cap": 8.0})})
    assert plain["w"][1] == pytest.approx(1.0, rel=1e-6)
    # the pool busy for the first half second only: x2 there, then as alone
    part = _run({"w": (0, "synth", 1.0, slow),
                 "pool": (0, "pool", 4.0, {"cap": 8.0})})
    assert part["w"][1] == pytest.approx(0.5 + (1.0 - 0.5 / 2.0), rel=1e-6)


def test_the_two_parts_split_and_join_again():
    # an H100 host's step at witness work 0 and 1 (witness-beside-pool-h100.json)
    x0, a0, x1, a1 = 2.2676, 0.1292, 1.4822, 2.4498
    xw = work_part_slowdown(x0, a0, x1, a1)
    assert xw == pytest.approx((a1 * x1 - a0 * x0) / (a1 - a0), abs=1e-4)
    assert 1.4 < xw < 1.5
    # joined again at each work: the measured step at both ends, their weighted mean between
    assert parts_slowdown(x0, xw, a0, a1) == pytest.approx(x1, abs=1e-3)
    assert parts_slowdown(x0, xw, a0, a0) == pytest.approx(x0, abs=1e-4)
    mid = parts_slowdown(x0, xw, a0, 0.8503)  # the same host's W=0.25 step: x1.63 measured
    assert mid == pytest.approx(x0 * a0 / 0.8503 + xw * (1 - a0 / 0.8503), abs=1e-4)
    assert abs(mid / 1.6265 - 1) < 0.05
    # nothing to split where the higher work's step is not the longer; a part faster
    # beside the calls (noise) counts as alone
    assert work_part_slowdown(x0, 0.2, 1.5, 0.2) is None
    assert work_part_slowdown(x0, a0, 0.9, a1) == 1.0
    assert parts_slowdown(0.8, 0.9, a0, a1) == 1.0
    assert parts_slowdown(x0, 1.0, a0, 0.0) == pytest.approx(x0, abs=1e-4)


def _measurements(name):
    return json.loads((RESULTS / f"calibrate-live-{name}.json").read_text())["measurements"]


def test_a_calibration_that_timed_the_witness_beside_the_pool_writes_both_keys(tmp_path):
    meas = _measurements("h100-r38")
    beside = meas["matvec_pool"]["witness"]
    path = tmp_path / "r38.toml"
    path.write_text(derive_profile(meas, "r38")["text"])
    prof = Profile.load(path)
    x0 = prof.get("calibration", "witness_beside_pool")
    assert x0 == pytest.approx(beside["slowdown"], abs=1e-4)
    assert 2.0 < x0 < 3.0  # 144 ms alone, 353 ms beside four calls back to back
    # at the profile's own work (1) the W=0 part is a small share of the step: a few per cent
    s = prof["synth"]
    witness = s["witness_fraction"] * s["work_core_s"]
    at_zero = (prof.get("calibration", "witness_fraction_at_other") * s["work_core_s"]
               * prof.get("calibration", "synth_ratio_at_other"))
    assert s["witness_pool_slowdown"] == pytest.approx(
        1 + (x0 - 1) * at_zero / witness, abs=1e-4)
    assert 1.0 < s["witness_pool_slowdown"] < 1.2
    line = next(x for x in path.read_text().splitlines()
                if x.startswith("witness_pool_slowdown ="))
    assert "# fit:" in line and "W=0 syntheses ran beside" in line
    # a calibration from before the step timed the witness beside the pool has neither
    old = tmp_path / "r35.toml"
    old.write_text(derive_profile(_measurements("h100-r35"), "r35")["text"])
    assert "witness_pool_slowdown" not in old.read_text()
    assert "witness_beside_pool" not in old.read_text()


def test_with_the_step_timed_at_its_own_work_too_the_rest_slows_as_timed(tmp_path):
    meas = _measurements("h100-r38")
    beside = meas["matvec_pool"]["witness"]
    meas["matvec_pool"]["witness_at_work"] = {"witness_work": 1.0, "alone_s": 2.7,
                                              "beside_s": 2.7 * 1.45, "slowdown": 1.45}
    path = tmp_path / "r38w.toml"
    path.write_text(derive_profile(meas, "r38w")["text"])
    prof = Profile.load(path)
    xw = prof.get("calibration", "witness_work_beside_pool")
    assert xw == work_part_slowdown(beside["slowdown"], beside["alone_s"], 1.45, 2.7)
    s = prof["synth"]
    witness = s["witness_fraction"] * s["work_core_s"]
    at_zero = (prof.get("calibration", "witness_fraction_at_other") * s["work_core_s"]
               * prof.get("calibration", "synth_ratio_at_other"))
    assert s["witness_pool_slowdown"] == pytest.approx(
        parts_slowdown(beside["slowdown"], xw, at_zero, witness), abs=2e-4)
    assert 1.4 < s["witness_pool_slowdown"] < 1.5
    line = next(x for x in path.read_text().splitlines()
                if x.startswith("witness_pool_slowdown ="))
    assert f"the rest x{xw:.2f}, from the step at witness work 1 so" in line
    # at witness work 0.25 the W=0 part weighs more: between the two
    at = profile_at_witness_work(prof, 0.25)["synth"]["witness_pool_slowdown"]
    assert s["witness_pool_slowdown"] < at < beside["slowdown"]


def test_a_runs_witness_work_moves_it_on_the_witness_steps_line(tmp_path):
    path = tmp_path / "r38.toml"
    path.write_text(derive_profile(_measurements("h100-r38"), "r38")["text"])
    prof = Profile.load(path)
    x0 = prof.get("calibration", "witness_beside_pool")
    at = {w: profile_at_witness_work(prof, w)["synth"]["witness_pool_slowdown"]
          for w in (0.0, 0.25, 1.0)}
    # at witness work 0 the whole step is the measured one; more work, less of it slows
    assert at[0.0] == pytest.approx(x0, abs=1e-4)
    assert at[0.0] > at[0.25] > at[1.0] > 1.0
    assert at[1.0] == prof["synth"]["witness_pool_slowdown"]
    assert witness_pool_slowdown_at(prof, 0.25) == at[0.25]
    # a profile that records no such timing has no slowdown at any work
    bare = Profile.load("porep-live-h200")
    assert witness_pool_slowdown_at(bare, 0.0) is None
    assert "witness_pool_slowdown" not in profile_at_witness_work(bare, 0.0)["synth"]


CFG = PipelineConfig(proofs=2, concurrency=2, partitions=4, partition_workers=4,
                     gpu_workers_per_device=1, gpu_threads=16, lock="interlock", seed=0)


def _later_witness(trace):
    """The mean witness step of the syntheses that started after the first wave."""
    steps = {(p, k): w for p, k, w, _ in trace.meta["synth_steps"]}
    syn = trace.spans[trace.spans["stage"] == "synth"]
    later = syn[syn["start"] > syn["start"].min() + 1e-9]
    assert len(later) > 0
    return sum(steps[(r.proof, r.partition)] for r in later.itertuples()) / len(later)


def test_in_a_run_the_later_syntheses_beside_the_b_g2_msm_calls_run_slower():
    prof = Profile.load("porep-live-2p20-h200")
    assert prof["synth"].get("matvec_pool")  # the two steps: the witness is a job of its own
    plain = simulate(CFG, prof)
    slow = simulate(CFG, prof.replace(synth={"witness_pool_slowdown": 3.0}))
    first = lambda t: min(w for _, _, w, _ in t.meta["synth_steps"])  # noqa: E731
    # the first wave runs before any b_g2_msm call: as before
    assert first(slow) == pytest.approx(first(plain), rel=1e-6)
    # the second wave's witness steps run beside the first's b_g2_msm calls: slower
    assert _later_witness(slow) > 1.05 * _later_witness(plain)
    assert slow.summary()["seconds_per_proof"] > plain.summary()["seconds_per_proof"]


def test_a_bad_slowdown_is_one_clear_error():
    with pytest.raises(ProfileError, match=r"synth\.witness_pool_slowdown must be a number "
                                           r"in \[1, 100\], got 0\.5"):
        Profile.load("porep-live-2p20-h200").replace(synth={"witness_pool_slowdown": 0.5})
