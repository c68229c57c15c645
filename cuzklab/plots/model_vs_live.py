"""Model against measurement: side-by-side timelines, stage bars and the contention curve.

Every figure names the source of each side in its labels: ``model (sim,
PROFILE)`` and ``live (BACKEND)`` or ``cuzk-log``. :func:`overlay` puts a
measured trace and the model's prediction of the same configuration in one
figure (the two timelines, then the per-stage bars of both);
:func:`contention_figure` draws prep_msm's and b_g2_msm's slowdown against the
number of concurrent syntheses, measured and modelled; :func:`pace_figure` draws
stored jobs' plain-model error against the host's pace at their rows; :func:`compare_html`
writes ``cuzklab compare``'s page.
"""

from __future__ import annotations

import html
from pathlib import Path

import plotly.graph_objects as go

from .breakdown import breakdown
from .compose import stack
from .style import base_layout, stage_color
from .timeline import timeline


def source_label(trace) -> str:
    """Return how a trace names its source in a comparison: ``model (sim, P)``, ``live (gpu)``."""
    meta = trace.meta
    src = meta.get("source") or "?"
    if src == "sim":
        return f"model (sim, {meta.get('profile')})"
    if src == "live":
        live = meta.get("live") or {}
        return f"live ({live.get('backend') or meta.get('backend') or 'measured'})"
    return f"measured ({src})"


def overlay(measured, model, *, title: str | None = None, width: int = 1200) -> go.Figure:
    """Return the measured timeline, the model's timeline and both sides' stage bars in one figure."""
    lm, lp = source_label(measured), source_label(model)
    sm, sp = measured.summary(), model.summary()

    def head(label, s):
        spp = s.get("seconds_per_proof")
        b = (s.get("bottleneck") or {}).get("resource")
        return f"{label}: {spp:.3g} s/proof, bound by {b}" if spp else f"{label}"
    end = max(measured.duration, model.duration, 1e-9)
    tl = [timeline(measured, title=head(lm, sm)), timeline(model, title=head(lp, sp))]
    for f in tl:  # one time scale for both sides, so their lengths compare by eye
        f.update_xaxes(range=[0, end * 1.02])
    if measured.meta.get("startup_s_left_out"):  # a daemon log cut at its SRS load's end
        tl[0].update_xaxes(title_text="time since the SRS load ended (s)")
    figs = [*tl,
            breakdown([measured, model], labels=[lm, lp],
                      title="mean seconds per stage: " + lm + " vs " + lp)]
    return stack(figs, width=width, title=title or f"{lm} against {lp}")


