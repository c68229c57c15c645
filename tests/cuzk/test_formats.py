"""Every line format the daemon has printed (cuzklab.cuzk.formats) parses, field by field.

Each sample is written from the source's format string with values of our
own; the assembled logs put every format into runs of GPU calls and check that
nothing is malformed and every value lands where docs/cuzk-daemon.md says.
"""

import json
from pathlib import Path

import pytest

from cuzklab.cuzk.formats import FORMATS, KNOWN_MESSAGE_RELEASES, formats_markdown
from cuzklab.cuzk.lines import KNOWN_MESSAGES, classify
from cuzklab.cuzk.logs import parse_texts
from cuzklab.model.cuzk_versions import DAEMON_VERSIONS

JOB = "5f0c2a9e-1b7d-4c1e-9a3f-0d2b8e6c4a17"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "cuzk-daemon.md"

# name -> (line, kind, expected data: top-level keys, or "values" for CUDA lines)
SAMPLES = {
    "SYNTH_START": (f"TIMELINE,1200,SYNTH_START,{JOB},partition=3", "timeline",
                    {"t_ms": 1200, "event": "SYNTH_START", "job_id": JOB,
                     "detail": {"partition": 3}}),
    "SYNTH_START monolithic": (f"TIMELINE,5,SYNTH_START,{JOB},kind=porep-c2", "timeline",
                               {"detail": {"kind": "porep-c2"}}),
    "SYNTH_END": (f"TIMELINE,31200,SYNTH_END,{JOB},partition=3,synth_ms=30000", "timeline",
                  {"t_ms": 31200, "detail": {"partition": 3, "synth_ms": 30000}}),
    "SYNTH_END monolithic": (f"TIMELINE,54705,SYNTH_END,{JOB},synth_ms=54700", "timeline",
                             {"detail": {"synth_ms": 54700}}),
    "CHAN_SEND": (f"TIMELINE,31201,CHAN_SEND,{JOB},partition=3", "timeline",
                  {"event": "CHAN_SEND", "detail": {"partition": 3}}),
    "CHAN_SEND monolithic": (f"TIMELINE,54706,CHAN_SEND,{JOB},", "timeline",
                             {"event": "CHAN_SEND", "detail": {}}),
    "GPU_QUEUE": (f"TIMELINE,31201,GPU_QUEUE,{JOB},partition=3", "timeline",
                  {"event": "GPU_QUEUE", "detail": {"partition": 3}}),
    "GPU_QUEUE monolithic": (f"TIMELINE,54706,GPU_QUEUE,{JOB},monolithic", "timeline",
                             {"detail": {"monolithic": True}}),
    "GPU_PICKUP": (f"TIMELINE,31210,GPU_PICKUP,{JOB},worker=1,partition=3", "timeline",
                   {"detail": {"worker": 1, "partition": 3}}),
    "GPU_START": (f"TIMELINE,31211,GPU_START,{JOB},worker=1,partition=3", "timeline",
                  {"detail": {"worker": 1, "partition": 3}}),
    "GPU_END": (f"TIMELINE,33900,GPU_END,{JOB},worker=1,partition=3,gpu_ms=2689", "timeline",
                {"detail": {"worker": 1, "partition": 3, "gpu_ms": 2689}}),
    "split_vectors": ("CUZK_TIMING: split_vectors_ms=118 setup_to_split_ms=131", "cuzk_timing",
                      {"group": "split_vectors_ms",
                       "values": {"split_vectors_ms": 118, "setup_to_split_ms": 131}}),
    "prep_msm": ("CUZK_TIMING: prep_msm_ms=1487", "cuzk_timing",
                 {"group": "prep_msm_ms", "values": {"prep_msm_ms": 1487}}),
    "b_g2_msm": ("CUZK_TIMING: b_g2_msm_ms=402 num_circuits=1", "cuzk_timing",
                 {"group": "b_g2_msm_ms", "values": {"b_g2_msm_ms": 402, "num_circuits": 1}}),
    "ntt_msm_h": ("CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=693", "cuzk_timing",
                  {"group": "ntt_msm_h_ms", "values": {"gpu_tid": 0, "ntt_msm_h_ms": 693}}),
    "batch_add": ("CUZK_TIMING: gpu_tid=0 batch_add_ms=641", "cuzk_timing",
                  {"group": "batch_add_ms", "values": {"batch_add_ms": 641}}),
    "tail_msm": ("CUZK_TIMING: gpu_tid=0 tail_msm_ms=97 gpu_total_ms=1436", "cuzk_timing",
                 {"group": "tail_msm_ms", "values": {"tail_msm_ms": 97, "gpu_total_ms": 1436}}),
    "async_dealloc": ("CUZK_TIMING: async_dealloc_ms=17", "cuzk_timing",
                      {"group": "async_dealloc_ms", "values": {"async_dealloc_ms": 17}}),
    "epilogue": ("CUZK_TIMING: epilogue_ms=36 pre_destructor_ms=2297", "cuzk_timing",
                 {"group": "epilogue_ms",
                  "values": {"epilogue_ms": 36, "pre_destructor_ms": 2297}}),
    "host_register fallback": ("CUZK_TIMING: host_register=fallback err=2", "cuzk_timing",
                               {"group": "host_register",
                                "values": {"host_register": "fallback", "err": 2}}),
    "prestage_vram": ("CUZK_TIMING: prestage_vram free_mib=20311 usable_mib=19799 "
                      "need_da_mib=4096 need_dbc_mib=8192 total_mib=12288", "cuzk_timing",
                      {"group": "prestage_vram",
                       "values": {"free_mib": 20311, "usable_mib": 19799, "need_da_mib": 4096,
                                  "need_dbc_mib": 8192, "total_mib": 12288}}),
    "prestage_setup skip_vram": ("CUZK_TIMING: prestage_setup=skip_vram", "cuzk_timing",
                                 {"group": "prestage_setup",
                                  "values": {"prestage_setup": "skip_vram"}}),
    "prestage_setup ok (timed)": (
        "CUZK_TIMING: prestage_setup=ok domain=134217728 lot_of_memory=1 sync_ms=2 "
        "trim_ms=5 alloc_ms=3 upload_ms=247 total_ps_ms=257", "cuzk_timing",
        {"group": "prestage_setup",
         "values": {"prestage_setup": "ok", "domain": 134217728, "lot_of_memory": 1,
                    "sync_ms": 2, "trim_ms": 5, "alloc_ms": 3, "upload_ms": 247,
                    "total_ps_ms": 257}}),
    "prestage_setup ok": ("CUZK_TIMING: prestage_setup=ok domain=134217728 lot_of_memory=0",
                          "cuzk_timing",
                          {"group": "prestage_setup",
                           "values": {"prestage_setup": "ok", "domain": 134217728,
                                      "lot_of_memory": 0}}),
    "prestage_setup fallback": ("CUZK_TIMING: prestage_setup=fallback err=-3", "cuzk_timing",
                                {"group": "prestage_setup",
                                 "values": {"prestage_setup": "fallback", "err": -3}}),
    "pre_lock": ("CUZK_TIMING: pre_lock_cpu_ms=44 mutex_wait_ms=912", "cuzk_timing",
                 {"group": "pre_lock_cpu_ms",
                  "values": {"pre_lock_cpu_ms": 44, "mutex_wait_ms": 912}}),
    "barrier_wait": ("CUZK_TIMING: gpu_tid=0 barrier_wait_ms=6", "cuzk_timing",
                     {"group": "barrier_wait_ms", "values": {"barrier_wait_ms": 6}}),
    "mutex_held": ("CUZK_TIMING: mutex_held_ms=1502 total_start_fn_ms=2480", "cuzk_timing",
                   {"group": "mutex_held_ms",
                    "values": {"mutex_held_ms": 1502, "total_start_fn_ms": 2480}}),
    "ntt_h breakdown": ("CUZK_NTT_H: d_b_alloc=1ms ntt_kernels=312ms coset_intt_sync=9ms "
                        "msm_init=4ms msm_invoke=351ms msm_dtor=2ms total=679ms", "cuzk_ntt_h",
                        {"group": "ntt_h",
                         "values": {"d_b_alloc": 1, "ntt_kernels": 312, "coset_intt_sync": 9,
                                    "msm_init": 4, "msm_invoke": 351, "msm_dtor": 2,
                                    "total": 679}}),
    "pool release threshold": ("CUZK_TIMING: set pool release threshold to MAX on gpu 1",
                               "cuzk_note", {"note": "pool_release_threshold", "gpu": 1}),
    "d_a cache": ("CUZK_TIMING: d_a_cache allocated 4096 MiB on gpu 0", "cuzk_note",
                  {"note": "d_a_cache", "mib": 4096, "gpu": 0}),
    "tracing text": (
        '2026-02-19T05:12:01.482913Z  INFO gpu_worker{worker_id=1 job_id="' + JOB + '"}: '
        "cuzk_core::engine: partition GPU prove complete partition=3 gpu_ms=2689 filled=0",
        "tracing",
        {"level": "INFO", "target": "cuzk_core::engine", "known": "partition GPU prove complete",
         "message": "partition GPU prove complete",
         "fields": {"worker_id": 1, "job_id": JOB, "partition": 3, "gpu_ms": 2689,
                    "filled": 0}}),
    "tracing JSON": (
        json.dumps({"timestamp": "2026-02-19T05:12:01.482913Z", "level": "INFO",
                    "fields": {"message": "partition GPU prove complete", "partition": 3,
                               "gpu_ms": 2689, "filled": 0},
                    "target": "cuzk_core::engine",
                    "spans": [{"name": "gpu_worker", "worker_id": 1, "job_id": JOB}]}),
        "tracing",
        {"level": "INFO", "target": "cuzk_core::engine", "known": "partition GPU prove complete",
         "fields": {"worker_id": 1, "job_id": JOB, "partition": 3, "gpu_ms": 2689,
                    "filled": 0}}),
    "panic": ("thread 'tokio-runtime-worker' panicked at cuzk-core/src/engine.rs:1812:21:",
              "runtime", {"item": "panic", "thread": "tokio-runtime-worker",
                          "file": "cuzk-core/src/engine.rs", "line": 1812, "col": 21}),
    "panic (Rust < 1.73)": ("thread 'main' panicked at 'out of budget', src/main.rs:70:9",
                            "runtime", {"item": "panic", "message": "out of budget",
                                        "line": 70, "col": 9}),
    "backtrace note": ("note: run with `RUST_BACKTRACE=1` environment variable to display a "
                       "backtrace", "runtime", {"item": "backtrace_note"}),
    "exit error": ('Error: failed to load config from "/etc/cuzk.toml"', "runtime",
                   {"item": "exit_error",
                    "message": 'failed to load config from "/etc/cuzk.toml"'}),
    "exit error causes": ("Caused by:", "runtime", {"item": "caused_by"}),
    "allocation failure": ("memory allocation of 14646509568 bytes failed", "runtime",
                           {"item": "alloc_failed", "bytes": 14646509568}),
    "C++ terminate": ("terminate called after throwing an instance of 'cuda_error'",
                      "runtime", {"item": "terminate", "type": "cuda_error"}),
    "C++ what()": ("  what():  out of memory", "runtime",
                   {"item": "what", "message": "out of memory"}),
}


