"""compare(): paired differences, intervals, tests, Holm; error messages; size and power."""

from __future__ import annotations

import itertools
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.inference import bootstrap as S
from pandas_rankeval.core.evaluation.pipeline import evaluate
from pandas_rankeval.core.inputs.options import Options
from pandas_rankeval.core.metrics.registry import parse_metrics

COLUMNS = ["baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_holm", "significant",
           "groups_used"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=300, seed=1)
    rng = np.random.default_rng(0)
    df["model_c"] = df["model_b"] + rng.normal(0.0, 0.05, len(df))
    return df


def _compare(df, **kw):
    base = {"group": "user_id", "label": "click", "scores": ["model_a", "model_b", "model_c"],
            "baseline": "model_a", "metrics": ["auc", "gauc", "mrr", "ndcg@10"], "n_boot": 200, "seed": 3}
    base.update(kw)
    return pre.compare(df, **base)


def test_table_layout_and_values(imp):
    res = _compare(imp)
    assert list(res.columns) == COLUMNS
    assert res.index.names == ["model", "metric"]
    assert list(res.index) == [
        (m, k) for m in ["model_b", "model_c"] for k in ["auc", "gauc", "mrr", "ndcg@10"]
    ]
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                     metrics=["auc", "gauc", "mrr", "ndcg@10"])
    for (m, k), row in res.iterrows():
        assert row["baseline_value"] == pytest.approx(rep.loc["model_a", k], abs=1e-12)
        assert row["value"] == pytest.approx(rep.loc[m, k], abs=1e-12)
        assert row["diff"] == pytest.approx(row["value"] - row["baseline_value"], abs=1e-15)
        assert row["ci_low"] <= row["diff"] <= row["ci_high"]
        assert row["p_value"] <= row["p_holm"] <= 1.0
    assert res["significant"].dtype == bool
    assert (res["significant"] == (res["p_holm"] < 0.05)).all()
    np.testing.assert_allclose(res["p_holm"], S.holm(res["p_value"].to_numpy()))
    attrs = res.attrs
    assert attrs["baseline"] == "model_a" and attrs["n_boot"] == 200 and attrs["seed"] == 3
    assert attrs["alpha"] == 0.05 and attrs["ci"] == 0.95
    assert "clustered DeLong" in attrs["test"]["auc"] and "sign-flip" in attrs["test"]["gauc"]
    assert "exact over all 2^G sign patterns" in attrs["test"]["ndcg@10"]
    assert attrs["ci_method"].startswith("percentile paired bootstrap over groups")
    assert "auc: clustered DeLong over groups (Obuchowski 1997)" in attrs["ci_method"]
    assert attrs["multiple_testing"] == "Holm over all 8 rows, one family"
    assert (attrs["adjust"], attrs["family"], attrs["p_adjusted"], attrs["pairs"]) == ("holm", "table", "p_holm", "baseline")
    assert attrs["params"]["gauc"]["weight"] == "count"


def test_renders_with_its_tests_underneath(imp):
    res = _compare(imp, scores=["model_a", "model_b"], metrics=["auc", "gauc"], n_boot=50, auc_method="bootstrap",
                   resample="multinomial")
    assert "significant: p_holm < 0.05 (Holm over the 2 comparisons)" in repr(res)  # what matters, shown
    text = res.to_text(footer="full", width=0)  # and every fact on request
    assert "ci_low, ci_high: 95% interval of diff, percentile paired bootstrap over groups, 50 replicates" in text
    assert "seed=3" in text
    hashed = _compare(imp, scores=["model_a", "model_b"], metrics=["auc", "gauc"], n_boot=50,
                      auc_method="bootstrap").to_text(footer="full", width=0)  # the default: hashed Poisson(1) weights
    assert "percentile paired bootstrap over groups (hashed Poisson(1) weights), 50 replicates" in hashed
    assert "auc: paired bootstrap test" in text and "gauc: paired sign-flip test" in text
    mc = _compare(imp, scores=["model_a", "model_b"], metrics=["gauc"], n_boot=50, method="randomization")
    assert "gauc: paired randomization test (Monte Carlo" in mc.to_text(footer="full", width=0)
    assert "p_value" in res.to_text()


