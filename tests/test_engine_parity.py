"""One public function, every engine: the same numbers as pandas (to 1e-12), the same errors.

Every public function has ONE test body, parametrized by engine (pandas, polars eager, polars
lazy, Dask, Spark, DuckDB) and by a few cases, each of which exercises several things at once (string,
integer and two-column group keys; scores tied across partitions; missing values under each
``nan_policy``; segments; intervals and p-values with the same seed). The reference is pandas on
the frame as built; the pandas case itself runs on the rows shuffled, with another index.

Spark jobs cost about a second each here, so every case is one call that checks much.
"""

from __future__ import annotations

import datetime
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
    ("r_precision", "multi", {"weight": "clicks", "ties": "pessimistic", "tiebreak": "tb"}),
    ("r_precision", "nulls-omit", {"threshold": 2, "empty": "skip"}),
    ("err", "multi", {"k": 4, "weight": "clicks", "threshold": 2}),
    ("err", "nulls-omit", {"ties": "pessimistic"}),
    ("rbp", "int", {"p": 0.6, "ties": "optimistic", "tiebreak": "tb", "weight": "clicks"}),
    ("uauc", "str", {"sample_weight": "w", "ties": "pessimistic"}),
    ("wuauc", "nulls-omit", {"min_size": 3}),
    ("dcg", "multi", {"k": 4, "gain": "linear", "tiebreak": "tb"}),
    ("gxauc", "int", {"sample_weight": "w", "weight": "uniform"}),
    ("gxauc", "nulls-omit", {"min_size": 2}),
]


def _registered_without_a_case() -> list[tuple[str, str, dict[str, Any]]]:
    """A ranking metric of the registry that has no case above gets one with its defaults, so a new
    metric is checked on every engine with no edit here (the counterfactual metrics need a click
    log's positions: tests/test_ips.py; the calibration metrics: test_calibration_metrics below)."""
    from pandas_rankeval.core.metrics.registry import METRICS

    named = {n for n, _, _ in METRIC_CASES}
    return [(m.function, "multi", {}) for m in METRICS.values()
            if m.function not in named and m.kernel is not None and "propensity" not in m.options]


METRIC_CASES += _registered_without_a_case()


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
        # the same counts, in the engine's word for a missing value ("null" to polars users)
        word = {"polars": "null or NaN", "polars-lazy": "null or NaN", "duckdb": "NULL or NaN",
                "spark": "NULL or NaN"}.get(engine, "NaN/None")
        assert str(got.value) == str(want.value).replace("(NaN/None)", f"({word})")
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
    ("multi", {"metrics": ["gauc", "map@3", "hit_rate@2", "rbp@0.7", "err@3", "gxauc", "dcg@3"], "ci": 0.8, "n_boot": 40,
               "ci_method": "studentized"}),
    ("nulls-omit", {"metrics": ["auc", "gauc", "recall@3"], "tiebreak": "tb"}),
]


@pytest.mark.parametrize("case,options", REPORT_CASES, ids=[c for c, _ in REPORT_CASES])
@pytest.mark.parametrize("engine", ENGINES)
def test_report(engine, engine_frame, case, options):
    df, kw = _frame_and_kw(case)
    kw |= dict(scores=["a", "b"], **options)
    assert_same(call(engine, "report", engine_frame(df), **kw), pre.report(df, **kw))


