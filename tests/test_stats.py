"""The bootstrap behind report(ci=...): exact replicates, determinism, strata, coverage.

The key test is ``test_replicates_equal_recomputation``: for the same bootstrap counts, the
vectorized replicate (a reweighting of per-group statistics, and a weighted Mann-Whitney for
global AUC) equals the metric recomputed from scratch on the resampled frame, in which every
drawn copy of a group is a group of its own.
"""

from __future__ import annotations

import math
import sys
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

ALL_METRICS = ["auc", "gauc", "mrr", "mrr@3", "ndcg", "ndcg@5", "map", "map@4",
               "precision@3", "recall@3", "hit_rate@2"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=150, seed=3, max_rows_per_user=60)
    df["a_tied"] = df["model_a"].round(1)  # heavy ties, within and across groups
    df["b_tied"] = df["model_b"].round(2)
    return df


def _evaluation(df, metrics, scores, *, label="click", by=(), **options):
    return evaluate(
        df, group="user_id", label=label, scores=scores, specs=parse_metrics(metrics),
        options=Options("report", **options), keep_order=True, by=list(by),
    )


def assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal as plain DataFrames (report returns a DataFrame subclass that prints more)."""
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))


def resampled_frame(df: pd.DataFrame, group: str, keys: np.ndarray, counts: np.ndarray) -> pd.DataFrame:
    """The rows of group ``keys[i]`` repeated ``counts[i]`` times, each copy a new group."""
    gi = np.searchsorted(keys, df[group].to_numpy())
    assert (keys[gi] == df[group].to_numpy()).all()
    rep = counts.astype(np.int64)[gi]
    rows = np.repeat(np.arange(len(df)), rep)
    copy = np.arange(rows.shape[0]) - np.repeat(np.cumsum(rep) - rep, rep)
    out = df.iloc[rows].reset_index(drop=True)
    out[group] = gi[rows] * 1_000 + copy
    return out


# --------------------------------------------------------------------------- #
# Exactness
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("label", ["click", "relevance"])
def test_point_estimates_equal_report(imp, ties, label):
    scores = ["model_a", "a_tied"]
    ev = _evaluation(imp, ALL_METRICS, scores, label=label, ties=ties)
    items = [(s, m) for s in scores for m in ALL_METRICS]
    (stratum,), _ = S.strata_of(ev, items, [], "report")
    rep = pre.report(imp, group="user_id", label=label, scores=scores, metrics=ALL_METRICS, ties=ties)
    expected = np.array([rep.loc[s, m] for s, m in items])
    np.testing.assert_allclose(stratum.point(), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "label, options",
    [
        ("click", {}),
        ("click", {"ties": "pessimistic"}),
        ("click", {"ties": "optimistic", "weight": "uniform"}),
        ("relevance", {"weight": "log1p", "empty": "skip"}),
        ("relevance", {"threshold": 2, "gain": "linear", "denominator": "min_k"}),
        ("click", {"weight": "clicks", "min_size": 3, "tiebreak": "position"}),
    ],
)
def test_replicates_equal_recomputation(imp, label, options):
    """The key test: vectorized replicate == the metric recomputed on the resampled frame."""
    scores = ["a_tied", "b_tied", "model_b"]
    ev = _evaluation(imp, ALL_METRICS, scores, label=label, **options)
    items = [(s, m) for s in scores for m in ALL_METRICS]
    (stratum,), _ = S.strata_of(ev, items, [], "report")
    counts = S.resample_counts(np.random.default_rng(7), stratum.n, 3)
    counts[2] = 0.0
    counts[2, ::3] = 3.0  # an extreme draw: a third of the groups, three copies each
    fast = stratum.values(counts)
    keys = ev.keys.to_numpy()
    for b in range(counts.shape[0]):
        big = resampled_frame(imp, "user_id", keys, counts[b])
        rep = pre.report(big, group="user_id", label=label, scores=scores, metrics=ALL_METRICS, **options)
        slow = np.array([rep.loc[s, m] for s, m in items])
        np.testing.assert_allclose(fast[b], slow, rtol=0, atol=1e-12, err_msg=f"replicate {b}")


def test_stratified_replicates_equal_recomputation(imp):
    scores = ["a_tied", "model_b"]
    metrics = ["auc", "gauc", "mrr", "ndcg@5"]
    ev = _evaluation(imp, metrics, scores, by=["device"])
    items = [(s, m) for s in scores for m in metrics]
    strata, present = S.strata_of(ev, items, ["device"], "report")
    keys = ev.keys.to_numpy()
    seg_keys = ev.prepared.segments.decode(present)
    assert len(strata) == imp["device"].nunique()
    assert sorted(np.concatenate([s.groups for s in strata])) == list(range(len(keys)))
    for stratum, seg in zip(strata, seg_keys):
        counts = S.resample_counts(np.random.default_rng(3), stratum.n, 2)
        fast = stratum.values(counts)
        sub = imp[imp["device"] == seg]
        for b in range(2):
            full = np.zeros(len(keys))
            full[stratum.groups] = counts[b]
            big = resampled_frame(sub, "user_id", keys, full)
            rep = pre.report(big, group="user_id", label="click", scores=scores, metrics=metrics)
            slow = np.array([rep.loc[s, m] for s, m in items])
            np.testing.assert_allclose(fast[b], slow, rtol=0, atol=1e-12)


def test_auc_design_huge_tie_block():
    """One tie block that holds every row, and rows of one group on both sides of a tie."""
    df = pd.DataFrame({
        "user_id": [1, 1, 2, 2, 2, 3, 3, 4],
        "click": [1, 0, 1, 0, 0, 1, 0, 0],
        "s": [0.5] * 8,
        "t": [0.9, 0.1, 0.5, 0.5, 0.1, 0.1, 0.9, 0.5],
    })
    ev = _evaluation(df, ["auc"], ["s", "t"])
    (stratum,), _ = S.strata_of(ev, [("s", "auc"), ("t", "auc")], [], "report")
    counts = np.array([[1, 1, 1, 1], [2, 0, 1, 1], [0, 3, 0, 1], [0, 0, 0, 4]], dtype=float)
    fast = stratum.values(counts)
    for b in range(3):
        big = resampled_frame(df, "user_id", np.array([1, 2, 3, 4]), counts[b])
        for j, s in enumerate(["s", "t"]):
            assert fast[b, j] == pytest.approx(float(pre.auc(big, label="click", score=s)), abs=1e-12)
    assert np.isnan(fast[3]).all()  # only group 4: no positive row


# --------------------------------------------------------------------------- #
# Counts, determinism, chunking
# --------------------------------------------------------------------------- #
def test_resample_counts_are_multinomial_and_chunk_invariant():
    one = S.resample_counts(np.random.default_rng(1), 50, 40)
    assert one.shape == (40, 50) and (one.sum(axis=1) == 50).all() and (one >= 0).all()
    rng = np.random.default_rng(1)
    parts = np.concatenate([S.resample_counts(rng, 50, k) for k in (1, 7, 32)])
    np.testing.assert_array_equal(one, parts)
    # about 1 - 1/e of the groups are drawn at least once
    assert 0.55 < (one > 0).mean() < 0.71


def _ci_report(df, **kw):
    base = {"group": "user_id", "label": "click", "scores": ["model_a", "model_b"],
            "metrics": ["auc", "gauc", "mrr", "ndcg@10"], "ci": 0.9, "n_boot": 200, "seed": 11}
    base.update(kw)
    return pre.report(df, **base)


@pytest.mark.parametrize("resample", ["multinomial", None])
def test_report_ci_layout_and_determinism(imp, monkeypatch, resample):
    rep = _ci_report(imp, resample=resample)
    plain = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                       metrics=["auc", "gauc", "mrr", "ndcg@10"])
    assert list(rep.columns[:12]) == [
        "auc", "auc_low", "auc_high", "gauc", "gauc_low", "gauc_high",
        "mrr", "mrr_low", "mrr_high", "ndcg@10", "ndcg@10_low", "ndcg@10_high",
    ]
    assert list(rep.columns[12:]) == list(plain.columns[4:])
    assert_same(rep[plain.columns], plain)
    for m in ["auc", "gauc", "mrr", "ndcg@10"]:
        assert (rep[f"{m}_low"] <= rep[m]).all() and (rep[m] <= rep[f"{m}_high"]).all()
        assert (rep[f"{m}_high"] - rep[f"{m}_low"] > 0).all()
    method = "percentile bootstrap over groups" + (" (hashed Poisson(1) weights)" if resample is None else "")
    assert rep.attrs["ci"] == {"level": 0.9, "method": f"{method}; auc: "
                               "clustered DeLong over groups (Obuchowski 1997), normal interval",
                               "n_boot": 200, "seed": 11}
    assert "params" in rep.attrs
    # the same seed, the same table; another seed, other intervals
    pd.testing.assert_frame_equal(_ci_report(imp, resample=resample), rep)
    other = _ci_report(imp, seed=12, resample=resample)
    assert not np.allclose(other["gauc_low"], rep["gauc_low"])
    # chunking is an implementation detail: tiny chunks give the same intervals
    from pandas_rankeval.summary import replicate_sums as _summary

    monkeypatch.setattr(S, "CHUNK_ELEMENTS", 97)
    monkeypatch.setattr(_summary, "CHUNK_ELEMENTS", 97)
    pd.testing.assert_frame_equal(_ci_report(imp, resample=resample), rep)


def test_report_ci_equals_percentiles_of_replicates(imp):
    rep = _ci_report(imp, metrics=["gauc", "mrr"], ci=0.8, n_boot=50, seed=5, resample="multinomial")
    ev = _evaluation(imp, ["gauc", "mrr"], ["model_a", "model_b"])
    items = [(s, m) for s in ["model_a", "model_b"] for m in ["gauc", "mrr"]]
    strata, _ = S.strata_of(ev, items, [], "report")
    reps = S.replicates(strata, n_boot=50, seed=5)[0]
    for j, (s, m) in enumerate(items):
        lo, hi = np.quantile(reps[:, j], [0.1, 0.9])
        assert rep.loc[s, f"{m}_low"] == pytest.approx(lo, abs=1e-14)
        assert rep.loc[s, f"{m}_high"] == pytest.approx(hi, abs=1e-14)


@pytest.mark.parametrize("by", [None, "device"])
def test_hashed_report_ci_equals_percentiles_of_hashed_replicates(imp, by):
    """The default bootstrap: every group of a replicate weighs its hashed Poisson(1) draw. The
    replicates recomputed with the multinomial machinery's reweighting (Stratum.values, global
    AUC included) from those draws give the report's intervals."""
    from pandas_rankeval.inference import hashing as H

    metrics = ["auc", "gauc", "mrr", "ndcg@5"]
    rep = _ci_report(imp, metrics=metrics, ci=0.8, n_boot=50, seed=5, auc_method="bootstrap", by=by)
    ev = _evaluation(imp, metrics, ["model_a", "model_b"], by=[by] if by else ())
    items = [(s, m) for s in ["model_a", "model_b"] for m in metrics]
    strata, present = S.strata_of(ev, items, [by] if by else [], "report")
    keys = [()] if by is None else [(k,) for k in ev.prepared.segments.decode(present)]
    kh = H.key_hash(ev.keys)
    for stratum, key in zip(strata, keys):
        reps = stratum.values(np.ascontiguousarray(H.poisson_weights(kh[stratum.groups], 5, 50).T))
        for j, (s, m) in enumerate(items):
            row = rep.loc[(*key, s)] if by else rep.loc[s]
            if np.isnan(row[m]):  # a segment with no click (tablet): no value, no interval
                assert np.isnan(row[f"{m}_low"]) and np.isnan(row[f"{m}_high"])
                assert np.isnan(reps[:, j]).all()
                continue
            lo, hi = np.nanquantile(reps[:, j], [0.1, 0.9])  # undefined replicates left out
            assert row[f"{m}_low"] == pytest.approx(lo, abs=1e-12)
            assert row[f"{m}_high"] == pytest.approx(hi, abs=1e-12)