def test_deterministic_for_a_seed(imp):
    res = _compare(imp)
    pd.testing.assert_frame_equal(_compare(imp), res)
    other = _compare(imp, seed=4)
    assert not np.allclose(other["ci_low"], res["ci_low"])
    pd.testing.assert_frame_equal(other[["baseline_value", "value", "diff", "lift"]], res[["baseline_value", "value", "diff", "lift"]])


def test_interval_is_paired_percentile_of_the_report_replicates(imp):
    """The interval of diff uses the same replicates for both models, the ones report(ci=) uses."""
    metrics = ["auc", "gauc", "mrr"]
    res = _compare(imp, scores=["model_a", "model_b"], metrics=metrics, ci=0.9, n_boot=100, seed=8,
                   auc_method="bootstrap", resample="multinomial")
    ev = evaluate(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                  specs=parse_metrics(metrics), options=Options("compare"), keep_order=True)
    items = [(s, m) for s in ["model_a", "model_b"] for m in metrics]
    strata, _ = S.strata_of(ev, items, [], "compare")
    reps = S.replicates(strata, n_boot=100, seed=8)[0]
    for j, m in enumerate(metrics):
        d = reps[:, 3 + j] - reps[:, j]
        lo, hi = np.quantile(d, [0.05, 0.95])
        assert res.loc[("model_b", m), "ci_low"] == pytest.approx(lo, abs=1e-14)
        assert res.loc[("model_b", m), "ci_high"] == pytest.approx(hi, abs=1e-14)
        if m == "auc":  # the centered bootstrap test on the same replicates
            diff = res.loc[("model_b", m), "diff"]
            p = (1 + np.sum(np.abs(d - diff) >= abs(diff))) / 101
            assert res.loc[("model_b", m), "p_value"] == pytest.approx(p)
    # report with the same seed has the same marginal intervals
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                     metrics=metrics, ci=0.9, n_boot=100, seed=8, auc_method="bootstrap", resample="multinomial")
    for j, m in enumerate(metrics):
        assert rep.loc["model_b", f"{m}_low"] == pytest.approx(np.quantile(reps[:, 3 + j], 0.05), abs=1e-14)


def test_hashed_interval_is_paired_percentile_of_the_hashed_replicates(imp):
    """The default (hashed Poisson) bootstrap: the same check, with the replicates recomputed from
    the hashed draws through the multinomial machinery's own reweighting (Stratum.values)."""
    from pandas_rankeval.inference import hashing as H

    metrics = ["auc", "gauc", "mrr"]
    res = _compare(imp, scores=["model_a", "model_b"], metrics=metrics, ci=0.9, n_boot=100, seed=8,
                   auc_method="bootstrap")
    mc = _compare(imp, scores=["model_a", "model_b"], metrics=["gauc", "mrr"], ci=0.9, n_boot=100, seed=8,
                  method="randomization")
    ev = evaluate(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                  specs=parse_metrics(metrics), options=Options("compare"), keep_order=True)
    items = [(s, m) for s in ["model_a", "model_b"] for m in metrics]
    (stratum,), _ = S.strata_of(ev, items, [], "compare")
    counts = H.poisson_weights(H.key_hash(ev.keys), 8, 100).T
    reps = stratum.values(np.ascontiguousarray(counts))
    for j, m in enumerate(metrics):
        d = reps[:, 3 + j] - reps[:, j]
        lo, hi = np.quantile(d, [0.05, 0.95])
        assert res.loc[("model_b", m), "ci_low"] == pytest.approx(lo, abs=1e-12)
        assert res.loc[("model_b", m), "ci_high"] == pytest.approx(hi, abs=1e-12)
        if m == "auc":  # the centered bootstrap test on the same replicates
            diff = res.loc[("model_b", m), "diff"]
            p = (1 + np.sum(np.abs(d - diff) >= abs(diff))) / 101
            assert res.loc[("model_b", m), "p_value"] == pytest.approx(p)
        else:  # the Monte Carlo randomization test from the hashed signs
            gm, gb = ev.scores["model_b"].metrics[m], ev.scores["model_a"].metrics[m]
            wd = np.where(gm.used, gm.weights * (gm.values - gb.values), 0.0)
            t_star = H.flip_signs(H.key_hash(ev.keys), 8, 100).T @ wd
            p = (1 + np.sum(np.abs(t_star) >= abs(wd.sum()) - 1e-10 * np.abs(wd).sum())) / 101
            assert mc.loc[("model_b", m), "p_value"] == pytest.approx(p)
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                     metrics=metrics, ci=0.9, n_boot=100, seed=8, auc_method="bootstrap")
    for j, m in enumerate(metrics):
        assert rep.loc["model_b", f"{m}_low"] == pytest.approx(np.quantile(reps[:, 3 + j], 0.05), abs=1e-12)


