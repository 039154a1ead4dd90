"""Every error a user can meet: the message names the column or parameter, the count and the fix."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import ColumnNotFoundError


@pytest.fixture
def df() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "user_id": [1, 1, 1, 2, 2, 2],
            "click": [1, 0, 0, 0, 1, 0],
            "model_a": [0.9, 0.1, 0.4, 0.3, 0.8, 0.2],
            "gmv": [10.0, 0.0, 1.0, 2.0, 3.0, 4.0],
        }
    )


GROUPED = [pre.gauc, pre.mrr, pre.ndcg, pre.average_precision, pre.precision, pre.recall, pre.hit_rate]


@pytest.mark.parametrize("func", GROUPED)
def test_missing_group_column_suggests_the_close_name(df, func):
    with pytest.raises(ColumnNotFoundError, match=r"not found: \['user'\]\. Did you mean 'user_id'\?"):
        func(df, group="user", label="click", score="model_a")


@pytest.mark.parametrize("typed", ["Model_A", "MODEL_A", "model_A"])
def test_a_name_that_differs_in_case_only_suggests_that_column(df, typed):
    """'Model_A' suggested 'model_b' (difflib ties it with 'model_a' and takes the
    larger) and 'MODEL_A' got no suggestion at all: names are compared case-insensitively first."""
    frame = df.assign(model_b=df["model_a"])
    with pytest.raises(ColumnNotFoundError, match=rf"not found: \['{typed}'\]\. Did you mean 'model_a'\?$"):
        pre.gauc(frame, group="user_id", label="click", score=typed)
    with pytest.raises(KeyError, match=r"Got 'Clicks', which is neither\. Did you mean 'clicks'\?"):
        pre.gauc(frame, group="user_id", label="click", score="model_a", weight="Clicks")


def test_missing_columns_are_listed_together(df):
    with pytest.raises(KeyError, match=r"\['clik', 'model_c'\]"):
        pre.gauc(df, group="user_id", label="clik", score="model_c")


def test_missing_column_without_a_close_name_lists_the_columns(df):
    with pytest.raises(KeyError, match=r"Available columns: \['user_id', 'click', 'model_a', 'gmv'\]"):
        pre.auc(df, label="click", score="zzzzzz")


def test_column_error_message_is_not_quoted_twice(df):
    with pytest.raises(KeyError) as info:
        pre.auc(df, label="click", score="model")
    assert str(info.value).startswith("The following columns")


@pytest.mark.parametrize("column", ["user_id", "click", "model_a"])
def test_nan_is_counted_and_named(df, column):
    bad = df.astype({column: "float64"})
    bad.loc[[0, 3], column] = np.nan
    with pytest.raises(ValueError, match=rf"Column '{column}' has 2 missing values .*nan_policy='omit'"):
        pre.gauc(bad, group="user_id", label="click", score="model_a")


def test_none_in_object_group_column(df):
    bad = df.astype({"user_id": object})
    bad.loc[2, "user_id"] = None
    with pytest.raises(ValueError, match=r"Column 'user_id' has 1 missing value \(NaN/None\)"):
        pre.mrr(bad, group="user_id", label="click", score="model_a")


def test_nan_in_several_columns_names_all(df):
    bad = df.copy()
    bad.loc[0, "model_a"] = np.nan
    bad.loc[1, "click"] = np.nan
    with pytest.raises(ValueError, match=r"also missing values in \['model_a'\]"):
        pre.gauc(bad, group="user_id", label="click", score="model_a")


def test_nan_policy_omit_drops_and_reports(df):
    bad = df.copy()
    bad.loc[[1, 4], "model_a"] = np.nan
    r = pre.gauc(bad, group="user_id", label="click", score="model_a", nan_policy="omit")
    expected = pre.gauc(df.drop(index=[1, 4]), group="user_id", label="click", score="model_a")
    assert float(r) == float(expected)
    assert r.coverage.n_dropped == 2
    assert "2 rows with missing values dropped" in str(r.coverage)


def test_nan_policy_omit_every_row(df):
    bad = df.assign(model_a=np.nan)
    with pytest.raises(ValueError, match="every row has a missing value"):
        pre.auc(bad, label="click", score="model_a", nan_policy="omit")


def test_nullable_dtypes_with_na(df):
    bad = df.astype({"click": "Int64"})
    bad.loc[0, "click"] = pd.NA
    with pytest.raises(ValueError, match=r"Column 'click' has 1 missing value"):
        pre.auc(bad, label="click", score="model_a")


def test_non_numeric_score(df):
    bad = df.assign(model_a=df["model_a"].astype(str))
    with pytest.raises(TypeError, match=r"Column 'model_a' \(score\) must be numeric or bool.*pd.to_numeric"):
        pre.gauc(bad, group="user_id", label="click", score="model_a")


def test_non_numeric_label(df):
    bad = df.assign(click=np.where(df["click"] == 1, "yes", "no"))
    with pytest.raises(TypeError, match=r"Column 'click' \(label\) must be numeric or bool"):
        pre.auc(bad, label="click", score="model_a")


def test_infinite_label(df):
    bad = df.assign(click=df["click"].astype(float))
    bad.loc[0, "click"] = np.inf
    with pytest.raises(ValueError, match=r"Column 'click' \(label\) has 1 infinite value"):
        pre.auc(bad, label="click", score="model_a")


def test_infinite_scores_are_ordinary(df):
    inf = df.assign(model_a=df["model_a"].where(df["click"] == 0, np.inf))
    assert pre.auc(inf, label="click", score="model_a") == 1.0


def test_empty_frame(df):
    with pytest.raises(ValueError, match=r"empty DataFrame \(0 rows\)"):
        pre.gauc(df.iloc[:0], group="user_id", label="click", score="model_a")


def test_not_a_frame():
    with pytest.raises(TypeError, match="expects a pandas DataFrame.*got dict"):
        pre.auc({"a": [1]}, label="a", score="a")  # type: ignore[arg-type]


def test_unknown_weight_name(df):
    with pytest.raises(KeyError, match=r"'count', 'clicks', 'log1p', 'uniform' or a column name\. Got 'counts'.*Did you mean 'count'\?"):
        pre.gauc(df, group="user_id", label="click", score="model_a", weight="counts")


def test_weight_of_the_wrong_type(df):
    with pytest.raises(TypeError, match="The 'weight' parameter of gauc must be one of"):
        pre.gauc(df, group="user_id", label="click", score="model_a", weight=3)  # type: ignore[arg-type]


def test_negative_weight_column(df):
    bad = df.assign(gmv=df["gmv"] - 5)
    with pytest.raises(ValueError, match=r"Column 'gmv' \(weight\) has 5 negative or infinite values"):
        pre.gauc(bad, group="user_id", label="click", score="model_a", weight="gmv")


def test_negative_weight_from_callable(df):
    with pytest.raises(ValueError, match=r"must be finite and >= 0; 2 groups"):
        pre.gauc(df, group="user_id", label="click", score="model_a", weight=lambda s: -s["n"])


def test_weight_callable_of_the_wrong_length(df):
    with pytest.raises(ValueError, match=r"returned 3 values for 2 groups"):
        pre.gauc(df, group="user_id", label="click", score="model_a", weight=lambda s: [1, 2, 3])


@pytest.mark.parametrize("engine", ["pandas", "polars-lazy", "polars-lazy-buckets"])
def test_weight_callable_that_raises_is_named(df, engine):
    """A weight callable's own error came out bare (a KeyError 'clicks' with no
    word of the weight): a ValueError names the parameter and what the callable got, raised from
    the callable's error (on pandas, which calls it per partition, and on a LazyFrame, which
    calls it once on the whole table's statistics)."""
    frame: object = df
    if engine.startswith("polars-lazy"):  # in memory (one collect, the eager path), or in buckets
        frame = pytest.importorskip("polars").from_pandas(df).lazy()
    options = {"buckets": 2} if engine == "polars-lazy-buckets" else None
    with pytest.raises(ValueError, match=r"^The 'weight' callable of gauc raised KeyError: 'clicks' \(it was called "
                                         r"with the per-group statistics: a frame indexed by group key with columns "
                                         r"n, positives, negatives\)\. Fix the callable") as err:
        pre.gauc(frame, group="user_id", label="click", score="model_a", weight=lambda st: st["clicks"],
                 engine_options=options)
    assert isinstance(err.value.__cause__, KeyError) and err.value.__cause__.args == ("clicks",)


