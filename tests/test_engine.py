"""Internal engine paths that the public tests reach only on very large inputs."""

from __future__ import annotations

import numpy as np
import pytest

from pandas_rankeval import _engine as E


@pytest.mark.parametrize("seed", range(5))
def test_refine_ties_packed_and_lexsort_paths_agree(seed):
    rng = np.random.default_rng(seed)
    n = 2_000
    score = np.round(rng.random(n), 1)
    order = np.argsort(score)
    s = score[order]
    new = s[1:] != s[:-1]
    # extra keys, given per position of ``order``
    small = [rng.integers(0, 5, n), rng.integers(0, 2, n)]
    packed_order, packed_new = E._refine_ties(order, new, small)
    # the same keys shifted up by 2**40 no longer fit in 63 bits: the lexsort fallback runs
    lex_order, lex_new = E._refine_ties(order, new, [small[0] + 2**40, small[1]])
    np.testing.assert_array_equal(packed_new, lex_new)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    seqs = []
    for o in (packed_order, lex_order):
        p = position[o]
        seq = np.c_[score[o], small[0][p], small[1][p]]
        as_tuples = [tuple(row) for row in seq]
        assert as_tuples == sorted(as_tuples)  # (score, key 1, key 2) ascending
        change = (np.diff(seq, axis=0) != 0).any(axis=1)
        np.testing.assert_array_equal(change, packed_new)
        seqs.append(seq)
    np.testing.assert_array_equal(seqs[0], seqs[1])


def test_score_rank_ranks_are_dense_and_best_first():
    score = np.array([0.2, 0.9, 0.2, 0.5])
    order, rank = E.score_rank(score)
    assert list(score[order]) == sorted(score)
    assert list(rank) == [2, 2, 1, 0]


def test_log_factorial_and_harmonic_match_exact_values():
    import math

    x = np.array([0, 1, 5, 255, 256, 1000, 10**6])
    np.testing.assert_allclose(E.log_factorial(x), [math.lgamma(v + 1) for v in x], rtol=1e-15)
    h = [sum(1.0 / i for i in range(1, v + 1)) for v in (0, 1, 10, 300, 5000)]
    np.testing.assert_allclose(E.harmonic(np.array([0, 1, 10, 300, 5000])), h, rtol=1e-14)
