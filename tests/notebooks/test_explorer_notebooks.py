"""The explorer notebooks run headless under papermill with small parameters."""

import shutil
import subprocess
from pathlib import Path

import nbformat
import papermill as pm
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _run(name, out_dir, **parameters):
    out = out_dir / name
    pm.execute_notebook(
        str(NOTEBOOKS / name), str(out), parameters=parameters, kernel_name="python3",
        progress_bar=False, cwd=str(out_dir), execution_timeout=240,
        store_widget_state=False)
    return nbformat.read(out, as_version=4)


def _text(nb):
    chunks = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                chunks.append(o.get("text", ""))
            for mime in ("text/plain", "text/markdown", "text/html"):
                if mime in o.get("data", {}):
                    chunks.append(o["data"][mime])
    return "\n".join(chunks)


def _git(cwd, *args) -> str:
    return subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_explore_pipeline_notebook(tmp_path):
    # Run as JupyterLab would (in the notebooks folder, saved in place) inside a
    # fresh git tree with the project's .gitignore: the export lands under
    # papermill_runs/, and git sees only the notebook changed.
    tree = tmp_path / "tree"
    (tree / "notebooks").mkdir(parents=True)
    for name in (".gitignore", "pyproject.toml"):
        shutil.copy(NOTEBOOKS.parent / name, tree / name)
    path = tree / "notebooks" / "01-explore-pipeline.ipynb"
    shutil.copy(NOTEBOOKS / path.name, path)
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", "tree")
    pm.execute_notebook(
        str(path), str(path), kernel_name="python3", progress_bar=False, cwd=str(path.parent),
        execution_timeout=240, store_widget_state=False,
        parameters=dict(proofs=3, concurrency=3, partition_workers=3, lock="interlock",
                        debounce_s=0.0, report_html="report.html"))
    nb = nbformat.read(path, as_version=4)
    report = tree / "papermill_runs" / "explorer" / "report.html"
    assert not list((tree / "notebooks").glob("*.html")), "the export landed in notebooks/"
    status = _git(tree, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert status == [" M notebooks/01-explore-pipeline.ipynb"], status
    assert not nb.metadata["papermill"].get("exception")
    text = _text(nb)
    assert "s/proof" in text and "peak RSS" in text
    # The explorer cell displayed its panel (a widget view) rather than failing.
    views = [o for c in nb.cells for o in c.get("outputs", [])
             if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert views
    assert report.exists() and "lock=interlock" in report.read_text()
    assert "widgets" not in nb.metadata


def test_kernels_notebook(tmp_path):
    nb = _run("02-kernels.ipynb", tmp_path, backend="cpu", field_log2=10, msm_log2=6,
              ntt_log2=8, proof_log2=8, repeats=1, verify_proof=False)
    assert not nb.metadata["papermill"].get("exception")
    text = _text(nb)
    assert "backend: cpu" in text
    assert "fr" in text and "g1" in text and "log2 n = 8" in text  # field, MSM, NTT tables
    figs = [o for c in nb.cells for o in c.get("outputs", [])
            if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figs) == 2  # the stage breakdown and the timeline of the proof
    names = {t.get("name") for t in figs[0]["data"]["application/vnd.plotly.v1+json"]["data"]}
    assert {"synth", "ntt_h", "b_g2_msm"} <= names


def test_live_pipeline_notebook(tmp_path):
    nb = _run("04-live-pipeline.ipynb", tmp_path, backend="cpu", log2_constraints=4, proofs=1,
              concurrency=1, partitions=2, partition_workers=2, gpu_workers_per_device=1,
              lock="interlock", verify=True)
    assert not nb.metadata["papermill"].get("exception")
    text = _text(nb)
    assert "live cpu" in text and "2 of 2 partition proofs pass" in text
    assert "bottleneck:" in text and "% busy" in text
    figs = [o for c in nb.cells for o in c.get("outputs", [])
            if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figs) == 1
    names = {t.get("name") for t in figs[0]["data"]["application/vnd.plotly.v1+json"]["data"]}
    assert {"synth", "ntt_h", "b_g2_msm"} <= names
