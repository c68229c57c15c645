"""The explorer's callbacks, driven directly: set a control, the figures follow."""

import re

import numpy as np
import pytest

from cuzklab.errors import CuzklabError
from cuzklab.model import PipelineConfig
from cuzklab.widgets import Explorer, register_source, unregister_source

SMALL = PipelineConfig(proofs=4, concurrency=4, partition_workers=4)


@pytest.fixture
def ex():
    return Explorer(SMALL, debounce_s=0)


def _timeline_spans(ex):
    # the explorer draws each span as a rectangle, one path a stage (a layout
    # shape), and hovers over an invisible trace a stage
    fig = ex.figures["timeline"]
    assert all(t.type == "scatter" and t.mode == "none" for t in fig.data)
    assert all(sh.type == "path" for sh in fig.layout.shapes)
    return sum(sh.path.count("Z") for sh in fig.layout.shapes)


def _starts(path):
    return np.array(re.findall(r"M([-\d.e+]+),", path), dtype=float)


def test_first_draw(ex):
    assert ex.trace is not None and ex.error is None
    assert ex.updates == 1
    assert f"{ex.summary['seconds_per_proof']:.1f} s/proof" in ex.headline.value
    assert _timeline_spans(ex) == len(ex.trace.spans)
    assert "lock=split_async" in ex.figures["timeline"].layout.title.text
    assert {"source_s", "summary_s", "draw_s", "total_s"} <= set(ex.timings)
    assert "spans" in ex.status.value
    names = [t.name for t in ex.figures["details"].data]
    assert "RSS" in names and any(n.startswith("RAM ") for n in names)   # memory
    assert "synth" in names and "mean utilization" in names             # breakdown, utilization
    titles = [a.text for a in ex.figures["details"].layout.annotations]
    assert any("Host memory" in t for t in titles) and any("Utilization" in t for t in titles)


def test_lock_change_redraws_each_figure_once(ex):
    fw = ex.figures["timeline"]
    before_head, before_title = ex.headline.value, fw.layout.title.text
    before_starts = {sh.name: _starts(sh.path) for sh in fw.layout.shapes}
    sent = dict(ex.pane.sent)
    ex.controls["lock"].value = "interlock"
    assert ex.updates == 2
    assert ex.trace.meta["config"]["lock"] == "interlock"
    fw = ex.figures["timeline"]
    assert "lock=interlock" in fw.layout.title.text != before_title
    assert ex.headline.value != before_head
    assert {k: v - sent[k] for k, v in ex.pane.sent.items()} == {"timeline": 1, "details": 1}
    assert any(not np.array_equal(_starts(sh.path), before_starts.get(sh.name))
               for sh in fw.layout.shapes)
    assert _timeline_spans(ex) == len(ex.trace.spans)


def test_slider_change(ex):
    ex.controls["partition_workers"].value = 2
    assert ex.trace.meta["config"]["partition_workers"] == 2
    synth_lanes = {ln for ln in ex.trace.spans["lane"] if ln.startswith("synth.")}
    assert len(synth_lanes) <= 2
    assert set(ex.figures["timeline"].layout.yaxis.ticktext) == set(ex.trace.spans["lane"])


def test_proofs_bound_proofs_in_flight_with_one_update(ex):
    n = ex.updates
    ex.controls["proofs"].value = 2
    assert ex.controls["concurrency"].max == 2 and ex.controls["concurrency"].value == 2
    assert ex.updates == n + 1
    assert ex.trace.meta["config"]["concurrency"] == 2


def test_memory_control_and_oom_warning(ex):
    ex.set(proofs=6, concurrency=6, partition_workers=12, memory_gib=120)
    assert ex.trace.meta["config"]["memory_gib"] == 120
    ram = [t for t in ex.figures["details"].data if t.name.startswith("RAM ")]
    assert list(ram[0].y) == [120, 120]
    if ex.summary["oom"]:
        assert "OUT OF HOST MEMORY" in ex.headline.value


def test_set_validates_and_updates_once(ex):
    n = ex.updates
    ex.set(lock="wide_mutex", gpu_workers_per_device=1)
    assert ex.updates == n + 1
    with pytest.raises(ValueError, match="unknown control 'nope'"):
        ex.set(nope=1)


def test_debounced_changes_coalesce():
    ex = Explorer(SMALL, debounce_s=60)
    n = ex.updates
    for pw in (3, 2, 1):
        ex.controls["partition_workers"].value = pw
    # the first change after a quiet spell redraws at once; the rest of the burst waits
    assert ex.updates == n + 1 and ex._debounced.pending
    ex.flush()
    assert ex.updates == n + 2 and ex.trace.meta["config"]["partition_workers"] == 1


def test_pin_and_compare(ex):
    ex.pin()
    assert ex.compare_box.layout.display == "flex"
    ex.controls["lock"].value = "interlock"
    fig = ex.compare_figure
    spp = next(t for t in fig.data if t.name == "s/proof")
    assert list(spp.x) == ["pinned", "current"]
    assert spp.y[0] == pytest.approx(ex.pinned_summary["seconds_per_proof"])
    assert spp.y[1] == pytest.approx(ex.summary["seconds_per_proof"])
    assert "lock split_async → interlock" in ex._diff.value
    assert "pinned" in ex._heads[0].value and "current" in ex._heads[1].value
    assert any("Pinned:" in a.text for a in fig.layout.annotations)
    pinned = [sh for sh in fig.layout.shapes if sh.type == "path"]
    assert {sh.name for sh in pinned} == set(ex.pinned.spans["stage"])
    assert sum(sh.path.count("Z") for sh in pinned) == len(ex.pinned.spans)
    # the pinned timeline's rectangles sit on its own (renumbered) axes
    hover = {t.yaxis for t in fig.data if t.type == "scatter" and t.hoveron == "points"}
    assert {sh.yref for sh in pinned} == hover and hover != {"y"}
    ex.unpin()
    assert ex.pinned is None and ex.compare_box.layout.display == "none"


