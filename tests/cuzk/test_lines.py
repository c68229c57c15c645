"""One line at a time: the daemon's formats parse, and broken lines are told apart."""

from __future__ import annotations

import pytest

from cuzklab.cuzk.lines import Malformed, classify, parse_fields, strip_ansi

JOB = "52e6b438-f2a7-4269-9944-0c5ca6a3a450"


@pytest.mark.parametrize("line, event, detail", [
    (f"TIMELINE,38216,SYNTH_START,{JOB},partition=0", "SYNTH_START", {"partition": 0}),
    (f"TIMELINE,71631,SYNTH_END,{JOB},partition=9,synth_ms=33406", "SYNTH_END",
     {"partition": 9, "synth_ms": 33406}),
    (f"TIMELINE,71631,GPU_QUEUE,{JOB},partition=9", "GPU_QUEUE", {"partition": 9}),
    (f"TIMELINE,71631,GPU_PICKUP,{JOB},worker=0,partition=9", "GPU_PICKUP",
     {"worker": 0, "partition": 9}),
    (f"TIMELINE,71632,GPU_START,{JOB},worker=1,partition=5", "GPU_START",
     {"worker": 1, "partition": 5}),
    (f"TIMELINE,74758,GPU_END,{JOB},worker=1,partition=5,gpu_ms=3126", "GPU_END",
     {"worker": 1, "partition": 5, "gpu_ms": 3126}),
    (f"TIMELINE,10,SYNTH_START,{JOB},kind=porep-c2", "SYNTH_START", {"kind": "porep-c2"}),
    (f"TIMELINE,10,GPU_QUEUE,{JOB},monolithic", "GPU_QUEUE", {"monolithic": True}),
    (f"TIMELINE,10,GPU_END,{JOB},worker=0,gpu_ms=34000", "GPU_END",
     {"worker": 0, "gpu_ms": 34000}),
])
def test_timeline_events(line, event, detail):
    rec = classify(line + "\n", 7)
    assert rec.kind == "timeline" and rec.line_no == 7
    assert rec["event"] == event and rec["job_id"] == JOB and rec["detail"] == detail
    assert isinstance(rec["t_ms"], int)


@pytest.mark.parametrize("line", [
    "TIMELINE,12,GPU_EN",                                   # cut mid-event
    f"TIMELINE,12,GPU_START,{JOB},partition=3",             # GPU_START without worker
    f"TIMELINE,12,NOT_AN_EVENT,{JOB},partition=3",
    f"TIMELINE,abc,SYNTH_START,{JOB},partition=3",
    f"TIMELINE,12,SYNTH_END,{JOB},partition=3,synth_ms=",   # value cut off
])
def test_bad_timeline_lines_are_malformed(line):
    with pytest.raises(Malformed) as err:
        classify(line, 1)
    assert err.value.kind == "timeline"


@pytest.mark.parametrize("line, group, values", [
    ("CUZK_TIMING: split_vectors_ms=50 setup_to_split_ms=52", "split_vectors_ms",
     {"split_vectors_ms": 50, "setup_to_split_ms": 52}),
    ("CUZK_TIMING: pre_lock_cpu_ms=54 mutex_wait_ms=1398", "pre_lock_cpu_ms",
     {"pre_lock_cpu_ms": 54, "mutex_wait_ms": 1398}),
    ("CUZK_TIMING: gpu_tid=1 ntt_msm_h_ms=693", "ntt_msm_h_ms",
     {"gpu_tid": 1, "ntt_msm_h_ms": 693}),
    ("CUZK_TIMING: prep_msm_ms=1716", "prep_msm_ms", {"prep_msm_ms": 1716}),
    ("CUZK_TIMING: gpu_tid=0 barrier_wait_ms=0", "barrier_wait_ms",
     {"gpu_tid": 0, "barrier_wait_ms": 0}),
    ("CUZK_TIMING: gpu_tid=0 batch_add_ms=645", "batch_add_ms",
     {"gpu_tid": 0, "batch_add_ms": 645}),
    ("CUZK_TIMING: gpu_tid=0 tail_msm_ms=119 gpu_total_ms=1457", "tail_msm_ms",
     {"gpu_tid": 0, "tail_msm_ms": 119, "gpu_total_ms": 1457}),
    ("CUZK_TIMING: mutex_held_ms=1457 total_start_fn_ms=2910", "mutex_held_ms",
     {"mutex_held_ms": 1457, "total_start_fn_ms": 2910}),
    ("CUZK_TIMING: b_g2_msm_ms=1337 num_circuits=1", "b_g2_msm_ms",
     {"b_g2_msm_ms": 1337, "num_circuits": 1}),
    ("CUZK_TIMING: async_dealloc_ms=90", "async_dealloc_ms", {"async_dealloc_ms": 90}),
])
def test_cuzk_timing_lines(line, group, values):
    rec = classify(line, 3)
    assert rec.kind == "cuzk_timing"
    assert rec["group"] == group and rec["values"] == values


