#!/usr/bin/env python3
"""How long one control change takes in the browser, from the change to the last figure redrawn.

    python benchmarks/bench_explorer_browser.py [--proofs 20] [--changes 15] [--json out.json]

Starts JupyterLab over a copy of ``notebooks/01-explore-pipeline.ipynb`` with
the starting run set to ``--proofs`` (and proofs in flight), opens it in
Debian's Chromium driven by Playwright, runs every cell, then changes the lock
strategy ``--changes`` times in each of two series: *new runs*, with the
explorer's kept runs turned off (``explorer.cache_size = 0``), so every change
simulates anew; and *kept runs*, the default, where the two alternating
configurations have been seen before and are drawn from the runs the explorer
kept. Each change is timed in the page: from the moment the dropdown's value is set
(``performance.now()`` just before its change event) to the last
``plotly_afterplot`` event of the explorer's figures, once the timeline's
title names the new lock and no figure has redrawn for ``--quiet-ms``. The
Python side of each change (source, summary, figure updates) is read from the
explorer's status line. Prints medians and writes JSON (CPU, cores, load
average before and after, sizes, medians, p90, every change).

``--code-dir DIR`` runs the same measurement on another checkout's cuzklab and
notebook (an older commit, say) in the same minute, for a fair ratio on a
shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import re
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuzklab.backend import device_name  # noqa: E402
from tests.browser.lab import (CHROMIUM_ARGS, TIMELINE_TITLE, chromium_path,  # noqa: E402
                               jupyterlab, open_explorer)

LOCKS = ("interlock", "split_async")
LOCK_SELECT = ".cuzklab-control-lock select"
STATUS = ".cuzklab-status"
STEP_TIMEOUT_MS = 120_000

# Hooks every explorer figure's plotly_afterplot and records when each redrew.
_HOOK = """() => {
  const cz = window.__cz || (window.__cz = {events: [], t0: 0});
  document.querySelectorAll('.cuzklab-explorer .js-plotly-plot').forEach((gd, i) => {
    if (gd.__czHooked || typeof gd.on !== 'function') return;
    gd.__czHooked = true;
    gd.on('plotly_afterplot', () => cz.events.push([performance.now(), i]));
  });
  return document.querySelectorAll('.cuzklab-explorer .js-plotly-plot').length;
}"""
_CHANGE = """(value) => {
  const cz = window.__cz; cz.events = [];
  const s = document.querySelector('%s');
  cz.t0 = performance.now();
  s.value = value;
  s.dispatchEvent(new Event('change', {bubbles: true}));
}""" % LOCK_SELECT
# Runs Python in the notebook's kernel (the explorer object is ``explorer``).
_KERNEL = """async (code) => {
  const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const f = k.requestExecute({code: code});
  await f.done;
}"""
_SETTLED = """([title, lock, figures, quiet]) => {
  const cz = window.__cz, e = cz.events;
  const t = document.querySelector(title);
  if (!t || !t.textContent.includes('lock=' + lock)) return false;
  if (new Set(e.map(x => x[1])).size < figures) return false;
  return performance.now() - e[e.length - 1][0] > quiet;
}"""


def _stats(values: list[float]) -> dict:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return {"median_ms": round(statistics.median(values), 1), "p90_ms": round(p90, 1),
            "min_ms": round(values[0], 1), "max_ms": round(values[-1], 1), "n": len(values)}


def _python_side(status: str) -> float | None:
    """Return the milliseconds the explorer's status line reports for one update."""
    parts = [float(v) for v in re.findall(r"(\d+) ms", status)]
    return sum(parts) if len(parts) == 3 else None


def _series(page, figures: int, changes: int, quiet_ms: float) -> tuple[list, list]:
    """Time ``changes`` lock changes (after one untimed); return browser and Python ms."""
    browser_ms: list[float] = []
    python_ms: list[float] = []
    title = page.locator(TIMELINE_TITLE).first.text_content() or ""
    for i in range(changes + 1):
        lock = LOCKS[i % 2] if "lock=" + LOCKS[i % 2] not in title else LOCKS[(i + 1) % 2]
        page.evaluate(_HOOK)
        page.evaluate(_CHANGE, lock)
        page.wait_for_function(_SETTLED, arg=[TIMELINE_TITLE, lock, figures, quiet_ms])
        ms = page.evaluate("() => window.__cz.events[window.__cz.events.length - 1][0]"
                           " - window.__cz.t0")
        title = page.locator(TIMELINE_TITLE).first.text_content() or ""
        py = _python_side(page.locator(STATUS).first.text_content() or "")
        if i == 0:
            continue  # the first change warms plotly.js and the kernel's caches
        browser_ms.append(ms)
        if py is not None:
            python_ms.append(py)
    return browser_ms, python_ms