def test_every_format_has_a_sample_and_a_known_release():
    assert set(SAMPLES) == {f.name for f in FORMATS}
    for f in FORMATS:
        assert f.first in DAEMON_VERSIONS and f.last in DAEMON_VERSIONS, f.name
        assert DAEMON_VERSIONS[f.first].rank <= DAEMON_VERSIONS[f.last].rank, f.name
    assert set(KNOWN_MESSAGE_RELEASES) == set(KNOWN_MESSAGES)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_each_format_parses_field_by_field(name):
    line, kind, want = SAMPLES[name]
    rec = classify(line + "\n", 1)
    assert rec is not None and rec.kind == kind, (name, rec)
    for key, value in want.items():
        if isinstance(value, dict):
            got = rec[key]
            assert {k: got.get(k) for k in value} == value, (name, key)
        else:
            assert rec[key] == value, (name, key)


def test_the_docs_carry_the_table_of_formats():
    text = DOCS.read_text(encoding="utf-8")
    assert formats_markdown() in text


def _call(job, part, worker, t0, lines, gpu_ms, queue="CHAN_SEND"):
    out = [f"TIMELINE,{t0 - 20},SYNTH_END,{job},partition={part},synth_ms=29000",
           f"TIMELINE,{t0 - 19},{queue},{job},partition={part}",
           f"TIMELINE,{t0 - 2},GPU_PICKUP,{job},worker={worker},partition={part}",
           f"TIMELINE,{t0},GPU_START,{job},worker={worker},partition={part}"]
    out += lines
    out.append(f"TIMELINE,{t0 + gpu_ms},GPU_END,{job},worker={worker},partition={part},"
               f"gpu_ms={gpu_ms}")
    return [f"TIMELINE,{t0 - 29020},SYNTH_START,{job},partition={part}"] + out


