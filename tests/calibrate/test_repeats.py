"""Repeated live runs of one configuration: the row of median s/proof and the spread of all."""

from __future__ import annotations

import pytest

from cuzklab.calibrate.compare import format_table, merge_repeats, noise, verdict
from cuzklab.errors import ConfigError


def _row(spp: float, rss: float = 3.0, *, model: float = 1.0, lock: str = "interlock",
         failed: bool = False, fitted: bool = False, tag: str = "") -> dict:
    side = {"seconds_per_proof": spp, "peak_rss_gib": rss, "gpu_busy_fraction": 0.2,
            "bottleneck": "cpu_pool", "failed": failed, "stage_s": {"synth": spp / 2, "tag": tag}}
    msd = {"seconds_per_proof": model, "peak_rss_gib": 3.0, "gpu_busy_fraction": 0.2,
           "bottleneck": "cpu_pool", "failed": False, "stage_s": {"synth": model / 2}}
    return {"config": {"lock": lock, "gpu_workers_per_device": 2, "partition_workers": 8},
            "witness_work": 0.25, "fitted": fitted, "model": msd, "live": side,
            "error": {"seconds_per_proof": model / spp - 1, "peak_rss_gib": 3.0 / rss - 1,
                      "same_verdict": True, "stage_s": {"synth": model / spp - 1}}}


def test_the_row_is_the_median_run_with_every_runs_figures():
    runs = [_row(1.2, 3.1, tag="a"), _row(0.9, 2.9, tag="b"), _row(1.0, 3.3, tag="c")]
    row = merge_repeats(runs)
    # the median run's own figures, stage means included (not a mix of runs)
    assert row["live"]["seconds_per_proof"] == 1.0 and row["live"]["stage_s"]["tag"] == "c"
    assert row["error"]["seconds_per_proof"] == pytest.approx(0.0)
    assert [r["seconds_per_proof"] for r in row["live"]["repeats"]] == [1.2, 0.9, 1.0]
    assert row["live"]["spread"]["seconds_per_proof"] == pytest.approx(0.3)
    assert row["live"]["spread"]["peak_rss_gib"] == pytest.approx(0.4 / 3.1)
    assert row["error"]["within_live_range"] is True
    # the inputs are left as they were
    assert "repeats" not in runs[2]["live"] and "within_live_range" not in runs[2]["error"]
    # an even count takes the lower median; a model outside the range says so
    two = merge_repeats([_row(1.4, model=1.0), _row(1.2, model=1.0)])
    assert two["live"]["seconds_per_proof"] == 1.2 and two["error"]["within_live_range"] is False


def test_a_failed_run_counts_in_the_repeats_not_in_the_median():
    row = merge_repeats([_row(5.0, failed=True), _row(1.1), _row(1.0)])
    assert row["live"]["seconds_per_proof"] == 1.0 and not row["live"]["failed"]
    assert [r["failed"] for r in row["live"]["repeats"]] == [True, False, False]
    assert row["live"]["spread"]["seconds_per_proof"] == pytest.approx(0.1)


def test_runs_of_other_configurations_are_refused():
    with pytest.raises(ConfigError, match="runs"):
        merge_repeats([])
    with pytest.raises(ConfigError, match="one configuration"):
        merge_repeats([_row(1.0), _row(1.0, lock="split_async")])


def test_the_verdict_reports_the_live_noise_beside_the_target():
    rows = [merge_repeats([_row(1.0, model=1.05), _row(1.2, model=1.05), _row(1.1, model=1.05)]),
            merge_repeats([_row(2.0, model=1.5), _row(2.1, model=1.5), _row(2.05, model=1.5)]),
            _row(1.0)]
    nz = noise(rows)
    assert nz["rows_with_repeats"] == 2 and nz["repeats"] == 3
    assert nz["median_spread"] == pytest.approx(0.1 / 2.05)  # the lower of two
    assert nz["max_spread"] == pytest.approx(0.2 / 1.1)
    assert nz["model_within_live_range"] == 1
    v = verdict(rows)
    assert v["live_noise"] == nz
    text = format_table({"profile": "p", "device": "d", "log2_constraints": 20, "rows": rows,
                         "verdict": v})
    assert ("live noise: 3 runs of each of 2 rows spread s/proof by 4.9 % (median row) and "
            "18.2 % (widest)") in text
    assert "within the live range on 1 of 2" in text
    # single runs, or repeats only of fitted rows: no noise figure
    assert noise([_row(1.0)]) is None and "live_noise" not in verdict([_row(1.0)])
    fitted = merge_repeats([_row(1.0, fitted=True), _row(1.1, fitted=True)])
    assert noise([fitted]) is None