COMPARE_CASES = [
    ("str", {"metrics": ["auc", "gauc", "mrr", "ndcg@3", "rbp@0.8", "err", "gxauc"], "by": "seg", "n_boot": 60, "seed": 5,
             "lift": "relaimpr"}),
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


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "dask", "duckdb"])  # Spark: ~10 s, and it agreed
def test_by_a_group_column_gives_pandas_table(engine, engine_frame):
    """``by=`` one of the group columns (each group its own segment) raised
    polars' DuplicateError on a LazyFrame (the (group, segment) key named one column twice).
    Every engine gives pandas' table, whose segments are checked here against per-group
    ``pre.auc`` on each group's rows."""
    df, kw = _frame_and_kw("multi")
    kw |= dict(scores=["a", "b"], metrics=["auc", "gauc", "mrr"], by="g2", ci=0.9, n_boot=20, seed=2)
    want = pre.report(df, **kw)
    for g2, sub in df.groupby("g2"):
        assert want.loc[(g2, "a"), "auc"] == pytest.approx(float(pre.auc(sub, label="y", score="a")), abs=1e-12)
    assert_same(call(engine, "report", engine_frame(df), **kw), want)
    one = dict(group="g", label="y", scores=["a", "b"], metrics=["gauc", "mrr"], by="g", baseline="a", n_boot=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_same(call(engine, "compare", engine_frame(df), **one), pre.compare(df, **one))


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
    # a count below 1 (negative or 0, a bool, a float): one message on every engine (engines.base.option_count)
    count = {"dask": "npartitions"}.get(engine, "buckets")
    if engine != "pandas":
        for bad in (-1, 0, True, 2.0):
            with pytest.raises(ValueError, match=rf"^The '{count}' engine option of gauc must be an int in the range "
                                                 rf"\[1, inf\) or None \(the engine's own choice\)\. Got {bad!r} instead\.$"):
                pre.gauc(frame, engine_options={count: bad}, **kw)


def test_an_unsupported_frame_names_every_kind():
    with pytest.raises(TypeError, match=r"gauc expects a pandas DataFrame \(or a polars .* Dask .* Spark"):
        pre.gauc({"g": [1]}, group="g", label="y", score="a")
    with pytest.raises(TypeError, match="Pass the whole frame"):
        pre.gauc(make_frame("str")["a"], group="g", label="y", score="a")


# --------------------------------------------------------------------------- #
# Polars under hostile input, every case on pandas, eager and lazy polars
# --------------------------------------------------------------------------- #
#: eager, a LazyFrame in buckets (OPTIONS) and a LazyFrame that fits in memory (one collect, the eager path)
POLARS = ["polars", "polars-lazy", "polars-lazy-memory"]


def _pl(engine: str, frame: Any) -> Any:
    """A polars frame as the engine takes it (eager, or lazy from memory)."""
    return frame.lazy() if engine.startswith("polars-lazy") else frame


def _outcome(fn: Callable[[], Any]) -> Any:
    """A call's result, or its error's class and message (the same call fails the same way)."""
    try:
        return fn()
    except (ValueError, TypeError, KeyError) as exc:
        return (type(exc).__name__, str(exc).replace("polars.", ""))


@pytest.mark.parametrize("engine", POLARS)
def test_polars_decimal_keys_and_scores_behave_as_in_pandas(engine):
    """Decimal(38, 0) keys above 2**53 were read as float64 and merged into one group
    (gauc over 1 group where pandas has 15); Decimal scores above 2**53 became ties (auc 0.5).
    A Decimal is a decimal.Decimal object, as pandas holds it: exact keys, scores refused with
    pandas' message, hashed intervals refused as pandas refuses them."""
    import decimal

    import polars as pl

    rng = np.random.default_rng(0)
    n = 300
    keys = [int(v) for v in 2**60 + rng.integers(0, 15, n)]
    y, s = rng.integers(0, 2, n), rng.normal(size=n)
    pdf = pd.DataFrame({"u": [decimal.Decimal(k) for k in keys], "y": y, "s": s})
    pldf = pl.DataFrame({"u": pl.Series(keys, dtype=pl.Decimal(38, 0)), "y": y, "s": s})
    frame = _pl(engine, pldf)
    kw = dict(group="u", label="y", scores="s", metrics=["gauc", "recall@3"])
    # a LazyFrame in buckets (call: the engine's OPTIONS); in memory it is the eager frame's path
    want, got = pre.report(pdf, **kw), call(engine, "report", frame, **kw)
    assert (got["n_groups"] == 15).all()
    assert_same(got, want)
    assert _outcome(lambda: call(engine, "report", frame, ci=0.9, **kw)) == _outcome(lambda: pre.report(pdf, ci=0.9, **kw))
    assert "cannot be hashed stably" in str(_outcome(lambda: call(engine, "report", frame, ci=0.9, **kw)))
    scores = [2**60 + int(v) for v in rng.integers(0, 100, n)]
    pdf2 = pd.DataFrame({"y": y, "s": [decimal.Decimal(v) for v in scores]})
    pl2 = _pl(engine, pl.DataFrame({"y": y, "s": pl.Series(scores, dtype=pl.Decimal(38, 0))}))
    want2 = _outcome(lambda: pre.auc(pdf2, label="y", score="s"))
    assert isinstance(want2, tuple) and "numeric" in want2[1]
    got2 = _outcome(lambda: call(engine, "auc", pl2, label="y", score="s"))
    # the same error, the fix written in polars for a polars user: an integer cast for a Decimal
    # without fraction digits (a Float64 cast would round these scores above 2**53 into ties)
    assert got2 == (want2[0], want2[1].replace("pd.to_numeric(df['s'])", "df.with_columns(pl.col('s').cast(pl.Int64))"))


NAME_CASES = {
    # user name -> the role it plays; "^s$" is a regex to pl.col, "*" a wildcard, "" empty,
    # and the rest the adapter's own internal names
    "pattern": {"g": "g", "y": "y", "^s$": "a", "s": "b", "w": "w", "tb": "tb"},
    "wildcard": {"g": "g", "y": "y", "*": "a", "w": "w", "tb": "tb"},
    "empty": {"g": "g", "": "y", "a": "a", "w": "w", "tb": "tb"},
    "internal": {"__rk_key": "g", "y": "y", "__rk_key_0": "a", "__rk_n": "w", "__rk_pl_0": "tb", "__rk_w": "seg"},
}


@pytest.mark.parametrize("case", list(NAME_CASES))
@pytest.mark.parametrize("engine", POLARS)
def test_polars_any_column_name_is_read_literally(engine, case):
    """``pl.col("^s$")`` selected column "s" (auc 0.5950 where pandas gives 0.5763), "*"
    ended in polars' DuplicateError, and user columns named like the adapter's internal ones gave
    a NaN AUC or gauc 0.5: the columns are selected by position and renamed once at entry."""
    import polars as pl

    df = make_frame("str")
    roles = NAME_CASES[case]
    pdf = pd.DataFrame({name: df[src] for name, src in roles.items()})
    role = {src: name for name, src in roles.items()}
    kw = dict(group=role["g"], label=role["y"], scores=role["a"], tiebreak=role["tb"],
              metrics=["auc", "gauc", "mrr"], ci=0.9, n_boot=20, seed=1)
    if "seg" in role:
        kw["by"] = role["seg"]
    # pl.from_pandas would rename "" to "column_1": the frame is built column by column
    frame = _pl(engine, pl.DataFrame({name: pdf[name].tolist() for name in pdf.columns}))
    want = pre.report(pdf, **kw)
    assert not want["auc"].isna().any()
    assert_same(call(engine, "report", frame, **kw), want)
    aw = dict(label=role["y"], score=role["a"], sample_weight=role["w"], tiebreak=role["tb"])
    assert_same(call(engine, "auc", frame, **aw), pre.auc(pdf, **aw))
    pg = dict(group=role["g"], label=role["y"], score=role["a"], metrics=["auc", "mrr"])
    got = as_pandas(call(engine, "per_group", frame, **pg), role["g"])
    np.testing.assert_allclose(got["mrr"].to_numpy(float), pre.per_group(pdf, **pg).sort_index()["mrr"].to_numpy(float))


def test_polars_lazy_reads_the_source_a_bounded_number_of_times():
    """Every bucket was a full pass over the source, empty buckets included
    (buckets=10**6 on 4 rows took 295 s). Now: never more buckets than groups, and the source is
    read three times (the checks' scan, the global-AUC count, one partitioned write of the
    buckets) whatever the number of buckets; a counting map_batches on the source tells."""
    import polars as pl

    calls: list[int] = []

    def tap(s: Any) -> Any:
        calls.append(len(s))
        return s

    df = make_frame("int")
    lf = pl.from_pandas(df).lazy().with_columns(pl.col("a").map_batches(tap, return_dtype=pl.Float64))
    kw = dict(group="g", label="y", scores="a", metrics=["auc", "gauc", "mrr"])
    want = pre.report(df, **kw)
    for buckets in (1, 7, 10**6):
        calls.clear()
        assert_same(pre.report(lf, engine_options={"buckets": buckets}, **kw), want)
        assert len(calls) <= 3, (buckets, calls)


WEIGHT_CALLABLES = {
    "share": lambda st: st["n"] / st["n"].sum(),  # looks at every group
    "rank": lambda st: st["positives"].rank().to_numpy(),  # positional, over every group
}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_weight_callable_is_called_once_on_every_group(engine, engine_frame):
    """A weight callable that looks at all groups (n / n.sum(), a rank) was called once
    per bucket or partition: gauc 0.5352 (polars lazy), 0.5471 (Dask), 0.5501 (Spark) where pandas
    gives 0.5388. Every engine calls it once, on the whole table's group statistics."""
    df, kw = _frame_and_kw("nulls-omit")
    frame = engine_frame(df)
    kw |= dict(score="a")
    for w in WEIGHT_CALLABLES.values():
        assert_same(call(engine, "gauc", frame, weight=w, **kw), pre.gauc(df, weight=w, **kw))
    pg = dict(kw, metrics=["ndcg@3"], weight=WEIGHT_CALLABLES["share"])
    got = as_pandas(call(engine, "per_group", frame, **pg), "g")["weight"].to_numpy(np.float64)
    np.testing.assert_allclose(got, pre.per_group(df, **pg).sort_index()["weight"].to_numpy(np.float64), atol=ATOL, rtol=0)
    bad = lambda st: st["n"] - 3  # noqa: E731 - negative for the small groups: whole-table count
    with pytest.raises(ValueError) as want:
        pre.gauc(df, weight=bad, **kw)
    with pytest.raises(ValueError) as got_err:
        call(engine, "gauc", frame, weight=bad, **kw)
    assert str(got_err.value) == str(want.value)


@pytest.mark.parametrize("kind", ["Categorical", "Enum"])
def test_polars_lazy_categorical_tiebreak_ranks_by_category_order(kind):
    """On a LazyFrame a Categorical tie-break was sorted lexically in the global-AUC
    pass and by each bucket's own categories elsewhere (auc 0.1667 where pandas and eager polars
    give 0.7); it ranks by the order of the categories, as the frame converted to pandas does."""
    import polars as pl

    rng = np.random.default_rng(5)
    n = 300
    cats = ["zeta-i28", "alpha-i28", "mid-i28"]  # neither lexical nor reversed
    dtype = pl.Enum(cats) if kind == "Enum" else pl.Categorical
    frame = pl.DataFrame({
        "g": rng.integers(0, 30, n), "y": rng.integers(0, 2, n), "s": np.round(rng.random(n) * 3) / 3,
        "tb": pl.Series(np.array(cats)[rng.integers(0, 3, n)]).cast(dtype),
    })
    ref = frame.to_pandas()
    assert isinstance(ref["tb"].dtype, pd.CategoricalDtype)
    kw = dict(label="y", scores="s", tiebreak="tb", metrics=["auc", "mrr", "map"], group="g")
    want = pre.report(ref, **kw)
    assert_same(pre.report(frame, **kw), want)
    assert_same(call("polars-lazy", "report", frame.lazy(), **kw), want)


def test_duckdb_enum_tiebreak_ranks_by_category_order():
    """A pandas Categorical tie-break becomes a DuckDB ENUM; the range and bucket reads ranked it by
    each Arrow batch's own dictionary (auc 0.5176 where pandas gives 0.5312 and lexical order
    0.5222). It ranks by the enum's order, pandas' codes."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    n = 600
    cats = ["zeta-i28", "alpha-i28", "mid-i28"]  # neither lexical nor reversed
    df = pd.DataFrame({"g": rng.integers(0, 60, n), "y": rng.integers(0, 2, n), "s": np.round(rng.random(n) * 5) / 5,
                       "tb": pd.Categorical(np.array(cats)[rng.integers(0, 3, n)], categories=cats)})
    con = duckdb.connect()
    rel = con.from_df(df)
    assert "ENUM" in str(rel.types[-1])
    kw = dict(group="g", label="y", scores="s", tiebreak="tb", metrics=["auc", "gauc", "mrr", "map"])
    want = pre.report(df, **kw)
    assert want.loc["s", "auc"] != pre.report(df.assign(tb=df["tb"].astype(str)), **kw).loc["s", "auc"]
    assert_same(call("duckdb", "report", rel, **kw), want)
    pg = dict(group="g", label="y", score="s", tiebreak="tb", metrics=["mrr"])
    got = as_pandas(call("duckdb", "per_group", rel, **pg), "g")
    np.testing.assert_allclose(got["mrr"].to_numpy(float), pre.per_group(df, **pg).sort_index()["mrr"].to_numpy(float))
    con.close()


# --------------------------------------------------------------------------- #
# The calibration metrics: probabilities, row sums pooled over groups
# --------------------------------------------------------------------------- #
def _calibration_frame(case: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The parity frame with two probability columns ("p" with ties and exact 0 and 1, "q")
    and graded labels read as clicks with ``threshold=1``."""
    df, kw = _frame_and_kw(case)
    df["p"] = df["a"] / 1.25  # in [0, 1], ties, 0 and 1 among them
    df["q"] = 1.0 / (1.0 + np.exp(-df["b"]))
    return df, kw | {"threshold": 1}


CALIBRATION_CASES = [
    ("str", "report", {"scores": ["p", "q"], "metrics": ["logloss", "ne", "pcoc", "ece@5", "gauc"], "by": "seg",
                       "ci": 0.9, "n_boot": 40, "sample_weight": "w"}),
    ("multi", "compare", {"scores": ["p", "q"], "baseline": "p", "metrics": ["logloss", "ne", "pcoc", "ece"],
                          "n_boot": 40, "seed": 2}),
    ("nulls-omit", "report", {"scores": ["p", "q"], "metrics": ["logloss", "ece@3"], "ci": 0.8, "n_boot": 30}),
]


@pytest.mark.parametrize("case,func,options", CALIBRATION_CASES, ids=[f"{f}-{c}" for c, f, _ in CALIBRATION_CASES])
@pytest.mark.parametrize("engine", ENGINES)
def test_calibration_metrics(engine, engine_frame, case, func, options):
    df, kw = _calibration_frame(case)
    kw |= options
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        assert_same(call(engine, func, engine_frame(df), **kw), getattr(pre, func)(df, **kw))


@pytest.mark.parametrize("engine", ENGINES)
def test_calibration_per_group_metric_and_errors(engine, engine_frame, monkeypatch):
    df, kw = _calibration_frame("int")
    frame = engine_frame(df)
    assert_same(call(engine, "ece", frame, score="q", bins=7, sample_weight="w", **kw),
                pre.ece(df, score="q", bins=7, sample_weight="w", **kw))
    pg = dict(kw, score="p", metrics=["logloss", "ne", "pcoc", "ece@4"])
    want = pd.DataFrame(pre.per_group(df, **pg)).sort_index()
    got = as_pandas(call(engine, "per_group", frame, **pg), kw["group"])
    for c in want.columns:
        np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(np.float64), atol=ATOL, rtol=0)
    # scores outside [0, 1], labels other than 0/1: the same error, with the whole table's count and range
    # (found by the one scan of polars, DuckDB and Spark, before any bucket is read)
    kw.pop("threshold")
    if engine in ("polars", "polars-lazy", "duckdb"):
        def no_bucket(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a bucket was summarized before the scan's error")

        monkeypatch.setattr("pandas_rankeval.summary.partition.summarize_partition", no_bucket)
    for bad, score in ((df, "a"), (df.assign(y=df["y"].clip(upper=1)), "b")):
        with pytest.raises(ValueError) as want_err:
            pre.logloss(bad, score=score, **kw)
        with pytest.raises(ValueError) as got_err:
            call(engine, "logloss", engine_frame(bad), score=score, **kw)
        assert str(got_err.value) == str(want_err.value)

#: User columns named like the engines' own (every ``__rk_*`` name of the polars, Dask and DuckDB
#: adapters, the placement and key columns of the DeLong join included): role -> user name.
INTERNAL_NAMES = [
    {"g": "__rk_key", "a": "__rk_key_0", "w": "__rk_n", "tb": "__rk_pl_0", "seg": "__rk_w"},
    {"g": "__rk_key_hash", "a": "__rk_score", "tb": "__rk_tiebreak", "w": "__rk_pos", "seg": "__rk_sid"},
    {"g": "__rk_range", "a": "__rk_neg", "tb": "__rk_tb", "w": "__rk_a", "seg": "__rk_b"},
    {"g": "__rk_rows", "a": "__rk_src", "tb": "__rk_bucket", "w": "__rk_run", "seg": "__rk_pl_1"},
]


@pytest.mark.parametrize("names", range(len(INTERNAL_NAMES)))
@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "dask", "duckdb"])
def test_user_columns_named_like_internal_ones(engine, engine_frame, names):
    """User columns named like internal ones (``__rk_key``, ``__rk_key_0``, ``__rk_n``,
    ``__rk_pl_0``...) gave a NaN AUC, gauc 0.5 instead of 0.4596, Dask's metadata errors or a
    DuplicateError (DuckDB ``__rk_bucket``). Every engine's own columns now take a prefix that no
    column of the input starts with (chosen once per call)."""
    roles = INTERNAL_NAMES[names]
    df = make_frame("str").rename(columns=roles)
    r = {k: roles.get(k, k) for k in ["g", "y", "a", "b", "w", "tb", "seg"]}
    frame = engine_frame(df)
    kw = dict(group=r["g"], label="y", scores=[r["a"], "b"], tiebreak=r["tb"], by=r["seg"],
              metrics=["auc", "gauc", "mrr"], ci=0.9, n_boot=20, seed=1)
    assert_same(call(engine, "report", frame, **kw), pre.report(df, **kw))
    aw = dict(label="y", score=r["a"], sample_weight=r["w"], tiebreak=r["tb"])
    assert_same(call(engine, "auc", frame, **aw), pre.auc(df, **aw))
    gw = dict(group=r["g"], label="y", score=r["a"], weight=r["w"])
    assert_same(call(engine, "gauc", frame, **gw), pre.gauc(df, **gw))
    pg = dict(group=r["g"], label="y", score=r["a"], metrics=["auc", "mrr"])
    got = as_pandas(call(engine, "per_group", frame, **pg), r["g"])
    assert_same(got[["n", "auc", "mrr"]], pd.DataFrame(pre.per_group(df, **pg)).sort_index()[["n", "auc", "mrr"]])


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "dask", "duckdb", "spark"])
def test_per_group_key_named_like_a_column_of_the_table(engine, engine_frame):
    """A group column named ``n``, ``positives``, ``weight``, ``auc`` or ``mrr`` ended in
    "cannot insert n, already exists" (polars), a metadata error at compute (Dask) or in a worker
    (Spark). pandas gives a table indexed by the key beside the column of that name: Dask (indexed
    by its one key) gives the same; the engines whose table holds its keys as columns cannot tell
    two columns of one name apart and say so, naming the key and the fix, before any work."""
    df = make_frame("str")
    for name in ["n", "positives", "weight", "auc", "mrr"]:
        pdf = df.rename(columns={"g": name})
        kw = dict(group=name, label="y", score="a", metrics=["auc", "mrr"])
        want = pd.DataFrame(pre.per_group(pdf, **kw))
        assert want.index.name == name and name in want.columns
        frame = engine_frame(pdf)
        if engine == "dask":
            got = pre.per_group(frame, engine_options={"npartitions": 2}, **kw).compute()
            assert_same(got.sort_index(), want.sort_index())
            continue
        jobs = _spark_jobs(frame)
        with pytest.raises(ValueError, match=rf"the group column '{name}' has the name of a column of the per-group "
                                             r"table \(n, positives, auc, mrr, weight\).*Rename the key first"):
            pre.per_group(frame, **kw)
        assert _spark_jobs(frame) == jobs  # Spark: raised before any job (it failed in a worker)
    # Dask with two keys holds them as columns: the same error, before any compute
    if engine == "dask":
        pdf = make_frame("multi").rename(columns={"g2": "auc"})
        with dask_computes_forbidden(), pytest.raises(ValueError, match="the group column 'auc' has the name"):
            pre.per_group(engine_frame(pdf), group=["g", "auc"], label="y", score="a", metrics=["mrr", "gauc"])