def test_propensity_callable_that_raises_is_named(df):
    """A propensity callable that raised a ValueError was reported as "must return
    numbers" (its own message lost), any other error came out bare; both now name the parameter
    and the positions it got, raised from the callable's error."""
    frame = df.assign(pos=[1, 2, 3, 1, 2, 3])
    kw = dict(group="user_id", label="click", score="model_a", position="pos", k=3)

    def refuses(p):
        raise ValueError("no curve fitted yet")

    for fn, kind, text in [(refuses, ValueError, "no curve fitted yet"), (lambda p: 1 / 0, ZeroDivisionError, "division by zero")]:
        with pytest.raises(ValueError, match=rf"^The 'propensity' callable of ips_dcg raised {kind.__name__}: {text} "
                                             r"\(it was called with the 3 distinct positions, a float64 array\)") as err:
            pre.ips_dcg(frame, propensity=fn, **kw)
        assert type(err.value.__cause__) is kind
    with pytest.raises(TypeError, match="The 'propensity' callable of ips_dcg must return numbers"):
        pre.ips_dcg(frame, propensity=lambda p: ["a"] * len(p), **kw)


def test_weight_series_missing_a_group(df):
    w = pd.Series({1: 2.0})
    with pytest.raises(ValueError, match=r"no value for 1 of 2 groups \(for example \[2\]\)"):
        pre.gauc(df, group="user_id", label="click", score="model_a", weight=w)


