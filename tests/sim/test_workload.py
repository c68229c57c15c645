"""Mixed workloads: priorities, pre-emption at partition boundaries, SRS residency, batching."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from cuzklab.errors import ConfigError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate
from cuzklab.sim.daemon import DaemonModel
from cuzklab.sim.mixed import MixedModel
from cuzklab.sim.workload import Workload

EPS = 1e-9
RANK = {"winning-post": 0, "window-post": 1, "porep-c2": 2, "snap-deals": 2}


def _kinds(trace) -> dict[int, str]:
    return {r["proof"]: r["kind"] for r in trace.meta["proofs"]}


def _queue(trace) -> pd.DataFrame:
    """One row per partition: kind, when it was queued and when it was admitted."""
    q = trace.spans[trace.spans["stage"] == "queue"].copy()
    q["kind"] = q["proof"].map(_kinds(trace))
    q["rank"] = q["kind"].map(RANK)
    return q


def _mixed(**extra):
    streams = [{"kind": "porep-c2", "arrival": "closed", "count": 4, "in_flight": 3},
               {"kind": "winning-post", "arrival": "periodic", "period_s": 37.0,
                "offset_s": 20.0, "count": 4},
               {"kind": "window-post", "arrival": "periodic", "period_s": 60.0,
                "offset_s": 45.0, "count": 2}]
    return {"stream": streams, **extra}


CFG = dict(proofs=4, concurrency=3, partition_workers=6)


@pytest.fixture(scope="module")
def mixed_trace():
    return simulate(CFG, workload=_mixed())


@pytest.fixture(scope="module")
def budget_trace():
    return simulate({**CFG, "admission": "budget", "memory_gib": 400.0, "budget_gib": 320.0,
                     "partition_workers": 12}, workload=_mixed())


# -- the default path --------------------------------------------------------------

def test_default_workload_is_todays_model_bit_for_bit():
    cfg = PipelineConfig(proofs=4, concurrency=2)
    plain = simulate(cfg)
    for wl in (None, Workload.porep(), {"stream": [{"kind": "porep-c2"}]}):
        t = simulate(cfg, workload=wl)
        assert t.spans.equals(plain.spans)
        assert t.counters.equals(plain.counters)
        assert t.summary() == plain.summary()
        assert "workload" not in t.meta and "kinds" not in t.summary()


@pytest.mark.parametrize("extra", [{}, {"admission": "semaphore_prefix"},
                                   {"lock": "interlock", "gpu_workers_per_device": 1}])
def test_mixed_model_with_one_porep_stream_gives_the_same_timings(extra):
    """The mixed scheduler, given today's workload, reproduces the daemon model's spans."""
    cfg = PipelineConfig(proofs=5, concurrency=3, **extra)
    prof = Profile.load()
    a = DaemonModel(cfg, prof).run()
    b = MixedModel(cfg, prof, Workload(streams=Workload.porep().streams,
                                       warm_start=True)).run()
    cols = ["proof", "partition", "stage", "start", "end"]
    x = a.spans[cols].sort_values(cols).reset_index(drop=True)
    y = b.spans[cols].sort_values(cols).reset_index(drop=True)
    pd.testing.assert_frame_equal(x, y)
    assert b.summary()["kinds"]["porep-c2"]["srs_loads"] == 0


# -- priorities ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["mixed_trace", "budget_trace"])
def test_priority_order_is_respected(name, request):
    """No partition is admitted while a more urgent one is waiting."""
    trace = request.getfixturevalue(name)
    assert not trace.failed, trace.meta.get("failure")
    q = _queue(trace)
    assert set(q["kind"]) == {"porep-c2", "winning-post", "window-post"}
    for _, p in q.iterrows():
        waiting = q[(q["rank"] < p["rank"]) & (q["start"] < p["end"] - EPS)
                    & (q["end"] > p["end"] + EPS)]
        assert waiting.empty, (p.to_dict(), waiting.to_dict("records"))


@pytest.mark.parametrize("name", ["mixed_trace", "budget_trace"])
def test_winning_post_never_waits_behind_queued_normal_synthesis(name, request):
    trace = request.getfixturevalue(name)
    q = _queue(trace)
    normal = q[q["rank"] == 2]
    wins = q[q["kind"] == "winning-post"]
    assert len(wins) == 4
    for _, w in wins.iterrows():
        # normal partitions queued before it arrived and admitted before it: none
        passed = normal[(normal["end"] > w["start"] + EPS) & (normal["end"] < w["end"] - EPS)]
        assert passed.empty, (w.to_dict(), passed.to_dict("records"))
    k = trace.summary()["kinds"]["winning-post"]
    assert k["proofs"] == 4 and k["deadline_s"] == 30.0 and k["deadline_misses"] == 0


def test_winning_post_waits_only_for_a_partition_boundary(mixed_trace):
    """All synthesis slots busy: it takes the next one that frees; nothing is interrupted."""
    q = _queue(mixed_trace)
    s = mixed_trace.spans
    synth = s[s["stage"] == "synth"]
    for _, w in q[q["kind"] == "winning-post"].iterrows():
        if w["end"] - w["start"] < EPS:
            continue
        # it was admitted the moment a synthesis ended (a slot freed)
        assert (synth["end"] - w["end"]).abs().min() < 1e-6
        # every synthesis running at its arrival ran to its end
        running = synth[(synth["start"] < w["start"]) & (synth["end"] > w["start"])]
        assert not running.empty


@pytest.mark.parametrize("name", ["mixed_trace", "budget_trace"])
def test_no_gpu_kernel_is_preempted(name, request):
    """Per GPU, each partition's CUDA region (h2d .. tail_msm) is whole and never interleaved."""
    trace = request.getfixturevalue(name)
    s = trace.spans
    gpu = s[s["stage"].isin(["h2d", "ntt_h", "batch_add", "tail_msm"])]
    regions = []
    for (proof, part), g in gpu.groupby(["proof", "partition"]):
        g = g.sort_values("start")
        assert list(g["stage"]) == ["h2d", "ntt_h", "batch_add", "tail_msm"]
        assert g["lane"].nunique() == 1 and g["gpu"].nunique() == 1
        regions.append((int(g["gpu"].iloc[0]), g["start"].min(), g["end"].max()))
    regions.sort()
    for (g0, a0, b0), (g1, a1, b1) in zip(regions, regions[1:]):
        if g0 == g1:
            assert a1 >= b0 - 1e-9, "two partitions in one GPU's CUDA region at once"


