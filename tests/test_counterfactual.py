"""propensities (EM, regression EM, intervention harvesting) and launch_agreement: recovery of a
known truth on simulated logs, independent oracles, determinism, and every error a user can meet.

The coverage checks here are a small version of benchmarks/sim_propensities.py (200 logs)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.counterfactual import AgreementTable, PropensityTable
from pandas_rankeval.counterfactual.launches import kendall_tau_b, wilson_interval
from pandas_rankeval.datasets import make_click_log

KW = dict(group="session", position="position", label="click")
ITEM = ["query", "doc"]


def covered(table: pd.DataFrame, truth: np.ndarray) -> np.ndarray:
    lo, hi = table["propensity_low"].to_numpy()[1:], table["propensity_high"].to_numpy()[1:]
    return (lo <= truth[1:]) & (truth[1:] <= hi)


def coverage_bound(n: int, target: float = 0.9) -> float:
    """The 90% target less two binomial standard errors of a share over n checks."""
    return target - 2 * math.sqrt(target * (1 - target) / n)


# --------------------------------------------------------------------------------------------
# recovery of a known examination curve


@pytest.mark.slow  # a simulation: run by .ci/run after the default suite (pytest -m slow)
def test_em_items_covers_the_truth_and_the_naive_ratio_does_not() -> None:
    hits, naive_hits = [], []
    for s in range(12):
        log = make_click_log(1000, n_queries=20, n_rankers=2, shuffle=1.0, seed=1000 + s)
        truth = np.asarray(log.attrs["examination"])
        t = pre.propensities(log, **KW, item=ITEM, n_boot=40, seed=s)
        hits += covered(t, truth).tolist()
        ctr = t["clicks"] / t["impressions"]
        naive = (ctr / ctr.iloc[0]).to_numpy()
        naive_hits += covered(t.assign(propensity_low=naive, propensity_high=naive), truth).tolist()
    assert np.mean(hits) >= coverage_bound(len(hits)), np.mean(hits)
    # the intervals are narrow enough to tell: the naive click ratio, biased because better
    # documents sit higher, falls inside the truth's interval check rarely
    assert np.mean(naive_hits) < 0.5, np.mean(naive_hits)


def test_naive_click_ratio_is_biased_and_em_is_not_on_a_long_log() -> None:
    log = make_click_log(20000, n_queries=20, seed=7)
    truth = np.asarray(log.attrs["examination"])
    t = pre.propensities(log, **KW, item=ITEM, n_boot=0)
    np.testing.assert_allclose(t["propensity"], truth, atol=0.02)
    ctr = (t["clicks"] / t["impressions"]).to_numpy()
    assert np.max(np.abs(ctr / ctr[0] - truth)) > 0.05


def test_harvest_covers_the_truth_on_two_ranker_logs() -> None:
    hits = []
    for s in range(40):
        log = make_click_log(1000, n_queries=20, n_rankers=2, shuffle=0.0, seed=2000 + s)
        t = pre.propensities(log, **KW, item=ITEM, ranker="ranker", n_boot=100, seed=s)
        assert t.attrs["method"] == "harvest"
        hits += covered(t, np.asarray(log.attrs["examination"])).tolist()
    assert np.mean(hits) >= coverage_bound(len(hits)), np.mean(hits)


def test_regression_em_with_features_recovers_the_curve() -> None:
    log = make_click_log(2500, n_queries=200, n_docs=10, seed=3)  # items rarely repeat: 2,000 of them
    truth = np.asarray(log.attrs["examination"])
    t = pre.propensities(log, **KW, features=["x1", "x2"], n_boot=10, ci=0.8)
    np.testing.assert_allclose(t["propensity"], truth, atol=0.06)
    assert (t["propensity_low"] <= t["propensity"]).all() and (t["propensity"] <= t["propensity_high"]).all()
    assert "regression EM" in t.footer()[1]


def test_relevance_model_option() -> None:
    from sklearn.tree import DecisionTreeClassifier

    log = make_click_log(1500, n_queries=100, seed=4)
    t = pre.propensities(log, **KW, features=["x1", "x2"], n_boot=0, max_iter=100,
                         relevance_model=DecisionTreeClassifier(max_depth=4, min_samples_leaf=100))
    assert t["propensity"].iloc[0] == 1.0 and t["propensity"].is_monotonic_decreasing
    assert "DecisionTreeClassifier of ['x1', 'x2']" in t.footer()[1]
    with pytest.warns(pre.counterfactual.PropensityWarning, match="did not converge in max_iter=2"):
        pre.propensities(log, **KW, features=["x1", "x2"], n_boot=0, max_iter=2)
    with pytest.raises(TypeError, match="relevance_model.*predict_proba"):
        pre.propensities(log, **KW, features=["x1"], relevance_model=object())


# --------------------------------------------------------------------------------------------
# oracles


def _pbm_mle(item: np.ndarray, position: np.ndarray, click: np.ndarray) -> np.ndarray:
    """The position-based model's maximum likelihood by a general optimizer (scipy's L-BFGS-B on
    the clicks' log-likelihood, with its gradient), a code path apart from the EM: every
    examination p_k and relevance r_i in (0, 1) through a logit, none fixed (the model is
    identified up to the scale of p, so p_k / p_1 is returned, free to exceed 1)."""
    from scipy.optimize import minimize

    cell, inv = np.unique(np.c_[item, position], axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    n = np.bincount(inv).astype(float)
    c = np.bincount(inv, weights=click.astype(float))
    ci_, cp = np.unique(cell[:, 0], return_inverse=True)[1].reshape(-1), np.unique(cell[:, 1], return_inverse=True)[1].reshape(-1)
    n_pos, n_items = cp.max() + 1, ci_.max() + 1

    def nll(v: np.ndarray) -> tuple[float, np.ndarray]:
        p, r = 1 / (1 + np.exp(-v[:n_pos])), 1 / (1 + np.exp(-v[n_pos:]))
        q = p[cp] * r[ci_]
        d = -(c / q - (n - c) / (1 - q))  # d nll / d q per cell
        gp = np.bincount(cp, weights=d * r[ci_], minlength=n_pos) * p * (1 - p)
        gr = np.bincount(ci_, weights=d * p[cp], minlength=n_items) * r * (1 - r)
        return float(-(c * np.log(q) + (n - c) * np.log1p(-q)).sum()), np.r_[gp, gr]

    res = minimize(nll, np.zeros(n_pos + n_items), jac=True, method="L-BFGS-B",
                   options={"maxiter": 50000, "ftol": 1e-16, "gtol": 1e-9})
    p = 1 / (1 + np.exp(-res.x[:n_pos]))
    return p / p[0]


def _uniform_log(truth: tuple[float, ...], n: int, n_items: int, seed: int) -> pd.DataFrame:
    """Uniform-random logging: every impression puts a random item at a random position; the
    examination is ``truth`` relative to position 1 (scaled so that its largest is 0.8)."""
    rng = np.random.default_rng(seed)
    exam = 0.8 * np.asarray(truth) / max(truth)
    item = rng.integers(0, n_items, n)
    pos = rng.integers(1, len(truth) + 1, n)
    rel = rng.uniform(0.1, 0.9, n_items)
    click = (rng.random(n) < exam[pos - 1] * rel[item]).astype(int)
    return pd.DataFrame({"session": np.arange(n) // len(truth), "item": item, "position": pos, "click": click})


@pytest.mark.parametrize("truth", [(1.0, 2.0, 1.4), (1.0, 0.95, 0.8), (1.0, 0.6, 0.35, 0.25)])
def test_em_equals_the_uncapped_likelihood_maximum(truth: tuple[float, ...]) -> None:
    # EM started at p_1 = 1 (a fixed point) and capped p_k / p_1 at 1: on (1, 2, 1.4)
    # it returned [1, 1, 1] with a zero-width interval. Curves: not monotone, nearly flat, decreasing.
    log = _uniform_log(truth, 30000, 60, seed=len(truth) + int(10 * truth[1]))
    t = pre.propensities(log, group="session", position="position", label="click", item="item", n_boot=20,
                         ci=0.9, tol=1e-10, max_iter=20000)
    mle = _pbm_mle(log["item"].to_numpy(), log["position"].to_numpy(), log["click"].to_numpy())
    np.testing.assert_allclose(t["propensity"], mle, rtol=1e-3)
    np.testing.assert_allclose(t["propensity"], truth, rtol=0.08)  # and both near the truth
    assert (t["propensity_high"] - t["propensity_low"]).iloc[1:].min() > 0.01  # a real interval
    assert t.attrs["converged"]


def test_em_equals_the_likelihood_maximum() -> None:
    log = make_click_log(600, n_queries=8, n_docs=6, depth=4, seed=11)
    t = pre.propensities(log, **KW, item=ITEM, n_boot=0, tol=1e-12, max_iter=5000)
    mle = _pbm_mle((log["query"] * 1000 + log["doc"]).to_numpy(), log["position"].to_numpy(), log["click"].to_numpy())
    np.testing.assert_allclose(t["propensity"], mle, rtol=1e-3)


def _pbm_logit_mle(x: np.ndarray, position: np.ndarray, click: np.ndarray, c: float = 1.0) -> np.ndarray:
    """The penalized likelihood maximum of P(click) = p_k sigmoid(b0 + x b) (the objective of
    regression EM with scikit-learn's default LogisticRegression: an L2 penalty |b|^2 / (2 C), the
    intercept free) by scipy's L-BFGS-B over logit p_k and b, with its gradient, apart from the EM."""
    from scipy.optimize import minimize

    pos = np.unique(position, return_inverse=True)[1].reshape(-1)
    n_pos, x1, y = pos.max() + 1, np.c_[np.ones(len(x)), x], click.astype(float)
    pen = np.r_[0.0, np.full(x.shape[1], 1.0 / c)]

    def nll(v: np.ndarray) -> tuple[float, np.ndarray]:
        p, s = 1 / (1 + np.exp(-v[:n_pos])), 1 / (1 + np.exp(-(x1 @ v[n_pos:])))
        q = p[pos] * s
        d = y / q - (1 - y) / (1 - q)  # d loglik / d q per row
        gp = np.bincount(pos, weights=d * s, minlength=n_pos) * p * (1 - p)
        gb = x1.T @ (d * p[pos] * s * (1 - s)) - pen * v[n_pos:]
        value = (y * np.log(q) + (1 - y) * np.log1p(-q)).sum() - 0.5 * (pen * v[n_pos:] ** 2).sum()
        return -float(value), -np.r_[gp, gb]

    res = minimize(nll, np.zeros(n_pos + x1.shape[1]), jac=True, method="L-BFGS-B",
                   options={"maxiter": 100000, "ftol": 1e-15, "gtol": 1e-10})
    p = 1 / (1 + np.exp(-res.x[:n_pos]))
    return p / p[0]


