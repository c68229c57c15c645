"""No dead knobs: moving any number of a profile changes a simulated result."""

import math

import pytest

from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

# Small runs that, between them, reach every mechanism: memory pressure on a
# small node, a tight admission budget, the phase 9 era (all-core pool,
# interlock) and the pre-fix channel of synthesis_lookahead slots.
PROBES = (
    ("porep-32g", dict(proofs=2, concurrency=2, partition_workers=6, memory_gib=220.0)),
    ("porep-32g", dict(proofs=2, concurrency=2, partition_workers=6, admission="budget",
                       memory_gib=130.0)),
    ("porep-32g@phase9", dict(proofs=2, concurrency=2, lock="interlock", gpu_threads=0,
                              admission="semaphore_prefix")),
    ("porep-32g@phase12-prefix", dict(proofs=3, concurrency=3, partition_workers=12,
                                      admission="semaphore")),
)


def _result(profile: Profile, config: dict) -> tuple:
    tr = simulate(PipelineConfig(**config), profile)
    s = tr.summary()
    sp = tr.spans
    return (round(float((sp["end"] - sp["start"]).sum()), 9), round(s["peak_rss_gib"], 9),
            s.get("failure_reason"), round(float(tr.meta.get("end_time") or sp["end"].max()), 9))


def _numbers(profile: Profile):
    for table, values in profile.to_dict().items():
        if not isinstance(values, dict) or table == "config":
            continue
        for key, v in values.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            if (table, key) in (("partition", "abc_gib"), ("partition", "aux_gib")):
                continue  # derived from constraints / aux_variables
            yield table, key, v


def _moves(v):
    if v == 0:
        return (1.0,)
    out = [v * 0.5, v * 2]
    if isinstance(v, int):
        out = [max(1, int(x)) for x in out]
    if 0 < v < 1:
        out = [x for x in out if x < 1]
    return tuple(x for x in out if x != v)


BASE = Profile.load("porep-32g@phase12-prefix")
KEYS = sorted({(t, k) for t, k, _ in _numbers(BASE)})


@pytest.fixture(scope="module")
def base_results():
    return {(name, i): _result(Profile.load(name), cfg) for i, (name, cfg) in enumerate(PROBES)}


@pytest.mark.parametrize("table,key", KEYS)
def test_moving_each_profile_number_changes_a_result(table, key, base_results):
    for i, (name, cfg) in enumerate(PROBES):
        prof = Profile.load(name)
        v = prof[table][key]
        for moved in _moves(v):
            try:
                p = prof.replace(**{table: {key: moved}})
            except Exception:  # noqa: BLE001 - a move outside the key's range
                continue
            if _result(p, cfg) != base_results[(name, i)]:
                return
    pytest.fail(f"{table}.{key} = {BASE[table][key]!r}: no probe run changed when it moved")


def test_the_keys_cover_every_table():
    tables = {t for t, _ in KEYS}
    assert {"node", "partition", "memory", "synth", "prep_msm", "b_g2_msm", "epilogue",
            "gpu"} <= tables and not math.isnan(len(KEYS))
