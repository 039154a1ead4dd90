"""The Dask engine equals pandas to 1e-12, raises pandas' errors before any compute, and reads its
input at most twice.

Every test builds a small pandas frame, runs the pandas function on it as the oracle and the Dask
function on a Dask DataFrame of the same rows, cut into 1, 7 or 32 partitions (rows shuffled, so
groups straddle partitions; or sorted by score, so runs of tied scores straddle them). Most tests
run on the synchronous scheduler; the ``on_dask_cluster`` ones on the session's LocalCluster
(tests/conftest.py).
"""

from __future__ import annotations

import math
import os
import uuid
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

dd = pytest.importorskip("dask.dataframe")
import dask  # noqa: E402

from pandas_rankeval import dask as prd  # noqa: E402

METRICS = ["auc", "gauc", "mrr", "ndcg@5", "map", "precision@3", "recall@3", "hit_rate@3"]
TOL = dict(check_exact=False, atol=1e-12, rtol=0)


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        yield


def frame(seed: int = 0, n_groups: int = 150, keys: str = "int") -> pd.DataFrame:
    """Long-tailed groups (1 to 15 rows, some with one class only), graded labels, tied scores."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 16, n_groups)
    ids = rng.permutation(n_groups) * 7 + 3
    q = np.repeat(ids, sizes)
    n = q.shape[0]
    df = pd.DataFrame(
        {
            "q": q,
            "rel": rng.integers(0, 3, n) * (rng.random(n) < 0.35),
            "a": np.round(rng.random(n), 1),  # ties everywhere
            "b": rng.normal(size=n),  # no ties
            "t": np.where(rng.random(n) < 0.4, 0.5, np.round(rng.random(n), 2)),  # 40% share one score
            "gmv": rng.random(n) * 10,
            "sw": rng.random(n) + 0.1,
            "pos": rng.permutation(n),  # a tie-break column
            "seg": np.where(q % 3 == 0, "x", "y"),  # constant within a group
        }
    ).sample(frac=1.0, random_state=seed)  # rows in log order: groups straddle partitions
    if keys == "str":
        df["q"] = "user-" + df["q"].astype(str)
    return df.reset_index(drop=True)


def ddf_of(df: pd.DataFrame, npartitions: int) -> dd.DataFrame:
    return dd.from_pandas(df, npartitions=npartitions, sort=False)


def straddling(df: pd.DataFrame, score: str, npartitions: int) -> dd.DataFrame:
    """Partitions of rows sorted by ``score``: every run of tied scores longer than a partition
    straddles a boundary (40% of the rows of column t share one score)."""
    ordered = df.sort_values(score, kind="stable").reset_index(drop=True)
    pieces = np.array_split(np.arange(len(ordered)), npartitions)
    runs = ordered[score].to_numpy()
    assert any(runs[p[-1]] == runs[p[-1] + 1] for p in pieces[:-1])  # the test's own premise
    return dd.from_pandas(ordered, npartitions=npartitions, sort=False)


def assert_table(got, want) -> None:
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(got, want, **TOL)
    assert got.attrs.get("params") == want.attrs.get("params")


def assert_result(got, want) -> None:
    assert isinstance(got, pre.MetricResult)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert abs(float(got) - float(want)) <= 1e-12
    assert got.metric == want.metric
    assert got.params == want.params
    g, w = got.coverage.as_dict(), want.coverage.as_dict()
    for k in w:
        assert g[k] == pytest.approx(w[k], abs=1e-12), k


class Reads:
    """A Dask DataFrame over pandas pieces whose loader logs every partition it reads (to a file,
    so that copies of the loader in other threads or processes count too)."""

    def __init__(self, tmp_path, df: pd.DataFrame, npartitions: int) -> None:
        self.log = tmp_path / f"reads-{uuid.uuid4().hex}.log"
        self.pieces = [df.iloc[p] for p in np.array_split(np.arange(len(df)), npartitions)]
        self.npartitions = npartitions

    def __call__(self, i: int) -> pd.DataFrame:
        with open(self.log, "a") as f:
            f.write(f"{i}\n")
        return self.pieces[i]

    @property
    def frame(self) -> dd.DataFrame:
        return dd.from_map(self, range(self.npartitions), meta=self.pieces[0].iloc[:0])

    @property
    def count(self) -> int:
        return len(self.log.read_text().split()) if os.path.exists(self.log) else 0


# --------------------------------------------------------------------------- #
# Exactness
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("keys", ["int", "str"])
@pytest.mark.parametrize("npartitions", [1, 7, 32])
def test_report_equals_pandas(npartitions, keys):
    df = frame(npartitions, keys=keys)
    kw = dict(group="q", label="rel", scores=["a", "b", "t"], metrics=METRICS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.report(df, **kw)
        got = prd.report(ddf_of(df, npartitions), **kw)
    assert_table(got, want)


@pytest.mark.parametrize(
    "ties,npartitions", [("expected", 7), ("pessimistic", 7), ("optimistic", 7), ("expected", 32)]
)
def test_global_auc_with_ties_across_partitions(ties, npartitions):
    """Runs of tied scores straddle the input partitions, and (with 32 score ranges over a
    column of ~100 distinct values) the cut points of the score pass fall on tied values."""
    df = frame(11)
    ddf = straddling(df, "t", npartitions)
    kw = dict(group="q", label="rel", scores=["t", "a", "b"], metrics=["auc"], ties=ties)
    assert_table(prd.report(ddf, **kw, npartitions=npartitions), pre.report(df, **kw))
    assert_result(prd.auc(ddf, label="rel", score="t", ties=ties), pre.auc(df, label="rel", score="t", ties=ties))


AUC_OPTIONS = [
    dict(),
    dict(ties="pessimistic"),
    dict(ties="optimistic", threshold=2),
    dict(tiebreak="pos"),
    dict(tiebreak="pos", ties="pessimistic"),
    dict(sample_weight="sw"),
    dict(sample_weight="sw", ties="optimistic"),
    dict(threshold=1.5, sample_weight="sw", tiebreak="pos"),
]


@pytest.mark.parametrize("opts", AUC_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_auc_options(opts):
    df = frame(3)
    ddf = ddf_of(df, 7)
    assert_result(prd.auc(ddf, label="rel", score="t", **opts), pre.auc(df, label="rel", score="t", **opts))
    assert_result(
        prd.gauc(ddf, group="q", label="rel", score="t", **opts),
        pre.gauc(df, group="q", label="rel", score="t", **opts),
    )


WEIGHTS = {
    "count": "count",
    "clicks": "clicks",
    "log1p": "log1p",
    "uniform": "uniform",
    "column": "gmv",
    "series": "SERIES",
    "callable": lambda stats: np.sqrt(stats["n"]) + stats["positives"],
}


@pytest.mark.parametrize("keys", ["int", "str"])
@pytest.mark.parametrize("weight", list(WEIGHTS))
def test_weights(weight, keys):
    df = frame(4, keys=keys)
    w = WEIGHTS[weight]
    if w == "SERIES":
        ids = df["q"].drop_duplicates()
        w = pd.Series(np.arange(len(ids)) % 5 + 0.5, index=ids.to_numpy())
    kw = dict(group="q", label="rel", scores=["a", "t"], metrics=["gauc", "mrr", "ndcg@5"], weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf_of(df, 7), **kw), pre.report(df, **kw))


GROUP_OPTIONS = [
    dict(min_size=4),
    dict(min_pos=2, min_neg=3),
    dict(threshold=2),
    dict(ties="pessimistic", tiebreak="pos"),
    dict(ties="optimistic"),
    dict(gain="linear"),
    dict(denominator="min_k"),
    dict(empty="skip"),
]


@pytest.mark.parametrize("opts", GROUP_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_report_options(opts):
    df = frame(5)
    kw = dict(group="q", label="rel", scores=["a", "b"], metrics=METRICS, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf_of(df, 7), **kw), pre.report(df, **kw))


def test_single_metric_functions():
    df = frame(6)
    ddf = ddf_of(df, 7)
    g = dict(group="q", label="rel", score="a")
    cases = [
        ("gauc", dict(weight="uniform", min_size=2)),
        ("gauc", dict(sample_weight="sw")),
        ("mrr", dict()),
        ("mrr", dict(k=3, empty="skip")),
        ("ndcg", dict()),
        ("ndcg", dict(k=None, gain="linear", threshold=2)),
        ("average_precision", dict(k=5, denominator="min_k")),
        ("precision", dict(k=2)),
        ("recall", dict(k=4, weight="count")),
        ("hit_rate", dict(k=1, tiebreak="pos")),
    ]
    for name, opts in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pre.CoverageWarning)
            want = getattr(pre, name)(df, **g, **opts)
            got = getattr(prd, name)(ddf, **g, **opts)
        assert_result(got, want)
    assert prd.map is prd.average_precision


def test_segments():
    df = frame(7)
    kw = dict(group="q", label="rel", scores=["a", "t"], metrics=METRICS, by="seg")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf_of(df, 7), **kw), pre.report(df, **kw))
        kw["metrics"] = ["auc"]
        assert_table(prd.report(ddf_of(df, 7), **kw), pre.report(df, **kw))


@pytest.mark.parametrize("by", [None, "seg"])
def test_intervals_and_compare_equal_pandas(by):
    """The hashed group bootstrap and sign flips: replicate weights come from (seed, group key),
    so 1 and 7 partitions give pandas' intervals and p-values for the same seed, to 1e-12."""
    df = frame(20, keys="str")
    kw = dict(group="q", label="rel", metrics=["gauc", "mrr", "ndcg@5"], by=by, n_boot=200, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.report(df, scores=["a", "b"], ci=0.9, **kw)
        assert "gauc_low" in want.columns
        for n in (1, 7):
            got = prd.report(ddf_of(df, n), scores=["a", "b"], ci=0.9, **kw)
            assert_table(got, want)
            assert got.attrs["ci"] == want.attrs["ci"]
        want = pre.compare(df, scores=["a", "b", "t"], baseline="a", **kw)
        got = prd.compare(ddf_of(df, 7), scores=["a", "b", "t"], baseline="a", **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), **TOL)
    assert got.attrs == want.attrs