def test_export(ex, tmp_path):
    ex.pin()
    ex.controls["lock"].value = "interlock"
    out = ex.export(tmp_path / "x.html")
    text = out["html"].read_text()
    assert text.count("cuzklab-headline") == 2
    ex.report_path.value = str(tmp_path / "y.html")
    ex.export_button.click()
    assert (tmp_path / "y.html").exists() and "wrote" in ex.status.value


def test_a_plugged_in_source_and_its_errors():
    calls = []

    def fake(config, profile):
        calls.append((config.lock, profile))
        if config.lock == "monolithic":
            raise CuzklabError("no daemon log for monolithic")
        from cuzklab.sim import simulate
        return simulate(config, profile)

    register_source("fake-test", fake)
    try:
        ex = Explorer(SMALL, source="fake-test", debounce_s=0)
        assert calls == [("split_async", ex.profile)]
        good = ex.headline.value
        ex.controls["lock"].value = "monolithic"
        assert "no daemon log for monolithic" in ex.status.value and ex.error
        assert ex.headline.value == good             # the last good run stays shown
        ex.controls["lock"].value = "interlock"
        assert ex.error is None
    finally:
        unregister_source("fake-test")


def test_bad_arguments():
    with pytest.raises(ValueError, match="source must be one of"):
        Explorer(SMALL, source="nope")
    with pytest.raises(TypeError, match="config must be"):
        Explorer(42)
    with pytest.raises(CuzklabError):
        Explorer({"proofs": 2, "concurrency": 5})


def _counting_source(calls, deterministic):
    from cuzklab.sim import simulate

    def source(config, profile=None):
        calls.append(config.lock)
        return simulate(config, profile)
    source.deterministic = deterministic
    return source


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_configuration_seen_again_is_drawn_from_the_kept_run(deterministic):
    calls = []
    register_source("counted", _counting_source(calls, deterministic))
    try:
        ex = Explorer(SMALL, source="counted", debounce_s=0)
        first = ex.trace
        for lock in ("interlock", "split_async", "interlock"):
            ex.controls["lock"].value = lock
        if deterministic:   # the simulator's way: same input, same trace, run once
            assert calls == ["split_async", "interlock"]
            assert ex.trace.meta["config"]["lock"] == "interlock"
            ex.controls["lock"].value = "split_async"
            assert ex.trace is first and ex.timings["cached"] and "(kept)" in ex.status.value
            assert "lock=split_async" in ex.figures["timeline"].layout.title.text
        else:               # a measured source runs every time
            assert calls == ["split_async", "interlock", "split_async", "interlock"]
            assert not ex.timings["cached"]
    finally:
        unregister_source("counted")


def test_kept_runs_are_bounded_and_can_be_turned_off():
    calls = []
    register_source("counted", _counting_source(calls, True))
    try:
        ex = Explorer(SMALL, source="counted", debounce_s=0, cache_size=1)
        for lock in ("interlock", "split_async", "interlock"):
            ex.controls["lock"].value = lock
        assert len(calls) == 4 and len(ex._runs) == 1   # one kept: the last
        ex.refresh()
        assert len(calls) == 4                          # the last run, kept
        ex.cache_size = 0
        ex.refresh()
        assert len(calls) == 5
    finally:
        unregister_source("counted")
    with pytest.raises(ValueError, match="cache_size must be an integer >= 0"):
        Explorer(SMALL, cache_size=-1)


# Near its memory limit: whether this run goes out of memory depends on the seed.
RISKY = PipelineConfig(proofs=3, concurrency=3, partition_workers=6, memory_gib=209)


def test_the_oom_risk_is_the_share_of_seeds_that_ran_out_of_memory():
    from cuzklab.sim import simulate
    from cuzklab.widgets.risk import ran_out_of_memory

    ex = Explorer(RISKY, debounce_s=0, oom_seeds=3)
    assert ex.risk.layout.display != "none"
    ooms = [ran_out_of_memory(simulate(RISKY.replace(seed=s))) for s in range(3)]
    k = sum(ooms)
    assert ex.wait_risk(timeout=300) == pytest.approx(k / 3)
    assert ex.summary["oom_seeds"] == 3 and ex.summary["oom_risk"] == pytest.approx(k / 3)
    assert f"OOM risk {k / 3:.0%}: {k} of 3 seeds (seeds 0-2) ran out of host memory" \
        in ex.risk.value
    if k:   # the headline says it too, beside the verdict of the seed drawn
        assert f"OOM risk {k / 3:.0%}: {k} of 3 seeds ran out of host memory" in ex.headline.value
    # one seed: the run drawn decides, and nothing runs in the background
    ex.controls["oom_seeds"].value = 1
    assert ex.oom_risk == float(ooms[0]) and "of 1 seed (seed 0)" in ex.risk.value
    # with memory to spare no seed runs out
    ex.controls["oom_seeds"].value = 2
    ex.set(memory_gib=754)
    assert ex.wait_risk(timeout=300) == 0.0 and "0 of 2 seeds" in ex.risk.value
    with pytest.raises(ValueError, match="oom_seeds must be an integer from 1 to 20"):
        Explorer(SMALL, oom_seeds=0)


def test_a_source_without_seeds_shows_no_oom_risk():
    register_source("unseeded", _counting_source([], deterministic=True))
    try:
        ex = Explorer(SMALL, source="unseeded", debounce_s=0)
        assert ex.risk.layout.display == "none" and ex.wait_risk() is None
        assert "oom_risk" not in ex.summary
    finally:
        unregister_source("unseeded")
