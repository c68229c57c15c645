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


def test_a_cold_pool_pins_one_buffer_at_a_time_at_the_synthesis_end():
    base = sorted(_ends(PROF)["end"])
    cold = sorted(_ends(_pinned(0.5, 0))["end"])
    # four syntheses that end together in the model wait for the driver one after another
    assert [c - b for c, b in zip(cold, base)] == pytest.approx([0.5, 1.0, 1.5, 2.0], abs=1e-6)
    # two buffers pinned before the run: only the third and fourth synthesis pin their own
    two = sorted(_ends(_pinned(0.5, 2))["end"])
    assert [c - b for c, b in zip(two, base)] == pytest.approx([0.0, 0.0, 0.5, 1.0], abs=1e-6)
    # a warm pool, or no pinning cost, is the run without the key
    assert sorted(_ends(_pinned(0.5, 4))["end"]) == pytest.approx(base)
    assert sorted(_ends(_pinned(0.0, 0))["end"]) == pytest.approx(base)


def test_the_upload_gives_the_buffer_back_so_a_later_wave_reuses_it():
    # one partition worker: each synthesis starts after the previous one's hand-off, and its
    # buffer is back in the pool once that partition's upload is done
    one = dict(partition_workers=1, proofs=2, concurrency=1)
    base = _ends(PROF, **one)
    cold = _ends(_pinned(0.5, 0), **one)
    d_base = (base["end"] - base["start"]).to_numpy()
    d_cold = (cold["end"] - cold["start"]).to_numpy()
    assert d_cold[0] == pytest.approx(d_base[0] + 0.5, abs=1e-6)  # the first pins a buffer
    assert d_cold[1:] == pytest.approx(d_base[1:], abs=1e-6)      # the rest reuse it


@pytest.mark.parametrize("key, value", [("pinned_alloc_s", -1.0), ("pinned_warm", -2)])
def test_out_of_range_pinned_keys_name_the_key(key, value):
    with pytest.raises(ProfileError, match=key):
        PROF.replace(partition={key: value})