@pytest.mark.parametrize("n_groups", [40, 400])
def test_signflip_pvalues_all_pairs_and_adjustments_equal_pandas(n_groups):
    """The default sign-flip p-values come from additive sums (counts, sum a, a^2, a^4, the
    largest |a|, the smallest): exact on few groups, the tail approximation on many; all pairs,
    a copy of a model, Holm / BH / none per table or metric: pandas' table to 1e-12."""
    df = frame(23, n_groups=n_groups)
    df["copy"] = df["b"]
    kw = dict(group="q", label="rel", scores=["a", "b", "t", "copy"], metrics=["auc", "gauc", "mrr", "ndcg@5"],
              by="seg", n_boot=50, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        # BH per metric on 7 partitions, all pairs with Holm on 1 and 7; the adjustments act on the
        # finished table, the same code for every engine (adjust="none" is pinned on pandas)
        for extra, parts in (({"baseline": "a", "adjust": "bh", "family": "metric"}, (7,)), ({"baseline": None}, (1, 7))):
            want = pre.compare(df, **kw, **extra)
            for n in parts:
                got = prd.compare(ddf_of(df, n), **kw, **extra)
                pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), **TOL)
                assert got.attrs == want.attrs
    assert len(want) == 2 * 6 * 4  # segments x pairs x metrics
    copy_rows = want.xs(("copy", "b"), level=("model", "baseline"))
    assert (copy_rows["p_value"] == 1).all() and not copy_rows["significant"].any()


