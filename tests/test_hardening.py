"""Issue 10: the inputs that used to get a wrong number or an unhelpful error.

Each test pins the fixed behaviour: numeric fixes against an independent oracle
(sklearn, or the same metric on an exactly equivalent input), error fixes by the
message a person reads.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import ndcg_score, roc_auc_score

import pandas_rankeval as pre
from pandas_rankeval import ColumnNotFoundError

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")

LIST_METRICS = ["mrr", "ndcg", "map", "precision@2", "recall@2", "hit_rate@2"]
ALL_METRICS = ["auc", "gauc", *LIST_METRICS, "mrr@2", "ndcg@2", "map@2"]


# --------------------------------------------------------------------------------------------
# 1. sample weights that sum to 0 in a group
# --------------------------------------------------------------------------------------------
@pytest.fixture
def zero_weight_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"g": [1, 1, 2, 2], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8], "w": [1.0, 1.0, 0.0, 0.0]}
    )


@pytest.mark.parametrize("engine", ["numpy", "sklearn"])
def test_group_with_zero_sample_weight_is_skipped_with_its_own_reason(zero_weight_frame, engine):
    r = pre.gauc(zero_weight_frame, group="g", label="y", score="s", sample_weight="w", engine=engine)
    assert float(r) == 1.0  # group 1 alone; group 2 has no weighted pair
    assert r.coverage.n_used == 1
    assert r.coverage.n_zero_weight == 1
    assert r.coverage.n_only_pos == r.coverage.n_only_neg == r.coverage.n_filtered == 0
    assert "1 zero sample weight" in str(r.coverage)


@pytest.mark.parametrize("engine", ["numpy", "sklearn"])
def test_zero_weight_of_one_class_only_also_skips(engine):
    # the positives of group 2 weigh 0, its negatives do not: still no weighted pair
    df = pd.DataFrame(
        {"g": [1, 1, 1, 2, 2, 2], "y": [1, 0, 0, 1, 0, 0], "s": [3, 2, 1, 1, 2, 3],
         "w": [1.0, 2.0, 1.0, 0.0, 1.0, 1.0]}
    )
    r = pre.gauc(df, group="g", label="y", score="s", sample_weight="w", engine=engine, weight="uniform")
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
# 2. integer scores above 2**53 are ranked as integers
# --------------------------------------------------------------------------------------------
def test_issue_example_int64_scores():
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
    for engine in ("numpy", "sklearn"):
        got = pre.gauc(df, group="g", label="y", score="s", weight="uniform", engine=engine)
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
# 3. huge labels: a clear error for exp2 gains, exact relevance for integers
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
# 4. ndcg without k is the whole list, everywhere
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
# 5. one rule for relevance and emptiness
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
# 6. a weight name that is also a column
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["count", "clicks", "log1p", "uniform"])
@pytest.mark.parametrize("func", [pre.gauc, pre.mrr])
def test_weight_name_that_is_also_a_column_is_an_error(name, func):
    df = pd.DataFrame({"g": [1, 1, 2, 2], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8], name: [5, 5, 1, 1]})
    with pytest.raises(ValueError, match=rf"The 'weight' parameter of {func.__name__} is '{name}', which is both a "
                       rf"weight name .* and a column of the frame.*df\.groupby\('g'\)\['{name}'\]\.sum\(\).*lambda stats"):
        func(df, group="g", label="y", score="s", weight=name)
    with pytest.raises(ValueError, match="both a weight name"):
        pre.report(df, group="g", label="y", scores="s", metrics=["gauc"], weight=name)
    func(df, group="g", label="y", score="s")  # the default is not ambiguous: nobody named it


def test_the_fixes_in_the_weight_message_work():
    df = pd.DataFrame({"g": [1, 1, 2, 2, 2], "y": [1, 0, 1, 0, 0], "s": [0.9, 0.1, 0.2, 0.8, 0.1], "count": [5, 5, 1, 1, 1]})
    by_column = pre.gauc(df, group="g", label="y", score="s", weight=df.groupby("g")["count"].sum())
    by_rows = pre.gauc(df, group="g", label="y", score="s", weight=lambda stats: stats["n"])
    assert by_column == pytest.approx((10 * 1.0 + 3 * 0.5) / 13)
    assert by_rows == pytest.approx((2 * 1.0 + 3 * 0.5) / 5)
    assert by_rows == pre.gauc(df.drop(columns="count"), group="g", label="y", score="s", weight="count")


# --------------------------------------------------------------------------------------------
# 7. duplicate names, MultiIndex columns, tuple names
# --------------------------------------------------------------------------------------------
def test_duplicate_column_names():
    df = pd.DataFrame([[1, 1, 0.5, 0.1], [1, 0, 0.2, 0.3]], columns=["g", "y", "s", "s"])
    with pytest.raises(ValueError, match=r"Column 's' appears 2 times in the frame.*df\.loc\[:, ~df\.columns\.duplicated\(\)\]"):
        pre.auc(df, label="y", score="s")
    with pytest.raises(ValueError, match=r"Column 's' appears 2 times"):
        pre.report(df, group="g", label="y", scores=["s"], metrics=["gauc"])


@pytest.fixture
def multi() -> pd.DataFrame:
    df = pd.DataFrame({"g": [1, 1, 1, 2, 2], "y": [1, 0, 0, 0, 1], "s": [0.9, 0.5, 0.1, 0.3, 0.2]})
    out = df.copy()
    out.columns = pd.MultiIndex.from_tuples([("k", "g"), ("k", "y"), ("m", "s")])
    return out


def test_multiindex_columns_are_named_by_full_tuples(multi):
    flat = pd.DataFrame({"g": [1, 1, 1, 2, 2], "y": [1, 0, 0, 0, 1], "s": [0.9, 0.5, 0.1, 0.3, 0.2]})
    kw = dict(group=("k", "g"), label=("k", "y"))
    assert pre.gauc(multi, score=("m", "s"), **kw) == pre.gauc(flat, group="g", label="y", score="s")
    assert pre.mrr(multi, score=("m", "s"), **kw) == pre.mrr(flat, group="g", label="y", score="s")
    rep = pre.report(multi, scores=[("m", "s")], metrics=["gauc", "ndcg"], **kw)
    assert rep.iloc[0]["gauc"] == pre.gauc(flat, group="g", label="y", score="s")
    rep2 = pre.report(multi, scores=("m", "s"), metrics=["gauc"], **kw)  # a tuple that is a column
    assert rep2.iloc[0]["gauc"] == rep.iloc[0]["gauc"]
    per = pre.per_group(multi, score=("m", "s"), metrics=["auc"], **kw)
    assert per.index.name == ("k", "g")


def test_partial_multiindex_key_is_a_clear_error(multi):
    with pytest.raises(ColumnNotFoundError, match=r"Column 'k' names 2 columns of the MultiIndex columns, not one.*\('k', 'g'\)"):
        pre.gauc(multi, group="k", label=("k", "y"), score=("m", "s"))


def test_tuple_column_name_in_flat_columns_is_one_column():
    df = pd.DataFrame({("k", "g"): [1, 1, 2, 2], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.8, 0.2]})
    assert pre.gauc(df, group=("k", "g"), label="y", score="s") == 1.0
    # a tuple that is not a column is a list of columns, as before
    two = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 1, 1, 1], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8]})
    assert pre.per_group(two, group=("a", "b"), label="y", score="s").index.names == ["a", "b"]


# --------------------------------------------------------------------------------------------
# 8. messages that name the parameter
# --------------------------------------------------------------------------------------------
@pytest.fixture
def small() -> pd.DataFrame:
    return pd.DataFrame({"g": [1, 1, 2, 2, 3, 3], "y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8, 0.5, 0.4]})


@pytest.mark.parametrize("seed", ["x", -1, 1.5, True])
def test_bad_seed_names_the_parameter(small, seed):
    with pytest.raises(ValueError, match=r"The 'seed' parameter of report must be an int in the range \[0, inf\)"):
        pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=0.9, seed=seed)
    with pytest.raises(ValueError, match=r"The 'seed' parameter of compare"):
        pre.compare(small.assign(t=small["s"]), group="g", label="y", scores=["s", "t"], baseline="s", metrics=["gauc"], seed=seed)


def test_good_seeds_are_accepted(small):
    for seed in (None, 0, np.int64(3), np.random.default_rng(1), np.random.SeedSequence(2)):
        pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=0.9, n_boot=20, seed=seed)


@pytest.mark.parametrize("metrics", [None, 5, {"gauc": 1}])
def test_bad_metrics_names_the_parameter(small, metrics):
    with pytest.raises(TypeError, match=r"The 'metrics' parameter must be a metric name or a list of names"):
        pre.report(small, group="g", label="y", scores="s", metrics=metrics)
    with pytest.raises(TypeError, match=r"The 'metrics' parameter"):
        pre.per_group(small, group="g", label="y", score="s", metrics=metrics)


def test_values_instead_of_column_names(small):
    with pytest.raises(TypeError, match=r"The 'label' parameter of auc must be a column name; got a pandas Series \(named 'y', 6 values\)\. Pass the column's name instead: label='y'"):
        pre.auc(small, label=small["y"], score="s")
    with pytest.raises(TypeError, match=r"The 'score' parameter of auc takes one column name; got \['s'\]\. Pass score='s', or use report"):
        pre.auc(small, label="y", score=["s"])
    with pytest.raises(TypeError, match=r"The 'score' parameter of gauc must be a column name; got a ndarray"):
        pre.gauc(small, group="g", label="y", score=small["s"].to_numpy())
    with pytest.raises(TypeError, match=r"The 'group' parameter of mrr must be a column name or a list of column names.*pandas Series"):
        pre.mrr(small, group=small["g"], label="y", score="s")
    with pytest.raises(TypeError, match=r"The 'label' parameter of auc must be a column name; got None\.$"):
        pre.auc(small, label=None, score="s")
    with pytest.raises(TypeError, match=r"The 'sample_weight' parameter of auc must be a column name"):
        pre.auc(small, label="y", score="s", sample_weight=np.ones(6))
    with pytest.raises(TypeError, match=r"The 'tiebreak' parameter of ndcg takes one column name; got \[1, 2\]\. Name one column\."):
        pre.ndcg(small, group="g", label="y", score="s", tiebreak=[1, 2])


def test_non_numeric_weights_name_the_weight(small):
    with pytest.raises(TypeError, match=r"The 'weight' Series of gauc must give numbers .*\['a', 'b', 'c'\]"):
        pre.gauc(small, group="g", label="y", score="s", weight=pd.Series(["a", "b", "c"], index=[1, 2, 3]))
    with pytest.raises(TypeError, match=r"The 'weight' callable of mrr must give numbers .*'x'"):
        pre.mrr(small, group="g", label="y", score="s", weight=lambda stats: ["x"] * len(stats))


# --------------------------------------------------------------------------------------------
# 9. infinite scores on every engine
# --------------------------------------------------------------------------------------------
def test_infinite_scores_on_the_sklearn_engine_and_max_fpr():
    rng = np.random.default_rng(4)
    n = 200
    s = rng.normal(size=n)
    s[rng.random(n) < 0.1] = np.inf
    s[rng.random(n) < 0.1] = -np.inf
    df = pd.DataFrame({"g": rng.integers(0, 10, n), "y": rng.integers(0, 2, n), "s": s})
    finite = df.assign(s=np.clip(s, -1e6, 1e6))  # the same order and ties, no infinity
    for kw in ({}, {"engine": "sklearn"}, {"max_fpr": 0.5}, {"engine": "sklearn", "ties": "pessimistic"}):
        assert pre.gauc(df, group="g", label="y", score="s", **kw) == pytest.approx(
            pre.gauc(finite, group="g", label="y", score="s", **kw), abs=1e-12
        )
    assert pre.gauc(df, group="g", label="y", score="s", engine="sklearn") == pytest.approx(
        pre.gauc(df, group="g", label="y", score="s"), abs=1e-12
    )
    assert pre.auc(df, label="y", score="s", max_fpr=0.3) == pytest.approx(
        roc_auc_score(df["y"], finite["s"], max_fpr=0.3), abs=1e-12
    )


# --------------------------------------------------------------------------------------------
# 10. parameter types, repeated scores, too few replicates, index levels
# --------------------------------------------------------------------------------------------
def test_numpy_float_levels_are_accepted(small):
    a = pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=np.float32(0.5), n_boot=20)
    b = pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=float(np.float32(0.5)), n_boot=20)
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))
    assert pre.gauc(small, group="g", label="y", score="s", max_fpr=np.float32(0.5)) == pre.gauc(
        small, group="g", label="y", score="s", max_fpr=0.5
    )


@pytest.mark.parametrize("value", [True, np.bool_(True), "0.5", 0, 1.5])
def test_max_fpr_rejects_bools_and_non_numbers(small, value):
    with pytest.raises(ValueError, match=r"The 'max_fpr' parameter of gauc must be a float in the range \(0, 1\]"):
        pre.gauc(small, group="g", label="y", score="s", max_fpr=value)


def test_repeated_score_columns_are_an_error(small):
    with pytest.raises(ValueError, match=r"The 'scores' parameter of report names a column more than once: \['s'\]"):
        pre.report(small, group="g", label="y", scores=["s", "s"], metrics=["gauc"])


@pytest.mark.parametrize("n_boot, ci", [(1, 0.95), (19, 0.95), (9, 0.9)])
def test_too_few_replicates_for_the_level(small, n_boot, ci):
    needed = 20 if ci == 0.95 else 10
    with pytest.raises(ValueError, match=rf"The 'n_boot' parameter of report is {n_boot}, too few for a {ci:.0%} interval.* = {needed} "):
        pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=ci, n_boot=n_boot)
    with pytest.raises(ValueError, match=r"The 'n_boot' parameter of compare"):
        pre.compare(small.assign(t=small["s"]), group="g", label="y", scores=["s", "t"], baseline="s",
                    metrics=["gauc"], ci=ci, n_boot=n_boot)
    pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=ci, n_boot=needed)


def test_group_may_be_an_index_level(small):
    expected = pre.gauc(small, group="g", label="y", score="s")
    indexed = small.set_index("g")
    before = indexed.copy()
    assert pre.gauc(indexed, group="g", label="y", score="s") == expected
    per = pre.per_group(indexed, group="g", label="y", score="s", metrics=["auc", "mrr"])
    pd.testing.assert_frame_equal(per, pre.per_group(small, group="g", label="y", score="s", metrics=["auc", "mrr"]))
    seg = small.assign(c=["a", "a", "b", "b", "b", "b"]).set_index(["g", "c"])
    rep = pre.report(seg, group="g", label="y", scores="s", metrics=["gauc"], by="c")
    assert list(rep.index.get_level_values("c")) == ["a", "b"]
    pd.testing.assert_frame_equal(indexed, before)  # the caller's frame is untouched
    with pytest.raises(ColumnNotFoundError, match=r"not found: \['h'\]"):
        pre.gauc(indexed, group="h", label="y", score="s")


# --------------------------------------------------------------------------------------------
# 11-13. the command line
# --------------------------------------------------------------------------------------------
def _cli(argv, capsys):
    from pandas_rankeval.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_error(code: int, err: str, pattern: str) -> None:
    import re

    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert re.search(pattern, lines[0]), lines[0]


@pytest.mark.parametrize(
    "body, pattern",
    [
        ("g,y,s\n1,1,0.5\n1,0,0.2,9\n2,1,0.3\n2,0,0.1\n",
         r"cannot read .*extra\.csv as CSV: .*Expected 3 fields in line 3, saw 4 \(a row has more fields than the header\)"),
        ("g,y,s\n1,1,0.5,7\n1,0,0.2,9\n2,1,0.3,1\n2,0,0.1,1\n",
         r"cannot read .*extra\.csv as CSV: its rows have more fields than its header \(3 names\)"),
    ],
    ids=["one-row", "every-row"],
)
def test_cli_rejects_rows_with_more_fields_than_the_header(tmp_path, capsys, body, pattern):
    path = tmp_path / "extra.csv"
    path.write_text(body)
    # plain pd.read_csv rejects the first file and shifts the second (its first column becomes
    # the index); reading only the needed columns used to accept both silently
    code, out, err = _cli([path, "--group", "g", "--label", "y", "--score", "s", "--metrics", "gauc"], capsys)
    _one_error(code, err, pattern)
    assert out == ""


def test_cli_reads_extra_columns_it_does_not_need(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    pd.DataFrame({"g": [1, 1, 2, 2], "note": ["a", "b,c", "d", "e"], "y": [1, 0, 1, 0],
                  "s": [0.9, 0.1, 0.2, 0.8]}).to_csv(path, index=False)
    code, out, err = _cli([path, "--group", "g", "--label", "y", "--score", "s", "--metrics", "gauc", "--format", "csv"], capsys)
    assert code == 0, err
    assert pd.read_csv(__import__("io").StringIO(out), index_col=0, comment="#").loc["s", "gauc"] == 0.5


@pytest.fixture
def roles_csv(tmp_path):
    path = tmp_path / "roles.csv"
    pd.DataFrame({"user": ["007", "007", "7", "7", "8", "8"], "click": [1, 0, 1, 0, 1, 0],
                  "score": [0.9, 0.5, 0.2, 0.8, 0.7, 0.1], "seg": [3, 3, 1, 1, 1, 1],
                  "count": [5, 5, 1, 1, 1, 1]}).to_csv(path, index=False)
    return path


def test_cli_column_in_two_roles_is_read_as_numbers(roles_csv, capsys):
    # --weight seg --by seg: the segment column is also the weight, which must be numeric
    code, out, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "seg",
                           "--by", "seg", "--metrics", "gauc", "--format", "csv"], capsys)
    assert code == 0, err
    table = pd.read_csv(__import__("io").StringIO(out), index_col=[0, 1], comment="#")
    assert table.loc[(3, "score"), "gauc"] == 1.0
    assert table.loc[(1, "score"), "gauc"] == 0.5
    # --label click --by click: the label is read as numbers; the error is the real problem
    code, out, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--by", "click"], capsys)
    _one_error(code, err, r"The 'by' column 'click' of report must be constant within each group")
    # keys used only as keys are still text: "007" and "7" are two users
    code, out, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--metrics", "gauc",
                           "--format", "json"], capsys)
    assert code == 0, err
    assert __import__("json").loads(out)["results"][0]["n_groups"] == 3


def test_cli_unknown_weight_names_the_option(roles_csv, capsys):
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "bogus"], capsys)
    _one_error(code, err, r"--weight 'bogus' is neither a weight name \(count, clicks, log1p, uniform\) nor a column of "
                          r".*roles\.csv; the columns are \['user', 'click', 'score', 'seg', 'count'\]")
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "clcks"], capsys)
    _one_error(code, err, r"--weight 'clcks' is neither a weight name .*; did you mean 'clicks'\?")


def test_cli_weight_name_that_is_also_a_column(roles_csv, capsys):
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "count"], capsys)
    _one_error(code, err, r"--weight count is ambiguous: it is a weight name \(the rows of each group\) and .* has a "
                          r"column 'count'\. .*rename the column")
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "clicks"], capsys)
    assert code == 0, err


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
