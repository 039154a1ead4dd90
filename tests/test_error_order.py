"""A table with two problems at once gets pandas' first error from every engine.

pandas meets the problems of a table in one order (infinite labels, bad sample weights, a ``by``
that varies within a group, negative labels, labels too large for ``gain='exp2'``, labels above a
metric's top grade, labels other than 0/1 or scores outside [0, 1] for the calibration metrics, a
weight callable pandas refuses, groups with no relevant row under ``empty='error'``); the engines
that read a table in parts find them in other passes and must still raise the same first one,
with the whole table's counts.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
dd = pytest.importorskip("dask.dataframe")

BASE = pd.DataFrame({"g": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "y": [1, 0, 0, 1, 1, 0, 0, 1, 1, 0],
                     "s": [.1, .2, .3, .4, .5, .6, .7, .8, .85, .9], "seg": list("aabbaabbaa"), "w": [1.0] * 10})

#: problem -> (the rows changed, the options it needs); each touches rows no other one touches
PROBLEMS: dict[str, tuple[Callable[[pd.DataFrame], pd.DataFrame], dict[str, Any]]] = {
    "infinite_label": (lambda d: d.assign(y=d.y.astype(float).where(d.index != 0, np.inf)), {}),
    "negative_label": (lambda d: d.assign(y=d.y.where(d.index != 2, -1)), {}),
    "bad_weight": (lambda d: d.assign(w=d.w.where(d.index != 3, -1.0)), {"sample_weight": "w"}),
    "mixed_by": (lambda d: d.assign(seg=d.seg.where(d.index != 4, "z")), {"by": "seg"}),
    "exp2_label": (lambda d: d.assign(y=d.y.where(d.index != 5, 2000)), {}),
    "label_grade": (lambda d: d.assign(y=d.y.where(d.index != 7, 7)), {}),
    "probability": (lambda d: d.assign(s=d.s.where(d.index != 6, 1.5)), {}),
    "empty": (lambda d: d.assign(y=d.y.where(d.g != 5, 0)), {"empty": "error"}),
}
#: a sample weight with a list or graded metric is an option error, raised before any value is read
#: (pinned in test_sample_weight_with_a_list_metric_is_refused_first)
_GRADED = {"negative_label", "exp2_label", "label_grade", "empty"}
PAIRS = [p for p in itertools.combinations(PROBLEMS, 2) if not ("bad_weight" in p and _GRADED & set(p))]


def _table(pair: tuple[str, str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    d, kw = BASE.copy(), {}
    for name in pair:
        d = PROBLEMS[name][0](d)
        kw.update(PROBLEMS[name][1])
    kw["metrics"] = ["auc", "gauc", "logloss"] if "sample_weight" in kw else ["gauc", "ndcg", "err", "logloss"]
    return d, kw


def _first_error(frame: Any, kw: dict[str, Any]) -> tuple[type, str]:
    frame, options = frame if isinstance(frame, tuple) else (frame, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            pre.report(frame, group="g", label="y", scores=["s"], engine_options=options, **kw)
    return type(info.value), str(info.value)


ENGINES = {
    "polars": lambda d: pl.from_pandas(d),
    "lazy": lambda d: pl.from_pandas(d).lazy(),  # fits in memory: one collect, the eager path
    "lazy-buckets": lambda d: (pl.from_pandas(d).lazy(), {"buckets": 2}),  # (frame, engine_options)
    "duckdb": lambda d: duckdb.from_df(d),
    "dask": lambda d: dd.from_pandas(d, npartitions=2),
}


@pytest.mark.parametrize("pair", PAIRS, ids="+".join)
def test_every_engine_raises_pandas_first_error(pair: tuple[str, str]) -> None:
    d, kw = _table(pair)
    want = _first_error(d, kw)
    assert any(word in want[1] for word in ("infinite", "negative", "constant", "2**label", "grade", "[0, 1]",
                                            "no relevant row", "weight"))
    for name, make in ENGINES.items():
        assert _first_error(make(d), kw) == want, name


def test_pandas_order_of_the_problems() -> None:
    """The order itself, pinned: each problem wins against every later one."""
    order = list(PROBLEMS)
    marks = {"infinite_label": "infinite value", "negative_label": "negative label", "bad_weight": "(weight)",
             "mixed_by": "must be constant", "exp2_label": "gain='exp2'", "label_grade": "above grade 4",
             "probability": "outside [0, 1]", "empty": "no relevant row"}
    ranked = ["infinite_label", "bad_weight", "mixed_by", "negative_label", "exp2_label", "label_grade",
              "probability", "empty"]
    assert sorted(order) == sorted(ranked)
    for pair in PAIRS:
        d, kw = _table(pair)
        first = min(pair, key=ranked.index)
        assert marks[first] in _first_error(d, kw)[1], pair


def test_labels_above_the_top_grade_are_counted_over_the_whole_table() -> None:
    """ERR's grades: the count and the largest label are the whole table's on every engine, before
    any sort (two partitions of Dask each hold some)."""
    d = pd.DataFrame({"g": [1, 1, 2, 2, 3, 3], "y": [5, 0, 0, 9, 6, 1], "s": [.1, .2, .3, .4, .5, .6]})
    kw = {"metrics": ["err@3", "ndcg"]}
    want = _first_error(d, kw)
    assert "3 rows above grade 4 (labels up to 9); err@3 reads labels as grades 0 to 4" in want[1]
    for make in ENGINES.values():
        assert _first_error(make(d), kw) == want


def test_sample_weight_with_a_list_metric_is_refused_first() -> None:
    """An option error comes before every problem of the values, on every engine."""
    d, kw = _table(("bad_weight", "negative_label"))
    kw["metrics"] = ["auc", "ndcg"]
    want = _first_error(d, kw)
    assert want[1].startswith("The 'sample_weight' parameter of report applies to 'auc', 'gauc'")
    for make in ENGINES.values():
        assert _first_error(make(d), kw) == want


@pytest.mark.parametrize("weight", ["callable", "series"])
def test_a_group_weight_error_comes_before_groups_with_no_relevant_row(weight: str) -> None:
    """pandas refuses a bad group weight before it meets a group with no relevant row under
    ``empty='error'``. Dask (and Spark) recount the values they cannot see on a weight error when a
    calibration metric reads the scores: that recount ran with ``empty='error'`` and raised the empty
    group first."""
    d = BASE.assign(y=BASE.y.where(BASE.g != 5, 0))  # group 5: no relevant row
    w: Any = (lambda st: st["n"] - 2.0 - (st.index == 3)) if weight == "callable" else pd.Series(
        [1.0, 1.0, -1.0, 1.0, 1.0], index=[1, 2, 3, 4, 5])
    kw = {"metrics": ["gauc", "ndcg", "logloss"], "empty": "error", "weight": w}
    want = _first_error(d, kw)
    assert "'weight'" in want[1] and "1 groups" in want[1], want
    for name, make in ENGINES.items():
        assert _first_error(make(d), kw) == want, name


@pytest.mark.parametrize("func", ["report", "per_group"])
@pytest.mark.parametrize("weight", ["callable", "series"])
def test_a_missing_value_comes_before_a_group_weight_error(func: str, weight: str) -> None:
    """Under nan_policy='raise' pandas counts the missing values first. Dask's early weight check
    reads the complete rows only, so it raised the weight error where pandas names the missing
    scores (report and the lazy per_group)."""
    d = BASE.assign(s=BASE.s.where(~BASE.index.isin([1, 6, 9]), np.nan))
    w: Any = (lambda st: st["n"] - 2.0 - (st.index == 3)) if weight == "callable" else pd.Series(
        [1.0, 1.0, -1.0, 1.0, 1.0], index=[1, 2, 3, 4, 5])
    kw: dict[str, Any] = {"group": "g", "label": "y", "metrics": ["mrr"], "weight": w}
    kw.update({"scores": ["s"]} if func == "report" else {"score": "s"})

    def error(frame: Any) -> str:
        frame, options = frame if isinstance(frame, tuple) else (frame, None)
        with pytest.raises(ValueError) as info:
            out = getattr(pre, func)(frame, engine_options=options, **kw)
            getattr(out, "compute", lambda: None)()
        return f"{type(info.value).__name__}: {info.value}"

    want = error(BASE.assign(s=d.s))
    assert "has 3 missing values" in want
    for name, make in ENGINES.items():  # each engine in its users' word for a missing value
        words = {"polars": "(null or NaN)", "lazy": "(null or NaN)", "duckdb": "(NULL or NaN)"}
        word = next((w for k, w in words.items() if k in name.lower()), "(NaN/None)")
        assert error(make(d)) == want.replace("(NaN/None)", word), name


def test_spark_raises_pandas_first_error_before_any_bucket(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark's scan raised the values' problems (negative labels, labels other than 0/1, scores
    outside [0, 1]) before a ``by`` that varies within a group and the labels above ERR's top grade
    joined them, and did not count those labels at all (they came from the buckets): two tables of
    three problems each, pandas' first error with its whole-table count, before any bucket (found by
    an audit of the engines' errors; the other engines: test_every_engine_raises_pandas_first_error)."""
    import pandas_rankeval.engines.spark as se

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a bucket or score pass ran before the error")

    # the jobs of a call: the range pass of global AUC, the buckets (the driver's sources) and the bucket column
    for where, attr in [(se.SparkSource, "score_ranges"), (se.SparkSource, "reduce_buckets"), (se, "with_bucket")]:
        monkeypatch.setattr(where, attr, never)
    by_first, _ = _table(("mixed_by", "negative_label"))
    by_first = PROBLEMS["probability"][0](by_first)
    grade_first = PROBLEMS["empty"][0](PROBLEMS["probability"][0](BASE.assign(y=BASE.y.where(BASE.index != 3, 9))))
    grade_first = PROBLEMS["label_grade"][0](grade_first)
    for d, kw, mark in [(by_first, {"by": "seg"}, "must be constant"),
                        (grade_first, {"empty": "error"}, "2 rows above grade 4 (labels up to 9)")]:
        kw = {**kw, "metrics": ["gauc", "ndcg", "err", "logloss"]}
        want = _first_error(d, kw)
        assert mark in want[1]
        assert _first_error(spark.createDataFrame(d), kw) == want
