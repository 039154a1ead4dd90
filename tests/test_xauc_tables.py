"""Global XAUC as a metric of report, compare and per_group (pandas and polars DataFrames): its
value, its clustered DeLong interval and its paired test, the same numbers as xauc_interval.

Oracles: every pair of rows (``_oracles.xauc_pairs``), the clustered DeLong variance written out
from O(n^2) placements (``test_ctr_engines._brute_placements``), xauc_interval, and pandas for
polars (to 1e-12). Frames read in partitions refuse 'xauc' in report and compare by name, before
any work.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr, ndtri

import pandas_rankeval as pre
from _oracles import xauc_pairs
from test_ctr_engines import _brute_placements, _watch

KW = {"group": "u", "label": "y"}


def _clustered(df: pd.DataFrame, scores: list[str], weight: str | None, cluster: np.ndarray | None):
    """XAUC of each score and the clustered DeLong covariance written out from every pair of rows."""
    y = df["y"].to_numpy()
    w = np.ones(len(df)) if weight is None else df[weight].to_numpy()
    codes = np.arange(len(df)) if cluster is None else pd.factorize(cluster)[0]
    k = int(codes.max()) + 1
    values, psi = [], []
    for name in scores:
        wa, wb = _brute_placements(y, df[name].to_numpy(), w)
        num, den = xauc_pairs(y.tolist(), df[name].tolist(), w.tolist())
        values.append(num / den)
        psi.append(np.array([np.sum((wa - values[-1] * wb)[codes == g]) for g in range(k)]))
    den = _brute_placements(y, df[scores[0]].to_numpy(), w)[1].sum() / 2
    cov = k / (k - 1) * np.array([[a @ b for b in psi] for a in psi]) / den**2
    return np.array(values), cov


@pytest.mark.parametrize("weight", [None, "w"])
def test_report_xauc_value_and_interval_equal_every_pair(weight):
    df = _watch(3, n=120)
    extra = {} if weight is None else {"sample_weight": weight}
    rep = pre.report(df, **KW, scores=["s", "i"], metrics=["xauc", "gxauc"], ci=0.9, n_boot=50, **extra)
    values, cov = _clustered(df, ["s", "i"], weight, df["u"].to_numpy())
    z = ndtri(0.95)
    for j, name in enumerate(["s", "i"]):
        se = math.sqrt(cov[j, j])
        assert rep.loc[name, "xauc"] == pytest.approx(values[j], abs=1e-12)
        assert rep.loc[name, "xauc_low"] == pytest.approx(max(values[j] - z * se, 0.0), abs=1e-12)
        assert rep.loc[name, "xauc_high"] == pytest.approx(min(values[j] + z * se, 1.0), abs=1e-12)
        assert float(pre.xauc(df, label="y", score=name, **extra)) == rep.loc[name, "xauc"]
    assert "xauc: clustered DeLong" in rep.attrs["ci"]["method"]


def test_compare_xauc_is_the_paired_clustered_delong_test():
    df = _watch(4, n=150)
    res = pre.compare(df, **KW, scores=["s", "i"], baseline="s", metrics=["xauc"], ci=0.9, lift="relaimpr")
    values, cov = _clustered(df, ["s", "i"], None, df["u"].to_numpy())
    diff = values[1] - values[0]
    var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    row = res.loc[("i", "xauc")]
    assert row["diff"] == pytest.approx(diff, abs=1e-12)
    assert row["ci_low"] == pytest.approx(diff - ndtri(0.95) * math.sqrt(var), abs=1e-12)
    assert row["ci_high"] == pytest.approx(diff + ndtri(0.95) * math.sqrt(var), abs=1e-12)
    assert row["p_value"] == pytest.approx(2 * ndtr(-abs(diff) / math.sqrt(var)), abs=1e-12)
    assert row["lift"] == pytest.approx((values[1] - 0.5) / (values[0] - 0.5) - 1, abs=1e-12)
    assert row["lift_low"] < row["lift"] < row["lift_high"]
    assert "clustered DeLong" in res.attrs["test"]["xauc"]


@pytest.mark.parametrize("group", ["u", None])
def test_report_and_compare_equal_xauc_interval(group):
    """One computation: xauc_interval's value, interval, p-value and Holm equal report's and compare's."""
    df = _watch(5, n=200)
    kw = {"label": "y", "scores": ["s", "i"], "sample_weight": "w", "ci": 0.8}
    t = pre.xauc_interval(df, group=group, baseline="s", **kw)
    rep = pre.report(df, group=group, metrics=["xauc"], **kw)
    res = pre.compare(df, group=group, metrics=["xauc"], baseline="s", **kw)
    for name in ("s", "i"):
        for col in ("xauc", "xauc_low", "xauc_high"):
            assert rep.loc[name, col] == pytest.approx(t.loc[name, col], abs=1e-12)
    row = res.loc[("i", "xauc")]
    for mine, theirs in (("diff", "diff"), ("ci_low", "diff_low"), ("ci_high", "diff_high"), ("p_value", "p_value"),
                         ("p_holm", "p_holm")):
        assert row[mine] == pytest.approx(t.loc["i", theirs], abs=1e-12), mine