@pytest.mark.parametrize("k", [0, -1, 2.5, "10", True])
@pytest.mark.parametrize("func", [pre.ndcg, pre.precision, pre.recall, pre.hit_rate, pre.mrr, pre.average_precision])
def test_bad_k(df, func, k):
    name = func.__name__  # the function the user called, also for average_precision
    with pytest.raises(ValueError, match=rf"The 'k' parameter of {name} must be an int in the range \[1, inf\)"):
        func(df, group="user_id", label="click", score="model_a", k=k)


@pytest.mark.parametrize("func", [pre.precision, pre.recall, pre.hit_rate])
def test_k_none_is_not_allowed_where_a_cutoff_is_the_metric(df, func):
    with pytest.raises(ValueError, match=r"range \[1, inf\)\. Got None"):
        func(df, group="user_id", label="click", score="model_a", k=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "param, value, choices",
    [
        ("ties", "random", "'expected', 'pessimistic', 'optimistic'"),
        ("empty", "nan", "'zero', 'skip', 'error'"),
        ("nan_policy", "drop", "'raise', 'omit'"),
    ],
)
def test_bad_options(df, param, value, choices):
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of mrr must be one of {choices}\. Got '{value}'"):
        pre.mrr(df, group="user_id", label="click", score="model_a", **{param: value})


def test_bad_gain_and_denominator(df):
    with pytest.raises(ValueError, match=r"'gain' parameter of ndcg must be one of 'exp2', 'linear'"):
        pre.ndcg(df, group="user_id", label="click", score="model_a", gain="log")
    with pytest.raises(ValueError, match=r"'denominator' parameter of average_precision must be one of 'relevant', 'min_k'"):
        pre.average_precision(df, group="user_id", label="click", score="model_a", denominator="k")


def test_bad_engine(df):
    with pytest.raises(ValueError, match=r"'engine' parameter of gauc must be one of 'numpy', 'sklearn'"):
        pre.gauc(df, group="user_id", label="click", score="model_a", engine="spark")


@pytest.mark.parametrize("param", ["min_size", "min_pos", "min_neg"])
def test_bad_filters(df, param):
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of gauc must be an int in the range \[0, inf\) or None"):
        pre.gauc(df, group="user_id", label="click", score="model_a", **{param: -1})