# -- residency -------------------------------------------------------------------------

def _budget_series(trace):
    return trace.counter("budget_used_gib")["value"]


@pytest.mark.parametrize("name", ["mixed_trace", "budget_trace"])
def test_residency_never_exceeds_the_budget(name, request):
    trace = request.getfixturevalue(name)
    total = PipelineConfig.from_dict(trace.meta["config"]).effective_budget_gib(5.0)
    assert trace.meta["workload"]["kinds"]
    assert _budget_series(trace).max() <= total + 1e-6
    res = trace.counter("srs_resident_gib")["value"]
    assert res.max() <= total + 1e-6
    assert trace.counter("rss_gib")["value"].max() <= trace.meta["config"]["memory_gib"]


def _swap_run(budget_gib: float, idle_s: float = 5.0):
    # PoRep (69.7 GiB resident) and WindowPoSt (83 GiB) together need 152.7 GiB
    wl = {"stream": [{"kind": "porep-c2", "arrival": "closed", "count": 1, "in_flight": 1},
                     {"kind": "window-post", "arrival": "periodic", "period_s": 400.0,
                      "offset_s": 150.0, "count": 1}]}
    # RAM beyond the budget: the model's unbudgeted buffers (scratch, buckets) need it
    return simulate({"proofs": 1, "concurrency": 1, "admission": "budget",
                     "budget_gib": budget_gib, "memory_gib": budget_gib + 80.0,
                     "eviction_min_idle_s": idle_s}, workload=wl)


