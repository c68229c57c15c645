"""Where the workbench writes what it makes: ``papermill_runs/`` of the working tree.

A notebook runs with its own folder as the working directory, so a relative
output path would land in ``notebooks/`` beside the committed notebooks. The
explorer's exports and other notebook outputs go under ``papermill_runs/``
of the *workbench root* instead: the nearest folder, from the working
directory up, that holds the project's ``pyproject.toml`` or a
``papermill_runs/`` folder (the working directory itself when none does,
e.g. an installed package used from any folder). ``papermill_runs/`` is
ignored by git.
"""

from __future__ import annotations

import os
from pathlib import Path

RUNS_DIR = "papermill_runs"
# What marks the root of a cuzklab checkout.
_PROJECT_FILE = "pyproject.toml"
_PROJECT_NAME = 'name = "cuzklab"'


def _is_root(folder: Path) -> bool:
    if (folder / RUNS_DIR).is_dir():
        return True
    project = folder / _PROJECT_FILE
    try:
        return project.is_file() and _PROJECT_NAME in project.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def workbench_root(start: str | os.PathLike | None = None) -> Path:
    """Return the workbench root above ``start`` (default: the working directory)."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_root(folder):
            return folder
    return here


def runs_dir(*parts: str, start: str | os.PathLike | None = None) -> Path:
    """Return ``papermill_runs/<parts...>`` under the workbench root (not created)."""
    return workbench_root(start).joinpath(RUNS_DIR, *parts)


def output_path(path: str | os.PathLike, folder: str | os.PathLike) -> Path:
    """Return ``path`` as is when absolute, else inside ``folder``."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else Path(folder) / p
