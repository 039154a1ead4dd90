"""compare: verdicts at every size: unbounded p-values, all pairs, adjustments and families."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.inference import pvalues as P

METRICS10 = ["auc", "gauc", "mrr", "ndcg@10", "ndcg@5", "map@10", "precision@10", "recall@10", "hit_rate@10",
             "precision@5"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


@pytest.fixture(scope="module")
def log() -> pd.DataFrame:
    """3,000 users on three devices. model_b ranks exactly as model_a (a monotone transform: no
    difference at all); model_c adds a true signal on the relevant rows (a large gain)."""
    df = pre.datasets.make_impressions(n_users=3000, seed=0)
    rng = np.random.default_rng(0)
    df["model_b"] = 2.0 * df["model_a"] + 1.0
    df["model_c"] = df["model_a"] + 0.25 * (df["relevance"] > 0) * rng.random(len(df))
    return df


@pytest.fixture(scope="module")
def sixty(log) -> pd.DataFrame:
    return pre.compare(log, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                       baseline="model_a", metrics=METRICS10, by="device")


def test_sixty_rows_large_gains_are_significant_after_holm(sixty):
    """A wide table: 3 models, 10 metrics, 3 segments = 60 rows in one Holm family. With
    Monte Carlo p-values no row could pass (60 x 1/1001 > 0.05); here every large gain does."""
    res = pd.DataFrame(sixty)
    assert len(res) == 60
    np.testing.assert_allclose(res["p_holm"], P.holm(res["p_value"].to_numpy()))
    gain = res.xs("model_c", level="model")
    ranked = gain.loc[(slice(None), ["gauc", "mrr", "ndcg@10", "ndcg@5", "map@10", "precision@5"]), :]
    assert (ranked["diff"] > 0).all() and ranked["significant"].all()
    assert (ranked["p_holm"] < 1e-6).sum() >= 12  # far below any 1 / (n_boot + 1)
    # a model that ranks exactly like the baseline: every difference is 0, p = 1, nothing significant
    same = res.xs("model_b", level="model")
    grouped = same.drop(index="auc", level="metric")
    assert (grouped["diff"] == 0).all() and (grouped["p_value"] == 1).all()
    assert not same["significant"].any()


def test_tiny_p_values_show_as_such(sixty):
    text = sixty.to_text()
    assert "< 1e-6" in text  # not a floor such as '< 0.001'
    assert "multiples of 1/(n_boot+1)" not in text  # no resampled test in this table
    assert "significant: p_holm < 0.05 (Holm over the 60 comparisons)" in text
    assert sixty.attrs["multiple_testing"] == "Holm over all 60 rows, one family"
    assert "exact over all 2^G sign patterns" in sixty.to_text(footer="full", width=0)


def test_all_pairs_one_family_and_who_beats_whom(log):
    df = log.assign(copy_c=log["model_c"])
    res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c", "copy_c"],
                      metrics=["gauc", "mrr", "ndcg@10"], by="device", n_boot=200)
    assert res.index.names == ["device", "model", "baseline", "metric"]
    assert len(res) == 3 * 6 * 3  # segments x k(k-1)/2 pairs x metrics
    pairs = {(m, b) for _, m, b, _ in res.index}
    assert pairs == {("model_b", "model_a"), ("model_c", "model_a"), ("copy_c", "model_a"),
                     ("model_c", "model_b"), ("copy_c", "model_b"), ("copy_c", "model_c")}
    np.testing.assert_allclose(res["p_holm"], P.holm(res["p_value"].to_numpy()))  # one family
    assert res.attrs["pairs"] == "all" and res.attrs["baseline"] is None
    assert res.attrs["multiple_testing"] == "Holm over all 54 rows, one family"
    # a copy of a model is never significant against itself
    copy = res.xs(("copy_c", "model_c"), level=("model", "baseline"))
    assert (copy["diff"] == 0).all() and (copy["p_value"] == 1).all() and not copy["significant"].any()
    # the same pair as with a baseline: the same numbers
    one = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_c"], baseline="model_a",
                      metrics=["gauc", "mrr", "ndcg@10"], by="device", n_boot=200)
    sub = res.xs(("model_c", "model_a"), level=("model", "baseline"))
    np.testing.assert_allclose(sub["p_value"], one.droplevel("model")["p_value"], rtol=1e-12)
    np.testing.assert_allclose(sub["ci_low"], one.droplevel("model")["ci_low"], rtol=1e-12)
    # who beats whom, with direction: one row per pair, ▲ / ▼ where the model is significantly
    # better / worse than the pair's baseline
    summary = res.summary()
    assert summary.loc[("mobile", "model_c vs model_a"), "mrr"].startswith("▲ +")
    assert summary.loc[("mobile", "copy_c vs model_b"), "mrr"].startswith("▲ +")
    assert not summary.loc[("mobile", "copy_c vs model_c"), "mrr"].startswith(("▲", "▼"))
    assert "significantly better / worse than the row's baseline" in summary.to_text()
    compact = res.compact()
    assert ("model_c vs model_a", "p (Holm)") in compact.columns


def test_two_models_all_pairs_is_the_later_against_the_earlier(log):
    res = pre.compare(log, group="user_id", label="click", scores=["model_a", "model_c"], metrics=["mrr"], n_boot=50)
    assert list(res.index) == [("model_c", "model_a", "mrr")]


def test_adjustments_and_families(log):
    kw = dict(group="user_id", label="click", scores=["model_a", "model_c"], baseline="model_a",
              metrics=["gauc", "mrr", "hit_rate@10"], by="device", n_boot=100)
    holm = pre.compare(log, **kw)
    p = holm["p_value"].to_numpy()
    bh = pre.compare(log, adjust="bh", **kw)
    assert "p_bh" in bh.columns and "p_holm" not in bh.columns
    np.testing.assert_allclose(bh["p_bh"], P.benjamini_hochberg(p))
    assert (bh["significant"] == (bh["p_bh"] < 0.05)).all()
    assert bh.attrs["multiple_testing"] == "Benjamini-Hochberg false discovery rate over all 9 rows, one family"
    assert "significant: p_bh < 0.05 (Benjamini-Hochberg over the 9 comparisons)" in bh.to_text()
    none = pre.compare(log, adjust="none", **kw)
    assert "p_holm" not in none.columns and "p_bh" not in none.columns
    assert (none["significant"] == (none["p_value"] < 0.05)).all()
    assert "significant: p_value < 0.05 (unadjusted)" in none.to_text()
    fam = pre.compare(log, family="metric", **kw)
    metric = fam.index.get_level_values("metric")
    for m in ["gauc", "mrr", "hit_rate@10"]:
        np.testing.assert_allclose(fam["p_holm"][metric == m], P.holm(p[metric == m]))
    assert fam.attrs["multiple_testing"] == "Holm within each metric, 3 families"
    assert "significant: p_holm < 0.05 (Holm over each metric's comparisons)" in fam.to_text()
    for res in (holm, bh, none, fam):  # the raw p-values never depend on the adjustment
        np.testing.assert_array_equal(res["p_value"], p)


def test_multinomial_bootstrap_gives_the_same_tests(log):
    """The p-values of the sign-flip test do not depend on the bootstrap: resample='multinomial'
    (its own code path) gives the same p-values, all pairs included."""
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b", "model_c"], metrics=["gauc", "mrr"],
              by="device", n_boot=100)
    a = pre.compare(log, **kw)
    b = pre.compare(log, resample="multinomial", **kw)
    assert a.index.equals(b.index) and list(a.columns) == list(b.columns)
    # far in the tail (p ~ 1e-16) the rest's variance is a difference of sums: 1e-8 relative
    np.testing.assert_allclose(a["p_value"], b["p_value"], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(a["p_holm"], b["p_holm"], rtol=1e-8, atol=1e-12)
    assert a.attrs["test"] == b.attrs["test"] and a.attrs["multiple_testing"] == b.attrs["multiple_testing"]


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"adjust": "bonferroni"},
         r"The 'adjust' parameter of compare must be one of 'holm', 'bh', 'none'. Got 'bonferroni' instead."),
        ({"family": "model"}, r"The 'family' parameter of compare must be one of 'table', 'metric'. Got 'model'"),
    ],
)
def test_errors(log, kw, match):
    with pytest.raises(ValueError, match=match):
        pre.compare(log, group="user_id", label="click", scores=["model_a", "model_c"], metrics=["mrr"], **kw)
