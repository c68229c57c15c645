"""Writing a calibrated profile: TOML with the provenance of every number beside it.

A profile here is a list of tables, each a list of :class:`Entry` (key, value,
tag, note). The tag says where the number came from, as in the shipped
profiles: ``measured:`` (on this machine, by the command in the header),
``cuzk:`` (read from a cuzk daemon's logs), ``fit:`` (a parameter of the
model chosen so that it reproduces a measurement; the note says which) and
``assumed:`` (not measured; the note says why it does not matter or what it
stands for). The ``[calibration]`` table records the machine, the date, the
command and the configurations the profile was fitted on.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

TAGS = ("measured", "cuzk", "fit", "assumed")

#: [calibration] keys that record how the profile was made, not a measurement.
UNMEASURED = ("derived_by", "repaced_by", "repaced_ratios")

#: What each number of the [calibration] table records.
CALIBRATION_NOTES = {
    "log2_constraints": "rows per partition circuit, 2^K, of every run above",
    "constraints": "constraints per partition of every run above",
    "witness_work": "the witness program's work per constraint of every run above",
    "witness_s_per_work": "seconds one unit of witness work adds to a one-thread synthesis",
    "witness_s": "the one-thread witness step at witness_work, timed in the step that gave the slope",
    "other_work": "the second witness work of synth_ratio_at_other",
    "synth_ratio_at_other": "a whole one-thread synthesis at other_work over one at "
                            "witness_work, timed in the same minutes: where given, a run at "
                            "another witness work is on the line through the two",
    "witness_spread_at_other": "synth.witness_spread measured at other_work (k one-thread "
                               "syntheses at once there): a run at another witness work has "
                               "its spread on the line through the two",
    "witness_fraction_at_other": "the witness step's share of one one-thread synthesis "
                                 "alone at other_work (the k-at-once curve's k = 1 row there: "
                                 "both steps of the same calls): a run at another witness work "
                                 "has its witness step on the line through the two works",
    "witness_beside_pool": "a witness step at witness work 0 beside b_g2_msm calls back to "
                           "back on their pool over it alone: the slowdown of the part of "
                           "every witness step that work 0 keeps",
    "witness_work_beside_pool": "the slowdown beside the same calls of the part of a witness "
                                "step that its witness work adds, from the step timed so at "
                                "witness_work too (synth.witness_pool_slowdown at a run's "
                                "work: the two parts' mean, weighted by their seconds alone)",
    "gpu_threads": "the prep_msm / b_g2_msm pool of the solo runs and the contention points",
    "contention_counts": "concurrent syntheses that node.cpu_pool_weight was fitted on",
    "contention_b_g2_x": "b_g2_msm's slowdown beside each of those counts but 0 "
                         "(what the weight was fitted on; compare sets a curve beside them)",
    "fitted_on": "the configurations the profile was fitted on",
    "derived_by": "the command that made this profile again from the stored measurements",
    "repaced_by": "the command that re-paced this profile: the keys tagged 'fit: x...' are "
                  "the calibration's times the host checks' ratios",
    "repaced_ratios": "each stage's host checks over the calibration's prediction of them "
                      "(the geometric mean of the checks)",
}


@dataclass(frozen=True)
class Entry:
    """One profile value and where it came from."""

    key: str
    value: object
    tag: str
    note: str

    def __post_init__(self):
        if self.tag not in TAGS:
            raise ValueError(f"tag must be one of {TAGS}, got {self.tag!r}")


def toml_value(v) -> str:
    """Return ``v`` as a TOML value (numbers, strings, booleans, lists, inline tables)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"a profile value must be finite, got {v!r}")
        return repr(float(f"{v:.6g}"))  # six significant digits
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def profile_text(name: str, description: str, header: list[str], top: list[Entry],
                 tables: dict[str, list[Entry]], calibration: dict, extends: str | None = None) -> str:
    """Return the TOML text of a calibrated profile (``extends``: the profile it overrides)."""
    lines = [f"# {line}".rstrip() for line in header] + [""]
    if extends:
        lines.append(f"extends = {toml_value(extends)}")
    lines.append(f"name = {toml_value(name)}")
    lines.append(f"description = {toml_value(description)}")
    for e in top:
        lines.append(f"{e.key} = {toml_value(e.value)}  # {e.tag}: {e.note}")
    for table, entries in tables.items():
        lines += ["", f"[{table}]"]
        for e in entries:
            lines.append(f"{e.key} = {toml_value(e.value)}  # {e.tag}: {e.note}")
    lines += ["", "# Where this profile came from, and the configurations it was fitted on",
              "# (cuzklab compare marks those rows: the others are the ones that count).",
              "[calibration]"]
    for k, v in calibration.items():
        note = CALIBRATION_NOTES.get(k)
        tag = "" if k in UNMEASURED else "measured: "
        lines.append(f"{k} = {toml_value(v)}" + (f"  # {tag}{note}" if note else ""))
    return "\n".join(lines) + "\n"


def write_profile(text: str, name: str, directory=None) -> Path:
    """Write ``text`` atomically as ``NAME.toml`` in ``directory`` (default: the profiles folder)."""
    from ..atomic import write_text
    from ..model.profile import profiles_dir
    d = Path(directory) if directory else profiles_dir()
    path = d / f"{name}.toml"
    write_text(path, text)
    return path


def table_values(tables: dict[str, list[Entry]], top: list[Entry] = ()) -> dict:
    """Return the plain {table: {key: value}} data of a profile's entries."""
    data = {e.key: e.value for e in top}
    for t, entries in tables.items():
        data[t] = {e.key: e.value for e in entries}
    return data
