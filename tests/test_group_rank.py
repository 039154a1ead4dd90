"""One sort by (group, score) gives the ranking of two sorts (score, then group and rank).

:func:`pandas_rankeval.core.ranking.group_rank.rank_groups` packs the group, the score's highest bits, the
label level and the row into one int64 and sorts it; rows whose kept bits tie without equal scores
are put in order afterwards. Every kernel must give the same numbers, to the last bit, as on the
ranking of :func:`~pandas_rankeval.core.ranking.tie_blocks.build_ranking`: ties inside groups, equal scores in
different groups, scores one ulp apart (the kept bits cannot tell them apart), graded labels,
one-row groups, negative and integer scores.
"""

from __future__ import annotations

import numpy as np
import pytest

from pandas_rankeval.core.kernels import ranked as K
from pandas_rankeval.core.ranking import tie_blocks as E
from pandas_rankeval.core.ranking.group_rank import rank_groups


def _two_sorts(score, group, n_groups, level, n_levels, rel_level, gains):
    order, rank = E.score_rank(score, ties="expected")
    return E.build_ranking(group, n_groups, order, rank, level, n_levels, rel_level, gains=gains,
                           count_levels=True, block_levels=True)


def _values(rk):
    out = {"auc": K.auc_per_group(rk)[0]}
    for k in (None, 1, 3):
        out[f"dcg@{k}"] = K.dcg_per_group(rk, k)
        out[f"ap@{k}"] = K.ap_per_group(rk, k)
        out[f"hits@{k}"] = K.hits_per_group(rk, k)
        out[f"rr@{k}"] = K.rr_per_group(rk, k)
        if k is not None:
            out[f"hit@{k}"] = K.hit_per_group(rk, k)
    out["n"], out["npos"], out["code"] = rk.n, rk.npos, rk.code
    out["levels"] = rk.level_counts
    return out


def _frame(kind: str, seed: int):
    rng = np.random.default_rng(seed)
    n_groups = {"many": 40_000, "few": 30}.get(kind, 300)
    sizes = 1 + rng.poisson(3 if kind == "many" else 8, n_groups)
    group = np.repeat(np.arange(n_groups), sizes).astype(np.int32)
    n = group.shape[0]
    if kind == "ulp":  # scores a few ulps apart inside groups, in a column spanning 1e300: only
        # the full keys tell them apart (the kept bits of the packed key cannot)
        base = rng.random(n_groups)[group]
        score = rng.random(n)
        near = rng.random(n) < 0.1
        score[near] = base[near] + rng.integers(0, 6, int(near.sum())) * np.spacing(base[near])
        score[:3] = [1e300, -1e300, 0.0]
    elif kind == "ties":
        score = np.round(rng.random(n), 1)
    elif kind == "negative":
        score = rng.normal(0, 1e3, n)
        score[rng.random(n) < 0.2] = 0.0
        score[rng.random(n) < 0.1] = -0.0
    elif kind == "int":
        score = rng.integers(-5, 5, n)
    else:
        score = rng.random(n)
    n_levels = 4
    level = np.where(rng.random(n) < 0.2, rng.integers(1, n_levels, n), 0).astype(np.int64)
    perm = rng.permutation(n)  # rows in any order: the groups need not run together
    return score[perm], group[perm], n_groups, level[perm], n_levels


@pytest.mark.parametrize("kind", ["continuous", "ties", "ulp", "negative", "int", "many", "few"])
@pytest.mark.parametrize("rel_level", [1, 2])
def test_one_sort_equals_two_sorts(kind, rel_level):
    score, group, n_groups, level, n_levels = _frame(kind, 7)
    gains = np.exp2(np.arange(n_levels, dtype=np.float64)) - 1.0
    gains[:rel_level] = 0.0
    one = rank_groups(score, group, n_groups, level, n_levels, rel_level, gains=gains, count_levels=True,
                      block_levels=True)
    assert one is not None
    two = _two_sorts(score, group, n_groups, level, n_levels, rel_level, gains)
    a, b = _values(one), _values(two)
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    pairs = np.unique(np.column_stack([group, np.where(score == 0, 0.0, score)]), axis=0).shape[0]
    assert one.tie_free == (pairs == score.shape[0])  # tie blocks: equal scores inside a group
    if not one.tie_free:  # the blocks themselves are the same
        for field in ("size", "offset", "pos", "gain", "first", "group"):
            assert np.array_equal(getattr(one, field), getattr(two, field)), field
        if kind in ("ties", "ulp", "int", "few"):
            assert (one.size > 1).any()


def test_ties_across_groups_only_leave_the_groups_tie_free():
    """Equal scores in two groups: no tie block (the groups' values are their tie-free ones)."""
    score = np.array([0.5, 0.2, 0.5, 0.1])
    group = np.array([0, 0, 1, 1])
    level = np.array([1, 0, 0, 1])
    one = rank_groups(score, group, 2, level, 2, 1)
    assert one is not None and one.tie_free
    two = _two_sorts(score, group, 2, level, 2, 1, None)
    assert not two.tie_free
    assert np.array_equal(K.auc_per_group(one)[0], K.auc_per_group(two)[0])
    assert np.array_equal(K.ap_per_group(one, None), K.ap_per_group(two, None))


def test_falls_back_when_it_cannot_pack():
    """NaN has no int64 map, and too many groups leave too few bits for the score: None (the
    caller ranks with two sorts)."""
    assert rank_groups(np.array([0.5, np.nan]), np.array([0, 1]), 2, np.array([0, 1]), 2, 1) is None
    n = 4
    assert rank_groups(np.arange(n, dtype=np.float64), np.arange(n), 2**55, np.zeros(n, dtype=np.int64), 2, 1) is None


def test_rows_of_a_longer_column_rank_as_their_scores_do():
    """``rows=``: the ranked rows are positions in a longer column (a run of kept groups in the
    table): the same ranking as of the gathered scores, the second pass included."""
    score, group, n_groups, level, n_levels = _frame("ulp", 3)
    rng = np.random.default_rng(3)
    longer = rng.random(score.shape[0] * 2)
    rows = np.sort(rng.choice(longer.shape[0], score.shape[0], replace=False))
    longer[rows] = score
    gains = np.exp2(np.arange(n_levels, dtype=np.float64)) - 1.0
    a = rank_groups(longer, group, n_groups, level, n_levels, 1, rows=rows, gains=gains, count_levels=True)
    b = rank_groups(score, group, n_groups, level, n_levels, 1, gains=gains, count_levels=True)
    assert a is not None and b is not None and not a.tie_free
    for name, x in _values(a).items():
        assert np.array_equal(x, _values(b)[name]), name
