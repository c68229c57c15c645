"""The GPU region's hold a partition: from the worker lane's spans, on both sides of a row."""

from __future__ import annotations

import json

import pytest

from cuzklab.calibrate.compare import format_table, gpu_hold_s, remodel, row_errors
from cuzklab.trace import TraceBuilder


def test_the_hold_runs_from_the_first_region_span_to_the_last_gaps_included():
    tb = TraceBuilder(source="live")
    # partition 0: h2d, ntt_h, a 5 ms gap (no span), batch_add, tail_msm: held 0.100 s
    for stage, a, b in (("h2d", 1.000, 1.002), ("ntt_h", 1.002, 1.040),
                        ("batch_add", 1.045, 1.070), ("tail_msm", 1.070, 1.100)):
        tb.span(0, 0, stage, "gpu0.w0", a, b, gpu=0)
    # partition 1 on the other worker, with a barrier wait: held 0.060 s
    for stage, a, b in (("h2d", 1.100, 1.101), ("ntt_h", 1.101, 1.120),
                        ("barrier_wait", 1.120, 1.130), ("batch_add", 1.130, 1.150),
                        ("tail_msm", 1.150, 1.160)):
        tb.span(0, 1, stage, "gpu0.w1", a, b, gpu=0)
    # partition 2: held 0.080 s; spans elsewhere do not count (the wait for the mutex,
    # prep_msm on the worker's CPU lane, b_g2_msm on a finalizer)
    tb.span(0, 2, "mutex_wait", "gpu0.w0", 1.100, 1.200, gpu=0)
    tb.span(0, 2, "prep_msm", "gpu0.w0.cpu", 1.100, 1.400)
    tb.span(0, 2, "h2d", "gpu0.w0", 1.200, 1.210, gpu=0)
    tb.span(0, 2, "tail_msm", "gpu0.w0", 1.260, 1.280, gpu=0)
    tb.span(0, 2, "b_g2_msm", "final.0", 1.200, 2.000)
    assert gpu_hold_s(tb.build()) == pytest.approx(0.080)
    assert gpu_hold_s(TraceBuilder(source="live").build()) is None


def test_each_side_carries_its_hold_and_the_row_its_error(capsys):
    err = row_errors({"seconds_per_proof": 1.0, "proof_latency_s_mean": 2.0,
                      "peak_rss_gib": 3.0, "gpu_busy_fraction": 0.2, "stage_s": {},
                      "bottleneck": "gpu", "gpu_hold_s": 0.075},
                     {"seconds_per_proof": 1.0, "proof_latency_s_mean": 2.0,
                      "peak_rss_gib": 3.0, "gpu_busy_fraction": 0.2, "stage_s": {},
                      "bottleneck": "gpu", "gpu_hold_s": 0.1})
    assert err["gpu_hold_s"] == pytest.approx(-0.25)
    # a stored comparison judged again: the model's hold is simulated, the live one kept
    # where it was measured (this file predates it: no live hold, no error)
    stored = json.load(open("benchmarks/results/compare-live-h200-r17-samehost-gw2.json"))
    res = remodel(stored, "porep-live-h200")
    for r in res["rows"]:
        assert 0.02 < r["model"]["gpu_hold_s"] < 0.2
        assert r["live"].get("gpu_hold_s") is None and r["error"]["gpu_hold_s"] is None
    text = format_table(res)
    assert "hold ms m|l" in text.splitlines()[1]
    assert f"{1000 * res['rows'][0]['model']['gpu_hold_s']:.0f}|—" in text


def test_the_pools_pace_is_the_gap_between_calls_ending_with_the_pool_backed_up():
    from cuzklab.calibrate.compare import pool_interval_s
    tb = TraceBuilder(source="live")
    for k, (a, b) in enumerate(((0.0, 1.0), (0.1, 1.2), (0.2, 1.45), (1.5, 2.0))):
        tb.span(0, k, "b_g2_msm", f"final.{k}", a, b)
    # 1.0 -> 1.2 and 1.2 -> 1.45 with the next call waiting (the lower median of the two);
    # 1.45 -> 2.0 with the pool idle does not count
    assert pool_interval_s(tb.build()) == pytest.approx(0.2)
    one = TraceBuilder(source="live")
    one.span(0, 0, "b_g2_msm", "final.0", 0.0, 1.0)
    assert pool_interval_s(one.build()) is None