def test_ntt_h_breakdown_strips_the_ms_unit():
    rec = classify("CUZK_NTT_H: d_b_alloc=2ms ntt_kernels=297ms coset_intt_sync=41ms "
                   "msm_init=2ms msm_invoke=345ms msm_dtor=1ms total=692ms", 1)
    assert rec.kind == "cuzk_ntt_h"
    assert rec["values"] == {"d_b_alloc": 2, "ntt_kernels": 297, "coset_intt_sync": 41,
                             "msm_init": 2, "msm_invoke": 345, "msm_dtor": 1, "total": 692}


def test_free_text_cuda_lines_are_notes():
    rec = classify("CUZK_TIMING: d_a_cache allocated 4096 MiB on gpu 0", 1)
    assert rec.kind == "cuzk_note"


@pytest.mark.parametrize("line, kind", [
    ("CUZK_TIMING: gpu_tid=0 tail_msm_ms=119", "cuzk_timing"),        # cut: no gpu_total_ms
    ("CUZK_TIMING: gpu_ti", "cuzk_timing"),
    ("CUZK_TIMING: prep_msm_ms=17TIMELINE,71632,GPU_START,x,worker=1,partition=5",
     "cuzk_timing"),
    ("CUZK_NTT_H: d_b_alloc=2ms ntt_kernels=297ms coset_intt_sync=41ms", "cuzk_ntt_h"),
    ("CUZK_TIMING: made_up_ms=3", "cuzk_timing"),
    ("2025-06-02T09:15:15.143999Z  INFO cuzk_core::engine: partition synthesis compTIMELINE,"
     "71631,GPU_QUEUE,x,partition=9", "mixed"),
])
def test_cut_and_mixed_lines_are_malformed(line, kind):
    with pytest.raises(Malformed) as err:
        classify(line, 1)
    assert err.value.kind == kind


ANSI_LINE = ("\x1b[2m2025-06-02T09:15:15.239698Z\x1b[0m \x1b[32m INFO\x1b[0m "
             "\x1b[1mgpu_worker\x1b[1m{\x1b[0m\x1b[3mworker_id\x1b[0m\x1b[2m=\x1b[0m1 "
             "\x1b[3mjob_id\x1b[0m\x1b[2m=\x1b[0m" + JOB + "\x1b[1m}\x1b[0m\x1b[2m:\x1b[0m "
             "\x1b[2mcuzk_core::engine\x1b[0m\x1b[2m:\x1b[0m partition GPU prove complete "
             "\x1b[3mpartition\x1b[0m\x1b[2m=\x1b[0m5 \x1b[3mgpu_ms\x1b[0m\x1b[2m=\x1b[0m3126")
PLAIN_LINE = ("2025-06-02T09:15:15.239698Z  INFO gpu_worker{worker_id=1 job_id=" + JOB + "}: "
              "cuzk_core::engine: partition GPU prove complete partition=5 gpu_ms=3126")


def test_strip_ansi_gives_the_plain_line():
    assert strip_ansi(ANSI_LINE) == PLAIN_LINE


