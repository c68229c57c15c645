"""Layout rules: groth16 knows nothing of the stages, and the math layers have no import loops."""

from __future__ import annotations

import ast
from pathlib import Path

import cuzklab

ROOT = Path(cuzklab.__file__).parent
#: Packages whose modules must form an import graph without cycles (lazy imports count).
ACYCLIC = ("curve", "groth16", "ntt", "stages", "native", "msm", "field")


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Return every cuzklab module ``path`` imports, top-level or inside a function."""
    mod = _module(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("cuzklab")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("cuzklab"):
                continue
            out.add(target)
            for a in node.names:   # "from . import jacobian" names a module
                if (ROOT.parent / (target + "." + a.name).replace(".", "/")).with_suffix(".py").exists():
                    out.add(target + "." + a.name)
    return out


def _graph(packages) -> dict[str, set[str]]:
    files = [p for pkg in packages for p in (ROOT / pkg).rglob("*.py")]
    mods = {_module(p): p for p in files}
    return {m: {t for t in _imports(p) if t in mods and t != m} for m, p in mods.items()}


def test_groth16_does_not_import_the_stages_or_the_prover():
    for path in (ROOT / "groth16").rglob("*.py"):
        bad = {t for t in _imports(path)
               if t.startswith(("cuzklab.stages", "cuzklab.prove", "cuzklab.live"))}
        assert not bad, f"{_module(path)} imports {sorted(bad)}"


def test_the_prover_sits_above_the_stages():
    assert "cuzklab.stages" in _imports(ROOT / "prove.py")
    assert not (ROOT / "groth16" / "prove.py").exists()
    for path in (ROOT / "stages").rglob("*.py"):
        assert not {t for t in _imports(path) if t.startswith("cuzklab.prove")}, path


def test_no_import_cycles_in_the_math_and_stage_layers():
    graph = _graph(ACYCLIC)
    # a submodule importing its own package's __init__ is not a loop worth reporting
    for m, deps in graph.items():
        deps -= {d for d in deps if m.startswith(d + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycle = stack[stack.index(d):] + [d]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
