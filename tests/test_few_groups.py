"""A metric that uses fewer than 2 groups in a segment has no interval, nor a bootstrap p-value:
the bootstrap resamples groups, and every replicate of one group repeats the estimate (an
interval of width 0 and p = 1 / (B + 1), a "significant" difference from one user). The
sign-flip test's p-value of one group (1) stays; segments of 2 groups or more are unchanged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"u": np.r_[np.zeros(20, int), rng.integers(1, 9, 40)], "y": rng.integers(0, 2, 60),
                       "a": rng.random(60), "b": rng.random(60)})
    df["seg"] = np.where(df.u == 0, "one", "many")
    return df


KW = dict(group="u", label="y", scores=["a", "b"], metrics=["auc", "gauc", "mrr"], n_boot=200, seed=3)


def test_report_has_no_interval_from_one_group_and_says_why():
    df = _frame()
    r = pre.report(df, by="seg", ci=0.95, **KW)
    one, many = pd.DataFrame(r).xs("one", level="seg"), pd.DataFrame(r).xs("many", level="seg")
    for m in ("auc", "gauc", "mrr"):
        assert one[m].notna().all() and one[f"{m}_low"].isna().all() and one[f"{m}_high"].isna().all()
        assert (many[f"{m}_low"] < many[f"{m}_high"]).all()
    # the segments with groups to resample: the same intervals as a call on their rows alone
    alone = pd.DataFrame(pre.report(df[df.seg == "many"], ci=0.95, **KW))
    pd.testing.assert_frame_equal(many[alone.columns], alone, check_exact=False, atol=1e-12)
    assert r.attrs["few_groups"] == 6  # 3 metrics x 2 models
    text = " ".join(r.to_text().split())
    assert "6 values from fewer than 2 groups: no interval (the bootstrap resamples groups)" in text
    assert "few_groups" not in pre.report(df[df.seg == "many"], ci=0.95, **KW).attrs


@pytest.mark.parametrize("method", ["auto", "bootstrap"])
@pytest.mark.parametrize("auc_method", ["delong", "bootstrap"])
def test_compare_of_one_group_has_no_interval_nor_bootstrap_verdict(method, auc_method):
    c = pd.DataFrame(pre.compare(_frame(), by="seg", method=method, auc_method=auc_method, **KW))
    one = c.xs("one", level="seg")
    assert (one["groups_used"] == 1).all() and one["diff"].notna().all()
    assert one["ci_low"].isna().all() and one["ci_high"].isna().all()
    p = one["p_value"].to_numpy()
    group_rows = one.index.get_level_values("metric") != "auc"
    if method == "auto":  # the sign-flip test of one group: p = 1, never significant
        assert (p[group_rows] == 1.0).all()
    else:  # no bootstrap p-value (it was 1 / (B + 1))
        assert np.isnan(p[group_rows]).all()
    assert np.isnan(p[~group_rows]).all()  # global AUC: DeLong of one cluster, or the bootstrap: none
    assert not one["significant"].astype(bool).any()
    many = c.xs("many", level="seg")
    assert (many["ci_low"] < many["ci_high"]).all() and many["p_value"].notna().all()


def test_compare_footer_counts_the_rows():
    c = pre.compare(_frame(), by="seg", method="bootstrap", **KW)
    assert c.attrs["few_groups"] == 3
    assert ("3 rows with fewer than 2 groups used: no interval or bootstrap p-value (the bootstrap resamples "
            "groups)") in " ".join(c.to_text().split())


def test_dask_and_polars_agree():
    dd = pytest.importorskip("dask.dataframe")
    pl = pytest.importorskip("polars")
    df = _frame()
    want = pd.DataFrame(pre.compare(df, by="seg", method="bootstrap", **KW))
    for other in (dd.from_pandas(df, npartitions=3), pl.from_pandas(df)):
        got = pd.DataFrame(pre.compare(other, by="seg", method="bootstrap", **KW))
        pd.testing.assert_frame_equal(got[want.columns], want, check_exact=False, atol=1e-12)


def test_compare_footer_says_where_interval_and_test_disagree():
    """Where few groups differ, the bootstrap interval can leave 0 out while the exact sign-flip
    test cannot reach p < 0.05 (4 differing groups: p >= 1/8): the footer counts such rows."""
    rng = np.random.default_rng(1)
    n_users = 40
    rows = []
    for u in range(n_users):  # every user: 4 rows, one click; model b moves the click up for 4 users
        s = rng.random(4)
        b = s.copy()
        if u < 4:
            b[0] = s.max() + 0.1
        rows += [{"u": u, "y": int(i == 0), "a": s[i], "b": b[i]} for i in range(4)]
    df = pd.DataFrame(rows)
    c = pre.compare(df, group="u", label="y", scores=["a", "b"], metrics=["mrr"], n_boot=2000, seed=0)
    t = pd.DataFrame(c)
    lo, p = float(t["ci_low"].iloc[0]), float(t["p_value"].iloc[0])
    assert lo > 0 and p >= 0.05  # the interval leaves 0 out, the test of 4 differing groups cannot
    full = " ".join(c.to_text(footer="full").split())  # a detail: the marks follow the test
    assert "on 1 row the 95% interval and p < 0.05 disagree: few groups differ there" in full
    agree = pre.compare(df, group="u", label="y", scores=["a", "b"], metrics=["mrr"], n_boot=2000, seed=0,
                        ci=0.9)  # another level: no comparison made
    assert "disagree" not in agree.to_text(footer="full")


def test_bootstrap_method_warns_below_50_groups():
    """method='bootstrap' p-values run small with few groups (sim_bootstrap_size.py): a warning
    names the fewest; none with the default method, none at 50 groups or more."""
    rng = np.random.default_rng(2)
    rows = [{"u": u, "y": int(i == 0), "a": rng.random(), "b": rng.random()} for u in range(60) for i in range(3)]
    df = pd.DataFrame(rows)
    kw = dict(group="u", label="y", scores=["a", "b"], metrics=["mrr"], n_boot=200)
    with pytest.warns(pre.CoverageWarning, match=r"method='bootstrap' p-values run small with few groups "
                                                 r"\(the fewest here: 20\)"):
        pre.compare(df[df.u < 20], method="bootstrap", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pre.CoverageWarning)
        pre.compare(df[df.u < 20], **kw)  # the sign-flip test: no warning
        pre.compare(df, method="bootstrap", **kw)  # 60 groups
