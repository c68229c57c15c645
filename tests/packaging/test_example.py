"""The committed example sweep (papermill_runs/example-locks/) is whole, small, portable and
described truthfully; ``cuzklab.sweep.publish`` makes such a folder from any finished sweep."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from cuzklab.sweep.publish import cdn_plotlyjs, publish

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "papermill_runs"
EXAMPLE = RUNS / "example-locks"
MAX_EXAMPLE_BYTES = 1_000_000


def _absolute_paths(value, where=""):
    """Yield every string in a JSON value that is an absolute path."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _absolute_paths(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _absolute_paths(v, f"{where}[{i}]")
    elif isinstance(value, str) and re.match(r"^/[\w.-]+/", value.strip().strip("'\"")):
        yield f"{where} = {value!r}"


def test_example_is_whole_and_small():
    sidecars = sorted((EXAMPLE / "points").glob("*.json"))
    assert len(sidecars) >= 2
    table = pd.read_csv(EXAMPLE / "results.csv")
    assert sorted(table["id"]) == sorted(p.stem for p in sidecars)
    assert set(table["status"]) == {"ok"}
    for p in sidecars:
        side = json.loads(p.read_text())
        assert all((EXAMPLE / f).is_file() for f in side["files"]), side["files"]
        nb = json.loads((EXAMPLE / side["notebook"]).read_text())
        assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")
    size = sum(p.stat().st_size for p in EXAMPLE.rglob("*") if p.is_file())
    assert size < MAX_EXAMPLE_BYTES, f"example is {size} bytes"
    page = (EXAMPLE / "report.html").read_text()
    assert "cdn.plot.ly" in page and "plotly.js v" not in page
    assert (EXAMPLE / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_example_holds_no_machine_paths():
    found = []
    for p in [EXAMPLE / "sweep.json", *sorted((EXAMPLE / "points").glob("*.json")),
              *sorted((EXAMPLE / "points").glob("*.ipynb"))]:
        data = json.loads(p.read_text())
        if p.suffix == ".ipynb":
            data = {"metadata": data["metadata"],
                    "sources": ["".join(c["source"]).splitlines() for c in data["cells"]]}
            data["sources"] = [re.findall(r"\"([^\"]*)\"", line)
                               for cell in data["sources"] for line in cell]
        found += [f"{p.relative_to(ROOT)}{x}" for x in _absolute_paths(data)]
    assert not found, "\n".join(found)


def test_readme_table_matches_the_results():
    table = pd.read_csv(EXAMPLE / "results.csv")
    text = (RUNS / "README.md").read_text()
    head = re.search(r"^\| partition workers \|(.*)\|\s*bound by \|$", text, re.M)
    locks = [c.strip().strip("`") for c in head.group(1).split("|") if c.strip()]
    rows = re.findall(r"^\| (\d+) \| ([^|]+)\|([^|]+)\|([^|]+)\|", text, re.M)
    assert len(rows) == table["partition_workers"].nunique()
    for pw, *cells in rows:
        for lock, cell in zip(locks, cells):
            shown = float(re.search(r"[\d.]+", cell).group(0))
            value = table[(table.partition_workers == int(pw)) & (table.lock == lock)][
                "seconds_per_proof"].item()
            assert abs(shown - value) < 0.06, (pw, lock, shown, value)


def test_only_the_readme_and_example_are_tracked():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")

    def ignored(path: str) -> bool:
        return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0
    assert ignored("papermill_runs/concurrency/report.html")
    assert ignored("papermill_runs/demo-simulation/trace.parquet")
    assert not ignored("papermill_runs/README.md")
    assert not ignored("papermill_runs/example-locks/report.html")


def test_publish_makes_a_portable_copy(tmp_path):
    src = tmp_path / "run"
    shutil.copytree(EXAMPLE, src)
    side_path = sorted((src / "points").glob("*.json"))[0]
    side = json.loads(side_path.read_text())
    trace = f"points/{side['id']}.trace.parquet"
    (src / trace).write_bytes(b"PAR1")  # a per-point artifact that stays behind
    side["files"].append(trace)
    side["error"] = {"message": f"see {src.resolve()}/{trace}"}
    side_path.write_text(json.dumps(side))
    plan = json.loads((src / "sweep.json").read_text())
    plan["grid"]["notebook"] = str(src.resolve() / "points" / "x.ipynb")
    (src / "sweep.json").write_text(json.dumps(plan))

    dest = publish(src, tmp_path / "out", png=False)
    out_side = json.loads((dest / "points" / side_path.name).read_text())
    assert out_side["files"] == [side["notebook"]]
    assert out_side["error"]["message"] == f"see {trace}"
    assert json.loads((dest / "sweep.json").read_text())["grid"]["notebook"] == "points/x.ipynb"
    assert not (dest / trace).exists()
    assert len(pd.read_csv(dest / "results.csv")) == len(pd.read_csv(src / "results.csv"))
    assert "cdn.plot.ly" in (dest / "report.html").read_text()


def test_cdn_swap_replaces_only_the_inlined_bundle():
    page = ("<html><div><script>window.PlotlyConfig = {};</script>\n<script>/**\n* plotly.js "
            "v9.9.9\n* (c)\n*/ var big = 1;</script><div id='f'></div><script>draw()</script></div>")
    out = cdn_plotlyjs(page)
    assert "var big" not in out and "cdn.plot.ly" in out
    assert "<script>draw()</script>" in out and "window.PlotlyConfig" in out
    assert cdn_plotlyjs(out) == out