@pytest.mark.parametrize("noise", [0.0, 0.05])
def test_regression_em_equals_the_penalized_likelihood_maximum(noise: float) -> None:
    # the cost: the M-steps refitted LogisticRegression by lbfgs to its default tol=1e-4 from
    # the last fit; the EM stopped where the inexact fits stopped moving, 1e-3 from the maximum on a 1e5-row
    # log. Now the default fits exactly (Newton on the posteriors); noise 0: features repeat (rows merged),
    # 0.05: every row distinct.
    log = make_click_log(1500, n_queries=200, n_docs=10, seed=3)
    log["x1"] += np.random.default_rng(1).normal(0.0, noise, len(log))
    t = pre.propensities(log, **KW, features=["x1", "x2"], n_boot=0)
    mle = _pbm_logit_mle(log[["x1", "x2"]].to_numpy(), log["position"].to_numpy(), log["click"].to_numpy())
    np.testing.assert_allclose(t["propensity"], mle, rtol=1e-4)
    assert t.attrs["converged"]


def test_regression_em_default_equals_scikit_learn_refits_to_their_precision() -> None:
    # the previous code path (scikit-learn's LogisticRegression refitted on every row twice, any model that
    # SoftLogit does not fit takes it), with its solver's tolerance tightened, reaches the same maximum;
    # a LogisticRegression passed with a C of its own takes the fast path with that C.
    from sklearn.linear_model import LogisticRegression

    class Refitted(LogisticRegression):  # not LogisticRegression itself: refitted as given
        pass

    log = make_click_log(800, n_queries=100, seed=4)
    fast = pre.propensities(log, **KW, features=["x1", "x2"], n_boot=0)
    slow = pre.propensities(log, **KW, features=["x1", "x2"], n_boot=0,
                            relevance_model=Refitted(tol=1e-10, max_iter=1000, warm_start=True))
    assert "Refitted of ['x1', 'x2']" in slow.footer()[1]
    np.testing.assert_allclose(fast["propensity"], slow["propensity"], rtol=1e-4)
    strong = pre.propensities(log, **KW, features=["x1", "x2"], n_boot=0, relevance_model=LogisticRegression(C=0.01))
    mle = _pbm_logit_mle(log[["x1", "x2"]].to_numpy(), log["position"].to_numpy(), log["click"].to_numpy(), c=0.01)
    np.testing.assert_allclose(strong["propensity"], mle, rtol=1e-4)


