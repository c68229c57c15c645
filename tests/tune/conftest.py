"""Small tunes shared by the tuner's tests: one lock strategy, few proofs, one seed."""

import pytest

from cuzklab.tune import tune

# Cheap settings: the search and its checks are the same, over a smaller space.
QUICK = dict(locks=("split_async",), proofs=5, seeds=1, finalists=1, refine_rounds=1,
             executor="inline", progress=False)


@pytest.fixture(scope="session")
def quick_tunes():
    """Return {memory_gib: TuneResult} for 144, 192 and 256 GiB nodes with one GPU."""
    return {m: tune(m, 1, **QUICK) for m in (144, 192, 256)}
