"""The explorer with workload controls: rates per kind drive the run and the latency figure."""

import pytest

from cuzklab.model import PipelineConfig
from cuzklab.widgets import MixedExplorer
from cuzklab.widgets.mixed import workload_from_values

SMALL = PipelineConfig(proofs=2, concurrency=2, partition_workers=4)


@pytest.fixture
def ex():
    return MixedExplorer(SMALL, debounce_s=0, workload={"duration_s": 400.0,
                                                        "window_post_per_hour": 12.0,
                                                        "winning_post_per_hour": 60.0})


def _kinds_drawn(ex):
    return {t.name.split(" ")[0] for t in ex.latency_figure.data if t.showlegend is not False}


def test_first_draw_has_every_kind(ex):
    assert ex.error is None
    kinds = ex.summary["kinds"]
    assert set(kinds) == {"porep-c2", "window-post", "winning-post"}
    assert all(k["proofs"] > 0 for k in kinds.values())
    assert _kinds_drawn(ex) == set(kinds)
    assert ex.trace.meta["workload"]["stream"][1]["period_s"] == 300.0


def test_a_rate_of_zero_drops_the_kind_and_all_zero_is_todays_run(ex):
    ex.set_workload(window_post_per_hour=0.0)
    assert set(ex.summary["kinds"]) == {"porep-c2", "winning-post"}
    ex.set_workload(winning_post_per_hour=0.0)
    assert "kinds" not in ex.summary and ex.workload is None
    assert len(ex.latency_figure.data) == 0


def test_controls_reach_the_config(ex):
    ex.set_workload(eviction_min_idle_s=30.0, sort_by_type=False)
    assert ex.trace.meta["config"]["eviction_min_idle_s"] == 30.0
    assert ex.trace.meta["config"]["sort_by_type"] is False


def test_workload_from_values():
    wl = workload_from_values({"duration_s": 600.0, "window_post_per_hour": 2.0,
                               "winning_post_per_hour": 0.0, "snap_deals_per_hour": 3.0},
                              SMALL)
    assert [s.kind for s in wl.streams] == ["porep-c2", "window-post", "snap-deals"]
    assert wl.streams[0].in_flight == 2 and wl.streams[0].count == 2
    assert wl.streams[1].period_s == 1800.0 and wl.duration_s == 600.0


def test_curio_s_limit_control_reaches_the_workload(ex):
    assert ex.workload.max_pending is None
    ex.set_workload(max_pending=1.0)
    assert ex.workload.max_pending == 1
    assert ex.trace.meta["workload"]["max_pending"] == 1
    kinds = ex.summary["kinds"]
    assert all("client_wait_s_max" in k for k in kinds.values())
    # with PoRep alone the limit still makes a workload (it caps PoRep's proofs in flight)
    ex.set_workload(window_post_per_hour=0.0, winning_post_per_hour=0.0)
    assert ex.workload is not None and [s.kind for s in ex.workload.streams] == ["porep-c2"]


def test_unknown_workload_control():
    with pytest.raises(ValueError, match="unknown workload control"):
        MixedExplorer(SMALL, debounce_s=0, workload={"wpost": 1})



def test_kept_runs_are_kept_per_workload(ex):
    """The same configuration under two workloads is two kept runs, each shown for its own."""
    ex.set_workload(window_post_per_hour=0.0)
    assert set(ex.summary["kinds"]) == {"porep-c2", "winning-post"}
    ex.set_workload(window_post_per_hour=12.0)
    assert "(kept)" in ex.status.value
    assert set(ex.summary["kinds"]) == {"porep-c2", "window-post", "winning-post"}


def test_the_oom_risk_runs_the_seeds_with_the_workload(monkeypatch):
    from cuzklab.widgets import risk

    jobs = []
    real = risk._WORKER.submit
    monkeypatch.setattr(risk._WORKER, "submit", lambda fn, *a: jobs.append(a) or real(fn, *a))
    ex = MixedExplorer(SMALL, debounce_s=0, oom_seeds=2,
                       workload={"duration_s": 400.0, "winning_post_per_hour": 60.0,
                                 "eviction_min_idle_s": 30.0})
    assert ex.wait_risk(timeout=300) == 0.0 and ex.summary["oom_seeds"] == 2
    config, _profile, seed, workload = jobs[-1]
    assert seed == 1 and workload == ex.workload
    assert config["eviction_min_idle_s"] == ex.workload_controls["eviction_min_idle_s"].value
