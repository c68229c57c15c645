"""Host memory: the reclaim pressure is the RSS ramp gated by the recent net RSS rise."""

import pytest
import simpy

from cuzklab.sim.memory import HostMemory


def _mem(env, **kw):
    args = dict(ram_gib=100.0, base_gib=70.0, pressure_start=0.6, window_s=60.0, growth_gib=20.0,
                on_change=lambda m: None, on_oom=lambda msg: None)
    args.update(kw)
    return HostMemory(env, **args)


def _at(env, t):
    env.run(until=t)


def test_a_steady_pipeline_near_its_limit_feels_no_pressure():
    env = simpy.Environment()
    m = _mem(env)
    _at(env, 100)
    for k in range(20):  # allocations matched by frees: reuse of the free list
        m.alloc(10.0)
        _at(env, 101 + 2 * k)
        m.free(10.0)
    assert m.ramp() == pytest.approx((70 / 100 - 0.6) / 0.4)
    assert m.growth() <= 10.0 + 1e-9
    _at(env, 200)
    m.alloc(0.5)
    assert m.growth() == pytest.approx(0.5)
    assert m.pressure() == pytest.approx(m.ramp() * 0.5 / 20.0)


def test_a_net_rise_takes_the_full_ramp_and_the_window_forgets_it():
    env = simpy.Environment()
    m = _mem(env)
    for k in range(4):
        _at(env, 10 * (k + 1))
        m.alloc(6.0)          # +24 GiB within 40 s: more than growth_gib
    assert m.rss == pytest.approx(94.0)
    assert m.pressure() == pytest.approx(m.ramp()) == pytest.approx((0.94 - 0.6) / 0.4)
    _at(env, 200)              # flat for longer than the window
    m.alloc(1e-6)
    assert m.pressure() == pytest.approx(0.0, abs=1e-6)


def test_without_a_window_the_pressure_is_the_ramp():
    env = simpy.Environment()
    m = _mem(env, window_s=0.0)
    m.alloc(20.0)
    assert m.pressure() == m.ramp() == pytest.approx((0.9 - 0.6) / 0.4)
