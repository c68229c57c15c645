"""Syntheses started together end apart: their witness steps (synth.witness_spread), and
their MatVecs on the shared pool (synth.matvec_queue from the at-once waves' end spans)."""

import json
import math
import statistics
from pathlib import Path

import pytest

from cuzklab.calibrate.compare import profile_at_witness_work, synth_steps_s
from cuzklab.calibrate.live import derive_profile, witness_spread
from cuzklab.errors import ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def test_the_spread_is_taken_over_each_waves_median():
    rows = [{"syntheses": 1, "witness_s": [1.0, 5.0]},          # one at a time: no wave
            {"syntheses": 2, "witness_s": [1.0, 1.21, 4.0, 4.0]},  # two waves of two
            {"syntheses": 3, "witness_s": [2.0, 2.0, 2.0]}]
    # wave medians 1.105 and 4.0: a slow second wave adds nothing, only the first's gap
    logs = [math.log(1.0 / 1.105), math.log(1.21 / 1.105), 0.0, 0.0, 0.0, 0.0, 0.0]
    out = witness_spread(rows)
    assert out["steps"] == 7
    assert out["spread"] == pytest.approx(math.sqrt(sum(x * x for x in logs) / 7), abs=1e-4)
    # rows that did not keep each synthesis's witness step, or only one at a time: none
    assert witness_spread([{"syntheses": 4, "mean_s": 1.0}]) is None
    assert witness_spread([{"syntheses": 1, "witness_s": [1.0, 2.0]}]) is None
    assert witness_spread(None) is None


def _measurements(name):
    return json.loads((RESULTS / f"calibrate-live-{name}.json").read_text())["measurements"]


def test_a_calibration_that_kept_the_witness_steps_writes_their_spread(tmp_path):
    meas = _measurements("h100-r36")
    curve = meas["cores_curve"]
    path = tmp_path / "r36.toml"
    path.write_text(derive_profile(meas, "r36")["text"])
    prof = Profile.load(path)
    assert prof["synth"]["witness_spread"] == witness_spread(curve["rows"])["spread"]
    assert prof.get("calibration", "witness_spread_at_other") == pytest.approx(
        witness_spread(curve["at_other"]["rows"])["spread"])
    # the W=1 steps of 2 to 16 at once spread a few per cent, the short W=0 ones far more
    assert 0.01 < prof["synth"]["witness_spread"] < 0.1
    assert prof.get("calibration", "witness_spread_at_other") > 0.1
    line = next(x for x in path.read_text().splitlines() if x.startswith("witness_spread ="))
    assert "# measured:" in line and "30 steps" in line
    # a calibration from before the curve kept each synthesis's steps has neither
    old = tmp_path / "r34.toml"
    old.write_text(derive_profile(_measurements("h200-r34"), "r34")["text"])
    assert "witness_spread" not in old.read_text()


def test_the_spread_moves_on_the_line_through_the_two_works():
    prof = Profile.load("porep-live-h200").replace(synth={"witness_spread": 0.05})
    two = prof.replace(calibration={"synth_ratio_at_other": 0.2, "other_work": 0.0,
                                    "witness_spread_at_other": 0.25})
    assert profile_at_witness_work(two, 0.0)["synth"]["witness_spread"] == pytest.approx(0.25)
    assert profile_at_witness_work(two, 0.5)["synth"]["witness_spread"] == pytest.approx(0.15)
    assert profile_at_witness_work(two, 1.0)["synth"]["witness_spread"] == 0.05
    # past the measured works the line is clipped at no spread
    assert profile_at_witness_work(two, 3.0)["synth"]["witness_spread"] == 0.0
    # without the spread at the other work, a run there keeps the measured one
    one = prof.replace(calibration={"synth_ratio_at_other": 0.2, "other_work": 0.0})
    assert profile_at_witness_work(one, 0.0)["synth"]["witness_spread"] == 0.05


def _run(prof, seed=0):
    # four syntheses start together on a node of 16 cores and share the MatVec pool
    cfg = PipelineConfig(proofs=2, concurrency=2, partitions=4, partition_workers=4,
                         gpu_threads=16, memory_gib=754.0, seed=seed)
    return simulate(cfg, prof)


