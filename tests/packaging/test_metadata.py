"""What the package declares: extras, exports of errors, and how ``make demo`` says to run it."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

import cuzklab
from cuzklab import backend
from cuzklab.errors import CuzklabError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(cuzklab.__file__).resolve().parent


def test_gpu_extras_for_both_cuda_lines():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for major, extra in backend.GPU_EXTRAS.items():
        assert extra in extras, f"pyproject.toml has no extra {extra!r}"
        assert any(re.match(rf"cupy-cuda{major}x\b", r) for r in extras[extra]), extras[extra]
    newest = backend.GPU_EXTRAS[max(backend.GPU_EXTRAS)]
    assert extras["gpu"] == [f"cuzklab[{newest}]"]


def test_daemon_and_its_error_import_from_cuzk():
    from cuzklab.cuzk import Daemon, DaemonStartError
    assert issubclass(DaemonStartError, CuzklabError)
    assert Daemon.__module__ == "cuzklab.cuzk.harness"
    assert cuzklab.CuzklabError is CuzklabError


def _subpackages() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.glob("*/__init__.py"))


def _raised_errors(pkg: Path) -> dict[str, str]:
    """Return {error name: module that uses it} for the errors a sub-package's modules name."""
    import cuzklab.errors as errors
    found: dict[str, str] = {}
    for path in sorted(pkg.rglob("*.py")):
        modname = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "errors" \
                    and (node.level > 0 or node.module == "cuzklab.errors"):
                for alias in node.names:
                    if alias.name != "CuzklabError" and hasattr(errors, alias.name):
                        found.setdefault(alias.name, modname)
            elif isinstance(node, ast.ClassDef) and node.col_offset == 0 and any(
                    isinstance(b, ast.Name) and (b.id.endswith("Error") or b.id in vars(errors))
                    for b in node.bases):
                cls = getattr(importlib.import_module(modname.removesuffix(".__init__")), node.name)
                if isinstance(cls, type) and issubclass(cls, CuzklabError):
                    found.setdefault(node.name, modname)
    return found


@pytest.mark.parametrize("pkg", _subpackages(), ids=lambda p: p.name)
def test_errors_a_package_raises_import_from_it(pkg):
    name = f"cuzklab.{pkg.name}"
    mod = importlib.import_module(name)
    missing = [f"{err} (used in {where})" for err, where in _raised_errors(pkg).items()
               if not hasattr(mod, err)]
    assert not missing, f"{name} does not export: {', '.join(missing)}"


def test_make_demo_runs_the_demo_that_says_how_to_run_cuzklab(tmp_path):
    rules = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", rules, re.M)
    assert recipe and "-m cuzklab.demo" in recipe.group(1)
    from cuzklab.demo import command_hint
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "cuzklab").write_text("")
    hint = command_hint(tmp_path / ".venv", cwd=tmp_path)
    assert ".venv/bin/cuzklab --help" in hint
    assert "source .venv/bin/activate" in hint
    assert "--resume" in hint and "not installed" not in hint
