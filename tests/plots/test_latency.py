"""The latency-distribution figure of a mixed workload."""

from __future__ import annotations

import numpy as np

from cuzklab.plots import latency
from cuzklab.plots.latency import latency_rows
from cuzklab.sim import simulate


def _trace():
    wl = {"stream": [{"kind": "porep-c2", "arrival": "closed", "count": 2, "in_flight": 2},
                     {"kind": "winning-post", "arrival": "periodic", "period_s": 20.0,
                      "offset_s": 5.0, "count": 3}]}
    return simulate({"proofs": 2, "concurrency": 2}, workload=wl)


def test_one_cdf_per_kind_ending_at_the_share_finished():
    t = _trace()
    fig = latency(t)
    rows = latency_rows(t)
    assert set(rows) == {"porep-c2", "winning-post"}
    lines = [d for d in fig.data if d.showlegend is not False]
    assert [d.name.split(" ")[0] for d in lines] == ["porep-c2", "winning-post"]
    for d in lines:
        kind = d.name.split(" ")[0]
        lat = rows[kind]["latency"]
        assert np.isclose(max(d.x), lat[-1]) and d.y[0] == 0.0 and np.isclose(d.y[-1], 100.0)
    missed = sum(1 for x in rows["winning-post"]["latency"] if x > 30.0)
    assert f"{missed} missed 30 s" in lines[1].name
    assert t.summary()["kinds"]["winning-post"]["deadline_misses"] == missed
    # the deadline line of WinningPoSt, at 30 s
    dl = [d for d in fig.data if d.showlegend is False]
    assert len(dl) == 1 and list(dl[0].x) == [30.0, 30.0]
    assert fig.layout.xaxis.type == "log"


def test_unfinished_proofs_keep_the_line_below_100():
    t = _trace()
    t.meta["proofs"][0]["status"] = "failed"
    rows = latency_rows(t)
    assert rows["porep-c2"]["n"] == 2 and len(rows["porep-c2"]["latency"]) == 1
    line = [d for d in latency(t).data if d.name.startswith("porep-c2")][0]
    assert np.isclose(line.y[-1], 50.0)


def test_a_run_without_kinds_gives_an_empty_figure_that_says_why():
    fig = latency(simulate({"proofs": 1, "concurrency": 1}))
    assert len(fig.data) == 0 and "workload" in fig.layout.title.text


def test_the_report_has_the_latency_figure_for_a_mixed_run_only():
    from cuzklab.plots import report_figures
    titles = [t for t, _ in report_figures(_trace())]
    assert "latency per proof kind" in titles
    plain = [t for t, _ in report_figures(simulate({"proofs": 1, "concurrency": 1}))]
    assert "latency per proof kind" not in plain


def test_the_timeline_title_of_a_mixed_run_counts_proofs_by_kind():
    from cuzklab.plots.timeline import timeline_title
    title = timeline_title(_trace())
    assert "— 2 porep-c2 + 3 winning-post, pw=10" in title and "j=" not in title


def test_deadline_labels_sit_in_rows_of_their_own_above_the_curves():
    # Two deadlines whose labels point toward each other (30 s to the right, 1800 s to
    # the left) must not share a row: on a narrow figure they ran into each other.
    wl = {"stream": [{"kind": "porep-c2", "arrival": "closed", "count": 2, "in_flight": 2},
                     {"kind": "winning-post", "arrival": "periodic", "period_s": 20.0,
                      "offset_s": 5.0, "count": 2},
                     {"kind": "window-post", "arrival": "periodic", "period_s": 60.0,
                      "offset_s": 10.0, "count": 1}]}
    fig = latency(simulate({"proofs": 2, "concurrency": 2}, workload=wl))
    labels = [a for a in fig.layout.annotations if "deadline" in a.text]
    assert sorted(a.text.split()[0] for a in labels) == ["window-post", "winning-post"]
    rows = sorted(a.y for a in labels)
    assert rows[0] > 100.0 and rows[1] - rows[0] >= 5.0
    assert fig.layout.yaxis.range[1] > rows[1]
    assert {a.xanchor for a in labels} == {"left", "right"}
    assert list(fig.layout.yaxis.tickvals)[-1] == 100
