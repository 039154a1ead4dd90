"""The polars adapter equals pandas to 1e-12 on eager frames and LazyFrames, and raises pandas'
errors before any bucket of a LazyFrame is read.

Every test builds a small pandas frame, runs the pandas function on it as the oracle, and the
same function on a polars DataFrame and a LazyFrame of the same rows. LazyFrames run with tiny
``rows_per_bucket`` so that groups spread over several buckets and the global-AUC count cuts
every score column into several ranges (40% of column ``t`` shares one score: its run of ties
sits at a range boundary); ``lazy-memory`` is a LazyFrame with the default options, which fits
in memory: one collect, then the eager path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import pandas_rankeval as pre
from pandas_rankeval.engines import polars as E

METRICS = ["auc", "gauc", "mrr", "ndcg@5", "map", "precision@3", "recall@3", "hit_rate@3"]
TOL = {"check_exact": False, "atol": 1e-12, "rtol": 0}
LAZY = {"rows_per_bucket": 40}  # ~15 buckets and ~10 score ranges on these frames


def call(func: str, frame: Any, engine_options: dict | None = None, **kw: Any) -> Any:
    """The public function on any frame."""
    return getattr(pre, func)(frame, engine_options=engine_options, **kw)


# --------------------------------------------------------------------------- #
# Frames and comparisons
# --------------------------------------------------------------------------- #
def frame(seed: int = 0, n_groups: int = 120, keys: str = "int") -> pd.DataFrame:
    """Long-tailed groups (1 to 15 rows, some with one class only), graded labels, tied scores."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 16, n_groups)
    ids = rng.permutation(n_groups) * 7 + 3
    q = np.repeat(ids, sizes)
    n = q.shape[0]
    df = pd.DataFrame(
        {
            "q": q,
            "d": np.repeat(rng.integers(0, 3, n_groups), sizes),  # second key column
            "rel": rng.integers(0, 3, n) * (rng.random(n) < 0.35),
            "a": np.round(rng.random(n), 1),  # ties everywhere
            "b": rng.normal(size=n),  # no ties
            "t": np.where(rng.random(n) < 0.4, 0.5, np.round(rng.random(n), 2)),  # 40% share one score
            "sw": rng.random(n) + 0.1,
            "pos": rng.permutation(n),  # a tie-break column
            "seg": np.where(q % 3 == 0, "x", "y"),  # constant within a group
        }
    ).sample(frac=1.0, random_state=seed)
    if keys == "str":
        df["q"] = "user-" + df["q"].astype(str)
    return df.reset_index(drop=True)


def engines(df: pd.DataFrame) -> dict[str, tuple[Any, dict]]:
    p = pl.from_pandas(df)
    return {"eager": (p, {}), "lazy": (p.lazy(), LAZY), "lazy-memory": (p.lazy(), {})}


#: The eager frame, a LazyFrame in buckets and a LazyFrame that fits in memory.
ENGINES = ["eager", "lazy", "lazy-memory"]


KEYS = {"int": ("int", "q"), "str": ("str", "q"), "multi": ("int", ["q", "d"])}


def assert_table(got: Any, want: Any) -> None:
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(got, want, **TOL)
    assert got.attrs.get("params") == want.attrs.get("params")
    assert got.attrs.get("ci") == want.attrs.get("ci")


def assert_result(got: Any, want: Any) -> None:
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


# --------------------------------------------------------------------------- #
# Every public function equals pandas
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("keys", list(KEYS))
def test_metrics_equal_pandas(engine: str, keys: str) -> None:
    kind, group = KEYS[keys]
    df = frame(1, keys=kind)
    data, opts = engines(df)[engine]
    cases: list[tuple[str, dict]] = [
        ("auc", {"label": "rel", "score": "t"}),
        ("auc", {"label": "rel", "score": "a", "sample_weight": "sw", "ties": "pessimistic"}),
        ("gauc", {"group": group, "label": "rel", "score": "a"}),
        ("gauc", {"group": group, "label": "rel", "score": "t", "sample_weight": "sw", "min_pos": 1, "min_neg": 2, "weight": "uniform"}),
        ("mrr", {"group": group, "label": "rel", "score": "b", "k": 5}),
        ("ndcg", {"group": group, "label": "rel", "score": "a", "k": 5, "gain": "linear"}),
        ("average_precision", {"group": group, "label": "rel", "score": "t", "empty": "skip"}),
        ("precision", {"group": group, "label": "rel", "score": "b", "k": 3}),
        ("recall", {"group": group, "label": "rel", "score": "a", "k": 3, "threshold": 2}),
        ("hit_rate", {"group": group, "label": "rel", "score": "t", "k": 3, "tiebreak": "pos"}),
    ]
    for func, kw in cases:
        assert_result(call(func, data, opts, **kw), getattr(pre, func)(df, **kw))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("keys", list(KEYS))
