"""A synthesis's two steps (the witness, then the MatVec) on both sides of a row."""

from __future__ import annotations

import pytest

from cuzklab.calibrate.compare import (attribute_gap, format_table, row_errors,
                                       synth_steps_s, synth_steps_text,
                                       synth_waves_text)
from cuzklab.live import run
from cuzklab.model import PipelineConfig, Profile
from cuzklab.plots.model_vs_live import compare_table_html
from cuzklab.sim import simulate
from cuzklab.trace import TraceBuilder

#: a profile of calibrate --live's shape: a two-step synthesis on a shared MatVec pool
TWO_STEP = {"synth": {"matvec_pool": "rayon", "witness_fraction": 0.8, "matvec_serial": 0.0}}


#: two proofs of two partitions on two synthesis slots, one GPU worker
BASE = PipelineConfig(proofs=2, concurrency=2, partitions=2, partition_workers=2,
                      gpu_workers_per_device=1, gpu_threads=2, synthesis_threads=2,
                      lock="interlock", seed=1)


def _cfg(**kw) -> PipelineConfig:
    return BASE.replace(**kw)


def _synth_spans(trace):
    s = trace.spans[trace.spans["stage"] == "synth"]
    return {(int(r.proof), int(r.partition)): r.end - r.start for r in s.itertuples()}


def test_a_live_run_records_both_steps_of_every_synthesis_inside_its_span(tmp_path):
    trace = run(_cfg(), log2_constraints=4, backend="cpu", verify=False, progress=False,
                slow={"synth": 0.05})
    steps = trace.meta["synth_steps"]
    spans = _synth_spans(trace)
    assert sorted((p, k) for p, k, *_ in steps) == sorted(spans)
    for p, k, witness, matvec, cpu, faults, preempted, waited in steps:
        assert witness > 0 and matvec > 0
        # the span also holds the slowed start (0.05 s) that neither step counts
        assert witness + matvec <= spans[(p, k)] - 0.05 + 1e-3
        # the thread that ran it: its CPU seconds fit in its wall time (the sleep is not CPU);
        # its page faults and switches are counts
        assert 0 < cpu <= witness + matvec + 2e-3
        assert isinstance(faults, int) and faults >= 0
        assert isinstance(preempted, int) and preempted >= 0
        assert isinstance(waited, int) and waited >= 0
    means = synth_steps_s(trace)
    assert means["witness"] == pytest.approx(sum(s[2] for s in steps) / len(steps), abs=1e-6)
    assert means["thread_cpu"] == pytest.approx(sum(s[4] for s in steps) / len(steps), abs=1e-6)
    assert means["page_faults"] == pytest.approx(sum(s[5] for s in steps) / len(steps), abs=0.06)
    # the steps travel with the saved trace
    from cuzklab.trace import load
    trace.save(tmp_path / "t.parquet")
    assert load(tmp_path / "t.parquet").meta["synth_steps"] == steps


def test_the_model_splits_a_two_step_synthesis_at_its_witness_end():
    prof = Profile.load("porep-live-2p20-h200").replace(**TWO_STEP)
    solo = simulate(_cfg(proofs=1, concurrency=1, partitions=1, partition_workers=1), prof)
    (p, k, witness, matvec), = solo.meta["synth_steps"]
    work = prof["synth"]["work_core_s"]
    # alone on the host: the witness is its one-thread share, the MatVec the rest on its pool
    assert witness == pytest.approx(0.8 * work, rel=1e-3)
    assert witness + matvec == pytest.approx(_synth_spans(solo)[(0, 0)], abs=1e-6)
    assert matvec < 0.2 * work
    # cuzk's profiles split theirs too (the MatVec's start is an event of its own there)
    cuzk = simulate(_cfg(proofs=1, concurrency=1, partitions=2), "porep-32g")
    assert len(cuzk.meta["synth_steps"]) == 2
    assert all(w > m > 0 for _, _, w, m in cuzk.meta["synth_steps"])