def contention_figure(curve: dict, calibration: dict | None = None) -> go.Figure:
    """Return prep_msm's and b_g2_msm's slowdown against concurrent syntheses, live and model.

    The slowdown (seconds beside S syntheses over seconds beside none, each side
    against its own) is what the curve is judged on: the two sides' solo seconds
    come from different measurements, so seconds side by side would show a gap
    the judgement does not count. The seconds are in the hover text. The band
    around the model is the target (model / live within 15 %). Where prep_msm
    was taken over the host probe, its raw slowdown and the probe's are drawn
    too, as markers. ``calibration``: the profile's ``[calibration]`` table; the b_g2_msm
    slowdowns its pool weight was fitted on (``contention_b_g2_x``) are drawn as stars at
    their counts, so a curve that misses where those points sat off it reads so.
    """
    from ..calibrate.contention import CURVE_TARGET
    rows = curve["rows"]
    x = [r["syntheses"] for r in rows]
    fig = go.Figure()
    for stage in ("prep_msm", "b_g2_msm"):
        c = stage_color(stage)
        model = [r.get(f"{stage}_model_x", 1.0) for r in rows]
        # live within the target of the model: model / live - 1 in [-t, t]
        lo = [m / (1 + CURVE_TARGET) for m in model]
        hi = [m / (1 - CURVE_TARGET) for m in model]
        fig.add_trace(go.Scatter(x=x + x[::-1], y=hi + lo[::-1], fill="toself", fillcolor=c, mode="lines",
                                 opacity=0.15, line=dict(width=0), hoverinfo="skip",
                                 name=f"{stage} · within {100 * CURVE_TARGET:.0f} % of the model"))
        fig.add_trace(go.Scatter(
            x=x, y=[r.get(f"{stage}_live_x", 1.0) for r in rows], name=f"{stage} · live",
            mode="lines+markers", line=dict(color=c, width=2), marker=dict(size=8),
            customdata=[r[f"{stage}_live_s"] * 1e3 for r in rows],
            hovertemplate=f"{stage} live, %{{x}} syntheses: x%{{y:.2f}} (%{{customdata:.1f}} ms)"
                          "<extra></extra>"))
        fig.add_trace(go.Scatter(
            x=x, y=model, name=f"{stage} · model ({curve['profile']})",
            mode="lines+markers", line=dict(color=c, width=2, dash="dash"),
            marker=dict(size=8, symbol="diamond-open"),
            customdata=[r[f"{stage}_model_s"] * 1e3 for r in rows],
            hovertemplate=f"{stage} model, %{{x}} syntheses: x%{{y:.2f}} (%{{customdata:.1f}} ms)"
                          "<extra></extra>"))
    probed = bool(rows) and all("prep_msm_raw_live_x" in r and "host_probe_live_x" in r
                                for r in rows)
    if probed:  # the calls' own seconds move with the host's speed of the moment
        c = stage_color("prep_msm")
        fig.add_trace(go.Scatter(x=x, y=[r["prep_msm_raw_live_x"] for r in rows],
                                 name="prep_msm · live, raw seconds", mode="markers",
                                 marker=dict(size=8, symbol="x-thin", line=dict(width=1.5, color=c))))
        fig.add_trace(go.Scatter(x=x, y=[r["host_probe_live_x"] for r in rows],
                                 name="host probe (one thread) · live", mode="markers",
                                 marker=dict(size=7, symbol="circle-open", color="#777")))
        if all("host_probe_model_x" in r for r in rows):
            fig.add_trace(go.Scatter(x=x, y=[r["host_probe_model_x"] for r in rows],
                                     name="host probe · model", mode="markers",
                                     marker=dict(size=7, symbol="diamond-open", color="#777")))
    from ..calibrate.contention import fitted_points
    points = fitted_points(calibration)
    if points:
        fig.add_trace(go.Scatter(
            x=[c for c, _ in points], y=[x for _, x in points], mode="markers",
            name="b_g2_msm · the calibration's points (the model's weight was fitted on them)",
            marker=dict(size=12, symbol="star-open", line=dict(width=1.5),
                        color=stage_color("b_g2_msm")),
            hovertemplate="the calibration, beside %{x} syntheses: x%{y:.2f}<extra></extra>"))
    same = curve.get("same_pass")
    if same:  # the weight fitted again on this curve's own visits of the calibration's counts
        pts = [{"syntheses": 0, "b_g2_msm_model_x": 1.0, "fitted": True}, *same["rows"]]
        fig.add_trace(go.Scatter(
            x=[p["syntheses"] for p in pts], y=[p["b_g2_msm_model_x"] for p in pts],
            mode="lines+markers",
            name=f"b_g2_msm · model, weight {same['pool_weight']:.3g} fitted on this curve's "
                 f"points beside {', '.join(map(str, same['counts']))}",
            line=dict(color=stage_color("b_g2_msm"), width=1.5, dash="dot"),
            # the points fitted small, the ones it predicts as open triangles
            marker=dict(size=[4 if p.get("fitted") else 9 for p in pts],
                        symbol=["circle" if p.get("fitted") else "triangle-up-open"
                                for p in pts]),
            hovertemplate="model on the weight fitted in these passes, %{x} syntheses: "
                          "x%{y:.2f}<extra></extra>"))
    fitted = [r["syntheses"] for r in rows if r.get("fitted")]
    notes = []
    if fitted:
        notes.append(f"fitted on {fitted}; the other points are predictions")
    from ..calibrate.contention import raw_prep_reason
    why = raw_prep_reason(curve)
    if probed and why:
        notes.append(f"prep_msm live: raw seconds ({why})")
    elif probed:
        notes.append("prep_msm: each call over a one-thread probe timed around it "
                     "(the model's over its own probe)")
    if curve.get("slowdowns") == "paired":
        notes.append("live slowdowns: median over passes of a visit over the visit beside none "
                     "of the same pass")
    if same:
        notes.append(f"dotted: the pool weight fitted again on this curve's points beside "
                     f"{', '.join(map(str, same['counts']))} ({same['pool_weight']:.3g}; the "
                     f"profile's {same['profile_pool_weight']:.3g}), worst other point "
                     f"{100 * same['max_abs_error']:.1f} %: "
                     f"{'within' if same['met'] else 'outside'} {100 * CURVE_TARGET:.0f} %")
    fig.update_layout(**base_layout(
        title=dict(text=f"prep_msm and b_g2_msm beside concurrent syntheses — live "
                        f"({curve.get('backend')}, 2^{curve['log2_constraints']}, pool of "
                        f"{curve['pool_threads']}) and model"
                        + "".join(f"<br><sup>{n}</sup>" for n in notes), x=0.0, xanchor="left"),
        margin=dict(l=70, r=20, t=60 + 24 * len(notes), b=50), height=420 + 24 * len(notes)))
    fig.update_xaxes(title_text="concurrent syntheses", dtick=1 if max(x, default=0) <= 16 else None)
    fig.update_yaxes(title_text="slowdown (seconds over seconds beside none)", rangemode="tozero")
    return fig