def _spark_jobs(frame: Any) -> set[int] | None:
    """The Spark jobs run so far (None for any other frame)."""
    if not hasattr(frame, "sparkSession"):
        return None
    return set(frame.sparkSession.sparkContext.statusTracker().getJobIdsForGroup(None))


def dask_computes_forbidden():
    """A Dask scheduler that fails the test if anything is computed."""
    import dask

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("computed")

    return dask.config.set(scheduler=refuse)


@pytest.mark.parametrize("engine", POLARS)
def test_polars_per_group_keeps_key_dtypes_and_empty_names(engine):
    """``per_group`` returned a polars ``Date`` key as a datetime (pandas' datetime64 through
    the conversion) and renamed an empty-string column to ``column_0``: the keys come back in the
    source's dtypes (Date, Datetime with its unit and time zone, Duration, Enum, UInt64 beyond
    2**63) under their own names."""
    import polars as pl

    rng = np.random.default_rng(3)
    n = 120
    days = pl.Series([datetime.date(2024, 1, 1) + datetime.timedelta(days=int(d)) for d in rng.integers(0, 9, n)])
    frame = pl.DataFrame({"": days, "y": rng.integers(0, 2, n), "s": rng.random(n)})
    keys = {
        "": pl.col(""),
        "ts": pl.col("").cast(pl.Datetime("ms", "Europe/Paris")),
        "dur": pl.col("") - datetime.date(2023, 1, 1),
        "enum": pl.col("").cast(pl.String).cast(pl.Enum(sorted({str(d) for d in days}, reverse=True))),
        "big": pl.col("").cast(pl.Int64).cast(pl.UInt64) + (2**63 + 5),
    }
    frame = frame.with_columns(**{k: v for k, v in keys.items() if k})
    for key in keys:
        kw = dict(group=key, label="y", score="s", metrics=["mrr", "auc"])
        got = pre.per_group(_pl(engine, frame), engine_options={"buckets": 3} if engine == "polars-lazy" else None, **kw)
        assert got.columns[0] == key and got.schema[key] == frame.schema[key], (key, got.schema)
        want = pd.DataFrame(pre.per_group(frame.to_pandas(), **kw)).sort_index()
        back = got.sort(key).to_pandas().set_index(key)
        np.testing.assert_allclose(back["mrr"].to_numpy(), want["mrr"].to_numpy(), rtol=0, atol=ATOL)
        assert back["n"].tolist() == want["n"].tolist()
    assert got.sort("big")["big"].to_list() == sorted(frame["big"].unique().to_list())