def test_report_equals_pandas(engine: str, keys: str) -> None:
    kind, group = KEYS[keys]
    df = frame(2, keys=kind)
    data, opts = engines(df)[engine]
    kw = {"group": group, "label": "rel", "scores": ["a", "b", "t"], "metrics": METRICS}
    assert_table(call("report", data, opts, **kw), pre.report(df, **kw))
    kw.update(by="seg", ci=0.9, n_boot=60, seed=7)  # DeLong for auc, hashed bootstrap for the rest
    assert_table(call("report", data, opts, **kw), pre.report(df, **kw))


@pytest.mark.parametrize("engine", ["eager", "lazy"])
@pytest.mark.parametrize("keys", list(KEYS))
def test_compare_equals_pandas(engine: str, keys: str) -> None:
    kind, group = KEYS[keys]
    df = frame(3, keys=kind)
    data, opts = engines(df)[engine]
    kw = {"group": group, "label": "rel", "scores": ["a", "b", "t"], "baseline": "a", "metrics": ["auc", "gauc", "ndcg@5"],
              "n_boot": 80, "seed": 11}
    assert_table(call("compare", data, opts, **kw), pre.compare(df, **kw))
    kw.update(method="bootstrap", ci_method="studentized", by="seg", metrics=["gauc", "mrr"])
    assert_table(call("compare", data, opts, **kw), pre.compare(df, **kw))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("keys", list(KEYS))
def test_per_group_equals_pandas(engine: str, keys: str) -> None:
    kind, group = KEYS[keys]
    df = frame(4, keys=kind)
    data, opts = engines(df)[engine]
    keys_ = [group] if isinstance(group, str) else group
    for kw in (
        {"group": group, "label": "rel", "score": "a", "metrics": ["auc", "mrr", "ndcg@5"], "tiebreak": "pos"},
        {"group": group, "label": "rel", "scores": ["a", "b"], "metrics": ["auc", "hit_rate@3"]},
    ):
        got = call("per_group", data, opts, **kw)
        assert isinstance(got, pl.DataFrame)
        want = pd.DataFrame(pre.per_group(df, **kw)).reset_index()
        got = got.to_pandas().sort_values(keys_).reset_index(drop=True)
        want = want.sort_values(keys_).reset_index(drop=True)
        want.attrs = {}
        pd.testing.assert_frame_equal(got, want, check_dtype=False, **TOL)


def test_eager_only_options_equal_pandas() -> None:
    """An eager frame is one partition: max_fpr, a bootstrap interval of global AUC and the
    multinomial bootstrap take pandas' path."""
    df = frame(5)
    data = pl.from_pandas(df)
    kw = {"label": "rel", "score": "b", "max_fpr": 0.3}
    assert_result(call("auc", data, **kw), pre.auc(df, **kw))
    kw = {"group": "q", "label": "rel", "scores": ["a", "b"], "metrics": ["auc", "gauc"], "ci": 0.9, "n_boot": 50,
          "auc_method": "bootstrap"}
    assert_table(call("report", data, **kw), pre.report(df, **kw))
    kw.update(auc_method="delong", resample="multinomial", by="seg")
    assert_table(call("report", data, **kw), pre.report(df, **kw))


@pytest.mark.parametrize(
    ("func", "kw", "match"),
    [
        ("auc", {"label": "rel", "score": "b", "max_fpr": 0.3}, "auc on a polars frame: max_fpr"),
        ("report", {"group": "q", "label": "rel", "scores": ["a"], "metrics": ["auc"], "ci": 0.9, "n_boot": 50,
                    "auc_method": "bootstrap"}, "report on a polars frame: a bootstrap ci"),
        ("compare", {"group": "q", "label": "rel", "scores": ["a", "b"], "baseline": "a", "metrics": ["gauc"],
                     "resample": "multinomial"}, "compare on a polars frame: resample='multinomial'"),
    ],
)
def test_lazy_refuses_options_without_a_partitioned_form_before_any_collect(func, kw, match, monkeypatch) -> None:
    data = pl.from_pandas(frame(5)).lazy()
    counter = Collects(monkeypatch)
    with pytest.raises(ValueError, match=match):
        call(func, data, **kw)
    assert counter.heights == []


