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
