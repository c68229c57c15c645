"""What a partition holds, and when: cuzk's synthesis and its split GPU API.

cuzk's PCE synthesis starts from empty vectors (WitnessCS), grows the aux as the
witness is generated, and at the MatVec copies the witness into one vector and
zero-fills a, b and c before computing them; the copy is dropped when the MatVec
ends. Its split API runs b_g2_msm on the prep_msm thread as soon as prep_msm is done.
"""

import pytest

from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

PROF = Profile.load("porep-32g")
PART = PROF["partition"]
BASE = PROF["memory"]["srs_gib"] + PROF["memory"]["pce_gib"] + PROF["memory"]["runtime_gib"]
AUX, ABC = PART["aux_gib"], PART["abc_gib"]
COPY = PROF["synth"]["scratch_gib"]                 # the MatVec's copy of the witness
MATVEC = AUX + COPY + ABC                          # 19.4 GiB: cuzk's "~19.4 GiB" at the SpMV
REQ = PROF["memory"]["request_gib"] * 11            # a proof's request: its own copy + 10 work items


def _rss(trace):
    c = trace.counter("rss_gib").sort_values("t", kind="stable")
    return c["t"].to_numpy(), c["value"].to_numpy()


def _first_synthesis(trace):
    sp = trace.spans
    return sp[sp["stage"] == "synth"].sort_values("start").iloc[0]


def test_a_synthesis_holds_nothing_at_its_start_and_its_matvec_footprint_at_its_end():
    tr = simulate(PipelineConfig(proofs=1, concurrency=1, partition_workers=1,
                                 gpu_workers_per_device=1), PROF)
    s = _first_synthesis(tr)
    t, v = _rss(tr)
    during = v[(t >= s["start"]) & (t < s["end"])]
    at_start = v[t <= s["start"]][-1]
    assert at_start == pytest.approx(BASE + REQ, abs=0.01)     # WitnessCS starts empty
    assert during.max() == pytest.approx(BASE + REQ + MATVEC, abs=0.01)
    assert v[t >= s["end"]][0] == pytest.approx(BASE + REQ + AUX + ABC, abs=0.01)  # copy dropped


def test_the_matvec_touches_a_b_c_and_the_witness_copy_when_it_starts():
    tr = simulate(PipelineConfig(proofs=1, concurrency=1, partition_workers=1,
                                 gpu_workers_per_device=1), PROF)
    s = _first_synthesis(tr)
    t, v = _rss(tr)
    w = PROF["synth"]["witness_fraction"]
    reached = t[(t >= s["start"]) & (v >= BASE + REQ + MATVEC - 0.01)][0]
    # alone, the synthesis runs at a constant rate: the MatVec starts at w of its span
    assert (reached - s["start"]) / (s["end"] - s["start"]) == pytest.approx(w, abs=0.01)
    before = v[(t >= s["start"]) & (t < reached)]
    assert before.max() <= BASE + REQ + AUX + 0.01              # only the aux grew before


def test_a_wave_of_syntheses_peaks_at_pw_matvec_footprints():
    # cuzk's low-memory sweep (5 proofs, j=5): "Peak RSS ~ 69 + pw x 20 GiB"; pw=5 gw=1
    # measured 170 GiB. The five syntheses of a wave run their MatVecs together, while the
    # five proofs' requests are all still held.
    tr = simulate(PipelineConfig(proofs=5, concurrency=5, partition_workers=5,
                                 gpu_workers_per_device=1, gpu_threads=32), PROF)
    peak = tr.summary()["peak_rss_gib"]
    assert peak == pytest.approx(BASE + 5 * REQ + 5 * MATVEC, abs=0.5)
    assert abs(peak - 170.0) / 170.0 < 0.03


@pytest.mark.parametrize("key,other", [("abc_touched", "as_written"),
                                       ("scratch_held", "synthesis")])
def test_each_synthesis_memory_switch_changes_the_peak(key, other):
    cfg = PipelineConfig(proofs=2, concurrency=2, partition_workers=6)
    assert (simulate(cfg, PROF.replace(synth={key: other})).summary()["peak_rss_gib"]
            != simulate(cfg, PROF).summary()["peak_rss_gib"])


def test_the_split_api_runs_b_g2_msm_as_soon_as_prep_msm_is_done():
    tr = simulate(PipelineConfig(proofs=2, concurrency=2, partition_workers=10,
                                 lock="split_async"), PROF)
    sp = tr.spans.set_index(["proof", "partition"])
    prep = sp[sp["stage"] == "prep_msm"]["end"]
    b_g2 = sp[sp["stage"] == "b_g2_msm"]["start"]
    tail = sp[sp["stage"] == "tail_msm"]["end"]
    assert (b_g2 - prep.loc[b_g2.index]).abs().max() < 1e-9
    assert (b_g2 < tail.loc[b_g2.index]).mean() > 0.9   # beside batch_add and tail_msm
    ep = sp[sp["stage"] == "epilogue"]
    assert (ep["start"] >= tail.loc[ep.index] - 1e-9).all()  # the finalizer joins after the kernels


def test_interlock_still_runs_b_g2_msm_after_the_kernels():
    # a documented simplification: the phase 8-11 profiles were fitted on it
    tr = simulate(PipelineConfig(proofs=2, concurrency=2, lock="interlock", gpu_threads=0),
                  "porep-32g@phase9")
    sp = tr.spans.set_index(["proof", "partition"])
    b_g2 = sp[sp["stage"] == "b_g2_msm"]["start"]
    tail = sp[sp["stage"] == "tail_msm"]["end"]
    assert (b_g2 >= tail.loc[b_g2.index] - 1e-9).all()