@pytest.mark.parametrize("by", [None, "seg"])
def test_delong_interval_and_compare_of_global_auc_equal_pandas(by):
    """Clustered DeLong for global AUC (pandas' default auc_method): every row's global placement
    comes from the chained score ranges, so 1 and 7 partitions, and runs of tied scores that
    straddle partitions, give pandas' interval and p-values to 1e-12."""
    df = frame(21, keys="str")
    kw = dict(group="q", label="rel", metrics=["auc", "gauc"], by=by, n_boot=50, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.report(df, scores=["a", "b", "t"], ci=0.9, **kw)
        assert "clustered DeLong" in str(want.attrs["ci"]["method"])
        for ddf in (ddf_of(df, 1), ddf_of(df, 7), straddling(df, "t", 7)):
            got = prd.report(ddf, scores=["a", "b", "t"], ci=0.9, **kw)
            assert_table(got, want)
            assert got.attrs["ci"] == want.attrs["ci"]
        want = pre.compare(df, scores=["a", "b", "t"], baseline="t", **kw)
        assert pd.DataFrame(want)["p_value"].notna().all()
        for ddf in (ddf_of(df, 1), straddling(df, "t", 7)):
            got = prd.compare(ddf, scores=["a", "b", "t"], baseline="t", **kw)
            pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), **TOL)
            assert got.attrs == want.attrs