def test_each_side_carries_its_steps_and_the_row_their_errors():
    base = {"seconds_per_proof": 1.0, "proof_latency_s_mean": 2.0, "peak_rss_gib": 3.0,
            "gpu_busy_fraction": 0.2, "stage_s": {}, "bottleneck": "synthesis"}
    m = {**base, "synth_steps_s": {"witness": 0.06, "matvec": 0.2}}
    lv = {**base, "synth_steps_s": {"witness": 0.08, "matvec": 0.21, "thread_cpu": 0.07,
                                    "page_faults": 8200.0, "preempted": 3.5}}
    err = row_errors(m, lv)["synth_steps_s"]
    assert err == {"witness": pytest.approx(-0.25), "matvec": pytest.approx(-0.0476, abs=1e-4)}
    assert row_errors(m, base)["synth_steps_s"] is None  # a side without them: no error
    # when the syntheses end: the first, the last, the run
    ends = row_errors({**m, "synth_ends_s": {"first": 0.1, "last": 0.6, "end": 2.0}},
                      {**lv, "synth_ends_s": {"first": 0.2, "last": 0.75, "end": 2.0}})
    assert ends["synth_ends_s"] == {"first": -0.5, "last": -0.2, "end": 0.0}
    row = {"config": _cfg().to_dict(), "witness_work": 0.0, "fitted": False,
           "model": m, "live": lv, "error": row_errors(m, lv)}
    lines = synth_steps_text({"rows": [row]})
    assert lines[0].startswith("synthesis steps more than 10 % apart, mean ms model|live")
    assert lines[1] == ("  lock=interlock gw=1 pw=2: witness 60|80 (-25%), MatVec 200|210 (-5%); "
                        "the synthesizing thread's CPU 70 ms, 8200 page faults, switched out "
                        "4 times")
    # within 10 % in both steps: nothing to say
    near = {**row, "error": row_errors({**m, "synth_steps_s": {"witness": 0.075, "matvec": 0.2}},
                                       lv)}
    assert synth_steps_text({"rows": [near]}) == []
    # the later syntheses over the first wave's: the forty-fourth job's interlock pw=8 row
    waves = row_errors({**m, "synth_waves_s": {"first": 0.849, "later": 0.734,
                                               "later_over_first": 0.8645}},
                       {**lv, "synth_waves_s": {"first": 0.996, "later": 1.092,
                                                "later_over_first": 1.0964}})
    assert waves["synth_waves_s"] == {"first": pytest.approx(-0.1476, abs=1e-4),
                                      "later": pytest.approx(-0.3278, abs=1e-4),
                                      "later_over_first": pytest.approx(-0.2115, abs=1e-4)}
    wrow = {**row, "model": {**m, "synth_waves_s": {"first": 0.849, "later": 0.734,
                                                    "later_over_first": 0.8645}},
            "live": {**lv, "synth_waves_s": {"first": 0.996, "later": 1.092,
                                             "later_over_first": 1.0964}}, "error": waves}
    lines = synth_waves_text({"rows": [wrow]})
    assert lines[0].startswith("a later synthesis over a first-wave one more than 10 % apart, "
                               "model|live")
    assert lines[1] == ("  lock=interlock gw=1 pw=2: x0.86|x1.10 (-21%); first wave 849|996 ms, "
                        "later 734|1092 ms")
    assert synth_waves_text({"rows": [row]}) == []  # no later wave: nothing to say
    page = compare_table_html({"rows": [wrow, row]})
    assert "a later synthesis over a first-wave one, model / live" in page
    assert "<td>×0.86 / ×1.10</td>" in page and "<td>—</td>" in page
    assert "first-wave" not in compare_table_html({"rows": [row]})
    page = compare_table_html({"rows": [row]})
    assert "synthesis steps, mean ms" in page and "witness 60 / 80; MatVec 200 / 210" in page
    assert "synthesis steps" not in compare_table_html({"rows": [{**row, "model": base}]})


def test_the_gap_is_attributed_to_each_step_of_the_synthesis():
    prof = Profile.load("porep-live-2p20-h200").replace(**TWO_STEP)
    cfg = _cfg(proofs=2, partitions=2, partition_workers=2)
    sim = simulate(cfg, prof)
    ms = synth_steps_s(sim)
    summary = sim.summary()
    side = {"seconds_per_proof": summary["seconds_per_proof"], "stage_s": summary["stage_s"],
            "synth_steps_s": ms, "rss_start_gib": None}
    # live: the witness step twice the model's, the MatVec as modelled
    live = {**side, "seconds_per_proof": 1.5 * side["seconds_per_proof"],
            "synth_steps_s": {"witness": 2 * ms["witness"], "matvec": ms["matvec"]}}
    att = attribute_gap({"config": cfg.to_dict(), "model": side, "live": live}, prof)
    by = {a["stage"]: a for a in att}
    assert by["synth witness"]["live_over_model"] == pytest.approx(2.0)
    assert "synth MatVec" not in by  # within 1 %: nothing to attribute
    # a synthesis-bound run: twice the witness lengthens it
    assert by["synth witness"]["seconds_per_proof"] > side["seconds_per_proof"]
    assert by["synth witness"]["closes"] > 0


def test_a_trace_without_steps_has_none():
    tb = TraceBuilder(source="live")
    tb.span(0, 0, "synth", "synth.0", 0.0, 1.0)
    assert synth_steps_s(tb.build()) is None
    # the model's steps: no thread's CPU seconds
    assert synth_steps_s(tb.build(synth_steps=[[0, 0, 0.25, 0.5], [0, 1, 0.75, 0.5]])) == {
        "witness": 0.5, "matvec": 0.5}
    assert "synthesis steps" not in format_table({
        "profile": "p", "device": "d", "log2_constraints": 4, "rows": [],
        "verdict": {"judged": 0, "seconds_per_proof": {"max_abs_error": None, "target": 0.1},
                    "peak_rss_gib": {"max_abs_error": None, "target": 0.15},
                    "same_verdict": {"rows": 0, "of": 0}}})


def test_rows_whose_verdicts_differ_say_why_each_side_gave_its_own():
    import json
    from cuzklab.calibrate.compare import verdicts_text
    res = json.loads(open("benchmarks/results/compare-live-h100-r33-otherhost-repaced.json").read())
    lines = verdicts_text(res)
    assert lines[0] == "verdicts that differ, and why each side gave its own:"
    assert lines[1:] == [
        "  lock=split_async gw=1 pw=8 W=0.25: model cpu_pool: cpu_pool busy 65% of the run; "
        "live synthesis: synthesis busy 63% of the run",
        "  lock=split_async gw=2 pw=8 W=0.25: model cpu_pool: cpu_pool busy 65% of the run; "
        "live synthesis: synthesis busy 64% of the run"]
    assert "verdicts that differ" in format_table(res)
    # every verdict the same: nothing to say
    same = {**res, "rows": [r for r in res["rows"] if r["error"]["same_verdict"]]}
    assert verdicts_text(same) == []