def test_an_srs_swap_appears_exactly_when_the_budget_forces_one():
    # room for both and ten partitions (14 GiB each): nothing is ever evicted
    roomy = _swap_run(300.0)
    assert not roomy.failed
    w = roomy.meta["workload"]
    assert w["evictions"] == []
    assert [x["kind"] for x in w["srs_loads"]] == []   # both resident from the start
    # room for both but only six partitions: the seventh evicts idle WindowPoSt
    crowded = _swap_run(240.0).meta["workload"]
    assert [e["kind"] for e in crowded["evictions"]][:1] == ["window-post"]
    assert crowded["evictions"][0]["idle_s"] >= 5.0 - 1e-9
    assert [x["kind"] for x in crowded["srs_loads"]] == ["window-post"]   # reloaded at 150 s
    tight = _swap_run(120.0)
    assert not tight.failed, tight.meta.get("failure")
    w = tight.meta["workload"]
    # WindowPoSt did not fit beside PoRep: it loads on demand, PoRep is evicted for it
    assert [e["kind"] for e in w["evictions"]] == ["porep-c2"]
    assert [x["kind"] for x in w["srs_loads"]] == ["window-post"]
    ev = w["evictions"][0]
    load = w["srs_loads"][0]
    assert ev["idle_s"] >= 5.0 - 1e-9
    assert load["start"] == pytest.approx(ev["t"])
    # nothing of PoRep was running when it was evicted
    s = tight.spans
    kinds = _kinds(tight)
    porep = s[s["proof"].map(kinds) == "porep-c2"]
    assert not ((porep["start"] < ev["t"] - EPS) & (porep["end"] > ev["t"] + EPS)).any()
    # a cold load: 57 GiB at the cold rate + 26 GiB of PCE
    assert load["seconds"] == pytest.approx(57.0 / (44.0 / 60.0) + 26.0 / (26.0 / 5.0))
    k = tight.summary()["kinds"]["window-post"]
    assert k["srs_loads"] == 1 and k["srs_load_s"] == pytest.approx(load["seconds"], abs=1e-3)


def test_eviction_waits_for_the_idle_time():
    quick = _swap_run(120.0, idle_s=5.0)
    slow = _swap_run(120.0, idle_s=300.0)
    e_quick = quick.meta["workload"]["evictions"][0]
    e_slow = slow.meta["workload"]["evictions"][0]
    assert e_slow["idle_s"] >= 300.0 - 1e-9
    assert e_slow["t"] > e_quick["t"]
    lat = [t.summary()["kinds"]["window-post"]["latency_s_p50"] for t in (quick, slow)]
    assert lat[1] > lat[0]


def test_a_kind_that_can_never_fit_fails_before_the_run():
    wl = {"stream": [{"kind": "window-post", "arrival": "periodic", "period_s": 10.0,
                      "count": 1}]}
    t = simulate({"proofs": 1, "concurrency": 1, "memory_gib": 80.0}, workload=wl)
    assert t.failed and t.meta["failure"]["reason"] in ("deadlock", "oom")
    assert "window-post" in t.meta["failure"]["message"]
    assert t.spans.empty


# -- batching ----------------------------------------------------------------------------

def _batch_run(size: int, count: int, wait_ms: int = 60000):
    wl = {"stream": [{"kind": "porep-c2", "arrival": "periodic", "period_s": 5.0,
                      "count": count}]}
    return simulate({"proofs": 2, "concurrency": 1, "max_batch_size": size,
                     "max_batch_wait_ms": wait_ms}, workload=wl)


def test_batching_groups_same_kind_proofs_before_dispatch():
    alone = _queue(_batch_run(1, 2))
    first = alone[alone["proof"] == 0]["end"].min()
    assert first == pytest.approx(0.0)
    batched = _queue(_batch_run(2, 2))
    # the first proof waits for the second (arrives at t=5), then both go
    assert batched[batched["proof"] == 0]["end"].min() == pytest.approx(5.0)
    timed_out = _queue(_batch_run(2, 1, wait_ms=8000))
    assert timed_out["end"].min() == pytest.approx(8.0)