@pytest.mark.parametrize("max_fpr", [0, 1.5, "x"])
def test_bad_max_fpr(df, max_fpr):
    with pytest.raises(ValueError, match=r"'max_fpr' parameter of auc must be a float in the range \(0, 1\]"):
        pre.auc(df, label="click", score="model_a", max_fpr=max_fpr)


@pytest.mark.parametrize("threshold", [np.nan, "1", True])
def test_bad_threshold(df, threshold):
    with pytest.raises(ValueError, match=r"'threshold' parameter of gauc must be a finite number or None"):
        pre.gauc(df, group="user_id", label="click", score="model_a", threshold=threshold)


def test_negative_labels_for_ndcg(df):
    bad = df.assign(click=df["click"] - 1)
    with pytest.raises(ValueError, match=r"Column 'click' has 4 negative labels; graded metrics \(NDCG, DCG, ERR\) need labels >= 0"):
        pre.ndcg(bad, group="user_id", label="click", score="model_a")


def test_negative_labels_are_fine_for_binary_metrics(df):
    shifted = df.assign(click=df["click"] * 2 - 1)  # -1 / 1: relevant when > 0
    assert float(pre.mrr(shifted, group="user_id", label="click", score="model_a")) == float(
        pre.mrr(df, group="user_id", label="click", score="model_a")
    )


def test_empty_error_names_the_count(df):
    no_click = df.assign(click=[1, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"mrr: 1 of 2 groups have no relevant row\. Pass empty='zero'"):
        pre.mrr(no_click, group="user_id", label="click", score="model_a", empty="error")


def test_sample_weight_only_for_auc_metrics(df):
    from pandas_rankeval.core.evaluation.pipeline import evaluate
    from pandas_rankeval.core.inputs.options import Options
    from pandas_rankeval.core.metrics.registry import parse_metrics

    with pytest.raises(ValueError, match="sample_weight applies to 'auc', 'gauc', 'uauc', 'wuauc', 'xauc', 'gxauc', 'logloss', 'ne', 'pcoc' and 'ece' only"):
        evaluate(
            df, group="user_id", label="click", scores=["model_a"],
            specs=parse_metrics(["mrr"]), options=Options("mrr", sample_weight="gmv"),
        )


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndgc@10", r"Unknown metric 'ndgc@10'\. Did you mean 'ndcg@10'\? Valid metrics are 'auc', 'gauc', 'mrr', 'mrr@K'"),
        ("precision", r"Metric 'precision' needs a cutoff, such as 'precision@10'"),
        ("auc@5", r"Metric 'auc' takes no cutoff"),
        ("ndcg@0", r"The cutoff of 'ndcg@0' must be at least 1"),
        ("ndcg@", r"After '@', 'ndcg@' needs a cutoff of at least 1, such as 'ndcg@10'"),
        ("ndcg@-3", r"After '@', 'ndcg@-3' needs a cutoff of at least 1"),
        ("hitrate@5", r"Unknown metric 'hitrate@5'\. Did you mean 'hit_rate@5'\?"),  # the user's cutoff kept
        ("HR@10", r"Unknown metric 'HR@10'\. Did you mean 'hit_rate@10'\?"),
        ("gauc,mrr", r"Several metrics go in a list: metrics=\['gauc', 'mrr'\]"),
    ],
)
def test_metric_names(df, name, message):
    with pytest.raises(ValueError, match=message):
        pre.report(df, group="user_id", label="click", scores=["model_a"], metrics=[name])


def test_no_metrics(df):
    with pytest.raises(ValueError, match="Give at least one metric"):
        pre.report(df, group="user_id", label="click", scores=["model_a"], metrics=[])


def test_by_column_must_be_constant_within_groups(df):
    mixed = df.assign(device=["ios", "android", "ios", "ios", "ios", "ios"])
    with pytest.raises(ValueError, match=r"'by' column 'device' of report must be constant within each group: 1 of "
                       r".* groups has more than one value.*make it part of the group: group=\['user_id', 'device'\]"):
        pre.report(mixed, group="user_id", label="click", scores=["model_a"], by="device")