def test_delong_with_tiebreak_and_missing_values_equal_pandas():
    df = frame(22)
    df.loc[df.index[::17], "t"] = np.nan
    kw = dict(group="q", label="rel", scores=["a", "t"], baseline="a", metrics=["auc"], tiebreak="pos", nan_policy="omit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.compare(df, **kw)
        got = prd.compare(ddf_of(df, 5), **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), **TOL)


def test_missing_values_counted_over_the_table():
    df = frame(8)
    df.loc[[1, 50, 99, 300], "a"] = np.nan
    df.loc[[7], "rel"] = np.nan
    ddf = ddf_of(df, 7)
    kw = dict(group="q", label="rel", scores=["a", "b"], metrics=METRICS)
    with pytest.raises(ValueError) as want:
        pre.report(df, **kw)
    with pytest.raises(ValueError) as got:
        prd.report(ddf, **kw)
    assert str(got.value) == str(want.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf, **kw, nan_policy="omit"), pre.report(df, **kw, nan_policy="omit"))
        assert_result(
            prd.auc(ddf, label="rel", score="a", nan_policy="omit"),
            pre.auc(df, label="rel", score="a", nan_policy="omit"),
        )


def test_empty_partitions_and_one_row_groups():
    df = frame(9)
    ddf = ddf_of(df, 8)
    ddf = ddf[ddf["q"] % 2 == 1]  # whole partitions may end up empty
    sub = df[df["q"] % 2 == 1]
    kw = dict(group="q", label="rel", scores=["a"], metrics=METRICS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf, **kw), pre.report(sub, **kw))
    one = pd.DataFrame({"q": [1, 2, 3], "rel": [1, 0, 1], "a": [0.1, 0.2, 0.3]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf_of(one, 2), **kw), pre.report(one, **kw))


def test_per_group_is_lazy_and_equals_pandas():
    df = frame(10)
    got = prd.per_group(ddf_of(df, 7), group="q", label="rel", score="a", metrics=["auc", "mrr", "ndcg@3"])
    assert isinstance(got, dd.DataFrame)
    want = pre.per_group(df, group="q", label="rel", score="a", metrics=["auc", "mrr", "ndcg@3"])
    pd.testing.assert_frame_equal(got.compute().sort_index(), want.sort_index(), **TOL)


def test_warnings_as_pandas():
    """The same CoverageWarnings as pandas (text and count): none, one, or a NaN result."""
    skewed = pd.DataFrame({"q": [1] * 6 + [2] * 2, "rel": [1] * 6 + [1, 0], "a": np.arange(8.0)})
    one_class = skewed.assign(rel=1)
    frames = [("skewed", skewed), ("one class", one_class), ("tied", frame(19))]
    calls = [
        ("gauc", dict(group="q", label="rel", score="a")),
        ("auc", dict(label="rel", score="a")),
        ("mrr", dict(group="q", label="rel", score="a", empty="skip")),
        ("report", dict(group="q", label="rel", scores=["a"], metrics=["auc", "gauc", "mrr"])),
    ]
    warned = 0
    for _, df in frames:
        for name, kw in calls:
            with warnings.catch_warnings(record=True) as want:
                warnings.simplefilter("always")
                getattr(pre, name)(df, **kw)
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter("always")
                getattr(prd, name)(ddf_of(df, 3), **kw)
            # one public function: the same warnings, word for word
            assert [str(w.message) for w in got] == [str(w.message) for w in want]
            assert all(w.category is pre.CoverageWarning for w in got)
            warned += len(want)
    assert warned >= 3  # the premise: pandas does warn on some of these


# --------------------------------------------------------------------------- #
# Bad input: pandas' errors, before any compute
# --------------------------------------------------------------------------- #
BAD = [
    ("text scores", dict(scores=["a_text"]), TypeError, r"Column 'a_text' \(score\) must be numeric or bool"),
    ("text labels", dict(label="rel_text"), TypeError, r"Column 'rel_text' \(label\) must be numeric or bool"),
    ("missing column", dict(scores=["aa"]), KeyError, r"not found: \['aa'\]"),
    ("unknown metric", dict(metrics=["ndgc@10"]), ValueError, r"Unknown metric 'ndgc@10'"),
    ("bad ties", dict(ties="random"), ValueError, r"The 'ties' parameter of .*report must be one of"),
    ("bad weight", dict(weight="gmvv"), KeyError, r"Got 'gmvv', which is neither"),
    ("text weight column", dict(weight="seg"), TypeError, r"Column 'seg' \(weight\) must be numeric"),
    ("bad ci", dict(ci=1.5), ValueError, r"The 'ci' parameter of .*report must be a float"),
]


