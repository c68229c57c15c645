"""Figures over a sweep table: failed points are shown, never dropped."""

import numpy as np
import pandas as pd
import pytest

from cuzklab.plots import sweep_heatmap, sweep_lines


def _table():
    rows = []
    for lock in ("interlock", "split_async"):
        for pw in (4, 8, 12):
            for rep in (0, 1):
                spp = 40.0 - pw + (2 if lock == "interlock" else 0) + rep
                rows.append({"lock": lock, "partition_workers": pw, "repeat": rep,
                             "status": "ok", "error": None, "oom": False,
                             "seconds_per_proof": spp, "peak_rss_gib": 100.0 + 10 * pw})
    rows.append({"lock": "split_async", "partition_workers": 16, "repeat": 0,
                 "status": "timeout", "error": "cell timed out after 60 s", "oom": None,
                 "seconds_per_proof": np.nan, "peak_rss_gib": np.nan})
    rows.append({"lock": "interlock", "partition_workers": 16, "repeat": 0,
                 "status": "ok", "error": None, "oom": True,
                 "seconds_per_proof": 25.0, "peak_rss_gib": 760.0})
    return pd.DataFrame(rows)


def test_lines_average_repeats_and_mark_failures():
    fig = sweep_lines(_table(), "partition_workers", "seconds_per_proof", color="lock")
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    assert set(lines) == {"lock=interlock", "lock=split_async"}
    sa = lines["lock=split_async"]
    assert list(sa.x) == [4, 8, 12]
    assert list(sa.y) == [36.5, 32.5, 28.5]          # mean of the two repeats
    assert sa.error_y.visible
    bad = {t.name: t for t in fig.data if t.mode == "markers"}
    assert list(bad["lock=split_async: no result"].customdata[0][:1]) == ["timeout"]
    # An OOM run is not a throughput result even though the point finished.
    assert list(bad["lock=interlock: no result"].customdata[0][:1]) == ["oom"]
    assert 16 not in list(lines["lock=interlock"].x)
    assert "s/proof" in fig.layout.yaxis.title.text
    assert fig.layout.legend.x > 1.0


def test_heatmap_cells_and_reasons():
    fig = sweep_heatmap(_table(), "partition_workers", "lock", "seconds_per_proof")
    hm = fig.data[0]
    assert list(hm.x) == ["4", "8", "12", "16"]
    assert list(hm.y) == ["interlock", "split_async"]
    z = np.array(hm.z, dtype=float)
    assert z[1, 0] == pytest.approx(36.5)
    assert np.isnan(z[1, 3]) and hm.text[1][3] == "timeout"
    assert np.isnan(z[0, 3]) and hm.text[0][3] == "oom"
    assert hm.reversescale  # lower s/proof is better


def test_errors_name_the_parameter():
    t = _table()
    with pytest.raises(ValueError, match="x='nope' is not a column"):
        sweep_lines(t, "nope", "seconds_per_proof")
    with pytest.raises(ValueError, match="color='colour'"):
        sweep_lines(t, "partition_workers", color="colour")
    with pytest.raises(TypeError, match="DataFrame"):
        sweep_heatmap(t.to_dict(), "lock", "partition_workers")
    with pytest.raises(ValueError, match="different columns"):
        sweep_heatmap(t, "lock", "lock")


def test_points_without_a_value_sit_in_a_labelled_lane_not_on_the_value_axis():
    fig = sweep_lines(_table(), "partition_workers", "seconds_per_proof", color="lock")
    lane = fig.layout.yaxis2
    assert list(lane.ticktext) == ["oom", "timeout"]
    for t in fig.data:
        if t.mode == "markers":
            assert t.yaxis == "y2", "a point without a result is drawn on the value axis"
        else:
            assert t.yaxis in (None, "y")
    # the value axis sits above the lane; the shared x axis is at the bottom
    assert fig.layout.yaxis.domain[0] > lane.domain[1]
    assert fig.layout.xaxis.anchor == "y2"
    # the OOM run's 25 s/proof (it ran out of memory) is nowhere on the value axis
    assert all(25.0 not in list(t.y) for t in fig.data if t.mode == "lines+markers")
    clean = _table()[lambda d: d["partition_workers"] < 16]
    assert "yaxis2" not in sweep_lines(clean, "partition_workers").to_dict()["layout"]


def test_legend_names_series_plainly_and_overlapping_lines_differ():
    t = _table()
    t = pd.concat([t.assign(proofs=10), t.assign(proofs=20)], ignore_index=True)
    fig = sweep_lines(t, "partition_workers", color=["lock", "proofs"])
    lines = [tr for tr in fig.data if tr.mode == "lines+markers"]
    assert [tr.name for tr in lines] == ["lock=interlock, proofs=10", "lock=interlock, proofs=20",
                                         "lock=split_async, proofs=10", "lock=split_async, proofs=20"]
    assert fig.layout.legend.title.text == "lock, proofs"
    styles = {(tr.line.color, tr.line.dash, tr.marker.symbol) for tr in lines}
    assert len(styles) == 4                                   # no two series look alike
    assert lines[0].line.color == lines[1].line.color         # color: lock; dash: proofs
    assert lines[0].line.dash != lines[1].line.dash
    # one key: identical lines still get their own dash and marker
    same = pd.concat([t.assign(lock="a"), t.assign(lock="b")], ignore_index=True)
    two = [tr for tr in sweep_lines(same, "partition_workers", color="lock").data
           if tr.mode == "lines+markers"]
    assert two[0].line.dash != two[1].line.dash and two[0].marker.symbol != two[1].marker.symbol


def test_ram_line_and_published_figures_with_the_error():
    t = _table()
    fig = sweep_lines(t, "partition_workers", "peak_rss_gib", color="lock", ram_gib=754)
    ram = next(tr for tr in fig.data if tr.name == "RAM 754 GiB")
    assert list(ram.y) == [754.0, 754.0] and ram.line.dash == "dash"
    pub = pd.DataFrame([{"lock": "split_async", "partition_workers": 8, "seconds_per_proof": 30.0}])
    fig = sweep_lines(t, "partition_workers", color="lock", published=pub)
    p = next(tr for tr in fig.data if tr.name == "published (cuzk)")
    assert list(p.x) == [8] and list(p.y) == [30.0]
    # model mean at pw=8 for split_async is 32.5: +8.3 %
    assert list(p.text) == ["+8.3 %"] and "error +8.3 %" in p.customdata[0][0]
    model = next(tr for tr in fig.data if tr.name == "lock=split_async")
    assert p.marker.color == model.line.color
