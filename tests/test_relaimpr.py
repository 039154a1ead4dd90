"""RelaImpr in compare(lift="relaimpr"): the value, its interval from the same paired replicates
(recomputed here from the hashed draws with sklearn's AUC), the delta method under DeLong, and
the undefined case (a baseline at most 0.5)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri
from sklearn.metrics import roc_auc_score

import pandas_rankeval as pre
from pandas_rankeval.core.metrics.relaimpr import delta_interval, lift_values
from pandas_rankeval.inference import hashing as H


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    return pre.datasets.make_impressions(n_users=150, seed=3)


def _compare(df, **kw):
    kw.setdefault("lift", "relaimpr")
    return pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a", **kw)


def test_lift_column_is_relaimpr_on_auc_types_and_relative_elsewhere(imp):
    res = _compare(imp, metrics=["auc", "gauc", "mrr"], n_boot=50)
    assert list(res.columns[:6]) == ["baseline_value", "value", "diff", "lift", "lift_low", "lift_high"]
    for m in ("auc", "gauc"):
        v, b = res.loc[("model_b", m), "value"], res.loc[("model_b", m), "baseline_value"]
        assert res.loc[("model_b", m), "lift"] == pytest.approx((v - 0.5) / (b - 0.5) - 1, abs=1e-14)
    v, b = res.loc[("model_b", "mrr"), "value"], res.loc[("model_b", "mrr"), "baseline_value"]
    assert res.loc[("model_b", "mrr"), "lift"] == pytest.approx(v / b - 1, abs=1e-14)
    plain = _compare(imp, metrics=["auc", "gauc", "mrr"], n_boot=50, lift="relative")
    assert "lift_low" not in plain.columns
    pd.testing.assert_frame_equal(pd.DataFrame(plain[["diff", "ci_low", "ci_high", "p_value"]]),
                                  pd.DataFrame(res[["diff", "ci_low", "ci_high", "p_value"]]))


def test_lift_interval_is_percentile_of_the_lift_on_each_hashed_replicate():
    """Replicates recomputed from the hashed Poisson(1) group counts, with sklearn's AUC per group
    (GAUC: weights n_g, eligible groups) and over all rows (global AUC: sample weight = count)."""
    imp = pre.datasets.make_impressions(n_users=400, seed=2)
    n_boot, seed = 60, 5
    res = _compare(imp, metrics=["auc", "gauc", "mrr"], n_boot=n_boot, seed=seed, ci=0.9, auc_method="bootstrap")
    keys = pd.Series(np.sort(imp["user_id"].unique()))
    counts = H.poisson_weights(H.key_hash(keys), seed, n_boot)  # groups x replicates
    pos = {k: i for i, k in enumerate(keys)}
    gi = imp["user_id"].map(pos).to_numpy()

    def gauc_reps(score):
        vals, ws = [], []
        for k, sub in imp.groupby("user_id"):
            if sub["click"].nunique() == 2:
                vals.append(roc_auc_score(sub["click"], sub[score]))
                ws.append((pos[k], len(sub)))
        idx = np.array([i for i, _ in ws])
        w = np.array([n for _, n in ws], dtype=float)[:, None] * counts[idx]
        return (np.array(vals)[:, None] * w).sum(axis=0) / w.sum(axis=0)

    def auc_reps(score):
        return np.array([roc_auc_score(imp["click"], imp[score], sample_weight=counts[gi, b]) for b in range(n_boot)])

    for metric, reps in (("gauc", gauc_reps), ("auc", auc_reps)):
        lift = lift_values(reps("model_b"), reps("model_a"), True)
        lo, hi = np.quantile(lift, [0.05, 0.95])
        assert res.loc[("model_b", metric), "lift_low"] == pytest.approx(lo, abs=1e-12)
        assert res.loc[("model_b", metric), "lift_high"] == pytest.approx(hi, abs=1e-12)


def test_delong_lift_interval_is_the_delta_method(imp):
    """Under clustered DeLong the variances come from report's intervals of each AUC and the
    covariance from compare's interval of the difference; the lift's interval is the delta
    method on them (gradient (1 / (b - 1/2), -(a - 1/2) / (b - 1/2)^2))."""
    res = _compare(imp, metrics=["auc"], n_boot=50)
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc"], ci=0.95)
    z = ndtri(0.975)
    var = {s: ((rep.loc[s, "auc_high"] - rep.loc[s, "auc_low"]) / (2 * z)) ** 2 for s in ("model_a", "model_b")}
    r = res.loc[("model_b", "auc")]
    var_d = ((r["ci_high"] - r["ci_low"]) / (2 * z)) ** 2
    cov = (var["model_a"] + var["model_b"] - var_d) / 2
    a, b = r["value"], r["baseline_value"]
    ga, gb = 1 / (b - 0.5), -(a - 0.5) / (b - 0.5) ** 2
    half = z * np.sqrt(ga**2 * var["model_b"] + gb**2 * var["model_a"] + 2 * ga * gb * cov)
    point = (a - 0.5) / (b - 0.5) - 1
    assert r["lift_low"] == pytest.approx(point - half, abs=1e-9)
    assert r["lift_high"] == pytest.approx(point + half, abs=1e-9)


def test_delta_interval_gradient_by_finite_differences():
    a, b, cov = 0.71, 0.66, np.array([[2e-4, 0.7e-4], [0.7e-4, 3e-4]])
    for rel in (True, False):
        f = lambda x, y: float(lift_values(np.array(x), np.array(y), rel))  # noqa: E731
        h = 1e-7
        g = np.array([(f(a + h, b) - f(a - h, b)) / (2 * h), (f(a, b + h) - f(a, b - h)) / (2 * h)])
        half = ndtri(0.975) * np.sqrt(g @ cov @ g)
        lo, hi = delta_interval(np.array([a]), np.array([b]), np.array([cov[0, 0]]), np.array([cov[1, 1]]),
                                np.array([cov[0, 1]]), np.array([rel]), 0.95)
        assert (lo[0], hi[0]) == pytest.approx((f(a, b) - half, f(a, b) + half), abs=1e-7)


def test_baseline_at_most_half_is_undefined_and_said(imp):
    df = imp.assign(model_a=-imp["model_a"])  # a baseline worse than random: AUC < 0.5
    res = _compare(df, metrics=["auc", "gauc", "mrr"], n_boot=50)
    for m in ("auc", "gauc"):
        assert res.loc[("model_b", m), "baseline_value"] < 0.5
        assert np.isnan(res.loc[("model_b", m), ["lift", "lift_low", "lift_high"]].astype(float)).all()
    assert np.isfinite(res.loc[("model_b", "mrr"), "lift"])
    text = " ".join(res.to_text(footer="full").split())
    assert "RelaImpr is undefined (NaN) where the baseline's value is at most 0.5: model_b auc, model_b gauc" in text


def test_a_replicate_baseline_at_most_half_leaves_no_interval(imp):
    # 28 eligible groups: some replicates of the baseline's GAUC fall to 0.5 or below
    res = _compare(imp, metrics=["gauc"], n_boot=60, seed=5, ci=0.9)
    row = res.loc[("model_b", "gauc")]
    assert row["baseline_value"] > 0.5 and np.isfinite(row["lift"]) and np.isnan(row["lift_low"])
    text = " ".join(res.to_text(footer="full").split())
    assert "no interval where a replicate's baseline is at most 0.5: model_b gauc" in text


def test_views_and_segments_show_the_lift(imp):
    df = imp.assign(seg=imp["user_id"] % 2)
    res = _compare(df, metrics=["gauc", "mrr"], n_boot=50, by="seg", overall=True)
    assert {"lift_low", "lift_high"} <= set(res.columns)
    compact = " ".join(res.compact().to_text().split())
    assert "lift [95% CI]" in compact and "RelaImpr = (value - 0.5) / (model_a's value - 0.5) - 1 (gauc)" in compact
    summary = res.summary().to_text()
    row = res.loc[(0, "model_b", "gauc")]
    assert f"({row['lift']:+.1%})" in summary


def test_lift_option_is_checked(imp):
    with pytest.raises(ValueError, match="lift"):
        _compare(imp, metrics=["gauc"], n_boot=50, lift="ratio")


def test_command_line_lift_relaimpr_equals_the_call(imp, tmp_path, capsys):
    from pandas_rankeval.cli import main

    path = tmp_path / "imp.csv"
    imp.to_csv(path, index=False)
    code = main([str(path), "--group", "user_id", "--label", "click", "--score", "model_a", "model_b",
                 "--baseline", "model_a", "--metrics", "auc", "gauc", "--lift", "relaimpr", "--n-boot", "50",
                 "--format", "csv"])
    out = capsys.readouterr().out
    assert code == 0
    got = pd.read_csv(__import__("io").StringIO(out), comment="#")
    want = _compare(pd.read_csv(path), metrics=["auc", "gauc"], n_boot=50)
    np.testing.assert_allclose(got["lift"].to_numpy(float), want["lift"].to_numpy(float), rtol=1e-9)
    np.testing.assert_allclose(got["lift_low"].to_numpy(float), want["lift_low"].to_numpy(float), rtol=1e-9)
