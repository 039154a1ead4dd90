"""The CTR sheet's registry metrics: uauc / wuauc against TorchRec's formula, dcg@K against every
tie order, xauc / gxauc against every pair; report, compare, per_group reach them."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from _oracles import dcg, mean_over_groups, xauc_pairs


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ----------------------------------------------------------------------------- uauc, wuauc
def torchrec_uauc(pred, label, weight, user):
    """TorchRec's uauc.py, in numpy: per user, sort by prediction (stable), each positive adds
    w * (summed weight of the negatives at or before it); AUC = that / (w_pos * w_neg). A user counts
    when w_pos > 0, w_neg > 0, it has 2+ rows and its nonzero predictions are not all equal.
    uauc = mean of the users' AUC, wuauc = their mean weighted by w_pos + w_neg."""
    auc_sum = weighted = n_users = total = 0.0
    for u in np.unique(user):
        m = user == u
        p, y, w = pred[m], label[m].astype(float), weight[m]
        wpos, wneg = (w * y).sum(), (w * (1 - y)).sum()
        nz = p[p != 0]
        identical = nz.size == 0 or nz.max() <= nz.min()
        if not (wpos > 0 and wneg > 0 and m.sum() >= 2 and not identical):
            continue
        o = np.argsort(p, kind="stable")
        cum_neg = np.cumsum(w[o] * (1 - y[o]))
        auc = (y[o] * w[o] * cum_neg).sum() / (wpos * wneg)
        auc_sum += auc
        weighted += auc * (wpos + wneg)
        n_users += 1
        total += wpos + wneg
    return auc_sum / n_users, weighted / total