def _s(name):
    return SAMPLES[name][0]


P9, HEAD, MONO = "p9-job", "head-job", "mono-job"


def _assembled() -> dict[str, str]:
    """Every format in runs of GPU calls: a phase 9-11 log, a newest-daemon log, the rest."""
    old = []
    old += _call(P9, 0, 0, 40000, [
        _s("split_vectors"), _s("prestage_vram"), _s("prestage_setup ok (timed)"),
        _s("ntt_msm_h"), _s("prep_msm"), _s("batch_add"), _s("tail_msm"), _s("b_g2_msm"),
        _s("epilogue")], 2320)
    old.append(_s("async_dealloc"))
    old += _call(P9, 1, 1, 50000, [_s("host_register fallback"),
                                   _s("prestage_setup fallback")], 2600)
    old += _call(P9, 2, 0, 60000, [_s("prestage_setup skip_vram")], 2600)
    old += _call(P9, 3, 1, 70000, [_s("prestage_setup ok")], 2600)
    new = [_s("pool release threshold"), _s("d_a cache")]
    new += _call(HEAD, 0, 0, 40000, [
        _s("split_vectors"), _s("pre_lock"), _s("ntt_msm_h"), _s("ntt_h breakdown"),
        _s("barrier_wait"), _s("batch_add"), _s("tail_msm"), _s("mutex_held"),
        _s("prep_msm"), _s("b_g2_msm")], 2689, queue="GPU_QUEUE")
    mono = [
        f"TIMELINE,5,SYNTH_START,{MONO},kind=porep-c2", f"TIMELINE,54705,SYNTH_END,{MONO},"
        "synth_ms=54700", f"TIMELINE,54706,CHAN_SEND,{MONO},",
        f"TIMELINE,54710,GPU_PICKUP,{MONO},worker=0", f"TIMELINE,54711,GPU_START,{MONO},worker=0",
        f"TIMELINE,88711,GPU_END,{MONO},worker=0,gpu_ms=34000",
        f"TIMELINE,90000,SYNTH_START,mono-2,kind=porep-c2",
        "TIMELINE,90001,SYNTH_END,mono-2,synth_ms=1",
        "TIMELINE,90002,GPU_QUEUE,mono-2,monolithic",
        _s("tracing text").replace(JOB, "other-job"),
        _s("tracing JSON").replace(JOB, "other-job"),
        _s("panic"), _s("panic (Rust < 1.73)"), _s("backtrace note"), _s("exit error"),
        _s("exit error causes"), _s("C++ terminate"), _s("C++ what()"),
        _s("allocation failure")]
    return {"phase9.log": "\n".join(old) + "\n", "head.log": "\n".join(new) + "\n",
            "rest.log": "\n".join(mono) + "\n"}


