"""The Dask backend equals the single-machine engine, ties across partitions included."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import dask as prd

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")  # coverage is asserted, not warned about, here


dd = pytest.importorskip("dask.dataframe")

METRICS = ["auc", "gauc", "mrr", "ndcg@5", "map", "precision@3", "recall@3", "hit_rate@3"]


def frame(seed: int, n_groups: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_groups)
    q = np.repeat(rng.permutation(n_groups) * 7 + 3, sizes)
    n = q.shape[0]
    return pd.DataFrame(
        {
            "q": q,
            "rel": rng.integers(0, 3, n) * (rng.random(n) < 0.4),
            "a": np.round(rng.random(n), 1),  # heavy ties, across partitions too
            "b": rng.normal(size=n),
            "gmv": rng.random(n) * 10,
        }
    )


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("npartitions", [1, 3, 7])
@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
def test_report_equals_pandas(seed, npartitions, ties):
    df = frame(seed)
    ddf = dd.from_pandas(df, npartitions=npartitions)
    got = prd.report(ddf, group="q", label="rel", scores=["a", "b"], metrics=METRICS, ties=ties, npartitions=npartitions)
    want = pd.DataFrame(pre.report(df, group="q", label="rel", scores=["a", "b"], metrics=METRICS, ties=ties))
    pd.testing.assert_frame_equal(got, want[got.columns], check_exact=False, atol=1e-12, rtol=0)


@pytest.mark.parametrize("weight", ["uniform", "log1p", "gmv"])
def test_weights_and_filters(weight):
    df = frame(3)
    ddf = dd.from_pandas(df, npartitions=4)
    got = prd.report(ddf, group="q", label="rel", scores=["b"], metrics=["gauc", "mrr"], weight=weight, min_size=3)
    want = pd.DataFrame(pre.report(df, group="q", label="rel", scores=["b"], metrics=["gauc", "mrr"], weight=weight, min_size=3))
    pd.testing.assert_frame_equal(got, want, check_exact=False, atol=1e-12, rtol=0)


def test_string_and_multi_column_groups():
    df = frame(4).assign(country=lambda d: np.where(d["q"] % 2 == 0, "de", "fr"), q=lambda d: d["q"].astype(str))
    ddf = dd.from_pandas(df, npartitions=3)
    got = prd.report(ddf, group=["country", "q"], label="rel", scores=["a"], metrics=["gauc", "ndcg@5"])
    want = pd.DataFrame(pre.report(df, group=["country", "q"], label="rel", scores=["a"], metrics=["gauc", "ndcg@5"]))
    pd.testing.assert_frame_equal(got, want, check_exact=False, atol=1e-12, rtol=0)


@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("cuts", [[5], [3, 4, 9], [1, 2, 3, 4, 5, 6], [10, 10, 11]])
def test_chain_auc_with_ties_split_across_partitions(ties, cuts):
    """Partitions cut anywhere, also inside a run of tied scores, chain to the exact AUC."""
    s = np.array([0.1, 0.2, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5])
    y = np.array([1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0])
    df = pd.DataFrame({"s": s, "y": y})
    pieces = np.split(np.arange(len(df)), cuts)
    parts = pd.concat(
        [prd._partition_auc(df.iloc[p], label="y", score="s", threshold=None, ties=ties) for p in pieces],
        ignore_index=True,
    )
    assert prd._chain_auc(parts, ties) == pytest.approx(float(pre.auc(df, label="y", score="s", ties=ties)), abs=1e-12)


def test_auc_and_gauc_shortcuts():
    df = frame(5)
    ddf = dd.from_pandas(df, npartitions=5)
    assert prd.auc(ddf, label="rel", score="a") == pytest.approx(float(pre.auc(df, label="rel", score="a")), abs=1e-12)
    assert prd.gauc(ddf, group="q", label="rel", score="a") == pytest.approx(
        float(pre.gauc(df, group="q", label="rel", score="a")), abs=1e-12
    )
    # plain Python floats, as annotated (a numpy scalar reprs as np.float64(...) on numpy >= 2)
    assert type(prd.auc(ddf, label="rel", score="a")) is float
    assert type(prd.gauc(ddf, group="q", label="rel", score="a")) is float


def test_missing_values_are_counted_globally():
    df = frame(6)
    df.loc[[1, 50, 99], "a"] = np.nan
    ddf = dd.from_pandas(df, npartitions=4)
    with pytest.raises(ValueError, match=r"Column 'a' has 3 missing values"):
        prd.report(ddf, group="q", label="rel", scores=["a"], metrics=["gauc"])
    got = prd.report(ddf, group="q", label="rel", scores=["a"], metrics=["gauc"], nan_policy="omit")
    assert got.loc["a", "rows_dropped"] == 3
    want = pre.gauc(df.dropna(), group="q", label="rel", score="a")
    assert got.loc["a", "gauc"] == pytest.approx(float(want), abs=1e-12)


def test_missing_column_is_named():
    ddf = dd.from_pandas(frame(7), npartitions=2)
    with pytest.raises(KeyError, match=r"not found: \['relevance'\]"):
        prd.report(ddf, group="q", label="relevance", scores=["a"])
