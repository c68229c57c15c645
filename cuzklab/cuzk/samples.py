"""The sample daemon logs shipped with cuzklab, for notebooks and tests.

``data/samples/`` holds a run of three proofs on one GPU with two GPU workers
(stdout and stderr mixed, ANSI colours, one job failing in synthesis), the
cuzk-bench batch report and a /status snapshot of that run, a second run
killed mid-line, and a run of a phase 9-10 daemon (its older line formats).
They are written from the daemon's documented formats.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import LogParseError

# The files of the default example run, in the order they are best read.
DEFAULT_SAMPLES = ("cuzk-daemon.log", "cuzk-bench-batch.txt", "cuzk-status.json")


def samples_dir() -> Path:
    """Return the folder of the sample logs (the checkout's data/samples, else the installed copies)."""
    from ..errors import CuzklabError
    from ..resources import data_dir
    try:
        return data_dir("samples")
    except CuzklabError as exc:
        raise LogParseError(str(exc)) from None


def sample_paths(names=DEFAULT_SAMPLES) -> list[Path]:
    """Return the paths of the named sample files (the default run if none named)."""
    d = samples_dir()
    paths = [d / n for n in names]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise LogParseError(f"no such sample file(s): {', '.join(missing)}; "
                            f"available: {', '.join(sorted(x.name for x in d.iterdir()))}")
    return paths