@pytest.mark.parametrize("what,kw,exc,match", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_pandas_error_before_compute(tmp_path, what, kw, exc, match):
    df = frame(12).assign(a_text=lambda d: d["a"].astype(str), rel_text=lambda d: d["rel"].astype(str))
    src = Reads(tmp_path, df, 4)
    args = dict(group="q", label="rel", scores=["a"], metrics=["auc", "gauc"]) | kw
    with pytest.raises(exc, match=match):
        pre.report(df, **args)
    with pytest.raises(exc, match=match):
        prd.report(src.frame, **args)
    assert src.count == 0


def test_options_without_exact_distributed_form(tmp_path):
    df = frame(13)
    src = Reads(tmp_path, df, 4)
    with pytest.raises(ValueError, match="max_fpr"):
        prd.auc(src.frame, label="rel", score="a", max_fpr=0.5)
    with pytest.raises(ValueError, match="bootstrap ci.*auc_method='bootstrap'"):
        prd.report(src.frame, group="q", label="rel", scores=["a"], metrics=["auc"], ci=0.9, auc_method="bootstrap")
    with pytest.raises(ValueError, match="bootstrap ci.*ties='pessimistic'"):
        prd.report(src.frame, group="q", label="rel", scores=["a"], metrics=["auc"], ci=0.9, ties="pessimistic")
    with pytest.raises(ValueError, match="resample='multinomial' has no distributed form"):
        prd.report(src.frame, group="q", label="rel", scores=["a"], metrics=["gauc"], ci=0.9, resample="multinomial")
    with pytest.raises(ValueError, match="compare on a Dask frame: a bootstrap compare of global 'auc'"):
        prd.compare(
            src.frame, group="q", label="rel", scores=["a", "b"], baseline="a", metrics=["auc", "gauc"],
            auc_method="bootstrap",
        )
    with pytest.raises(TypeError, match="expects a Dask DataFrame.*pandas_rankeval.report"):
        prd.report(df, group="q", label="rel", scores=["a"])
    with pytest.raises(ValueError, match="'npartitions' engine option of report"):
        prd.report(src.frame, group="q", label="rel", scores=["a"], npartitions=0)
    assert src.count == 0


def test_empty_and_error_counts_over_the_table():
    df = frame(14)
    ddf = ddf_of(df, 7)
    kw = dict(group="q", label="rel", score="a", empty="error")
    with pytest.raises(ValueError) as want:
        pre.mrr(df, **kw)
    with pytest.raises(ValueError) as got:
        prd.mrr(ddf, **kw)
    assert str(got.value) == str(want.value)  # the whole table's count, not one partition's
    empty = ddf[ddf["q"] < 0]
    with pytest.raises(ValueError, match="empty"):
        prd.gauc(empty, group="q", label="rel", score="a")


# --------------------------------------------------------------------------- #
# Passes over the input
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "metrics,scores,passes",
    [
        (["auc", "gauc", "mrr", "ndcg@10"], ["a", "b"], 2),
        (["auc", "gauc"], ["a", "b", "t"], 2),
        (["gauc", "ndcg@10"], ["a", "b"], 1),
        (["auc"], ["a"], 2),
    ],
)
def test_input_read_at_most_twice(tmp_path, metrics, scores, passes):
    """A report of M scores reads every input partition at most M + 1 times; in fact twice with
    global AUC (group pass + score pass) and once without."""
    df = frame(15)
    src = Reads(tmp_path, df, 6)
    got = prd.report(src.frame, group="q", label="rel", scores=scores, metrics=metrics, nan_policy="omit")
    assert src.count == passes * src.npartitions <= (len(scores) + 1) * src.npartitions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(got, pre.report(df, group="q", label="rel", scores=scores, metrics=metrics, nan_policy="omit"))


@pytest.mark.parametrize("kind", ["report", "compare"])
def test_delong_of_global_auc_reads_the_input_twice(tmp_path, kind):
    """An interval or test of global AUC (clustered DeLong) reads the input twice: the score pass
    (its cut points sampled from the distinct keys it counted), then the rows merged with their
    global placements, shuffled by group once (no group pass before the score pass)."""
    df = frame(16)
    src = Reads(tmp_path, df, 6)
    kw = dict(group="q", label="rel", scores=["a", "b"], metrics=["auc", "gauc"], n_boot=20)
    if kind == "report":
        got = prd.report(src.frame, ci=0.9, **kw)
    else:
        got = prd.compare(src.frame, baseline="a", **kw)
    assert src.count == 2 * src.npartitions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.report(df, ci=0.9, **kw) if kind == "report" else pre.compare(df, baseline="a", **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), **TOL)