def test_engine_options_are_checked() -> None:
    data = pl.from_pandas(frame(5))
    kw = {"group": "q", "label": "rel", "score": "a"}
    with pytest.raises(ValueError, match=r"'engine_options' parameter of gauc has \['npartitions'\]"):
        call("gauc", data.lazy(), {"npartitions": 2}, **kw)
    with pytest.raises(ValueError, match="'buckets' engine option of gauc"):
        call("gauc", data.lazy(), {"buckets": 0}, **kw)
    assert_result(call("gauc", data, {"buckets": 3}, **kw), pre.gauc(frame(5), **kw))  # one partition: no-op


def test_lazy_over_parquet_with_ties_across_buckets_and_ranges(tmp_path) -> None:
    """Rows sorted by score in several files: runs of tied scores cross files, buckets and ranges."""
    df = frame(6, n_groups=300).sort_values("t", kind="stable").reset_index(drop=True)
    for i, piece in enumerate(np.array_split(np.arange(len(df)), 5)):
        pl.from_pandas(df.iloc[piece]).write_parquet(tmp_path / f"part-{i}.parquet")
    lf = pl.scan_parquet(tmp_path / "*.parquet")
    kw = {"group": "q", "label": "rel", "scores": ["t", "a"], "metrics": ["auc", "gauc", "mrr"], "by": "seg", "ci": 0.9,
              "n_boot": 40}
    # in memory (five files: columns of several chunks), buckets asked for, and the automatic buckets
    # of a small memory_budget (~215 rows each by the estimate, 464 bytes a row here: a dozen buckets)
    for opts in ({}, {"rows_per_bucket": 25}, {"buckets": 1}, {"buckets": 7, "rows_per_bucket": 10**9},
                 {"memory_budget": 100_000}):
        assert_table(call("report", lf, opts, **kw), pre.report(df, **kw))