def test_a_log_of_every_format_parses_with_nothing_malformed():
    texts = _assembled()
    r = parse_texts(texts)
    st = r.stats
    used = {s for t in texts.values() for s in t.splitlines()}
    assert all(SAMPLES[n][0].replace(JOB, "other-job") in used or SAMPLES[n][0] in used
               or n.startswith(("SYNTH", "CHAN", "GPU_")) for n in SAMPLES)
    assert st.malformed == 0, st.malformed_samples
    assert st.unattributed == 0, st.unattributed_samples
    assert st.other == 0
    assert st.lines_read == sum(st.parsed.values())

    parts = r.partitions.set_index(["job_id", "partition"])
    p0 = parts.loc[(P9, 0)]
    assert (p0.split_vectors_ms, p0.prep_msm_ms, p0.b_g2_msm_ms) == (118, 1487, 402)
    assert (p0.ntt_msm_h_ms, p0.batch_add_ms, p0.tail_msm_ms, p0.gpu_total_ms) == \
        (693, 641, 97, 1436)
    assert (p0.epilogue_ms, p0.prestage, p0.prestage_upload_ms, p0.prestage_total_ms) == \
        (36, "ok", 247, 257)
    assert parts.loc[(P9, 1)].prestage == "fallback"
    assert parts.loc[(P9, 2)].prestage == "skip_vram"
    assert parts.loc[(P9, 3)].prestage == "ok"
    h = parts.loc[(HEAD, 0)]
    assert (h.pre_lock_cpu_ms, h.mutex_wait_ms, h.mutex_held_ms, h.total_start_fn_ms) == \
        (44, 912, 1502, 2480)
    assert (h.ntt_h_total_ms, h.ntt_kernels_ms, h.msm_invoke_ms) == (679, 312, 351)

    spans = r.trace.spans
    ep = spans[(spans.stage == "epilogue")]
    assert len(ep) == 1
    assert ep.start.iloc[0] == pytest.approx((40000 + 2297 - 36) / 1e3)
    assert ep.end.iloc[0] == pytest.approx((40000 + 2297) / 1e3)
    q = spans[spans.stage == "gpu_queue"]
    assert len(q) == 6        # CHAN_SEND (phase 9) and GPU_QUEUE (newest) alike
    h_spans = spans[spans.proof == r.proofs.set_index("job_id").loc[HEAD, "proof"]]
    assert {"mutex_wait", "ntt_h", "barrier_wait", "batch_add", "tail_msm",
            "prep_msm", "b_g2_msm"} <= set(h_spans.stage)
    cz = r.trace.meta["cuzk"]
    assert [p["line"] for p in cz["panics"]] == [1812, 70]
    assert cz["exit_errors"] == ['failed to load config from "/etc/cuzk.toml"']
    assert cz["terminations"] == [{"type": "cuda_error", "message": "out of memory"}]
    assert cz["alloc_failures"] == [14646509568]
    assert r.trace.meta["failure"]["reason"] == "oom" and r.summary()["oom"] is True


