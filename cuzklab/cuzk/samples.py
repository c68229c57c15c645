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

SAMPLE_DIR_NAME = ("data", "samples")
# The files of the default example run, in the order they are best read.
DEFAULT_SAMPLES = ("cuzk-daemon.log", "cuzk-bench-batch.txt", "cuzk-status.json")


def samples_dir() -> Path:
    """Return the folder of the sample logs (found from a source checkout)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent.joinpath(*SAMPLE_DIR_NAME)
        if (cand / DEFAULT_SAMPLES[0]).is_file():
            return cand
    raise LogParseError("the sample logs (data/samples/) were not found; they ship with "
                        "the source tree of cuzklab, not with an installed wheel")


def sample_paths(names=DEFAULT_SAMPLES) -> list[Path]:
    """Return the paths of the named sample files (the default run if none named)."""
    d = samples_dir()
    paths = [d / n for n in names]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise LogParseError(f"no such sample file(s): {', '.join(missing)}; "
                            f"available: {', '.join(sorted(x.name for x in d.iterdir()))}")
    return paths
