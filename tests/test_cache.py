"""One cache per evaluation (``Evaluation.cache``; a score column's own entries in its
``ScoreEvaluation.cache``): what the labels decide is made once and equals a count by hand; what a
score column decides never outlives the column (a training hook evaluates a new score under the
same name every round)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.core.evaluation.pipeline import evaluate, evaluate_score, prepare_evaluation
from pandas_rankeval.core.inputs.options import Options
from pandas_rankeval.core.metrics.registry import parse_metrics


def _frame(seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 600
    return pd.DataFrame({
        "g": rng.integers(0, 80, n) * 7 + 1000,  # sparse codes
        "y": (rng.random(n) < 0.2).astype(int),
        "pos": rng.integers(1, 8, n),
        "a": rng.normal(size=n),
        "b": np.round(rng.normal(size=n), 1),
    })


@pytest.mark.parametrize("metrics", [["mrr"], ["ndcg@5", "gauc"], ["auc"]])
def test_group_counts_once_and_equal_to_a_count_by_hand(metrics):
    df = _frame()
    ev = evaluate(df, group="g", label="y", scores=["a"], specs=parse_metrics(metrics), options=Options(func="report"))
    ranked = "auc" not in metrics
    # a ranked score column gave the counts; global AUC alone needs none: counted when asked for
    assert ("group stats" in ev.cache) is ranked and "row groups" not in ev.cache
    by_hand = df.groupby("g")["y"].agg(["size", "sum"])
    stats = ev.group_stats
    assert ("row groups" in ev.cache) is not ranked  # counting them keeps each row's group
    assert stats is ev.group_stats  # made once
    np.testing.assert_array_equal(ev.keys, by_hand.index)
    np.testing.assert_array_equal(stats["n"], by_hand["size"])
    np.testing.assert_array_equal(stats["positives"], by_hand["sum"])
    np.testing.assert_array_equal(stats["negatives"], by_hand["size"] - by_hand["sum"])
    # each row's group: the index of its key among the sorted keys
    np.testing.assert_array_equal(ev.row_groups, df.groupby("g").ngroup().to_numpy())


def test_a_score_columns_entries_go_with_it():
    """IPS block gains are the score column's: a new score under the same name (a training
    hook's next round) gets its own, equal to the public function on that score."""
    df = _frame()
    opts = Options(func="ips_dcg", position="pos", propensity=lambda p: 1.0 / p)
    ev = prepare_evaluation(df, group="g", label="y", scores=[], specs=parse_metrics(["ips_dcg@3"]), options=opts)
    for score in ("a", "b"):
        se = evaluate_score(ev, "round", df[score].to_numpy(dtype=np.float64))
        want = pre.ips_dcg(df, group="g", label="y", score=score, k=3, position="pos", propensity=lambda p: 1.0 / p)
        assert math.isclose(se.metrics["ips_dcg@3"].value, float(want), rel_tol=1e-12)
        assert ("ips block gains", None) in se.cache
    assert "ips row gains" in ev.cache  # the rows' gains are the labels': once per evaluation