def test_syntheses_started_together_reach_the_matvec_pool_apart():
    base = Profile.load("porep-live-h200")
    assert "witness_spread" not in base["synth"]
    same = _run(base).meta["synth_steps"]
    first = [r[2] for r in same[:4]]
    assert max(first) == pytest.approx(min(first))  # no spread: the four end together
    spread = base.replace(synth={"witness_spread": 0.1})
    trace = _run(spread)
    steps = trace.meta["synth_steps"]
    first = sorted(r[2] for r in steps[:4])
    assert first[-1] > 1.05 * first[0]
    # their logs spread about as the profile says (eight witness steps: loosely)
    logs = [math.log(r[2]) for r in steps]
    mean = sum(logs) / len(logs)
    assert 0.03 < math.sqrt(sum((x - mean) ** 2 for x in logs) / len(logs)) < 0.3
    # apart, the MatVecs share the pool less: each is shorter than all four at once
    assert synth_steps_s(trace)["matvec"] < 0.8 * synth_steps_s(_run(base))["matvec"]
    # the run's seed draws them: the same seed, the same run
    assert _run(spread).meta["synth_steps"] == steps
    assert _run(spread, seed=1).meta["synth_steps"] != steps


@pytest.mark.parametrize("bad", [-0.1, 2.5, "0.1"])
def test_the_spread_is_checked(bad):
    with pytest.raises(ProfileError, match="witness_spread"):
        Profile.load("porep-live-h200").replace(synth={"witness_spread": bad})


def test_the_calibration_summary_says_how_far_apart_they_end():
    from cuzklab.calibrate.commands import witness_spread_text
    curve = _measurements("h100-r36")["cores_curve"]
    text = witness_spread_text(curve)
    here = witness_spread(curve["rows"])["spread"]
    there = witness_spread(curve["at_other"]["rows"])["spread"]
    assert text == (f"the witness steps of syntheses started together end apart: rms log "
                    f"{here:.3f} over their waves' medians, {there:.3f} at witness work 0 "
                    "(synth.witness_spread)")
    assert witness_spread_text({"rows": [{"syntheses": 2, "mean_s": 1.0}]}) == ""
    assert witness_spread_text(None) == ""


def _waves_measurement(truth: str, *, start_gap: float = 0.0):
    """What measure_matvecs reports of a pool that serves MatVecs as ``truth`` says: the
    mean seconds and, for each count, one wave with each MatVec's start and end."""
    from cuzklab.calibrate.contention import matvec_times
    threads, counts = [1, 2, 4, 8, 16], [1, 2, 4, 8, 12]
    t = matvec_times(cores=16, threads=threads, counts=counts, pool_threads=16,
                     serial=0.05, fifo=truth == "fifo")
    one, alone = 0.4, 0.4 * t["scaling"][-1]
    at_once = []
    for k, mean, span in zip(counts, t["at_once"], t["at_once_span"]):
        starts = [i * start_gap * alone for i in range(k)]
        # the span of the ends beyond that of the starts is the pool's own
        ends = [s + one * mean for s in starts[:-1]] + [starts[-1] + one * mean + one * span]
        at_once.append({"matvecs": k, "mean_s": one * mean,
                        "waves": [{"witness_s": starts, "ends_s": ends}]})
    return {"pool_threads": 16, "one_thread_s": one, "alone_on_pool_s": alone,
            "scaling": [{"threads": n, "matvec_s": one * x} for n, x in zip(threads, t["scaling"])],
            "at_once": at_once}, t


def test_the_waves_end_spans_are_taken_less_their_starts():
    from cuzklab.calibrate.contention import wave_spans
    meas, t = _waves_measurement("fifo", start_gap=0.5)
    spans = dict(wave_spans(meas))
    assert sorted(spans) == [2, 4, 8, 12]  # one alone has no span
    for k, span in zip([1, 2, 4, 8, 12], t["at_once_span"]):
        if k > 1:
            assert spans[k] == pytest.approx(span / t["scaling"][-1], rel=1e-6)
    # one after another, k MatVecs end (k - 1) pool shares apart; all at once together
    shared = dict(wave_spans(_waves_measurement("shared")[0]))
    assert all(x < 1e-6 for x in shared.values()) and spans[12] > 5 * spans[2] > 0
    # waves that kept no times give nothing (older calibrations)
    assert wave_spans({"alone_on_pool_s": 0.05, "at_once": [{"matvecs": 4, "mean_s": 0.1}]}) == []