def _tiny(n_groups=7, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        n = int(rng.integers(2, 6))
        y = np.zeros(n, dtype=int)
        y[rng.choice(n, size=int(rng.integers(1, n)), replace=False)] = 1
        for i in range(n):
            rows.append((g, y[i], round(float(rng.normal() + y[i]), 1), round(float(rng.normal() + 0.3 * y[i]), 1)))
    return pd.DataFrame(rows, columns=["user_id", "click", "a", "b"])


@pytest.mark.parametrize("metric", ["gauc", "mrr", "ndcg@3", "precision@2"])
def test_sign_flip_p_equals_exact_enumeration_of_swaps(metric):
    """Swap the two models' scores in every subset of the 7 groups: the exact p-value.

    Recomputes the metric on each of the 2^7 swapped frames (no shortcut), so this also
    checks that a swap flips the sign of the group's difference and changes nothing else.
    The default test is exact on so few groups: equal to the enumeration, ties included;
    the Monte Carlo option (method="randomization") approximates it.
    """
    df = _tiny()
    t_obs = None
    stats = []
    groups = df["user_id"].to_numpy()
    for mask in itertools.product([False, True], repeat=7):
        swap = np.array(mask)[groups]
        d = df.assign(a=np.where(swap, df["b"], df["a"]), b=np.where(swap, df["a"], df["b"]))
        rep = pre.report(d, group="user_id", label="click", scores=["a", "b"], metrics=[metric])
        t = rep.loc["b", metric] - rep.loc["a", metric]
        stats.append(t)
        if not any(mask):
            t_obs = t
    exact = np.mean(np.abs(stats) >= abs(t_obs) - 1e-12)
    kw = dict(group="user_id", label="click", scores=["a", "b"], baseline="a", metrics=[metric])
    res = pre.compare(df, n_boot=100, seed=1, **kw)
    assert res["diff"].iloc[0] == pytest.approx(t_obs, abs=1e-12)
    assert res["p_value"].iloc[0] == pytest.approx(exact, abs=1e-12)
    multi = pre.compare(df, n_boot=100, seed=1, resample="multinomial", **kw)
    assert multi["p_value"].iloc[0] == pytest.approx(exact, abs=1e-12)
    mc = pre.compare(df, n_boot=20_000, seed=1, method="randomization", **kw)
    assert mc["p_value"].iloc[0] == pytest.approx(exact, abs=0.012)


def test_identical_models_are_not_different(imp):
    df = imp.assign(copy=imp["model_a"])
    res = pre.compare(df, group="user_id", label="click", scores=["model_a", "copy"], baseline="model_a",
                      metrics=["auc", "gauc", "mrr"], n_boot=100)
    assert (res["diff"] == 0).all()
    assert (res["p_value"] == 1).all() and (res["p_holm"] == 1).all()
    assert not res["significant"].any()
    assert (res["ci_low"] == 0).all() and (res["ci_high"] == 0).all()


def test_method_bootstrap_and_randomization(imp):
    boot = _compare(imp, method="bootstrap", auc_method="bootstrap")
    assert all("bootstrap" in t for t in boot.attrs["test"].values())
    auto = _compare(imp, auc_method="bootstrap")
    pd.testing.assert_frame_equal(boot[["diff", "ci_low", "ci_high"]], auto[["diff", "ci_low", "ci_high"]])
    # Monte Carlo sign flips estimate the same p-values as the default's exact distribution
    rnd = _compare(imp, method="randomization", metrics=["gauc", "mrr"], n_boot=2000)
    exact = auto.loc[(slice(None), ["gauc", "mrr"]), "p_value"].to_numpy()
    got = rnd["p_value"].to_numpy()
    assert np.all(got >= 1 / 2001)
    np.testing.assert_allclose(got, np.maximum(exact, 1 / 2001), atol=0.015)
    with pytest.raises(ValueError, match=r"Global AUC has no group-level randomization test"):
        _compare(imp, method="randomization", auc_method="bootstrap")
    # with clustered DeLong for auc (the default) the randomization test serves the rest
    rnd_auc = _compare(imp, method="randomization")
    assert "clustered DeLong" in rnd_auc.attrs["test"]["auc"]


def test_by_segments(imp):
    res = _compare(imp, scores=["model_a", "model_b"], metrics=["auc", "gauc", "mrr"], by="device")
    assert res.index.names == ["device", "model", "metric"]
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                     metrics=["auc", "gauc", "mrr"], by="device")
    for (dev, m, k), row in res.iterrows():
        assert row["value"] == pytest.approx(rep.loc[(dev, m), k], abs=1e-12)
        assert row["baseline_value"] == pytest.approx(rep.loc[(dev, "model_a"), k], abs=1e-12)
    assert len(res) == 3 * imp["device"].nunique()
    np.testing.assert_allclose(res["p_holm"], S.holm(res["p_value"].to_numpy()))


