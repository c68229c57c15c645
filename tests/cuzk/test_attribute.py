"""The attribution rule for CUDA timing lines, one decision at a time."""

from __future__ import annotations

from cuzklab.cuzk.attribute import Attributor


def test_lines_in_the_mutex_go_to_the_holder_not_the_oldest_call():
    a = Attributor()
    old = a.start("j", 0, 0, 0, 0)
    new = a.start("j", 1, 1, 0, 500)
    # The newer call takes the mutex first: the older one is still in its pre-lock
    # work (2000 ms of it); the timeline events around the line are at 500 and 600 ms.
    assert a.assign("pre_lock_cpu_ms", {"pre_lock_cpu_ms": 2, "mutex_wait_ms": 0},
                    1, 500, 600) is new
    # Inside the mutex, order and timing do not matter: the holder takes the lines.
    assert a.assign("ntt_msm_h_ms", {"gpu_tid": 0, "ntt_msm_h_ms": 700}, 2) is new
    assert a.assign("mutex_held_ms", {"mutex_held_ms": 1500, "total_start_fn_ms": 1502},
                    3) is new
    assert a.assign("pre_lock_cpu_ms", {"pre_lock_cpu_ms": 2000, "mutex_wait_ms": 2},
                    4, 2000, 2100) is old
    assert a.assign("ntt_msm_h_ms", {"gpu_tid": 0, "ntt_msm_h_ms": 690}, 5) is old
    assert new.tid_values[0]["ntt_msm_h_ms"] == 700 and old.tid_values[0]["ntt_msm_h_ms"] == 690


def test_timing_picks_the_call_that_could_have_printed_the_line():
    a = Attributor()
    first = a.start("j", 0, 0, 0, 0)
    second = a.start("j", 1, 1, 0, 1000)
    # Between timeline events at 2000 and 2100 ms: only `second` fits 1000 + 1050.
    got = a.assign("prep_msm_ms", {"prep_msm_ms": 1050}, 3, 2000, 2100)
    assert got is second
    assert a.assign("prep_msm_ms", {"prep_msm_ms": 2500}, 4, 2400, 2600) is first


def test_gpu_end_undoes_a_mix_up_of_cpu_side_lines():
    a = Attributor()
    A = a.start("j", 0, 0, 0, 0)
    B = a.start("j", 1, 1, 0, 100)
    # A's prep line (50 ms, printed late) fits B better, so B takes it; the b_g2 after it too.
    assert a.assign("prep_msm_ms", {"prep_msm_ms": 50}, 1, 100, 1000) is B
    assert a.assign("b_g2_msm_ms", {"b_g2_msm_ms": 5, "num_circuits": 1}, 2, 100, 1000) is B
    assert a.assign("prep_msm_ms", {"prep_msm_ms": 300}, 3, 100, 1000) is A
    # A ends without a b_g2 line: its lines went to B; they come back.
    a.end("j", 0, 0, 1000)
    assert a.repairs == 1
    assert A.values["prep_msm_ms"] == 50 and A.values["b_g2_msm_ms"] == 5
    assert B.values["prep_msm_ms"] == 300 and "b_g2_msm_ms" not in B.values
    assert a.assign("b_g2_msm_ms", {"b_g2_msm_ms": 7, "num_circuits": 1}, 4, 1000) is B


def test_without_an_open_call_a_line_is_refused():
    a = Attributor()
    assert isinstance(a.assign("prep_msm_ms", {"prep_msm_ms": 1}, 1), str)
    c = a.start("j", 0, 0, 0, 0)
    assert a.assign("async_dealloc_ms", {"async_dealloc_ms": 9}, 2) == \
        "printed after the call ended"
    a.assign("prep_msm_ms", {"prep_msm_ms": 1}, 3)
    assert isinstance(a.assign("prep_msm_ms", {"prep_msm_ms": 2}, 4), str)
    assert c.values["prep_msm_ms"] == 1


def test_phase9_calls_get_their_own_lines():
    # Phase 9-10 daemons print no mutex lines: the GPU-region lines go by order, the
    # epilogue by the end it implies (checked again at GPU_END), the rest as at head.
    from cuzklab.cuzk.logs import parse_texts

    from .sample_writer import Run
    right = total = epi = 0
    for seed in range(5):
        for gw in (1, 2):
            run = Run(proofs=3, concurrency=2, seed=seed, ansi=False, era="phase9",
                      gw=gw).simulate()
            r = parse_texts({"x": "\n".join(run.text()) + "\n"})
            assert r.stats.malformed == 0 and r.stats.unattributed == 0
            parts = r.partitions.set_index(["proof", "partition"])
            for key, truth in run.truth.items():
                epi += parts.loc[key, "epilogue_ms"] != truth["epilogue_ms"]
                for k, v in truth.items():
                    if k != "worker":
                        total += 1
                        right += parts.loc[key, k] == v
    assert epi == 0 and right / total >= 0.99