def test_regression_em_replicates_warm_start_equal_cold_starts() -> None:
    # each replicate's maximum is found by Fisher scoring from the whole log's estimate and coefficients
    # (10-20 passes over the rows); a cold EM per replicate (from the point estimate's own start, hundreds
    # of iterations) reaches the same maximum: the same replicates (so interval) to 1e-4 relative
    from pandas_rankeval.counterfactual.propensity import _features_path
    from pandas_rankeval.inference.hashing import poisson_weights

    log = make_click_log(400, n_queries=40, seed=5)
    x, y = log[["x1", "x2"]].to_numpy(), log["click"].to_numpy(dtype=float)
    pos, gcode = log["position"].to_numpy() - 1, log["session"].to_numpy()
    weights = poisson_weights(np.arange(400, dtype=np.uint64), 7, 10)
    warm = _features_path(x, y, pos, 5, gcode, weights, None, 3000, 1e-7)
    cold = _features_path(x, y, pos, 5, gcode, weights, None, 3000, 1e-7, cold_replicates=True)
    assert warm[3].all and cold[3].all
    np.testing.assert_array_equal(warm[0], cold[0])
    assert np.ptp(warm[1][1:], axis=1).min() > 0.01  # replicates that differ
    np.testing.assert_allclose(warm[1], cold[1], rtol=1e-4)