def pace_figure(jobs: list[dict], fit: dict, *, labels: dict | None = None,
                kinds: dict | None = None, repaced_total: dict | None = None,
                repaced_before=()) -> go.Figure:
    """Return each stored job's median plain-model error against the host's pace at its rows.

    ``jobs``: rejudged jobs (``benchmarks/rejudge_live_jobs.py``), each with ``checks``
    (the median over its rows of the b_g2_msm and synthesis checks timed alone around each
    run, over the profile's figures) and ``median_error`` (model / live - 1, the plain
    model); jobs without checks are left out. Where a job has ``repaced`` (its profile
    re-paced to its first checks, with their ``median_error``), an open marker at the same
    pace shows that error, joined to the plain one (``repaced_total``: their sums, in the
    subtitle). ``fit``: their ``pace_fit``. The curve is what the pace alone would give,
    error = 1 / pace - 1 (the model right at the calibration's pace, every row bound by
    b_g2_msm); the band is the 10 % target. A point right of 1 ran its rows on a host
    slower than at its calibration. ``repaced_before``: the jobs whose rows ran on their
    profile re-paced right before them (``calibrate --repace``), drawn with a dot inside:
    their checks and errors are over that re-paced profile."""
    shown = [j for j in jobs if j.get("checks")]
    labels = labels or {}
    kinds = kinds or {}
    fig = go.Figure()
    xs = [j["checks"]["b_g2_msm"] for j in shown]
    lo, hi = min(xs + [0.9]) * 0.95, max(xs + [1.1]) * 1.05
    grid = [lo + (hi - lo) * k / 60 for k in range(61)]
    fig.add_trace(go.Scatter(x=[lo, hi, hi, lo], y=[-10, -10, 10, 10], fill="toself",
                             fillcolor="#59a14f", opacity=0.12, line=dict(width=0),
                             mode="lines", hoverinfo="skip",
                             name="±10 % (the target, for every row)"))
    fig.add_trace(go.Scatter(x=grid, y=[100 * (1 / g - 1) for g in grid], mode="lines",
                             line=dict(color="#7f7f7f", dash="dash", width=1.5),
                             name="the host's pace alone: 1 / pace - 1", hoverinfo="skip"))
    # a job's number above its point, else below or beside it: the first place that keeps
    # clear of every label placed before, of every marker, filled or open, and of lines
    dx = 0.05 * (hi - lo)
    offsets = {"top center": (0.0, 3.0), "bottom center": (0.0, -3.0),
               "middle right": (dx / 2, 0.0), "middle left": (-dx / 2, 0.0),
               "top right": (dx / 3, 2.5), "bottom right": (dx / 3, -2.5),
               "top left": (-dx / 3, 2.5), "bottom left": (-dx / 3, -2.5)}
    markers = [(j["checks"]["b_g2_msm"], 100 * j["median_error"]) for j in shown]
    markers += [(j["checks"]["b_g2_msm"], 100 * j["repaced"]["median_error"])
                for j in shown if j.get("repaced")]
    mx, my = 0.35 * dx, 2.2  # a label's half size plus a marker's, in axis units

    steps = [k / 10 for k in range(1, 10)]  # points along a leader line

    def crosses(line, at, hx, hy):  # the line passes within (hx, hy) of ``at``
        x, y, ax, ay = line
        return any(abs(x + t * (ax - x) - at[0]) < hx and abs(y + t * (ay - y) - at[1]) < hy
                   for t in steps)

    def on_line(line, at):  # the line passes through a label's box at ``at``
        return crosses(line, at, dx / 3, 1.5)

    def faults(x, y, at, k):
        """How badly a label at ``at`` (``k`` times its near offset) reads: 0 where it keeps
        clear of every label placed before, of every marker and of their leader lines, and
        (set off on a line of its own) where that line passes no other job's marker, which a
        reader would take for the label's (its own, filled and open, share its x), and no
        label."""
        n = sum(abs(at[0] - a) < dx / 2 and abs(at[1] - b) < 3.0 for a, b in taken)
        n += sum(abs(at[0] - a) < mx and abs(at[1] - b) < my for a, b in markers)
        n += sum(on_line(line, at) for line in lines)
        if k > 1.0:
            n += sum(crosses((x, y, *at), (a, b), mx / 2, my / 2)
                     for a, b in markers if a != x)
            n += sum(on_line((x, y, *at), b) for b in taken)
        return n
    place, taken, lines = {}, [], []
    for j in sorted(shown, key=lambda j: j["checks"]["b_g2_msm"]):
        x, y = j["checks"]["b_g2_msm"], 100 * j["median_error"]
        up = bool(j.get("repaced")) and 100 * j["repaced"]["median_error"] > y
        order = sorted(offsets, key=lambda w: up and w.startswith("top"))  # off its line
        # the eight places next to the marker, then the same two to four times as far (a
        # crowd of jobs at one pace), where the label hangs off its marker by a short line:
        # the first that reads cleanly; none where none does (listed in the subtitle)
        tries = [(w, k) for k in (1.0, 2.0, 3.0, 4.0) for w in order]
        good = next(((w, k) for w, k in tries
                     if not faults(x, y, (x + k * offsets[w][0], y + k * offsets[w][1]), k)),
                    None)
        if good is None:
            place[j["job"]] = None
            continue
        where, far = good
        ox, oy = offsets[where]
        place[j["job"]] = (where, far)
        taken.append((x + far * ox, y + far * oy))
        if far > 1.0:
            lines.append((x, y, x + far * ox, y + far * oy))
    paced = [j for j in shown if j.get("repaced")]
    if paced:  # each job re-paced to its first checks: a thin line from its plain point
        xs_, ys_ = [], []
        for j in paced:
            xs_ += [j["checks"]["b_g2_msm"]] * 2 + [None]
            ys_ += [100 * j["median_error"], 100 * j["repaced"]["median_error"], None]
        fig.add_trace(go.Scatter(x=xs_, y=ys_, mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color="#bbbbbb", width=1)))
    before = set(repaced_before or ())
    for kind, symbol, color, ran in (("h200", "circle", "#4e79a7", False),
                                     ("h100", "diamond", "#e15759", False),
                                     ("h200", "circle-dot", "#4e79a7", True),
                                     ("h100", "diamond-dot", "#e15759", True)):
        pts = [j for j in shown if kinds.get(j["job"], "h200") == kind
               and (j["job"] in before) == ran]
        if not pts:
            continue
        name = f"a job on an {kind.upper()} machine's host (its number)"
        if ran:
            name = (f"a job on an {kind.upper()} machine's host whose rows ran on its profile "
                    "re-paced right before them (error and checks over that)")
        fig.add_trace(go.Scatter(
            x=[j["checks"]["b_g2_msm"] for j in pts],
            y=[100 * j["median_error"] for j in pts], mode="markers+text",
            text=[str(j["job"]) if place[j["job"]] and place[j["job"]][1] == 1.0 else ""
                  for j in pts],
            textposition=[(place[j["job"]] or ("top center",))[0] for j in pts],
            textfont=dict(size=10, color="#555"),
            marker=dict(size=11 if ran else 10, symbol=symbol, color=color,
                        line=dict(width=1.5 if ran else 1, color="#333")),
            customdata=[[labels.get(j["job"], j["job"]), j["checks"]["synth"],
                         j["within_10"], j["rows"]] for j in pts],
            hovertemplate="%{customdata[0]} job: b_g2_msm checks x%{x:.2f}, synthesis "
                          "x%{customdata[1]:.2f}; median error %{y:+.1f} %; "
                          "%{customdata[2]} of %{customdata[3]} rows within 10 %<extra></extra>",
            name=name))
    # the labels set two to four times as far off: each on a short line to its marker
    for j in shown:
        if place[j["job"]] is None or place[j["job"]][1] == 1.0:
            continue
        where, far = place[j["job"]]
        ox, oy = offsets[where]
        x, y = j["checks"]["b_g2_msm"], 100 * j["median_error"]
        fig.add_annotation(x=x, y=y, text=str(j["job"]), showarrow=True, arrowhead=0,
                           arrowwidth=1, arrowcolor="#999", font=dict(size=10, color="#555"),
                           axref="x", ayref="y", ax=x + far * ox, ay=y + far * oy,
                           bgcolor="rgba(255,255,255,0.8)")
    if paced:
        fig.add_trace(go.Scatter(
            x=[j["checks"]["b_g2_msm"] for j in paced],
            y=[100 * j["repaced"]["median_error"] for j in paced], mode="markers",
            marker=dict(size=9, symbol="circle-open", color="#333", line=dict(width=1.5)),
            customdata=[[labels.get(j["job"], j["job"]), j["repaced"]["checks"],
                         j["repaced"]["within_10"], j["repaced"]["rows"]] for j in paced],
            hovertemplate="%{customdata[0]} job re-paced to its first %{customdata[1]} checks: "
                          "median error %{y:+.1f} %; %{customdata[2]} of %{customdata[3]} rows "
                          "within 10 %<extra></extra>",
            name="the same job, its profile re-paced to its first checks"))
    sub = (f"{fit['jobs']} jobs with host checks; r = {fit['r']:+.2f} between the logs, "
           f"log slope {fit['slope']:+.2f} (-1 would be the pace alone)")
    if repaced_total:
        rp = repaced_total
        sub += (f"<br>re-paced to each job's first {rp['checks']} checks: {rp['within_10']} of "
                f"{rp['rows']} rows within 10 % (the plain profile {rp['plain_within_10']})")
    bare = sorted(n for n, at in place.items() if at is None)
    if bare:  # no place read cleanly: no label rather than one a reader could misplace
        sub += (f"<br>where the jobs crowd, not labelled: {', '.join(map(str, bare))} "
                "(hover, or the table of jobs)")
    fig.update_layout(**base_layout(
        title=dict(text="The plain model's error follows the host's pace at the rows"
                        + "".join(f"<br><sup>{line}</sup>" for line in sub.split("<br>")),
                   x=0.0, xanchor="left"),
        margin=dict(l=70, r=20, t=80 + 22 * sub.count("<br>"), b=130), height=620,
        legend=dict(orientation="h", yanchor="top", y=-0.16, x=0.0)))
    fig.update_xaxes(title_text="host checks at the rows over the profile (b_g2_msm calls "
                                "alone, median row; above 1: slower than at calibration)",
                     range=[lo, hi])
    fig.update_yaxes(title_text="median row's error (model / live - 1, %)",
                     zeroline=True, zerolinecolor="#999")
    return fig


