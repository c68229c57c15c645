"""The pinned a/b/c buffers: a cold pool pins one buffer at a time, a warm one costs nothing."""

import pytest

from cuzklab.errors import ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

PROF = Profile.load("porep-live-2p20-h200")
CFG = dict(proofs=1, concurrency=1, partitions=4, partition_workers=4, gpu_threads=16,
           synthesis_threads=16, lock="split_async", memory_gib=64.0)


def _ends(prof, **cfg):
    tr = simulate(PipelineConfig(**{**CFG, **cfg}), prof)
    assert not tr.failed
    sp = tr.spans[tr.spans.stage == "synth"].sort_values(["proof", "partition"])
    return sp


def _pinned(alloc_s, warm):
    return PROF.replace(partition={"pinned_alloc_s": alloc_s, "pinned_warm": warm})


def _work_starts(prof, **cfg):
    """Return the times the syntheses' work starts (the synth_running counter going up)."""
    tr = simulate(PipelineConfig(**{**CFG, **cfg}), prof)
    c = tr.counters[tr.counters.name == "synth_running"]
    ups = c[c.value.diff().fillna(c.value) > 0]
    return sorted(ups.t)


def test_a_cold_pool_pins_one_buffer_at_a_time_as_the_syntheses_start():
    # four syntheses that start together wait for the driver one after another, inside
    # their spans (cuzk checks a/b/c buffers out as the synthesis starts)
    assert _work_starts(_pinned(0.5, 0)) == pytest.approx([0.5, 1.0, 1.5, 2.0], abs=1e-6)
    spans = _ends(_pinned(0.5, 0))
    assert (spans.start == 0).all()
    assert (spans.end - spans.start).max() > 2.0   # the last span waited 2 s for its pin
    # two buffers pinned before the run: only the third and fourth synthesis pin their own
    assert _work_starts(_pinned(0.5, 2)) == pytest.approx([0.0, 0.0, 0.5, 1.0], abs=1e-6)
    # a warm pool, or no pinning cost, is the run without the key
    base = sorted(_ends(PROF)["end"])
    assert _work_starts(_pinned(0.5, 4)) == pytest.approx([0.0] * 4)
    assert sorted(_ends(_pinned(0.5, 4))["end"]) == pytest.approx(base)
    assert sorted(_ends(_pinned(0.0, 0))["end"]) == pytest.approx(base)


def test_the_upload_gives_the_buffer_back_so_a_later_wave_reuses_it():
    # one partition worker: each synthesis starts at the previous one's hand-off, while that
    # partition's upload still holds its buffer, so the second pins a buffer of its own; from
    # then on each synthesis finds the buffer the upload before the last one gave back
    one = dict(partition_workers=1, proofs=2, concurrency=1)
    base = _ends(PROF, **one)
    cold = _ends(_pinned(0.5, 0), **one)
    d_base = (base["end"] - base["start"]).to_numpy()
    d_cold = (cold["end"] - cold["start"]).to_numpy()
    assert d_cold[:2] == pytest.approx(d_base[:2] + 0.5, abs=1e-6)  # the first two pin
    assert d_cold[2:] == pytest.approx(d_base[2:], abs=1e-6)        # the rest reuse them


@pytest.mark.parametrize("key, value", [("pinned_alloc_s", -1.0), ("pinned_warm", -2)])
def test_out_of_range_pinned_keys_name_the_key(key, value):
    with pytest.raises(ProfileError, match=key):
        PROF.replace(partition={key: value})


def test_a_pooled_a_b_c_is_the_pools_memory_pinned_once_and_never_freed():
    part = PROF["partition"]
    one = dict(partition_workers=1, proofs=2, concurrency=1)

    def rss(prof):
        tr = simulate(PipelineConfig(**{**CFG, **one}), prof)
        r = tr.counters[tr.counters.name == "rss_gib"]
        return r.value.iloc[0], r.value.max(), r.value.iloc[-1]
    start, _, end = rss(PROF)
    assert end == pytest.approx(start, abs=1e-9)                 # everything freed
    cold = rss(_pinned(0.5, 0))
    # two buffers pinned (the second synthesis starts before the first upload gives its
    # buffer back), held to the end of the run; the syntheses themselves add only aux
    assert cold[2] == pytest.approx(start + 2 * part["abc_gib"], abs=1e-9)
    warm = rss(_pinned(0.5, 4))
    assert warm[2] == pytest.approx(start, abs=1e-9)             # warm buffers: in the base
    assert warm[1] < rss(PROF)[1] - 0.5 * part["abc_gib"]        # no a/b/c per synthesis
