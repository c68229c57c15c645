"""Every line format the cuzk daemon has printed, with the releases that print it.

Read from the daemon's sources (Curio repository, ``extern/cuzk/`` and the
``extern/supraseal-c2/cuda/`` it builds) at each release of
:data:`cuzklab.model.cuzk_versions.DAEMON_VERSIONS`: the ``eprintln!`` of the
timeline, the CUDA side's ``fprintf(stderr, ...)``, tracing events on stdout
and the Rust runtime's own lines. :data:`FORMATS` is the table of
docs/cuzk-daemon.md; :mod:`cuzklab.cuzk.lines` parses each one, and the tests
hold one sample line per entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.cuzk_versions import DAEMON_VERSIONS


@dataclass(frozen=True)
class LineFormat:
    """One format: its name, the source's format string, releases, where its fields go."""

    name: str
    kind: str            # the Record kind it parses to
    text: str            # the format string as the source writes it
    first: str           # first release that prints it
    last: str            # last release that prints it
    source: str          # file in the Curio repository
    goes_to: str         # where the parse puts its fields


_ENGINE = "extern/cuzk/cuzk-core/src/engine.rs"
_CU = "extern/supraseal-c2/cuda/groth16_cuda.cu"
_NTT = "extern/supraseal-c2/cuda/groth16_ntt_h.cu"
_PART = "partitions table"