def _tracing_run(json_format: bool) -> str:
    """A two-partition run whose stdout is text or JSON tracing, its stderr the same."""
    stdout = [("2026-02-19T05:00:00.000000Z", "INFO", "cuzk_core::engine", [],
               "starting cuzk engine", {"pipeline_enabled": True}),
              ("2026-02-19T05:00:00.100000Z", "INFO", "cuzk_core::engine", [],
               "pipeline GPU worker started", {"worker_id": 0, "gpu": 0, "sub_id": 0})]
    for p in (0, 1):
        stdout.append((f"2026-02-19T05:00:3{p}.000000Z", "INFO", "cuzk_core::engine",
                       [("synthesize_partition", {"job_id": JOB, "partition": p})],
                       "partition synthesis complete", {"partition": p, "synth_ms": 29000}))
    stdout.append(("2026-02-19T05:00:40.000000Z", "INFO", "cuzk_core::engine", [],
                   "Phase 7: all partitions complete, proof assembled",
                   {"job_id": JOB, "proof_len": 1920, "total_ms": 40000, "synth_ms": 58000,
                    "gpu_ms": 5000}))
    lines = []
    for ts, level, target, spans, msg, fields in stdout:
        if json_format:
            obj = {"timestamp": ts, "level": level, "fields": {"message": msg, **fields},
                   "target": target}
            if spans:
                obj["spans"] = [{"name": n, **f} for n, f in spans]
            lines.append(json.dumps(obj))
        else:
            sp = "".join(f"{n}{{{' '.join(f'{k}={v}' for k, v in f.items())}}}:"
                         for n, f in spans)
            kv = " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                          for k, v in fields.items())
            lines.append(f"{ts}  {level} {sp}{' ' if sp else ''}{target}: {msg} {kv}")
    for p in (0, 1):
        t = 1000 + p * 2500
        lines += [f"TIMELINE,{t},SYNTH_START,{JOB},partition={p}",
                  f"TIMELINE,{t + 29000},SYNTH_END,{JOB},partition={p},synth_ms=29000",
                  f"TIMELINE,{t + 29001},GPU_QUEUE,{JOB},partition={p}",
                  f"TIMELINE,{t + 29002},GPU_PICKUP,{JOB},worker=0,partition={p}",
                  f"TIMELINE,{t + 29003},GPU_START,{JOB},worker=0,partition={p}",
                  f"TIMELINE,{t + 31503},GPU_END,{JOB},worker=0,partition={p},gpu_ms=2500"]
    return "\n".join(lines) + "\n"


