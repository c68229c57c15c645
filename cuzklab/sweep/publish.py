"""Make a finished sweep folder small and free of this machine's paths, to commit or share.

``publish(src, dest)`` writes a copy of the sweep folder ``src`` into ``dest``:

* ``sweep.json`` and each point's sidecar, with absolute paths written relative
  (cuzklab's own files to the checkout, the sweep's files to the sweep folder;
  a point's scratch folder dropped) and the files that are left out removed
  from each sidecar's ``files``;
* each point's executed notebook without its outputs (parameters and code stay,
  so it reruns as it ran);
* the results table, rebuilt from those sidecars, and ``report.html``, rebuilt
  too, loading plotly.js from plotly's CDN instead of carrying its own copy
  (a few kB instead of ~5 MB; the page needs the network to draw);
* ``report.png``, a screenshot of the full report, when Chromium is installed.

Per-point traces and other artifacts stay behind. ``python -m
cuzklab.sweep.publish SRC DEST`` does the same from a shell.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..atomic import write_text
from ..errors import SweepError
from .results import read_plan

# Chromium's viewport for the report screenshot: the report's own width; the
# height of its headline and three figures (~1500 px) plus the points table's rows.
SCREENSHOT_WIDTH = 1400
SCREENSHOT_BASE_PX, SCREENSHOT_ROW_PX, SCREENSHOT_MAX_PX = 1500, 30, 8000
# Milliseconds of page time Chromium gives plotly to draw before the shot.
SCREENSHOT_BUDGET_MS = 8000


def _relative(text: str, src: Path) -> str:
    """Return ``text`` with this machine's absolute paths made relative."""
    from ..resources import checkout_root
    scratch = re.escape(str(Path(tempfile.gettempdir()).resolve())) + r"/cuzklab-point-[^/\"\\]+/"
    text = re.sub(scratch, "points/", text)
    text = text.replace(str(src.resolve()) + "/", "").replace(str(src.resolve()), ".")
    root = checkout_root()
    if root is not None:
        text = text.replace(str(root) + "/", "")
    return text


def _strip_outputs(nb_text: str) -> str:
    """Return a notebook's JSON with every output and execution count removed."""
    nb = json.loads(nb_text)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def cdn_plotlyjs(page: str) -> str:
    """Return a report page whose inlined plotly.js bundle is replaced by plotly's CDN script tag."""
    import plotly.graph_objects as go
    tag = re.search(r"<script[^>]*\bsrc=\"[^\"]+\"[^>]*></script>",
                    go.Figure().to_html(full_html=False, include_plotlyjs="cdn")).group(0)
    m = re.search(r"<script[^>]*>\s*/\*\*?\s*\n?\*?\s*plotly\.js v[\d.]+", page)
    if m is None:
        return page  # nothing inlined (already a CDN or a shared copy)
    end = page.index("</script>", m.end()) + len("</script>")
    return page[:m.start()] + tag + page[end:]


def screenshot(html: Path, png: Path, rows: int = 0) -> Path | None:
    """Write a full-width PNG of ``html`` (a report of ``rows`` points) with headless
    Chromium; None when none is installed."""
    from ..plots.export import find_chrome
    chrome = find_chrome()
    if chrome is None:
        return None  # no Chromium here: the report stands without its picture
    w = SCREENSHOT_WIDTH
    h = min(SCREENSHOT_BASE_PX + SCREENSHOT_ROW_PX * rows, SCREENSHOT_MAX_PX)
    subprocess.run([str(chrome), "--headless", "--no-sandbox", "--hide-scrollbars",
                    f"--screenshot={png}", f"--window-size={w},{h}",
                    f"--virtual-time-budget={SCREENSHOT_BUDGET_MS}", html.resolve().as_uri()],
                   check=True, capture_output=True, timeout=180)
    return png


def publish(src, dest, *, png: bool = True) -> Path:
    """Write the publishable copy of the sweep folder ``src`` into ``dest``; return ``dest``."""
    from .report import write_report
    from .results import write_table
    src, dest = Path(src), Path(dest)
    plan = read_plan(src)
    if plan is None:
        raise SweepError(f"{src} is not a sweep folder (no sweep.json)")
    if dest.resolve() == src.resolve():
        raise SweepError("publish: dest must be another folder than src")
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "points").mkdir(parents=True)
    write_text(dest / "sweep.json", _relative((src / "sweep.json").read_text(), src))
    for sidecar in sorted((src / "points").glob("*.json")):
        data = json.loads(_relative(sidecar.read_text(), src))
        kept = [f for f in data.get("files", []) if f.endswith(".ipynb")]
        for f in kept:
            if (src / f).is_file():
                write_text(dest / f, _strip_outputs(_relative((src / f).read_text(), src)))
        data["files"] = kept
        write_text(dest / "points" / sidecar.name, json.dumps(data, indent=1) + "\n")
    write_table(dest)
    report = write_report(dest)
    if png:  # drawn while plotly.js is still inline
        screenshot(report, dest / "report.png", rows=len(list((dest / "points").glob("*.json"))))
    write_text(report, cdn_plotlyjs(report.read_text(encoding="utf-8")))
    return dest


def main(argv=None) -> int:
    """Publish a sweep folder from the command line; return the exit code."""
    ap = argparse.ArgumentParser(prog="python -m cuzklab.sweep.publish",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="a finished sweep folder (papermill_runs/<name>)")
    ap.add_argument("dest", type=Path, help="where to write the publishable copy")
    ap.add_argument("--no-png", action="store_true", help="skip report.png")
    args = ap.parse_args(argv)
    try:
        out = publish(args.src, args.dest, png=not args.no_png)
    except SweepError as exc:
        print(f"cuzklab: error: {exc}", file=sys.stderr)
        return 2
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"published {args.src} -> {out} ({size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
