"""Where notebook outputs go: papermill_runs/ of the workbench root, never notebooks/.

(The explorer notebook's run in a fresh git tree, which must leave only the
notebook changed, is in test_explorer_notebooks.py.)
"""

from __future__ import annotations

from pathlib import Path

from cuzklab.paths import output_path, runs_dir, workbench_root

def test_workbench_root_and_the_export_folder(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "cuzklab"\n')
    (tmp_path / "notebooks").mkdir()
    assert workbench_root(tmp_path / "notebooks") == tmp_path.resolve()
    assert runs_dir("explorer", start=tmp_path / "notebooks") == \
        tmp_path.resolve() / "papermill_runs" / "explorer"
    assert output_path("r.html", tmp_path / "x") == tmp_path / "x" / "r.html"
    assert output_path(tmp_path / "abs.html", "elsewhere") == tmp_path / "abs.html"
