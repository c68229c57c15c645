"""The explorer notebooks run headless under papermill with small parameters."""

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


def test_explore_pipeline_notebook(tmp_path):
    report = tmp_path / "report.html"
    nb = _run("01-explore-pipeline.ipynb", tmp_path, proofs=3, concurrency=3,
              partition_workers=3, lock="interlock", debounce_s=0.0, report_html=str(report))
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