def test_report_ci_by_is_stratified(imp):
    rep = _ci_report(imp, by="device", metrics=["auc", "gauc", "mrr"])
    plain = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"],
                       metrics=["auc", "gauc", "mrr"], by="device")
    assert rep.index.names == ["device", "model"]
    assert_same(rep[plain.columns], plain)
    # the first stratum has the first stream: the same intervals as its segment's own report
    ev = _evaluation(imp, ["gauc"], ["model_a"], by=["device"])
    _, present = S.strata_of(ev, [("model_a", "gauc")], ["device"], "report")
    first = ev.prepared.segments.decode(present)[0]
    alone = _ci_report(imp[imp["device"] == first], metrics=["auc", "gauc", "mrr"])
    cols = ["auc_low", "auc_high", "gauc_low", "gauc_high", "mrr_low", "mrr_high"]
    np.testing.assert_allclose(rep.loc[first, cols].to_numpy(), alone[cols].to_numpy(), rtol=0, atol=1e-12)
    # each replicate keeps every segment's number of groups
    strata, _ = S.strata_of(ev, [("model_a", "gauc")], ["device"], "report")
    for stratum, rng in zip(strata, S.boot_rngs(0, len(strata))):
        counts = S.resample_counts(rng, stratum.n, 20)
        assert (counts.sum(axis=1) == stratum.n).all()
    assert sum(s.n for s in strata) == imp["user_id"].nunique()


