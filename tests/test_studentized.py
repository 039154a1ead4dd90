"""Studentized (bootstrap-t) intervals for group metrics: the formula, and coverage by simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import pandas_rankeval as pre
from pandas_rankeval.inference import bootstrap as S
from pandas_rankeval.core.evaluation.pipeline import evaluate
from pandas_rankeval.core.inputs.options import Options
from pandas_rankeval.core.metrics.registry import parse_metrics
from pandas_rankeval.inference.studentized import StudentizedStratum, studentized_interval


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    return pre.datasets.make_impressions(n_users=200, seed=4, max_rows_per_user=40)


def _stratum(df, metrics, scores=("model_a", "model_b")):
    ev = evaluate(df, group="user_id", label="click", scores=list(scores), specs=parse_metrics(metrics),
                  options=Options("report"), keep_order=True)
    items = [(s, m) for s in scores for m in metrics]
    strata, _ = S.strata_of(ev, items, [], "report")
    return ev, items, strata[0]


def _group_arrays(ev, score, metric):
    gv = ev.scores[score].metrics[metric]
    return np.where(gv.used, gv.weights * gv.values, 0.0), np.where(gv.used, gv.weights, 0.0)


def test_replicate_standard_errors_equal_the_delta_method_recomputed(imp):
    """se* of a metric and of a difference, for random counts, against the sums written out."""
    metrics = ["gauc", "mrr", "ndcg@5"]
    ev, items, st = _stratum(imp, metrics)
    targets = [[(j, 1.0)] for j in range(len(items))]
    targets += [[(items.index(("model_b", m)), 1.0), (items.index(("model_a", m)), -1.0)] for m in metrics]
    wst = StudentizedStratum(st, targets)
    counts = np.random.default_rng(0).poisson(1.0, (7, st.n)).astype(float)
    counts[0] = 1.0
    got = wst.values(counts)
    k = len(items)
    np.testing.assert_array_equal(got[:, :k], st.values(counts))  # the statistics are untouched
    for c_row, g_row in zip(counts, got):
        for t, target in enumerate(targets):
            infl = np.zeros(st.n)
            for j, sign in target:
                num, den = _group_arrays(ev, *items[j])
                r = np.dot(c_row, num) / np.dot(c_row, den)
                infl += sign * (num - r * den) / np.dot(c_row, den)
            want = math.sqrt(np.dot(c_row, infl**2))
            assert g_row[k + t] == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("resample", ["multinomial", None])
def test_report_studentized_interval_is_bootstrap_t(imp, resample):
    """The bootstrap-t interval from the replicate counts: the multinomial bootstrap, and the
    default hashed Poisson(1) bootstrap (counts from the hashed draws of the group keys)."""
    from pandas_rankeval.inference import hashing as H

    metrics = ["gauc", "mrr"]
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"], metrics=metrics,
                     ci=0.9, n_boot=300, seed=5, ci_method="studentized", resample=resample)
    ev, items, st = _stratum(imp, metrics)
    if resample == "multinomial":
        counts = S.resample_counts(S.boot_rngs(5, 1)[0], st.n, 300)
        reps = S.replicates([st], n_boot=300, seed=5)[0]  # the same replicates as the percentile method
    else:
        counts = np.ascontiguousarray(H.poisson_weights(H.key_hash(ev.keys), 5, 300).T)
        reps = st.values(counts)
    for j, (score, m) in enumerate(items):
        num, den = _group_arrays(ev, score, m)
        t_hat = num.sum() / den.sum()
        se = math.sqrt(np.sum(((num - t_hat * den) / den.sum()) ** 2))
        # the replicates' own standard errors, recomputed from the counts
        d = counts @ den
        r = counts @ num / d
        se_b = np.sqrt(np.einsum("bg,bg->b", counts, (num[None, :] - r[:, None] * den[None, :]) ** 2)) / d
        np.testing.assert_allclose(r, reps[:, j], rtol=1e-12)
        t = (r - t_hat) / se_b
        lo_t, hi_t = np.quantile(t, [0.05, 0.95])
        assert rep.loc[score, f"{m}_low"] == pytest.approx(t_hat - hi_t * se, rel=1e-9)
        assert rep.loc[score, f"{m}_high"] == pytest.approx(t_hat - lo_t * se, rel=1e-9)
    assert rep.attrs["ci"]["method"].startswith("studentized bootstrap (bootstrap-t) over groups")


def test_compare_studentized_changes_only_the_interval(imp):
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
              metrics=["gauc", "mrr", "ndcg@5"], n_boot=200, seed=2)
    pct = pre.compare(imp, **kw)
    stu = pre.compare(imp, ci_method="studentized", **kw)
    pd.testing.assert_frame_equal(
        pd.DataFrame(pct).drop(columns=["ci_low", "ci_high"]), pd.DataFrame(stu).drop(columns=["ci_low", "ci_high"])
    )
    assert not np.allclose(pct["ci_low"], stu["ci_low"])
    assert (stu["ci_low"] <= stu["diff"]).all() and (stu["diff"] <= stu["ci_high"]).all()
    assert "studentized (bootstrap-t)" in stu.attrs["ci_method"]
    with pytest.raises(ValueError, match="ci_method"):
        pre.compare(imp, ci_method="bca", **kw)
    with pytest.raises(ValueError, match="ci_method"):
        pre.report(imp, group="user_id", label="click", scores="model_a", ci=0.9, ci_method="bca")


def test_studentized_interval_edge_cases():
    point, se = np.array([0.5, 0.2, 0.3]), np.array([0.1, 0.0, np.nan])
    reps = np.array([[0.4, 0.2, 0.1], [0.6, 0.2, 0.5], [0.5, 0.2, 0.3]])
    se_reps = np.array([[0.1, 0.0, np.nan], [0.1, 0.0, np.nan], [0.0, 0.0, np.nan]])
    lo, hi = studentized_interval(point, se, reps, se_reps, 0.5)
    # column 0: t* = -1, 1 (the replicate with se* = 0 is left out)
    assert lo[0] == pytest.approx(0.5 - 0.5 * 0.1) and hi[0] == pytest.approx(0.5 + 0.5 * 0.1)
    assert lo[1] == hi[1] == 0.2  # no spread at all
    assert (lo[2], hi[2]) == pytest.approx(tuple(np.quantile(reps[:, 2], [0.25, 0.75])))  # percentile


# --------------------------------------------------------------------------- #
# Coverage with few groups
# --------------------------------------------------------------------------- #
MU, TAU = 1.0, 1.0


def simulate(rng: np.random.Generator, n_groups: int) -> pd.DataFrame:
    """The generator of tests/test_stats.py's coverage test: binormal scores with a group
    effect, 2-15 rows per group, click rates Beta(1, 5). Per-group AUC has expectation
    Phi(mu / sqrt(2)) whatever the labels, so population GAUC (any weights) is that too."""
    sizes = rng.integers(2, 16, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    ctr = rng.beta(1.0, 5.0, n_groups)
    y = (rng.random(n) < ctr[g]).astype(np.int64)
    b = rng.normal(0.0, TAU, n_groups)[g]
    return pd.DataFrame({"user_id": g, "click": y, "model_a": MU * y + b + rng.normal(size=n)})


@pytest.mark.slow  # a simulation: run by .ci/run after the default suite (pytest -m slow)
def test_studentized_covers_where_percentile_undercovers():
    """2,000 data sets of 30 groups, evaluated at once as 2,000 segments (a stratified
    bootstrap is one bootstrap per data set), n_boot=500, the same replicates for both methods.
    Count-weighted GAUC: the percentile interval undercovers, the studentized one does not.
    Standard error of a coverage near 0.95: 0.0049."""
    n_sets, n_groups = 2000, 30
    df = simulate(np.random.default_rng(1), n_sets * n_groups)
    df["data_set"] = df["user_id"] // n_groups
    big = simulate(np.random.default_rng(123), 300_000)
    truth = pre.report(big, group="user_id", label="click", scores="model_a", metrics=["mrr", "ndcg@5"])
    truth = {"gauc": float(norm.cdf(MU / math.sqrt(2))), "mrr": float(truth.loc["model_a", "mrr"]),
             "ndcg@5": float(truth.loc["model_a", "ndcg@5"])}
    cover = {}
    for how in ("percentile", "studentized"):
        rep = pre.report(df, group="user_id", label="click", scores="model_a", metrics=list(truth),
                         by="data_set", ci=0.95, n_boot=500, ci_method=how)
        cover[how] = {m: float(((rep[f"{m}_low"] <= v) & (v <= rep[f"{m}_high"])).mean()) for m, v in truth.items()}
    # measured (hashed Poisson bootstrap, the default): percentile gauc 0.9175, mrr 0.942, ndcg@5 0.9445;
    # studentized 0.9505, 0.9725, 0.971 (multinomial: 0.9135, 0.9405, 0.943 and 0.9555, 0.972, 0.971)
    assert cover["percentile"]["gauc"] <= 0.935, cover
    assert 0.935 <= cover["studentized"]["gauc"] <= 0.97, cover
    for m in truth:
        assert cover["studentized"][m] >= 0.935, cover