def test_sort_by_type_takes_the_kind_last_served_first():
    wl = {"stream": [{"kind": "porep-c2", "arrival": "periodic", "period_s": 1.0, "count": 2},
                     {"kind": "snap-deals", "arrival": "periodic", "period_s": 1.0,
                      "offset_s": 0.5, "count": 2}]}
    cfg = {"proofs": 2, "concurrency": 1, "partition_workers": 4, "memory_gib": 754.0}

    def order(sort):
        q = _queue(simulate({**cfg, "sort_by_type": sort}, workload=wl))
        return q.sort_values(["end", "proof", "partition"])["kind"].tolist()

    grouped, fifo = order(True), order(False)
    # sorted: all of PoRep's 20 partitions go before SnapDeals' first
    assert grouped[:20] == ["porep-c2"] * 20
    # FIFO: the SnapDeals proof that arrived at 0.5 s goes before PoRep's second proof
    assert fifo[:20] != ["porep-c2"] * 20


# -- reproducibility and the summary -------------------------------------------------------

def test_same_seed_same_trace():
    wl = {"duration_s": 400.0,
          "stream": [{"kind": "porep-c2", "arrival": "poisson", "rate_per_hour": 40.0},
                     {"kind": "winning-post", "arrival": "poisson", "rate_per_hour": 30.0}]}
    a = simulate({"seed": 3}, workload=wl)
    b = simulate({"seed": 3}, workload=wl)
    c = simulate({"seed": 4}, workload=wl)
    assert a.spans.equals(b.spans) and a.counters.equals(b.counters)
    assert a.meta["proofs"] == b.meta["proofs"]
    assert [r["submitted"] for r in a.meta["proofs"]] != [r["submitted"] for r in c.meta["proofs"]]


def test_summary_kinds_counts_deadline_misses_and_latency(mixed_trace):
    s = mixed_trace.summary()
    kinds = s["kinds"]
    assert set(kinds) == {"porep-c2", "winning-post", "window-post"}
    rows = mixed_trace.meta["proofs"]
    for kind, k in kinds.items():
        mine = [r for r in rows if r["kind"] == kind]
        lat = sorted(r["completed"] - r["submitted"] for r in mine)
        assert k["proofs"] == len(mine)
        assert k["latency_s_max"] == pytest.approx(lat[-1], abs=1e-4)
        assert k["latency_s_p50"] <= k["latency_s_p95"] <= k["latency_s_p99"] <= k["latency_s_max"]
        if k["deadline_s"] is not None:
            assert k["deadline_misses"] == sum(1 for x in lat if x > k["deadline_s"])
    assert kinds["window-post"]["deadline_s"] == 1800.0
    assert kinds["porep-c2"]["deadline_misses"] is None


def test_a_short_deadline_is_counted_as_missed():
    wl = {"stream": [{"kind": "porep-c2", "arrival": "periodic", "period_s": 10.0, "count": 2,
                      "deadline_s": 1.0}]}
    k = simulate({"proofs": 2, "concurrency": 1}, workload=wl).summary()["kinds"]["porep-c2"]
    assert k["deadline_s"] == 1.0 and k["deadline_misses"] == 2


def test_replay_stream(tmp_path):
    csv = tmp_path / "arrivals.csv"
    csv.write_text("time_s,kind\n0,porep-c2\n30,winning-post\n31.5,winning-post\n")
    (tmp_path / "w.toml").write_text('[[stream]]\narrival = "replay"\npath = "arrivals.csv"\n')
    wl = Workload.load(tmp_path / "w.toml")
    assert wl.kinds() == ("porep-c2", "winning-post")
    t = simulate({"proofs": 1, "concurrency": 1}, workload=wl)
    got = [(r["kind"], r["submitted"]) for r in t.meta["proofs"]]
    assert got == [("porep-c2", 0.0), ("winning-post", 30.0), ("winning-post", 31.5)]