def test_bad_ci(df):
    with pytest.raises(ValueError, match=r"'ci' parameter of report must be a float in the range \(0, 1\)"):
        pre.report(df, group="user_id", label="click", scores=["model_a"], ci=95)


def test_group_parameter_of_the_wrong_type(df):
    with pytest.raises(TypeError, match="The 'group' parameter of gauc must be a column name or a list"):
        pre.gauc(df, group={"user_id"}, label="click", score="model_a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"gauc needs the 'group' parameter \(the user, query or session"):
        pre.gauc(df, group=None, label="click", score="model_a")  # type: ignore[arg-type]


def test_errors_leave_the_frame_alone(df):
    before = df.copy()
    for call in (
        lambda: pre.gauc(df, group="user_id", label="click", score="model_a", weight="nope"),
        lambda: pre.ndcg(df.assign(click=-1), group="user_id", label="click", score="model_a"),
    ):
        with pytest.raises((KeyError, ValueError)):
            call()
    pd.testing.assert_frame_equal(df, before)


def test_coverage_warnings_point_at_the_callers_line():
    df = pre.datasets.make_impressions(n_users=300)
    with pytest.warns(pre.CoverageWarning) as record:  # min_size=20 drops > 10% of positives
        pre.gauc(df, group="user_id", label="click", score="model_a", min_size=20)
        df.rank.gauc(group="user_id", label="click", score="model_a", min_size=20)
        pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc"],
                   min_size=20)
    assert [w.filename for w in record] == [__file__] * 3  # one warning per call, at this file


def test_sklearn_implementation_progress_bar(df, capsys):
    pytest.importorskip("tqdm")
    plain = pre.gauc(df, group="user_id", label="click", score="model_a", implementation="sklearn")
    shown = pre.gauc(df, group="user_id", label="click", score="model_a", implementation="sklearn", progress=True)
    assert float(plain) == float(shown)
    assert "roc_auc_score per group" in capsys.readouterr().err


@pytest.mark.parametrize("source", ["duckdb", "polars"])
def test_the_suggested_conversion_of_a_date_or_time_score_runs(source):
    """DuckDB's suggested fix of a TIMESTAMP score was ``CAST(... AS DOUBLE)``,
    which DuckDB refuses for every date, time and interval type. The suggestion is now executed
    here as printed: it runs, and the converted score ranks as the timestamps do (pandas' gauc of
    the int64 timestamps, whatever the unit: the same order). polars' suggestion reads the
    stored integer too (a cast to Float64 would round nanoseconds)."""
    import re

    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    rel = duckdb.connect().sql(
        "select i % 5 as g, (i % 3 = 0)::int as y, "
        "TIMESTAMP '2024-01-01' + to_microseconds(i * 7919 % 1000) as ts, "
        "TIMESTAMP_NS '2024-01-01' + to_microseconds(i * 13 % 40) + to_microseconds(0) as \"it's \"\"ns\"\"\", "
        "DATE '2024-01-01' + (i % 7)::int as d, "
        "TIMESTAMPTZ '2024-01-01 10:00:00+01' + to_seconds(i * 17 % 50) as tz "
        "from range(60) t(i)")
    whole = rel.df()
    frame = rel if source == "duckdb" else rel.pl()
    for col in ["ts", "it's \"ns\"", "d", "tz"]:
        with pytest.raises(TypeError) as err:
            pre.gauc(frame, group="g", label="y", score=col)
        hint = re.search(r"for example with (.*)\.$", str(err.value)).group(1)
        converted = eval(hint, {"rel": frame, "df": frame, "pl": pl})  # the code as the message prints it
        ints = whole.assign(**{col: whole[col].astype("int64")})
        want = float(pre.gauc(ints, group="g", label="y", score=col))
        assert float(pre.gauc(converted, group="g", label="y", score=col)) == pytest.approx(want, abs=1e-12), col


#: One bad parameter per public function: (call, parameter). Every parameter check goes through
#: one helper, so every message reads "The '<param>' parameter of <func> must be ... Got ... instead."
_BAD_PARAMETERS = [
    (lambda d: pre.gauc(d, group="user_id", label="click", score="model_a", ties="random"), "ties"),
    (lambda d: pre.ndcg(d, group="user_id", label="click", score="model_a", k=0), "k"),
    (lambda d: pre.gauc(d, group="user_id", label="click", score="model_a", min_size=-1), "min_size"),
    (lambda d: pre.gauc(d, group="user_id", label="click", score="model_a", max_fpr=2), "max_fpr"),
    (lambda d: pre.gauc(d, group="user_id", label="click", score="model_a", implementation="scipy"),
     "implementation"),
    (lambda d: pre.auc(d, label="click", score="model_a", threshold="1"), "threshold"),
    (lambda d: pre.gauc(d, group="user_id", label="click", score="model_a", weight=3), "weight"),
    (lambda d: pre.report(d, group="user_id", label="click", scores="model_a", n_boot=0, ci=0.9), "n_boot"),
    (lambda d: pre.report(d, group="user_id", label="click", scores="model_a", seed=-1, ci=0.9), "seed"),
    (lambda d: pre.report(d, group="user_id", label="click", scores="model_a", ci=1.5), "ci"),
    (lambda d: pre.report(d, group="user_id", label="click", scores="model_a", engine_options=3), "engine_options"),
    (lambda d: pre.report(d, group="user_id", label="click", scores="model_a", overall=1), "overall"),
    (lambda d: pre.compare(d.assign(b=d["model_a"]), group="user_id", label="click", scores=["model_a", "b"],
                           baseline="model_b"), "baseline"),
    (lambda d: pre.per_group(d, group="user_id", label="click", score=["model_a"]), "score"),
    (lambda d: pre.calibration_by(d.assign(f=1), field="f", label="click", score="model_a", group="user_id",
                                  n_boot=0), "n_boot"),
    (lambda d: pre.Evaluator(group="user_id", label="click", scores="model_a", kind="table"), "kind"),
    (lambda d: pre.launch_agreement(pd.DataFrame({"a": [0.1, 0.2], "o": [0.1, 0.3]}), offline=["a"], online="o",
                                    n_boot=0), "n_boot"),
    (lambda d: pre.read_trec(io.StringIO("1 Q0 d 1 1.0 r\n"), io.StringIO("1 0 d 1\n"), depth=0), "depth"),
    (lambda d: pre.report(d, group="user_id", label="click", scores="model_a").footer("long"), "level"),
]


@pytest.mark.parametrize("call, param", _BAD_PARAMETERS)
def test_every_parameter_error_has_one_template_and_one_class(df, call, param):
    with pytest.raises(pre.InvalidParameterError) as err:
        call(df)
    assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)
    assert re.match(rf"The '{param}' parameter of [\w.()]+ must be .+\. Got .+ instead\.", str(err.value)), str(err.value)