# --------------------------------------------------------------------------- #
# The accessor
# --------------------------------------------------------------------------- #
def test_accessor():
    df = frame(16)
    ddf = ddf_of(df, 3)
    assert abs(ddf.rank.gauc(group="q", label="rel", score="a") - pre.gauc(df, group="q", label="rel", score="a")) <= 1e-12
    assert abs(ddf.rankeval.map(group="q", label="rel", score="b") - df.rank.map(group="q", label="rel", score="b")) <= 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(
            ddf.rank.report(group="q", label="rel", scores=["a"], metrics=["auc", "mrr"]),
            df.rank.report(group="q", label="rel", scores=["a"], metrics=["auc", "mrr"]),
        )
    assert "ndcg" in dir(ddf.rank) and "per_group" in dir(ddf.rankeval)
    assert "engine_options" in str(__import__("inspect").signature(ddf.rank.report))
    assert ddf.rank.auc.__doc__ == pre.auc.__doc__
    with pytest.raises(AttributeError, match="The metrics are"):
        ddf.rank.gaucc  # noqa: B018


# --------------------------------------------------------------------------- #
# On a LocalCluster (processes, small memory limit)
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("keys", ["int", "str"])
def test_report_on_local_cluster(on_dask_cluster, keys):
    df = frame(17, n_groups=400, keys=keys)
    kw = dict(group="q", label="rel", scores=["a", "t"], metrics=METRICS, by="seg")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_table(prd.report(ddf_of(df, 7), **kw), pre.report(df, **kw))


def test_per_group_and_auc_on_local_cluster(on_dask_cluster):
    df = frame(18)
    ddf = straddling(df, "t", 5)
    assert_result(prd.auc(ddf, label="rel", score="t", tiebreak="pos"), pre.auc(df, label="rel", score="t", tiebreak="pos"))
    got = prd.per_group(ddf, group="q", label="rel", score="t", metrics=["auc", "ndcg@3"]).compute()
    want = pre.per_group(df, group="q", label="rel", score="t", metrics=["auc", "ndcg@3"])
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), **TOL)


def test_old_module_keeps_its_signatures():
    """pandas_rankeval.dask's functions forward to the one public function: the same parameters
    (names, order, defaults), with ``engine_options`` replaced by the old keyword ``npartitions``."""
    import inspect

    for name in ("auc", "gauc", "mrr", "ndcg", "average_precision", "precision", "recall", "hit_rate",
                 "per_group", "report", "compare"):
        want = inspect.signature(getattr(pre, name)).parameters
        got = inspect.signature(getattr(prd, name)).parameters
        assert list(got) == [*[p for p in want if p != "engine_options"], "npartitions"], name
        for p in want:
            if p != "engine_options":
                assert got[p].default == want[p].default, (name, p)
    assert prd.map is prd.average_precision


def test_int64_and_float32_scores_keep_their_order():
    """Scores above 2**53 that float64 would merge, float32 scores, -0.0 against 0.0: the score
    pass ranks them as pandas does."""
    rng = np.random.default_rng(21)
    n = 600
    df = pd.DataFrame(
        {
            "q": rng.integers(0, 40, n),
            "rel": rng.integers(0, 2, n),
            "big": (2**60 + rng.integers(0, 8, n)).astype(np.int64),  # 8 values, one float64
            "f32": rng.integers(-3, 4, n).astype(np.float32) / np.float32(3),
            "zero": np.where(rng.random(n) < 0.5, -0.0, 0.0),
        }
    )
    for score in ("big", "f32", "zero"):
        assert_result(prd.auc(ddf_of(df, 5), label="rel", score=score), pre.auc(df, label="rel", score=score))


def test_delong_compare_on_local_cluster(on_dask_cluster):
    """The persisted range shuffle and the placement merge also run on the session's LocalCluster."""
    df = frame(23)
    kw = dict(group="q", label="rel", scores=["a", "t"], baseline="a", metrics=["auc"], by="seg")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        got = prd.compare(straddling(df, "t", 5), **kw)
        want = pre.compare(df, **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want), **TOL)