def test_flattened_json_events_parse_too():
    line = json.dumps({"timestamp": "2026-02-19T05:12:01.482913Z", "level": "INFO",
                       "message": "SRS loaded successfully", "circuit_id": "porep-32g",
                       "elapsed_ms": 38214, "target": "cuzk_core::srs_manager",
                       "threadId": "ThreadId(7)"})
    rec = classify(line, 1)
    assert rec["known"] == "SRS loaded successfully"
    assert rec["fields"] == {"circuit_id": "porep-32g", "elapsed_ms": 38214}


def test_json_tracing_parses_to_the_same_result_as_text():
    text, js = parse_texts({"t": _tracing_run(False)}), parse_texts({"j": _tracing_run(True)})
    assert text.stats.malformed == js.stats.malformed == 0
    assert text.stats.parsed == js.stats.parsed
    for a, b in ((text.proofs, js.proofs), (text.partitions, js.partitions),
                 (text.trace.spans, js.trace.spans), (text.trace.counters, js.trace.counters)):
        assert a.equals(b)
    assert text.proofs.status.tolist() == ["ok"]
    ct, cj = text.trace.meta["cuzk"], js.trace.meta["cuzk"]
    assert ct["clock"] == cj["clock"] and ct["epoch_wall"] == cj["epoch_wall"]
    assert ct["workers"] == cj["workers"] == {"0": 0}


def test_the_formats_seen_name_the_daemon_release():
    texts = _assembled()
    untimed = _s("prestage_setup ok") + "\n"      # phases 11-12 print it without timings
    old = parse_texts({"phase9.log": texts["phase9.log"].replace(untimed, "")})
    assert old.stats.releases == ["phase9", "phase10"]       # timed pre-staging, epilogue
    assert old.trace.meta["cuzk"]["releases"] == ["phase9", "phase10"]
    assert (old.inferred_config().lock, old.inferred_config().admission) == \
        ("interlock", "semaphore_prefix")
    assert old.stats.formats["prestage_setup ok (timed)"] == 1
    assert old.stats.format_samples["prestage_vram"]["fields"]["need_dbc_mib"] == 8192
    new = parse_texts({"head.log": texts["head.log"]})
    assert new.stats.releases == ["head"]
    assert new.stats.format_samples["d_a cache"]["fields"]["mib"] == 4096
    assert parse_texts({"p": texts["phase9.log"]}).stats.releases == []   # 9-10 and 11-12
    assert parse_texts(texts).stats.releases == []
    assert parse_texts({"b": "=== Batch Summary ===\n"}).stats.releases is None
