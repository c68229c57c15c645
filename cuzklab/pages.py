"""Generated blocks in a page: the lines between a pair of marker lines.

The README and docs carry tables that scripts write (``<!-- NAME: begin -->`` ...
``<!-- NAME: end -->``): :func:`block` reads the lines between a page's one pair of
markers, :func:`with_block` returns the page with them replaced.
"""

from __future__ import annotations

import re


def markers(name: str) -> tuple[str, str]:
    """Return the begin and end marker lines of the block called ``name``."""
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


def _pattern(begin: str, end: str):
    return re.compile(re.escape(begin) + r"\n(.*?)\n?" + re.escape(end), re.S)


def block(text: str, begin: str, end: str, path: str = "page") -> str:
    """Return the lines between the page's markers; SystemExit unless there is exactly one pair."""
    found = _pattern(begin, end).findall(text)
    if len(found) != 1:
        raise SystemExit(f"{path}: needs exactly one pair of lines {begin} ... {end}")
    return found[0]


def with_block(text: str, begin: str, end: str, body: str, path: str = "page") -> str:
    """Return ``text`` with the lines between its markers replaced by ``body``."""
    block(text, begin, end, path)
    return _pattern(begin, end).sub(lambda _: f"{begin}\n{body}\n{end}", text)
