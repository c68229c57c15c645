"""Small tunes shared by the tuner's tests: one lock strategy, few proofs, one seed."""

import pytest

from cuzklab.tune import tune_series

# Cheap settings: the search and its checks are the same, over a smaller space.
QUICK = dict(locks=("split_async",), proofs=4, seeds=1, finalists=1, refine_rounds=1,
             executor="inline", progress=False)
# The same settings for ``cuzklab tune`` (one job runs the simulations in the process).
QUICK_ARGV = ["--locks", "split_async", "--proofs", "4", "--seeds", "1", "--finalists", "1",
              "--refine-rounds", "1", "--jobs", "1", "--quiet"]
# At 240 GiB the search finds pw=7 with a 224 GiB budget; at 256 GiB, searched alone, it
# settles on a slower point (56.3 against 55.4 s/proof by the mean) that this start fixes.
MEMORIES = (144, 240, 256)


@pytest.fixture(scope="session")
def quick_tunes():
    """Return {memory_gib: TuneResult} for 144, 240 and 256 GiB nodes with one GPU.

    Tuned as the README table is (:func:`cuzklab.tune.tune_series`): each node's
    search starts from the answer for the node below it.
    """
    return dict(zip(MEMORIES, tune_series(MEMORIES, 1, **QUICK)))