def _late_error_cases() -> dict[str, tuple[pd.DataFrame, str, dict[str, Any]]]:
    """The late errors of a LazyFrame: name -> (frame, function, keywords)."""
    df = make_frame("int")
    keys = np.sort(df["g"].unique())
    mixed = df.copy()
    mixed.loc[mixed.index[::5], "seg"] = "xx"
    # float keys and segments where -0.0 and 0.0 are one value: shown as their first row holds them
    zeros = df.assign(gf=(df["g"] % 4) * 1.0, seg2=(df["g"] % 2) * 1.0)
    flip = np.random.default_rng(2).random(len(df))
    zeros.loc[flip < 0.3, "gf"] *= -1.0
    zeros.loc[flip > 0.8, "seg2"] = -0.0
    g, kw = "g", dict(group="g", label="y")
    return {
        "empty-error": (df, "ndcg", kw | dict(score="a", empty="error")),
        "exp2-1024": (df.assign(y=df["y"] * 600), "ndcg", kw | dict(score="a", gain="exp2")),
        "labels-beyond-int64": (df.assign(y=df["y"].astype(np.uint64) * np.uint64(2**63)), "ndcg", kw | dict(score="a")),
        "weight-negative": (df, "gauc", kw | dict(score="a", weight=pd.Series(np.where(np.arange(len(keys)) % 7, 1.0, -1.0), index=keys))),
        "weight-nan": (df, "gauc", kw | dict(score="a", weight=pd.Series(np.where(np.arange(len(keys)) % 9, 1.0, np.nan), index=keys))),
        "weight-index-type": (df, "mrr", kw | dict(score="a", weight=pd.Series(1.0, index=keys.astype(str)))),
        "by-varies": (mixed, "report", kw | dict(scores="a", metrics=["auc", "gauc", "mrr"], by="seg", ci=0.9, n_boot=20)),
        "by-varies-signed-zeros": (zeros, "report", dict(group=["gf"], label="y", scores="a", metrics=["gauc"],
                                                          by=["seg", "seg2"])),
        # a bool key, one group mixed and one not (an IndexError from .loc[[True]])
        "by-varies-bool-key": (_bool_key_mixed_by(df), "report", kw | dict(scores="a", metrics=["auc", "gauc"], by="seg")),
        "duration-key-ci": (df.assign(g=pd.to_timedelta(df[g], unit="s")), "report",
                            kw | dict(scores="a", metrics=["gauc", "mrr"], ci=0.9, n_boot=20)),
    }