def test_options_pass_through(imp):
    res = _compare(imp, scores=["model_a", "model_b"], metrics=["gauc", "ndcg@5"], label="relevance",
                   weight="uniform", gain="linear", ties="pessimistic")
    rep = pre.report(imp, group="user_id", label="relevance", scores=["model_a", "model_b"],
                     metrics=["gauc", "ndcg@5"], weight="uniform", gain="linear", ties="pessimistic")
    assert res.loc[("model_b", "ndcg@5"), "value"] == pytest.approx(rep.loc["model_b", "ndcg@5"], abs=1e-12)
    assert res.attrs["params"]["ndcg@5"]["gain"] == "linear"


def test_coverage_warning_once(imp):
    # single-class users are part of GAUC's definition: no warning for them
    with warnings.catch_warnings():
        warnings.simplefilter("error", pre.CoverageWarning)
        _compare(imp, n_boot=20)
    # filters that drop more than 10% of the positives: one warning, at this line
    with pytest.warns(pre.CoverageWarning, match="compare: gauc: .* groups used; the filters drop") as rec:
        _compare(imp, n_boot=20, min_size=20)
    assert rec[0].filename == __file__
    assert len([w for w in rec if issubclass(w.category, pre.CoverageWarning)]) == 1


def test_progress(imp, capsys, monkeypatch):
    pytest.importorskip("tqdm")
    _compare(imp, n_boot=20, progress=True)
    assert "compare" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match="progress=True needs the tqdm package"):
        _compare(imp, n_boot=20, progress=True)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"baseline": "model_x"}, r"The 'baseline' parameter of compare must be one of the score columns \['model_a', 'model_b', 'model_c'\]. Got 'model_x' instead."),
        ({"scores": ["model_a"]}, r"compare needs at least two score columns, the baseline and a model"),
        ({"scores": "model_a"}, r"compare needs at least two score columns"),
        ({"scores": ["model_a", "model_b", "model_a"]}, r"The 'scores' parameter of compare names a column more than once: \['model_a'\]"),
        ({"ci": 1.5}, r"The 'ci' parameter of compare must be a float in the range \(0, 1\). Got 1.5 instead."),
        ({"ci": None}, r"The 'ci' parameter of compare must be a float in the range \(0, 1\)"),
        ({"alpha": 0}, r"The 'alpha' parameter of compare must be a float in the range \(0, 1\). Got 0 instead."),
        ({"n_boot": 0}, r"The 'n_boot' parameter of compare must be an int in the range \[1, inf\). Got 0 instead."),
        ({"method": "permutation"}, r"The 'method' parameter of compare must be one of 'auto', 'randomization', 'bootstrap'. Got 'permutation' instead."),
        ({"metrics": ["gauc", "ndgc@10"]}, r"Unknown metric 'ndgc@10'"),
    ],
)
def test_errors(imp, kw, match):
    with pytest.raises(ValueError, match=match):
        _compare(imp, **kw)


def test_missing_column(imp):
    with pytest.raises(KeyError, match=r"The following columns were not found: \['model_x'\]"):
        _compare(imp, scores=["model_a", "model_x"])


