"""Where cuzklab's data files are: profiles, sweep grids, sample logs, notebooks.

A source checkout keeps them at its root (``data/profiles``, ``data/sweeps``,
``data/samples``, ``notebooks/``). A wheel carries copies of the same folders
inside the package, under ``cuzklab/_data/<kind>/``, written there when the
wheel is built (``setup.py`` reads :data:`SHIPPED` from this file). Lookups
prefer the checkout, so an edit to ``data/`` takes effect without
reinstalling; ``CUZKLAB_PROFILES`` names another profiles folder (see
:func:`cuzklab.model.profiles_dir`).

This module uses only the standard library at import time: the build step
loads it by path, before cuzklab is installed.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

# Each kind of shipped file: its folder in a source checkout, and the file
# patterns a wheel carries from it.
SHIPPED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "profiles": (("data", "profiles"), ("*.toml",)),
    "sweeps": (("data", "sweeps"), ("*.toml",)),
    "workloads": (("data", "workloads"), ("*.toml", "*.csv")),
    "samples": (("data", "samples"), ("*",)),
    "notebooks": (("notebooks",), ("*.ipynb",)),
}
# The folder inside the package that holds the wheel's copies.
PACKAGED_DIR = "_data"
# What marks the folder above the package as a source checkout.
_CHECKOUT_MARKERS = ("pyproject.toml", "data")


def _package_dir() -> Path:
    return Path(__file__).resolve().parent


def checkout_root() -> Path | None:
    """Return the source checkout cuzklab runs from, or None for an installed package."""
    root = _package_dir().parent
    if all((root / m).exists() for m in _CHECKOUT_MARKERS):
        return root
    return None


def _check_kind(kind: str) -> None:
    if kind not in SHIPPED:
        raise ValueError(f"kind must be one of {', '.join(SHIPPED)}, got {kind!r}")


def packaged_dir(kind: str) -> Path:
    """Return the folder of the wheel's copies of ``kind`` (it may not exist in a checkout)."""
    _check_kind(kind)
    where = resources.files("cuzklab").joinpath(PACKAGED_DIR, kind)
    # A wheel installs as plain files; importing cuzklab from a zip archive
    # would give a Traversable that is not a real folder.
    return Path(os.fspath(where)) if isinstance(where, os.PathLike) else Path(str(where))


def data_dir(kind: str) -> Path:
    """Return the folder holding the files of ``kind``: the checkout's if present, else the wheel's.

    ``kind`` is one of :data:`SHIPPED` (``profiles``, ``sweeps``, ``samples``,
    ``notebooks``). Raises :class:`~cuzklab.errors.CuzklabError` when neither exists.
    """
    _check_kind(kind)
    root = checkout_root()
    if root is not None:
        cand = root.joinpath(*SHIPPED[kind][0])
        if cand.is_dir():
            return cand
    cand = packaged_dir(kind)
    if cand.is_dir():
        return cand
    from .errors import CuzklabError
    raise CuzklabError(f"the {kind} that ship with cuzklab were not found (looked in "
                       f"{'the checkout and ' if root else ''}{cand}); reinstall cuzklab "
                       f"from a wheel or run it from a source checkout")


def shipped_files(kind: str) -> list[Path]:
    """Return the files of ``kind`` that cuzklab ships, sorted by name."""
    d = data_dir(kind)
    found = {p for pattern in SHIPPED[kind][1] for p in d.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.name)


def find(kind: str, name: str) -> Path | None:
    """Return the shipped file of ``kind`` called ``name`` (with or without its suffix), or None."""
    for p in shipped_files(kind):
        if name in (p.name, p.stem):
            return p
    return None


def copy_shipped(kind: str, dest: str | os.PathLike, *, overwrite: bool = False
                 ) -> tuple[list[Path], list[Path]]:
    """Copy the shipped files of ``kind`` into the folder ``dest``; return (copied, kept).

    ``dest`` is made if missing (its parent must exist). A file already there
    is kept unless ``overwrite``, so a user's edited copy is never lost.
    """
    from .atomic import write_bytes
    dest = Path(dest)
    files = shipped_files(kind)
    dest.mkdir(exist_ok=True)
    copied, kept = [], []
    for src in files:
        target = dest / src.name
        if target.exists() and not overwrite:
            kept.append(target)
            continue
        write_bytes(target, src.read_bytes())
        copied.append(target)
    return copied, kept
