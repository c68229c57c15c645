"""What a live run adds to the summary: verification counts and the executor's overhead.

Overhead, precisely: every partition lives from its submission (the start of
its ``queue`` span) to the end of its last span (its epilogue). Over that
life the trace accounts for each moment with a span: a stage at work
(synth, prep_msm, h2d, ntt_h, batch_add, tail_msm, b_g2_msm, epilogue) or a
wait the configuration implies (queue for admission, gpu_queue for a worker,
mutex_wait, barrier_wait; pool tasks count from their submission, so waiting
for a pool thread is inside the stage). What no span covers is the
executor's own time: hand-offs between threads, lock and queue wake-ups,
Python bookkeeping between stages. ``overhead_fraction`` is that uncovered
time summed over partitions divided by their lives summed. It is 0 for a
perfect executor and does not depend on how busy the GPU is.
"""

from __future__ import annotations


from ..trace.summary import union_length


def overhead(trace) -> dict:
    """Return {overhead_fraction, overhead_s_per_partition, partitions}: time outside every span."""
    s = trace.spans
    s = s[s["proof"] >= 0]
    if s.empty:
        return {"overhead_fraction": None, "overhead_s_per_partition": None, "partitions": 0}
    life = gap = 0.0
    n = 0
    for _, g in s.groupby(["proof", "partition"]):
        a, b = float(g["start"].min()), float(g["end"].max())
        covered = union_length(g["start"].to_numpy(), g["end"].to_numpy())
        life += b - a
        gap += max(0.0, (b - a) - covered)
        n += 1
    return {"overhead_fraction": round(gap / life, 5) if life > 0 else None,
            "overhead_s_per_partition": round(gap / n, 6), "partitions": n}


def live_summary(trace) -> dict:
    """Return the trace's summary plus the live run's figures (verification, overhead, size)."""
    out = trace.summary()
    live = trace.meta.get("live") or {}
    ver = live.get("verification") or {}
    out["verification"] = {k: ver.get(k) for k in
                           ("checked", "verified", "proofs_checked", "proofs_verified", "skipped")
                           if k in ver}
    out.update(overhead(trace))
    for k in ("backend", "device", "log2_constraints", "constraints"):
        if k in live:
            out[k] = live[k]
    if trace.failed:
        out["failure_message"] = (trace.meta.get("failure") or {}).get("message")
    return out


def format_live(summary: dict, config) -> str:
    """Return the simulate-style table of a live run, with its size, verification and overhead."""
    from ..sim.commands import format_summary
    head = (f"live {summary.get('backend')} ({summary.get('device')}): 2^"
            f"{summary.get('log2_constraints')} rows per partition "
            f"({summary.get('constraints'):,} constraints)")
    body = format_summary(summary, config, "live")
    ver = summary.get("verification") or {}
    if ver.get("skipped"):
        vline = "not checked"
    else:
        vline = (f"{ver.get('verified', 0)} of {ver.get('checked', 0)} partition proofs pass the "
                 f"pairing check ({ver.get('proofs_verified', 0)} of "
                 f"{ver.get('proofs_checked', 0)} whole proofs)")
    frac = summary.get("overhead_fraction")
    lines = [head, body, f"  verified         {vline}",
             "  overhead         " + ("—" if frac is None else
                                      f"{100 * frac:.2f} % of partition time outside every span "
                                      f"({1000 * summary['overhead_s_per_partition']:.2f} ms "
                                      f"per partition)")]
    if summary.get("failure_message"):
        lines.append(f"  failure          {summary['failure_message'].splitlines()[0]}")
    return "\n".join(lines)


__all__ = ["overhead", "live_summary", "format_live"]