def test_harvest_two_positions_is_the_ratio_of_summed_click_rates() -> None:
    log = make_click_log(800, n_queries=15, n_docs=4, depth=2, n_rankers=2, shuffle=0.0, seed=5)
    t = pre.propensities(log, **KW, item=ITEM, ranker="ranker", n_boot=0)
    cells = log.groupby(["query", "doc", "position"]).agg(ctr=("click", "mean"), rankers=("ranker", "nunique"),
                                                          first=("ranker", "min")).reset_index()
    wide = cells.pivot_table(index=["query", "doc"], columns="position", values=["ctr", "rankers", "first"])
    wide = wide.dropna()
    same = (wide[("rankers", 1)] == 1) & (wide[("rankers", 2)] == 1) & (wide[("first", 1)] == wide[("first", 2)])
    wide = wide[~same]
    expected = wide[("ctr", 2)].sum() / wide[("ctr", 1)].sum()
    assert t["propensity"].iloc[1] == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------------------------
# the table, determinism


@pytest.fixture(scope="module")
def small_log() -> pd.DataFrame:
    return make_click_log(600, n_queries=15, seed=2)


def test_table_shape_footer_and_exports(small_log: pd.DataFrame) -> None:
    t = pre.propensities(small_log, **KW, item=ITEM, n_boot=40)
    assert isinstance(t, PropensityTable)
    assert t.index.name == "position" and t.index.tolist() == [1, 2, 3, 4, 5]
    assert list(t.columns) == ["propensity", "propensity_low", "propensity_high", "impressions", "clicks"]
    assert t["propensity"].iloc[0] == 1.0 and t["impressions"].sum() == len(small_log)
    assert t["clicks"].sum() == small_log["click"].sum()
    text = t.to_text(width=0)
    assert "method: EM (Wang et al. 2018)" in text and "600 groups" in text
    assert any("40 Poisson bootstrap replicates over groups" in line for line in t.footer())
    csv = t.to_csv()
    assert "# method: EM" in csv
    back = pd.read_csv(__import__("io").StringIO(csv), comment="#", index_col="position")
    np.testing.assert_allclose(back["propensity"], t["propensity"], rtol=1e-12)


def test_deterministic_and_independent_of_row_order(small_log: pd.DataFrame) -> None:
    a = pre.propensities(small_log, **KW, item=ITEM, n_boot=40, seed=3)
    b = pre.propensities(small_log, **KW, item=ITEM, n_boot=40, seed=3)
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))
    shuffled = small_log.sample(frac=1.0, random_state=1).reset_index(drop=True)
    c = pre.propensities(shuffled, **KW, item=ITEM, n_boot=40, seed=3)
    np.testing.assert_allclose(c.to_numpy(dtype=float), a.to_numpy(dtype=float), rtol=1e-6, atol=1e-9)
    d = pre.propensities(small_log, **KW, item=ITEM, n_boot=40, seed=4)
    assert not np.allclose(d["propensity_low"], a["propensity_low"])


def test_input_not_modified_and_no_interval(small_log: pd.DataFrame) -> None:
    before = small_log.copy()
    t = pre.propensities(small_log, **KW, item=ITEM, n_boot=0)
    pd.testing.assert_frame_equal(small_log, before)
    assert t["propensity_low"].isna().all() and t["propensity_high"].isna().all()
    assert any("no interval (n_boot=0)" in line for line in t.footer())


