"""Every reference in the README and docs/ resolves.

Walked in each page: links and images (relative files, ``#anchors`` against
the target page's headings), code names in backticks (``cuzklab.x.y`` must
import; a call such as ``simulate(config)`` must name something cuzklab
defines), repository paths in backticks or shell blocks (``data/sweeps/...``),
imports and free function calls in ```` ```python ```` blocks, and ``cuzklab ...``
command lines in shell blocks (the real parser must accept them). A failure
lists every broken reference as ``FILE:LINE: what -- why``.
"""

from __future__ import annotations

import ast
import builtins
import glob
import importlib
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted(ROOT.glob("papermill_runs/*.md"))]
# Top-level folders of the repository: a backticked path starting with one is checked.
REPO_DIRS = ("cuzklab", "data", "notebooks", "docs", "benchmarks", "tests", ".ci")
PATH_RE = re.compile(rf"^(?:{'|'.join(re.escape(d) for d in REPO_DIRS)})/[\w./*@+-]*$")
CUZKLAB_NAME_RE = re.compile(r"(?<![\w/.-])cuzklab(?:\.[A-Za-z_]\w*)+")
CALL_RE = re.compile(r"^([A-Za-z_][\w.]*)\(")
LINK_RE = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)")
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
FENCE_RE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
# Short names the docs use for modules outside cuzklab (``go.Bar``, ``np.asarray``).
ALIASES = {"go": "plotly.graph_objects", "np": "numpy", "pd": "pandas", "cp": "cupy",
           "px": "plotly.express", "pm": "papermill"}
# Classes from other libraries whose methods the docs call by their bare name.
FOREIGN_CLASSES = ("plotly.graph_objects.FigureWidget", "pandas.DataFrame", "ipywidgets.Widget")
# Names from cuzk's Rust side that its logs print (`Some(3)` in tracing fields).
RUST_NAMES = frozenset({"Some", "Ok", "Err"})
# Calls in the daemon's own code that docs/cuzk-daemon.md cites when it lists the
# lines the daemon writes: C's stdio and a C++ exception's message.
DAEMON_CALLS = frozenset({"printf", "fprintf", "what", "get_groth16_pool"})
# A dotted name whose first part is a sub-package is read as cuzklab's
# (`plots.compose.stack_specs`); two dots at least, so `trace.summary()` on a
# variable named trace is not mistaken for one.
# A page named in passing (`see design.md`, "DESIGN.md's"): it must be in the repository.
MD_MENTION_RE = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.md)\b")
# Pages of other projects that the docs and code cite by name (Curio's cuzk notes).
EXTERNAL_PAGES = frozenset({"cuzk-project.md", "cuzk-memory-manager.md"})
SUBPACKAGE_RE = re.compile(r"^(?:field|curve|msm|ntt|groth16|stages|model|sim|live|tune|trace|"
                           r"cuzk|plots|widgets|sweep)(?:\.[A-Za-z_]\w*){2,}$")


@dataclass
class Page:
    """A markdown page split into prose lines (code spans kept) and fenced blocks."""

    path: Path
    prose: list[tuple[int, str]]
    blocks: list[tuple[int, str, str]]  # (first line number, language, text)

    @classmethod
    def read(cls, path: Path) -> "Page":
        prose, blocks = [], []
        fence = None
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = FENCE_RE.match(line)
            if fence is None and m:
                fence, lang, start, body = m.group(1), m.group(2).lower(), n + 1, []
            elif fence is not None and line.strip().startswith(fence[0] * len(fence)) \
                    and not line.strip().strip(fence[0]):
                blocks.append((start, lang, "\n".join(body)))
                fence = None
            elif fence is not None:
                body.append(line)
            else:
                prose.append((n, line))
        return cls(path, prose, blocks)

    @property
    def name(self) -> str:
        p = self.path.resolve()
        return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else p.name


def slug(heading: str) -> str:
    """Return GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@lru_cache(maxsize=None)
def anchors(path: Path) -> frozenset[str]:
    """Return the anchors of a page's headings (repeated headings get -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in Page.read(path).prose:
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = slug(m.group(1))
        k = seen.get(s, 0)
        out.add(s if k == 0 else f"{s}-{k}")
        seen[s] = k + 1
    return frozenset(out)


