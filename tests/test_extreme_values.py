"""Values at the edges, each against an independent oracle (sklearn, brute force, or the same metric
on an exactly equivalent input): sample weights that sum to 0 in a group or a class, integer scores
above 2**53 (ranked as integers), huge labels (exp2 gains that overflow: a clear error), NDCG without
a cutoff (the whole list), one rule for relevance and empty groups under ``threshold``, infinite
scores, keys near the top of their dtype and graded levels of small and unsigned integer labels.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import ndcg_score, roc_auc_score

import pandas_rankeval as pre

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")

LIST_METRICS = ["mrr", "ndcg", "map", "precision@2", "recall@2", "hit_rate@2"]
ALL_METRICS = ["auc", "gauc", *LIST_METRICS, "mrr@2", "ndcg@2", "map@2"]


# --------------------------------------------------------------------------------------------
# sample weights that sum to 0 in a group
# --------------------------------------------------------------------------------------------
@pytest.fixture
def zero_weight_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"g": [1, 1, 2, 2], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8], "w": [1.0, 1.0, 0.0, 0.0]}
    )


@pytest.mark.parametrize("implementation", ["numpy", "sklearn"])
def test_group_with_zero_sample_weight_is_skipped_with_its_own_reason(zero_weight_frame, implementation):
    r = pre.gauc(zero_weight_frame, group="g", label="y", score="s", sample_weight="w", implementation=implementation)
    assert float(r) == 1.0  # group 1 alone; group 2 has no weighted pair
    assert r.coverage.n_used == 1
    assert r.coverage.n_zero_weight == 1
    assert r.coverage.n_only_pos == r.coverage.n_only_neg == r.coverage.n_filtered == 0
    assert "1 zero sample weight" in str(r.coverage)


@pytest.mark.parametrize("implementation", ["numpy", "sklearn"])
def test_zero_weight_of_one_class_only_also_skips(implementation):
    # the positives of group 2 weigh 0, its negatives do not: still no weighted pair
    df = pd.DataFrame(
        {"g": [1, 1, 1, 2, 2, 2], "y": [1, 0, 0, 1, 0, 0], "s": [3, 2, 1, 1, 2, 3],
         "w": [1.0, 2.0, 1.0, 0.0, 1.0, 1.0]}
    )
    r = pre.gauc(df, group="g", label="y", score="s", sample_weight="w", implementation=implementation, weight="uniform")
    assert float(r) == 1.0
    assert r.coverage.n_zero_weight == 1


def test_zero_weight_groups_match_sklearn_per_group():
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {"g": rng.integers(0, 30, n), "y": rng.integers(0, 2, n), "s": rng.integers(0, 6, n).astype(float),
         "w": rng.random(n) * (rng.random(n) < 0.6)}
    )
    df.loc[df["g"] < 8, "w"] = 0.0  # whole groups weigh 0
    r = pre.gauc(df, group="g", label="y", score="s", sample_weight="w", weight="uniform")
    values = []
    zero = 0
    for _, grp in df.groupby("g"):
        if grp["y"].nunique() < 2:
            continue
        wp, wn = grp.loc[grp["y"] == 1, "w"].sum(), grp.loc[grp["y"] == 0, "w"].sum()
        if wp == 0 or wn == 0:
            zero += 1
            continue
        values.append(roc_auc_score(grp["y"], grp["s"], sample_weight=grp["w"]))
    assert zero >= 8
    assert r.coverage.n_zero_weight == zero
    assert float(r) == pytest.approx(np.mean(values), abs=1e-12)


def test_global_auc_with_zero_weight_class_is_nan_with_the_reason():
    df = pd.DataFrame({"y": [1, 1, 0, 0], "s": [1.0, 2.0, 3.0, 4.0], "w": [0.0, 0.0, 1.0, 1.0]})
    with pytest.warns(pre.CoverageWarning, match=r"auc is NaN because no \(positive, negative\) pair has weight"):
        r = pre.auc(df, label="y", score="s", sample_weight="w")
    assert np.isnan(r)
    assert r.coverage.n_zero_weight == 1
    with pytest.warns(pre.CoverageWarning):  # max_fpr (sklearn) used to raise its own error
        assert np.isnan(pre.auc(df, label="y", score="s", sample_weight="w", max_fpr=0.5))


# --------------------------------------------------------------------------------------------
# integer scores above 2**53 are ranked as integers
# --------------------------------------------------------------------------------------------
def test_int64_scores_one_apart_above_2_60_are_not_tied():
    df = pd.DataFrame({"y": [1, 0], "s": np.array([2**60 + 1, 2**60], dtype=np.int64)})
    assert pre.auc(df, label="y", score="s") == 1.0
    assert roc_auc_score(df["y"], df["s"]) == 1.0


def _int_frame(dtype: str, seed: int = 0, n: int = 120) -> pd.DataFrame:
    """Scores that differ only beyond float64's 53 bits (they all round to one float)."""
    rng = np.random.default_rng(seed)
    offsets = rng.integers(0, 7, n)
    if dtype.lower() == "uint64":
        values = np.uint64(2**63 + 2**62) + offsets.astype(np.uint64)
    else:
        values = np.int64(2**60) + offsets.astype(np.int64)
    assert np.unique(values.astype(np.float64)).shape[0] == 1
    return pd.DataFrame(
        {
            "g": rng.integers(0, 12, n),
            "y": rng.integers(0, 3, n),
            "s": pd.array(values, dtype=dtype),
            "w": rng.random(n) + 0.1,
            "tb": rng.permutation(n),
        }
    )


