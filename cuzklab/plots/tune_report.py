"""The tuner's report: one HTML page (opens offline) and the Pareto figure as PNG.

The page holds what was tuned for, the recommendation with its predicted
figures and bottleneck, the Pareto figure, the alternatives and what each
loses, the s/proof of the recommendation with each stage cost moved, and the
cuzk daemon TOML to copy.
"""

from __future__ import annotations

import html

from ..atomic import write_text
from .export import write_png
from .pareto import pareto_figure


def _f(v, fmt=".1f") -> str:
    return "—" if v is None else format(v, fmt)


def _table(header, rows) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def tune_report_html(result, fig=None) -> str:
    """Return the report page of a TuneResult as standalone HTML."""
    from ..tune.report_text import node_line
    fig = fig if fig is not None else pareto_figure(result)
    parts = [f"<h1>cuzklab tune</h1><p class=node>{html.escape(node_line(result))}</p>"]
    rec = result.recommended
    if rec is None:
        parts.append(f"<p class=warn><b>No recommendation.</b> {html.escape(result.answer)}</p>")
    else:
        m, rob = rec.metrics, rec.robustness
        lo, hi = rob.spread()
        b = m["bottleneck"]
        parts.append(
            f"<p class=rec><b>Recommended: {html.escape(rec.knobs.label())}</b><br>"
            f"{m['seconds_per_proof']:.1f} s/proof ({3600 / m['seconds_per_proof']:.1f} proofs/h), "
            f"{_f(lo)}–{_f(hi)} s/proof under ±{100 * rob.move:.0f} % stage costs and "
            f"{result.request['seeds']} seeds; mean latency {_f(m['proof_latency_s'], '.0f')} s; "
            f"peak RSS {m['peak_rss_gib']:.1f} GiB ({_f(rob.peak_max)} GiB at most under the "
            f"moves), {result.headroom_gib():.1f} GiB headroom to the RAM line.<br>"
            f"Bound by <b>{html.escape(str(b['resource']))}</b>: {html.escape(str(b['why']))}</p>")
    parts.append(fig.to_html(include_plotlyjs=True, full_html=False))
    if rec is not None:
        rows = [[r["label"], _f(r["seconds_per_proof"]), _f(r["proof_latency_s"], ".0f"),
                 _f(r["peak_rss_gib"], ".0f"), r["loses"]]
                for r in (result.alternative_row(c) for c in result.alternatives)]
        parts.append("<h2>Next best, and what each loses</h2>"
                     + _table(["configuration", "s/proof", "latency (s)", "peak RSS (GiB)",
                               "loses"], rows))
        pct = f"{100 * rec.robustness.move:.0f} %"
        rows = [[r["stage"], _f(r.get("s_per_proof_down")), _f(r.get("s_per_proof_up")),
                 _f(r.get("peak_rss_gib_down")), _f(r.get("peak_rss_gib_up"))]
                for r in rec.robustness.moves_table()]
        parts.append(f"<h2>Each stage cost moved by ±{pct}</h2>"
                     + _table(["stage", f"s/proof at −{pct}", f"s/proof at +{pct}",
                               f"peak RSS at −{pct}", f"peak RSS at +{pct}"], rows))
        parts.append("<h2>cuzk daemon TOML</h2><pre>" + html.escape(result.toml()) + "</pre>")
    sims = ", ".join(f"{k} {v}" for k, v in result.simulations.items())
    parts.append(f"<p class=foot>{len(result.points)} configurations, "
                 f"{result.simulation_count} simulations ({html.escape(sims)}), "
                 f"{result.elapsed_s:.1f} s.</p>")
    style = ("body{font-family:Inter,Helvetica,Arial,sans-serif;margin:24px;max-width:1200px}"
             "table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #ddd;"
             "padding:4px 10px;text-align:left}pre{background:#f6f6f6;padding:12px;"
             "font-size:12px}.warn{color:#b00}.node,.foot{color:#555}")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>cuzklab tune</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>")


def write_tune_report(result, html: str | None = None, png: str | None = None) -> dict:
    """Write the report page to ``html`` and the Pareto figure to ``png``; return the paths."""
    fig = pareto_figure(result)
    out = {}
    if html:
        out["html"] = write_text(html, tune_report_html(result, fig))
    if png:
        out["png"] = write_png(fig, png, width=1100, height=520)
    return out