def _tie_free(seed=0, n_users=80):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, n_users)
    user = np.repeat(np.arange(n_users), sizes)
    n = user.shape[0]
    y = (rng.random(n) < rng.beta(1, 3, n_users)[user]).astype(int)
    return pd.DataFrame({"user": user, "y": y, "s": rng.permutation(n) / n + 0.3 * y}).sample(frac=1, random_state=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uauc_wuauc_equal_torchrecs_formula_and_gauc(seed):
    df = _tie_free(seed)
    want_u, want_w = torchrec_uauc(df["s"].to_numpy(), df["y"].to_numpy(), np.ones(len(df)), df["user"].to_numpy())
    kw = dict(group="user", label="y", score="s")
    assert pre.uauc(df, **kw) == pytest.approx(want_u, abs=1e-12)
    assert pre.wuauc(df, **kw) == pytest.approx(want_w, abs=1e-12)
    assert float(pre.uauc(df, **kw)) == float(pre.gauc(df, **kw, weight="uniform"))
    assert float(pre.wuauc(df, **kw)) == float(pre.gauc(df, **kw, weight="count"))
    rep = pre.report(df, group="user", label="y", scores="s", metrics=["uauc", "wuauc", "gauc"])
    assert rep.loc["s", "uauc"] == float(pre.uauc(df, **kw)) and rep.loc["s", "wuauc"] == rep.loc["s", "gauc"]


def test_wuauc_with_sample_weights_takes_the_weight_column_for_torchrecs_weights():
    df = _tie_free(3).assign(w=lambda d: np.random.default_rng(0).random(len(d)) + 0.2)
    want_u, want_w = torchrec_uauc(df["s"].to_numpy(), df["y"].to_numpy(), df["w"].to_numpy(), df["user"].to_numpy())
    kw = dict(group="user", label="y", score="s", sample_weight="w")
    assert pre.uauc(df, **kw) == pytest.approx(want_u, abs=1e-12)
    assert pre.wuauc(df, **kw, weight="w") == pytest.approx(want_w, abs=1e-12)


# ----------------------------------------------------------------------------- dcg@K
def _graded(seed, n_groups=25):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    return pd.DataFrame({
        "g": g, "y": rng.integers(0, 4, n) * (rng.random(n) < 0.5), "s": rng.integers(0, 3, n).astype(float),
    }).sample(frac=1.0, random_state=seed)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("gain", ["exp2", "linear"])
def test_dcg_equals_every_tie_order(seed, k, gain):
    df = _graded(seed)
    for ties in ("expected", "pessimistic", "optimistic"):
        got = pre.dcg(df, group="g", label="y", score="s", k=k, gain=gain, ties=ties)
        want = mean_over_groups(df, lambda labels: dcg(labels, k, gain), ties)
        assert got == pytest.approx(want, abs=1e-12)
    name = "dcg" if k is None else f"dcg@{k}"
    rep = pre.report(df, group="g", label="y", scores="s", metrics=[name, "ndcg" if k is None else f"ndcg@{k}"], gain=gain)
    assert rep.loc["s", name] == pytest.approx(float(pre.dcg(df, group="g", label="y", score="s", k=k, gain=gain)), abs=1e-15)


def test_dcg_is_not_normalized_hand_worked():
    df = pd.DataFrame({"q": 1, "rel": [3, 0, 1], "score": [3, 2, 1]})
    want = 7 / math.log2(2) + 0 + 1 / math.log2(4)
    assert pre.dcg(df, group="q", label="rel", score="score") == pytest.approx(want, abs=1e-12)


# ----------------------------------------------------------------------------- xauc, gxauc
def _watch(seed, n_groups=30):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    y = np.where(rng.random(n) < 0.3, 0.0, np.round(rng.exponential(20, n)))  # watch seconds, ties
    y[g == 0] = 5.0  # one group whose labels are all equal
    return pd.DataFrame({
        "g": g, "y": y, "s": np.round(np.log1p(y) + rng.normal(0, 1, n), 0), "w": rng.random(n) + 0.1,
    }).sample(frac=1.0, random_state=seed)


def _gxauc_oracle(df, weight="count", sample_weight=None):
    num = den = 0.0
    for _, grp in df.groupby("g"):
        c, t = xauc_pairs(grp["y"].tolist(), grp["s"].tolist(), None if sample_weight is None else grp[sample_weight].tolist())
        if t == 0:
            continue
        wg = len(grp) if weight == "count" else 1.0
        num += wg * c / t
        den += wg
    return num / den


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gxauc_and_xauc_equal_every_pair(seed):
    df = _watch(seed)
    kw = dict(group="g", label="y", score="s")
    assert pre.gxauc(df, **kw) == pytest.approx(_gxauc_oracle(df), abs=1e-12)
    assert pre.gxauc(df, **kw, weight="uniform") == pytest.approx(_gxauc_oracle(df, "uniform"), abs=1e-12)
    assert pre.gxauc(df, **kw, sample_weight="w") == pytest.approx(_gxauc_oracle(df, sample_weight="w"), abs=1e-12)
    c, t = xauc_pairs(df["y"].tolist(), df["s"].tolist())
    assert pre.xauc(df, label="y", score="s") == pytest.approx(c / t, abs=1e-12)
    c, t = xauc_pairs(df["y"].tolist(), df["s"].tolist(), df["w"].tolist())
    assert pre.xauc(df, label="y", score="s", sample_weight="w") == pytest.approx(c / t, abs=1e-12)


def test_gxauc_skips_groups_of_one_label_with_coverage():
    df = _watch(4)
    res = pre.gxauc(df, group="g", label="y", score="s")
    one_label = int((df.groupby("g")["y"].nunique() < 2).sum())
    assert one_label >= 1
    assert res.coverage.n_used == df["g"].nunique() - one_label


def test_xauc_refuses_what_is_not_a_frame_and_names_the_frames():
    with pytest.raises(TypeError, match="xauc expects a pandas DataFrame \\(or a polars DataFrame or LazyFrame, a Dask"):
        pre.xauc({"y": [1]}, label="y", score="s")
    with pytest.raises(ValueError, match="Unknown metric 'xaux'. Did you mean 'xauc'"):
        pre.report(_watch(0), group="g", label="y", scores="s", metrics=["xaux"])


def test_ctr_metrics_in_report_compare_per_group():
    df = _watch(5).assign(t=lambda d: d["s"] + np.random.default_rng(1).normal(0, 1, len(d)))
    rep = pre.report(df, group="g", label="y", scores=["s", "t"], metrics=["gxauc", "dcg@3"], ci=0.9, n_boot=50)
    assert rep.loc["s", "gxauc"] == pytest.approx(float(pre.gxauc(df, group="g", label="y", score="s")), abs=1e-15)
    assert rep.loc["s", "gxauc_low"] <= rep.loc["s", "gxauc"] <= rep.loc["s", "gxauc_high"]
    res = pre.compare(df, group="g", label="y", scores=["s", "t"], baseline="s", metrics=["gxauc"],
                      n_boot=50, lift="relaimpr")
    assert res.loc[("t", "gxauc"), "lift"] == pytest.approx(
        (res.loc[("t", "gxauc"), "value"] - 0.5) / (res.loc[("t", "gxauc"), "baseline_value"] - 0.5) - 1, abs=1e-14)
    pg = pre.per_group(df, group="g", label="y", score="s", metrics=["gxauc", "dcg@3"])
    for key, grp in df.groupby("g"):
        c, t = xauc_pairs(grp["y"].tolist(), grp["s"].tolist())
        want = c / t if t else np.nan
        got = pg.loc[key, "gxauc"]
        assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)