def _ranked(df: pd.DataFrame) -> pd.DataFrame:
    """The same frame with the scores replaced by their exact dense rank (an exact, monotone map)."""
    raw = df["s"].to_numpy(dtype=df["s"].dtype.numpy_dtype if hasattr(df["s"].dtype, "numpy_dtype") else None)
    return df.assign(s=np.unique(raw, return_inverse=True)[1].astype(np.float64))


INT_DTYPES = ["int64", "uint64", "Int64", "UInt64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize(
    "options",
    [{}, {"ties": "pessimistic"}, {"ties": "optimistic"}, {"tiebreak": "tb"}, {"threshold": 2}],
    ids=["expected", "pessimistic", "optimistic", "tiebreak", "threshold"],
)
def test_int_scores_every_metric_equals_the_exact_rank(dtype, options):
    df = _int_frame(dtype)
    got = pre.report(df, group="g", label="y", scores="s", metrics=ALL_METRICS, **options)
    want = pre.report(_ranked(df), group="g", label="y", scores="s", metrics=ALL_METRICS, **options)
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), check_exact=False, rtol=0, atol=1e-12)
    # and the float64 view of the same scores is one big tie: the old answer was different
    as_float = df.assign(s=df["s"].astype("float64"))
    assert pre.auc(as_float, label="y", score="s") == 0.5
    assert pre.auc(df, label="y", score="s") != 0.5


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_int_scores_auc_and_gauc_equal_sklearn(dtype):
    df = _int_frame(dtype, seed=3)
    rel = (df["y"] > 0).astype(int)
    s = df["s"].to_numpy(dtype=np.uint64 if dtype.lower() == "uint64" else np.int64)
    assert pre.auc(df, label="y", score="s") == pytest.approx(roc_auc_score(rel, s), abs=1e-12)
    assert pre.auc(df, label="y", score="s", sample_weight="w") == pytest.approx(
        roc_auc_score(rel, s, sample_weight=df["w"]), abs=1e-12
    )
    assert pre.auc(df, label="y", score="s", max_fpr=0.3) == pytest.approx(
        roc_auc_score(rel, s, max_fpr=0.3), abs=1e-12
    )
    per = []
    for _, grp in df.assign(rel=rel, raw=s).groupby("g"):
        if grp["rel"].nunique() == 2:
            per.append(roc_auc_score(grp["rel"], grp["raw"].to_numpy(dtype=s.dtype)))
    expected = float(np.mean(per))
    for implementation in ("numpy", "sklearn"):
        got = pre.gauc(df, group="g", label="y", score="s", weight="uniform", implementation=implementation)
        assert got == pytest.approx(expected, abs=1e-12)
    got = pre.gauc(df, group="g", label="y", score="s", weight="uniform", max_fpr=0.4)
    want = pre.gauc(_ranked(df), group="g", label="y", score="s", weight="uniform", max_fpr=0.4)
    assert got == pytest.approx(want, abs=1e-12)


