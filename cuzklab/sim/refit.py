"""Refit the profiles' fitted values jointly against the calibration rows.

Every ``fit:``-tagged number of a profile was chosen on some calibration rows
(``cuzklab.sim.calibration``). When rows stay out of tolerance, the first
question is whether another choice of those numbers would pass them all, or
whether a mechanism is missing. :func:`search` answers it empirically: a
(1+1) evolution strategy that perturbs one to three fitted values at a time
(log-normal steps), simulates every row over a few seeds and keeps the
candidate when it fails no more rows (then no higher a graded score) than the
current one. Each evaluation is one line of a JSON Lines log, rewritten
atomically after every evaluation, so an interrupted search keeps what it has
done.

The candidate values go into copies of the profiles folder, edited line by
line (comments and provenance tags stay); ``CUZKLAB_PROFILES`` points the
simulations at the copy for the evaluation's duration.

``python -m cuzklab.sim.refit --iterations 150 --seeds 4 --out refit.jsonl``
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .. import atomic
from ..errors import ConfigError, ProfileError
from ..model.profile import profiles_dir

#: The profiles the calibration rows run on.
PROFILES = ("porep-32g", "porep-32g@phase9", "porep-32g@phase8", "porep-32g@phase12-prefix")

#: Bounds for the fractions among the fitted values (others only stay positive).
BOUNDS = {"pressure_start": (0.3, 0.99), "jitter": (0.0, 0.5), "mem_bound": (0.0, 1.0),
          "setup_mem_bound": (0.0, 1.0)}

_TABLE = re.compile(r"^\s*\[([A-Za-z0-9_.]+)\]\s*(#.*)?$")
_VALUE = re.compile(r"^(\s*)([A-Za-z0-9_]+)(\s*=\s*)([-+0-9.eE_]+)(\s*)(#.*)?$")


@dataclass(frozen=True)
class Param:
    """One fitted value: ``profile:table.key`` and its value in the shipped profile."""

    profile: str
    table: str
    key: str
    value: float

    @property
    def name(self) -> str:
        return f"{self.profile}:{self.table}.{self.key}"


def _values(lines: list[str]):
    """Yield (line number, table, match) for each ``key = number`` line of a profile's text."""
    table = ""
    for i, line in enumerate(lines):
        t = _TABLE.match(line)
        if t:
            table = t.group(1)
            continue
        m = _VALUE.match(line)
        if m and table:
            yield i, table, m


def fitted_params(folder: str | os.PathLike | None = None, profiles=PROFILES) -> list[Param]:
    """Return the numeric values tagged ``# fit:`` in ``profiles`` (files of ``folder``)."""
    folder = Path(folder) if folder is not None else profiles_dir()
    out = []
    for prof in profiles:
        path = folder / f"{prof}.toml"
        if not path.is_file():
            raise ProfileError(f"no profile {prof!r} in {folder}")
        for _, table, m in _values(path.read_text().splitlines()):
            if m.group(6) and m.group(6).lstrip("# ").startswith("fit:"):
                out.append(Param(prof, table, m.group(2), float(m.group(4))))
    return out


def parse_param(spec: str, known: list[Param]) -> Param:
    """Return the fitted value named ``profile:table.key`` (or ``table.key`` of porep-32g)."""
    prof, _, rest = spec.rpartition(":")
    prof = prof or PROFILES[0]
    table, _, key = rest.rpartition(".")
    for p in known:
        if (p.profile, p.table, p.key) == (prof, table, key):
            return p
    names = ", ".join(p.name for p in known)
    raise ConfigError("--param", f"{spec!r} is not a fitted value of the profiles; fitted: {names}")


def write_profiles(folder: str | os.PathLike, values: dict[Param, float],
                   source: str | os.PathLike | None = None) -> Path:
    """Copy the profiles of ``source`` into ``folder`` with ``values`` written in; return it."""
    src = Path(source) if source is not None else profiles_dir()
    dst = Path(folder)
    dst.mkdir(parents=True, exist_ok=True)
    for p in src.glob("*.toml"):
        shutil.copy(p, dst / p.name)
    by_file: dict[str, dict[tuple[str, str], float]] = {}
    for p, v in values.items():
        by_file.setdefault(p.profile, {})[(p.table, p.key)] = v
    for prof, vals in by_file.items():
        path = dst / f"{prof}.toml"
        lines, left = path.read_text().splitlines(), dict(vals)
        for i, table, m in list(_values(lines)):
            if (table, m.group(2)) in left:
                v = left.pop((table, m.group(2)))
                lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{v!r}{m.group(5)}{m.group(6) or ''}"
        if left:
            raise ProfileError(f"profile {prof}: no line for {sorted(left)} to write")
        path.write_text("\n".join(lines) + "\n")
    return dst


@contextlib.contextmanager
def _profiles_env(folder: Path):
    old = os.environ.get("CUZKLAB_PROFILES")
    os.environ["CUZKLAB_PROFILES"] = str(folder)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("CUZKLAB_PROFILES", None)
        else:
            os.environ["CUZKLAB_PROFILES"] = old


def score(rows: list[dict]) -> tuple[int, float]:
    """Return (rows failing, graded score) of a calibration table; lower is better.

    The graded score adds, per row, the fraction of seeds outside tolerance and
    how far the mean's error lies beyond the tolerance (in tolerances).
    """
    fails, graded = 0, 0.0
    for r in rows:
        fails += not r["ok"]
        graded += (len(r["seeds"]) - r["hits"]) / len(r["seeds"])
        e = r["error"]
        if e is not None and not math.isnan(e):
            graded += max(0.0, abs(e) / r["tolerance"] - 1.0)
    return fails, round(graded, 6)


