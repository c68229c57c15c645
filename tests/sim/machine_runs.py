"""Run a few jobs on a :class:`~cuzklab.sim.machine.Machine` and read when each ended."""

from __future__ import annotations

import simpy

from cuzklab.sim.machine import Machine


def run_jobs(specs: dict, pool_weight: float = 1.0) -> dict:
    """Run ``{name: (start, kind, work, kwargs)}`` jobs on a 16-core machine (a pool and
    synthesis threads of 16 each); return each one's (start, end)."""
    env = simpy.Environment()
    m = Machine(env, cores=16, ddr_gbps=100.0, synthesis_threads=16, pool_threads=16,
                age_priority=1.0, pool_weight=pool_weight)
    out = {}

    def one(name, at, kind, work, kw):
        yield env.timeout(at)
        start, end, _ = yield m.run(kind, work, **kw)
        out[name] = (start, end)

    for name, (at, kind, work, kw) in specs.items():
        env.process(one(name, at, kind, work, kw))
    env.run()
    return out