def test_int_scores_per_group_and_compare():
    df = _int_frame("int64", seed=5)
    df["s2"] = df["s"] + 1  # the same order: every difference is 0
    got = pre.per_group(df, group="g", label="y", score="s", metrics=LIST_METRICS)
    want = pre.per_group(_ranked(df), group="g", label="y", score="s", metrics=LIST_METRICS)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=0, atol=1e-12)
    res = pre.compare(df, group="g", label="y", scores=["s", "s2"], baseline="s", metrics=["auc", "gauc", "mrr"], n_boot=50)
    assert (res["diff"].abs() < 1e-12).all()


def test_float_scores_stay_float64_and_small_ints_are_exact():
    from pandas_rankeval.core.inputs.prepare import prepare

    df = pd.DataFrame({"y": [1, 0], "f": [0.5, 0.25], "i32": np.array([2, 1], dtype=np.int32), "i": [2**60 + 1, 2**60]})
    prep = prepare(df, func="t", group=None, label="y", scores=["f", "i32", "i"])
    assert prep.scores["f"].dtype == np.float64
    assert prep.scores["i32"].dtype == np.float64  # exact: 32-bit integers fit in float64
    assert prep.scores["i"].dtype == np.int64


# --------------------------------------------------------------------------------------------
# huge labels: a clear error for exp2 gains, exact relevance for integers
# --------------------------------------------------------------------------------------------
def test_exp2_gain_overflow_is_a_clear_error():
    df = pd.DataFrame({"q": [1, 1], "y": [1024, 0], "s": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"Column 'y' \(label\) has labels up to 1024: with gain='exp2', 2\*\*label - 1 "
                       r"overflows float64 from label 1024 on\. Pass gain='linear'"):
        pre.ndcg(df, group="q", label="y", score="s")
    with pytest.raises(ValueError, match=r"with gain='exp2', 2\*\*label - 1 overflows"):
        pre.report(df, group="q", label="y", scores="s", metrics=["ndcg@1"])
    # labels below the threshold gain nothing: no overflow
    assert pre.ndcg(df.assign(y=[1024, 1]), group="q", label="y", score="s", threshold=1025, empty="skip").coverage.n_empty == 1
    linear = pre.ndcg(df, group="q", label="y", score="s", gain="linear")
    assert linear == pytest.approx(ndcg_score([[1024, 0]], [[1.0, 2.0]]), abs=1e-12)


def test_exp2_ideal_dcg_overflow_is_a_clear_error():
    df = pd.DataFrame({"q": [1, 1, 1, 1], "y": [1023, 1023, 1023, 0], "s": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=r"ideal DCG of 1 groups overflows float64 \(gain='exp2'"):
        pre.ndcg(df, group="q", label="y", score="s")


def test_integer_labels_near_2_60():
    big = 2**60
    df = pd.DataFrame({"q": [1, 1, 1, 2, 2], "y": [big, big + 1, 0, big + 5000, 3], "s": [3.0, 2.0, 1.0, 1.0, 2.0]})
    got = pre.per_group(df, group="q", label="y", score="s", metrics=["ndcg"], gain="linear")["ndcg"]
    for key, grp in df.groupby("q"):
        want = ndcg_score([grp["y"].astype(float)], [grp["s"]])
        assert got[key] == pytest.approx(want, abs=1e-12)
    # relevance by an integer threshold is exact: only big + 1 is relevant in group 1
    r = pre.per_group(df, group="q", label="y", score="s", metrics=["mrr", "precision@3"], threshold=big + 1)
    assert r.loc[1, "mrr"] == 0.5
    assert r.loc[1, "precision@3"] == pytest.approx(1 / 3)
    assert r.loc[1, "positives"] == 1
    u = df.assign(y=df["y"].astype(np.uint64) + np.uint64(2**63))
    # group 1 has no label >= 2**63 + big + 2 (float64 would round it into a tie with big + 1)
    assert pre.mrr(u, group="q", label="y", score="s", threshold=2**63 + big + 2) == 0.25


# --------------------------------------------------------------------------------------------
# ndcg without k is the whole list, everywhere
# --------------------------------------------------------------------------------------------
def test_ndcg_without_k_is_the_whole_list_everywhere():
    rng = np.random.default_rng(2)
    n = 300
    df = pd.DataFrame({"q": rng.integers(0, 10, n), "y": rng.integers(0, 4, n), "s": rng.random(n)})
    assert inspect.signature(pre.ndcg).parameters["k"].default is None
    bare = pre.ndcg(df, group="q", label="y", score="s")
    assert bare == pre.report(df, group="q", label="y", scores="s", metrics=["ndcg"]).loc["s", "ndcg"]
    assert bare == pre.per_group(df, group="q", label="y", score="s", metrics=["ndcg"])["ndcg"].mean()
    assert bare == pre.ndcg(df, group="q", label="y", score="s", k=None)
    assert bare != pre.ndcg(df, group="q", label="y", score="s", k=10)  # groups of ~30 rows
    want = np.mean([ndcg_score([g["y"]], [g["s"]]) for _, g in df.groupby("q")])
    assert pre.ndcg(df, group="q", label="y", score="s", gain="linear") == pytest.approx(want, abs=1e-12)


# --------------------------------------------------------------------------------------------
# one rule for relevance and emptiness
# --------------------------------------------------------------------------------------------
@pytest.fixture
def zero_labels() -> pd.DataFrame:
    return pd.DataFrame({"q": [1, 1, 1, 2, 2], "y": [0, 0, 0, 2, 0], "s": [0.3, 0.2, 0.1, 0.1, 0.2]})


@pytest.mark.parametrize("empty", ["zero", "skip"])
def test_threshold_zero_makes_label_zero_relevant_for_every_metric(zero_labels, empty):
    metrics = ["mrr", "ndcg", "map", "precision@2", "recall@2", "hit_rate@2"]
    per = pre.per_group(zero_labels, group="q", label="y", score="s", metrics=metrics, threshold=0, empty=empty)
    # group 1: every row relevant (label 0 >= 0), no row gains anything: not empty for any metric
    assert per.loc[1].drop(["n", "positives", "weight"]).tolist() == [1.0, 1.0, 1.0, 1.0, 2 / 3, 1.0]
    assert per.loc[1, "positives"] == 3
    for m in metrics:
        func_kw = {"k": 2} if "@" in m else {}
        func = {"mrr": pre.mrr, "ndcg": pre.ndcg, "map": pre.average_precision, "precision@2": pre.precision,
                "recall@2": pre.recall, "hit_rate@2": pre.hit_rate}[m]
        r = func(zero_labels, group="q", label="y", score="s", threshold=0, empty=empty, **func_kw)
        assert r.coverage.n_empty == 0, m
        assert r.coverage.n_used == 2, m


def test_without_threshold_the_same_groups_are_empty_for_every_metric(zero_labels):
    empties = set()
    for func, kw in [(pre.mrr, {}), (pre.ndcg, {}), (pre.average_precision, {}), (pre.precision, {"k": 2}),
                     (pre.recall, {"k": 2}), (pre.hit_rate, {"k": 2})]:
        r = func(zero_labels, group="q", label="y", score="s", empty="skip", **kw)
        empties.add((r.coverage.n_empty, r.coverage.n_used))
        with pytest.raises(ValueError, match="1 of 2 groups have no relevant row"):
            func(zero_labels, group="q", label="y", score="s", empty="error", **kw)
    assert empties == {(1, 1)}


def test_ndcg_threshold_above_zero_rule(zero_labels):
    # threshold 3: label 2 is not relevant and gains nothing: both groups are empty
    r = pre.ndcg(zero_labels, group="q", label="y", score="s", threshold=3, empty="skip")
    m = pre.mrr(zero_labels, group="q", label="y", score="s", threshold=3, empty="skip")
    assert r.coverage.n_empty == m.coverage.n_empty == 2


# --------------------------------------------------------------------------------------------
# infinite scores on every engine
# --------------------------------------------------------------------------------------------
def test_infinite_scores_on_the_sklearn_engine_and_max_fpr():
    rng = np.random.default_rng(4)
    n = 200
    s = rng.normal(size=n)
    s[rng.random(n) < 0.1] = np.inf
    s[rng.random(n) < 0.1] = -np.inf
    df = pd.DataFrame({"g": rng.integers(0, 10, n), "y": rng.integers(0, 2, n), "s": s})
    finite = df.assign(s=np.clip(s, -1e6, 1e6))  # the same order and ties, no infinity
    for kw in ({}, {"implementation": "sklearn"}, {"max_fpr": 0.5}, {"implementation": "sklearn", "ties": "pessimistic"}):
        assert pre.gauc(df, group="g", label="y", score="s", **kw) == pytest.approx(
            pre.gauc(finite, group="g", label="y", score="s", **kw), abs=1e-12
        )
    assert pre.gauc(df, group="g", label="y", score="s", implementation="sklearn") == pytest.approx(
        pre.gauc(df, group="g", label="y", score="s"), abs=1e-12
    )
    assert pre.auc(df, label="y", score="s", max_fpr=0.3) == pytest.approx(
        roc_auc_score(df["y"], finite["s"], max_fpr=0.3), abs=1e-12
    )


# --------------------------------------------------------------------------------------------
# found by the fuzz test
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["uint64", "int64", "UInt64"])
def test_group_keys_near_the_top_of_their_dtype(dtype):
    top = 2**63 if dtype.lower() == "uint64" else 2**62
    keys = pd.array([top, top, top + 1, top + 1, top + 2], dtype=dtype)
    df = pd.DataFrame({"g": keys, "y": [1, 0, 1, 0, 1], "s": [0.1, 0.2, 0.4, 0.3, 0.5]})
    per = pre.per_group(df, group="g", label="y", score="s", metrics=["auc", "mrr"])
    assert list(per.index) == [top, top + 1, top + 2]
    assert per["auc"].tolist()[:2] == [0.0, 1.0]
    two = pre.per_group(df.assign(h=1), group=["g", "h"], label="y", score="s", metrics=["mrr"])
    assert list(two.index.get_level_values("g")) == [top, top + 1, top + 2]


@pytest.mark.parametrize("k", [2**63, 10**20])
def test_cutoffs_beyond_int64_are_the_whole_list(k):
    df = pd.DataFrame({"g": [1, 1, 1, 2, 2], "y": [1, 0, 1, 0, 1], "s": [0.5, 0.5, 0.2, 0.3, 0.3]})
    kw = dict(group="g", label="y", score="s")
    for func in (pre.mrr, pre.ndcg, pre.average_precision, pre.recall, pre.hit_rate):
        assert func(df, k=k, **kw) == func(df, k=3, **kw), func.__name__
    assert pre.precision(df, k=k, **kw) == pytest.approx(pre.precision(df, k=3, **kw) * 3 / k, rel=1e-12)
    assert pre.average_precision(df, k=k, denominator="min_k", **kw) == pre.average_precision(df, **kw)
    rep = pre.report(df, group="g", label="y", scores="s", metrics=[f"mrr@{k}", f"ndcg@{k}"])
    assert rep.iloc[0][f"mrr@{k}"] == pre.mrr(df, **kw)


@pytest.mark.parametrize("dtype", ["int8", "int16", "Int8", "uint8", "uint64"])
def test_graded_levels_of_small_and_unsigned_integer_labels(dtype):
    from pandas_rankeval.core.inputs.prepare import label_levels

    info = np.iinfo(np.dtype(dtype.lower()))
    y = np.array([info.min, info.min + 1, info.min + 3, info.max], dtype=dtype.lower()) if info.max - int(info.min) < 4096 \
        else np.array([info.max - 5, info.max - 3, info.max], dtype=dtype.lower())
    lv = label_levels(y, None, True)
    assert (np.diff(lv.level.astype(np.int64)) > 0).all()  # distinct, in order, no wrap-around
    assert lv.rel.tolist() == (y > 0).tolist()