# --------------------------------------------------------------------------- #
# Size and power
# --------------------------------------------------------------------------- #
def simulate(rng: np.random.Generator, n_groups: int, mu_a: float, mu_b: float) -> pd.DataFrame:
    """Binormal scores with a shared group effect: score = mu * label + b_group + N(0, 1)."""
    sizes = rng.integers(2, 16, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    ctr = rng.beta(1.0, 5.0, n_groups)
    y = (rng.random(n) < ctr[g]).astype(np.int64)
    b = rng.normal(0.0, 1.0, n_groups)[g]
    return pd.DataFrame({
        "user_id": g,
        "click": y,
        "model_a": mu_a * y + b + rng.normal(size=n),
        "model_b": mu_b * y + b + rng.normal(size=n),
    })


METRICS = ["auc", "gauc", "mrr", "ndcg@5"]


def _data_sets(n_sim: int, n_groups: int, mu_b: float, seed: int) -> pd.DataFrame:
    """``n_sim`` independent data sets of ``n_groups`` groups, stacked, each a value of ``set``:
    one compare(by="set") call tests them all (a segment's p-value is a test on its own groups)."""
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(n_sim):
        df = simulate(rng, n_groups, 1.0, mu_b)
        parts.append(df.assign(user_id=df["user_id"] + i * n_groups, set=i))
    return pd.concat(parts, ignore_index=True)


def _pvalues(n_sim: int, mu_b: float, seed: int, metrics: list[str], n_groups: int = 200) -> pd.DataFrame:
    """Unadjusted p-values, one row per data set, one column per metric."""
    df = _data_sets(n_sim, n_groups, mu_b, seed)
    res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=metrics, by="set", n_boot=200, seed=seed, adjust="none")
    return res["p_value"].unstack("metric")[metrics]


# mrr's size is in test_compare_sim.py (30 groups through compare, 300 and 3,000 groups through
# the same p-value function), where its exact lattice tail is cheaper to draw than here
SIZE_METRICS = ["auc", "gauc", "ndcg@5"]


@pytest.mark.slow
def test_false_positive_rate_near_alpha():
    """Two models drawn from the same distribution: p < 0.05 in about 5% of 300 data sets of 200
    groups (global AUC's DeLong test, gauc's and ndcg@5's sign-flip tests)."""
    rate = (_pvalues(300, mu_b=1.0, seed=77, metrics=SIZE_METRICS) < 0.05).mean()
    for m in SIZE_METRICS:
        assert 0.02 <= rate[m] <= 0.09, rate.to_dict()


@pytest.mark.slow
def test_power_for_a_clear_improvement():
    rate = (_pvalues(40, mu_b=1.8, seed=78, metrics=METRICS) < 0.05).mean()
    for m in METRICS:
        assert rate[m] >= 0.8, rate.to_dict()


@pytest.mark.slow
def test_holm_controls_the_family_wise_error():
    """Under the null, at least one of 3 correlated metrics significant after Holm's adjustment
    (compare's own, over each data set's family) in <= ~5% of 300 data sets of 150 groups; without
    the adjustment, clearly more often."""
    from pandas_rankeval.inference.pvalues import holm

    p = _pvalues(300, mu_b=1.0, seed=79, metrics=SIZE_METRICS, n_groups=150).to_numpy()
    adjusted = np.array([holm(row) for row in p])
    fwer = float(np.mean((adjusted < 0.05).any(axis=1)))
    raw = float(np.mean((p < 0.05).any(axis=1)))
    assert fwer <= 0.075 and raw >= fwer + 0.03, (fwer, raw)


def test_global_auc_only_with_segments(imp):
    """Only global AUC: the group keys are encoded for the bootstrap alone."""
    res = _compare(imp, scores=["model_a", "model_b"], metrics=["auc"], by="country")
    assert res.index.names == ["country", "model", "metric"]
    for (country, _, _), row in res.iterrows():
        sub = imp[imp["country"] == country]
        assert row["value"] == pytest.approx(float(pre.auc(sub, label="click", score="model_b")), abs=1e-12)
        assert row["baseline_value"] == pytest.approx(float(pre.auc(sub, label="click", score="model_a")), abs=1e-12)


