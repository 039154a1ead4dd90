"""Internal engine paths that the public tests reach only on very large inputs."""

from __future__ import annotations

import numpy as np
import pytest

from pandas_rankeval.core.ranking import tie_blocks as E


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


@pytest.mark.parametrize("k", [3, None])
def test_ndcg_with_more_label_levels_than_fit_a_dense_count(k):
    """Thousands of distinct graded labels over many groups: the ideal ranking is sorted."""
    import pandas as pd
    from sklearn.metrics import ndcg_score

    import pandas_rankeval as pre

    rng = np.random.default_rng(0)
    n_groups, size = 600, 5
    df = pd.DataFrame(
        {
            "q": np.repeat(np.arange(n_groups), size),
            "rel": rng.random(n_groups * size) * 3,  # 3000 distinct levels: 600 x 3000 cells
            "s": rng.random(n_groups * size),
        }
    )
    got = float(pre.ndcg(df, group="q", label="rel", score="s", k=k, gain="linear"))
    want = np.mean(
        [ndcg_score([g["rel"].to_numpy()], [g["s"].to_numpy()], k=k) for _, g in df.groupby("q")]
    )
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("seed", range(4))
def test_global_auc_by_search_equals_the_sorted_count(ties, seed):
    rng = np.random.default_rng(seed)
    n = 3_000
    score = np.round(rng.random(n), 2)  # many ties
    rel = rng.random(n) < 0.3
    level = rel.view(np.uint8)
    order, rank = E.score_rank(score, ties=ties, level=level)
    want = E.global_auc(order, rank, rel)
    got = E.global_auc_by_search(score, rel, ties)
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_global_auc_by_segment_equals_one_segment_at_a_time(seed, weighted):
    """Every segment's global AUC from one sort (``global_auc_by``) equals :func:`global_auc` of
    that segment's rows alone, under ties, empty classes and segments of one row."""
    rng = np.random.default_rng(seed)
    n = 300
    score = np.round(rng.random(n), 1)  # ties everywhere
    rel = rng.random(n) < 0.3
    seg = rng.integers(0, 25, n)
    seg[:3] = 25  # one segment with no relevant row or a single row
    rel[:3] = False
    sw = rng.random(n) + 0.1 if weighted else None
    order = np.argsort(score, kind="stable")
    rank = np.unique(score[order], return_inverse=True)[1]
    u, wp, wn = E.global_auc_by(order, rank, rel, sw, seg, 26)
    for k in range(26):
        sel = seg[order] == k
        want = E.global_auc(order[sel], rank[sel], rel, sw)
        np.testing.assert_allclose([u[k], wp[k], wn[k]], want, rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("y", [
    np.array([0, 1, 1, 0, 3, 255], dtype=np.int64),  # from 0, below 256: one uint8 pass
    np.array([0, 1, 300, 2], dtype=np.int64),  # wider: int64 levels
    np.array([-2, 0, 5, 1], dtype=np.int64),  # negative lowest label
    np.array([0, 1, 2], dtype=np.uint16),
])
def test_label_levels_of_integer_labels_and_the_shared_relevant_mask(y):
    """Integer labels from 0 to 255 become their levels in one uint8 pass (the same levels as
    the label minus the lowest); the relevant mask is made once and shared read-only."""
    from pandas_rankeval.core.inputs.prepare import label_levels

    labels = label_levels(y, None, True)
    lo = int(y.min())
    assert np.array_equal(labels.level.astype(np.int64), y.astype(np.int64) - lo)
    assert labels.level.dtype == (np.uint8 if int(y.max()) - lo < 256 else np.int64)
    rel = labels.rel
    assert rel is labels.rel and not rel.flags.writeable
    assert np.array_equal(rel, y > 0)