def measure(proofs: int, concurrency: int, changes: int, quiet_ms: float,
            code_dir: pathlib.Path | None = None, oom_seeds: int | None = None) -> dict:
    """Run JupyterLab and Chromium, time ``changes`` lock changes a series; return results."""
    from playwright.sync_api import sync_playwright
    chromium = chromium_path()
    if chromium is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    series = {}
    with tempfile.TemporaryDirectory() as tmp, \
            jupyterlab(pathlib.Path(tmp), {"proofs": str(proofs),
                                           "concurrency": str(concurrency)},
                       code_root=code_dir) as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 2400})
            page.set_default_timeout(STEP_TIMEOUT_MS)
            open_explorer(page, url)
            figures = 0
            deadline = time.monotonic() + 60
            while figures < 2 and time.monotonic() < deadline:
                figures = page.evaluate(_HOOK)
                time.sleep(0.2)
            spans = re.search(r"(\d+) spans", page.locator(STATUS).first.text_content() or "")
            if oom_seeds is not None:
                page.evaluate(_KERNEL, f"explorer.controls['oom_seeds'].value = {oom_seeds}")
            # New runs: nothing kept, every change simulates (an explorer without
            # kept runs, an older one, ignores the setting).
            page.evaluate(_KERNEL, "explorer.cache_size = 0")
            series["new"] = _series(page, figures, changes, quiet_ms)
            page.evaluate(_KERNEL, "explorer.cache_size = 16")
            series["kept"] = _series(page, figures, changes, quiet_ms)
        finally:
            browser.close()
    out = {"figures": figures, "spans": int(spans.group(1)) if spans else None}
    for name, (browser_ms, python_ms) in series.items():
        out[name] = {"change": _stats(browser_ms),
                     "python_side": _stats(python_ms) if python_ms else None,
                     "changes_ms": [round(v, 1) for v in browser_ms]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proofs", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=15)
    ap.add_argument("--changes", type=int, default=15)
    ap.add_argument("--quiet-ms", type=float, default=600.0,
                    help="no redraw for this long ends a change (default 600)")
    ap.add_argument("--oom-seeds", type=int, default=None,
                    help="seeds behind the OOM risk (default: the explorer's; 1 runs none in "
                         "the background)")
    ap.add_argument("--code-dir", type=pathlib.Path, default=None,
                    help="measure the cuzklab and notebook of this checkout instead")
    ap.add_argument("--label", default=None,
                    help="what the JSON calls the code measured (default: its folder's name)")
    ap.add_argument("--json", default="bench_explorer_browser.json",
                    help="output path ('' for none)")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    res = measure(args.proofs, min(args.concurrency, args.proofs), args.changes, args.quiet_ms,
                  args.code_dir.resolve() if args.code_dir else None, args.oom_seeds)
    load_after = os.getloadavg()
    result = {"benchmark": "explorer_browser_change", "device": device_name("cpu"),
              "cores": os.cpu_count(), "python": platform.python_version(),
              "load_average_before": [round(v, 2) for v in load_before],
              "load_average_after": [round(v, 2) for v in load_after],
              "config": {"proofs": args.proofs, "concurrency": min(args.concurrency, args.proofs)},
              "oom_seeds": args.oom_seeds if args.oom_seeds is not None else "explorer default",
              "code": args.label or (args.code_dir.name if args.code_dir else "this checkout"),
              **res}
    print(f"explorer in Chromium, {args.proofs} proofs ({res['spans']} spans), {res['figures']} "
          f"figures, {os.cpu_count()} cores, load {load_before[0]:.1f} -> {load_after[0]:.1f}")
    for name, what in (("new", "a new run (simulated)"), ("kept", "a run seen before (kept)")):
        c, py = res[name]["change"], res[name]["python_side"]
        print(f"  change to last figure redrawn, {what}: {c['median_ms']:.0f} ms median "
              f"(p90 {c['p90_ms']:.0f}, min {c['min_ms']:.0f}, n={c['n']})"
              + (f"; Python side {py['median_ms']:.0f} ms" if py else ""))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