def _bool_key_mixed_by(df: pd.DataFrame) -> pd.DataFrame:
    """A bool group key whose group False has three segments and group True one."""
    b = df.assign(g=df["g"] % 3 == 0)
    return b.assign(seg=b["seg"].where(~b["g"], "xx"))


@pytest.mark.parametrize("engine", ENGINES)
def test_bool_group_key_with_a_by_that_varies_gives_pandas_error(engine, engine_frame):
    """A bool group key and a ``by`` that varies within a group raised an
    IndexError (the example group's rows looked up with ``.loc[[True]]``, a mask) on a LazyFrame,
    DuckDB and Spark; every engine now raises pandas' message, whose example is worked by hand."""
    df = _bool_key_mixed_by(make_frame("int"))
    kw = dict(group="g", label="y", scores="a", metrics=["auc", "gauc"], by="seg")
    shown = ", ".join(repr(v) for v in sorted(df.loc[~df["g"], "seg"].unique()))
    shown = " and ".join(shown.rsplit(", ", 1))
    with pytest.raises(ValueError) as want:
        pre.report(df, **kw)
    assert str(want.value).startswith(
        f"The 'by' column 'seg' of report must be constant within each group: 1 of 2 groups has more than one "
        f"value, for example the group g=False has {shown}."), str(want.value)
    with pytest.raises(ValueError) as got:
        call(engine, "report", engine_frame(df), **kw)
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def _late_call(case: str, func: str) -> tuple[pd.DataFrame, str, dict[str, Any]] | None:
    """A late-error case as (frame, public function, keywords), or None (per_group has no segments
    nor intervals)."""
    df, name, kw = _late_error_cases()[case]
    if func == "per_group":
        if name == "report":
            kw = {k: v for k, v in kw.items() if k not in ("by", "ci", "n_boot", "scores")} | {"score": "a"}
            if case.startswith("by-varies") or case == "duration-key-ci":
                return None
        name = "per_group"
        kw = kw | ({"metrics": [kw.pop("metric", "ndcg")]} if "metrics" not in kw else {})
    return df, name, kw


