"""Pippenger's bucket method, vectorized over points and buckets (the CPU path).

The algorithm is written once against a small batched-group interface
(:class:`GroupOps`), so it runs on XYZZ point arrays (``cuzklab.curve``) and,
in the tests, on the additive group of integers mod r, where every step can be
checked by hand. Steps, for signed digits ``d[w, i]`` of window size c:

1. *sort*: every non-zero digit becomes an entry (bucket key = w * 2^(c-1) +
   |d| - 1, point index, sign); entries are sorted by key (counting sort in
   NumPy, ``argsort``), so each bucket is a contiguous run;
2. *accumulate*: runs are summed by pairwise rounds (entry 2k of a run absorbs
   entry 2k+1), one batched addition per round, ceil(log2(longest run)) rounds;
3. *reduce*: the window sum sum_b b * B_b is computed bit by bit: T_j = the sum
   of the buckets whose index b has bit j set (again a segmented pairwise sum,
   all windows and bits at once), then W = sum_j 2^j T_j by doublings;
4. the caller combines the windows, W = sum_w 2^(c w) W_w, by doublings.

There are no data-dependent Python loops over points or buckets: every step is
a handful of batched operations, whatever n is.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class GroupOps(Protocol):
    """Batched operations of an additive group, as the CPU Pippenger needs them."""

    def identity(self, n: int): ...           # n copies of the neutral element
    def take(self, batch, idx): ...           # batch[idx] (idx a NumPy int array)
    def where(self, mask, a, b): ...          # elementwise mask ? a : b
    def negate_where(self, batch, mask): ...  # elementwise mask ? -x : x
    def add(self, a, b): ...                  # elementwise a + b (all cases)
    def double(self, a): ...                  # elementwise 2a
    def length(self, batch) -> int: ...


def segmented_sum(ops: GroupOps, keys: np.ndarray, vals):
    """Return (unique_keys, sums): the sum of ``vals`` over each run of equal sorted ``keys``."""
    keys = np.asarray(keys, dtype=np.int64)
    m = keys.shape[0]
    while m > 1:
        same_next = keys[:-1] == keys[1:]
        if not same_next.any():
            break
        idx = np.arange(m)
        start = np.concatenate([[True], ~same_next])
        rank = idx - np.maximum.accumulate(np.where(start, idx, 0))
        even = rank % 2 == 0
        left = np.flatnonzero(even[:-1] & same_next)
        summed = ops.add(ops.take(vals, left), ops.take(vals, left + 1))
        keep = np.flatnonzero(even)
        # for each kept entry: the index of its pair sum, if it absorbed a partner
        pos = np.searchsorted(left, keep)
        pos_c = np.minimum(pos, max(left.shape[0] - 1, 0))
        absorbed = (pos < left.shape[0]) & (left[pos_c] == keep)
        vals = ops.where(absorbed, ops.take(summed, pos_c), ops.take(vals, keep))
        keys = keys[keep]
        m = keys.shape[0]
    return keys, vals


def bucket_entries(digits: np.ndarray, c: int):
    """Return (keys, point_index, negative) of the non-zero digits, sorted by bucket key."""
    digits = np.asarray(digits)
    nb = 1 << (c - 1)
    w_idx, p_idx = np.nonzero(digits)
    d = digits[w_idx, p_idx].astype(np.int64)
    keys = w_idx.astype(np.int64) * nb + np.abs(d) - 1
    order = np.argsort(keys, kind="stable")
    return keys[order], p_idx[order], d[order] < 0


def window_sums(ops: GroupOps, bases, digits: np.ndarray, c: int):
    """Return the batch of window sums W_w = sum_i d[w, i] * bases[i], shape (windows,)."""
    digits = np.asarray(digits)
    nwin = digits.shape[0]
    nb = 1 << (c - 1)
    keys, pidx, neg = bucket_entries(digits, c)
    if keys.shape[0] == 0:
        return ops.identity(nwin)
    vals = ops.negate_where(ops.take(bases, pidx), neg)
    bkeys, bsums = segmented_sum(ops, keys, vals)          # one sum per non-empty bucket
    # reduce: bit j of the bucket weight b = (key mod nb) + 1, for j < c
    weight = bkeys % nb + 1
    window = bkeys // nb
    sel_bit, sel_entry = np.nonzero(((weight[None, :] >> np.arange(c)[:, None]) & 1) == 1)
    tkeys = sel_bit.astype(np.int64) * nwin + window[sel_entry]
    order = np.argsort(tkeys, kind="stable")
    tkeys, tvals = segmented_sum(ops, tkeys[order], ops.take(bsums, sel_entry[order]))
    # dense T[j, w] (identity where no bucket has bit j), then W = sum_j 2^j T_j
    dense = np.full(c * nwin, -1, dtype=np.int64)
    dense[tkeys] = np.arange(tkeys.shape[0])
    present = dense >= 0
    t_all = ops.where(present, ops.take(tvals, np.maximum(dense, 0)), ops.identity(c * nwin))
    acc = ops.take(t_all, np.arange((c - 1) * nwin, c * nwin))
    for j in range(c - 2, -1, -1):
        acc = ops.add(ops.double(acc), ops.take(t_all, np.arange(j * nwin, (j + 1) * nwin)))
    return acc


class IntModOps:
    """The additive group of integers mod ``m`` as NumPy object arrays (a test group)."""

    def __init__(self, m: int):
        self.m = m

    def identity(self, n):
        return np.zeros(n, dtype=object)

    def take(self, batch, idx):
        return batch[np.asarray(idx, dtype=np.int64)]

    def where(self, mask, a, b):
        return np.where(np.asarray(mask), a, b)

    def negate_where(self, batch, mask):
        return np.where(np.asarray(mask), (-batch) % self.m, batch)

    def add(self, a, b):
        return (a + b) % self.m

    def double(self, a):
        return (2 * a) % self.m

    def length(self, batch):
        return batch.shape[0]