def _pct(v) -> str:
    return "—" if v is None else f"{100 * v:+.1f} %"


def _num(v, f=".3f") -> str:
    return "—" if v is None else format(v, f)


def _ms(seconds) -> str:
    return "—" if seconds is None else f"{1000 * seconds:.0f}"


def _steps_cell(model: dict, live: dict) -> str:
    """Return a row's synthesis steps, model / measured, as a table cell (— where a side
    lacks them)."""
    ms, ls = model.get("synth_steps_s") or {}, live.get("synth_steps_s") or {}
    if not ms or not ls:
        return "<td>—</td>"
    return (f"<td>witness {_ms(ms.get('witness'))} / {_ms(ls.get('witness'))}; "
            f"MatVec {_ms(ms.get('matvec'))} / {_ms(ls.get('matvec'))}</td>")


def _waves_cell(model: dict, live: dict) -> str:
    """Return a row's later syntheses over its first wave's, model / measured, as a table cell
    (— where a side has no later wave)."""
    mw, lw = model.get("synth_waves_s") or {}, live.get("synth_waves_s") or {}
    if mw.get("later_over_first") is None or lw.get("later_over_first") is None:
        return "<td>—</td>"
    return f"<td>×{mw['later_over_first']:.2f} / ×{lw['later_over_first']:.2f}</td>"


