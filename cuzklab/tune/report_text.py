"""The tuner's answer as plain text: what ``cuzklab tune`` prints."""

from __future__ import annotations


def _f(v, fmt=".1f", missing="—") -> str:
    return missing if v is None else format(v, fmt)


def node_line(result) -> str:
    """Return one line saying what was tuned for."""
    n, r = result.node, result.request
    gpus = f"{n.gpus} GPU" + ("s" if n.gpus > 1 else "")
    j = f", {r['concurrency']} in flight" if r.get("concurrency") else ""
    lat = f", mean latency <= {r['max_latency_s']:g} s" if r.get("max_latency_s") else ""
    return (f"node {n.memory_gib:g} GiB RAM, {gpus}, {r['cores']} cores, {r['vram_gib']:g} GiB VRAM; "
            f"profile {r['profile']}; {r['proofs']} proofs{j}; objective {r['objective']}{lat}; "
            f"limit {n.limit_gib:g} GiB peak RSS ({n.margin_gib:g} GiB margin)")


def format_result(result) -> str:
    """Return the recommendation, why, the alternatives and the search's cost as text."""
    lines = [node_line(result)]
    rec = result.recommended
    if rec is None:
        lines.append(f"no recommendation: {result.answer}")
        if result.minimum_memory_gib is not None:
            lines.append(f"  minimum RAM for this profile and margin: {result.minimum_memory_gib} GiB")
    else:
        m = rec.metrics
        rob = rec.robustness
        lo, hi = rob.spread()
        lines += [
            f"recommended      {rec.knobs.label()}",
            f"  throughput     {m['seconds_per_proof']:.1f} s/proof "
            f"({3600 / m['seconds_per_proof']:.1f} proofs/h); {_f(lo)}-{_f(hi)} s/proof under "
            f"+-{100 * rob.move:.0f} % stage costs and {result.request['seeds']} seeds "
            f"(mean {_f(rob.mean())})",
            f"  proof latency  {_f(m['proof_latency_s'], '.0f')} s mean from submit",
            f"  peak RSS       {m['peak_rss_gib']:.1f} GiB: {result.headroom_gib():.1f} GiB headroom "
            f"to the RAM line, {result.node.limit_gib - m['peak_rss_gib']:.1f} GiB inside the "
            f"limit; {_f(rob.peak_max)} GiB at most under the moves",
            f"  bottleneck     {m['bottleneck']['resource']}: {m['bottleneck']['why']}",
        ]
        util = m["bottleneck"].get("utilization") or {}
        if util:
            lines.append("  utilization    " + ", ".join(f"{k} {100 * v:.0f}%"
                                                       for k, v in util.items()))
        moves = rob.moves_table()
        if moves:
            def swing(r):
                a, b = r.get("s_per_proof_down"), r.get("s_per_proof_up")
                return -1 if a is None or b is None else abs(b - a)
            top = sorted(moves, key=swing, reverse=True)[:3]
            lines.append("  most sensitive " + "; ".join(
                f"{r['stage']} {_f(r.get('s_per_proof_down'))}/{_f(r.get('s_per_proof_up'))}"
                for r in top) + f" s/proof at -/+{100 * rob.move:.0f} %")
        if result.alternatives:
            lines.append("next best, and what each loses:")
            w = max(len(c.knobs.label()) for c in result.alternatives)
            lines.append(f"  {'configuration':<{w}}  s/proof  latency  peak RSS  loses")
            for c in result.alternatives:
                row = result.alternative_row(c)
                lines.append(f"  {row['label']:<{w}}  {_f(row['seconds_per_proof']):>7}  "
                             f"{_f(row['proof_latency_s'], '.0f'):>5} s  "
                             f"{_f(row['peak_rss_gib'], '.0f'):>4} GiB  {row['loses']}")
    front = result.pareto()
    if front:
        lines.append(f"pareto front within the limit: {len(front)} configurations, from "
                     f"{front[0].s_per_proof:.1f} s/proof at {front[0].metrics['peak_rss_gib']:.0f} "
                     f"GiB to {front[-1].s_per_proof:.1f} s/proof at "
                     f"{front[-1].metrics['peak_rss_gib']:.0f} GiB")
    sims = ", ".join(f"{k} {v}" for k, v in result.simulations.items())
    lines.append(f"searched {len(result.points)} configurations with {result.simulation_count} "
                 f"simulations ({sims}) in {result.elapsed_s:.1f} s")
    return "\n".join(lines)
