"""One public function, every engine: the same numbers as pandas (to 1e-12), the same errors.

Every public function has ONE test body, parametrized by engine (pandas, polars eager, polars
lazy, Dask, Spark, DuckDB) and by a few cases, each of which exercises several things at once (string,
integer and two-column group keys; scores tied across partitions; missing values under each
``nan_policy``; segments; intervals and p-values with the same seed). The reference is pandas on
the frame as built; the pandas case itself runs on the rows shuffled, with another index.

Spark jobs cost about a second each here, so every case is one call that checks much.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
    pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning"),
]

ATOL = 1e-12

#: Engines under test, every one in every run.
ENGINES = ["pandas", "polars", "polars-lazy", "dask", "spark", "duckdb"]


def make_frame(keys: str, seed: int = 0, n_groups: int = 40, nulls: bool = False) -> pd.DataFrame:
    """Groups of 1 to 12 rows (single-class ones too), graded labels, scores with masses of ties
    (shuffled, so ties and groups straddle the Dask partitions), a segment column constant per
    group, a per-row weight and an integer tie-break column."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 13, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    rate = rng.beta(1.0, 2.5, n_groups)[g]
    grade = np.where(rng.random(n) < rate, rng.integers(1, 3, n), 0)
    df = pd.DataFrame(
        {
            "y": grade.astype(np.int64),
            "a": np.round(rng.random(n) * 4) / 4 + 0.25 * (grade > 0),  # about 6 distinct values
            "b": rng.normal(size=n) + 0.5 * grade,  # no ties
            "seg": np.array(["de", "fr", "us"])[g % 3],
            "w": rng.random(n) + 0.5,
            "tb": rng.integers(0, 5, n),
        }
    )
    if keys == "str":
        df.insert(0, "g", "user-" + pd.Series(g * 7 + 3).astype(str))
    elif keys == "int":
        df.insert(0, "g", (g * 7919 + 11).astype(np.int64))
    else:  # two key columns: a string and an integer
        df.insert(0, "g2", g % 5)
        df.insert(0, "g", "site-" + pd.Series(g // 5).astype(str))
    if nulls:
        df["a"] = df["a"].where(rng.random(n) > 0.05)  # NaN scores
        df["y"] = df["y"].astype(np.float64).where(rng.random(n) > 0.03)  # missing labels
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def group_of(keys: str) -> Hashable | list[Hashable]:
    return ["g", "g2"] if keys == "multi" else "g"


@pytest.fixture
def engine_frame(request: pytest.FixtureRequest, engine: str) -> Callable[[pd.DataFrame], Any]:
    """The frame in the engine's own kind (the Spark session is started only when asked for)."""
    if engine == "pandas":
        return lambda df: df.sample(frac=1.0, random_state=1).set_axis(np.arange(len(df))[::-1] * 3)
    if engine.startswith("polars"):
        import polars as pl

        return lambda df: pl.from_pandas(df).lazy() if engine == "polars-lazy" else pl.from_pandas(df)
    if engine == "dask":
        import dask
        import dask.dataframe as dd

        ctx = dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"})
        request.addfinalizer(lambda: ctx.__exit__(None, None, None))
        return lambda df: dd.from_pandas(df, npartitions=3, sort=False)
    if engine == "duckdb":
        import duckdb

        con = duckdb.connect()
        request.addfinalizer(con.close)
        # Arrow batches of 7 rows: global AUC's distinct scores are cut into many ranges
        request.getfixturevalue("monkeypatch").setattr("pandas_rankeval.engines.duckdb.sql.BATCH", 7)
        return lambda df: con.from_df(df)
    spark = request.getfixturevalue("spark")
    return lambda df: spark.createDataFrame(df)


#: Engine options that make every engine split the frame (the defaults would not for small frames);
#: a polars LazyFrame also cuts global AUC's scores into ranges of ~30 distinct values.
OPTIONS = {"dask": {"npartitions": 2}, "spark": {"buckets": 3}, "duckdb": {"buckets": 3}, "polars-lazy": {"buckets": 3, "rows_per_bucket": 30}}


def call(engine: str, name: str, frame: Any, **kw: Any) -> Any:
    return getattr(pre, name)(frame, engine_options=OPTIONS.get(engine), **kw)


def as_pandas(table: Any, group: Any) -> pd.DataFrame:
    """A per-group result of any engine as a pandas frame indexed by the group key(s), sorted."""
    if hasattr(table, "collect") and hasattr(table, "lazy") and not hasattr(table, "toPandas"):
        table = table.collect()  # polars LazyFrame
    if hasattr(table, "toPandas"):
        table = table.toPandas()
    elif hasattr(table, "compute"):
        table = table.compute()
    elif hasattr(table, "to_pandas"):
        table = table.to_pandas()
    table = pd.DataFrame(table)
    keys = [group] if isinstance(group, str) else list(group)
    if all(k in table.columns for k in keys):
        table = table.set_index(keys)
    return table.sort_index()


def assert_same(got: Any, want: Any) -> None:
    """A MetricResult or a table equal to pandas': values to 1e-12, NaN where pandas has NaN,
    the same coverage, choices and attrs."""
    if isinstance(want, pre.MetricResult):
        assert isinstance(got, pre.MetricResult)
        assert (math.isnan(got) and math.isnan(want)) or abs(got - want) <= ATOL, (float(got), float(want))
        assert got.coverage == want.coverage
        assert got.params == want.params
        return
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns)
    assert got.index.equals(want.index), (got.index, want.index)
    for c in want.columns:
        g, w = got[c].to_numpy(), want[c].to_numpy()
        if pd.api.types.is_float_dtype(w.dtype):
            np.testing.assert_allclose(g.astype(np.float64), w, atol=ATOL, rtol=0, err_msg=str(c))
        else:
            assert (g == w).all(), c
    assert got.attrs == want.attrs


# --------------------------------------------------------------------------- #
# The eight metrics: one body, each metric with the cases that stress it
# --------------------------------------------------------------------------- #
METRIC_CASES = [
    ("auc", "str", {"ties": "pessimistic", "tiebreak": "tb"}),
    ("auc", "nulls-omit", {"sample_weight": "w", "threshold": 2}),
    ("gauc", "int", {"weight": "clicks", "min_pos": 1, "sample_weight": "w"}),
    ("gauc", "nulls-raise", {}),
    ("mrr", "multi", {"k": 3, "ties": "optimistic"}),
    ("ndcg", "str", {"k": 5, "gain": "linear", "weight": "log1p"}),
    ("ndcg", "nulls-omit", {"empty": "skip"}),
    ("average_precision", "int", {"denominator": "min_k", "k": 4, "tiebreak": "tb"}),
    ("precision", "multi", {"k": 2, "weight": "w"}),
    ("recall", "str", {"k": 3, "threshold": 2, "empty": "skip"}),
    ("hit_rate", "int", {"k": 1, "weight": "count"}),
]


def _frame_and_kw(case: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    keys = case if case in ("str", "int", "multi") else "str"
    df = make_frame(keys, seed=len(case), nulls=case.startswith("nulls"))
    kw: dict[str, Any] = {"label": "y"}
    if case.startswith("nulls"):
        kw["nan_policy"] = case.split("-")[1]
    return df, kw | {"group": group_of(keys)}


@pytest.mark.parametrize("name,case,options", METRIC_CASES, ids=[f"{n}-{c}" for n, c, _ in METRIC_CASES])
@pytest.mark.parametrize("engine", ENGINES)
def test_metric(engine, engine_frame, name, case, options):
    df, kw = _frame_and_kw(case)
    if name == "auc":
        kw.pop("group")
    kw |= dict(score="a", **options)
    if kw.get("nan_policy") == "raise":  # missing values: the same error, with whole-table counts
        with pytest.raises(ValueError) as want:
            getattr(pre, name)(df, **kw)
        with pytest.raises(ValueError) as got:
            call(engine, name, engine_frame(df), **kw)
        assert str(got.value) == str(want.value)
        return
    assert_same(call(engine, name, engine_frame(df), **kw), getattr(pre, name)(df, **kw))


# --------------------------------------------------------------------------- #
# per_group, report, compare
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("case", ["str", "multi"])
@pytest.mark.parametrize("engine", ENGINES)
def test_per_group(engine, engine_frame, case):
    df, kw = _frame_and_kw(case)
    models = {"score": "a"} if case == "str" else {"scores": ["a", "b"]}  # columns "<model>_<metric>"
    kw |= dict(**models, metrics=["auc", "mrr@3", "ndcg@5", "map"], weight="clicks")
    want = pre.per_group(df, **kw)
    got = as_pandas(call(engine, "per_group", engine_frame(df), **kw), kw["group"])
    want = pd.DataFrame(want).sort_index()
    for c in want.columns:
        np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(np.float64), atol=ATOL, rtol=0)
    assert got.index.equals(want.index)


REPORT_CASES = [
    ("int", {"metrics": ["auc", "gauc", "mrr", "ndcg@5", "precision@2"], "by": "seg", "ci": 0.9, "n_boot": 60, "seed": 3}),
    ("multi", {"metrics": ["gauc", "map@3", "hit_rate@2"], "ci": 0.8, "n_boot": 40, "ci_method": "studentized"}),
    ("nulls-omit", {"metrics": ["auc", "gauc", "recall@3"], "tiebreak": "tb"}),
]


@pytest.mark.parametrize("case,options", REPORT_CASES, ids=[c for c, _ in REPORT_CASES])
@pytest.mark.parametrize("engine", ENGINES)
def test_report(engine, engine_frame, case, options):
    df, kw = _frame_and_kw(case)
    kw |= dict(scores=["a", "b"], **options)
    assert_same(call(engine, "report", engine_frame(df), **kw), pre.report(df, **kw))


COMPARE_CASES = [
    ("str", {"metrics": ["auc", "gauc", "mrr", "ndcg@3"], "by": "seg", "n_boot": 60, "seed": 5}),
    ("int", {"metrics": ["gauc", "precision@2"], "method": "bootstrap", "ci_method": "studentized", "n_boot": 40}),
]


@pytest.mark.parametrize("case,options", COMPARE_CASES, ids=[c for c, _ in COMPARE_CASES])
@pytest.mark.parametrize("engine", ENGINES)
def test_compare(engine, engine_frame, case, options):
    df, kw = _frame_and_kw(case)
    kw |= dict(scores=["a", "b"], baseline="a", **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_same(call(engine, "compare", engine_frame(df), **kw), pre.compare(df, **kw))


# --------------------------------------------------------------------------- #
# Dispatch and engine options
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("engine", ENGINES)
def test_engine_options_are_checked_per_engine_before_any_work(engine, engine_frame):
    df = make_frame("str")
    frame = engine_frame(df)
    kw = {"group": "g", "label": "y", "score": "a"}
    other = {"dask": {"buckets": 2}}.get(engine, {"npartitions": 2})
    with pytest.raises(ValueError, match=r"The 'engine_options' parameter of gauc has \["):
        pre.gauc(frame, engine_options=other, **kw)
    with pytest.raises(TypeError, match="must be a dict"):
        pre.gauc(frame, engine_options=[("npartitions", 2)], **kw)
    with pytest.raises(KeyError, match=r"not found: \['aa'\]"):
        pre.gauc(frame, engine_options=OPTIONS.get(engine), **(kw | {"score": "aa"}))


def test_an_unsupported_frame_names_every_kind():
    with pytest.raises(TypeError, match=r"gauc expects a pandas DataFrame \(or a polars .* Dask .* Spark"):
        pre.gauc({"g": [1]}, group="g", label="y", score="a")
    with pytest.raises(TypeError, match="Pass the whole frame"):
        pre.gauc(make_frame("str")["a"], group="g", label="y", score="a")
