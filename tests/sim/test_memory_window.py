"""The net RSS rise over the window: the running minimum equals the minimum of the history."""

import random

import simpy

from cuzklab.sim.memory import HostMemory


def test_growth_is_rss_minus_the_least_rss_still_in_the_window():
    rng = random.Random(5)
    env = simpy.Environment()
    m = HostMemory(env, ram_gib=1e9, base_gib=50.0, pressure_start=0.6, window_s=30.0,
                   growth_gib=20.0, on_change=lambda _m: None, on_oom=lambda _msg: None)
    t = 0.0
    for _ in range(3000):
        dt = rng.choice((0.0, 0.5, 3.0, 17.0, 45.0))   # bursts at one instant, and gaps
        if dt:
            t += dt
            env.run(until=t)
        gib = rng.choice((1.0, 2.0, 2.0, 5.0, 12.5))
        m.alloc(gib) if rng.random() < 0.52 else m.free(gib)
        assert m.growth() == max(0.0, m.rss - min(r for _, r in m._history))
