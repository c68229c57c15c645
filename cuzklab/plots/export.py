"""Write figures to standalone HTML (viewable offline) and to PNG.

PNG goes through kaleido, which since 1.0 drives an installed Chrome or
Chromium; cuzklab points it at the system browser when one is present and
fails with a clear message naming what to install when none is.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from ..atomic import atomic_path, write_text
from ..errors import ExportError

# Where Debian/Ubuntu packages put Chromium, then other usual names on PATH.
CHROME_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROME_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
                "chrome")
PNG_SCALE = 2  # device pixels per CSS pixel: sharp on high-DPI screens and slides
#: Attempts at one PNG when the browser tab answers before its scripts have loaded (kaleido
#: reports "kaleido_scopes is not defined"; seen on a loaded two-core machine).
PNG_ATTEMPTS = 3


def find_chrome() -> str | None:
    """Return the path of a Chrome/Chromium for kaleido, or None when there is none."""
    env = os.environ.get("BROWSER_PATH")
    if env and os.access(env, os.X_OK):
        return env
    for path in CHROME_PATHS:
        if os.access(path, os.X_OK):
            return path
    for name in CHROME_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def write_html(fig, path, *, include_plotlyjs=True) -> Path:
    """Write ``fig`` as a standalone HTML page (plotly.js inlined) and return the path."""
    text = fig.to_html(include_plotlyjs=include_plotlyjs, full_html=True)
    return write_text(path, text)


def write_png(fig, path, *, width: int | None = None, height: int | None = None,
              scale: float = PNG_SCALE) -> Path:
    """Write ``fig`` as a PNG through kaleido and the system Chrome; return the path."""
    chrome = find_chrome()
    if chrome is None:
        raise ExportError(
            "PNG export needs Chrome or Chromium (kaleido 1.x renders through it) and none "
            "was found: install one (Debian/Ubuntu: apt-get install chromium) or set "
            "BROWSER_PATH to its executable; HTML export works without it")
    os.environ.setdefault("BROWSER_PATH", chrome)
    path = Path(path)
    for attempt in range(1, PNG_ATTEMPTS + 1):
        try:
            with atomic_path(path) as tmp:
                fig.write_image(str(tmp), format="png", width=width, height=height, scale=scale)
            return path
        except ExportError:
            raise
        except (OSError, RuntimeError, ValueError) as exc:
            if attempt < PNG_ATTEMPTS and "is not defined" in str(exc):
                time.sleep(0.2 * attempt)   # the tab was not ready: ask again
                continue
            raise ExportError(f"PNG export to {path} failed through {chrome}: {exc}") from exc
    return path