FORMATS: tuple[LineFormat, ...] = (
    # -- TIMELINE (eprintln!, engine.rs timeline_event) -------------------------
    LineFormat("SYNTH_START", "timeline", "TIMELINE,{},SYNTH_START,{job},partition={}",
               "phase7", "head", _ENGINE, "synth span start; synth_running counter"),
    LineFormat("SYNTH_START monolithic", "timeline", "TIMELINE,{},SYNTH_START,{job},kind={}",
               "phase7", "head", _ENGINE, "whole-proof synth span start (partition -1)"),
    LineFormat("SYNTH_END", "timeline",
               "TIMELINE,{},SYNTH_END,{job},partition={},synth_ms={}",
               "phase7", "head", _ENGINE, "synth span end; synth_ms in the " + _PART),
    LineFormat("SYNTH_END monolithic", "timeline", "TIMELINE,{},SYNTH_END,{job},synth_ms={}",
               "phase7", "head", _ENGINE, "whole-proof synth span end"),
    LineFormat("CHAN_SEND", "timeline", "TIMELINE,{},CHAN_SEND,{job},partition={}",
               "phase7", "phase12", _ENGINE, "gpu_queue span start; gpu_queue_depth counter"),
    LineFormat("CHAN_SEND monolithic", "timeline", "TIMELINE,{},CHAN_SEND,{job},",
               "phase7", "phase12", _ENGINE, "gpu_queue span start (whole proof)"),
    LineFormat("GPU_QUEUE", "timeline", "TIMELINE,{},GPU_QUEUE,{job},partition={}",
               "head", "head", _ENGINE, "gpu_queue span start; gpu_queue_depth counter"),
    LineFormat("GPU_QUEUE monolithic", "timeline", "TIMELINE,{},GPU_QUEUE,{job},monolithic",
               "head", "head", _ENGINE, "gpu_queue span start (whole proof)"),
    LineFormat("GPU_PICKUP", "timeline", "TIMELINE,{},GPU_PICKUP,{job},worker={}[,partition={}]",
               "phase7", "head", _ENGINE, "gpu_queue span end; the partition's worker"),
    LineFormat("GPU_START", "timeline", "TIMELINE,{},GPU_START,{job},worker={}[,partition={}]",
               "phase7", "head", _ENGINE, "opens the GPU call the CUDA lines go to"),
    LineFormat("GPU_END", "timeline",
               "TIMELINE,{},GPU_END,{job},worker={}[,partition={}],gpu_ms={}",
               "phase7", "head", _ENGINE, "closes the call; gpu_ms in the " + _PART),
    # -- CUDA side (fprintf(stderr, ...)) ---------------------------------------
    LineFormat("split_vectors", "cuzk_timing",
               "CUZK_TIMING: split_vectors_ms=%ld setup_to_split_ms=%ld",
               "phase7", "head", _CU, "prep_msm starts setup_to_split_ms after GPU_START"),
    LineFormat("prep_msm", "cuzk_timing", "CUZK_TIMING: prep_msm_ms=%ld",
               "phase7", "head", _CU, "prep_msm span"),
    LineFormat("b_g2_msm", "cuzk_timing", "CUZK_TIMING: b_g2_msm_ms=%ld num_circuits=%zu",
               "phase7", "head", _CU, "b_g2_msm span after prep_msm"),
    LineFormat("ntt_msm_h", "cuzk_timing", "CUZK_TIMING: gpu_tid=%zu ntt_msm_h_ms=%ld",
               "phase7", "head", _CU, "ntt_h span (after the mutex; head)"),
    LineFormat("batch_add", "cuzk_timing", "CUZK_TIMING: gpu_tid=%zu batch_add_ms=%ld",
               "phase7", "head", _CU, "batch_add span (head)"),
    LineFormat("tail_msm", "cuzk_timing",
               "CUZK_TIMING: gpu_tid=%zu tail_msm_ms=%ld gpu_total_ms=%ld",
               "phase7", "head", _CU, "tail_msm span (head); gpu_total_ms in the " + _PART),
    LineFormat("async_dealloc", "cuzk_timing", "CUZK_TIMING: async_dealloc_ms=%ld",
               "phase7", "head", _CU, "counted; printed after the call, not attributed"),
    LineFormat("epilogue", "cuzk_timing",
               "CUZK_TIMING: epilogue_ms=%ld pre_destructor_ms=%ld",
               "phase7", "phase11", _CU,
               "epilogue span ending pre_destructor_ms after GPU_START; " + _PART),
    LineFormat("host_register fallback", "cuzk_timing",
               "CUZK_TIMING: host_register=fallback err=%d", "phase9", "phase12", _CU,
               "the call's values (host_register, err)"),
    LineFormat("prestage_vram", "cuzk_timing",
               "CUZK_TIMING: prestage_vram free_mib=%zu usable_mib=%zu need_da_mib=%zu "
               "need_dbc_mib=%zu total_mib=%zu", "phase9", "phase12", _CU,
               "the call's values (free_mib ... total_mib)"),
    LineFormat("prestage_setup skip_vram", "cuzk_timing",
               "CUZK_TIMING: prestage_setup=skip_vram", "phase9", "phase12", _CU,
               "prestage = skip_vram in the " + _PART),
    LineFormat("prestage_setup ok (timed)", "cuzk_timing",
               "CUZK_TIMING: prestage_setup=ok domain=%zu lot_of_memory=%d sync_ms=%lld "
               "trim_ms=%lld alloc_ms=%lld upload_ms=%lld total_ps_ms=%lld",
               "phase9", "phase10", _CU,
               "prestage = ok, prestage_upload_ms, prestage_total_ms in the " + _PART),
    LineFormat("prestage_setup ok", "cuzk_timing",
               "CUZK_TIMING: prestage_setup=ok domain=%zu lot_of_memory=%d",
               "phase11", "phase12", _CU, "prestage = ok in the " + _PART),
    LineFormat("prestage_setup fallback", "cuzk_timing",
               "CUZK_TIMING: prestage_setup=fallback err=%d", "phase9", "phase12", _CU,
               "prestage = fallback in the " + _PART),
    LineFormat("pre_lock", "cuzk_timing",
               "CUZK_TIMING: pre_lock_cpu_ms=%ld mutex_wait_ms=%ld", "head", "head", _CU,
               "mutex_wait span; places the GPU stages"),
    LineFormat("barrier_wait", "cuzk_timing", "CUZK_TIMING: gpu_tid=%zu barrier_wait_ms=%ld",
               "head", "head", _CU, "barrier_wait span"),
    LineFormat("mutex_held", "cuzk_timing",
               "CUZK_TIMING: mutex_held_ms=%ld total_start_fn_ms=%ld", "head", "head", _CU,
               "ends the call's hold of the GPU mutex; " + _PART),
    LineFormat("ntt_h breakdown", "cuzk_ntt_h",
               "CUZK_NTT_H: d_b_alloc=%ldms ntt_kernels=%ldms coset_intt_sync=%ldms "
               "msm_init=%ldms msm_invoke=%ldms msm_dtor=%ldms total=%ldms",
               "head", "head", _NTT, "ntt_h_total_ms, ntt_kernels_ms, msm_invoke_ms in the "
               + _PART),
    LineFormat("pool release threshold", "cuzk_note",
               "CUZK_TIMING: set pool release threshold to MAX on gpu %d", "head", "head",
               _CU, "counted (note pool_release_threshold, gpu)"),
    LineFormat("d_a cache", "cuzk_note",
               "CUZK_TIMING: d_a_cache allocated %zu MiB on gpu %d", "head", "head", _CU,
               "counted (note d_a_cache, mib, gpu)"),
    # -- tracing (stdout) -------------------------------------------------------
    LineFormat("tracing text", "tracing",
               "TIMESTAMP LEVEL [span{fields}:]target: message key=value ...",
               "phase7", "head", "extern/cuzk/cuzk-daemon/src/main.rs",
               "every event; the known messages below feed the trace"),
    LineFormat("tracing JSON", "tracing",
               '{"timestamp":..,"level":..,"fields":{"message":..,..},"target":..,'
               '"spans":[..]}', "phase7", "head", "tracing-subscriber json()",
               "the same as the text format (the daemon itself writes text)"),
    # -- Rust runtime (stderr) --------------------------------------------------
    LineFormat("panic", "runtime", "thread '{}' panicked at {file}:{line}:{col}:",
               "phase7", "head", "Rust 1.86 runtime", "meta cuzk.panics"),
    LineFormat("panic (Rust < 1.73)", "runtime",
               "thread '{}' panicked at '{msg}', {file}:{line}:{col}",
               "phase7", "head", "Rust runtime", "meta cuzk.panics"),
    LineFormat("backtrace note", "runtime",
               "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
               "phase7", "head", "Rust runtime", "counted"),
    LineFormat("exit error", "runtime", "Error: {}", "phase7", "head",
               "extern/cuzk/cuzk-daemon/src/main.rs (anyhow)", "meta cuzk.exit_errors"),
    LineFormat("exit error causes", "runtime", "Caused by:", "phase7", "head",
               "extern/cuzk/cuzk-daemon/src/main.rs (anyhow)", "counted"),
    LineFormat("allocation failure", "runtime", "memory allocation of {} bytes failed",
               "phase7", "head", "Rust std (abort)", "meta cuzk.alloc_failures; the run "
               "failed with reason oom"),
    LineFormat("C++ terminate", "runtime",
               "terminate called after throwing an instance of '{}'", "phase7", "head",
               "C++ runtime (CUDA side)", "meta cuzk.terminations"),
    LineFormat("C++ what()", "runtime", "  what():  {}", "phase7", "head",
               "C++ runtime (CUDA side)", "meta cuzk.terminations (message)"),
)

