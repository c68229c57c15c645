"""The explorer in a real browser: JupyterLab, Chromium, run all, move controls.

Starts JupyterLab on a free local port in a temporary root holding a copy of
the explorer notebook, drives the system Chromium with Playwright to run every
cell, changes the lock strategy and a slider, and checks that the headline and
the timeline changed each time. Screenshots go to ``test-artifacts/``. The
server and its kernels are stopped whatever happens.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from .lab import (CHROMIUM_ARGS, HEADLINE, ROOT, TIMELINE_TITLE, chromium_path, jupyterlab,
                  open_explorer)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts"
STEP_TIMEOUT_MS = 150_000  # per step; generous for a loaded 2-core machine
SMALL_RUN = {"proofs": "10", "concurrency": "8"}


@pytest.fixture
def lab(tmp_path):
    """Yield the base URL of a JupyterLab serving a temp copy of the explorer notebook."""
    # A smaller starting run (as papermill would set it): less to draw.
    with jupyterlab(tmp_path, SMALL_RUN) as url:
        yield url


def _text(page, selector: str) -> str:
    return page.locator(selector).first.text_content() or ""


def _wait_change(page, selector: str, old: str, what: str) -> str:
    page.wait_for_function(
        "([sel, old]) => { const e = document.querySelector(sel);"
        " return e && e.textContent.trim() !== old.trim(); }",
        arg=[selector, old], timeout=STEP_TIMEOUT_MS)
    new = _text(page, selector)
    assert new.strip() != old.strip(), f"{what} did not change"
    return new


# Page coordinates of the middle of the first synth span on the lowest-numbered
# synthesis lane of the timeline, and that lane's name.
_FIRST_SYNTH_MIDDLE = """() => {
  const gd = document.querySelector('.cuzklab-explorer .js-plotly-plot');
  const shape = gd._fullLayout.shapes.find(s => s.name === 'synth');
  // the first rectangle of the stage's path: M x0,y0 H x1 V y1 H x0 Z
  const [x0, y0, x1, y1] = shape.path.match(/^M([^,]+),([^H]+)H([^V]+)V([^H]+)H/)
    .slice(1).map(Number);
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const lane = (y0 + y1) / 2;
  const box = gd.querySelector('.nsewdrag').getBoundingClientRect();
  return [box.left + xa.l2p((x0 + x1) / 2), box.top + ya.l2p(lane),
          gd._fullLayout.yaxis.ticktext[Math.round(lane)]];
}"""


# The timeline's stages: drawn (a path on the page) and hoverable, by name.
_STAGES_SHOWN = """() => {
  const gd = document.querySelector('.cuzklab-explorer .js-plotly-plot');
  const drawn = new Set([...gd.querySelectorAll('.shapelayer path[data-index]')]
    .map(p => gd._fullLayout.shapes[+p.getAttribute('data-index')].name));
  const hover = gd._fullData.filter(t => t.visible === true).map(t => t.name);
  return [[...drawn].sort(), hover.sort()];
}"""


def _spp(text: str) -> str:
    return re.search(r"([0-9.]+) s/proof", text).group(1)


def _settled(page, headline: str, follower: str, quiet_s: float = 1.0) -> str:
    """Return the headline once it and ``follower`` show the same s/proof for ``quiet_s``."""
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        a, b = _text(page, headline), _text(page, follower)
        m, n = re.search(r"([0-9.]+) s/proof", a), re.search(r"([0-9.]+) s/proof", b)
        now = (a, b) if m and n and m.group(1) == n.group(1) else None
        if now != last:
            last, since = now, time.monotonic()
        elif now is not None and time.monotonic() - since >= quiet_s:
            return a
        time.sleep(0.1)
    raise AssertionError(f"{headline} and {follower} did not settle on one s/proof: {last}")




def test_explorer_in_jupyterlab(lab):
    chromium = chromium_path()
    if chromium is None:
        pytest.skip("needs Chromium")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 3000})
            logs = []
            page.on("console", lambda m: logs.append(f"{m.type}: {m.text}"))
            page.set_default_timeout(STEP_TIMEOUT_MS)
            open_explorer(page, lab)
            head0 = _text(page, HEADLINE)
            title0 = _text(page, TIMELINE_TITLE)
            assert "s/proof" in head0 and "lock=split_async" in title0
            assert "10 proofs" in title0
            explorer = page.locator(".cuzklab-explorer").first
            # The OOM risk: seeds 1 and 2 run in the background, then the line says so.
            page.wait_for_function(
                "() => /OOM risk \\d+%: \\d of 3 seeds \\(seeds 0-2\\) ran out of host memory/"
                ".test(document.querySelector('.cuzklab-oom-risk').textContent)")
            explorer.screenshot(path=str(ARTIFACTS / "explorer-1-initial.png"))

            # Hover the middle of the first span on the first synthesis lane:
            # the label names its stage, lane and proof.
            x, y, lane = page.evaluate(_FIRST_SYNTH_MIDDLE)
            page.mouse.move(x - 40, y - 5)
            page.mouse.move(x, y, steps=4)
            page.wait_for_selector(".cuzklab-explorer .hovertext", timeout=STEP_TIMEOUT_MS)
            hover = _text(page, ".cuzklab-explorer .hovertext")
            assert f"synth on {lane}" in hover and "proof" in hover and "partition" in hover
            page.mouse.move(5, 5)

            # A click on a stage in the legend hides its rectangles and its hover; a
            # second click shows them again.
            drawn, hoverable = page.evaluate(_STAGES_SHOWN)
            assert "synth" in drawn and "synth" in hoverable
            legend = page.locator(".cuzklab-explorer .js-plotly-plot").first.locator(
                ".legend .traces", has_text="synth").first
            legend.locator(".legendtoggle").click()
            page.wait_for_function(f"() => !({_STAGES_SHOWN})()[0].includes('synth')")
            hidden, hover_hidden = page.evaluate(_STAGES_SHOWN)
            assert set(drawn) - set(hidden) == {"synth"} and "synth" not in hover_hidden
            legend.locator(".legendtoggle").click()
            page.wait_for_function(f"() => ({_STAGES_SHOWN})()[0].includes('synth')")

            # The lock strategy: a dropdown.
            page.select_option(".cuzklab-control-lock select", "interlock")
            title1 = _wait_change(page, TIMELINE_TITLE, title0, "timeline title")
            assert "lock=interlock" in title1
            # the timeline is sent first; the headline follows once the summary is in
            head1 = _wait_change(page, HEADLINE, head0, "headline with the lock strategy")
            explorer.screenshot(path=str(ARTIFACTS / "explorer-2-interlock.png"))

            # Pin this run: the next ones are compared with it.
            page.get_by_role("button", name="Pin for comparison").click()
            page.wait_for_selector(".cuzklab-pinned-headline .cuzklab-headline",
                                   state="visible")

            # A slider: partition workers, moved with the keyboard on its handle.
            handle = page.locator(".cuzklab-control-partition-workers .noUi-handle").first
            handle.focus()
            for _ in range(6):
                handle.press("ArrowLeft")
            title2 = _wait_change(page, TIMELINE_TITLE, title1, "timeline title")
            pw = int(re.search(r"pw=(\d+)", title2).group(1))
            assert pw < 10
            page.wait_for_function(
                "([sel, old]) => { const e = document.querySelector(sel);"
                " return e && e.textContent.trim() !== old.trim(); }",
                arg=[HEADLINE, head1])
            page.wait_for_function(
                "() => document.querySelectorAll('.cuzklab-explorer .js-plotly-plot').length >= 3")
            # The keyboard steps make several updates, and the comparison's current
            # headline follows the panel's: wait until the last update has landed in both.
            head2 = _settled(page, HEADLINE, ".cuzklab-current-headline")
            assert head2 != head1, "headline did not change with partition workers"
            pinned = _text(page, ".cuzklab-pinned-headline")
            current = _text(page, ".cuzklab-current-headline")
            assert _spp(pinned) == _spp(head1) and _spp(current) == _spp(head2)
            time.sleep(0.5)  # let plotly finish its transition before the picture
            explorer.screenshot(path=str(ARTIFACTS / "explorer-3-fewer-workers.png"))
            page.screenshot(path=str(ARTIFACTS / "explorer-page.png"), full_page=True)
            (ARTIFACTS / "explorer-browser.json").write_text(json.dumps(
                {"headlines": [head0, head1, head2], "titles": [title0, title1, title2]},
                indent=1))
        except BaseException:
            (ARTIFACTS / "explorer-console.log").write_text("\n".join(logs))
            page.screenshot(path=str(ARTIFACTS / "explorer-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