def test_report_ci_nan_metric_gives_nan_interval():
    df = pd.DataFrame({
        "user_id": [1, 1, 2, 2, 3, 3],
        "seg": ["x", "x", "y", "y", "y", "y"],
        "click": [1, 1, 1, 0, 0, 1],
        "s": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
    })
    rep = pre.report(df, group="user_id", label="click", scores="s", metrics=["auc", "gauc", "mrr"],
                     by="seg", ci=0.95, n_boot=30)
    assert np.isnan(rep.loc[("x", "s"), ["auc", "auc_low", "auc_high", "gauc", "gauc_low"]]).all()
    # segment x is one user: its MRR (1.0) has no interval (one group: nothing to resample)
    assert rep.loc[("x", "s"), "mrr"] == 1.0 and np.isnan(rep.loc[("x", "s"), ["mrr_low", "mrr_high"]].astype(float)).all()
    assert np.isfinite(rep.loc[("y", "s"), ["gauc_low", "gauc_high"]].astype(float)).all()


@pytest.mark.parametrize("n_boot", [0, -3, 2.5, True, "100"])
def test_report_rejects_bad_n_boot(imp, n_boot):
    with pytest.raises(ValueError, match=r"The 'n_boot' parameter of report must be an int in the range \[1, inf\)"):
        _ci_report(imp, n_boot=n_boot)