def test_xauc_beside_auc_and_gxauc_by_segment():
    """With by=: each segment's XAUC and interval over its own rows (pairs within it only), and
    every other metric as it was; compare's Holm runs over every row of the table."""
    df = _watch(6, n=240)
    df["seg"] = np.where(df["u"] % 3 == 0, "a", "b")  # a property of the user
    kw = {"label": "y", "scores": ["s", "i"], "ci": 0.9, "n_boot": 60}
    rep = pre.report(df, group="u", metrics=["auc", "xauc", "gxauc"], by="seg", **kw)
    alone = pre.report(df, group="u", metrics=["auc", "gxauc"], by="seg", **kw)
    for seg in ("a", "b"):
        t = pre.xauc_interval(df[df["seg"] == seg], group="u", label="y", scores=["s", "i"], ci=0.9)
        for name in ("s", "i"):
            for col in ("xauc", "xauc_low", "xauc_high"):
                assert rep.loc[(seg, name), col] == pytest.approx(t.loc[name, col], abs=1e-12)
            for col in ("auc", "auc_low", "auc_high", "gxauc", "gxauc_low", "gxauc_high"):
                assert rep.loc[(seg, name), col] == alone.loc[(seg, name), col]
    res = pre.compare(df, group="u", metrics=["auc", "xauc", "gxauc"], baseline="s", **kw)
    t = pre.xauc_interval(df, group="u", label="y", scores=["s", "i"], baseline="s", ci=0.9)
    assert res.loc[("i", "xauc"), "p_value"] == pytest.approx(t.loc["i", "p_value"], abs=1e-12)
    p = res["p_value"].to_numpy()
    order = np.argsort(p)
    holm = np.maximum.accumulate(np.minimum(1, p[order] * (len(p) - np.arange(len(p)))))
    np.testing.assert_allclose(res["p_holm"].to_numpy()[order], holm, atol=1e-12)


def test_polars_dataframe_equals_pandas():
    pl = pytest.importorskip("polars")
    df = _watch(7, n=150)
    kw = {"group": "u", "label": "y", "scores": ["s", "i"], "metrics": ["xauc", "gauc"], "sample_weight": "w",
          "ci": 0.9, "n_boot": 40}
    for func, extra in ((pre.report, {}), (pre.compare, {"baseline": "s"})):
        want = func(df, **kw, **extra)
        got = func(pl.from_pandas(df), **kw, **extra)
        num = want.select_dtypes("number").columns
        np.testing.assert_allclose(got[num].to_numpy(float), want[num].to_numpy(float), rtol=0, atol=1e-12)
    assert float(pre.xauc(pl.from_pandas(df), label="y", score="s")) == float(pre.xauc(df, label="y", score="s"))


def test_per_group_xauc_is_grouped_xauc():
    df = _watch(8, n=90)
    got = pre.per_group(df, group="u", label="y", score="s", metrics=["xauc"])
    want = pre.per_group(df, group="u", label="y", score="s", metrics=["gxauc"])
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want))


def test_no_pair_is_nan_with_the_reason():
    df = _watch(9, n=40).assign(y=2.0)
    with pytest.warns(pre.CoverageWarning, match="xauc is NaN because no pair of rows has different labels"):
        rep = pre.report(df, group="u", label="y", scores="s", metrics=["xauc"], ci=0.9)
    assert rep.loc["s", ["xauc", "xauc_low", "xauc_high"]].isna().all()


def test_frames_read_in_partitions_refuse_xauc_in_report_and_compare_by_name():
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    df = _watch(1)
    con = duckdb.connect()
    frames = [pl.from_pandas(df).lazy(), con.from_df(df)]
    for frame in frames:
        with pytest.raises(ValueError, match="'xauc' \\(global XAUC\\) in report needs every row in one place"):
            pre.report(frame, group="u", label="y", scores="s", metrics=["gauc", "xauc"])
        with pytest.raises(ValueError, match="'xauc' \\(global XAUC\\) in compare needs every row in one place"):
            pre.compare(frame, group="u", label="y", scores=["s", "i"], baseline="s", metrics=["xauc"])
        assert float(pre.xauc(frame, label="y", score="s")) == pytest.approx(float(pre.xauc(df, label="y", score="s")),
                                                                             abs=1e-12)


def test_xauc_of_a_lazyframe_within_the_memory_budget():
    """A LazyFrame that fits in memory (no bucket options) runs global XAUC's pass too; it had
    been collected into the DataFrame path of global AUC, whose float the XAUC result could not read."""
    pl = pytest.importorskip("polars")
    df = _watch(10, n=120)
    for kw in ({}, {"sample_weight": "w"}):
        got = pre.xauc(pl.from_pandas(df).lazy(), label="y", score="s", **kw)
        want = pre.xauc(df, label="y", score="s", **kw)
        assert float(got) == pytest.approx(float(want), abs=1e-12) and got.coverage == want.coverage