def test_compare_runs_each_row_pass_after_pass(tmp_path):
    # CPU stand-ins at a tiny size: two rows, three passes; each row is its median run,
    # with three runs recorded, and the progress counts every run
    from cuzklab.calibrate.compare import compare
    from cuzklab.model import PipelineConfig
    configs = [PipelineConfig(proofs=1, concurrency=1, partitions=2, partition_workers=pw)
               for pw in (1, 2)]
    seen = []
    res = compare(configs, profile="porep-live-h200", log2_constraints=5, repeats=3,
                  progress=lambda done, total, row: seen.append((done, total,
                                                                 row["config"]["partition_workers"])))
    assert seen == [(1, 6, 1), (2, 6, 2), (3, 6, 1), (4, 6, 2), (5, 6, 1), (6, 6, 2)]
    assert res["repeats"] == 3 and len(res["rows"]) == 2
    for row in res["rows"]:
        reps = [r["seconds_per_proof"] for r in row["live"]["repeats"]]
        assert len(reps) == 3 and row["live"]["seconds_per_proof"] == sorted(reps)[1]
        assert "within_live_range" in row["error"]
        # both sides carry the GPU region's hold a partition, and the row its error
        assert row["live"]["gpu_hold_s"] > 0 and row["model"]["gpu_hold_s"] > 0
        assert row["error"]["gpu_hold_s"] is not None
    assert res["verdict"]["live_noise"]["rows_with_repeats"] == 2
    with pytest.raises(ConfigError, match="repeats"):
        compare(configs, profile="porep-live-h200", log2_constraints=5, repeats=0)


def test_the_measured_rows_keep_their_runs_when_judged_again():
    from cuzklab.calibrate.compare import remodel
    from pathlib import Path
    import json
    stored = json.loads((Path(__file__).parents[2] / "benchmarks" / "results"
                         / "compare-live-h200-r15-repeats.json").read_text())
    again = remodel(stored, "porep-live-h200")
    for old, new in zip(stored["rows"], again["rows"]):
        assert new["live"]["repeats"] == old["live"]["repeats"]
        spp = [r["seconds_per_proof"] for r in old["live"]["repeats"]]
        assert new["error"]["within_live_range"] == (
            min(spp) <= new["model"]["seconds_per_proof"] <= max(spp))
    assert again["verdict"]["live_noise"]["rows_with_repeats"] == 6