def test_the_gap_is_attributed_by_simulating_each_stage_at_its_live_time():
    from cuzklab.calibrate.compare import attribute_gap, attribution_text
    stored = json.load(open("benchmarks/results/compare-live-h200-r17-samehost-gw2.json"))
    res = remodel(stored, "porep-live-h200")
    row = res["rows"][5]   # split_async gw=2 pw=12 W=0: bound by the b_g2_msm pool
    m = row["model"]
    row["live"] = dict(row["live"], stage_s=dict(m["stage_s"]),
                       pool_interval_s=1.4 * m["pool_interval_s"],
                       seconds_per_proof=1.3 * m["seconds_per_proof"])
    row["live"]["stage_s"]["epilogue"] = 3 * m["stage_s"]["epilogue"]
    att = attribute_gap(row, "porep-live-h200")
    # only the stages that differ are tried; the pool's pace closes the most of the gap
    assert {a["stage"] for a in att} == {"b_g2_msm", "epilogue"}
    assert att[0]["stage"] == "b_g2_msm" and att[0]["live_over_model"] == pytest.approx(1.4)
    assert att[0]["closes"] > 0.5 and att[0]["seconds_per_proof"] > m["seconds_per_proof"]
    assert abs(att[1]["closes"]) < att[0]["closes"]
    assert attribution_text(att, 1).startswith("b_g2_msm at its live pace (x1.40) closes")
    assert att[0]["by"] == "pace" and att[1]["by"] == "mean"
    # no gap: nothing to close
    row["live"]["seconds_per_proof"] = m["seconds_per_proof"]
    assert all(a["closes"] is None for a in attribute_gap(row, "porep-live-h200"))
    assert attribution_text([{"stage": "x", "live_over_model": 1.0, "closes": None}]) == ""
    # a live time that puts a profile value outside its range (an h2d upload 1000x slower
    # than the model's, as a busy 2-core machine can time at 2^4) is reported as skipped,
    # not raised: the other stages are still attributed
    row["live"]["seconds_per_proof"] = 1.3 * m["seconds_per_proof"]
    row["live"]["stage_s"]["h2d"] = 1e4 * m["stage_s"]["h2d"]
    att = attribute_gap(row, "porep-live-h200")
    h2d = next(a for a in att if a["stage"] == "h2d")
    assert h2d["closes"] is None and "abc_upload_gbps" in h2d["skipped"]
    assert att[0]["stage"] == "b_g2_msm" and "h2d" not in attribution_text(att)


def test_a_stored_comparison_reads_its_live_figures_from_its_saved_traces(capsys, tmp_path):
    # the same-host rows were stored before the GPU hold and the pool's pace; their saved
    # live traces give both (each row from its median run's trace), and so the attribution
    from cuzklab.calibrate.compare import live_diagnostics, trace_name
    from cuzklab.cli import main
    folder = "benchmarks/results/traces-live-h200-r17-samehost-gw2"
    stored = json.load(open("benchmarks/results/compare-live-h200-r17-samehost-gw2.json"))
    res = remodel(stored, "porep-live-h200", live_traces=folder)
    for r in res["rows"]:
        assert 0.05 < r["live"]["gpu_hold_s"] < 0.2 and 0.1 < r["live"]["pool_interval_s"] < 0.3
        assert r["error"]["gpu_hold_s"] is not None
    row = stored["rows"][5]    # split_async gw=2 pw=12 W=0: its median run is the first pass
    assert trace_name(row["config"], 0.0, "live", 1) == "split_async-gw2-pw12-w0-live-p1.parquet"
    assert live_diagnostics(row, folder)["pool_interval_s"] == pytest.approx(0.1585, abs=5e-4)
    assert live_diagnostics(row, tmp_path) == {}
    assert res["verdict"]["worst"]["attribution"]
    out = tmp_path / "r.json"
    assert main(["compare", "--profile", "porep-live-h200", "--measured",
                 "benchmarks/results/compare-live-h200-r17-samehost-gw2.json",
                 "--live-traces", folder, "--json", str(out)]) == 0
    assert "of its s/proof gap, simulated again" in capsys.readouterr().out
    assert json.loads(out.read_text())["rows"][5]["live"]["gpu_hold_s"] > 0
    # the page says it under the table
    from cuzklab.plots.model_vs_live import compare_html
    for r in res["rows"]:
        r["config"].update(proofs=3, partitions=4)
    compare_html(res, tmp_path / "c.html", timelines=False)
    assert "Worst row, " in (tmp_path / "c.html").read_text()


