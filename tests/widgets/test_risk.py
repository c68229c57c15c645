"""The OOM risk's background seeds: one worker process, calls in order, the left ones cancelled."""

import math
import operator
import time

import pytest

from cuzklab.widgets.risk import SeedRuns, Worker, risk_text


def test_the_worker_runs_calls_in_order_and_reports_their_errors():
    w = Worker()
    calls = [w.submit(operator.add, 1, 2), w.submit(math.sqrt, -1.0), w.submit(operator.mul, 3, 4)]
    assert calls[0].result(120) == 3
    with pytest.raises(RuntimeError, match="ValueError: math domain error"):
        calls[1].result(120)
    assert calls[2].result(120) == 12          # an error does not stop the worker
    slow, waiting = w.submit(time.sleep, 0.5), w.submit(operator.add, 1, 1)
    assert waiting.cancel() and slow.result(120) is None


def test_seeds_of_a_configuration_left_are_cancelled_before_they_start():
    runs, done = SeedRuns(), []
    job = lambda seed: (time.sleep, (0.3,))     # noqa: E731 - each "seed" takes 0.3 s
    assert runs.start("a", job, [1, 2, 3, 4], on_done=lambda: done.append(1)) == 4
    time.sleep(0.1)
    assert runs.start("b", job, [1]) == 1
    runs.wait("b", timeout=120)
    assert "a" not in runs._pending and len(runs.known("a")) <= 2   # at most the one running
    assert runs.known("b") == {1: False}
    assert runs.start("b", job, [1]) == 0                            # known: not run again


def test_the_risk_in_words():
    assert risk_text(0, 3, {0: True, 1: False, 2: False}) == \
        "OOM risk 33%: 1 of 3 seeds (seeds 0-2) ran out of host memory"
    assert risk_text(5, 1, {5: False}) == "OOM risk 0%: 0 of 1 seed (seed 5) ran out of host memory"
    assert risk_text(0, 4, {0: True, 1: True}).startswith(
        "OOM risk over 4 seeds (seeds 0-3): 2 of the 2 run so far ran out of host memory; "
        "2 more run in the background")