def test_the_cli_takes_repeats_and_the_page_shows_the_runs(tmp_path, capsys, cli_error):
    from cuzklab.cli import main
    page, out = tmp_path / "c.html", tmp_path / "c.json"
    assert main(["compare", "--profile", "porep-live-h200", "--log2-constraints", "5",
                 "--set", "proofs=1", "--set", "concurrency=1", "--set", "partitions=2",
                 "--repeats", "2", "--json", str(out), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    assert "live noise: 2 runs of each of 1 rows" in text
    # an even count judges the faster of the middle two: the output says so
    assert "note: 2 runs a row is an even count: each row is judged on the faster" in text
    html = page.read_text()
    assert "live runs (s/proof; spread)" in html and "Each row ran live 2 times" in html
    assert "Note: 2 runs a row is an even count" in html
    assert len(__import__("json").loads(out.read_text())["rows"][0]["live"]["repeats"]) == 2
    cli_error(["compare", "--profile", "porep-live-h200", "--log2-constraints", "5",
               "--repeats", "0"], "--repeats")


def test_the_package_compare_is_the_function_whatever_was_imported_first():
    import subprocess
    import sys
    code = ("import cuzklab.calibrate.compare\n"
            "from cuzklab.calibrate import compare\n"
            "assert callable(compare) and compare.__name__ == 'compare', compare\n"
            "from cuzklab.calibrate.compare import merge_repeats\n"
            "assert callable(merge_repeats)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_verdict_shows_the_hosts_drift_pass_after_pass(tmp_path):
    from cuzklab.calibrate.compare import drift_text, pass_drift
    from cuzklab.plots.model_vs_live import compare_html
    # two rows that ran slower pass after pass, one whose second run failed
    rows = [merge_repeats([_row(1.0), _row(1.1), _row(1.2)]),
            merge_repeats([_row(2.0), _row(2.4), _row(2.6)]),
            merge_repeats([_row(1.0), _row(9.0, failed=True), _row(0.9)])]
    drift = pass_drift(rows)
    assert drift[0] == pytest.approx(0.0)
    assert drift[1] == pytest.approx(0.1)  # the lower median of +10 % and +20 %
    assert drift[2] == pytest.approx(0.2)  # of -10 %, +20 %, +30 %
    v = verdict(rows)
    assert v["live_noise"]["pass_drift"] == drift
    result = {"profile": "p", "device": "d", "log2_constraints": 20, "rows": rows, "verdict": v}
    assert ("host drift: pass 2 +10.0 %, pass 3 +20.0 % in s/proof against pass 1 (median "
            "over the rows); the profile was fitted before pass 1") in format_table(result)
    for r in rows:
        r["config"].update(proofs=3, partitions=4)
    page = tmp_path / "c.html"
    compare_html(result, page, timelines=False)
    assert "Host drift: pass 2 +10.0 %, pass 3 +20.0 %" in page.read_text()
    # no later pass measured: nothing to say
    assert pass_drift([merge_repeats([_row(1.0, failed=True), _row(1.1)])]) == [None, None]
    assert drift_text({"pass_drift": [0.0]}) == "" and drift_text({}) == ""


def test_a_solo_point_alone_is_no_curve(tmp_path, capsys):
    # a comparison stored with the contention counts [0] (the suite's CONTENTION=0): the
    # text and the page leave the curve out, and no reason is given for a ratio never taken
    import json
    from cuzklab.calibrate.contention import has_load, raw_prep_reason
    from cuzklab.cli import main
    from cuzklab.plots.model_vs_live import compare_html
    stored = json.loads(open("benchmarks/results/compare-live-h200-r17-samehost-gw2.json").read())
    solo = stored["contention"]
    assert [r["syntheses"] for r in solo["rows"]] == [0] and solo["prep_over_probe"] is False
    assert not has_load(solo) and raw_prep_reason(solo) == ""
    assert has_load({"rows": [{"syntheses": 0}, {"syntheses": 1}]}) and not has_load(None)
    assert main(["compare", "--profile", "porep-live-h200", "--measured",
                 "benchmarks/results/compare-live-h200-r17-samehost-gw2.json"]) == 0
    text = capsys.readouterr().out
    assert "host drift: pass 2 " in text and "contention, pool of" not in text
    page = tmp_path / "c.html"
    compare_html(stored, page, timelines=False)
    assert "The contention curve" not in page.read_text()


def test_the_even_count_note_is_given_for_even_counts_only():
    from cuzklab.calibrate.compare import even_repeats_text
    assert even_repeats_text(None) == "" and even_repeats_text({"repeats": 3}) == ""
    assert "judged on the faster of its two runs," in even_repeats_text({"repeats": 2})
    four = even_repeats_text({"repeats": 4})
    assert "4 runs a row is an even count" in four and "faster of its two middle runs" in four


def test_passes_of_one_job_merge_into_rows_judged_on_their_median_run():
    from cuzklab.calibrate.compare import merge_passes
    a = {"profile": "p", "log2_constraints": 20,
         "rows": [_row(1.2, tag="a1"), _row(3.0, lock="split_async")]}
    b = {"profile": "p", "log2_constraints": 20, "rows": [_row(0.9, tag="b1")]}
    c = {"profile": "p", "log2_constraints": 20, "rows": [_row(1.0, tag="c1")],
         "contention": {"rows": ["curve"]}}
    m = merge_passes([a, b, c])
    first, other = m["rows"]
    # the row in three passes is their median run, its runs in pass order
    assert first["live"]["stage_s"]["tag"] == "c1"
    assert [r["seconds_per_proof"] for r in first["live"]["repeats"]] == [1.2, 0.9, 1.0]
    # a row one pass has is that pass's run, as it was
    assert other["live"]["seconds_per_proof"] == 3.0 and "repeats" not in other["live"]
    assert m["row_repeats"] == 3 and m["passes"] == 3 and m["contention"] == {"rows": ["curve"]}
    assert noise([first])["repeats"] == 3
    for bad, match in (([], "at least one"),
                       ([a, {**b, "profile": "q"}], "one profile; these have p, q"),
                       ([a, {**b, "log2_constraints": 18}], "one log2_constraints"),
                       ([a, {"profile": "p", "log2_constraints": 20,
                             "rows": [merge_repeats([_row(1.0), _row(1.1)])]}], "more than once")):
        with pytest.raises(ConfigError, match=match):
            merge_passes(bad)
    with pytest.raises(ConfigError, match="one folder .* per stored comparison: 2 comparisons, 1"):
        merge_passes([a, b], [None])


def test_compare_measured_judges_a_jobs_stored_passes_together(tmp_path, capsys, cli_error):
    # the thirty-eighth to fortieth jobs: one calibration, all twelve rows three passes over
    import json
    import statistics
    from pathlib import Path
    from cuzklab.calibrate.live import derive_profile
    from cuzklab.cli import main
    res = Path("benchmarks/results")
    meas = json.loads((res / "calibrate-live-h100-r31.json").read_text())["measurements"]
    prof = tmp_path / "r31.toml"
    prof.write_text(derive_profile(meas, "r31")["text"])
    names = ["", "-pass2", "-pass3"]
    files = ",".join(str(res / f"compare-live-h100-r31-samehost-tracked{n}.json") for n in names)
    folders = ",".join(str(res / f"traces-live-h100-r31-samehost-tracked{n}") for n in names)
    out, page = tmp_path / "merged.json", tmp_path / "merged.html"
    assert main(["compare", "--profile", str(prof), "--measured", files, "--live-traces", folders,
                 "--json", str(out), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    assert ("(3 passes, each row judged on its median run; measured with profile "
            "live-2p20-r31)") in text
    assert "live noise: 3 runs of each of 12 rows" in text and "host drift: pass 2" in text
    got = json.loads(out.read_text())
    passes = [json.loads((res / f"compare-live-h100-r31-samehost-tracked{n}.json").read_text())
              for n in names]
    for i, row in enumerate(got["rows"]):
        runs = [p["rows"][i]["live"]["seconds_per_proof"] for p in passes]
        assert row["live"]["seconds_per_proof"] == statistics.median(runs)
        assert [r["seconds_per_proof"] for r in row["live"]["repeats"]] == runs
        assert all(r["tracked"]["seconds_per_proof"] > 0 for r in row["live"]["repeats"])
        assert row["live"]["gpu_hold_s"] is not None
        # the median run's own saved trace, from the pass it ran in
        k = runs.index(statistics.median(runs))
        folder = Path(row["live_trace"]).parent.name
        assert folder == f"traces-live-h100-r31-samehost-tracked{names[k]}"
    # the page: the passes' noise and drift in words, a timeline per row, the curve
    html = page.read_text()
    assert "Each row ran live 3 times, pass after pass" in html and "Host drift: pass 2" in html
    assert ("compare-live-h100-r31-samehost-tracked-pass3.json, 3 passes of one job run as "
            "separate steps, each row judged on its median run") in html
    assert html.count("plotly-graph-div") == 13 and "The contention curve" in html
    # without the traces the page says it has no timelines
    assert main(["compare", "--profile", str(prof), "--measured", files,
                 "--html", str(page)]) == 0
    assert "the page has no timelines" in capsys.readouterr().out
    assert page.read_text().count("plotly-graph-div") == 1
    assert got["verdict"]["tracked"]["runs"]["of"] == 36  # every run against its own checks
    assert got["contention"]["rows"]
    cli_error(["compare", "--profile", str(prof), "--measured", files, "--live-traces",
               folders.split(",")[0]], "--live-traces", "one folder per --measured file",
              "3 files, 1 folders")
    cli_error(["compare", "--profile", str(prof), "--measured", files + ","], "--measured",
              "FILE.json,FILE.json")
