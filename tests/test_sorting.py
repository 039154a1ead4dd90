"""``core.sorting.sort_order``: one int64 sort by value in place of an argsort (issue 25).

Oracle: a stable ``np.argsort``. On float64 / float32 / int64 / uint64 scores with exact ties,
-0.0 and 0.0, +-inf, values that share their high bits and huge integers, the order sorts the
scores, ``new`` marks exactly the changes of value, and rows of one value are a permutation of
the stable order's rows; NaN falls back (None).
"""

from __future__ import annotations

import numpy as np
import pytest

from pandas_rankeval.core.sorting import sort_order


def _cases():
    rng = np.random.default_rng(12)
    n = 5_000
    yield np.round(rng.random(n), 3)  # masses of ties
    yield rng.random(n)  # continuous
    yield np.concatenate([[-0.0, 0.0, np.inf, -np.inf], rng.normal(size=n)])
    yield 1.0 + rng.integers(0, 50, n) * np.finfo(float).eps  # share every high bit
    yield rng.random(n).astype(np.float32)
    yield rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    yield (2**63 + rng.integers(0, 9, n, dtype=np.uint64)).astype(np.uint64)
    yield rng.integers(0, 3, n, dtype=np.int64)
    yield np.zeros(0)
    yield np.array([7.0])


@pytest.mark.parametrize("i", range(10))
def test_sort_order_equals_a_stable_argsort(i):
    score = list(_cases())[i]
    got = sort_order(score)
    if got is None:  # a kind it does not handle: the caller argsorts (allowed, never wrong)
        return
    order, new, buffer = got
    ref = np.argsort(score, kind="stable")
    assert order.dtype == np.int64 and buffer.shape[0] >= score.shape[0] - 0
    s = score[order]
    np.testing.assert_array_equal(s, score[ref])  # the same sorted values
    assert (new == (s[1:] != s[:-1])).all()
    # within each value, the same rows as the stable order
    starts = np.r_[0, np.flatnonzero(new) + 1]
    for a, b in zip(starts, np.r_[starts[1:], s.shape[0]]):
        assert set(order[a:b].tolist()) == set(ref[a:b].tolist())


def test_nan_falls_back_to_argsort():
    assert sort_order(np.array([0.5, np.nan, 0.1])) is None
