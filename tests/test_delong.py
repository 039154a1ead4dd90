"""Clustered DeLong (Obuchowski 1997) for global AUC: oracles, report/compare, simulations.

The oracles here are written from the definitions, pair by pair (O(n^2)), with no code shared
with pandas_rankeval._delong: placement values V10(x) = mean_y psi(x, y) and V01(y) = mean_x
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
from pandas_rankeval import _delong as D
from pandas_rankeval import _engine as E
from pandas_rankeval._evaluate import Options, evaluate
from pandas_rankeval._registry import parse_metrics


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
    from pandas_rankeval._stats import _group_codes, row_groups

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
    assert "clustered DeLong" in repr(rep)
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