def test_a_misspelt_choice_names_the_closest_one(df):
    with pytest.raises(ValueError, match=r"The 'ties' parameter of gauc must be one of 'expected', 'pessimistic', "
                                         r"'optimistic'\. Got 'pesimistic' instead\. Did you mean 'pessimistic'\?$"):
        pre.gauc(df, group="user_id", label="click", score="model_a", ties="pesimistic")
    with pytest.raises(TypeError, match=r"The 'baseline' parameter of compare must be one of the score columns "
                                        r"\['model_a', 'model_b'\]\. Got 'model_B' instead\. Did you mean 'model_b'\?"):
        pre.compare(df.assign(model_b=df["gmv"]), group="user_id", label="click", scores=["model_a", "model_b"],
                    baseline="model_B")


def test_gauc_engine_is_renamed_implementation_with_a_future_warning(df):
    kw = dict(group="user_id", label="click", score="model_a")
    want = pre.gauc(df, implementation="sklearn", **kw)
    with pytest.warns(FutureWarning, match=r"The 'engine' parameter of gauc is renamed 'implementation'.*pass "
                                           r"implementation='sklearn'") as record:
        got = pre.gauc(df, engine="sklearn", **kw)
    assert float(got) == float(want) and got.params == want.params
    assert [w.filename for w in record] == [__file__]  # the caller's line
    with pytest.raises(ValueError, match=r"The 'engine' parameter of gauc must be left out when implementation= "
                                         r"is given.*Got 'numpy' instead\. Pass implementation='sklearn' only\."):
        pre.gauc(df, engine="numpy", implementation="sklearn", **kw)
    with pytest.raises(ValueError, match=r"The 'engine' parameter of gauc must be one of 'numpy', 'sklearn'\. "
                                         r"Got 'spark' instead\."):
        pre.gauc(df, engine="spark", **kw)