# --------------------------------------------------------------------------- #
# Missing values and bad input
# --------------------------------------------------------------------------- #
def with_nulls(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    out.loc[out.index[::11], "a"] = np.nan
    out["rel"] = out["rel"].astype("Int64")
    out.loc[out.index[3::17], "rel"] = pd.NA
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_nulls_omit_equal_pandas(engine: str) -> None:
    df = with_nulls(frame(7))
    data, opts = engines(df)[engine]
    kw = {"group": "q", "label": "rel", "scores": ["a", "b"], "metrics": METRICS, "nan_policy": "omit", "by": "seg"}
    assert_table(call("report", data, opts, **kw), pre.report(df, **kw))
    kw1 = {"label": "rel", "score": "a", "nan_policy": "omit"}
    assert_result(call("auc", data, opts, **kw1), pre.auc(df, **kw1))
    kw1 = {"group": "q", "label": "rel", "score": "a", "nan_policy": "omit"}
    assert_result(call("gauc", data, opts, **kw1), pre.gauc(df, **kw1))


class Collects:
    """Counts the collects of LazyFrames (and what each returned)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.heights: list[int] = []
        real = pl.LazyFrame.collect

        def collect(lf: pl.LazyFrame, *a: Any, **k: Any) -> pl.DataFrame:
            out = real(lf, *a, **k)
            self.heights.append(out.height)
            return out

        monkeypatch.setattr(pl.LazyFrame, "collect", collect)


def _message(fn: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def _boom(s: pl.Series) -> pl.Series:
    raise AssertionError("a column of this LazyFrame was read")


@pytest.mark.parametrize(
    "case",
    ["text score", "missing column", "text label", "missing weight column"],
)
def test_schema_errors_equal_pandas_without_reading(case: str) -> None:
    df = frame(8)
    df["txt"] = df["a"].astype(str)
    kw: dict[str, Any] = {"group": "q", "label": "rel", "score": "a"}
    if case == "text score":
        kw["score"] = "txt"
    elif case == "missing column":
        kw["score"] = "aa"
    elif case == "text label":
        kw["label"] = "txt"
    else:
        kw["weight"] = "gmv"
    want = _message(lambda: pre.gauc(df, **kw))
    if case.startswith("text"):  # the same error, with polars' conversion as the fix
        assert "pd.to_numeric(df['txt'])" in want[1]
        want = (want[0], want[1].replace("pd.to_numeric(df['txt'])", "df.with_columns(pl.col('txt').cast(pl.Float64))"))
    p = pl.from_pandas(df)
    assert _message(lambda: call("gauc", p, **kw)) == want
    # a LazyFrame whose every column raises when read: the schema alone answers
    lf = p.lazy().select([pl.col(c).map_batches(_boom, return_dtype=t) for c, t in p.schema.items()])
    assert _message(lambda: call("gauc", lf, LAZY, **kw)) == want


@pytest.mark.parametrize("case", ["null labels", "null keys", "nan scores", "infinite labels", "negative weights",
                                  "negative labels", "all rows missing"])
@pytest.mark.parametrize("engine", ENGINES)
def test_value_errors_equal_pandas_before_any_bucket(case: str, engine: str, monkeypatch) -> None:
    df = frame(9)
    kw: dict[str, Any] = {"group": "q", "label": "rel", "scores": ["a", "b"], "metrics": ["auc", "gauc", "ndcg@5"]}
    if case == "null labels":
        df["rel"] = df["rel"].astype(float)
        df.loc[df.index[::9], "rel"] = np.nan
    elif case == "null keys":
        df["q"] = df["q"].astype("Int64")
        df.loc[df.index[5::13], "q"] = pd.NA
    elif case == "nan scores":
        df.loc[df.index[::7], "b"] = np.nan
    elif case == "infinite labels":
        df["rel"] = df["rel"].astype(float)
        df.loc[df.index[::9], "rel"] = np.inf
    elif case == "negative weights":
        df["w"] = df["sw"]
        df.loc[df.index[::9], "w"] = -1.0
        kw["weight"] = "w"
        kw["metrics"] = ["gauc", "mrr"]
    elif case == "negative labels":
        df.loc[df.index[::9], "rel"] = -1
    else:
        df["a"] = np.nan
        kw["nan_policy"] = "omit"
    want = _message(lambda: pre.report(df, **kw))
    data, opts = engines(df)[engine]
    counter = Collects(monkeypatch)
    got = _message(lambda: call("report", data, opts, **kw))
    assert (got[0], got[1].replace("(null or NaN)", "(NaN/None)")) == want  # polars says null
    if engine == "lazy":  # one collect, of one row: the scan's aggregate; no bucket was read
        assert counter.heights == [1]
    if engine == "lazy-memory":  # the row count, then the one collect of the eager path
        assert counter.heights == [1, len(df)]


# --------------------------------------------------------------------------- #
# The adapter's pieces
# --------------------------------------------------------------------------- #
def test_schema_maps_dtypes_as_pandas_gives_them() -> None:
    import datetime as dt

    p = pl.DataFrame({
        "i": pl.Series([1], dtype=pl.Int32), "u": pl.Series([1], dtype=pl.UInt64), "f": pl.Series([1.0], dtype=pl.Float32),
        "b": [True], "s": ["x"], "c": pl.Series(["x"], dtype=pl.Categorical), "d": [dt.date(2024, 1, 2)],
        "t": [dt.datetime(2024, 1, 2)],
    })
    got = E.schema(p)
    want = p.to_pandas().dtypes
    assert list(got.columns) == list(p.columns)
    for c in p.columns:
        assert str(got[c].dtype) == str(want[c]), c
    assert list(E.schema(p.lazy()).dtypes) == list(got.dtypes)


def test_eager_numeric_columns_are_not_copied() -> None:
    from pandas_rankeval.engines.polars.convert import to_pandas

    p = pl.DataFrame({"q": np.arange(1000) // 3, "y": np.arange(1000) % 2, "s": np.linspace(0, 1, 1000),
                      "x": ["a"] * 1000})
    pdf = to_pandas(p, ["q", "y", "s"])
    assert list(pdf.columns) == ["q", "y", "s"]  # only the plan's columns
    for c in ("q", "y", "s"):
        assert np.shares_memory(pdf[c].to_numpy(), p.get_column(c).to_numpy()), c


def test_check_options() -> None:
    assert E.check_options({}, "gauc") == {"rows_per_bucket": None, "buckets": None, "threads": None,
                                           "memory_budget": 2 * 1024**3}
    with pytest.raises(ValueError, match=r"^The 'memory_budget' engine option of gauc must be an int in the range "
                                         r"\[1, inf\)\. Got 0 instead\.$"):
        E.check_options({"memory_budget": 0}, "gauc")
    with pytest.raises(ValueError, match="'threads' engine option of gauc"):
        E.check_options({"threads": 0}, "gauc")
    with pytest.raises(ValueError, match="'buckets' engine option of gauc"):
        E.check_options({"buckets": 0}, "gauc")
    with pytest.raises(ValueError, match="'rows_per_bucket' engine option of gauc"):
        E.check_options({"rows_per_bucket": -1}, "gauc")
    assert E.partitioned(pl.LazyFrame({"a": [1]})) and not E.partitioned(pl.DataFrame({"a": [1]}))


def test_namespace_on_dataframe_and_lazyframe() -> None:
    from pandas_rankeval.accessor import PolarsRankevalNamespace

    df = frame(12)
    p = pl.from_pandas(df)
    kw = {"group": "q", "label": "rel", "scores": ["a", "b"], "metrics": METRICS}
    for obj in (p, p.lazy()):
        ns = obj.rankeval
        assert isinstance(ns, PolarsRankevalNamespace)
        assert {"gauc", "report", "compare", "per_group", "map"} <= set(dir(ns))
        assert_result(ns.gauc(group="q", label="rel", score="a"), pre.gauc(df, group="q", label="rel", score="a"))
        assert_result(ns.map(group="q", label="rel", score="t"), pre.map(df, group="q", label="rel", score="t"))
        assert_table(ns.report(**kw), pre.report(df, **kw))
    with pytest.raises(AttributeError, match="The metrics are"):
        p.rankeval.gacu  # noqa: B018


def test_import_registers_the_namespace_in_either_import_order() -> None:
    """`import pandas_rankeval` before `import polars` left pl.DataFrame.rankeval
    missing; it is registered when polars is first imported (pandas_rankeval never imports it),
    and Dask's ddf.rank likewise."""
    import subprocess
    import sys

    code = (
        "import sys, pandas_rankeval; print('polars' in sys.modules, 'dask' in sys.modules); "
        "import polars as pl; print(hasattr(pl.DataFrame, 'rankeval'), hasattr(pl.LazyFrame, 'rankeval')); "
        "import pandas as pd, dask.dataframe as dd; "
        "ddf = dd.from_pandas(pd.DataFrame({'u': [1, 1], 'y': [0, 1], 's': [0.1, 0.2]}), npartitions=1); "
        "print(ddf.rank.gauc(group='u', label='y', score='s'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "True", "True", "1.0"]  # pandas_rankeval imports neither
    code = "import polars as pl, pandas_rankeval; print(hasattr(pl.DataFrame, 'rankeval'), hasattr(pl.LazyFrame, 'rankeval'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True"]


@pytest.mark.parametrize("engine", ENGINES)
def test_dtypes_equal_pandas(engine: str) -> None:
    """Bool labels, float32 and 64-bit integer scores (beyond 2**53), categorical keys, two
    segment columns and a per-group weight Series."""
    df = frame(10)
    df["click"] = df["rel"] > 0
    df["f32"] = df["b"].astype(np.float32)
    df["big"] = (2**60 + np.round(df["a"] * 10).astype(np.int64) * 3).astype(np.int64)  # ties, > 2**53
    df["cat"] = pd.Categorical("c" + df["q"].astype(str))
    df["seg2"] = np.where(df["q"] % 40 < 20, 1, 2)
    data, opts = engines(df)[engine]
    keys = sorted(df["cat"].unique())
    w = pd.Series(np.arange(len(keys), dtype=float) + 1, index=pd.Index(keys))
    kw = {"group": "cat", "label": "click", "scores": ["f32", "big", "a"], "metrics": ["auc", "gauc", "mrr"],
              "by": ["seg", "seg2"], "weight": w, "ci": 0.9, "n_boot": 40}
    assert_table(call("report", data, opts, **kw), pre.report(df, **kw))


# --------------------------------------------------------------------------- #
# A LazyFrame that fits in memory: one collect, the eager path
# --------------------------------------------------------------------------- #
def test_lazy_in_memory_is_the_eager_path_to_the_bit(monkeypatch) -> None:
    """A LazyFrame within the memory budget paid a scan, a range pass per score and its
    buckets (2.9x the eager call at 1e7 rows). Now: one row count and one collect of the plan's
    columns, then the eager path: every number equal to pandas' and the eager frame's to the bit,
    the input untouched."""
    df = frame(13, keys="str")
    p = pl.from_pandas(df)
    lf = p.lazy().with_columns(pl.col("a") * 1.0)  # a plan, not just a frame in memory
    before = lf.collect()
    kw = {"group": "q", "label": "rel", "scores": ["a", "b", "t"], "metrics": METRICS, "by": "seg", "ci": 0.9,
          "n_boot": 40, "seed": 3}
    cmp = {"group": "q", "label": "rel", "scores": ["a", "t"], "baseline": "a", "metrics": ["auc", "gauc", "mrr"],
           "n_boot": 40, "seed": 5}
    calls = [("report", kw), ("compare", cmp), ("gauc", {"group": "q", "label": "rel", "score": "t"}),
             ("auc", {"label": "rel", "score": "t", "sample_weight": "sw"})]
    for func, kwargs in calls:
        want = call(func, df, **kwargs)
        counter = Collects(monkeypatch)
        got = call(func, lf, **kwargs)
        assert counter.heights == [1, len(df)], func  # the row count, the one collect
        for other in (got, call(func, p, **kwargs)):
            if isinstance(want, pre.MetricResult):
                assert float(other) == float(want) and other.coverage.as_dict() == want.coverage.as_dict()
            else:
                pd.testing.assert_frame_equal(pd.DataFrame(other), pd.DataFrame(want), check_exact=True)
        monkeypatch.undo()
    pg = {"group": "q", "label": "rel", "scores": ["a", "b"], "metrics": ["auc", "mrr", "ndcg@5"]}
    pd.testing.assert_frame_equal(call("per_group", lf, **pg).to_pandas(), call("per_group", p, **pg).to_pandas(),
                                  check_exact=True)
    assert lf.collect().equals(before)


def _spy_buckets(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of buckets of every bucketed read of a LazyFrame."""
    from pandas_rankeval.engines.polars import lazy

    seen: list[int] = []
    real = lazy.buckets

    def spy(lf: Any, bucket: Any, n_buckets: int, tmp: str) -> Any:
        seen.append(n_buckets)
        return real(lf, bucket, n_buckets, tmp)

    monkeypatch.setattr(lazy, "buckets", spy)
    return seen


def test_memory_budget_decides_one_collect_or_buckets(monkeypatch) -> None:
    """The rule of engines/polars/memory.py: rows x the estimated bytes per row within
    ``memory_budget``: one collect; one byte less: buckets that the budget holds (here 40 rows
    each, so that groups and the ties of column ``t`` spread over buckets and ranges); ``buckets``
    or ``rows_per_bucket`` given: buckets whatever the budget. Every way pandas' numbers."""
    from pandas_rankeval.engines.polars.memory import row_bytes
    from pandas_rankeval.summary import make_plan

    df = frame(14)
    lf = pl.from_pandas(df).lazy()
    kw = {"group": "q", "label": "rel", "scores": ["t", "a"], "metrics": ["auc", "gauc", "mrr", "ndcg@5"]}
    plan = make_plan("report", kind="report", df=E.schema(lf), **kw)
    per_row = row_bytes(plan, lf.collect_schema())
    want = pre.report(df, **kw)
    n, n_groups = len(df), df["q"].nunique()

    def expected(budget: int) -> list[int]:  # buckets of the rows the budget holds, never more than groups
        return [min(-(-n // (budget // per_row)), n_groups)]

    exact = n * per_row
    cases = [({"memory_budget": exact}, []), ({"memory_budget": exact - 1}, expected(exact - 1)),
             ({"memory_budget": 40 * per_row}, expected(40 * per_row)), ({"buckets": 3, "memory_budget": 10**12}, [3]),
             ({"rows_per_bucket": 10**9}, [1])]
    assert expected(exact - 1) == [2] and expected(40 * per_row)[0] > 10
    for options, buckets in cases:
        seen = _spy_buckets(monkeypatch)
        assert_table(call("report", lf, options, **kw), want)
        assert seen == buckets, options
        monkeypatch.undo()