def test_tracing_line_with_and_without_colours_is_the_same_record():
    a, b = classify(ANSI_LINE, 1), classify(PLAIN_LINE, 1)
    assert a.ansi and not b.ansi
    assert a.data == b.data
    assert a["level"] == "INFO" and a["target"] == "cuzk_core::engine"
    assert a["message"] == "partition GPU prove complete"
    assert a["known"] == "partition GPU prove complete"
    # Span fields (worker_id, job_id) merge with the event's own fields.
    assert a["fields"] == {"worker_id": 1, "job_id": JOB, "partition": 5, "gpu_ms": 3126}
    assert a["ts"] == pytest.approx(1748855715.239698)


def test_tracing_message_with_colon_and_typed_fields():
    rec = classify("2025-06-02T09:15:58.123Z  INFO cuzk_core::engine: Phase 7: all partitions "
                   "complete, proof assembled job_id=abc proof_len=1920 total_ms=87511 "
                   "synth_ms=360000 gpu_ms=31598", 1)
    assert rec["message"] == "Phase 7: all partitions complete, proof assembled"
    assert rec["fields"]["total_ms"] == 87511 and rec["fields"]["job_id"] == "abc"


def test_ready_line_keeps_its_address():
    rec = classify("2025-06-02T09:14:03.518846Z  INFO cuzk_daemon: cuzk-daemon ready, "
                   "serving on 127.0.0.1:9820", 1)
    assert rec["known"] == "cuzk-daemon ready"
    assert rec["message"].endswith("serving on 127.0.0.1:9820")
    assert rec["fields"] == {}


def test_a_known_message_cut_before_its_fields_is_malformed():
    with pytest.raises(Malformed, match="lacks job_id"):
        classify("2025-06-02T09:15:15Z  INFO cuzk_core::engine: partition GPU prove complete "
                 "job_id=abc partit", 1)


def test_field_values_are_typed():
    assert parse_fields('a=1 b=2.5 c=Some(3) d=None e="x y" f=true g=abc') == {
        "a": 1, "b": 2.5, "c": 3, "d": None, "e": "x y", "f": True, "g": "abc"}


@pytest.mark.parametrize("dash", ["\u2014", "-", "--", "\u2013", "\u00e2\u20ac\u201d"])
def test_bench_proof_line_accepts_the_em_dash_and_its_stand_ins(dash):
    rec = classify(f"  [3/10] COMPLETED {dash} 70.3s (prove=65700 ms, queue=120 ms)\n", 1)
    assert rec.kind == "bench"
    assert rec.data == {"item": "proof", "index": 3, "count": 10, "status": "COMPLETED",
                        "wall_s": 70.3, "prove_ms": 65700, "queue_ms": 120}


def test_bench_proof_line_cut_is_malformed():
    with pytest.raises(Malformed) as err:
        classify("  [3/10] COMPLETED \u2014 70.3s (prove=657", 1)
    assert err.value.kind == "bench"


def test_bench_key_lines_count_only_inside_a_report():
    assert classify("status:    ok", 1) is None
    rec = classify("status:    COMPLETED", 1, in_bench=True)
    assert rec.kind == "bench" and rec["key"] == "status"


def test_unknown_lines_are_not_records():
    assert classify("the panic message on its own line", 1) is None
    assert classify("   \n", 1) is None


@pytest.mark.parametrize("line", [
    f"TIMELINE,12,SYNTH_START,{JOB},partition=A",
    f"TIMELINE,12,GPU_START,{JOB},worker=x,partition=1",
    "2025-06-02T09:15:15Z  INFO cuzk_core::engine: pipeline GPU worker started worker_id=A "
    "gpu=0",
    "2025-06-02T09:15:15Z  INFO cuzk_core::engine: memory budget initialized "
    "total_budget_gib=lots",
])
def test_numbers_that_are_not_numbers_are_malformed(line):
    with pytest.raises(Malformed):
        classify(line, 1)


def test_unicode_digits_that_int_rejects_are_kept_as_text():
    # '²' is a digit to str.isdigit() but not to int(): a malformed line, not a crash.
    import pytest
    from cuzklab.cuzk.lines import Malformed, parse_timeline
    with pytest.raises(Malformed, match="partition must be integers"):
        parse_timeline("TIMELINE,12,SYNTH_START,job-1,partition=²")