# Tracing messages the trace is built from (lines.KNOWN_MESSAGES), with their releases.
KNOWN_MESSAGE_RELEASES: dict[str, tuple[str, str]] = {
    "cuzk-daemon ready": ("phase7", "head"),
    "cuzk-daemon starting": ("phase7", "head"),
    "cuzk-daemon stopped": ("phase7", "head"),
    "received SIGINT": ("phase7", "head"),
    "starting cuzk engine": ("phase7", "head"),
    "memory budget initialized": ("head", "head"),
    "SRS loaded successfully": ("phase7", "head"),
    "pipeline GPU worker started": ("phase7", "head"),
    "partition synthesis complete": ("phase7", "head"),
    "partition GPU prove complete": ("phase7", "head"),
    "Phase 7: all partitions complete, proof assembled": ("phase7", "head"),
    "budget acquired": ("head", "head"),
    "waiting for budget": ("head", "head"),
    "partition synthesis failed": ("phase7", "head"),
    "partition synthesis task panicked": ("phase7", "head"),
    "skipping GPU prove for failed partitioned job": ("phase7", "head"),
}


def formats_markdown() -> str:
    """Return the formats as the Markdown table of docs/cuzk-daemon.md."""
    rows = ["| format | kind | releases | source | fields go to |",
            "|---|---|---|---|---|"]
    for f in FORMATS:
        rel = f.first if f.first == f.last else f"{f.first}–{f.last}"
        text = f.text.replace("|", "\\|")
        code = f"`` {text} ``" if "`" in text else f"`{text}`"
        rows.append(f"| {code} | `{f.kind}` | {rel} | `{f.source.split('/')[-1]}` | "
                    f"{f.goes_to} |")
    return "\n".join(rows)