@pytest.mark.parametrize("how", ["em", "harvest", "features"])
def test_propensities_progress_counts_its_steps_and_changes_no_number(small_log: pd.DataFrame, capsys, how: str) -> None:
    pytest.importorskip("tqdm")
    n_boot, max_iter = 20, 300
    if how == "harvest":
        log, kw = make_click_log(1000, n_queries=20, n_rankers=2, shuffle=0.0, seed=2000), dict(item=ITEM, ranker="ranker")
        steps = 1 + n_boot  # the whole log, then one per replicate
    elif how == "em":
        log, kw = small_log, dict(item=ITEM)
        steps = max_iter + n_boot + max_iter  # EM on the log, a count per replicate, EM on every replicate at once
    else:
        log, kw = small_log, dict(features=["x1", "x2"])
        steps = 1 + n_boot
    plain = pre.propensities(log, **KW, **kw, n_boot=n_boot, max_iter=max_iter)
    assert capsys.readouterr().err == ""
    shown = pre.propensities(log, **KW, **kw, n_boot=n_boot, max_iter=max_iter, progress=True)
    pd.testing.assert_frame_equal(pd.DataFrame(shown), pd.DataFrame(plain))
    assert shown.footer() == plain.footer() and shown.attrs["method"] == plain.attrs["method"]
    err = capsys.readouterr().err
    assert "propensities" in err and f"{steps}/{steps}" in err, err


def test_plot(small_log: pd.DataFrame) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = pre.propensities(small_log, **KW, item=ITEM, n_boot=40)
    ax = t.plot(clip=0.1)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["propensity", "95% interval (bootstrap over groups)", "clip = 0.1"]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), t["propensity"])
    plt.close("all")


# --------------------------------------------------------------------------------------------
# errors: bad input first, then logs that cannot identify the propensities


def test_bad_input_errors(small_log: pd.DataFrame) -> None:
    log = small_log
    with pytest.raises(ValueError, match=r"Column 'position' \(position\) has 1 missing value"):
        pre.propensities(log.assign(position=log["position"].where(log.index != 3)), **KW, item=ITEM)
    with pytest.raises(ValueError, match="2 values that are not whole numbers"):
        pre.propensities(log.assign(position=log["position"].astype(float).mask(log.index < 2, 1.5)), **KW, item=ITEM)
    with pytest.raises(ValueError, match=r"600 values below 1 .*\+ 1\)"):
        pre.propensities(log.assign(position=log["position"] - 1), **KW, item=ITEM)
    with pytest.raises(ValueError, match=r"Column 'click' \(label\) has 1 value other than 0 and 1"):
        pre.propensities(log.assign(click=log["click"].mask(log.index == 0, 2)), **KW, item=ITEM)
    with pytest.raises(TypeError, match="position.*dtype"):
        pre.propensities(log.assign(position=log["position"].astype(str)), **KW, item=ITEM)
    with pytest.raises(pre.ColumnNotFoundError, match="Did you mean 'doc'"):
        pre.propensities(log, **KW, item=["query", "docs"])
    with pytest.raises(ValueError, match="'method' parameter of propensities must be one of"):
        pre.propensities(log, **KW, item=ITEM, method="ips")
    with pytest.raises(ValueError, match="method='harvest' of propensities needs ranker="):
        pre.propensities(log, **KW, item=ITEM, method="harvest")
    with pytest.raises(ValueError, match="needs item=.*or features="):
        pre.propensities(log, **KW)
    with pytest.raises(ValueError, match="item= or features=, not both"):
        pre.propensities(log, **KW, item=ITEM, features=["x1"])
    with pytest.raises(ValueError, match="'n_boot' parameter.*too few for a 95% interval"):
        pre.propensities(log, **KW, item=ITEM, n_boot=5)
    with pytest.raises(ValueError, match="'tol' parameter"):
        pre.propensities(log, **KW, item=ITEM, tol=0)


@pytest.mark.filterwarnings("ignore:propensities.*impressions per item:UserWarning")
def test_logs_that_cannot_identify_propensities(small_log: pd.DataFrame) -> None:
    log = small_log
    with pytest.raises(ValueError, match=r"holds one position only \(1\)"):
        pre.propensities(log[log["position"] == 1], **KW, item=ITEM)
    with pytest.raises(ValueError, match="no row at position 1 \\(the smallest is 2\\)"):
        pre.propensities(log[log["position"] > 1], **KW, item=ITEM)
    with pytest.raises(ValueError, match=r"no click below position 1 \(2,400 rows at positions 2\.\.5, 0 clicks\)"):
        pre.propensities(log.assign(click=np.where(log["position"] > 1, 0, log["click"])), **KW, item=ITEM)
    with pytest.raises(ValueError, match="hold 9 groups; .* at least 10"):
        pre.propensities(log[log["session"] < 9], **KW, item=ITEM)
    # every item always at the same position: a deterministic single ranker
    fixed = make_click_log(400, n_queries=10, shuffle=0.0, seed=1)
    with pytest.raises(ValueError, match=r"No item of the 'item' columns was shown at two positions \(.* items"):
        pre.propensities(fixed, **KW, item=ITEM)
    with pytest.raises(ValueError, match="by two different rankers"):
        pre.propensities(fixed, **KW, item=ITEM, ranker="ranker")
    # positions 4 and 5 hold items that never appear higher: not linked to the top
    split = log.copy()
    split.loc[split["position"] >= 4, "doc"] += 100
    with pytest.raises(ValueError, match=r"cannot place 2 positions \(\[4, 5\]\) relative to position 1.*<= 3"):
        pre.propensities(split, **KW, item=ITEM)