def compare_table_html(result: dict) -> str:
    """Return the comparison rows as an HTML table (the measured side named by
    ``result['against']``: live runs, or a cuzk daemon's logs)."""
    from ..calibrate.compare import verdict_label
    from ..calibrate.logcompare import measured_word
    word = html.escape(measured_word(result))
    reps = any(len(r["live"].get("repeats") or []) > 1 for r in result["rows"])
    runs_head = "<th>live runs (s/proof; spread)</th>" if reps else ""
    tracked = any(r.get("model_tracked") for r in result["rows"])
    tracked_head = ("<th>s/proof model at the host's checked speed (error; synth, b_g2_msm "
                    "ratio)</th>" if tracked else "")
    steps = any(r["model"].get("synth_steps_s") and r["live"].get("synth_steps_s")
                for r in result["rows"])
    steps_head = (f"<th>synthesis steps, mean ms, model / {word} (the MatVec with its wait "
                  f"for the pool)</th>" if steps else "")
    waves = any((r["model"].get("synth_waves_s") or {}).get("later_over_first") is not None
                and (r["live"].get("synth_waves_s") or {}).get("later_over_first") is not None
                for r in result["rows"])
    waves_head = (f"<th>a later synthesis over a first-wave one, model / {word}</th>"
                  if waves else "")
    head = ("<tr><th>configuration</th><th>fitted</th><th>s/proof model</th>"
            f"<th>s/proof {word}{' (median run)' if reps else ''}</th>{runs_head}"
            f"<th>error</th>{tracked_head}<th>peak RSS model (GiB)</th><th>peak RSS {word} (GiB)</th><th>error</th>"
            f"<th>GPU busy model / {word}</th><th>GPU hold a partition, ms: model / {word}</th>"
            f"{steps_head}{waves_head}<th>bottleneck model / {word}</th></tr>")
    body = []
    works = {r.get("witness_work") for r in result["rows"]}
    for r in result["rows"]:
        c, m, lv, e = r["config"], r["model"], r["live"], r["error"]
        name = (f"{c['lock']} gw={c['gpu_workers_per_device']} pw={c['partition_workers']} "
                f"({c['proofs']}×{c['partitions']})"
                + (f" W={r['witness_work']:g}" if len(works) > 1 else ""))
        if r.get("logs"):
            name += " · " + ", ".join(Path(f).name for f in r["logs"])
        if lv.get("failed"):
            name += f" (failed: {lv.get('failure_reason') or 'run failed'}; not judged)"
        same = "" if e["same_verdict"] else " style='color:#b00'"
        runs = ""
        if reps:
            spp = [x["seconds_per_proof"] for x in lv.get("repeats") or []]
            spread = (lv.get("spread") or {}).get("seconds_per_proof")
            runs = ("<td>" + " / ".join(_num(x) for x in spp)
                    + (f"; {100 * spread:.1f} %" if spread is not None else "") + "</td>")
        tr = ""
        if tracked:
            tr = "<td>—</td>"
            if r.get("model_tracked"):
                f = r["host_check"]["ratios"]
                un = r["host_check"].get("unscaled") or ()
                tr = (f"<td>{_num(r['model_tracked']['seconds_per_proof'])} "
                      f"({_pct(r['error_tracked']['seconds_per_proof'])}; "
                      + ", ".join("—" if k in un else f"×{f[k]:.2f}"
                                  for k in ("synth", "b_g2_msm")) + ")</td>")
        body.append(
            f"<tr><td>{html.escape(name)}</td><td>{'yes' if r['fitted'] else ''}</td>"
            f"<td>{_num(m['seconds_per_proof'])}</td><td>{_num(lv['seconds_per_proof'])}</td>{runs}"
            f"<td>{_pct(e['seconds_per_proof'])}</td>{tr}<td>{_num(m['peak_rss_gib'], '.2f')}</td>"
            f"<td>{_num(lv['peak_rss_gib'], '.2f')}</td><td>{_pct(e['peak_rss_gib'])}</td>"
            f"<td>{_num(m['gpu_busy_fraction'], '.2f')} / {_num(lv['gpu_busy_fraction'], '.2f')}</td>"
            f"<td>{_ms(m.get('gpu_hold_s'))} / {_ms(lv.get('gpu_hold_s'))}</td>"
            + (_steps_cell(m, lv) if steps else "") + (_waves_cell(m, lv) if waves else "") +
            f"<td{same}>{html.escape(verdict_label(m))} / {html.escape(str(lv['bottleneck']))}"
            f"</td></tr>")
    return "<table>" + head + "".join(body) + "</table>"