def evaluate(values: dict[Param, float], cases, seeds, workers: int | None = None) -> list[dict]:
    """Return the calibration rows of ``cases`` over ``seeds`` with ``values`` in the profiles."""
    from . import calibration as cal
    with tempfile.TemporaryDirectory(prefix="cuzklab-refit-") as tmp:
        folder = write_profiles(Path(tmp) / "profiles", values)
        with _profiles_env(folder):
            return cal.run_table(cases, tuple(seeds), workers)


def search(params: list[Param], *, iterations: int, cases, seeds=range(4), sigma: float = 0.12,
           rng_seed: int = 0, workers: int | None = None, out: str | os.PathLike | None = None,
           progress=None) -> dict:
    """Run the (1+1) search from the shipped values; return the best candidate's record.

    A record: ``it``, ``values`` ({param name: value}), ``fails``, ``score``,
    ``accepted`` and ``rows`` ({case: [seeds within tolerance, error of the mean]}).
    ``progress(i, n, record)`` is called after every evaluation.
    """
    if iterations < 0:
        raise ConfigError("iterations", f"must be at least 0, got {iterations}")
    if not params:
        raise ConfigError("params", "give at least one fitted value to vary")
    if not sigma > 0:
        raise ConfigError("sigma", f"must be above 0, got {sigma}")
    seeds = tuple(seeds)
    if not seeds:
        raise ConfigError("seeds", "give at least one seed")
    rng = random.Random(rng_seed)
    log: list[str] = []

    def run(it, values, to_beat=None):
        """Evaluate ``values``; accepted when (fails, score) is not worse than ``to_beat``."""
        rows = evaluate(values, cases, seeds, workers)
        fails, graded = score(rows)
        rec = {"it": it, "fails": fails, "score": graded,
               "values": {p.name: v for p, v in values.items()},
               "rows": {r["case"]: [r["hits"], None if r["error"] is None or math.isnan(r["error"])
                                    else round(r["error"], 4)] for r in rows},
               "accepted": to_beat is None or (fails, graded) <= to_beat}
        log.append(json.dumps(rec))
        if out is not None:
            atomic.write_text(out, "\n".join(log) + "\n")
        if progress is not None:
            progress(it, iterations, rec)
        return rec

    current = {p: p.value for p in params}
    best = run(0, current)
    for it in range(1, iterations + 1):
        cand = dict(current)
        for p in rng.sample(params, min(len(params), rng.choice((1, 1, 2, 3)))):
            lo, hi = BOUNDS.get(p.key, (1e-9, math.inf))
            cand[p] = round(min(hi, max(lo, cand[p] * math.exp(rng.gauss(0.0, sigma)))), 6)
        rec = run(it, cand, (best["fails"], best["score"]))
        if rec["accepted"]:
            current, best = cand, rec
    return best


def main(argv=None) -> int:
    """Run a search and print the best candidate's changes and its failing rows."""
    import argparse
    from . import calibration as cal
    ap = argparse.ArgumentParser(
        prog="python -m cuzklab.sim.refit",
        description="Refit the profiles' fit:-tagged values jointly against the calibration rows.")
    ap.add_argument("--iterations", type=int, default=100, metavar="N",
                    help="candidates to try after the shipped values (default 100)")
    ap.add_argument("--seeds", type=int, default=4, metavar="N",
                    help="seeds 0..N-1 per row (default 4: a row passes in 4 of 4)")
    ap.add_argument("--sigma", type=float, default=0.12,
                    help="log-normal step of a perturbed value (default 0.12, ~12 %%)")
    ap.add_argument("--seed", type=int, default=0, help="the search's random seed")
    ap.add_argument("--param", action="append", default=[], metavar="PROFILE:TABLE.KEY",
                    help="vary only these fitted values (repeatable; default: all of them)")
    ap.add_argument("--gate-only", action="store_true",
                    help="only the required rows (default: the further rows too)")
    ap.add_argument("--workers", type=int, default=None, metavar="N",
                    help="processes for the simulations (default: the CPU count, at most 8)")
    ap.add_argument("--out", metavar="FILE.jsonl", help="write every evaluation, a JSON line each")
    ap.add_argument("--list", action="store_true", help="list the fitted values and exit")
    args = ap.parse_args(argv)
    try:
        known = fitted_params()
        if args.list:
            for p in known:
                print(f"{p.name} = {p.value:g}")
            return 0
        if args.seeds < 1:
            raise ConfigError("--seeds", f"must be at least 1, got {args.seeds}")
        params = [parse_param(s, known) for s in args.param] or known
        cases = cal.CASES if args.gate_only else cal.CASES + cal.FURTHER_CASES
        t0 = time.monotonic()

        def progress(i, n, rec):
            mark = "kept" if rec["accepted"] else "    "
            print(f"[{i}/{n}] {mark} {rec['fails']} rows out, score {rec['score']:.3f} "
                  f"({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)

        best = search(params, iterations=args.iterations, cases=cases,
                      seeds=range(args.seeds), sigma=args.sigma, rng_seed=args.seed,
                      workers=args.workers, out=args.out, progress=progress)
    except (ConfigError, ProfileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    shipped = {p.name: p.value for p in known}
    print(f"best after {args.iterations} candidates: {best['fails']} rows out "
          f"(score {best['score']:.3f}, candidate {best['it']})")
    for name, v in best["values"].items():
        if v != shipped[name]:
            print(f"  {name}: {shipped[name]:g} -> {v:g} (x{v / shipped[name]:.3f})")
    for case, (hits, err) in best["rows"].items():
        if hits < cal.needed(args.seeds):
            e = "" if err is None else f", error of the mean {err:+.1%}"
            print(f"  out: {case} ({hits}/{args.seeds} seeds{e})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