_GROUP_FORMAT = {
    "split_vectors_ms": "split_vectors", "prep_msm_ms": "prep_msm", "b_g2_msm_ms": "b_g2_msm",
    "ntt_msm_h_ms": "ntt_msm_h", "batch_add_ms": "batch_add", "tail_msm_ms": "tail_msm",
    "async_dealloc_ms": "async_dealloc", "epilogue_ms": "epilogue",
    "host_register": "host_register fallback", "prestage_vram": "prestage_vram",
    "pre_lock_cpu_ms": "pre_lock", "barrier_wait_ms": "barrier_wait",
    "mutex_held_ms": "mutex_held",
}
_NOTE_FORMAT = {"pool_release_threshold": "pool release threshold", "d_a_cache": "d_a cache"}
_RUNTIME_FORMAT = {"backtrace_note": "backtrace note", "exit_error": "exit error",
                   "caused_by": "exit error causes", "alloc_failed": "allocation failure",
                   "terminate": "C++ terminate", "what": "C++ what()"}
BY_NAME = {f.name: f for f in FORMATS}


def format_of(rec) -> str | None:
    """Return the FORMATS name of a parsed Record (None for a bench line or free text)."""
    k = rec.kind
    if k == "timeline":
        ev, d = rec["event"], rec["detail"]
        mono = ev in ("SYNTH_START", "SYNTH_END", "CHAN_SEND", "GPU_QUEUE") \
            and "partition" not in d
        return f"{ev} monolithic" if mono else ev
    if k == "cuzk_timing":
        g, v = rec["group"], rec["values"]
        if g == "prestage_setup":
            word = v["prestage_setup"]
            if word == "ok":
                return "prestage_setup ok (timed)" if "upload_ms" in v else "prestage_setup ok"
            return f"prestage_setup {word}"
        return _GROUP_FORMAT.get(g)
    if k == "cuzk_ntt_h":
        return "ntt_h breakdown"
    if k == "cuzk_note":
        return _NOTE_FORMAT.get(rec.get("note"))
    if k == "tracing":
        return "tracing JSON" if rec.get("json") else "tracing text"
    if k == "runtime":
        item = rec["item"]
        if item == "panic":
            return "panic" if rec.get("message") is None else "panic (Rust < 1.73)"
        return _RUNTIME_FORMAT.get(item)
    return None


def releases_printing(formats, messages=()) -> list[str]:
    """Return the releases that print every format (and known tracing message) given."""
    ranges = [(BY_NAME[f].first, BY_NAME[f].last) for f in formats if f in BY_NAME]
    ranges += [KNOWN_MESSAGE_RELEASES[m] for m in messages if m in KNOWN_MESSAGE_RELEASES]
    out = []
    for v in DAEMON_VERSIONS.values():
        if all(DAEMON_VERSIONS[a].rank <= v.rank <= DAEMON_VERSIONS[b].rank
               for a, b in ranges):
            out.append(v.name)
    return out
