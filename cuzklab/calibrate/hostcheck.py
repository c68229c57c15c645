"""The host's speed beside each live run, and the model at that speed.

A shared host's CPU speed moves from minute to minute: on H200 hosts the same
configuration ran 34 % apart within minutes, its passes' s/proof followed the
b_g2_msm pool's pace (r = 0.82 over 27 passes) and the syntheses moved with them
(docs/calibrate.md). A profile calibrated before the runs holds the host's speed
of the calibration's minutes. A *host check* times, right before and right after a
live run, the two CPU stages that set the pace of the rows in their regimes,
each alone, outside the run:

* one synthesis of one partition on one thread (the profile's
  ``synth.work_core_s`` at the run's witness work);
* ``calls`` b_g2_msm calls of different partitions started together on the run's
  pool (what the profile's ``b_g2_msm.serial_s`` and ``pool_core_s`` predict as
  ``serial_s + calls x pool_core_s / pool``), and one call alone.

:func:`host_ratios` sets each beside the profile's prediction of the same
measurement (the geometric mean of the two checks around the run), and
:func:`tracked_profile` scales those stages' profile times by the ratios: the
model of the run at the host's speed of the run's minutes. Nothing of the run
itself enters it: the checks time the stages alone, as the calibration does.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time

from ..errors import ConfigError
from .toml import CALIBRATION_NOTES, toml_value

#: b_g2_msm calls started together in a check (the calibration's largest count).
CHECK_CALLS = 8
#: Seconds of one-thread synthesis a check takes at least (up to SYNTH_SAMPLES_MAX
#: syntheses, their median): one synthesis at W=0 (~0.5 s at 2^20) is one sample of a host
#: whose one-thread speed has two states; the two checks around one run differed by x1.7
#: there with one sample each (docs/calibrate.md, the twenty-seventh job).
SYNTH_CHECK_S = 1.5
SYNTH_SAMPLES_MAX = 3
#: Syntheses a check times at least, however long one takes: at W=1 one synthesis (~3 s
#: at 2^20) filled the seconds alone, and the two one-sample checks around one run
#: differed by 21 % while the run's own syntheses kept the calibration's pace (the
#: thirty-fifth job's interlock gw=1 pw=4); with two the check is their mean.
SYNTH_SAMPLES_MIN = 2
#: The profile keys a check's ratios scale (all seconds: power 1).
SCALED = {"synth": (("synth", "work_core_s"),),
          "b_g2_msm": (("b_g2_msm", "solo_s_at_all_cores"), ("b_g2_msm", "solo_s_at_32"),
                       ("b_g2_msm", "pool_core_s"), ("b_g2_msm", "serial_s"))}


class HostCheck:
    """Time the stages of :data:`SCALED` alone on this host, as often as asked.

    ``work``: the run's :class:`~cuzklab.live.work.Workload` (its witness work is
    the one timed); ``pool_threads``: the run's b_g2_msm pool (``gpu_threads``).
    Building one synthesizes ``calls`` partitions (the witness work set to 0:
    the G2 tail and its size do not depend on it) and runs each call once,
    untimed, so that every :meth:`measure` times warm code.
    """

    def __init__(self, work, pool_threads: int, *, calls: int = CHECK_CALLS):
        from ..live import work as W
        from ..stages import StageClock
        if isinstance(pool_threads, bool) or not isinstance(pool_threads, int) or pool_threads < 1:
            raise ConfigError("pool_threads", f"must be an integer >= 1, got {pool_threads!r}")
        if isinstance(calls, bool) or not isinstance(calls, int) or calls < 2:
            raise ConfigError("calls", f"must be an integer >= 2 (one call is no pool), "
                              f"got {calls!r}")
        self.work, self.pool, self.calls = work, pool_threads, calls
        light = work.at_witness_work(0.0)
        self.preps = [W.prep(W.synthesize(light, 0, i, StageClock(), pool_threads),
                             StageClock()) for i in range(calls)]
        self._calls(calls)  # untimed: starts the pool, touches every call's data
        W.synthesize(work, 0, 0, StageClock(), 1)  # untimed: the program's tables

    def _calls(self, k: int) -> float:
        from .measure import b_g2_at_once
        return b_g2_at_once(self.preps, self.work, self.pool, k)

    def measure(self, other=None) -> dict:
        """Return one check: ``synth_s`` (one partition on one thread: the median of
        ``synth_samples`` syntheses, as many as fill :data:`SYNTH_CHECK_S`, at least
        :data:`SYNTH_SAMPLES_MIN` and at most :data:`SYNTH_SAMPLES_MAX`), ``b_g2_1_s``
        (one call alone) and ``b_g2_k_s`` (``calls`` calls started together), and when.
        ``other``: a Workload at another witness work, whose one-thread synthesis is
        timed the same way right after (``synth_s_other`` at ``other_work``)."""
        t0 = time.time()
        xs = _synth_samples(self.work)
        out = {"at": round(t0, 3), "synth_s": round(statistics.median(xs), 6),
               "synth_samples": len(xs)}
        if other is not None:
            ys = _synth_samples(other)
            out |= {"other_work": float(other.program.witness_work),
                    "synth_s_other": round(statistics.median(ys), 6),
                    "synth_samples_other": len(ys)}
        one = self._calls(1)
        many = self._calls(self.calls)
        return out | {"b_g2_1_s": round(one, 6), "b_g2_k_s": round(many, 6),
                      "calls": self.calls, "pool_threads": self.pool}


def _synth_samples(work) -> list[float]:
    """Time one-thread syntheses of one partition of ``work``: as many as fill
    :data:`SYNTH_CHECK_S`, at least :data:`SYNTH_SAMPLES_MIN`, at most
    :data:`SYNTH_SAMPLES_MAX`."""
    from ..live import work as W
    from ..stages import StageClock
    xs: list[float] = []
    while len(xs) < SYNTH_SAMPLES_MIN or (len(xs) < SYNTH_SAMPLES_MAX
                                           and sum(xs) < SYNTH_CHECK_S):
        t = time.perf_counter()
        W.synthesize(work, 0, 0, StageClock(), 1)
        xs.append(time.perf_counter() - t)
    return xs


def predicted(profile, check: dict) -> dict:
    """Return the profile's own figures for a check's measurements (seconds)."""
    s, g = profile["synth"], profile["b_g2_msm"]
    pool = int(check["pool_threads"])
    out = {"synth_s": float(s["work_core_s"])}
    core, serial = float(g.get("pool_core_s") or 0.0), float(g.get("serial_s") or 0.0)
    if core > 0:  # the calibration's fit of k calls started together (measure_b_g2_pool)
        out["b_g2_k_s"] = serial + int(check["calls"]) * core / pool
    return out


def host_ratios(profile, checks: list[dict]) -> dict:
    """Return, per scaled stage, the checks' time over the profile's prediction of it.

    ``checks``: the checks around one run (before and after): each stage's ratio is
    the geometric mean of theirs. A stage the profile cannot predict (no pool fit)
    keeps 1.0 and is named under ``unscaled``.
    """
    checks = [c for c in checks if c]
    if not checks:
        raise ConfigError("checks", "give at least one host check")
    want = predicted(profile, checks[0])
    out, unscaled = {}, []
    for stage, key in (("synth", "synth_s"), ("b_g2_msm", "b_g2_k_s")):
        if key not in want or want[key] <= 0:
            out[stage] = 1.0
            unscaled.append(stage)
            continue
        logs = [math.log(c[key] / want[key]) for c in checks if c.get(key, 0) > 0]
        out[stage] = round(math.exp(statistics.fmean(logs)), 4) if logs else 1.0
    res = {"ratios": out, "predicted": {k: round(v, 6) for k, v in want.items()}}
    if unscaled:
        res["unscaled"] = unscaled
    return res


def tracked_profile(profile, ratios: dict):
    """Return ``profile`` with each stage of :data:`SCALED` scaled by its ratio (the
    model at the host's speed of the checks); the name is kept."""
    tables: dict = {}
    for stage, keys in SCALED.items():
        f = float(ratios.get(stage, 1.0))
        if f <= 0 or not math.isfinite(f):
            raise ConfigError("ratios", f"{stage} must be a finite number > 0, got {f!r}")
        for table, key in keys:
            if key in profile[table]:
                tables.setdefault(table, {})[key] = float(profile[table][key]) * f
    return dataclasses.replace(profile.replace(**tables), name=profile.name) if tables \
        else profile


#: Host checks a re-pacing times by default (their geometric mean sets each ratio).
REPACE_CHECKS = 3


def calibration_size(profile) -> dict:
    """Return what a host check of ``profile`` runs at: its live calibration's size, witness
    work and pool (``log2_constraints``, ``witness_work``, ``gpu_threads``, ``backend``).

    A profile without a live calibration ([calibration] ``method = "live"`` with its size)
    cannot be re-paced: its figures were not timed by the stages a check times."""
    cal = profile.data.get("calibration") if isinstance(profile.data, dict) else None
    if not isinstance(cal, dict) or cal.get("method") != "live" \
            or not isinstance(cal.get("log2_constraints"), int):
        raise ConfigError("--repace", f"profile {profile.name!r} has no live calibration "
                          "([calibration] method = \"live\" with log2_constraints): only a "
                          "profile of calibrate --live can be re-paced")
    return {"log2_constraints": int(cal["log2_constraints"]),
            "witness_work": float(cal.get("witness_work", 1.0)),
            "gpu_threads": int(cal.get("gpu_threads") or 0),
            "backend": str(cal.get("backend") or "cpu")}


def check_other_work(profile, other_work) -> float | None:
    """Return ``other_work`` checked for a re-pacing of ``profile``: None, or a witness work
    other than its calibration's."""
    if other_work is None:
        return None
    from ..live import check_witness_work
    try:
        w = check_witness_work(other_work)
    except ConfigError as exc:
        raise ConfigError("--other-work", exc.message) from None
    cal = calibration_size(profile)["witness_work"]
    if w == cal:
        raise ConfigError("--other-work", f"must differ from the calibration's witness work "
                          f"({cal:g}): it is the second point of the synthesis's line")
    return w


def measure_checks(profile, n: int = REPACE_CHECKS, *, other_work=None,
                   progress=None) -> list[dict]:
    """Time ``n`` host checks of ``profile`` on this host, at its calibration's size and
    with its backend; ``other_work``: also time each check's one-thread synthesis at that
    witness work (``synth_s_other``); ``progress`` is called as ``progress(i, n, seconds)``
    after each."""
    from ..live import workload
    from .measure import host_cores
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError("--checks", f"must be an integer >= 1, got {n!r}")
    size = calibration_size(profile)
    other_work = check_other_work(profile, other_work)
    t0 = time.perf_counter()
    work = workload(size["log2_constraints"], 0, size["backend"], size["witness_work"])
    check = HostCheck(work, size["gpu_threads"] or host_cores())
    other = None
    if other_work is not None:
        from ..live import work as W
        from ..stages import StageClock
        other = work.at_witness_work(other_work)
        W.synthesize(other, 0, 0, StageClock(), 1)  # untimed, as the check's own
    out = []
    for i in range(n):
        out.append(check.measure(other))
        if callable(progress):
            progress(i + 1, n, time.perf_counter() - t0)
    return out


def repaced_text(text: str, profile, checks: list[dict], *, name: str, command: str = "",
                 date: str = "") -> tuple[str, dict]:
    """Return ``profile``'s TOML ``text`` re-paced to the host ``checks``, and what changed.

    Each key of :data:`SCALED` is multiplied by its stage's ratio (:func:`host_ratios`,
    the checks' geometric mean over the profile's own prediction of them) and tagged
    ``fit:`` with the ratio, the value it replaces and that value's provenance; every
    other line is kept as it is, so the profile stays what its calibration measured but
    for the host's pace of the checks' minutes. The name becomes ``name``, the header
    says what was done, and ``[calibration]`` records the command (``repaced_by``) and the
    ratios (``repaced_ratios``)."""
    hr = host_ratios(profile, checks)
    ratios = hr["ratios"]
    paced = tracked_profile(profile, ratios)
    scaled = {(table, key): stage for stage, keys in SCALED.items() for table, key in keys}
    line_ratio = other_work_ratio(checks)
    drop = ("repaced_by", "repaced_ratios") + (("other_work", "synth_ratio_at_other")
                                               if line_ratio else ())
    lines, table, changed = [], None, {}
    for line in text.splitlines():
        stripped = line.strip()
        if table == "calibration" and stripped.split("=", 1)[0].strip() in drop:
            continue  # a re-paced profile re-paced again: its ratios are over this one's
        if stripped.startswith("[") and stripped.endswith("]"):
            table = stripped[1:-1].strip()
        elif table is None and stripped.startswith("name ="):
            line = f"name = {toml_value(name)}"
        elif table and "=" in stripped and not stripped.startswith("#"):
            key = stripped.split("=", 1)[0].strip()
            stage = scaled.get((table, key))
            if stage is not None:
                old, new = float(profile[table][key]), float(paced[table][key])
                f = float(ratios.get(stage, 1.0))
                was = line.split("#", 1)[1].strip() if "#" in line else "no provenance"
                when = f", {date}" if date else ""
                line = (f"{key} = {toml_value(new)}  # fit: x{f:.4f} of {old:.6g} s, the "
                        f"{stage} host checks' pace ({len(checks)} checks{when}) over the "
                        f"calibration's; was {was}")
                changed[f"{table}.{key}"] = {"from": old, "to": new, "ratio": f}
        lines.append(line)
    if table != "calibration":
        raise ConfigError("--repace", f"profile {profile.name!r}: its text has no [calibration] "
                          "table last, as calibrate --live writes it")
    lines.append(f"repaced_by = {toml_value(command or 'cuzklab calibrate --repace')}"
                 f"  # {CALIBRATION_NOTES['repaced_by']}")
    lines.append(f"repaced_ratios = {toml_value({k: float(v) for k, v in ratios.items()})}"
                 f"  # {CALIBRATION_NOTES['repaced_ratios']}")
    if line_ratio:
        w, r = line_ratio
        lines.append(f"other_work = {toml_value(w)}  # {CALIBRATION_NOTES['other_work']}")
        lines.append(f"synth_ratio_at_other = {toml_value(r)}  # "
                     f"{CALIBRATION_NOTES['synth_ratio_at_other']} (the {len(checks)} host "
                     "checks' geometric means)")
    head = [f"# {name}: {profile.name} re-paced{' on ' + date if date else ''} to this host's "
            f"speed of the moment: synthesis x{ratios['synth']:.4f}, b_g2_msm "
            f"x{ratios['b_g2_msm']:.4f} the calibration's",
            f"# ({len(checks)} host checks timed alone; every other number is the "
            "calibration's)."]
    if line_ratio:
        head.append(f"# A one-thread synthesis at witness work {line_ratio[0]:g} took "
                    f"x{line_ratio[1]:.4f} one at the calibration's in the same checks: "
                    "other witness works are on the line through the two.")
    more = {"synth_ratio_at_other": line_ratio[1], "other_work": line_ratio[0]} \
        if line_ratio else {}
    return "\n".join(head + lines) + "\n", {"ratios": ratios, "predicted": hr["predicted"],
                                            "changed": changed, "checks": checks, **more}


def other_work_ratio(checks: list[dict]) -> tuple[float, float] | None:
    """Return (other_work, the geometric mean of the checks' one-thread synthesis there over
    theirs at the calibration's witness work), or None where the checks did not time one."""
    pairs = [(c["synth_s_other"], c["synth_s"]) for c in checks
             if c.get("synth_s_other", 0) > 0 and c.get("synth_s", 0) > 0]
    if not pairs:
        return None
    works = {float(c["other_work"]) for c in checks if c.get("synth_s_other", 0) > 0}
    if len(works) != 1:
        raise ConfigError("checks", f"time the other witness work at one value, got "
                          f"{sorted(works)}")
    r = math.exp(statistics.fmean(math.log(a / b) for a, b in pairs))
    return works.pop(), round(r, 4)


def repace(profile, name: str, *, checks: int = REPACE_CHECKS, directory=None,
           command: str = "", other_work=None, progress=None) -> tuple:
    """Re-pace ``profile`` (a name or path of a profile of ``calibrate --live``) to this
    host's speed of the moment and write it as ``NAME.toml`` in ``directory`` (default the
    profiles folder): ``checks`` host checks (:func:`measure_checks`), then
    :func:`repaced_text`. ``other_work``: each check also times a one-thread synthesis at
    that witness work, and the profile records their ratio (``[calibration]
    synth_ratio_at_other``), the line a run at another witness work is modelled on.
    Return the path written and what :func:`repaced_text` returns beside the text (the
    ratios, each moved key, the checks), with the date."""
    import datetime
    from pathlib import Path
    from ..model import Profile
    from .toml import write_profile
    prof = Profile.load(profile)
    calibration_size(prof)
    if not prof.source or not Path(prof.source).is_file():
        raise ConfigError("--repace", f"profile {prof.name!r}: its file is not readable")
    text = Path(prof.source).read_text(encoding="utf-8")
    measured = measure_checks(prof, checks, other_work=other_work, progress=progress)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    new, res = repaced_text(text, prof, measured, name=name, command=command, date=date)
    path = write_profile(new, name, directory)
    Profile.load(path)  # what was written loads
    return path, {"repaced_from": prof.name, "date": date, **res}

