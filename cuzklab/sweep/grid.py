"""Sweep grids: which notebook to run, over which parameter values.

A grid file is TOML::

    name = "concurrency"                         # output folder name (default: file stem)
    notebook = "notebooks/sweep-pipeline.ipynb"  # the default
    repeats = 1                                  # runs per point (different ids)
    timeout_s = 600                              # per cell, and per point plus a grace

    [parameters]          # fixed values, injected into every point
    profile = "porep-32g"

    [grid]                # lists, combined as a cartesian product
    proofs = [10, 20]
    lock = ["interlock", "split_async"]

    [[points]]            # explicit points (over [parameters]), besides the grid
    proofs = 5
    lock = "monolithic"

    [report]              # optional: what the report plots
    metric = "seconds_per_proof"   # goal = "min" | "max"; x, color: parameter names

    [[report.published]]  # optional: a published figure for one point, drawn beside it
    proofs = 5
    seconds_per_proof = 41.4
    source = "cuzk phase 9"

Every mistake (unknown key, wrong type, empty list, a parameter the notebook
does not declare, a value outside a parameter's allowed set, a metric the
notebook never records) raises :class:`~cuzklab.errors.SweepError` naming it,
with its line in the grid file, before anything runs (``cuzklab.sweep.checks``).
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SweepError
from . import checks
from .points import RESULT_PARAMETER, SweepPoint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_NOTEBOOK = "notebooks/sweep-pipeline.ipynb"
# Ten minutes: far above a simulated point (well under a second) and above the
# CPU kernels at the sizes the kernel notebook defaults to.
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_KERNEL = "python3"
TOP_KEYS = ("name", "notebook", "parameters", "grid", "points", "repeats", "timeout_s",
            "kernel", "report", "description")
REPORT_KEYS = ("metric", "goal", "x", "color", "title", "published")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class Grid:
    """A validated sweep grid; :meth:`expand` returns its points."""

    name: str
    notebook: Path
    parameters: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list] = field(default_factory=dict)
    points: tuple[dict[str, Any], ...] = ()
    repeats: int = 1
    timeout_s: float = DEFAULT_TIMEOUT_S
    kernel: str = DEFAULT_KERNEL
    report: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    source: Path | None = None
    # The TOML text the grid was read from (for the line numbers of errors).
    source_text: str = field(default="", repr=False, compare=False)

    @property
    def varying(self) -> tuple[str, ...]:
        """Return the parameter names that differ between points (grid keys first)."""
        keys = list(self.grid)
        for p in self.points:
            keys.extend(k for k in p if k not in keys)
        return tuple(keys)

    def expand(self) -> list[SweepPoint]:
        """Return every point: the grid's cartesian product, then the explicit points, each repeated."""
        combos: list[dict[str, Any]] = []
        if self.grid:
            keys = list(self.grid)
            for values in itertools.product(*(self.grid[k] for k in keys)):
                combos.append({**self.parameters, **dict(zip(keys, values))})
        combos.extend({**self.parameters, **p} for p in self.points)
        if not combos:
            combos.append(dict(self.parameters))
        varying = self.varying
        out: list[SweepPoint] = []
        seen: dict[str, int] = {}
        for i, params in enumerate(combos):
            for r in range(self.repeats):
                pt = SweepPoint.make(params, repeat=r, varying=varying)
                if pt.id in seen:
                    raise SweepError(f"grid {self.name!r}: point {i + 1} ({pt.label}) repeats "
                                     f"point {seen[pt.id] + 1}; remove the duplicate")
                seen[pt.id] = i
                out.append(pt)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return the grid as plain data (for the sweep's record)."""
        return {"name": self.name, "notebook": str(self.notebook),
                "parameters": self.parameters, "grid": self.grid,
                "points": list(self.points), "repeats": self.repeats,
                "timeout_s": self.timeout_s, "kernel": self.kernel, "report": self.report,
                "description": self.description,
                "source": str(self.source) if self.source else None}


def load_grid(source, *, check_notebook: bool = True, **overrides) -> Grid:
    """Return the validated grid read from a TOML path, TOML text or dict.

    ``overrides`` replace top-level keys (e.g. ``timeout_s``). With
    ``check_notebook`` the parameters are checked against the ones the
    notebook declares (papermill's notebook inspection).
    """
    base: Path | None = None
    where = "grid"
    text = ""
    if isinstance(source, Grid):
        text = source.source_text
        data = source.to_dict()
        data.pop("source", None)
        base = source.source.parent if source.source else None
        where = str(source.source or source.name)
        path = source.source
    elif isinstance(source, dict):
        data, path = dict(source), None
    elif isinstance(source, (str, Path)) and not _looks_like_toml_text(source):
        path = _grid_path(Path(source))
        where = str(path)
        try:
            text = path.read_text(encoding="utf-8")
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SweepError(f"{path}: not valid TOML: {exc}") from None
        except UnicodeDecodeError as exc:
            raise SweepError(f"{path}: not UTF-8 text (bad byte at offset {exc.start})") from None
        base = path.resolve().parent
    elif isinstance(source, str):
        path, text = None, source
        try:
            data = tomllib.loads(source)
        except tomllib.TOMLDecodeError as exc:
            raise SweepError(f"grid text is not valid TOML: {exc}") from None
    else:
        raise TypeError(f"source must be a grid path, TOML text, dict or Grid, "
                        f"got {type(source).__name__}")
    data.update({k: v for k, v in overrides.items() if v is not None})
    grid = _from_dict(data, where, base, path, text)
    grid.expand()  # duplicate points are a grid error too
    rules = None
    if check_notebook:
        # the parameters first: a misspelt parameter is named as such, not as a
        # [report] key that then names no parameter
        declared = check_parameters(grid)
        rules = checks.rules_for(declared)
        checks.check_values(grid, rules)
    checks.check_report(grid, rules)
    return grid


def find_grid(path: str | Path) -> Path:
    """Return ``path``, or the shipped grid of that name when ``path`` is a bare name
    (``concurrency``, ``phase9-concurrency.toml``) that is not a file here."""
    path = Path(path)
    if not path.is_file() and path.parent == Path("."):
        from ..resources import find
        shipped = find("sweeps", path.name)
        if shipped is not None:
            return shipped
    return path


def _grid_path(path: Path) -> Path:
    path = find_grid(path)
    if not path.is_file():
        raise SweepError(f"grid file not found: {path} (a bare name such as 'concurrency' "
                         f"picks a grid shipped with cuzklab; `cuzklab grids DIR` copies them)")
    return path


def _looks_like_toml_text(source) -> bool:
    return isinstance(source, str) and ("\n" in source or "=" in source) \
        and not source.endswith(".toml")


def _from_dict(data: dict[str, Any], where: str, base: Path | None, path: Path | None,
               text: str = "") -> Grid:
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise SweepError(f"{where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(TOP_KEYS)}")
    name = data.get("name", path.stem if path else None)
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise SweepError(f"{where}: name must be a folder name of letters, digits, '.', '_' "
                         f"or '-' (at most 100), got {name!r}")
    nb = data.get("notebook", DEFAULT_NOTEBOOK)
    if not isinstance(nb, (str, Path)) or not str(nb):
        raise SweepError(f"{where}: notebook must be a path to an .ipynb file, got {nb!r}")
    notebook = resolve_notebook(nb, base, where)

    params = data.get("parameters", {})
    if not isinstance(params, dict):
        raise SweepError(f"{where}: [parameters] must be a table of name = value, "
                         f"got {type(params).__name__}")
    gridvals = data.get("grid", {})
    if not isinstance(gridvals, dict):
        raise SweepError(f"{where}: [grid] must be a table of name = [values], "
                         f"got {type(gridvals).__name__}")
    for k, v in gridvals.items():
        if not isinstance(v, list) or not v:
            raise SweepError(f"{where}: [grid] {k} must be a non-empty list of values, got {v!r}")
        if k in params:
            raise SweepError(f"{where}: {k!r} is both in [parameters] and [grid]; keep one")
    points = data.get("points", [])
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        raise SweepError(f"{where}: points must be an array of tables ([[points]]), got {points!r}")
    for i, p in enumerate(points):
        if not p:
            raise SweepError(f"{where}: [[points]] number {i + 1} is empty")
    repeats = data.get("repeats", 1)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= 1000:
        raise SweepError(f"{where}: repeats must be an integer from 1 to 1000, got {repeats!r}")
    timeout = data.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0 \
            or not math.isfinite(timeout):
        raise SweepError(f"{where}: timeout_s must be a number of seconds > 0 and finite, "
                         f"got {timeout!r}")
    kernel = data.get("kernel", DEFAULT_KERNEL)
    if not isinstance(kernel, str) or not kernel:
        raise SweepError(f"{where}: kernel must be a kernel name such as 'python3', got {kernel!r}")
    report = data.get("report", {})
    if not isinstance(report, dict):
        raise SweepError(f"{where}: [report] must be a table, got {report!r}")
    bad = sorted(set(report) - set(REPORT_KEYS))
    if bad:
        raise SweepError(f"{where}: unknown [report] key {bad[0]!r}; allowed: {', '.join(REPORT_KEYS)}")
    if report.get("goal", "min") not in ("min", "max"):
        raise SweepError(f"{where}: [report] goal must be 'min' or 'max', got {report['goal']!r}")
    for key in ("metric", "x", "color", "title"):
        if key in report and not isinstance(report[key], str):
            raise SweepError(f"{where}: [report] {key} must be a string, got {report[key]!r}")
    published = report.get("published", [])
    if not isinstance(published, list) or not all(isinstance(e, dict) and e for e in published):
        raise SweepError(f"{where}: [report] published must be an array of tables "
                         f"([[report.published]]), each naming a point and its values")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise SweepError(f"{where}: description must be a string, got {description!r}")
    names = set(params) | set(gridvals) | {k for p in points for k in p}
    if RESULT_PARAMETER in names:
        raise SweepError(f"{where}: {RESULT_PARAMETER!r} is set by the sweep runner; "
                         f"remove it from the grid")
    return Grid(name=name, notebook=notebook, parameters=dict(params), grid=dict(gridvals),
                points=tuple(dict(p) for p in points), repeats=repeats,
                timeout_s=float(timeout), kernel=kernel, report=dict(report),
                description=description, source=path.resolve() if path else None,
                source_text=text)


def resolve_notebook(nb, base: Path | None, where: str = "grid") -> Path:
    """Return the notebook's absolute path: as given, from the current folder, or from
    the grid file's folder and the folders above it."""
    p = Path(nb).expanduser()
    tried = []
    candidates = [p] if p.is_absolute() else [Path.cwd() / p]
    if not p.is_absolute() and base is not None:
        candidates += [d / p for d in (base, *base.parents)]
    for c in candidates:
        tried.append(str(c))
        if c.is_file():
            if c.suffix != ".ipynb":
                raise SweepError(f"{where}: notebook must be an .ipynb file, got {c}")
            return c.resolve()
    if not p.is_absolute() and p.parent in (Path("."), Path("notebooks")):
        from ..resources import find  # the notebooks installed with cuzklab
        shipped = find("notebooks", p.name)
        if shipped is not None and shipped.suffix == ".ipynb":
            return shipped.resolve()
    raise SweepError(f"{where}: notebook {str(nb)!r} not found (looked in the current "
                     f"folder{', above the grid file' if base else ''} and among the "
                     f"notebooks shipped with cuzklab)")


def notebook_parameters(notebook: Path) -> dict[str, dict]:
    """Return the parameters a notebook declares (papermill's inspection: name -> info)."""
    import warnings

    import papermill
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbformat's missing-id warnings on old notebooks
        try:
            return papermill.inspect_notebook(str(notebook))
        except Exception as exc:  # papermill raises several types for unreadable notebooks
            raise SweepError(f"cannot inspect notebook {notebook}: {exc}") from exc


def check_parameters(grid: Grid) -> dict[str, dict]:
    """Return the notebook's declared parameters after checking the grid only uses those.

    Raises SweepError when the notebook has no parameters cell, does not declare
    ``result_path``, or when the grid sets a parameter the notebook does not declare.
    """
    declared = notebook_parameters(grid.notebook)
    if not declared:
        raise SweepError(f"notebook {grid.notebook.name} has no cell tagged 'parameters' "
                         f"(or it declares nothing); sweeps inject values there")
    if RESULT_PARAMETER not in declared:
        raise SweepError(f"notebook {grid.notebook.name} does not declare {RESULT_PARAMETER!r}: "
                         f"add `{RESULT_PARAMETER} = \"\"` to its parameters cell and call "
                         f"cuzklab.sweep.record({RESULT_PARAMETER}, summary) in its last cell")
    checks.check_unknown(grid, declared, RESULT_PARAMETER)
    return declared
