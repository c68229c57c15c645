"""What a proof's request holds: its C1 output, cloned by cuzk's engine.

cuzk's Phase 7 dispatch (``engine.rs``) clones the whole ProofRequest, C1 output
(~51 MB for a 32 GiB PoRep) included, into the proof's assembler state and into each
partition's work item; the item's copy moves into the synthesized job and is dropped
when ``gpu_prove_start`` returns, the assembler's when the proof completes. So RSS
grows with the proofs in flight, before any synthesis runs.
"""

import pytest

from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

PROF = Profile.load("porep-32g")
BASE = PROF["memory"]["srs_gib"] + PROF["memory"]["pce_gib"] + PROF["memory"]["runtime_gib"]
REQ = PROF["memory"]["request_gib"]


def _rss(trace):
    c = trace.counter("rss_gib").sort_values("t", kind="stable")
    return c["t"].to_numpy(), c["value"].to_numpy()


def test_the_porep_profile_holds_cuzks_c1_output_per_request():
    assert REQ == pytest.approx(51e6 / 2**30, rel=0.01)


@pytest.mark.parametrize("j", [5, 20])
def test_each_proof_in_flight_holds_its_request_once_and_once_per_partition(j):
    tr = simulate(PipelineConfig(proofs=j, concurrency=j, partition_workers=2), PROF)
    t, v = _rss(tr)
    first_synth = tr.spans.loc[tr.spans["stage"] == "synth", "start"].min()
    held = v[t <= first_synth].max()        # dispatched, nothing synthesized yet
    assert held == pytest.approx(BASE + j * 11 * REQ, abs=1e-6)


def _at(t, v, x):
    """RSS at time x (the last sample at or before it)."""
    return v[t <= x][-1]


def test_a_partitions_copy_is_dropped_when_its_kernels_end_and_the_proofs_at_completion():
    cfg = PipelineConfig(proofs=1, concurrency=1, partition_workers=1, gpu_workers_per_device=1)
    tr = simulate(cfg, PROF)
    without = simulate(cfg, PROF.replace(memory={"request_gib": 0.0}))
    t, v = _rss(tr)
    t0, v0 = _rss(without)
    ends = sorted(tr.spans.loc[tr.spans["stage"] == "tail_msm", "end"])
    assert ends == sorted(without.spans.loc[without.spans["stage"] == "tail_msm", "end"])
    for k, e in enumerate(ends[:-1]):      # after k + 1 kernels, 9 - k items still hold a copy
        x = e + 0.1
        assert _at(t, v, x) - _at(t0, v0, x) == pytest.approx(REQ * (1 + 9 - k), abs=1e-6)
    assert v[-1] == pytest.approx(v0[-1], abs=1e-6)   # the assembler's copy went at completion


def test_without_a_request_size_nothing_is_held():
    cfg = PipelineConfig(proofs=2, concurrency=2, partition_workers=2)
    tr = simulate(cfg, PROF.replace(memory={"request_gib": 0.0}))
    t, v = _rss(tr)
    assert v[0] == pytest.approx(BASE)
    first_synth = tr.spans.loc[tr.spans["stage"] == "synth", "start"].min()
    assert v[t <= first_synth].max() == pytest.approx(BASE)