@lru_cache(maxsize=None)
def defined_names() -> frozenset[str]:
    """Return every function, class, method, module and module-level name cuzklab defines."""
    names = set()
    for path in (ROOT / "cuzklab").rglob("*.py"):
        names.add(path.stem)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) else []
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


def resolve_dotted(name: str) -> str | None:
    """Return None if ``a.b.c`` imports (a module, then attributes), else why not."""
    parts = name.split(".")
    if parts[0] in ALIASES:
        parts = ALIASES[parts[0]].split(".") + parts[1:]
    obj, i = None, len(parts)
    while i > 0:
        try:
            obj = importlib.import_module(".".join(parts[:i]))
            break
        except ModuleNotFoundError as exc:
            if exc.name and not ".".join(parts[:i]).startswith(exc.name):
                return f"importing {'.'.join(parts[:i])} needs {exc.name}, not installed"
            i -= 1
    if obj is None:
        return f"no module {parts[0]!r}"
    for j, attr in enumerate(parts[i:], i):
        if not hasattr(obj, attr):
            return f"{'.'.join(parts[:j])} has no {attr!r}"
        obj = getattr(obj, attr)
    return None


def check_call_name(dotted: str) -> str | None:
    """Return None if a call's name is a builtin, a cuzklab definition or resolves, else why not."""
    parts = dotted.split(".")
    if dotted.startswith("cuzklab."):
        return resolve_dotted(dotted)
    if len(parts) == 1:
        if hasattr(builtins, dotted) or dotted in defined_names() or dotted in RUST_NAMES | DAEMON_CALLS \
                or any(resolve_dotted(f"{cls}.{dotted}") is None for cls in FOREIGN_CLASSES):
            return None
        return f"cuzklab defines no {dotted!r}"
    if parts[0] in ALIASES:
        why = resolve_dotted(dotted)
        return None if why is None or "not installed" in why else why
    if parts[-1] in defined_names():
        return None
    return f"cuzklab defines no {parts[-1]!r}"


def check_path(token: str) -> str | None:
    """Return None if a repository path (globs allowed) exists, else why not."""
    if "<" in token or "..." in token:
        return None
    pattern = token.rstrip("/.,;:")
    return None if glob.glob(str(ROOT / pattern)) else "no such file or folder in the repository"


def check_page_mention(here: Path, name: str) -> str | None:
    """Return None if a page named in text exists beside ``here``, at the root or in docs/."""
    if name in EXTERNAL_PAGES or name.rsplit("/", 1)[-1] in EXTERNAL_PAGES:
        return None
    for base in (here.parent, ROOT, ROOT / "docs"):
        if (base / name).is_file():
            return None
    return "no such page in the repository"


def check_link(page: Page, target: str) -> str | None:
    """Return None if a link's file and anchor exist, else why not."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return None  # http(s), mailto: not checked offline
    path, _, anchor = target.partition("#")
    dest = (page.path.parent / path).resolve() if path else page.path
    if not dest.exists():
        return f"no file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}"
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
        return f"{dest.name} has no heading with anchor #{anchor}"
    return None


def _python_problems(code: str) -> list[tuple[int, str, str]]:
    """Return (line offset, name, why) for unresolved imports and free calls of a Python block."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []  # a fragment with placeholders (``...``) is not checked as code
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cuzklab"):
            for alias in node.names:
                why = resolve_dotted(f"{node.module}.{alias.name}")
                if why:
                    out.append((node.lineno, f"from {node.module} import {alias.name}", why))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("cuzklab"):
                    why = resolve_dotted(alias.name)
                    if why:
                        out.append((node.lineno, f"import {alias.name}", why))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id not in bound:
            why = check_call_name(node.func.id)
            if why:
                out.append((node.lineno, f"{node.func.id}(...)", why))
    return out


def _command_lines(code: str):
    """Yield (line offset, argv) of each ``cuzklab ...`` command in a shell block."""
    lines = code.splitlines()
    i = 0
    while i < len(lines):
        start, text = i, lines[i]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i]
        i += 1
        for part in re.split(r"&&|;", text.split(" #")[0]):
            part = re.sub(r"^\s*\$\s*", "", part).strip()
            if part.startswith("cuzklab ") and not re.search(r"[\[\]|]|\.\.\.|<", part):
                yield start, shlex.split(part)[1:]