def compare_html(result: dict, path, *, timelines: bool = True):
    """Write the comparison page: the error table, each row's two timelines side by side, then
    the contention curve where the comparison measured one."""
    from ..atomic import write_text
    from ..calibrate.logcompare import measured_word
    word = html.escape(measured_word(result))
    if result.get("against") == "logs":
        n = len(result["rows"])
        title = (f"model ({html.escape(result['profile'])}) against a cuzk daemon's logs "
                 f"({n} run{'s' if n != 1 else ''})")
        how = ("<p>Each row is one run of the daemon, its configuration read from its logs, "
               "beside the model of that configuration. ")
    else:
        title = (f"model ({html.escape(result['profile'])}) against live "
                 f"({html.escape(result['device'])}, 2<sup>{result['log2_constraints']}</sup> rows)")
        how = "<p>"
    parts = [f"<h1>{title}</h1>",
             f"{how}error = model / {word} − 1. Rows marked fitted are configurations the "
             "profile was calibrated on; the others are predictions.</p>"]
    files = result.get("measured_files")
    if files:
        n = len(files)
        passes = (f", {n} passes of one job run as separate steps, each row judged on its "
                  f"median run" if n > 1 else "")
        parts.append(f"<p>The live side is stored (nothing ran live for this page): "
                     f"{html.escape(', '.join(files))}{passes}; the model is simulated again "
                     f"on {html.escape(result['profile'])}.</p>")
    nz = (result.get("verdict") or {}).get("live_noise")
    if nz:
        judged = sum(1 for r in result["rows"] if not r.get("fitted"))
        who = ("Each row" if nz["rows_with_repeats"] >= judged else
               f"{nz['rows_with_repeats']} of the {judged} rows not fitted (the others once)")
        parts.append(
            f"<p>{who} ran live {nz['repeats']} times, pass after pass; a row's figures, and its "
            f"timeline below, are its run of median s/proof. One row's runs spread by {100 * nz['median_spread']:.1f} % "
            f"(median row) to {100 * nz['max_spread']:.1f} % (widest) of that run; the model "
            f"lies within the live runs on {nz['model_within_live_range']} of "
            f"{nz['rows_with_repeats']} rows.</p>")
        from ..calibrate.compare import drift_text, even_repeats_text, pace_text
        even = even_repeats_text(nz)
        if even:
            parts.append(f"<p>{html.escape(even[0].upper() + even[1:])}.</p>")
        drift = drift_text(nz)
        if drift:
            parts.append(f"<p>Host drift: {html.escape(drift)}. A trend here is the host's, "
                         f"not the model's.</p>")
        pace = pace_text(nz)
        if pace:
            parts.append(f"<p>{html.escape(pace[0].upper() + pace[1:])}.</p>")
    from ..calibrate.compare import host_moved_text, tracked_text
    tv = (result.get("verdict") or {}).get("tracked")
    tracked = tracked_text(tv)
    if tracked:
        parts.append(f"<p>{html.escape(tracked[0].upper() + tracked[1:])}. The plain model "
                     f"runs at the speed the profile was calibrated at; the tracked one at the "
                     f"speed the host showed around each run.</p>")
    moved = host_moved_text(tv)
    if moved:
        parts.append(f"<p><b>{html.escape(moved[0].upper() + moved[1:])}.</b></p>")
    from ..calibrate.compare import witness_line_text
    for line in witness_line_text(result):
        parts.append(f"<p><b>{html.escape(line[0].upper() + line[1:])}.</b></p>")
    from ..calibrate.compare import logged_notes
    for line in logged_notes(result):
        parts.append(f"<p>{html.escape(line)}.</p>")  # it starts with a file name: as it is
    parts.append(compare_table_html(result))
    worst = (result.get("verdict") or {}).get("worst") or {}
    from ..calibrate.compare import attribution_text
    logged = measured_word(result, adjective=True)
    att = attribution_text(worst.get("attribution") or [], word=logged)
    if att:
        parts.append(f"<p>Worst row, {html.escape(worst['config'])}: of its s/proof gap, the "
                     f"row simulated again with one stage at a time at its {logged} time: "
                     f"{html.escape(att)}.</p>")
    first = True
    for r in result["rows"]:
        tr = r.get("traces")
        if not timelines or not tr:
            continue
        if r.get("logs"):  # which run of the daemon, and where its timeline starts
            c, lv = r["config"], r["live"]
            start = (f"; its time axis starts after the SRS load ({lv['startup_s']:.1f} s)"
                     if lv.get("startup_s") else "")
            parts.append(f"<h3>{html.escape(', '.join(Path(f).name for f in r['logs']))}: "
                         f"{html.escape(c['lock'])} gw={c['gpu_workers_per_device']} "
                         f"pw={c['partition_workers']}, {c['proofs']} proofs, "
                         f"j={c['concurrency']}{html.escape(start)}</h3>")
        fig = overlay(tr["live"], tr["model"])
        parts.append(fig.to_html(full_html=False, include_plotlyjs=first))
        first = False
    from ..calibrate.contention import has_load
    curve = result.get("contention")
    if has_load(curve):
        t = curve.get("target") or {}
        verdict = ("" if t.get("max_abs_error") is None else
                   f" Worst slowdown error over the points not fitted: {100 * t['max_abs_error']:.1f} % "
                   f"(target {100 * t['slowdown_error']:.0f} %): {'met' if t['met'] else 'not met'}.")
        from ..calibrate.commands import calibration_points_text, same_pass_text
        held = calibration_points_text(curve, result.get("calibration"))
        same = same_pass_text(curve)
        parts.append("<h2>The contention curve</h2><p>prep_msm and b_g2_msm beside concurrent "
                     "syntheses, each side's slowdown against its own time beside none."
                     + html.escape(verdict) + "</p>"
                     + "".join(f"<p>{html.escape(t[0].upper() + t[1:])}.</p>"
                               for t in (held, same) if t))
        parts.append(contention_figure(curve, result.get("calibration")).to_html(
            full_html=False, include_plotlyjs=first))
    style = ("<style>body{font-family:sans-serif;margin:24px}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
             "td:first-child{text-align:left}</style>")
    text = ("<!doctype html><html><head><meta charset='utf-8'><title>cuzklab compare</title>"
            + style + "</head><body>" + "".join(parts) + "</body></html>")
    return write_text(path, text)
