"""A shareable page for one or more runs: the headline, then every figure.

The HTML inlines plotly.js once, so the file opens offline on any machine.
The PNG is one tall image (the figures stacked) for slides and chat.
"""

from __future__ import annotations

import datetime as _dt
import html
from pathlib import Path

from ..atomic import write_text
from .breakdown import breakdown
from .compare import compare, config_diff
from .compose import stack
from .export import write_png
from .headline import headline
from .memory import memory, ram_gib
from .timeline import timeline
from .utilization import utilization


def _runs(trace_or_traces, labels):
    if hasattr(trace_or_traces, "spans"):
        traces = [trace_or_traces]
    elif isinstance(trace_or_traces, (list, tuple)):
        traces = list(trace_or_traces)
    else:
        raise TypeError("trace_or_traces must be a Trace or a list of Traces, got "
                        f"{type(trace_or_traces).__name__}")
    if not traces:
        raise ValueError("trace_or_traces must hold at least one Trace")
    for t in traces:
        if not hasattr(t, "spans"):
            raise TypeError(f"trace_or_traces must hold Traces, got {type(t).__name__}")
    if labels is None:
        labels = [_default_label(t, i) for i, t in enumerate(traces)]
    labels = [str(x) for x in labels]
    if len(labels) != len(traces):
        raise ValueError(f"labels must have one entry per trace ({len(traces)}), got {len(labels)}")
    return traces, labels


def _default_label(trace, i: int) -> str:
    cfg = trace.meta.get("config") or {}
    bits = [str(trace.meta.get("profile") or trace.source or f"run {i + 1}")]
    if cfg.get("lock"):
        bits.append(f"lock={cfg['lock']}")
    return " · ".join(bits)


def report_figures(trace_or_traces, labels=None) -> list[tuple[str, object]]:
    """Return [(section title, figure)] for the report of one or more runs."""
    traces, labels = _runs(trace_or_traces, labels)
    out = []
    summaries = [t.summary() for t in traces]
    for t, s, lab in zip(traces, summaries, labels):
        prefix = f"{lab}: " if len(traces) > 1 else ""
        out.append((prefix + "timeline", timeline(t, summary=s)))
    out.append(("stage breakdown", breakdown(traces, labels if len(traces) > 1 else None)))
    for t, s, lab in zip(traces, summaries, labels):
        prefix = f"{lab}: " if len(traces) > 1 else ""
        out.append((prefix + "memory", memory(t)))
        out.append((prefix + "utilization", utilization(t, summary=s)))
        if t.meta.get("workload"):           # a mixed workload: latency per proof kind
            from .latency import latency
            out.append((prefix + "latency per proof kind", latency(t)))
    if len(traces) == 2:
        out.append(("comparison", compare(traces[0], traces[1], labels,
                                          summaries=summaries)))
    return out


_CSS = """
body { font-family: Inter, Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1280px;
       color: #222; padding: 0 16px; }
h1 { font-size: 1.4em; margin-bottom: 4px; }
.meta { color: #666; font-size: 0.9em; margin-bottom: 16px; }
.run { border-left: 4px solid #4e79a7; padding: 6px 12px; margin: 10px 0; background: #f7f9fc; }
section { margin: 18px 0 28px 0; }
"""


def report_html(trace_or_traces, labels=None, *, title: str | None = None) -> str:
    """Return the full HTML text of the report (plotly.js inlined once)."""
    traces, labels = _runs(trace_or_traces, labels)
    title = title or ("cuzklab run report" if len(traces) == 1 else "cuzklab comparison report")
    heads = []
    for t, lab in zip(traces, labels):
        cfg = t.meta.get("config") or {}
        cfg_txt = ", ".join(f"{k}={v}" for k, v in cfg.items())
        heads.append(f'<div class="run">{headline(t, label=lab)}'
                     f'<div class="meta">source {html.escape(str(t.source))} · profile '
                     f'{html.escape(str(t.meta.get("profile")))} · {html.escape(cfg_txt)}</div>'
                     "</div>")
    if len(traces) == 2:
        a, b = traces
        diff = config_diff(a.meta.get("config") or {}, b.meta.get("config") or {})
        if a.meta.get("profile") != b.meta.get("profile"):
            diff["profile"] = (a.meta.get("profile"), b.meta.get("profile"))
        text = ", ".join(f"{k} {x} → {y}" for k, (x, y) in diff.items()) or "nothing"
        heads.append(f"<div class='meta'>changed from {html.escape(labels[0])} to "
                     f"{html.escape(labels[1])}: {html.escape(text)}</div>")
    sections = []
    for i, (name, fig) in enumerate(report_figures(traces, labels)):
        div = fig.to_html(full_html=False, include_plotlyjs=(i == 0),
                          config={"displaylogo": False, "responsive": True})
        sections.append(f"<section><h2 style='font-size:1.1em'>{html.escape(name)}</h2>"
                        f"{div}</section>")
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><div class='meta'>written {stamp} by cuzklab</div>"
        + "".join(heads) + "".join(sections) + "</body></html>")


def dashboard(trace_or_traces, labels=None) -> object:
    """Return one tall figure with every report figure stacked (for a PNG)."""
    traces, labels = _runs(trace_or_traces, labels)
    figs = [f for _name, f in report_figures(traces, labels)]
    lines = []
    for t, lab in zip(traces, labels):
        md = headline(t.summary(), fmt="markdown", memory_gib=ram_gib(t))
        text = md.replace("**", "").split("  \n")
        lines.append(f"<b>{lab}</b>: " + " · ".join(text[:2]))
        lines.extend(f"<span style='color:#b00020'>{x}</span>" for x in text[2:] if "⚠" in x)
    return stack(figs, title="<br>".join(lines))


def write_report(trace_or_traces, html_path, png_path=None, *, labels=None,
                 title: str | None = None) -> dict[str, Path]:
    """Write the HTML report (and a PNG when ``png_path`` is given); return the paths."""
    traces, labels = _runs(trace_or_traces, labels)
    if html_path is None and png_path is None:
        raise ValueError("give html_path, png_path or both")
    out: dict[str, Path] = {}
    if html_path is not None:
        out["html"] = write_text(Path(html_path), report_html(traces, labels, title=title))
    if png_path is not None:
        out["png"] = write_png(dashboard(traces, labels), Path(png_path))
    return out
