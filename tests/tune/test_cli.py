"""The ``cuzklab tune`` command: one JSON object, the text answer, files, one-line errors."""

import json

import pytest

from cuzklab.cli import main
from cuzklab.model import PipelineConfig

from .conftest import QUICK_ARGV as QUICK


def test_json_toml_and_html_and_the_same_answer_again(tmp_path, capsys, quick_tunes):
    toml, page = tmp_path / "out" / "cuzk.toml", tmp_path / "report.html"
    toml.parent.mkdir()   # output files go into existing folders only
    rc = main(["tune", "--memory-gib", "144", "--json", "--toml", str(toml), "--html", str(page),
               *QUICK])
    out = capsys.readouterr().out
    assert rc == 0 and out.count("\n") == 1
    d = json.loads(out)
    assert d["feasible"] and d["recommended"]["peak_rss_gib"] <= 144 - 16
    assert d["recommended"]["robustness"]["passes"]
    # the same arguments and seed give the same answer (the library's run of them)
    same = quick_tunes[144].recommended
    assert d["recommended"]["knobs"] == same.knobs.to_dict()
    assert d["recommended"]["seconds_per_proof"] == same.s_per_proof
    assert d["recommended"]["robustness"]["runs"] == same.robustness.to_dict()["runs"]
    assert PipelineConfig.from_cuzk_toml(toml).partition_workers \
        == d["recommended"]["knobs"]["partition_workers"]
    text = page.read_text()
    assert "Recommended" in text and "plotly" in text and "Pareto front" in text


def test_too_small_node_exits_1_with_the_minimum(capsys):
    assert main(["tune", "--memory-gib", "90", *QUICK]) == 1
    out = capsys.readouterr().out
    assert "cannot prove" in out and "minimum RAM" in out


@pytest.mark.parametrize("argv,parts", [
    (["--memory-gib", "0"], ["--memory-gib", "> 0"]),
    (["--memory-gib", "x"], ["--memory-gib", "GiB"]),
    (["--gpus", "0"], ["--gpus", ">= 1"]),
    (["--objective", "fast"], ["--objective", "throughput"]),
    (["--max-latency-s", "-3"], ["--max-latency-s"]),
    (["--margin-gib", "300"], ["--margin-gib", "less than --memory-gib"]),
    (["--concurrency", "30"], ["--concurrency", "--proofs"]),
    (["--locks", "fast"], ["--locks", "split_async"]),
    (["--profile", "missing"], ["--profile", "unknown profile"]),
    (["--executor", "dask"], ["--scheduler"]),
    (["--cost-move", "2"], ["--cost-move", "[0, 1)"]),
    (["--margin-gib", "-1"], ["--margin-gib", ">= 0", "got -1"]),
    (["--vram-gib", "inf"], ["--vram-gib", "finite", "GiB > 0", "got inf"]),
])
def test_bad_arguments_give_one_error_line(argv, parts, cli_error, tmp_path):
    base = ["tune"] + ([] if "--memory-gib" in argv else ["--memory-gib", "256"])
    cli_error(base + argv, *parts)


def test_missing_memory_and_unwritable_toml(cli_error, tmp_path):
    cli_error(["tune"], "--memory-gib")
    cli_error(["tune", "--memory-gib", "256", "--toml", str(tmp_path)], "--toml", "folder")


def test_notebook_runs_headless(tmp_path):
    from pathlib import Path

    import nbformat
    import papermill as pm
    src = Path(__file__).resolve().parents[2] / "notebooks" / "06-tune-node.ipynb"
    page = tmp_path / "tune.html"
    pm.execute_notebook(str(src), str(tmp_path / "out.ipynb"), kernel_name="python3",
                        progress_bar=False, cwd=str(tmp_path), execution_timeout=240,
                        parameters=dict(memory_gib=150, proofs=4, locks="split_async", seeds=1,
                                        refine_rounds=0, jobs=1, html_out=str(page)))
    nb = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    outs = [o for c in nb.cells for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outs)
    assert "recommended" in text and "[gpus]" in text
    assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outs)
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outs)
    assert page.exists()
