"""The search space: validity rules, the coarse grid, neighbours."""

import pytest

from cuzklab.errors import ConfigError
from cuzklab.model import Profile
from cuzklab.tune import Knobs, Node, Space


def space(memory=256.0, **kw):
    node = Node(memory, gpus=kw.pop("gpus", 1), cores=kw.pop("cores", None),
                vram_gib=kw.pop("vram_gib", None))
    return Space(node=node, profile=node.apply(Profile.load()), **kw)


def test_two_lock_needs_vram_for_each_worker():
    s = space()  # the default profile's 16 GiB card holds one worker's 12 GiB of buffers
    assert s.invalid_reason(Knobs("two_lock", gpu_workers_per_device=1)) is None
    assert "VRAM" in s.invalid_reason(Knobs("two_lock", gpu_workers_per_device=2))
    assert s.invalid_reason(Knobs("split_async", gpu_workers_per_device=2)) is None
    big = space(vram_gib=80)
    assert big.invalid_reason(Knobs("two_lock", gpu_workers_per_device=4)) is None
    assert all(k.gpu_workers_per_device * 12 <= 16 for k in s.coarse_grid() if k.lock == "two_lock")


def test_pool_must_fit_the_cores_and_budget_must_admit_a_partition():
    s = space(cores=24)
    assert "cores" in s.invalid_reason(Knobs(gpu_threads=32))
    assert s.invalid_reason(Knobs(gpu_threads=0)) is None          # 0 = all cores
    assert all(k.gpu_threads <= 24 for k in s.coarse_grid())
    tiny = space(memory=80.0)  # auto budget 75 GiB - 69.7 resident < one 14 GiB reservation
    assert "never fit" in tiny.invalid_reason(Knobs(admission="budget"))
    assert "multiple" in s.invalid_reason(Knobs("monolithic", partition_workers=15, concurrency=2))


def test_coarse_grid_grows_with_memory_and_stays_in_flight():
    small, large = space(160.0), space(768.0)
    assert max(k.partition_workers for k in small.coarse_grid()) \
        < max(k.partition_workers for k in large.coarse_grid())
    assert {k.lock for k in large.coarse_grid()} == {"monolithic", "wide_mutex", "interlock",
                                                     "two_lock", "split_async"}
    for k in large.coarse_grid():
        assert k.partition_workers <= k.concurrency * 10 and k.concurrency <= 20
    fixed = space(concurrency=3)
    assert {k.concurrency for k in fixed.coarse_grid()} == {3}


def test_neighbors_are_one_step_and_valid():
    s = space()
    k = Knobs(partition_workers=7, concurrency=2)
    ns = s.neighbors(k)
    assert Knobs(partition_workers=8, concurrency=2) in ns
    assert Knobs(partition_workers=7, gpu_workers_per_device=3, concurrency=2) in ns
    assert Knobs(partition_workers=7, gpu_threads=24, concurrency=2) in ns
    assert Knobs(partition_workers=7, admission="budget", concurrency=2) in ns
    assert all(s.invalid_reason(n) is None for n in ns) and k not in ns


@pytest.mark.parametrize("kw,key", [
    (dict(memory_gib=-1), "memory_gib"), (dict(memory_gib=100, margin_gib=100), "margin_gib"),
    (dict(memory_gib=100, gpus=0), "gpus"), (dict(memory_gib=100, cores=0), "cores"),
    (dict(memory_gib=float("nan")), "memory_gib")])
def test_bad_node_names_the_key(kw, key):
    with pytest.raises(ConfigError) as e:
        Node(**kw)
    assert e.value.key == key