def _never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a bucket or a score pass was read before the error")


def _same_error(df: pd.DataFrame, name: str, kw: dict[str, Any], frame: Any, options: dict | None = None) -> None:
    """The engine's frame raises pandas' error: the same class and message."""
    with pytest.raises((ValueError, TypeError)) as want:
        getattr(pre, name)(df, **kw)
    with pytest.raises((ValueError, TypeError)) as got:
        getattr(pre, name)(frame, engine_options=options, **kw)
    assert type(got.value) is type(want.value), (got.value, want.value)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("func", ["metric", "per_group"])
@pytest.mark.parametrize("case", list(_late_error_cases()))
def test_polars_lazy_errors_before_any_bucket(monkeypatch, case, func):
    """A LazyFrame raised these only after 3 to 31 bucket collects, some with per-bucket
    counts, and as a plain ValueError where pandas raises InputProblem. The schema, the one scan
    (with one small aggregate where needed) or the local Series answer each: the same class and
    message as pandas, whole-table counts, and no bucket (nor global-AUC pass) is read."""
    import polars as pl

    import pandas_rankeval.engines.polars as pe
    from pandas_rankeval.summary import driver

    called = _late_call(case, func)
    if called is None:
        return
    df, name, kw = called
    for where, attr in [(pe.lazy, "buckets"), (pe.lazy, "auc_pass"), (driver, "group_pass")]:
        monkeypatch.setattr(where, attr, _never)
    _same_error(df, name, kw, pl.from_pandas(df).lazy(), {"buckets": 5})