# --------------------------------------------------------------------------------------------
# launch_agreement


def _launches(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    good = rng.normal(0.01, 0.01, n)
    online = 0.4 * good + rng.normal(0, 0.002, n)
    return pd.DataFrame({"ndcg": good, "noise": rng.normal(0.0, 0.01, n), "online": online,
                         "ndcg_low": good - 0.004, "ndcg_high": good + 0.004, "online_se": np.full(n, 0.001)})


def test_launch_agreement_recovers_a_known_relation() -> None:
    t = pre.launch_agreement(_launches(60), offline=["ndcg", "noise"], online="online", n_boot=1000)
    assert isinstance(t, AgreementTable)
    assert t.best == "ndcg" and t["best"].tolist() == [True, False]
    assert t.loc["ndcg", "slope_low"] <= 0.4 <= t.loc["ndcg", "slope_high"]
    assert t.loc["ndcg", "kendall_tau"] > 0.6 and t.loc["noise", "kendall_tau_low"] < 0 < t.loc["noise", "kendall_tau_high"]
    assert t.loc["ndcg", "sign_agreement"] > 0.85
    assert t.footer()[0] == "based on 60 launches"
    assert "clearly ahead of noise" in t.footer()[1]
    # the <metric>_low / _high columns and the online standard error give the decisive launches
    assert t.loc["ndcg", "n_decisive"] > 0 and t.loc["ndcg", "decisive_agreement"] == 1.0
    assert math.isnan(t.loc["noise", "n_decisive"]) is False


def test_launch_agreement_progress_counts_the_replicates_and_changes_no_number(capsys) -> None:
    pytest.importorskip("tqdm")
    kw = dict(offline=["ndcg", "noise"], online="online", n_boot=300)
    plain = pre.launch_agreement(_launches(30), **kw)
    assert capsys.readouterr().err == ""
    shown = pre.launch_agreement(_launches(30), progress=True, **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(shown), pd.DataFrame(plain))
    assert shown.footer() == plain.footer()
    err = capsys.readouterr().err
    assert "bootstrap" in err and "600/600" in err  # 300 replicates of each of the 2 metrics


def test_launch_agreement_oracles() -> None:
    from scipy.stats import kendalltau

    x = np.array([0.1, 0.2, 0.2, 0.5, -0.1, 0.3, 0.3])
    y = np.array([1.0, 0.5, 0.5, 2.0, -1.0, 0.0, 3.0])
    assert kendall_tau_b(x, y)[0] == pytest.approx(kendalltau(x, y).statistic, abs=1e-12)  # tau-b, with ties
    # a bootstrap replicate's weights equal the resampled rows
    w = np.array([[2.0, 0, 1, 1, 0, 3, 0]])
    rows = np.repeat(np.arange(7), w[0].astype(int))
    assert kendall_tau_b(x, y, w)[0] == pytest.approx(kendalltau(x[rows], y[rows]).statistic, abs=1e-12)
    lo, hi = wilson_interval(7, 10, 0.95)
    assert (round(lo, 4), round(hi, 4)) == (0.3968, 0.8922)
    t = pre.launch_agreement(pd.DataFrame({"m": x, "on": y}), offline=["m"], online="on")
    assert t.loc["m", "slope"] == pytest.approx(float((x * y).sum() / (x * x).sum()), rel=1e-12)
    assert t.loc["m", "sign_agreement"] == pytest.approx(6 / 7)  # the online lift of 0 is a disagreement


def test_launch_agreement_few_launches_and_equal_signs() -> None:
    two = pd.DataFrame({"a": [0.01, 0.02], "b": [0.02, -0.01], "on": [0.003, 0.004]})
    t = pre.launch_agreement(two, offline=["a", "b"], online="on")
    assert t.footer()[0] == "based on 2 launches; intervals are wide"
    assert "fewer than 5 launches no metric can be called clearly best" in t.footer()[1]
    assert "every launch moved 'on' the same way (+)" in t.footer()[2]
    assert t[["kendall_tau_low", "slope_low"]].isna().all().all()
    flat = pd.DataFrame({"a": [0.01] * 6, "on": [0.001, 0.002, -0.001, 0.003, 0.0, 0.002]})
    t = pre.launch_agreement(flat, offline=["a"], online="on", n_boot=200)
    assert math.isnan(t.loc["a", "kendall_tau"])
    assert any("kendall_tau undefined (NaN) for ['a']" in line for line in t.footer())
    assert "n_decisive" not in t.columns  # no intervals, no standard error


def test_launch_agreement_missing_values_and_errors() -> None:
    df = _launches(10)
    df.loc[[1, 4], "noise"] = np.nan
    with pytest.raises(ValueError, match=r"2 of 10 launches have missing values \(per column: \{'noise': 2\}\).*nan_policy='omit'"):
        pre.launch_agreement(df, offline=["ndcg", "noise"], online="online")
    t = pre.launch_agreement(df, offline=["ndcg", "noise"], online="online", nan_policy="omit")
    assert t["n_launches"].tolist() == [10, 8]
    assert t.footer()[0] == "based on 8 to 10 launches; intervals are wide"
    with pytest.raises(ValueError, match="at least 2 launches to measure agreement; got 1"):
        pre.launch_agreement(df.head(1), offline=["ndcg"], online="online")
    with pytest.raises(ValueError, match="only one end of the offline interval of \\['noise'\\]"):
        pre.launch_agreement(df.assign(noise_low=0.0), offline=["ndcg", "noise"], online="online", nan_policy="omit")
    with pytest.raises(TypeError, match="'offline' parameter of launch_agreement must be a non-empty list"):
        pre.launch_agreement(df, offline="ndcg", online="online")
    with pytest.raises(pre.ColumnNotFoundError):
        pre.launch_agreement(df, offline=["ndgc"], online="online")
    with pytest.raises(ValueError, match="infinite"):
        pre.launch_agreement(df.assign(ndcg=np.inf), offline=["ndcg"], online="online")


def test_launch_agreement_deterministic_and_plot() -> None:
    df = _launches(15, seed=3)
    a = pre.launch_agreement(df, offline=["ndcg", "noise"], online="online", seed=1)
    b = pre.launch_agreement(df.iloc[::-1], offline=["ndcg", "noise"], online="online", seed=1)
    pd.testing.assert_frame_equal(pd.DataFrame(a)[["sign_agreement", "kendall_tau", "slope"]],
                                  pd.DataFrame(b)[["sign_agreement", "kendall_tau", "slope"]])
    c = pre.launch_agreement(df, offline=["ndcg", "noise"], online="online", seed=1)
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(c))
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = a.plot()
    assert len(axes) == 2 and axes[0].get_title().startswith("ndcg: signs agree")
    assert axes[0].title.get_fontweight() == "bold"
    plt.close("all")


