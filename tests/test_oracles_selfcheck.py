"""Self-checks of the reference implementations in tests/_oracles.py.

The oracles are checked against scikit-learn, against the hand-worked examples of the reference
documents, against the contract's closed forms, and against each other (pairs vs orderings).
None of this imports pandas_rankeval.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

try:
    import _oracles as O
except ImportError:  # tests/ imported as a package
    from tests import _oracles as O

ATOL = 1e-12


def approx(x):
    return pytest.approx(x, abs=ATOL, rel=0)


def random_group(rng: random.Random, n: int, tie_style: str, graded: bool):
    labels = [rng.choice([0, 0, 1, 2, 3]) if graded else rng.choice([0, 1]) for _ in range(n)]
    if tie_style == "round1":
        scores = [round(rng.random(), 1) for _ in range(n)]
    elif tie_style == "coarse":
        scores = [rng.choice([0.0, 0.5, 1.0]) for _ in range(n)]
    else:
        scores = [rng.random() for _ in range(n)]
    return labels, scores


GROUP_CASES = [
    (seed, n, tie_style, graded)
    for seed in range(4)
    for n in (1, 2, 4, 7)
    for tie_style in ("round1", "coarse", "distinct")
    for graded in (False, True)
]


# ----------------------------------------------------------------------------------------------
# hand examples from the reference documents
# ----------------------------------------------------------------------------------------------
def test_mrr_hand_example():
    # three queries, first relevant at ranks 1, 3, 5
    lists = [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]]
    rr = [O.reciprocal_rank(lab) for lab in lists]
    assert rr == [1.0, 1 / 3, 1 / 5]
    mrr = sum(rr) / 3
    assert round(mrr, 3) == 0.511
    assert O.reciprocal_rank([0, 0, 0]) == 0.0
    assert O.reciprocal_rank([0, 0, 1, 0, 0], k=2) == 0.0
    assert O.reciprocal_rank([0, 0, 1, 0, 0], k=3) == 1 / 3


def test_precision_and_ap_hand_example():
    lst = [1, 0, 1, 0, 1]
    assert O.precision_at_k(lst, 1) == 1.0
    assert round(O.precision_at_k(lst, 3), 3) == 0.667
    assert O.precision_at_k(lst, 5) == approx(0.6)
    ap = O.average_precision(lst)
    assert ap == approx((1 + 2 / 3 + 3 / 5) / 3)
    assert round(ap, 3) == 0.756
    # precision divides by k even when the list is shorter
    assert O.precision_at_k(lst, 10) == approx(0.3)
    assert O.recall_at_k(lst, 3) == approx(2 / 3)
    assert O.hit_at_k([0, 0, 1], 2) == 0.0 and O.hit_at_k([0, 0, 1], 3) == 1.0


def test_ap_at_k_denominators():
    lst = [0, 1, 0, 1, 1]
    # AP@2: one relevant row in the top 2 (precision 1/2 at rank 2)
    assert O.average_precision(lst, k=2) == approx(0.5 / 3)
    assert O.average_precision(lst, k=2, denominator="min_k") == approx(0.5 / 2)
    assert O.average_precision(lst, k=10, denominator="min_k") == approx(O.average_precision(lst))


def test_ndcg_discounts_hand_example():
    assert [round(O.discount(i), 2) for i in (1, 2, 3)] == [1.00, 0.63, 0.50]
    assert round(O.discount(10), 2) == 0.29
    # one relevant item of gain 1 at rank i has DCG = discount(i)
    for i in (1, 2, 3):
        labels = [0] * (i - 1) + [1]
        assert O.dcg(labels, gain_kind="linear") == approx(O.discount(i))
        assert O.dcg(labels, gain_kind="exp2") == approx(O.discount(i))
    # [3,2,0] vs [0,2,3]: same CG, different DCG; ideal is [3,2,0]
    assert O.ndcg([3, 2, 0], gain_kind="linear") == 1.0
    assert O.ndcg([0, 2, 3], gain_kind="linear") < 1.0
    assert O.ndcg([0, 0, 0]) == 0.0
    assert O.ndcg([2, 0, 1], k=1, gain_kind="exp2") == 1.0
    assert O.ndcg([1, 0, 2], k=1, gain_kind="exp2") == approx(1 / 3)


def _rows_with_auc(n_pos: int, n_neg: int, target_pairs: int, rng: random.Random):
    """Rows with exactly target_pairs correctly ordered (positive, negative) pairs, no ties."""
    counts = [target_pairs // n_pos] * n_pos
    for i in range(target_pairs % n_pos):
        counts[i] += 1
    rows = [(0, float(j)) for j in range(n_neg)]  # negatives score 0, 1, ..., n_neg-1
    rows += [(1, c - 0.5) for c in counts]  # a positive above exactly c negatives
    rng.shuffle(rows)
    return rows


def gauc_hand_frame():
    rng = random.Random(0)
    a = _rows_with_auc(10, 70, 490, rng)  # 80 rows, AUC 490/700 = 0.7
    b = _rows_with_auc(5, 15, 45, rng)  # 20 rows, AUC 45/75 = 0.6
    return pd.DataFrame(
        [("A", lab, s) for lab, s in a] + [("B", lab, s) for lab, s in b],
        columns=["user", "label", "score"],
    )


def test_gauc_hand_example():
    df = gauc_hand_frame()
    per = O.gauc_per_group(df, group="user", label="label", score="score")
    assert per["A"] == approx(0.7) and per["B"] == approx(0.6)
    assert O.group_stats(df, "user", "label")["A"]["n"] == 80
    assert O.group_stats(df, "user", "label")["B"]["n"] == 20
    g_count = O.gauc(df, group="user", label="label", score="score")
    g_uniform = O.gauc(df, group="user", label="label", score="score", weight="uniform")
    assert g_count == approx(0.68) and round(g_count, 2) == 0.68
    assert g_uniform == approx(0.65) and round(g_uniform, 2) == 0.65
    for name in ("A", "B"):
        sub = df[df.user == name]
        assert per[name] == approx(roc_auc_score(sub.label, sub.score))


# ----------------------------------------------------------------------------------------------
# against scikit-learn
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(30))
def test_auc_matches_sklearn(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    labels = [rng.choice([0, 1]) for _ in range(n)]
    labels[0], labels[1] = 0, 1
    scores = [rng.choice([0.0, 0.1, 0.5, 0.5, 1.0, rng.random()]) for _ in range(n)]
    weights = [rng.choice([0.5, 1.0, 2.0, 3.0]) for _ in range(n)]
    assert O.auc(labels, scores) == approx(roc_auc_score(labels, scores))
    assert O.auc(labels, scores, sample_weight=weights) == approx(
        roc_auc_score(labels, scores, sample_weight=weights)
    )


@pytest.mark.parametrize("seed", range(10))
def test_auc_integer_sample_weight_equals_replicated_rows(seed):
    rng = random.Random(seed)
    n = 12
    labels = [rng.choice([0, 1]) for _ in range(n)]
    labels[0], labels[1] = 0, 1
    scores = [rng.choice([0.0, 0.5, 1.0]) for _ in range(n)]
    w = [rng.randint(1, 3) for _ in range(n)]
    rep_l = [lab for lab, c in zip(labels, w) for _ in range(c)]
    rep_s = [s for s, c in zip(scores, w) for _ in range(c)]
    for ties in O.TIES:
        assert O.auc(labels, scores, w, ties) == approx(O.auc(rep_l, rep_s, None, ties))


@pytest.mark.parametrize("seed,n,tie_style,graded", [c for c in GROUP_CASES if c[1] >= 2])
@pytest.mark.parametrize("k", [1, 3, None])
def test_ndcg_expected_matches_sklearn(seed, n, tie_style, graded, k):
    # (sklearn's ndcg_score needs at least two documents per query)
    rng = random.Random(1000 * seed + n)
    labels, scores = random_group(rng, n, tie_style, graded)
    if not any(lab > 0 for lab in labels):
        labels[0] = 1
    for kind in ("linear", "exp2"):
        got = O.tie_value(lambda o: O.ndcg(o, k, kind), labels, scores)
        gains = labels if kind == "linear" else [2.0 ** lab - 1 for lab in labels]
        want = ndcg_score([gains], [scores], k=k, ignore_ties=False)
        assert got == approx(want)


@pytest.mark.parametrize("seed", range(30))
def test_ap_matches_sklearn_without_ties(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    labels = [rng.choice([0, 1]) for _ in range(n)]
    labels[0] = 1
    scores = rng.sample(range(1000), n)
    ranked = [lab for _, lab in sorted(zip(scores, labels), reverse=True)]
    want = average_precision_score(labels, scores)
    assert O.average_precision(ranked) == approx(want)
    # no ties: one ordering, expected = pessimistic = optimistic
    summary = O.tie_summary(O.average_precision, labels, scores)
    assert summary["expected"] == summary["pessimistic"] == summary["optimistic"]
    assert summary["expected"] == approx(want)


# ----------------------------------------------------------------------------------------------
# the enumeration itself
# ----------------------------------------------------------------------------------------------
def test_orderings_enumerate_within_blocks_only():
    labels = ["a", "b", "c", "d", "e"]
    scores = [0.5, 0.9, 0.5, 0.1, 0.5]
    orders = O.all_orderings(labels, scores)
    assert sum(orders.values()) == 6
    assert set(orders) == {("b",) + p + ("d",) for p in itertools.permutations("ace")}
    # tiebreak ascending inside equal scores; equal (score, tiebreak) stay tied
    orders = O.all_orderings(labels, scores, tiebreak=[2, 0, 1, 0, 2])
    assert set(orders) == {("b", "c", "a", "e", "d"), ("b", "c", "e", "a", "d")}
    assert O.tie_blocks([1.0, 1.0, 2.0], [1, 1, 0]) == [[2], [0, 1]]


def test_expected_is_the_plain_mean_over_row_permutations():
    # the Counter collapses equal label sequences but keeps their multiplicity
    labels, scores = [1, 0, 0, 1, 2], [0.5, 0.5, 0.5, 0.5, 0.2]
    fn = lambda o: O.ndcg(o, 2, "exp2")  # noqa: E731
    brute = [fn([labels[i] for i in p] + [2]) for p in itertools.permutations(range(4))]
    assert O.tie_value(fn, labels, scores) == approx(sum(brute) / len(brute))
    assert O.tie_value(fn, labels, scores, ties="pessimistic") == min(brute)
    assert O.tie_value(fn, labels, scores, ties="optimistic") == max(brute)


@pytest.mark.parametrize("seed,n,tie_style,graded", GROUP_CASES)
def test_auc_pairs_equal_enumerated_orderings(seed, n, tie_style, graded):
    rng = random.Random(seed * 7 + n)
    labels, scores = random_group(rng, n, tie_style, graded)
    binary = [int(lab > 0) for lab in labels]
    if len(set(binary)) < 2:
        assert math.isnan(O.auc(labels, scores))
        return

    def strict_auc(order):
        pairs = [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]
        good = sum(1 for i, j in pairs if order[i] and not order[j])
        return good / (sum(binary) * (len(binary) - sum(binary)))

    summary = O.tie_summary(strict_auc, binary, scores)
    for ties in O.TIES:
        assert O.auc(labels, scores, ties=ties) == approx(summary[ties])


# ----------------------------------------------------------------------------------------------
# the contract's closed forms and tie rules against enumeration
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", [0, 1, 3])
@pytest.mark.parametrize("t,p", [(1, 1), (2, 1), (3, 2), (4, 1), (5, 3), (6, 6), (6, 2)])
@pytest.mark.parametrize("k", [None, 1, 2, 4, 6])
def test_mrr_closed_form(m, t, p, k):
    labels = [0] * m + [1] * p + [0] * (t - p) + [1, 0]
    scores = [3.0] * m + [2.0] * t + [1.0, 1.0]
    got = O.tie_value(lambda o: O.reciprocal_rank(o, k), labels, scores)
    assert got == approx(O.expected_rr_closed_form(m, t, p, k))


@pytest.mark.parametrize("above", [0, 1, 2])
@pytest.mark.parametrize("t,p", [(1, 1), (3, 1), (4, 2), (5, 5), (5, 0), (6, 3)])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_precision_and_hit_closed_forms(above, t, p, k):
    # `above` non-relevant rows strictly above, then a block of t with p relevant, then 2 rows
    labels = [0] * above + [1] * p + [0] * (t - p) + [0, 0]
    scores = [3.0] * above + [2.0] * t + [1.0, 1.0]
    r = max(0, min(t, k - above))  # slots of the block inside the cutoff
    want_p = O.expected_hits_in_block(r, t, p) / k
    want_hit = O.hit_probability_in_block(r, t, p)
    assert O.tie_value(lambda o: O.precision_at_k(o, k), labels, scores) == approx(want_p)
    assert O.tie_value(lambda o: O.hit_at_k(o, k), labels, scores) == approx(want_hit)


@pytest.mark.parametrize("seed,n,tie_style,graded", GROUP_CASES)
@pytest.mark.parametrize("k", [1, 2, 3, None])
def test_expected_dcg_is_block_mean_gain_times_discounts(seed, n, tie_style, graded, k):
    rng = random.Random(seed * 31 + n)
    labels, scores = random_group(rng, n, tie_style, graded)
    want, pos = [], 0
    for block in O.tie_blocks(scores):
        mean_gain = sum(O.gain(labels[i]) for i in block) / len(block)
        ranks = range(pos + 1, pos + len(block) + 1)
        want.append(mean_gain * sum(O.discount(r) for r in ranks if k is None or r <= k))
        pos += len(block)
    got = O.tie_value(lambda o: O.dcg(o, k), labels, scores)
    assert got == approx(math.fsum(want))


@pytest.mark.parametrize("seed,n,tie_style,graded", GROUP_CASES)
@pytest.mark.parametrize("k", [1, 2, 3, None])
def test_pessimistic_optimistic_rule_equals_min_max(seed, n, tie_style, graded, k):
    """'Relevant last/first inside a tie' gives the min/max of every binary metric, and for
    NDCG with graded labels 'lower labels first' / 'higher labels first' gives its min/max."""
    rng = random.Random(seed * 17 + n)
    labels, scores = random_group(rng, n, tie_style, graded)
    tiebreak = [rng.choice([0, 1]) for _ in range(n)]
    for tb in (None, tiebreak):
        for threshold in (None, 2):
            binary = {
                "mrr": lambda o: O.reciprocal_rank(o, k, threshold),
                "map": lambda o: O.average_precision(o, k, "relevant", threshold),
                "map_min_k": lambda o: O.average_precision(o, k, "min_k", threshold),
                "precision": lambda o: O.precision_at_k(o, k or 10, threshold),
                "recall": lambda o: O.recall_at_k(o, k or 10, threshold),
                "hit": lambda o: O.hit_at_k(o, k or 10, threshold),
            }
            for fn in binary.values():
                summary = O.tie_summary(fn, labels, scores, tb)
                for ties in ("pessimistic", "optimistic"):
                    order = O.contract_order(labels, scores, tb, ties, threshold)
                    assert fn(order) == approx(summary[ties])
        for kind in ("exp2", "linear"):
            fn = lambda o: O.ndcg(o, k, kind)  # noqa: E731
            summary = O.tie_summary(fn, labels, scores, tb)
            for ties in ("pessimistic", "optimistic"):
                order = O.contract_order(labels, scores, tb, ties, graded=True)
                assert fn(order) == approx(summary[ties])


def test_relevant_last_alone_is_not_the_min_for_graded_ndcg():
    # Why the graded rule matters: two relevant items of different grade in one tie. "Relevant
    # last" leaves their order open, and only "lower label first" gives the minimum.
    labels, scores = [0, 1, 3], [0.5, 0.5, 0.5]
    fn = lambda o: O.ndcg(o, None, "exp2")  # noqa: E731
    summary = O.tie_summary(fn, labels, scores)
    assert fn([0, 1, 3]) == approx(summary["pessimistic"])
    assert fn([0, 3, 1]) > summary["pessimistic"] + 1e-3


# ----------------------------------------------------------------------------------------------
# group assembly
# ----------------------------------------------------------------------------------------------
def small_frame(seed=0, n_groups=8):
    rng = random.Random(seed)
    rows = []
    for g in range(n_groups):
        n = rng.randint(1, 6)
        for _ in range(n):
            rows.append((f"g{g}", rng.choice([0, 1]), rng.choice([0.0, 0.5, 1.0]),
                         rng.choice([1.0, 2.0, 5.0])))
    rows += [("allpos", 1, 0.3, 1.0), ("allpos", 1, 0.2, 1.0), ("allneg", 0, 0.4, 1.0)]
    return pd.DataFrame(rows, columns=["g", "y", "s", "gmv"])


def test_gauc_weight_options_agree_with_each_other():
    df = small_frame(3)
    kw = dict(group="g", label="y", score="s")
    count = O.gauc(df, **kw)
    stats = O.group_stats(df, "g", "y")
    ones = pd.Series(1.0, index=list(stats))
    assert O.gauc(df, **kw, weight=lambda st: st["n"]) == approx(count)
    assert O.gauc(df, **kw, weight=lambda st: st["n"].to_numpy()) == approx(count)
    assert O.gauc(df, **kw, weight=ones) == approx(O.gauc(df, **kw, weight="uniform"))
    assert O.gauc(df, **kw, weight="clicks") == approx(
        O.gauc(df, **kw, weight=lambda st: st["positives"])
    )
    df2 = df.assign(one=1)
    assert O.gauc(df2, **kw, weight="one") == approx(count)

    # explicitly: only groups with both classes count
    per = O.gauc_per_group(df, **kw)
    assert math.isnan(per["allpos"]) and math.isnan(per["allneg"])
    used = [k for k, v in per.items() if not math.isnan(v)]
    gmv = {k: df.loc[df.g == k, "gmv"].sum() for k in used}
    want = sum(gmv[k] * per[k] for k in used) / sum(gmv.values())
    assert O.gauc(df, **kw, weight="gmv") == approx(want)
    logw = {k: math.log1p((df.g == k).sum()) for k in used}
    want = sum(logw[k] * per[k] for k in used) / sum(logw.values())
    assert O.gauc(df, **kw, weight="log1p") == approx(want)


def test_gauc_filters_and_empty_set():
    df = pd.DataFrame({
        "g": ["a"] * 4 + ["b"] * 2 + ["c"] * 3,
        "y": [1, 0, 0, 1, 1, 0, 1, 0, 0],
        "s": [0.9, 0.1, 0.5, 0.2, 0.3, 0.4, 0.8, 0.7, 0.9],
    })
    kw = dict(group="g", label="y", score="s")
    per = O.gauc_per_group(df, **kw)
    # a: positives 0.9, 0.2 vs negatives 0.1, 0.5 -> 3 of 4 pairs; b: 0 of 1; c: 1 of 2
    assert per["a"] == approx(0.75) and per["b"] == 0.0 and per["c"] == approx(0.5)
    assert O.gauc(df, **kw) == approx((4 * 0.75 + 2 * 0 + 3 * 0.5) / 9)
    assert O.gauc(df, **kw, min_size=3) == approx((4 * 0.75 + 3 * 0.5) / 7)
    assert O.gauc(df, **kw, min_size=2) == approx((4 * 0.75 + 0 + 3 * 0.5) / 9)
    assert O.gauc(df, **kw, min_pos=2) == approx(0.75)
    assert O.gauc(df, **kw, min_neg=2) == approx((4 * 0.75 + 3 * 0.5) / 7)
    assert O.gauc(df, **kw, min_size=3, min_pos=2) == approx(0.75)
    assert math.isnan(O.gauc(df, **kw, min_size=5))
    assert math.isnan(O.gauc(df, **kw, min_neg=3))
    # a single group holding all rows gives GAUC == AUC
    one = df.assign(g="x")
    assert O.gauc(one, **kw) == approx(O.global_auc(df, label="y", score="s"))


def test_list_aggregation_empty_policies():
    df = pd.DataFrame({
        "g": ["a", "a", "b", "b", "c"],
        "y": [0, 1, 0, 0, 1],
        "s": [0.9, 0.1, 0.5, 0.5, 0.3],
    })
    kw = dict(metric="mrr", group="g", label="y", score="s")
    assert O.list_metric(df, **kw) == approx((0.5 + 0 + 1) / 3)
    assert O.list_metric(df, **kw, empty="skip") == approx((0.5 + 1) / 2)
    with pytest.raises(ValueError):
        O.list_metric(df, **kw, empty="error")
    assert O.list_metric(df, **kw, weight="count") == approx((2 * 0.5 + 0 + 1) / 5)
    assert O.list_metric(df, **kw, weight="count", empty="skip") == approx((2 * 0.5 + 1) / 3)
    assert O.list_metric_per_group(df, **kw) == {"a": 0.5, "b": None, "c": 1.0}


def test_multi_column_groups_give_tuple_keys():
    df = small_frame(5).assign(h=lambda d: d.g.str.len() % 2)
    stats = O.group_stats(df, ["g", "h"], "y")
    assert all(isinstance(k, tuple) and len(k) == 2 for k in stats)
    assert O.gauc(df, group=["g", "h"], label="y", score="s") == approx(
        O.gauc(df, group="g", label="y", score="s")
    )


def test_sample_weight_in_gauc_groups_matches_sklearn():
    df = small_frame(7).assign(w=lambda d: np.arange(len(d)) % 3 + 0.5)
    per = O.gauc_per_group(df, group="g", label="y", score="s", sample_weight="w")
    for key, value in per.items():
        sub = df[df.g == key]
        if sub.y.nunique() == 2:
            assert value == approx(roc_auc_score(sub.y, sub.s, sample_weight=sub.w))
        else:
            assert math.isnan(value)


# ----------------------------------------------------------------------------------------------
# closed forms for groups too large to enumerate
# ----------------------------------------------------------------------------------------------
CLOSED_FORM_SPECS = (
    [("mrr", dict(k=k)) for k in (None, 1, 3)]
    + [("ndcg", dict(k=k, gain_kind=g)) for k in (None, 1, 3) for g in ("exp2", "linear")]
    + [("map", dict(k=k, denominator=d)) for k in (None, 1, 3) for d in ("relevant", "min_k")]
    + [(m, dict(k=k)) for m in ("precision", "recall", "hit_rate") for k in (1, 2, 3, 10)]
)


@pytest.mark.parametrize("seed,n,tie_style,graded", GROUP_CASES)
def test_expected_closed_forms_match_enumeration(seed, n, tie_style, graded):
    rng = random.Random(seed * 101 + n)
    labels, scores = random_group(rng, n, tie_style, graded)
    tiebreak = [rng.choice([0, 1]) for _ in range(n)]
    for metric, kw in CLOSED_FORM_SPECS:
        for tb in (None, tiebreak):
            for threshold in ((None,) if metric == "ndcg" else (None, 2)):
                extra = {} if metric == "ndcg" else dict(threshold=threshold)
                fn = O.list_metric_fn(metric, **kw, **extra)
                want = O.tie_value(fn, labels, scores, tb)
                got = O.expected_closed_form(metric, labels, scores, tb, **kw, **extra)
                assert got == approx(want), (metric, kw, tb, threshold)


@pytest.mark.parametrize("ties", O.TIES)
@pytest.mark.parametrize("seed", range(4))
def test_list_metric_large_equals_enumeration_on_small_frames(seed, ties):
    df = small_frame(seed, n_groups=10).assign(tb=lambda d: np.arange(len(d)) % 2)
    for metric, kw in CLOSED_FORM_SPECS:
        kw = {("gain" if a == "gain_kind" else a): b for a, b in kw.items()}
        for empty in ("zero", "skip"):
            for weight in ("uniform", "count", "gmv"):
                for tb in (None, "tb"):
                    common = dict(metric=metric, group="g", label="y", score="s", ties=ties,
                                  empty=empty, weight=weight, tiebreak=tb, **kw)
                    assert O.list_metric_large(df, **common) == approx(
                        O.list_metric(df, **common))