def problems(page: Page) -> list[str]:
    """Return every broken reference of a page, as ``FILE:LINE: what -- why``."""
    out = []

    def bad(line: int, what: str, why: str | None):
        if why:
            out.append(f"{page.name}:{line}: {what} -- {why}")

    for n, line in page.prose:
        spans = [m.group(2).strip() for m in CODE_SPAN_RE.finditer(line)]
        text = CODE_SPAN_RE.sub("", line)
        for m in LINK_RE.finditer(text):
            bad(n, f"link ({m.group(1)})", check_link(page, m.group(1)))
        m = REF_LINK_RE.match(text)
        if m:
            bad(n, f"link [{m.group(1)}]", check_link(page, m.group(1)))
        for name in MD_MENTION_RE.findall(LINK_RE.sub("", line)):
            bad(n, name, check_page_mention(page.path, name))
        for span in spans:
            for name in CUZKLAB_NAME_RE.findall(span):
                bad(n, f"`{name}`", resolve_dotted(name))
            if SUBPACKAGE_RE.match(span):
                bad(n, f"`{span}`", resolve_dotted(f"cuzklab.{span}"))
            m = CALL_RE.match(span)
            if m and not m.group(1).startswith("cuzklab."):
                bad(n, f"`{m.group(1)}(...)`", check_call_name(m.group(1)))
            for token in span.split():
                if PATH_RE.match(token):
                    bad(n, f"`{token}`", check_path(token))
    for start, lang, code in page.blocks:
        if lang in ("python", "py"):
            for off, what, why in _python_problems(code):
                bad(start + off - 1, what, why)
        elif lang in ("", "sh", "bash", "shell", "console"):
            for off, token in ((o, t) for o, line in enumerate(code.splitlines())
                               for t in line.split()):
                if PATH_RE.match(token):
                    bad(start + off, token, check_path(token))
            for off, argv in _command_lines(code):
                bad(start + off, "cuzklab " + " ".join(argv), _parse_command(argv))
    return out


def _parse_command(argv: list[str]) -> str | None:
    """Return None if the ``cuzklab`` parser accepts ``argv``, else its error."""
    import contextlib
    import io

    from cuzklab.cli import build_parser
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as exc:
        if exc.code:
            return err.getvalue().strip() or f"exit {exc.code}"
    return None


def test_pages_named_in_code_exist():
    """Docstrings and comments that send the reader to a page name one that exists."""
    found = []
    for folder in ("cuzklab", "benchmarks", "notebooks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".ipynb", ".toml", ".sh") or "__pycache__" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for name in MD_MENTION_RE.findall(line):
                    why = check_page_mention(path, name)
                    if why:
                        found.append(f"{path.relative_to(ROOT)}:{n}: {name} -- {why}")
    assert not found, "pages named that do not exist:\n" + "\n".join(found)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_reference_resolves(path):
    found = problems(Page.read(path))
    assert not found, "broken references:\n" + "\n".join(found)


def test_checker_finds_broken_references(tmp_path):
    (tmp_path / "other.md").write_text("# Quick start\n")
    page = tmp_path / "broken.md"
    page.write_text("\n".join([
        "# Title", "See [missing](nope.md), [anchor](other.md#no-such-heading),",
        "[fine](other.md#quick-start), `cuzklab.sim.no_such_thing`,",
        "`parse_logs_for(config)`, `data/sweeps/absent.toml`.", "```python",
        "from cuzklab.cuzk import parse_logs, Nope", "parse_logs_for(1)", "```", "```",
        "cuzklab simulate --no-such-option", "```", "As DESIGN.md says."]))
    found = "\n".join(problems(Page.read(page)))
    for expected in ("broken.md:2: link (nope.md)", "#no-such-heading",
                     "`cuzklab.sim.no_such_thing`", "`parse_logs_for(...)`",
                     "data/sweeps/absent.toml", "import Nope", "parse_logs_for(...) --",
                     "--no-such-option", "broken.md:12: DESIGN.md -- no such page"):
        assert expected in found, (expected, found)
    assert "quick-start" not in found
