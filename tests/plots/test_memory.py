"""Memory over time against the RAM line, with the OOM marked."""

import pytest

from cuzklab.plots import memory
from cuzklab.sim import simulate

from .synthetic import pipeline_trace


def _named(fig):
    return {t.name: t for t in fig.data}


def test_rss_step_line_and_ram_line():
    tr = pipeline_trace(proofs=2, partitions=2, memory_gib=512)
    fig = memory(tr)
    d = _named(fig)
    rss = tr.counter("rss_gib")
    assert list(d["RSS"].y) == list(rss["value"])
    assert d["RSS"].line.shape == "hv"
    assert list(d["RAM 512 GiB"].y) == [512, 512]
    assert "peak RSS" in fig.layout.title.text and "512 GiB RAM" in fig.layout.title.text
    assert fig.layout.yaxis.range[1] >= 512
    assert "(GiB)" in fig.layout.yaxis.title.text and "(s)" in fig.layout.xaxis.title.text
    assert not any(t.name == "OOM" and len(t.x) for t in fig.data)


def test_oom_is_marked_at_the_failure():
    tr = pipeline_trace(proofs=4, partitions=3, memory_gib=300, oom_at=100.0)
    fig = memory(tr)
    oom = _named(fig)["OOM"]
    assert list(oom.x) == [pytest.approx(tr.duration)]
    assert list(oom.y) == [300]
    assert oom.text == ("OOM",)


def test_failure_time_from_meta_and_other_failures():
    # two workers' two_lock buffers (2 x 12 GiB) do not fit the default node's 16 GiB of VRAM
    tr = simulate(proofs=2, concurrency=2, lock="two_lock", gpu_workers_per_device=2)
    assert tr.failed and tr.meta["failure"]["reason"] != "oom", tr.meta.get("failure")
    fig = memory(tr)
    marks = [t for t in fig.data if t.mode == "markers+text"]
    assert marks and marks[0].text == ("failed",)
    assert marks[0].x[0] == pytest.approx(float(tr.meta["failure"]["t"]))


def test_no_legend_entry_for_a_budget_that_is_not_in_use():
    # Under semaphore admission the simulator still records a budget counter sample.
    tr = simulate(proofs=2, concurrency=2, partitions=2)
    assert len(tr.counter("budget_used_gib"))
    fig = memory(tr)
    shown = [t.name for t in fig.data if t.showlegend is not False and len(t.x)]
    assert "budget in use" not in shown
    assert all(len(t.x) for t in fig.data if t.showlegend is not False), \
        "every legend entry draws something"
    with_budget = simulate(proofs=2, concurrency=2, partitions=2, admission="budget",
                           budget_gib=200.0)
    d = _named(memory(with_budget))
    assert d["budget in use"].showlegend and len(d["budget in use"].x)
    assert any(k.startswith("budget ") and k.endswith(" GiB") for k in d)