@pytest.mark.parametrize("func", ["metric", "per_group"])
@pytest.mark.parametrize("case", list(_late_error_cases()))
def test_duckdb_errors_before_any_bucket(monkeypatch, case, func):
    """A relation raised empty='error', a bad weight Series and a by varying within a
    group only from its buckets; its one scan (and one small aggregate where needed) now answers
    them as on a LazyFrame: pandas' class and message, and no bucket nor score pass is read."""
    duckdb = pytest.importorskip("duckdb")
    import pandas_rankeval.engines.duckdb as de
    from pandas_rankeval.summary import driver

    called = _late_call(case, func)
    if called is None:
        return
    df, name, kw = called
    if case == "duration-key-ci":
        return  # a DuckDB INTERVAL column does not read into polars' schema: not a relation's key today
    for where, attr in [(de, "auc_pass"), (de, "bucket_batches"), (driver, "group_pass")]:
        monkeypatch.setattr(where, attr, _never)
    _same_error(df, name, kw, duckdb.connect().from_df(df), {"buckets": 5})


@pytest.mark.parametrize("func", ["metric", "per_group"])
@pytest.mark.parametrize("case", ["empty-error", "weight-negative", "weight-nan", "weight-index-type"])
def test_dask_errors_before_any_pass(monkeypatch, case, func):
    """Dask's lazy per_group raised empty='error' and a bad weight Series inside its
    partitions, with one partition's counts; the one aggregate of rows per (group key, label)
    now answers them for every call before any pass: pandas' class and message. (A ``by`` that
    varies within a group and exp2 overflow still come from the first pass's whole-table counts.)"""
    pytest.importorskip("dask.dataframe")
    import dask
    import dask.dataframe as dd

    import pandas_rankeval.engines.dask as de

    called = _late_call(case, func)
    assert called is not None
    df, name, kw = called
    for attr in ["group_pass", "score_pass", "count_pass", "reduce_segments", "shuffled"]:
        monkeypatch.setattr(de, attr, _never)
    with dask.config.set({"scheduler": "synchronous"}):
        _same_error(df, name, kw, dd.from_pandas(df, npartitions=4))


