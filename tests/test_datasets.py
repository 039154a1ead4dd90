"""make_impressions: deterministic, well-typed, and telling the global-AUC-vs-GAUC story.

The story is checked with independent oracles, not with this package's own metrics:
scikit-learn's roc_auc_score for global AUC, and for GAUC the rank-sum formula over pandas'
groupby ranks, itself checked against a plain groupby loop of roc_auc_score.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from pandas_rankeval.datasets import make_impressions

COLUMNS = [
    "user_id", "item_id", "position", "country", "device", "activity",
    "click", "relevance", "model_a", "model_b",
]  # fmt: skip
USER_CONSTANT = ["country", "device", "activity"]


def sklearn_gauc(df: pd.DataFrame, score: str) -> float:
    """Impression-weighted mean of per-user roc_auc_score over users with both classes."""
    total = weights = 0.0
    for _, user in df.groupby("user_id"):
        positives = user["click"].sum()
        if 0 < positives < len(user):
            total += len(user) * roc_auc_score(user["click"], user[score])
            weights += len(user)
    return total / weights


def rank_sum_gauc(df: pd.DataFrame, score: str) -> float:
    """The same GAUC without a loop: per user, AUC = (R - P (P + 1) / 2) / (P N) with R the sum
    of the clicked rows' average ranks (pandas' groupby rank, ties averaged, as roc_auc_score)."""
    ranks = df.groupby("user_id")[score].rank(method="average")
    users = df.assign(r=ranks.where(df["click"] == 1, 0.0)).groupby("user_id").agg(
        n=("click", "size"), p=("click", "sum"), r=("r", "sum"))
    users = users[(users["p"] > 0) & (users["p"] < users["n"])]
    auc = (users["r"] - users["p"] * (users["p"] + 1) / 2) / (users["p"] * (users["n"] - users["p"]))
    return float((users["n"] * auc).sum() / users["n"].sum())


@pytest.mark.parametrize("seed", [0, 5])
def test_rank_sum_gauc_equals_the_sklearn_loop(seed):
    df = make_impressions(300, seed=seed)
    df["tied"] = df["model_a"].round(1)  # ties inside users
    for score in ("model_a", "model_b", "tied"):
        assert rank_sum_gauc(df, score) == pytest.approx(sklearn_gauc(df, score), abs=1e-12)


@pytest.fixture(scope="module")
def default():
    return make_impressions()


def test_deterministic(default):
    pd.testing.assert_frame_equal(make_impressions(), default)
    pd.testing.assert_frame_equal(make_impressions(50, seed=7), make_impressions(50, seed=7))
    assert not make_impressions(50, seed=7).equals(make_impressions(50, seed=8))


def test_columns_and_dtypes(default):
    assert default.columns.tolist() == COLUMNS
    assert isinstance(default.index, pd.RangeIndex) and default.index.start == 0
    for column in ["user_id", "item_id", "position", "click", "relevance"]:
        assert default[column].dtype == np.int64, column
    for column in ["model_a", "model_b"]:
        assert default[column].dtype == np.float64, column
    for column in USER_CONSTANT:
        assert pd.api.types.is_string_dtype(default[column]), column
    assert default.notna().all().all()


def test_shape_and_long_tail(default):
    sizes = default.groupby("user_id").size()
    assert len(sizes) == 2000
    assert sizes.index.tolist() == list(range(2000))
    assert len(default) == sizes.sum()
    assert 10_000 < len(default) < 100_000
    # Long-tailed: most users see a handful of items, a few see thousands.
    assert sizes.median() <= 3
    assert (sizes <= 5).mean() > 0.7
    assert 1 <= (sizes >= 1000).sum() <= 20
    assert sizes.max() == 3000  # the cap
    assert make_impressions(300, max_rows_per_user=40).groupby("user_id").size().max() == 40


def test_positions_are_1_to_n_within_user(default):
    expected = default.groupby("user_id").cumcount() + 1
    np.testing.assert_array_equal(default["position"].to_numpy(), expected.to_numpy())
    assert default["user_id"].is_monotonic_increasing


def test_segments_constant_within_user(default):
    per_user = default.groupby("user_id")[USER_CONSTANT].nunique()
    assert (per_user == 1).all().all()
    assert set(default["country"]) == {"US", "GB", "DE", "FR", "BR", "IN", "JP"}
    assert set(default["device"]) == {"mobile", "desktop", "tablet"}


def test_activity_buckets_follow_user_size(default):
    users = default.groupby("user_id").agg(n=("position", "size"), activity=("activity", "first"))
    expected = np.select([users["n"] <= 5, users["n"] <= 100], ["light", "medium"], "heavy")
    np.testing.assert_array_equal(users["activity"].to_numpy(), expected)
    assert set(users["activity"]) == {"light", "medium", "heavy"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_labels(seed):
    df = make_impressions(seed=seed)
    assert set(df["click"].unique()) == {0, 1}
    assert 0.04 < df["click"].mean() < 0.11
    assert set(df["relevance"].unique()) <= {0, 1, 2, 3}
    assert set(df["relevance"].unique()) == {0, 1, 2, 3}
    assert (df.loc[df["click"] == 1, "relevance"] >= 1).all()
    # Graded: a clicked row is more often highly relevant than an unclicked one.
    assert df.loc[df["click"] == 0, "relevance"].mean() < 0.2
    # Propensity differs across users: click rates of users with 20+ rows spread widely.
    rates = df.groupby("user_id")["click"].agg(["size", "mean"]).query("size >= 20")["mean"]
    assert rates.quantile(0.9) - rates.quantile(0.1) > 0.1


def test_scores_are_probabilities(default):
    for column in ["model_a", "model_b"]:
        assert ((default[column] > 0) & (default[column] < 1)).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_global_auc_and_gauc_disagree(seed):
    """model_a wins on global AUC, model_b on GAUC, each by a visible margin."""
    df = make_impressions(seed=seed)
    auc_a = roc_auc_score(df["click"], df["model_a"])
    auc_b = roc_auc_score(df["click"], df["model_b"])
    gauc_a = rank_sum_gauc(df, "model_a")
    gauc_b = rank_sum_gauc(df, "model_b")
    assert auc_a - auc_b > 0.05, (auc_a, auc_b)
    assert gauc_b - gauc_a > 0.05, (gauc_a, gauc_b)
    # Both models are better than chance within users.
    assert gauc_a > 0.5 and gauc_b > 0.6


def test_small_frames():
    df = make_impressions(1, seed=0)
    assert df["user_id"].unique().tolist() == [0]
    assert make_impressions(5, n_items=1)["item_id"].unique().tolist() == [0]


@pytest.mark.parametrize(
    ("kwargs", "param", "got"),
    [
        ({"n_users": 0}, "n_users", "0"),
        ({"n_users": 2.5}, "n_users", "2.5"),
        ({"n_users": True}, "n_users", "True"),
        ({"max_rows_per_user": 0}, "max_rows_per_user", "0"),
        ({"n_items": -3}, "n_items", "-3"),
    ],
)
def test_bad_parameters(kwargs, param, got):
    message = (
        f"The '{param}' parameter of make_impressions must be an int in the range [1, inf). "
        f"Got {got} instead."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        make_impressions(**kwargs)
