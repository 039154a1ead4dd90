"""Issue 47, "The library": what a newcomer met in a notebook, the CLI, polars and training logs."""

from __future__ import annotations

import inspect

import pytest

import pandas_rankeval as pre


@pytest.fixture(scope="module")
def imps():
    return pre.datasets.make_impressions(n_users=60, seed=1)


# -- 21: a misspelled keyword names the parameter that was meant ----------------------------------
@pytest.mark.parametrize("func, wrong, meant", [
    ("report", "score", "scores"), ("compare", "score", "scores"), ("per_group", "metric", "metrics"),
    ("gauc", "scores", "score"), ("ndcg", "scores", "score"), ("precision", "scores", "score"),
    ("gauc", "tiebrak", "tiebreak"), ("report", "metric", "metrics"),
])
def test_unknown_keyword_suggests_the_parameter(imps, func, wrong, meant) -> None:
    function = getattr(pre, func)
    assert meant in inspect.signature(function).parameters  # the hint names a real parameter
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{wrong}'.*[Dd]id you mean {meant}="):
        function(imps, group="user_id", label="click", **{wrong: "model_a"})


def test_unknown_keyword_through_the_accessor_and_plotting(imps) -> None:
    with pytest.raises(TypeError, match="did you mean scores="):
        imps.rank.report(group="user_id", label="click", score="model_a")
    from pandas_rankeval import plotting

    with pytest.raises(TypeError, match="Did you mean bins="):
        plotting.plot_calibration(imps, label="click", score="model_a", bin=5)


def test_keyword_hints_keep_identity_and_results(imps) -> None:
    assert pre.map is pre.average_precision
    assert pre.gauc.__wrapped__ is pre.api.metrics.gauc
    kw = dict(group="user_id", label="click", score="model_a")
    assert float(pre.gauc(imps, **kw)) == float(pre.api.metrics.gauc(imps, **kw))


# -- 17: describe() shows as text at a prompt and as HTML in a notebook ----------------------------
def test_describe_displays_as_text_and_html(imps) -> None:
    import pickle

    r = pre.gauc(imps, group="user_id", label="click", score="model_a", weight="uniform")
    d = r.describe()
    opts = ", ".join(f"{k}={v!r}" for k, v in r.params.items())
    text = f"gauc = {float(r):.4f} ({opts})\ncoverage: {r.coverage}"  # the text describe() gave as a str
    assert str(d) == text and d == text and d.splitlines()[0].startswith("gauc = ")
    assert repr(d) == text  # not "'gauc = ...\\ncoverage: ...'"
    html = d._repr_html_()
    assert "<b>gauc = " in html and "\n" not in html and "weight=uniform" in html
    assert pickle.loads(pickle.dumps(d))._repr_html_() == html


# -- 19: a missing value in the engine's own word ----------------------------------------------------
def test_missing_label_named_in_the_engines_word(imps) -> None:
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    kw = dict(group="user_id", label="click", score="model_a")
    holed = imps.assign(click=imps["click"].where(imps["user_id"] != 3))  # NaN on one user's rows
    n = int(holed["click"].isna().sum())
    assert n > 0
    with pytest.raises(ValueError, match=rf"Column 'click' has {n} missing values \(NaN/None\)\. Pass nan_policy='omit'"):
        pre.gauc(holed, **kw)
    nulls = pl.from_pandas(imps).with_columns(
        pl.when(pl.col("user_id") == 3).then(None).otherwise(pl.col("click")).alias("click"))
    assert nulls["click"].null_count() == n
    for frame in (nulls, nulls.lazy()):
        with pytest.raises(ValueError, match=rf"Column 'click' has {n} missing values \(null or NaN\)\. Pass"):
            pre.gauc(frame, **kw)
    con = duckdb.connect()
    con.register("t", holed)
    with pytest.raises(ValueError, match=rf"Column 'click' has {n} missing values \(NULL or NaN\)\. Pass"):
        pre.report(con.table("t"), group="user_id", label="click", scores=["model_a"])