# -- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("doc, key", [
    ({}, "workload.stream"),
    ({"stream": [{"kind": "porep"}]}, "stream[0].kind"),
    ({"stream": [{"arrival": "bursty"}]}, "stream[0].arrival"),
    ({"stream": [{"kind": "window-post", "arrival": "periodic"}]}, "stream[0].period_s"),
    ({"stream": [{"arrival": "poisson", "rate_per_hour": 0}]}, "stream[0].rate_per_hour"),
    ({"stream": [{"arrival": "poisson", "rate_per_hour": 3}]}, "stream[0].count"),
    ({"stream": [{"arrival": "closed", "period_s": 3}]}, "stream[0].period_s"),
    ({"stream": [{"arrival": "closed", "in_flight": 0}]}, "stream[0].in_flight"),
    ({"stream": [{"colour": "red"}]}, "stream[0].colour"),
    ({"stream": [{}], "duration": 5}, "workload.duration"),
    ({"stream": [{}], "duration_s": -1}, "workload.duration_s"),
    ({"stream": [{"arrival": "replay", "path": "missing.csv"}]}, "stream[0].path"),
    ({"stream": [{}], "max_pending": -1}, "workload.max_pending"),
    ({"stream": [{}], "max_pending": 2.5}, "workload.max_pending"),
    ({"stream": [{}], "max_pending": True}, "workload.max_pending"),
    ({"stream": [{}], "max_pending": "10"}, "workload.max_pending"),
    ({"stream": [{}], "prove_timeout_s": 0}, "workload.prove_timeout_s"),
    ({"stream": [{}], "time_sensitive_slots": 1}, "workload.time_sensitive_slots"),
    ({"stream": [{"arrival": "closed", "per_arrival": 2}]}, "stream[0].per_arrival"),
    ({"stream": [{"kind": "window-post", "arrival": "periodic", "period_s": 5.0,
                  "per_arrival": 0}]}, "stream[0].per_arrival"),
    ({"stream": [{}], "max_pending": 2, "time_sensitive_slots": 2},
     "workload.time_sensitive_slots"),
    ({"stream": [{}], "max_pending": 2, "time_sensitive_slots": -1},
     "workload.time_sensitive_slots"),
    ({"stream": [{}], "prove_timeout_s": "30m"}, "workload.prove_timeout_s"),
    ({"stream": [{}], "prove_timeout_s": float("inf")}, "workload.prove_timeout_s"),
])
def test_bad_workloads_name_the_key(doc, key):
    with pytest.raises(ConfigError) as err:
        Workload.from_dict(doc)
    assert err.value.key == key