@pytest.mark.parametrize("case,func", [("empty-error", "metric"), ("by-varies", "metric"), ("weight-index-type", "per_group")])
def test_spark_errors_before_any_bucket(monkeypatch, spark, case, func):
    """A Spark frame raised empty='error', a bad weight Series, a by varying within a
    group and exp2 overflow from its buckets; the scan and one small aggregate now answer them
    before any bucket or score job: pandas' class and message. Three cases (a Spark job or two
    each; exp2 overflow is pinned by test_exp2_overflow_names_the_whole_tables_largest_label); the
    LazyFrame and DuckDB tests run them all."""
    import pandas_rankeval.engines.spark as se

    called = _late_call(case, func)
    if called is None:
        return
    df, name, kw = called
    # the jobs of a call: the range pass of global AUC, the buckets (the driver's sources) and the bucket column
    for where, attr in [(se.SparkSource, "score_ranges"), (se.SparkSource, "reduce_buckets"), (se, "with_bucket")]:
        monkeypatch.setattr(where, attr, _never)
    _same_error(df, name, kw, spark.createDataFrame(df), {"buckets": 3})


@pytest.mark.parametrize("engine", ["polars-lazy", "duckdb", "dask", "spark"])
def test_exp2_overflow_names_the_whole_tables_largest_label(engine, engine_frame):
    """Labels >= 1024 with gain='exp2' were refused with one bucket's (partition's)
    largest label ("up to 1200" where pandas says 5000): a LazyFrame's and a relation's scan
    give the whole table's maximum before any bucket; Dask and Spark count each partition's
    maximum, and the error names the largest."""
    df = make_frame("int").assign(y=lambda d: d["y"] * 600)
    df.loc[df["g"] == df["g"].iloc[0], "y"] = 5000
    for kw in [dict(group="g", label="y", score="a"), dict(group="g", label="y", score="a", threshold=2.5)]:
        with pytest.raises(ValueError) as want:
            pre.ndcg(df, **kw)
        assert "up to 5000" in str(want.value)
        with pytest.raises(ValueError) as got:
            call(engine, "ndcg", engine_frame(df), **kw)
        assert str(got.value) == str(want.value)
    # no relevant label that large (threshold above every label): no error, pandas' number
    kw = dict(group="g", label="y", score="a", threshold=5001, empty="skip")
    assert_same(call(engine, "ndcg", engine_frame(df), **kw), pre.ndcg(df, **kw))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_zero_key_or_segment_is_named_0_0_on_every_engine(engine, engine_frame):
    """Keys or segments ``-0.0`` and ``0.0`` (one value: one group) were named by
    whichever row a bucket met first (LazyFrame, DuckDB, Dask, Spark), and pandas by its first row.
    One rule on every engine: a zero key or segment is named ``0.0``, never ``-0.0``."""
    rng = np.random.default_rng(41)
    n = 120
    g = rng.integers(0, 6, n).astype(np.float64)
    g[g == 0] = np.where(rng.random(int((g == 0).sum())) < 0.8, -0.0, 0.0)  # mostly -0.0, some 0.0
    g[0] = -0.0  # the first row holds -0.0: pandas named the group -0.0 before
    seg = np.where(np.abs(g) < 3, 0.0, 1.0)  # constant within each group
    seg[(seg == 0) & (rng.random(n) < 0.8)] = -0.0  # -0.0 and 0.0: one segment
    seg[0] = -0.0
    df = pd.DataFrame({"g": g, "seg": seg, "y": rng.integers(0, 2, n), "s": np.round(rng.random(n) * 4) / 4})
    assert np.signbit(df["g"].iloc[0]) and np.signbit(df["seg"].iloc[0])
    assert ((df["g"] == 0) & ~np.signbit(df["g"])).any() and ((df["seg"] == 0) & ~np.signbit(df["seg"])).any()
    frame = engine_frame(df)
    table = as_pandas(call(engine, "per_group", frame, group="g", label="y", score="s", metrics=["auc"]), "g")
    zeros = table.index.to_numpy(np.float64)
    assert (zeros == 0).sum() == 1 and not np.signbit(zeros[zeros == 0]).any(), table.index
    out = call(engine, "report", frame, group="g", label="y", scores="s", metrics=["gauc"], by="seg")
    segs = out.index.get_level_values("seg").to_numpy(np.float64)
    assert sorted(segs.tolist()) == [0.0, 1.0] and not np.signbit(segs).any(), out.index
    assert_same(out, pre.report(df, group="g", label="y", scores="s", metrics=["gauc"], by="seg"))