@pytest.mark.parametrize("truth", ["shared", "fifo"])
def test_the_matvec_queue_is_the_discipline_the_waves_ends_show(truth):
    from cuzklab.calibrate.contention import fit_matvec_queue
    from cuzklab.calibrate.live import _queue_note
    meas, _ = _waves_measurement(truth, start_gap=0.3)
    other = "fifo" if truth == "shared" else "shared"
    # the mean seconds alone would say the other: the ends decide where they were kept
    swapped, _ = _waves_measurement(other)
    meas["at_once"] = [dict(r, mean_s=s["mean_s"]) for r, s in zip(meas["at_once"],
                                                                   swapped["at_once"])]
    queue, fits = fit_matvec_queue(meas, cores=16, ws_gib=0.0, llc_gib=0.0)
    assert queue == truth
    assert fits[truth]["span_error"] < 1e-6 < fits[other]["span_error"]
    assert fits[truth]["at_once_rms_log_error"] > fits[other]["at_once_rms_log_error"]
    note = _queue_note(fits)
    assert "end as far apart as the measured waves' did" in note
    # without the waves' times the mean seconds choose, as before
    for r in meas["at_once"]:
        r.pop("waves")
    assert fit_matvec_queue(meas, cores=16, ws_gib=0.0, llc_gib=0.0)[0] == other
    assert "k-at-once curve is nearer" in _queue_note(
        fit_matvec_queue(meas, cores=16, ws_gib=0.0, llc_gib=0.0)[1])


def test_the_split_of_a_synthesis_alone_at_the_other_work_is_kept_and_used(tmp_path):
    from cuzklab.calibrate.live import alone_split
    meas = _measurements("h100-r37")
    rows = meas["cores_curve"]["at_other"]["rows"]
    got = alone_split(rows)
    one = next(r for r in rows if r["syntheses"] == 1)
    w, m = statistics.median(one["witness_s"]), statistics.median(one["matvec_s"])
    assert got["fraction"] == pytest.approx(w / (w + m), abs=1e-4)
    # at witness work 0 the witness step is a small share: the MatVec is most of it
    assert 0.05 < got["fraction"] < 0.4
    path = tmp_path / "r37.toml"
    path.write_text(derive_profile(meas, "r37")["text"])
    prof = Profile.load(path)
    assert prof.get("calibration", "witness_fraction_at_other") == got["fraction"]
    # no k = 1 row with its steps (calibrations before they were kept): none
    assert alone_split([{"syntheses": 1, "durations_s": [0.4]}]) is None
    assert alone_split([]) is None
    assert "witness_fraction_at_other" not in derive_profile(_measurements("h200-r34"),
                                                             "r34")["text"]


def test_the_witness_step_moves_on_the_line_through_its_seconds_at_the_two_works():
    prof = Profile.load("porep-live-h200")
    work, frac = prof["synth"]["work_core_s"], prof["synth"]["witness_fraction"]
    cal = {"synth_ratio_at_other": 0.1, "other_work": 0.0}
    two = prof.replace(calibration={**cal, "witness_fraction_at_other": 0.25})

    def witness(p, w):
        s = profile_at_witness_work(p, w)["synth"]
        return s["work_core_s"], s["work_core_s"] * s["witness_fraction"]
    # at the other work: that share of the whole synthesis there (0.1 of the work)
    whole, wit = witness(two, 0.0)
    assert whole == pytest.approx(0.1 * work)
    assert wit == pytest.approx(0.25 * 0.1 * work, rel=1e-3)
    # half way: half way between the witness's seconds at the two works
    whole, wit = witness(two, 0.5)
    assert whole == pytest.approx(0.55 * work)
    assert wit == pytest.approx(0.5 * (frac * work + 0.025 * work), rel=1e-3)
    # without it the MatVec keeps its seconds at the calibration's work: here more than
    # the whole synthesis at work 0, so its witness step is nothing
    one = prof.replace(calibration=cal)
    assert (1 - frac) * work > 0.1 * work
    assert witness(one, 0.0)[1] == 0.0
    # the calibration's own work is the profile itself
    assert profile_at_witness_work(two, 1.0) is not None
    assert witness(two, 1.0)[1] == pytest.approx(frac * work)
