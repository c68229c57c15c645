"""Per-launch kernel times of one MSM (``cuzklab.msm.bench.kernel_times``), on the host emulation.

On a CUDA device each launch is bracketed by CUDA events; under the
emulation by the host clock. Either way every launch of the MSM is listed
once, in order, with its thread count, the sums by kernel add up, and the
MSM is checked against the exact result.
"""

from __future__ import annotations

import pytest

from cuzklab.msm import bench as B

from .emu import CXX, Counting

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


@pytest.fixture(scope="module")
def runner():
    from .emu import msm_runner
    return msm_runner()


@pytest.mark.parametrize("group,log2,window,glv", [("g1", 5, 3, True), ("g1", 4, 4, False), ("g2", 3, 3, None)])
def test_every_launch_is_timed_once(runner, group, log2, window, glv):
    counting = Counting(runner)
    r = B.kernel_times(log2, group, window=window, glv=glv, runner=counting)
    assert r["checked"] and r["window"] == window and r["group"] == group
    assert r["n"] == 2 ** log2
    # the count runs over every point (twice as many after the GLV split)
    count = [x for x in r["launches"] if x["kernel"] == "msm_count"]
    assert count[0]["threads"] == r["n"] * (2 if r["glv"] else 1)
    # the timer saw the timed MSM's launches: half of what the counting runner saw (warm-up + timed)
    assert len(r["launches"]) * 2 == sum(counting.calls.values())
    names = [x["kernel"].split("<")[0] for x in r["launches"]]
    assert names.count("msm_count") == 1 and "msm_scatter" in names
    assert all(x["ms"] >= 0 and x["threads"] > 0 for x in r["launches"])
    # launches in order, one after another: each starts after the one before it ended
    ats = [x["at_ms"] for x in r["launches"]]
    assert ats[0] == 0 and ats == sorted(ats)
    assert all(b["at_ms"] >= a["at_ms"] + a["ms"] - 1e-9 for a, b in zip(r["launches"], r["launches"][1:]))
    assert r["span_ms"] >= r["total_ms"] - 1e-9
    by = r["by_kernel"]
    assert sum(v["launches"] for v in by.values()) == len(r["launches"])
    assert abs(sum(v["ms"] for v in by.values()) - r["total_ms"]) < 1e-9
    assert set(by) == set(names)


def test_the_timer_passes_everything_else_through(runner):
    timer = B.KernelTimer(runner)
    assert timer.xp is runner.xp
    assert timer.report() == {"launches": [], "by_kernel": {}, "total_ms": 0, "span_ms": 0.0}


def test_kernel_times_checks_its_arguments(runner):
    with pytest.raises(ValueError, match="group must be 'g1' or 'g2'"):
        B.kernel_times(4, "g3", runner=runner)
    with pytest.raises(ValueError, match="window must be in"):
        B.kernel_times(4, "g1", window=40, runner=runner)
    with pytest.raises(ValueError, match="log2_size"):
        B.kernel_times(40, "g1", runner=runner)