def test_segments_in_the_order_of_report(imp):
    res = _compare(imp, scores=["model_a", "model_b"], metrics=["gauc"], by="country", n_boot=20)
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                     metrics=["gauc"], by="country")
    segments = list(dict.fromkeys(rep.index.get_level_values("country")))
    assert list(res.index.get_level_values("country")) == segments


# ---------------------------------------------------------------- simultaneous intervals
def test_bonferroni_intervals_are_the_unadjusted_ones_widened_over_the_family(imp):
    """ci_adjust='bonferroni': each side of the unadjusted interval stretched away from diff by
    z_{1 - 0.05/(2m)} / z_{0.975}; m is the table's rows (family='table') or each metric's (family='metric');
    DeLong's global-AUC interval included. Points, p-values and marks do not move."""
    from scipy.stats import norm

    kw = dict(baseline=None, metrics=["auc", "gauc", "mrr"], by="device")
    for family in ("table", "metric"):
        plain = _compare(imp, family=family, **kw)
        adj = _compare(imp, ci_adjust="bonferroni", family=family, **kw)
        pd.testing.assert_frame_equal(adj.drop(columns=["ci_low", "ci_high"]), plain.drop(columns=["ci_low", "ci_high"]))
        metric = plain.index.get_level_values("metric")
        ok = np.isfinite(plain["diff"].to_numpy())
        m = np.array([(ok & (metric == k)).sum() if family == "metric" else ok.sum() for k in metric])
        r = norm.ppf(1 - 0.05 / (2 * m)) / norm.ppf(0.975)
        d, lo, hi = (plain[c].to_numpy() for c in ("diff", "ci_low", "ci_high"))
        np.testing.assert_allclose(adj["ci_low"].to_numpy()[ok], np.clip(d - r * (d - lo), -1, 1)[ok], rtol=0, atol=1e-15)
        np.testing.assert_allclose(adj["ci_high"].to_numpy()[ok], np.clip(d + r * (hi - d), -1, 1)[ok], rtol=0, atol=1e-15)
        assert ((adj["ci_low"] <= plain["ci_low"]) & (plain["ci_high"] <= adj["ci_high"]))[ok].all()
    text = str(adj)
    assert "intervals: 95% simultaneous (Bonferroni over each metric's comparisons)" in " ".join(text.split())
    assert "intervals: 95% each, not adjusted (ci_adjust='bonferroni': simultaneous)" in " ".join(str(plain).split())
    one = _compare(imp, scores=["model_a", "model_b"], metrics=["gauc"])
    assert "intervals:" not in str(one)  # one comparison: nothing to adjust
    with pytest.raises(ValueError, match="ci_adjust"):
        _compare(imp, ci_adjust="holm")


@pytest.mark.slow  # a simulation: run by .ci/run after the default suite (pytest -m slow)
def test_bonferroni_intervals_hold_together_where_unadjusted_ones_do_not():
    """Three exchangeable models (every true difference 0), all pairs x 3 metrics = 9 intervals
    per data set, 60 data sets of 150 groups as segments of one call: all 9 unadjusted 95%
    intervals hold 0 in far fewer than 95% of the sets, the Bonferroni ones in about 95%
    (benchmarks/sim_ci_adjust.py: 400 sets at 30, 300 and 3,000 groups)."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "benchmarks"))
    import sim_ci_adjust as sim

    df = sim.simulate(np.random.default_rng(11), 60, 150)
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                      baseline=None, metrics=sim.METRICS, by="set", n_boot=300, seed=1)
    from pandas_rankeval.tables.compare import bonferroni_intervals

    diff, lo, hi = (cmp[c].to_numpy(dtype=float) for c in ("diff", "ci_low", "ci_high"))
    sets = cmp.index.get_level_values("set").to_numpy()
    blo, bhi = lo.copy(), hi.copy()
    for s in np.unique(sets):
        at = sets == s
        blo[at], bhi[at] = bonferroni_intervals(diff[at], lo[at], hi[at], 0.95, None)
    plain = pd.Series((lo <= 0) & (0 <= hi)).groupby(sets).all().mean()
    adjusted = pd.Series((blo <= 0) & (0 <= bhi)).groupby(sets).all().mean()
    assert plain <= 0.85 and adjusted >= 0.88, (plain, adjusted)
