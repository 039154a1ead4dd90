"""Clustered DeLong (Obuchowski 1997) for global AUC: oracles, report/compare, simulations.

The oracles here are written from the definitions, pair by pair (O(n^2)), with no code shared
with pandas_rankeval.inference.delong: placement values V10(x) = mean_y psi(x, y) and V01(y) = mean_x
psi(x, y) with psi = 1, 1/2, 0 for above, tied, below; Obuchowski's S10, S01, S11 over
clusters; DeLong's 1988 S10, S01 over rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import pandas_rankeval as pre
from pandas_rankeval.inference import delong as D
from pandas_rankeval.core.ranking import tie_blocks as E
from pandas_rankeval.core.evaluation.pipeline import evaluate
from pandas_rankeval.core.inputs.options import Options
from pandas_rankeval.core.metrics.registry import parse_metrics


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


# --------------------------------------------------------------------------- #
# Oracles from the definitions
# --------------------------------------------------------------------------- #
def psi(x: float, y: float) -> float:
    return 1.0 if x > y else (0.5 if x == y else 0.0)


def brute_placements(score, rel):
    """V10 of every relevant row and V01 of every non-relevant row (row order)."""
    xs = [i for i in range(len(score)) if rel[i]]
    ys = [j for j in range(len(score)) if not rel[j]]
    v10 = {i: sum(psi(score[i], score[j]) for j in ys) / len(ys) for i in xs}
    v01 = {j: sum(psi(score[i], score[j]) for i in xs) / len(xs) for j in ys}
    return v10, v01


def brute_obuchowski(scores, rel, cluster):
    """AUCs and their covariance matrix, Obuchowski (1997), one loop per cluster."""
    rel = np.asarray(rel, dtype=bool)
    clusters = sorted(set(cluster))
    big_m, big_n = int(rel.sum()), int((~rel).sum())
    i10 = len({c for c, r in zip(cluster, rel) if r})
    i01 = len({c for c, r in zip(cluster, rel) if not r})
    n_cl = len(clusters)
    K = len(scores)
    aucs, x, y = [], [], []
    m_c = np.array([sum(1 for c, r in zip(cluster, rel) if c == k and r) for k in clusters], dtype=float)
    n_c = np.array([sum(1 for c, r in zip(cluster, rel) if c == k and not r) for k in clusters], dtype=float)
    for s in scores:
        v10, v01 = brute_placements(list(s), rel)
        auc = sum(v10.values()) / big_m
        aucs.append(auc)
        x.append(np.array([sum(v for i, v in v10.items() if cluster[i] == k) for k in clusters]) - m_c * auc)
        y.append(np.array([sum(v for j, v in v01.items() if cluster[j] == k) for k in clusters]) - n_c * auc)
    cov = np.empty((K, K))
    for r in range(K):
        for t in range(K):
            s10 = i10 / ((i10 - 1) * big_m) * np.sum(x[r] * x[t])
            s01 = i01 / ((i01 - 1) * big_n) * np.sum(y[r] * y[t])
            s11_rt = n_cl / (n_cl - 1) * np.sum(x[r] * y[t])
            s11_tr = n_cl / (n_cl - 1) * np.sum(x[t] * y[r])
            cov[r, t] = s10 / big_m + s01 / big_n + (s11_rt + s11_tr) / (big_m * big_n)
    return np.array(aucs), cov


def classic_delong(scores, rel):
    """DeLong, DeLong & Clarke-Pearson (1988): rows independent, S10/m + S01/n (+ covariances)."""
    rel = np.asarray(rel, dtype=bool)
    m, n = int(rel.sum()), int((~rel).sum())
    comps10, comps01, aucs = [], [], []
    for s in scores:
        v10, v01 = brute_placements(list(s), rel)
        a10 = np.array([v10[i] for i in sorted(v10)])
        a01 = np.array([v01[j] for j in sorted(v01)])
        aucs.append(a10.mean())
        comps10.append(a10)
        comps01.append(a01)
    K = len(scores)
    cov = np.empty((K, K))
    for r in range(K):
        for t in range(K):
            s10 = np.sum((comps10[r] - aucs[r]) * (comps10[t] - aucs[t])) / (m - 1)
            s01 = np.sum((comps01[r] - aucs[r]) * (comps01[t] - aucs[t])) / (n - 1)
            cov[r, t] = s10 / m + s01 / n
    return np.array(aucs), cov


def tied_frame(n_groups: int = 9, seed: int = 0) -> pd.DataFrame:
    """Small groups, heavy ties within and across groups, one-row and single-class groups."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        size = int(rng.integers(1, 6))
        for _ in range(size):
            y = int(rng.random() < 0.4)
            rows.append((g, y, round(float(rng.normal(0.6 * y)), 0) / 2, round(float(rng.normal(0.3 * y)), 1)))
    rows += [(n_groups, 1, 0.5, 0.1), (n_groups + 1, 0, 0.0, 0.3), (n_groups + 1, 0, 0.0, -0.2)]
    df = pd.DataFrame(rows, columns=["user_id", "click", "a", "b"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # shuffled rows


def _moments(df, scores, *, group="user_id", by=()):
    ev = evaluate(df, group=group, label="click", scores=scores, specs=parse_metrics(["auc"]),
                  options=Options("report"), keep_order=True, by=list(by))
    return D.segment_moments(ev, scores, list(by), "report")


# --------------------------------------------------------------------------- #
# Placements and the variance against the oracles
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_placements_equal_pairwise_definition(seed):
    df = tied_frame(seed=seed)
    score, rel = df["a"].to_numpy(), df["click"].to_numpy() > 0
    order, rank = E.score_rank(score)
    rows, place = D.row_placements(order, rank, rel)
    v10, v01 = brute_placements(list(score), rel)
    big_m, big_n = int(rel.sum()), int((~rel).sum())
    got = dict(zip(rows.tolist(), place.tolist()))
    assert sorted(got) == list(range(len(df)))
    for i, v in v10.items():
        assert got[i] / big_n == pytest.approx(v, abs=1e-15)
    for j, v in v01.items():
        assert got[j] / big_m == pytest.approx(v, abs=1e-15)
    # per-group sums
    codes = df["user_id"].to_numpy()
    a, b = D.group_placements(order, rank, rel, codes, int(codes.max()) + 1)
    for g in range(int(codes.max()) + 1):
        assert a[g] / big_n == pytest.approx(sum(v for i, v in v10.items() if codes[i] == g), abs=1e-14)
        assert b[g] / big_m == pytest.approx(sum(v for j, v in v01.items() if codes[j] == g), abs=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_clustered_variance_and_covariance_equal_obuchowski(seed):
    df = tied_frame(n_groups=12, seed=seed)
    (key, G), = _moments(df, ["a", "b"]).items()
    assert key == ()
    auc, cov = D.delong_from_moments(G)
    want_auc, want_cov = brute_obuchowski([df["a"], df["b"]], df["click"] > 0, list(df["user_id"]))
    np.testing.assert_allclose(auc, want_auc, rtol=0, atol=1e-14)
    np.testing.assert_allclose(cov, want_cov, rtol=1e-10, atol=1e-15)
    from sklearn.metrics import roc_auc_score

    assert auc[0] == pytest.approx(roc_auc_score(df["click"], df["a"]), abs=1e-14)


def test_one_row_per_group_is_classic_delong():
    rng = np.random.default_rng(5)
    n = 40
    df = pd.DataFrame({"user_id": np.arange(n), "click": (rng.random(n) < 0.4).astype(int)})
    df["a"] = np.round(rng.normal(size=n) + df["click"], 1)  # ties
    df["b"] = np.round(rng.normal(size=n) + 0.5 * df["click"], 0)
    (_, G), = _moments(df, ["a", "b"]).items()
    auc, cov = D.delong_from_moments(G)
    want_auc, want_cov = classic_delong([df["a"], df["b"]], df["click"] > 0)
    np.testing.assert_allclose(auc, want_auc, atol=1e-14)
    np.testing.assert_allclose(cov, want_cov, rtol=1e-10)


def test_moments_add_over_partitions_of_whole_groups():
    df = tied_frame(n_groups=20, seed=7)
    ev = evaluate(df, group="user_id", label="click", scores=["a", "b"], specs=parse_metrics(["auc"]),
                  options=Options("report"), keep_order=True)
    from pandas_rankeval.inference.bootstrap import _group_codes, row_groups

    rg = row_groups(ev)
    ng = _group_codes(ev).shape[0]
    rel = ev.labels.rel
    m = np.bincount(rg, weights=rel, minlength=ng)
    n = np.bincount(rg, minlength=ng) - m
    ab = [D.group_placements(ev.scores[s].order, ev.scores[s].rank, rel, rg, ng) for s in ["a", "b"]]
    a2 = np.column_stack([x[0] for x in ab])
    b2 = np.column_stack([x[1] for x in ab])
    whole = D.delong_moments(m, n, a2, b2)
    parts = np.random.default_rng(0).integers(0, 3, ng)
    total = sum(D.delong_moments(m[parts == k], n[parts == k], a2[parts == k], b2[parts == k]) for k in range(3))
    np.testing.assert_allclose(total, whole, rtol=1e-13)
    np.testing.assert_allclose(D.delong_from_moments(total)[1], D.delong_from_moments(whole)[1], rtol=1e-10)
    # an empty partition adds nothing
    assert not D.delong_moments(m[:0], n[:0], a2[:0], b2[:0]).any()


def test_degenerate_inputs_give_nan():
    # one class only: no AUC
    auc, cov = D.delong_from_moments(D.delong_moments([2, 1], [0, 0], [0.0, 0.0], [0.0, 0.0]))
    assert np.isnan(auc).all() and np.isnan(cov).all()
    # one group holds every relevant row: no clustered variance (I10 = 1)
    auc, cov = D.delong_from_moments(D.delong_moments([2, 0], [1, 2], [3.0, 0.0], [0.0, 1.0]))
    assert auc[0] == pytest.approx(0.5) and np.isnan(cov[0, 0])
    with pytest.raises(ValueError, match="square matrix of side 5 \\+ 2K"):
        D.delong_from_moments(np.zeros((6, 6)))


# --------------------------------------------------------------------------- #
# report and compare
# --------------------------------------------------------------------------- #
def test_report_interval_is_normal_with_clustered_variance():
    df = tied_frame(n_groups=30, seed=11)
    rep = pre.report(df, group="user_id", label="click", scores=["a", "b"], metrics=["auc", "gauc"],
                     ci=0.9, n_boot=50)
    auc, cov = brute_obuchowski([df["a"], df["b"]], df["click"] > 0, list(df["user_id"]))
    z = norm.ppf(0.95)
    for k, s in enumerate(["a", "b"]):
        assert rep.loc[s, "auc"] == pytest.approx(auc[k], abs=1e-14)
        half = z * np.sqrt(cov[k, k])
        assert rep.loc[s, "auc_low"] == pytest.approx(max(auc[k] - half, 0.0), abs=1e-12)
        assert rep.loc[s, "auc_high"] == pytest.approx(min(auc[k] + half, 1.0), abs=1e-12)
    assert "clustered DeLong" in rep.attrs["ci"]["method"]
    assert "clustered DeLong" in rep.to_text(footer="full")
    # gauc still has its bootstrap interval, the same as with the AUC bootstrap
    boot = pre.report(df, group="user_id", label="click", scores=["a", "b"], metrics=["auc", "gauc"],
                      ci=0.9, n_boot=50, auc_method="bootstrap")
    pd.testing.assert_series_equal(rep["gauc_low"], boot["gauc_low"])
    assert list(rep.columns) == list(boot.columns)
    assert "DeLong" not in boot.attrs["ci"]["method"]
    # only global AUC asked for: no bootstrap at all
    only = pre.report(df, group="user_id", label="click", scores=["a", "b"], metrics=["auc"], ci=0.9)
    assert only.attrs["ci"] == {"level": 0.9, "method": D.METHOD}
    pd.testing.assert_series_equal(only["auc_low"], rep["auc_low"])


def test_report_by_segment_uses_each_segment_alone():
    df = tied_frame(n_groups=40, seed=3)
    df["country"] = np.where(df["user_id"] % 3 == 0, "de", "fr")
    rep = pre.report(df, group="user_id", label="click", scores=["a", "b"], metrics=["auc"], ci=0.95,
                     by="country")
    z = norm.ppf(0.975)
    for c in ["de", "fr"]:
        sub = df[df["country"] == c]
        auc, cov = brute_obuchowski([sub["a"], sub["b"]], sub["click"] > 0, list(sub["user_id"]))
        for k, s in enumerate(["a", "b"]):
            assert rep.loc[(c, s), "auc"] == pytest.approx(auc[k], abs=1e-14)
            half = z * np.sqrt(cov[k, k])
            assert rep.loc[(c, s), "auc_low"] == pytest.approx(max(auc[k] - half, 0.0), abs=1e-12)
            assert rep.loc[(c, s), "auc_high"] == pytest.approx(min(auc[k] + half, 1.0), abs=1e-12)
    assert "per segment" in rep.attrs["ci"]["method"]


def test_compare_is_the_paired_clustered_z_test():
    df = tied_frame(n_groups=30, seed=4)
    df["c"] = df["a"] + np.round(np.random.default_rng(0).normal(0, 0.3, len(df)), 1)
    res = pre.compare(df, group="user_id", label="click", scores=["a", "b", "c"], baseline="a",
                      metrics=["auc", "gauc"], n_boot=50, ci=0.9)
    auc, cov = brute_obuchowski([df["a"], df["b"], df["c"]], df["click"] > 0, list(df["user_id"]))
    z = norm.ppf(0.95)
    for k, s in [(1, "b"), (2, "c")]:
        row = res.loc[(s, "auc")]
        diff = auc[k] - auc[0]
        se = np.sqrt(cov[k, k] + cov[0, 0] - 2 * cov[0, k])
        assert row["baseline_value"] == pytest.approx(auc[0], abs=1e-14)
        assert row["value"] == pytest.approx(auc[k], abs=1e-14)
        assert row["diff"] == pytest.approx(diff, abs=1e-14)
        assert row["ci_low"] == pytest.approx(diff - z * se, abs=1e-12)
        assert row["ci_high"] == pytest.approx(diff + z * se, abs=1e-12)
        assert row["p_value"] == pytest.approx(2 * norm.sf(abs(diff) / se), rel=1e-9)
    assert "clustered DeLong" in res.attrs["test"]["auc"]
    assert "clustered DeLong" in res.attrs["ci_method"]
    # identical models: no difference, p = 1
    same = pre.compare(df.assign(copy=df["a"]), group="user_id", label="click", scores=["a", "copy"],
                       baseline="a", metrics=["auc"])
    assert same["diff"].iloc[0] == 0 and same["p_value"].iloc[0] == 1.0
    assert same["ci_low"].iloc[0] == 0 and same["ci_high"].iloc[0] == 0


def test_compare_by_segment():
    df = tied_frame(n_groups=40, seed=8)
    df["country"] = np.where(df["user_id"] % 2 == 0, "de", "fr")
    res = pre.compare(df, group="user_id", label="click", scores=["a", "b"], baseline="a",
                      metrics=["auc", "mrr"], by="country", n_boot=30)
    for c in ["de", "fr"]:
        sub = df[df["country"] == c]
        auc, cov = brute_obuchowski([sub["a"], sub["b"]], sub["click"] > 0, list(sub["user_id"]))
        se = np.sqrt(cov[1, 1] + cov[0, 0] - 2 * cov[0, 1])
        row = res.loc[(c, "b", "auc")]
        assert row["diff"] == pytest.approx(auc[1] - auc[0], abs=1e-14)
        assert row["p_value"] == pytest.approx(2 * norm.sf(abs(auc[1] - auc[0]) / se), rel=1e-9)
    assert np.isfinite(res["p_value"]).all()


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_other_tie_rules_fall_back_to_the_bootstrap(ties):
    df = tied_frame(n_groups=30, seed=2)
    kw = dict(group="user_id", label="click", scores=["a", "b"], metrics=["auc", "gauc"], ties=ties, n_boot=40)
    rep = pre.report(df, ci=0.9, **kw)
    boot = pre.report(df, ci=0.9, auc_method="bootstrap", **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(rep), pd.DataFrame(boot))
    assert "clustered DeLong needs ties='expected'" in rep.attrs["ci"]["method"]
    res = pre.compare(df, baseline="a", **kw)
    assert res.attrs["test"]["auc"].startswith("paired bootstrap test")
    assert f"ties={ties!r}" in res.attrs["test"]["auc"]


def test_bad_auc_method():
    df = tied_frame()
    with pytest.raises(ValueError, match="auc_method"):
        pre.report(df, group="user_id", label="click", scores="a", metrics=["auc"], ci=0.9, auc_method="jackknife")
    with pytest.raises(ValueError, match="auc_method"):
        pre.compare(df, group="user_id", label="click", scores=["a", "b"], baseline="a", auc_method="x")


# --------------------------------------------------------------------------- #
# Simulations: coverage, size and power (vectorized over replicates, fixed seeds)
# --------------------------------------------------------------------------- #
def clustered_replicates(n_rep, n_users, rng, betas=(1.0,), shared_noise=False):
    """``n_rep`` independent data sets of ``n_users`` users (rows of a data set contiguous).

    Per-user random effects: a user's click propensity (logit -1 + d_u) and a score offset
    c_u shared by all of the user's rows and by every model, so the rows of a user are
    correlated in both label and score. Scores are rounded (ties). Returns the user of every
    row (0 .. n_rep * n_users - 1, data set = user // n_users), the labels and one score per beta.
    """
    sizes = 1 + rng.poisson(3, size=n_rep * n_users)
    user = np.repeat(np.arange(n_rep * n_users), sizes)
    c = rng.normal(0.0, 1.5, n_rep * n_users)[user]
    d = rng.normal(0.0, 1.0, n_rep * n_users)[user]
    y = rng.random(user.shape[0]) < 1.0 / (1.0 + np.exp(1.0 - d))
    scores = [np.round(beta * y + c + rng.normal(size=user.shape[0]), 1) for beta in betas]
    return user, y, scores


def replicate_delong(user, y, scores, n_rep, n_users):
    """Per data set: AUCs (n_rep, K) and covariance matrices (n_rep, K, K), twice: with the
    users as clusters (clustered DeLong) and with every row its own cluster (row-level DeLong).

    Placements come from one sort per score column over all data sets at once (the data set
    is the segment); the moments of each data set from ``delong_moments``.
    """
    rep = user // n_users
    n_groups = n_rep * n_users
    per_row = []
    for s in scores:
        order, rank = E.score_rank(s)
        rows, place = D.row_placements(order, rank, y, segment=rep)
        p = np.empty_like(place)
        p[rows] = place
        per_row.append(p)
    pa = np.column_stack([np.where(y, p, 0.0) for p in per_row])
    pb = np.column_stack([np.where(y, 0.0, p) for p in per_row])
    m = np.bincount(user, weights=y, minlength=n_groups)
    n = np.bincount(user, minlength=n_groups) - m
    a = np.column_stack([np.bincount(user, weights=c, minlength=n_groups) for c in pa.T])
    b = np.column_stack([np.bincount(user, weights=c, minlength=n_groups) for c in pb.T])
    out = []
    for (m_, n_, a_, b_), bounds in [
        ((m, n, a, b), np.arange(0, n_groups + 1, n_users)),
        ((y.astype(float), (~y).astype(float), pa, pb), np.searchsorted(rep, np.arange(n_rep + 1))),
    ]:
        res = [D.delong_from_moments(D.delong_moments(m_[lo:hi], n_[lo:hi], a_[lo:hi], b_[lo:hi]))
               for lo, hi in zip(bounds[:-1], bounds[1:])]
        out.append((np.array([r[0] for r in res]), np.array([r[1] for r in res])))
    return out


def population_auc(beta: float) -> float:
    """The AUC of the generator, from one data set of 200,000 users (standard error ~7e-4,
    against interval half-widths of ~0.037 in the simulation)."""
    user, y, (s,) = clustered_replicates(1, 200_000, np.random.default_rng(123), betas=(beta,))
    order, rank = E.score_rank(s)
    u, p, n = E.global_auc(order, rank, y)
    return u / (p * n)


N_REP = 3000  # coverage standard error sqrt(.95 * .05 / 3000) = 0.004: the band is +-5 SE around 0.95
N_USERS = 300  # about 1,200 rows per data set


@pytest.mark.slow  # a simulation: run by .ci/run after the default suite (pytest -m slow)
def test_clustered_delong_covers_and_row_level_delong_does_not():
    """95% intervals on clustered data: clustered DeLong covers 0.93-0.97 of the time, the
    row-level (classic) DeLong interval on the same data sets clearly less."""
    truth = population_auc(1.0)
    user, y, scores = clustered_replicates(N_REP, N_USERS, np.random.default_rng(2024))
    z = norm.ppf(0.975)
    (auc, cov), (auc_r, cov_r) = replicate_delong(user, y, scores, N_REP, N_USERS)
    covered = np.abs(auc[:, 0] - truth) <= z * np.sqrt(cov[:, 0, 0])
    np.testing.assert_allclose(auc_r, auc, atol=1e-13)  # the same AUCs, only the variance differs
    covered_rows = np.abs(auc_r[:, 0] - truth) <= z * np.sqrt(cov_r[:, 0, 0])
    # measured: clustered 0.948, row-level 0.888; the AUCs' standard deviation over the data sets
    # is 0.0205, the mean clustered standard error 0.0204, the mean row-level one 0.0171
    assert 0.93 <= covered.mean() <= 0.97
    assert covered_rows.mean() <= 0.92  # 0.92 is 7 standard errors below 0.95
    assert np.sqrt(cov_r[:, 0, 0]).mean() < 0.9 * np.sqrt(cov[:, 0, 0]).mean()


def test_paired_test_size_and_power():
    """Two models with the same score distribution: rejections at alpha = 0.05 near 5%.
    A model with a stronger label effect: rejected most of the time.

    2,000 data sets of 150 users: the standard error of the rejection rate at 0.05 is 0.0049,
    so the band [0.03, 0.07] is 4.1 standard errors wide on each side (a test of size 0.1 or
    0.015 is outside it by more than 4 of its own); benchmarks/sim_delong.py runs more.
    """
    n_rep, n_users = 2000, 150
    user, y, scores = clustered_replicates(n_rep, n_users, np.random.default_rng(1), betas=(1.0, 1.0, 1.5))
    (auc, cov), _ = replicate_delong(user, y, scores, n_rep, n_users)
    p = {}
    for k in (1, 2):
        diff = auc[:, k] - auc[:, 0]
        var = cov[:, k, k] + cov[:, 0, 0] - 2 * cov[:, 0, k]
        p[k] = 2 * norm.sf(np.abs(diff) / np.sqrt(var))
    size, power = (p[1] < 0.05).mean(), (p[2] < 0.05).mean()
    # measured: size 0.0455, power 0.9605 (the AUCs differ by 0.070 on average; 4,000 data sets:
    # 0.0515 and 0.955)
    assert 0.03 <= size <= 0.07
    assert power >= 0.8


def test_delong_agrees_with_the_group_bootstrap_on_large_data():
    """5,000 users (~20,000 rows): the clustered DeLong interval and the percentile group
    bootstrap (1,000 replicates; the Monte Carlo error of its width is about 3%) have widths
    within 10%, for each model's AUC (report) and for the paired difference (compare).
    benchmarks/sim_delong.py runs the same check with 4,000 replicates (error about 1.5%)."""
    n_users = 5_000
    user, y, scores = clustered_replicates(1, n_users, np.random.default_rng(99), betas=(1.0, 1.2))
    df = pd.DataFrame({"user_id": user, "click": y.astype(np.int8), "a": scores[0], "b": scores[1]})
    kw = dict(group="user_id", label="click", scores=["a", "b"], metrics=["auc"], ci=0.95)
    dl = pre.report(df, **kw)
    bs = pre.report(df, auc_method="bootstrap", n_boot=1000, seed=1, **kw)
    width_dl = dl["auc_high"] - dl["auc_low"]
    width_bs = bs["auc_high"] - bs["auc_low"]
    # measured: DeLong / bootstrap width 0.975 and 1.069 (report), 1.032 (compare); with 4,000
    # replicates (benchmarks/sim_delong.py) 0.989, 1.026 and 0.996
    np.testing.assert_allclose(width_dl / width_bs, 1.0, atol=0.1)
    kw = dict(group="user_id", label="click", scores=["a", "b"], baseline="a", metrics=["auc"])
    c_dl = pre.compare(df, **kw)
    c_bs = pre.compare(df, auc_method="bootstrap", n_boot=1000, seed=1, **kw)
    ratio = (c_dl["ci_high"] - c_dl["ci_low"]).iloc[0] / (c_bs["ci_high"] - c_bs["ci_low"]).iloc[0]
    assert ratio == pytest.approx(1.0, abs=0.1)
    # both find the difference
    assert c_dl["p_value"].iloc[0] < 0.01 and c_bs["p_value"].iloc[0] < 0.01


def test_cli_auc_and_ci_methods(tmp_path, capsys):
    from pandas_rankeval.cli import main

    path = tmp_path / "imp.csv"
    pre.datasets.make_impressions(n_users=200, seed=2).to_csv(path, index=False)
    base = ["eval", str(path), "--group", "user_id", "--label", "click", "-s", "model_a", "model_b",
            "-m", "auc", "gauc", "--ci", "0.9", "--n-boot", "200", "--footer", "full"]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "clustered DeLong" in out and "percentile bootstrap" in out
    assert main([*base, "--auc-method", "bootstrap", "--ci-method", "studentized"]) == 0
    out = capsys.readouterr().out
    assert "DeLong" not in out and "studentized bootstrap (bootstrap-t)" in out
    assert main([*base, "--baseline", "model_a", "--ci-method", "studentized"]) == 0
    out = capsys.readouterr().out
    assert "paired clustered DeLong z-test" in out and "studentized (bootstrap-t)" in out


def test_report_interval_is_nan_with_one_group_of_a_class():
    df = pd.DataFrame({"u": [1, 1, 2, 2, 3], "y": [1, 0, 0, 0, 0], "s": [0.9, 0.1, 0.5, 0.3, 0.2]})
    rep = pre.report(df, group="u", label="y", scores="s", metrics=["auc"], ci=0.9)
    assert rep.loc["s", "auc"] == 1.0
    assert np.isnan(rep.loc["s", "auc_low"]) and np.isnan(rep.loc["s", "auc_high"])