def test_replay_csv_errors_name_the_line(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("time_s,kind\n0,porep-c2\nsoon,porep-c2\n")
    with pytest.raises(ConfigError, match=r"a.csv:3: time_s must be a number"):
        Workload.from_dict({"stream": [{"arrival": "replay", "path": str(p)}]})
    p.write_text("0,wpost\n")
    with pytest.raises(ConfigError, match=r"kind must be one of"):
        Workload.from_dict({"stream": [{"arrival": "replay", "path": str(p)}]})


def test_monolithic_lock_is_refused_for_a_mixed_workload():
    with pytest.raises(ConfigError, match="lock"):
        simulate({"lock": "monolithic"}, workload=_mixed())


def test_workload_file_round_trips(tmp_path):
    wl = Workload.from_dict(_mixed(duration_s=900.0))
    assert Workload.from_dict(wl.to_dict()) == wl
    assert not math.isnan(wl.duration_s)
    limited = Workload.from_dict(_mixed(max_pending=4))
    assert limited.max_pending == 4 and Workload.from_dict(limited.to_dict()) == limited


# -- the client's in-flight limit (Curio's [Cuzk] MaxPending) ----------------------------

def _at_daemon_at_most(rows) -> int:
    """The most proofs submitted to the daemon and not yet completed at any moment."""
    events = []
    for r in rows:
        events += [(r["submitted"], 1), (r["completed"], -1)]
    n = most = 0
    for _t, d in sorted(events, key=lambda e: (e[0], e[1])):   # completions first at a tie
        n += d
        most = max(most, n)
    return most


def test_the_client_limit_caps_the_proofs_at_the_daemon():
    free = simulate(CFG, workload=_mixed())
    capped = simulate(CFG, workload=_mixed(max_pending=2))
    assert _at_daemon_at_most(free.meta["proofs"]) > 2
    assert _at_daemon_at_most(capped.meta["proofs"]) == 2
    rows = capped.meta["proofs"]
    assert all(r["status"] == "ok" for r in rows)
    assert all(r["submitted"] >= r["arrived"] - EPS for r in rows)
    assert any(r["submitted"] > r["arrived"] + 1.0 for r in rows)
    # the daemon's queue starts when the proof reaches it, not when it arrived
    q = _queue(capped).groupby("proof")["start"].min()
    assert all(q[r["proof"]] == pytest.approx(r["submitted"]) for r in rows)


def test_a_freed_slot_goes_to_the_time_sensitive_proof_first():
    """One slot, held by a PoRep: a PoRep arriving at 1 s and a WinningPoSt at 2 s both
    wait; the WinningPoSt gets the slot first, as Curio's waterfall runs its
    time-sensitive task types first."""
    wl = {"max_pending": 1,
          "stream": [{"kind": "porep-c2", "arrival": "periodic", "period_s": 1.0, "count": 2},
                     {"kind": "winning-post", "arrival": "periodic", "period_s": 9.0,
                      "offset_s": 2.0, "count": 1}]}
    rows = simulate({"proofs": 2, "concurrency": 2}, workload=wl).meta["proofs"]
    first, second = (r for r in rows if r["kind"] == "porep-c2")
    win = next(r for r in rows if r["kind"] == "winning-post")
    assert (first["arrived"], second["arrived"], win["arrived"]) == (0.0, 1.0, 2.0)
    assert win["submitted"] == pytest.approx(first["completed"])
    assert second["submitted"] == pytest.approx(win["completed"])


def test_latency_runs_from_arrival_and_the_wait_is_reported():
    t = simulate(CFG, workload=_mixed(max_pending=2))
    kinds = t.summary()["kinds"]
    for kind, k in kinds.items():
        mine = [r for r in t.meta["proofs"] if r["kind"] == kind]
        lat = sorted(r["completed"] - r["arrived"] for r in mine)
        waits = [r["submitted"] - r["arrived"] for r in mine]
        assert k["latency_s_max"] == pytest.approx(lat[-1], abs=1e-4)
        assert k["client_wait_s_max"] == pytest.approx(max(waits), abs=1e-4)
        assert k["client_wait_s_mean"] == pytest.approx(sum(waits) / len(waits), abs=1e-4)
    assert max(k["client_wait_s_max"] for k in kinds.values()) > 1.0
    waiting = t.counter("client_waiting")
    assert waiting["value"].min() == 0 and waiting["value"].max() >= 1
    # without a limit the summary has no wait to report
    assert "client_wait_s_max" not in simulate(CFG, workload=_mixed()).summary()["kinds"]["porep-c2"]


def test_proofs_longer_at_the_daemon_than_curio_waits_are_counted():
    """Curio's ProveTimeout runs from the daemon's receipt: the wait for a slot before it
    does not count, the time at the daemon does."""
    t = simulate(CFG, workload=_mixed(max_pending=2))
    rows = t.meta["proofs"]
    at_daemon = {r["proof"]: r["completed"] - r["submitted"] for r in rows}
    limit = sorted(at_daemon.values())[len(rows) // 2]
    timed = simulate(CFG, workload=_mixed(max_pending=2, prove_timeout_s=limit))
    assert timed.spans.equals(t.spans)          # counted, not acted on
    kinds = timed.summary()["kinds"]
    for kind, k in kinds.items():
        want = sum(1 for r in rows if r["kind"] == kind and at_daemon[r["proof"]] > limit)
        assert k["prove_timeouts"] == want
    assert sum(k["prove_timeouts"] for k in kinds.values()) == sum(
        1 for v in at_daemon.values() if v > limit) > 0
    assert "prove_timeouts" not in t.summary()["kinds"]["porep-c2"]


def test_kept_slots_leave_room_for_the_time_sensitive_proofs():
    """Two slots, one kept for WindowPoSt/WinningPoSt: PoRep never has more than one proof
    at the daemon, and a WinningPoSt arriving while it does goes straight in."""
    wl = {"max_pending": 2, "time_sensitive_slots": 1,
          "stream": [{"kind": "porep-c2", "arrival": "closed", "count": 3, "in_flight": 3},
                     {"kind": "winning-post", "arrival": "periodic", "period_s": 9.0,
                      "offset_s": 5.0, "count": 1}]}
    t = simulate({"proofs": 3, "concurrency": 3}, workload=wl)
    rows = t.meta["proofs"]
    porep = [r for r in rows if r["kind"] == "porep-c2"]
    assert _at_daemon_at_most(porep) == 1 and _at_daemon_at_most(rows) == 2
    for r in rows:
        if r["kind"] == "winning-post":
            assert r["submitted"] == pytest.approx(r["arrived"])
    # without the kept slot the second PoRep proof takes it and the WinningPoSt waits
    plain = simulate({"proofs": 3, "concurrency": 3},
                     workload={**wl, "time_sensitive_slots": 0}).meta["proofs"]
    assert any(r["submitted"] > r["arrived"] + 1.0 for r in plain if r["kind"] == "winning-post")


def test_a_deadline_s_partitions_arrive_together():
    wl = Workload.from_dict({"stream": [
        {"kind": "window-post", "arrival": "periodic", "period_s": 50.0, "count": 2,
         "per_arrival": 3},
        {"kind": "winning-post", "arrival": "poisson", "rate_per_hour": 60.0, "count": 2,
         "per_arrival": 2}]})
    assert Workload.from_dict(wl.to_dict()) == wl
    t = simulate({"proofs": 1, "concurrency": 1}, workload=wl)
    arrived = sorted((r["kind"], r["arrived"]) for r in t.meta["proofs"])
    wpost = [a for k, a in arrived if k == "window-post"]
    win = [a for k, a in arrived if k == "winning-post"]
    assert wpost == [0.0] * 3 + [50.0] * 3
    assert len(win) == 4 and win[0] == win[1] < win[2] == win[3]
    assert all(r["status"] == "ok" for r in t.meta["proofs"])


def test_max_pending_zero_is_no_limit_as_in_curio():
    a = simulate(CFG, workload=_mixed())
    b = simulate(CFG, workload=_mixed(max_pending=0))
    assert a.spans.equals(b.spans)
    assert [r["submitted"] for r in a.meta["proofs"]] == [r["submitted"] for r in b.meta["proofs"]]


def test_partitions_per_proof_come_from_the_stream_the_config_or_the_kind():
    wl = {"stream": [{"kind": "porep-c2", "arrival": "closed", "count": 1, "in_flight": 1},
                     {"kind": "window-post", "arrival": "periodic", "period_s": 5.0,
                      "count": 1, "partitions": 3},
                     {"kind": "snap-deals", "arrival": "periodic", "period_s": 5.0,
                      "count": 1}]}
    t = simulate({"proofs": 1, "concurrency": 1, "partitions": 4}, workload=wl)
    q = _queue(t)
    assert q.groupby("kind").size().to_dict() == {"porep-c2": 4, "window-post": 3,
                                                  "snap-deals": 16}


def test_a_more_urgent_arrival_flushes_the_batch():
    wl = {"stream": [{"kind": "porep-c2", "arrival": "periodic", "period_s": 100.0,
                      "count": 1},
                     {"kind": "winning-post", "arrival": "periodic", "period_s": 100.0,
                      "offset_s": 3.0, "count": 1}]}
    q = _queue(simulate({"proofs": 1, "concurrency": 1, "max_batch_size": 4,
                         "max_batch_wait_ms": 60000}, workload=wl))
    porep = q[q["kind"] == "porep-c2"]
    # dispatched when the WinningPoSt arrived at 3 s, not after the 60 s wait
    assert porep["end"].min() == pytest.approx(3.0, abs=1e-6)


def test_a_run_that_fails_reports_no_throughput_per_kind():
    """A mixed run stopped by the host's memory has no per-kind rate, as it has no s/proof."""
    cfg = PipelineConfig(memory_gib=128.0, admission="budget", partition_workers=18,
                         concurrency=15, eviction_min_idle_s=30.0)
    s = simulate(cfg, "porep-32g", workload="curio-node-2h").summary()
    assert s["run_failed"] and s["failure_reason"] == "oom"
    assert s["seconds_per_proof"] is None
    assert all(k["throughput_per_hour"] is None for k in s["kinds"].values())
    assert s["kinds"]["porep-c2"]["not_completed"] > 0
