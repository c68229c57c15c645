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
    assert list(bad["lock=interlock: no result"].customdata[0][:1]) == ["OOM"]
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
    assert np.isnan(z[0, 3]) and hm.text[0][3] == "OOM"
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
