"""Debouncing: a burst of triggers runs the callback once."""

import asyncio
import threading

import pytest

from cuzklab.widgets import Debouncer


def test_zero_wait_runs_synchronously():
    calls = []
    d = Debouncer(lambda: calls.append(1), 0)
    d()
    d()
    assert calls == [1, 1] and not d.pending


def test_burst_outside_a_loop_runs_once_on_a_timer_thread():
    done = threading.Event()
    calls = []

    def fn():
        calls.append(threading.current_thread().name)
        done.set()

    d = Debouncer(fn, 0.05)
    for _ in range(5):
        d()
    assert d.pending and calls == []
    assert done.wait(5)
    assert len(calls) == 1 and d.calls == 1


def test_burst_inside_an_event_loop_runs_once_on_the_loop():
    calls = []

    async def scenario():
        d = Debouncer(lambda: calls.append(threading.current_thread()), 0.02)
        for _ in range(4):
            d()
            await asyncio.sleep(0.001)
        assert calls == []
        await asyncio.sleep(0.2)
        return d

    d = asyncio.run(scenario())
    assert calls == [threading.main_thread()] and d.calls == 1


def test_flush_and_cancel():
    calls = []
    d = Debouncer(lambda: calls.append(1), 60)
    d()
    d.flush()
    assert calls == [1] and not d.pending
    d()
    d.cancel()
    d.flush()
    assert calls == [1]


def test_validation():
    with pytest.raises(ValueError, match="wait_s"):
        Debouncer(lambda: None, -1)
    with pytest.raises(TypeError, match="callable"):
        Debouncer("nope", 0)


def test_leading_edge_runs_the_first_trigger_at_once_and_coalesces_the_burst():
    calls = []
    d = Debouncer(lambda: calls.append(1), 30.0, leading=True)
    d()
    assert calls == [1] and not d.pending      # a single change: no waiting
    d()
    d()
    assert calls == [1] and d.pending          # the rest of the burst: one trailing call
    d.flush()
    assert calls == [1, 1]
    d.cancel()