def test_the_passes_s_per_proof_is_set_beside_their_pools_pace():
    from cuzklab.calibrate.compare import merge_repeats, pace_tracking

    def run(spp, pace):
        return {"config": {"lock": "interlock"}, "witness_work": 1.0, "fitted": False,
                "model": {"seconds_per_proof": 1.0},
                "live": {"seconds_per_proof": spp, "peak_rss_gib": 1.0, "bottleneck": "gpu",
                         "failed": False, "pool_interval_s": pace},
                "error": {"seconds_per_proof": 0.0}}
    # two rows whose passes slow exactly with their pool (s/proof ~ pace^0.5)
    a = merge_repeats([run(1.0, 0.10), run(1.2 ** 0.5, 0.12), run(1.5 ** 0.5, 0.15)])
    b = merge_repeats([run(2.0, 0.20), run(2.0 * 1.3 ** 0.5, 0.26)])
    assert [r["pool_interval_s"] for r in a["live"]["repeats"]] == [0.10, 0.12, 0.15]
    pt = pace_tracking([a, b])
    assert pt["rows"] == 2 and pt["passes"] == 5
    assert pt["r"] == pytest.approx(1.0) and pt["slope"] == pytest.approx(0.5)
    assert pt["pace_spread"] == pytest.approx(0.5)
    # one row only, or passes without a pace: nothing to say
    assert pace_tracking([a]) is None
    c = merge_repeats([run(1.0, None), run(1.1, None)])
    assert pace_tracking([a, c]) is None


def test_a_stored_comparisons_passes_get_their_pace_from_the_saved_traces():
    # the twenty-fourth and twenty-fifth H200 jobs: every pass's trace kept; the passes'
    # s/proof follows their pool's pace (docs/calibrate.md)
    from cuzklab.calibrate.compare import format_table, pace_tracking, pass_paces
    rows = []
    for name, folder in (("r17-samehost-gw2", "r17-samehost-gw2"),
                         ("r18-samehost-split-gw1", "r18-samehost-split-gw1")):
        stored = json.load(open(f"benchmarks/results/compare-live-h200-{name}.json"))
        traces = f"benchmarks/results/traces-live-h200-{folder}"
        res = remodel(stored, "porep-live-h200", live_traces=traces)
        for r in res["rows"]:
            assert all(0.1 < rep["pool_interval_s"] < 0.3 for rep in r["live"]["repeats"])
        assert "s/proof follows the b_g2_msm pool's pace" in format_table(res)
        rows += res["rows"]
        assert pass_paces(stored["rows"][0], "no-such-folder") == [None, None, None]
    pt = pace_tracking(rows)
    assert pt["rows"] == 9 and pt["passes"] == 27
    assert pt["r"] == pytest.approx(0.826, abs=0.001) and pt["pace_spread"] == pytest.approx(0.511, abs=0.001)


def test_the_compare_page_says_how_the_passes_followed_their_pool(tmp_path):
    from cuzklab.plots.model_vs_live import compare_html
    stored = json.load(open("benchmarks/results/compare-live-h200-r17-samehost-gw2.json"))
    res = remodel(stored, "porep-live-h200",
                  live_traces="benchmarks/results/traces-live-h200-r17-samehost-gw2")
    for r in res["rows"]:
        r["config"].update(proofs=3, partitions=4)
    compare_html(res, tmp_path / "c.html", timelines=False)
    assert "Pass by pass, s/proof follows the b_g2_msm pool&#x27;s pace" in (tmp_path / "c.html").read_text()


def test_a_row_run_once_beside_repeated_rows_finds_its_trace_saved_as_its_first_pass(tmp_path):
    # the thirtieth job's split_async gw=1 pw=8 and pw=12 rows ran one pass of two; their
    # traces were saved as -p1 like the repeated rows' first passes
    from cuzklab.calibrate.compare import live_diagnostics
    from cuzklab.plots.model_vs_live import compare_html
    folder = "benchmarks/results/traces-live-h200-r23-samehost-tracked-gw1"
    stored = json.load(open("benchmarks/results/compare-live-h200-r23-samehost-tracked-gw1.json"))
    once = [r for r in stored["rows"] if not r["live"].get("repeats")]
    assert len(once) == 2
    for row in once:
        assert 0.05 < live_diagnostics(row, folder)["gpu_hold_s"] < 0.3
    res = remodel(stored, "porep-live-h200", live_traces=folder, keep_traces=True)
    assert all(r["traces"]["live"] is not None for r in res["rows"])
    assert all(r["live"]["gpu_hold_s"] for r in res["rows"])
    compare_html(res, tmp_path / "c.html")
    assert (tmp_path / "c.html").read_text().count("plotly-graph-div") == len(res["rows"])


