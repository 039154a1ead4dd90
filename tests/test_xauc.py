"""Exact XAUC (continuous labels): the O(n log n) kernel against every pair, by brute force."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from _oracles import xauc_pairs
from pandas_rankeval.core.kernels.xauc import discordant_weight, xauc_sums


def _oracle(y, s, w, g, n_groups):
    num, den = np.zeros(n_groups), np.zeros(n_groups)
    for k in range(n_groups):
        rows = np.flatnonzero(g == k)
        num[k], den[k] = xauc_pairs(y[rows].tolist(), s[rows].tolist(), None if w is None else w[rows].tolist())
    return num, den


def _table(seed, n_max=60, n_groups=6, levels=4):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, n_max))
    y = rng.integers(0, levels, n).astype(np.float64)  # tie-heavy labels
    s = rng.integers(0, levels, n)  # tie-heavy integer scores
    g = rng.integers(0, n_groups, n)  # some groups absent, some of one row
    w = rng.random(n) * 3
    w[rng.random(n) < 0.1] = 0.0  # zero weights too
    return y, s, w, g


@pytest.mark.parametrize("seed", range(40))
def test_xauc_equals_every_pair(seed):
    y, s, w, g = _table(seed)
    for weights in (None, w):
        num, den = xauc_sums(y, s, weights, g, 6)
        o_num, o_den = _oracle(y, s, weights, g, 6)
        np.testing.assert_allclose(num, o_num, rtol=0, atol=1e-12)
        np.testing.assert_allclose(den, o_den, rtol=0, atol=1e-12)


def test_xauc_unweighted_counts_are_exact_integers():
    y, s, _, g = _table(3, n_max=200)
    num, den = xauc_sums(y, s, None, g, 6)
    assert np.all(num * 2 == np.round(num * 2)) and np.all(den == np.round(den))


def test_xauc_undefined_groups_have_no_pairs():
    # one-row group (0), all labels equal (1), empty (2), a defined one (3)
    y = np.array([5.0, 2.0, 2.0, 2.0, 1.0, 3.0])
    s = np.array([0.1, 0.9, 0.2, 0.5, 0.3, 0.3])
    g = np.array([0, 1, 1, 1, 3, 3])
    num, den = xauc_sums(y, s, None, g, 4)
    assert den.tolist() == [0.0, 0.0, 0.0, 1.0]
    assert num.tolist() == [0.0, 0.0, 0.0, 0.5]  # the one pair ties in score: half credit


def test_xauc_hand_worked():
    # labels 1 < 2 < 3 = 3; pairs of different labels: (1,2) (1,3) (1,3') concordant,
    # (2,3) discordant (0.3 > 0.2), (2,3') tied (0.3 = 0.3): 3.5 / 5
    num, den = xauc_sums(np.array([1.0, 2.0, 3.0, 3.0]), np.array([0.1, 0.3, 0.2, 0.3]))
    assert (num[0], den[0]) == (3.5, 5.0)


def test_xauc_of_binary_labels_is_sklearn_auc():
    rng = np.random.default_rng(7)
    y = (rng.random(3000) < 0.3).astype(float)
    s = np.round(rng.normal(size=3000) + y, 1)  # many tied scores
    w = rng.random(3000)
    for weights in (None, w):
        num, den = xauc_sums(y, s, weights)
        assert num[0] / den[0] == pytest.approx(roc_auc_score(y, s, sample_weight=weights), abs=1e-12)


def test_xauc_row_order_and_group_codes_do_not_matter():
    y, s, w, g = _table(11, n_max=300)
    base = xauc_sums(y, s, w, g, 6)
    perm = np.random.default_rng(0).permutation(y.shape[0])
    relabel = np.array([3, 5, 0, 1, 4, 2])
    got = xauc_sums(y[perm], s[perm], w[perm], relabel[g[perm]], 6)
    np.testing.assert_allclose(got[0][relabel], base[0], atol=1e-9)
    np.testing.assert_allclose(got[1][relabel], base[1], atol=1e-9)


def test_xauc_integer_scores_compare_as_integers():
    # 2**53 and 2**53 + 1 are one float64: as int64 they differ, the pair is concordant
    y = np.array([0.0, 1.0])
    s = np.array([2**53, 2**53 + 1], dtype=np.int64)
    num, den = xauc_sums(y, s)
    assert (num[0], den[0]) == (1.0, 1.0)


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 33, 257])
def test_discordant_weight_around_block_sizes(n):
    rng = np.random.default_rng(n)
    v = rng.integers(0, 5, n)
    w = rng.random(n)
    g = np.zeros(n, dtype=np.int64)
    brute = sum(1 for i in range(n) for j in range(i + 1, n) if v[i] > v[j])
    brute_w = sum(w[i] * w[j] for i in range(n) for j in range(i + 1, n) if v[i] > v[j])
    assert discordant_weight(v, None, g, 1)[0] == brute
    assert discordant_weight(v, w, g, 1)[0] == pytest.approx(brute_w, abs=1e-9)
