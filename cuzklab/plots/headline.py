"""The headline of a run: s/proof, peak RSS, what bounds it and why, an OOM warning.

One short block of HTML (for widgets and reports) or markdown (for notebooks
and logs) built from a run's summary dict (``Trace.summary()``).
"""

from __future__ import annotations

import html
import math

FORMATS = ("html", "markdown")

# Wait stages worth naming in the evidence, in pipeline order.
_WAITS = ("queue", "gpu_queue", "mutex_wait", "barrier_wait")


def _num(v, fmt: str, missing: str = "—") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return missing
    return format(v, fmt)


def headline_parts(summary: dict, *, memory_gib: float | None = None,
                   failure_message: str | None = None) -> dict[str, str]:
    """Return the headline as plain-text parts: throughput, memory, bottleneck, why, evidence, warning."""
    if not isinstance(summary, dict):
        raise TypeError(f"summary must be a dict from Trace.summary(), got {type(summary).__name__}")
    parts: dict[str, str] = {}
    spp = summary.get("seconds_per_proof")
    n = summary.get("proofs") or 0
    failed = summary.get("failed") or 0
    thr = f"{_num(spp, '.1f')} s/proof"
    detail = f"{n} proofs in {_num(summary.get('wall_s'), '.0f')} s"
    if failed:
        detail += f", {failed} failed"
    lat = summary.get("proof_latency_s_mean")
    if lat is not None:
        detail += f"; mean latency {lat:.1f} s"
    parts["throughput"] = thr
    parts["throughput_detail"] = detail
    peak = summary.get("peak_rss_gib")
    mem = f"peak RSS {_num(peak, '.0f')} GiB"
    if memory_gib:
        mem += f" of {memory_gib:.0f} GiB RAM"
        if peak is not None:
            mem += f" ({100 * peak / memory_gib:.0f} %)"
    parts["memory"] = mem
    bott = summary.get("bottleneck") or {}
    res = bott.get("resource")
    if res:
        u = bott.get("utilization")
        verb = "held" if res == "gpu_mutex" else "busy"
        parts["bottleneck"] = f"bound by {res}" + (f" ({verb} {100 * u:.0f} %)" if u is not None
                                                   and res != "host_memory" else "")
    else:
        parts["bottleneck"] = "no bottleneck found"
    # The same reason sentence `cuzklab simulate` prints after the resource.
    parts["why"] = str(bott.get("why") or "")
    ev = bott.get("evidence") or {}
    bits = []
    util = ev.get("utilization") or {}
    others = sorted(((k, v) for k, v in util.items() if k != res), key=lambda kv: -kv[1])[:2]
    if others:
        bits.append("next: " + ", ".join(f"{k} {100 * v:.0f} %" for k, v in others))
    waits = ev.get("mean_wait_s") or {}
    named = [(w, waits[w]) for w in _WAITS if w in waits and waits[w] >= 0.05]
    if named:
        bits.append("mean waits: " + ", ".join(f"{w} {v:.1f} s" for w, v in named))
    if ev.get("mean_slowdown") is not None:
        bits.append(f"mean contention slowdown ×{ev['mean_slowdown']:.2f}")
    parts["evidence"] = "; ".join(bits)
    if summary.get("oom"):
        msg = "OUT OF HOST MEMORY: the run exceeded RAM"
        if failure_message:
            msg += f" ({failure_message})"
        parts["warning"] = msg
    elif summary.get("run_failed"):
        parts["warning"] = f"run failed: {summary.get('failure_reason') or 'unknown reason'}"
        if failure_message:
            parts["warning"] += f" ({failure_message})"
    else:
        parts["warning"] = ""
    # Over several seeds (``oom_risk`` and ``oom_seeds`` in the summary, as the sweep
    # notebook and `cuzklab simulate --seeds` give them), say how often memory ran out.
    risk, n = summary.get("oom_risk"), summary.get("oom_seeds")
    if isinstance(risk, (int, float)) and not isinstance(risk, bool) and risk > 0 and n:
        note = f"OOM risk {risk:.0%}: {round(risk * n)} of {int(n)} seeds ran out of host memory"
        parts["warning"] = f"{parts['warning']}; {note}" if parts["warning"] else note
    return parts


def headline(summary, *, fmt: str = "html", memory_gib: float | None = None,
             label: str | None = None, failure_message: str | None = None) -> str:
    """Return the headline of a run as HTML or markdown.

    ``summary`` is a ``Trace.summary()`` dict, or a Trace (then the RAM size
    and the failure message come from its meta).
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}, got {fmt!r}")
    if hasattr(summary, "summary") and hasattr(summary, "meta"):
        trace = summary
        from .memory import ram_gib
        memory_gib = memory_gib if memory_gib is not None else ram_gib(trace)
        failure_message = failure_message or (trace.meta.get("failure") or {}).get("message")
        summary = trace.summary()
    p = headline_parts(summary, memory_gib=memory_gib, failure_message=failure_message)
    if fmt == "markdown":
        lines = []
        head = f"**{p['throughput']}**" + (f" ({label})" if label else "")
        lines.append(f"{head} — {p['throughput_detail']}")
        lines.append(f"{p['memory']} · **{p['bottleneck']}**"
                     + (f": {p['why']}" if p["why"] else ""))
        if p["evidence"]:
            lines.append(f"evidence: {p['evidence']}")
        if p["warning"]:
            lines.append(f"**⚠ {p['warning']}**")
        return "  \n".join(lines)
    e = html.escape
    warn = (f'<div class="cuzklab-warning" style="color:#b00020;font-weight:600;'
            f'margin-top:4px">⚠ {e(p["warning"])}</div>') if p["warning"] else ""
    lab = (f'<span style="color:#666;font-size:0.85em;margin-right:8px">{e(label)}</span>'
           if label else "")
    ev = (f'<div style="color:#555;font-size:0.9em">evidence: {e(p["evidence"])}</div>'
          if p["evidence"] else "")
    return (
        '<div class="cuzklab-headline" style="font-family:Inter,Helvetica,Arial,sans-serif;'
        'line-height:1.45">'
        f'<div>{lab}<span class="cuzklab-spp" style="font-size:1.6em;font-weight:700">'
        f'{e(p["throughput"])}</span> '
        f'<span style="color:#444">{e(p["throughput_detail"])}</span></div>'
        f'<div>{e(p["memory"])} · <b>{e(p["bottleneck"])}</b>'
        + (f'<span class="cuzklab-why">: {e(p["why"])}</span>' if p["why"] else "")
        + "</div>"
        f"{ev}{warn}</div>")