def test_messages_that_point_to_the_fix(df):
    """Errors found wanting by a new user's session: the parameter named, the user's own value
    kept in the suggestion, the fix that works."""
    kw = dict(group="user_id", label="click")
    with pytest.raises(ValueError, match=r"Got 95 instead\. Did you mean ci=0\.95\?"):
        pre.report(df, scores=["model_a"], metrics=["gauc"], ci=95, **kw)
    with pytest.raises(ValueError, match=r"Got 5 instead\. Did you mean alpha=0\.05\?"):
        pre.compare(df, scores=["model_a", "model_b"], metrics=["gauc"], alpha=5, **kw)
    with pytest.raises(ValueError, match=r"range \(0, 1\)\. Got 1\.5 instead\.$"):  # no percent guess
        pre.report(df, scores=["model_a"], metrics=["gauc"], ci=1.5, **kw)
    # a baseline that is a column but not a score: list it in scores (not a near score's name)
    with pytest.raises(ValueError, match=r"Got 'model_a' instead\. List it in scores too: "
                                         r"scores=\['model_a', 'model_b'\]\."):
        pre.compare(df, scores=["model_b"], baseline="model_a", metrics=["gauc"], **kw)
    with pytest.raises(ValueError, match=r"Got 'modle_a' instead\. Did you mean 'model_a'\?"):  # a typo
        pre.compare(df, scores=["model_a", "model_b"], baseline="modle_a", metrics=["gauc"], **kw)
    # a text sample_weight column is named by its own parameter, on pandas and polars
    bad = df.assign(sw="a")
    frames = [bad]
    pl = pytest.importorskip("polars")
    frames.append(pl.from_pandas(bad))
    for frame in frames:
        with pytest.raises(TypeError, match=r"Column 'sw' \(sample_weight\) must be numeric"):
            pre.gauc(frame, score="model_a", sample_weight="sw", **kw)
    with pytest.raises(ValueError, match=r"negative label; graded metrics \(NDCG, DCG, ERR\) need labels >= 0"):
        pre.err(df.assign(click=np.where(np.arange(len(df)) == 0, -1, df["click"])), score="model_a", k=3, **kw)


def test_keys_and_scores_of_other_types_say_the_fix():
    """A list/struct group key names its column and the way out (it was numpy's 'unhashable
    type'); a datetime score suggests its int64 nanoseconds, which rank as integers."""
    pl = pytest.importorskip("polars")
    y, s = [1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8]
    for frame, kind in ((pl.DataFrame({"g": [[1, 2], [1, 2], [3], [3]], "y": y, "s": s}), "ndarray"),
                        (pl.DataFrame({"g": [{"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}], "y": y, "s": s}), "dict")):
        with pytest.raises(TypeError, match=rf"Column 'g' holds {kind} values, which cannot be group or segment "
                                            r"keys .* unnest a struct or list column into columns"):
            pre.gauc(frame, group="g", label="y", score="s")
    df = pd.DataFrame({"y": [0, 1, 0], "s": pd.to_datetime(["2020-01-01", "2020-01-03", "2020-01-02"])})
    with pytest.raises(TypeError, match=r"dtype datetime64\[.*\]\. Convert it first, for example with "
                                        r"df\['s'\]\.astype\('int64'\)\."):
        pre.auc(df, label="y", score="s")
    assert float(pre.auc(df.assign(s=df["s"].astype("int64")), label="y", score="s")) == 1.0  # the fix works
