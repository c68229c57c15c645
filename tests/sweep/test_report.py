"""report.html and the results table, built from sidecars alone (no kernels needed)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from cuzklab.cli import main
from cuzklab.sweep import write_report
from cuzklab.sweep.points import SweepPoint
from cuzklab.sweep.results import build_table, write_plan, write_point, write_table

# (partition_workers, lock) -> (status, seconds_per_proof, peak_rss_gib, oom, bottleneck)
POINTS = {
    (4, "interlock"): ("ok", 35.1, 166.0, False, "synthesis"),
    (8, "interlock"): ("ok", 34.7, 202.0, False, "synthesis"),
    (12, "interlock"): ("ok", 34.9, 246.0, False, "synthesis"),
    (4, "wide_mutex"): ("ok", 38.3, 226.0, False, "memory_bandwidth"),
    # Fastest on paper, but it ran out of memory: never the headline.
    (8, "wide_mutex"): ("ok", 20.0, 389.9, True, "host_memory"),
    (12, "wide_mutex"): ("failed", None, None, None, None),
}


def _outcome(status, spp, rss, oom, res):
    if status != "ok":
        return {"status": status, "metrics": {},
                "error": {"type": "ZeroDivisionError", "message": "boom", "cell_index": 4},
                "artifacts": {}}
    metrics = {"seconds_per_proof": spp, "peak_rss_gib": rss, "oom": oom,
               "partition_workers": 10, "bottleneck.resource": res, "bottleneck.utilization": 0.97,
               "bottleneck.why": f"{res} busy 97% of the run"}
    return {"status": "ok", "metrics": metrics, "error": None, "timings": {"wall_s": 1.5},
            "artifacts": {}}


@pytest.fixture
def sweep_dir(tmp_path):
    pts = [SweepPoint.make({"partition_workers": pw, "lock": lock},
                           varying=("partition_workers", "lock")) for pw, lock in POINTS]
    extra = SweepPoint.make({"partition_workers": 16, "lock": "interlock"},
                            varying=("partition_workers", "lock"))
    write_plan(tmp_path, {
        "name": "demo", "updated": "now",
        "grid": {"name": "demo", "notebook": "x/sweep-pipeline.ipynb",
                 "parameters": {"concurrency": 10},
                 "grid": {"partition_workers": [4, 8, 12, 16], "lock": ["interlock", "wide_mutex"]},
                 "report": {"metric": "seconds_per_proof", "x": "partition_workers"}},
        "points": [{"id": p.id, "label": p.label, "repeat": 0, "parameters": p.parameters}
                   for p in [*pts, extra]]})
    for p in pts:
        write_point(tmp_path, p, _outcome(*POINTS[(p.parameters["partition_workers"],
                                                  p.parameters["lock"])]), sweep="demo")
    return tmp_path


def _text(html: str) -> str:
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_table_columns_and_metric_that_shadows_a_parameter(sweep_dir):
    t = build_table(sweep_dir)
    assert len(t) == len(POINTS)  # the planned point without a sidecar has no row
    assert list(t.columns[:7]) == ["id", "label", "repeat", "status", "error",
                                   "partition_workers", "lock"]
    # A metric named like a parameter keeps its value under its own column.
    assert (t["metric.partition_workers"].dropna() == 10).all()
    assert sorted(t["partition_workers"]) == sorted(pw for pw, _ in POINTS)
    failed = t[t["status"] == "failed"].iloc[0]
    assert failed["error"] == "ZeroDivisionError: boom (cell 4)"
    csv, pq = write_table(sweep_dir, t)
    back = pd.read_parquet(pq)
    assert list(back["id"]) == list(t["id"]) and len(pd.read_csv(csv)) == len(t)


def test_headline_is_the_best_point_without_oom_and_what_bounds_it(sweep_dir):
    html = write_report(sweep_dir).read_text()
    text = _text(html)
    assert "Best seconds_per_proof without running out of memory: 34.7" in text
    assert "partition_workers=8, lock=interlock" in text
    assert "What bounds it: synthesis (97% busy): synthesis busy 97% of the run" in text
    assert "1 point ran out of host memory (oom): partition_workers=8 lock=wide_mutex" in text
    assert "1 point did not finish ok (1 failed)" in text
    assert "Partial sweep: 6 of 7 points have run" in text
    assert "Fixed parameters: concurrency=10" in text


def test_report_is_self_contained_with_figures_and_every_point(sweep_dir):
    html = write_report(sweep_dir).read_text()
    assert html.count("Plotly.newPlot") >= 3  # two line figures and the heatmap
    assert "plotly.js v" in html  # the library itself is inlined: views offline
    assert html.count("<script src=") == 0
    rows = re.findall(r"<tr><td><code>([0-9a-f]{12})</code>", html)
    assert len(rows) == len(POINTS)


def test_sweep_report_command(sweep_dir, tmp_path_factory, capsys):
    (sweep_dir / "results.csv").unlink(missing_ok=True)
    assert main(["sweep-report", str(sweep_dir)]) == 0
    assert "report:" in capsys.readouterr().out
    assert (sweep_dir / "results.csv").exists() and (sweep_dir / "report.html").exists()
    empty = tmp_path_factory.mktemp("empty")
    assert main(["sweep-report", str(empty)]) == 2
    assert "not a sweep folder" in capsys.readouterr().err


def test_report_when_points_set_different_parameters(tmp_path):
    # Grid points set `a`; an explicit point also sets `b`: the others have no `b`.
    params = [{"a": 1}, {"a": 2}, {"a": 3, "b": "x"}]
    pts = [SweepPoint.make(p, varying=("a", "b")) for p in params]
    write_plan(tmp_path, {"name": "mixed", "grid": {"grid": {"a": [1, 2]},
                                                     "points": [{"a": 3, "b": "x"}]},
                          "points": [{"id": p.id, "label": p.label, "parameters": p.parameters}
                                     for p in pts]})
    for p, spp in zip(pts, (40.0, 38.0, 41.0)):
        write_point(tmp_path, p, {"status": "ok", "metrics": {"seconds_per_proof": spp,
                                                              "tags": [1, 2]}})
    text = _text(write_report(tmp_path).read_text())
    assert "Best seconds_per_proof: 38 at a=2 (lowest of 3 usable points; worst 41 at a=3, b=x" in text


@pytest.mark.parametrize("argv,parts", [
    (["{d}/missing"], ["DIR ", "missing: no such folder"]),
    (["{d}/empty.toml"], ["DIR ", "empty.toml: is a file, not a sweep folder"]),
    (["{s}", "--html", "{d}/adir"], ["--html ", "adir: is a folder; give a file name"]),
    (["{s}", "--html", "{d}/empty.toml/r.html"], ["--html ", "empty.toml is a file, not a folder"]),
])
def test_sweep_report_bad_options_get_a_clear_error(sweep_dir, bad_files, cli_error, argv, parts):
    cli_error(["sweep-report", *(a.format(d=bad_files, s=sweep_dir) for a in argv)], *parts)
    assert not (sweep_dir / "report.html").exists()


@pytest.mark.parametrize("text,message", [
    ("{bad", "sweep.json is not valid JSON"),
    ("[1, 2]", "sweep.json is not a sweep plan"),
    ('{"points": [{"label": "x"}]}', "sweep.json is not a sweep plan"),
])
def test_a_broken_sweep_json_is_a_clear_error(sweep_dir, cli_error, text, message):
    (sweep_dir / "sweep.json").write_text(text)
    cli_error(["sweep-report", str(sweep_dir)], message, "run `cuzklab sweep` again")


def test_an_oom_point_never_gets_an_ok_badge_and_never_sits_on_the_value_axis(sweep_dir):
    from cuzklab.sweep.report import _choose, figures, point_status
    from cuzklab.sweep.results import read_plan
    page = (sweep_dir / "report.html")
    write_report(sweep_dir)
    html = page.read_text()
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    oom_row = next(r for r in rows if ">8<" in r and "wide_mutex" in r)
    assert ">oom</span>" in oom_row and ">ok</span>" not in oom_row
    assert point_status({"status": "ok", "oom": True}) == "oom"
    assert point_status({"status": "ok", "run_failed": True}) == "failed"
    assert point_status({"status": "timeout"}) == "timeout"
    table = build_table(sweep_dir)
    plan = read_plan(sweep_dir)
    settings = _choose(plan, table)
    figs = {title: fig for title, fig, _ in figures(table, settings, plan) if fig is not None}
    spp = figs["seconds_per_proof by partition_workers and lock"]
    for tr in spp.data:
        if tr.mode == "lines+markers":
            assert 20.0 not in list(tr.y)                   # the OOM run's figure
    lane = [tr for tr in spp.data if tr.yaxis == "y2"]
    assert lane and list(spp.layout.yaxis2.ticktext) == ["oom", "failed"]
    names = [tr.name for tr in spp.data if tr.mode == "lines+markers"]
    assert names == ["lock=interlock", "lock=wide_mutex"]
    rss = figs["peak_rss_gib by partition_workers and lock"]
    # the pipeline notebook without memory_gib: PipelineConfig's default RAM
    assert any(tr.name == "RAM 754 GiB" for tr in rss.data)


def test_published_figures_are_drawn_beside_the_model_with_the_error(sweep_dir):
    from cuzklab.sweep.results import read_plan
    plan = read_plan(sweep_dir)
    plan["grid"]["report"]["published"] = [
        {"partition_workers": 4, "lock": "interlock", "seconds_per_proof": 39.0,
         "source": "cuzk phase 9"},
        {"partition_workers": 8, "lock": "wide_mutex", "seconds_per_proof": 30.0}]
    write_plan(sweep_dir, plan)
    html = write_report(sweep_dir).read_text()
    text = _text(html)
    assert "published seconds_per_proof" in text and "model error" in text
    assert "-10.0 %" in text                        # 35.1 against 39.0
    assert "published (cuzk)" in html and "model: oom" in html
    assert "cuzk phase 9" in html                   # the source, in the hover


def test_a_parameter_that_x_determines_makes_no_series(tmp_path):
    from cuzklab.sweep.report import _series
    t = pd.DataFrame({"proofs": [5, 10, 20], "concurrency": [5, 10, 15],
                      "seconds_per_proof": [41.0, 39.0, 38.0]})
    assert _series(t, {"x": "proofs", "varying": ["proofs", "concurrency"]})[1] == []
    t2 = pd.DataFrame({"proofs": [5, 5, 10], "concurrency": [5, 3, 10]})
    assert _series(t2, {"x": "proofs", "varying": ["proofs", "concurrency"]})[1] == ["concurrency"]