def test_a_workers_cycle_is_the_gap_between_its_prep_msm_starts():
    from cuzklab.calibrate.compare import worker_cycle_s
    tb = TraceBuilder(source="live")
    # worker 0 takes a partition at 0.0, 0.3 and 0.5; worker 1 at 0.1 and 0.5: gaps 0.3, 0.2
    # and 0.4, each on its own lane (never across workers); the lower median is 0.3
    for k, (lane, a) in enumerate((("gpu0.w0.cpu", 0.0), ("gpu0.w1.cpu", 0.1),
                                   ("gpu0.w0.cpu", 0.3), ("gpu0.w0.cpu", 0.5),
                                   ("gpu0.w1.cpu", 0.5))):
        tb.span(0, k, "prep_msm", lane, a, a + 0.02)
    # prep_msm elsewhere (a monolithic run's worker lane) and other stages do not count
    tb.span(1, 0, "prep_msm", "gpu0.w0", 0.05, 0.06)
    tb.span(1, 1, "b_g2_msm", "gpu0.w0.cpu", 0.2, 0.3)
    assert worker_cycle_s(tb.build()) == pytest.approx(0.3)
    one = TraceBuilder(source="live")
    one.span(0, 0, "prep_msm", "gpu0.w0.cpu", 0.0, 0.01)
    one.span(0, 1, "prep_msm", "gpu0.w0.cpu", 0.2, 0.21)
    assert worker_cycle_s(one.build()) is None  # one gap


def test_compare_names_the_rows_whose_workers_turn_apart():
    from cuzklab.calibrate.compare import worker_cycle_text
    base = {"seconds_per_proof": 1.0, "proof_latency_s_mean": 2.0, "peak_rss_gib": 3.0,
            "gpu_busy_fraction": 0.2, "bottleneck": "cpu_pool"}
    model = dict(base, stage_s={"prep_msm": 0.02}, worker_cycle_s=0.05)
    live = dict(base, stage_s={"prep_msm": 0.04}, worker_cycle_s=0.08)
    err = row_errors(model, live)
    assert err["worker_cycle_s"] == pytest.approx(0.05 / 0.08 - 1)
    cfg = {"lock": "split_async", "gpu_workers_per_device": 1, "partition_workers": 12}
    row = {"config": cfg, "witness_work": 0.0, "model": model, "live": live, "error": err}
    close = dict(row, error=dict(err, worker_cycle_s=0.05))
    lines = worker_cycle_text({"rows": [row, close]})
    assert len(lines) == 2 and lines[0].startswith("the GPU worker's cycle")
    assert "50|80 ms (-38%); prep_msm 20|40 ms" in lines[1]
    assert worker_cycle_text({"rows": [close]}) == []
    # a stored row without the figure on either side has no error and no line
    assert row_errors(dict(base, stage_s={}), dict(base, stage_s={}))["worker_cycle_s"] is None


def test_stored_rows_get_their_workers_cycle_from_the_saved_traces():
    from pathlib import Path

    from cuzklab.calibrate.compare import _with_saved_figures
    res = json.load(open("benchmarks/results/compare-live-h100-r35-samehost-repaced.json"))
    folder = Path("benchmarks/results/traces-live-h100-r35-samehost-repaced")
    cycles = {(r["config"]["lock"], r["config"]["gpu_workers_per_device"],
               r["config"]["partition_workers"]): _with_saved_figures(r, folder)["worker_cycle_s"]
              for r in res["rows"]}
    # the fifty-third job: a worker of split_async gw=1 turned every ~70-80 ms, of interlock
    # gw=1 every ~120-190 ms (its b_g2_msm and epilogue in the cycle)
    assert all(0.06 < cycles[("split_async", 1, pw)] < 0.09 for pw in (4, 8, 12))
    assert all(0.11 < cycles[("interlock", 1, pw)] < 0.2 for pw in (4, 8, 12))