def test_progress_bar(imp, capsys):
    pytest.importorskip("tqdm")
    rep = _ci_report(imp, n_boot=20, progress=True)
    assert "bootstrap" in capsys.readouterr().err
    pd.testing.assert_frame_equal(rep, _ci_report(imp, n_boot=20))


def test_progress_without_tqdm(imp, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match=r"progress=True needs the tqdm package: pip install tqdm"):
        _ci_report(imp, n_boot=20, progress=True)
    _ci_report(imp, n_boot=20)  # no bar, no tqdm needed


# --------------------------------------------------------------------------- #
# Coverage against a known truth
# --------------------------------------------------------------------------- #
MU, TAU = 1.0, 1.0


def simulate(rng: np.random.Generator, n_groups: int, mu_b: float = MU) -> pd.DataFrame:
    """Binormal scores with a group effect: score = mu * label + b_group + N(0, 1).

    Per-group AUC has expectation Phi(mu / sqrt(2)) whatever the labels, so the population
    GAUC (any label-based weights) is Phi(mu / sqrt(2)); global AUC compares rows of
    different groups, whose scores also differ by b_g - b_h ~ N(0, 2 tau^2): its population
    value is Phi(mu / sqrt(2 (1 + tau^2))).
    """
    sizes = rng.integers(2, 16, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    ctr = rng.beta(1.0, 5.0, n_groups)
    y = (rng.random(n) < ctr[g]).astype(np.int64)
    b = rng.normal(0.0, TAU, n_groups)[g]
    return pd.DataFrame({
        "user_id": g,
        "click": y,
        "model_a": MU * y + b + rng.normal(size=n),
        "model_b": mu_b * y + b + rng.normal(size=n),
    })


@pytest.fixture(scope="module")
def truth() -> dict[str, float]:
    big = simulate(np.random.default_rng(123), 300_000)
    rep = pre.report(big, group="user_id", label="click", scores="model_a", metrics=["mrr", "ndcg@5"])
    return {
        "gauc": float(norm.cdf(MU / math.sqrt(2))),
        "auc": float(norm.cdf(MU / math.sqrt(2 * (1 + TAU**2)))),
        "mrr": float(rep.loc["model_a", "mrr"]),
        "ndcg@5": float(rep.loc["model_a", "ndcg@5"]),
    }


@pytest.mark.slow
def test_coverage_of_95_percent_intervals(truth):
    """200 data sets of 300 groups: each 95% interval covers the truth ~95% of the time."""
    rng = np.random.default_rng(2024)
    metrics = ["auc", "gauc", "mrr", "ndcg@5"]
    hits = dict.fromkeys(metrics, 0)
    n_sim = 200
    for i in range(n_sim):
        df = simulate(rng, 300)
        rep = pre.report(df, group="user_id", label="click", scores="model_a", metrics=metrics,
                         ci=0.95, n_boot=400, seed=i)
        for m in metrics:
            lo, hi = rep.loc["model_a", f"{m}_low"], rep.loc["model_a", f"{m}_high"]
            hits[m] += lo <= truth[m] <= hi
    cover = {m: h / n_sim for m, h in hits.items()}
    for m in metrics:
        assert 0.88 <= cover[m] <= 0.99, cover


@pytest.mark.slow
def test_row_bootstrap_would_undercover_global_auc(truth):
    """Why groups are resampled: with a group effect, the group bootstrap of global AUC is
    wider than a row bootstrap (which treats rows as independent)."""
    df = simulate(np.random.default_rng(5), 400)
    rep = pre.report(df, group="user_id", label="click", scores="model_a", metrics=["auc"],
                     ci=0.95, n_boot=300, seed=0, auc_method="bootstrap")
    rows = df.assign(user_id=np.arange(len(df)))  # every row its own group: a row bootstrap
    rep_rows = pre.report(rows, group="user_id", label="click", scores="model_a", metrics=["auc"],
                          ci=0.95, n_boot=300, seed=0, auc_method="bootstrap")
    width = rep["auc_high"] - rep["auc_low"]
    width_rows = rep_rows["auc_high"] - rep_rows["auc_low"]
    assert float(rep["auc"].iloc[0]) == pytest.approx(float(rep_rows["auc"].iloc[0]))
    assert float(width.iloc[0]) > 1.1 * float(width_rows.iloc[0])


# --------------------------------------------------------------------------- #
# Building blocks of the tests
# --------------------------------------------------------------------------- #
def test_holm_by_hand():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    # m = 4 finite: sorted 0.005, 0.01, 0.03, 0.04 -> 0.02, 0.03, 0.06, 0.06 (monotone)
    np.testing.assert_allclose(S.holm(p), [0.03, 0.06, 0.06, np.nan, 0.02])
    assert S.holm(np.array([0.5, 0.9])).tolist() == [1.0, 1.0]
    assert np.isnan(S.holm(np.array([np.nan]))).all()


def test_sign_flip_matches_exact_enumeration():
    rng = np.random.default_rng(0)
    wd = rng.normal(0.3, 1.0, size=(10, 2))
    wd[:, 1] = 0.0  # no difference at all: p = 1
    signs = 1 - 2 * ((np.arange(2**10)[:, None] >> np.arange(10)) & 1)
    t_all = signs @ wd[:, 0]
    exact = np.mean(np.abs(t_all) >= abs(wd[:, 0].sum()) - 1e-12)
    p = S.sign_flip_pvalues(wd, np.random.default_rng(1), 20_000)
    assert p[0] == pytest.approx(exact, abs=0.01)
    assert p[1] == 1.0


def test_bootstrap_pvalues():
    reps = np.array([[0.1, 0.0], [0.3, 0.0], [0.2, np.nan], [0.25, 0.0]])
    p = S.bootstrap_pvalues(np.array([0.2, 0.0]), reps)
    # |D* - 0.2| >= 0.2: none of 0.1, 0.3, 0.2, 0.25 -> 1 / 5; D = 0: all finite -> 4 / 4
    np.testing.assert_allclose(p, [1 / 5, 1.0])