def test_make_click_log_truth() -> None:
    log = make_click_log(300, seed=0, examination=np.array([1.0, 0.6, 0.4, 0.3, 0.2]))
    assert log.attrs["examination"] == [1.0, 0.6, 0.4, 0.3, 0.2]
    assert set(log["position"]) == {1, 2, 3, 4, 5} and log.groupby("session").size().eq(5).all()
    with pytest.raises(ValueError, match="'examination' parameter"):
        make_click_log(10, examination=np.array([1.0, 2.0, 0.5, 0.5, 0.5]))


@pytest.mark.filterwarnings("ignore:propensities.*impressions per item:UserWarning")
def test_group_of_two_columns_resamples_their_keys_as_report_does() -> None:
    # group=[two columns] with n_boot > 0 raised "group keys of type tuple cannot
    # be hashed stably". Oracle: each replicate is the EM of the log with every row repeated by its
    # group's Poisson draw, the draws hashed from the two key columns as report(group=[...], ci=)
    # hashes them (key_hash of the columns); the interval is the replicates' percentiles.
    from pandas_rankeval.inference.bootstrap import percentile_interval
    from pandas_rankeval.inference.hashing import key_hash, poisson_weights, seed_to_int

    log = make_click_log(200, n_queries=6, n_docs=5, depth=3, seed=8)
    log = log.assign(day=(log["session"] // 20).astype(np.int8), user=(log["session"] % 20).map("u{}".format))
    kw = dict(group=["day", "user"], position="position", label="click", item=ITEM, tol=1e-11, max_iter=20000)
    n_boot, seed = 20, 5
    t = pre.propensities(log, **kw, n_boot=n_boot, ci=0.9, seed=seed)
    w = poisson_weights(key_hash(log[["day", "user"]]), seed_to_int(seed, "test"), n_boot).astype(int)
    reps = np.array([pre.propensities(log.loc[log.index.repeat(w[:, r])], **kw, n_boot=0)["propensity"].to_numpy()
                     for r in range(n_boot)])
    low, high = percentile_interval(reps, 0.9)
    np.testing.assert_allclose(t["propensity_low"], low, rtol=1e-6)
    np.testing.assert_allclose(t["propensity_high"], high, rtol=1e-6)
    # the same groups in one column of other keys resample other draws: the hash is of the keys
    one = pre.propensities(log, **{**kw, "group": "session"}, n_boot=n_boot, ci=0.9, seed=seed)
    assert not np.allclose(one["propensity_low"], t["propensity_low"])


@pytest.mark.filterwarnings("ignore:propensities.*impressions per item:UserWarning")
def test_convergence_warning_says_whether_point_or_replicates() -> None:
    # the warning said "the EM did not converge" when only bootstrap replicates
    # had not (the point estimate had): it now says which, and how many replicates of how many
    log = make_click_log(300, n_queries=15, seed=2)
    kw = dict(**KW, item=ITEM, n_boot=40)
    need = pre.propensities(log, **{**kw, "n_boot": 0}).attrs["n_iter"]  # iterations of the point estimate
    with pytest.warns(pre.counterfactual.PropensityWarning) as rec:
        t = pre.propensities(log, **kw, max_iter=need + 4)
    (msg,) = [str(w.message) for w in rec if "converge" in str(w.message)]
    m = __import__("re").fullmatch(r"propensities: the point estimate converged, but the EM of (\d+) of 40 bootstrap "
                                   r"replicates did not converge in max_iter=\d+ iterations .*raise max_iter\.", msg)
    assert m and 0 < int(m.group(1)) < 40 and int(m.group(1)) == t.attrs["replicates_not_converged"], msg
    assert t.attrs["converged"] and f"{40 - int(m.group(1))} of 40 bootstrap replicates converged" in t.to_text(footer="full")
    with pytest.warns(pre.counterfactual.PropensityWarning, match=r"the EM of the point estimate did not converge in "
                      r"max_iter=3 iterations \(tol=1e-06\); so did 40 of 40 bootstrap replicates"):
        t = pre.propensities(log, **kw, max_iter=3)
    assert not t.attrs["converged"]


def test_em_warns_on_few_impressions_per_item() -> None:
    # on items shown ~7.5 times each the 95% interval covered the truth in 11-20% of
    # positions (incidental parameters; benchmarks/sim_propensities.py --sparse: 22%), without a word
    from pandas_rankeval.counterfactual.propensity import MIN_IMPRESSIONS_PER_ITEM

    sparse = _uniform_log((1.0, 0.6, 0.35), 3000, 400, seed=1)  # 7.5 impressions per item
    with pytest.warns(pre.counterfactual.PropensityWarning,
                      match=rf"3,000 rows over 400 items of the 'item' columns, 7.5 impressions per item, fewer than "
                            rf"{MIN_IMPRESSIONS_PER_ITEM}: .*bootstrap interval covers far less than its level.*"
                            r"method='harvest'.*features=.*coarser item= columns"):
        t = pre.propensities(sparse, group="session", position="position", label="click", item="item", n_boot=10, ci=0.8)
    assert "7.5 impressions per item" in t.to_text(footer="full")
    dense = _uniform_log((1.0, 0.6, 0.35), 3000, 3000 // MIN_IMPRESSIONS_PER_ITEM, seed=1)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", pre.counterfactual.PropensityWarning)
        pre.propensities(dense, group="session", position="position", label="click", item="item", n_boot=0)


def test_launch_agreement_plot_takes_ax_as_every_plot_does() -> None:
    """``ax=`` as on every plot of the package (one Axes per metric); ``axes=``, its former name,
    warns and draws the same; both at once is refused."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pandas_rankeval.plotting.counterfactual import plot_launch_agreement

    t = pre.launch_agreement(_launches(30), offline=["ndcg", "noise"], online="online", n_boot=50)
    fig, panels = plt.subplots(1, 2)
    got = plot_launch_agreement(t, ax=panels)
    assert [a is b for a, b in zip(got, panels)] == [True, True]
    assert got[0].get_xlabel() and got[0].get_ylabel() == "online (online)"
    assert list(t.plot(ax=panels)) == list(panels)
    with pytest.warns(DeprecationWarning, match="now ax="):
        old = plot_launch_agreement(t, axes=panels)
    assert [a.get_xlabel() for a in old] == [a.get_xlabel() for a in got]
    with pytest.raises(TypeError, match="pass the Axes once"):
        plot_launch_agreement(t, ax=panels, axes=panels)
    plt.close("all")
