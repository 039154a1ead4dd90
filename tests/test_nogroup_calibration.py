"""The calibration metrics without ``group``: every row its own group.

logloss, ne, pcoc and ece pool rows, so their values do not depend on any grouping; without a
group column the functions, report and compare give those values (oracles: sklearn's log_loss,
the hand formulas of test_calibration, the same call with a group), and the bootstrap interval and
the paired test resample rows (the same call with a row-number group column). A metric that
needs groups still raises the clear error. Every engine equals pandas to 1e-12.
"""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss

import pandas_rankeval as pre
from test_calibration import REFS, make_frame
from test_engine_parity import ATOL, OPTIONS, engine_frame  # noqa: F401 - the fixture

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
]

NAMES = ["logloss", "ne", "pcoc", "ece"]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_functions_without_group_are_the_pooled_values(name, weighted):
    df = make_frame(3)
    sw = {"sample_weight": "w"} if weighted else {}
    w = df["w"].tolist() if weighted else None
    got = float(getattr(pre, name)(df, label="y", score="p", **sw))
    want = REFS[name](df["y"].tolist(), df["p"].tolist(), w)
    assert got == pytest.approx(want, rel=1e-12, abs=0)
    grouped = float(getattr(pre, name)(df, group="g", label="y", score="p", **sw))
    assert got == pytest.approx(grouped, rel=1e-13, abs=0)
    if name == "logloss":
        q = df["p"].clip(1e-15, 1 - 1e-15)  # sklearn's eps="auto" clips less: the contract's 1e-15
        assert got == pytest.approx(log_loss(df["y"], q, sample_weight=w), rel=1e-13, abs=0)


def test_dyadic_values_are_bit_equal_to_any_grouping():
    """With dyadic probabilities and weights every sum is exact: the values are the same bits."""
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame({"g": rng.integers(0, 30, n), "y": rng.integers(0, 2, n),
                       "p": rng.integers(0, 17, n) / 16, "w": rng.integers(1, 4, n).astype(float)})
    for name in ("pcoc", "ece"):
        for sw in ({}, {"sample_weight": "w"}):
            got = float(getattr(pre, name)(df, label="y", score="p", **sw))
            assert got == float(getattr(pre, name)(df, group="g", label="y", score="p", **sw))
            w = df["w"].tolist() if sw else None
            assert got == REFS[name](df["y"].tolist(), df["p"].tolist(), w)


def test_report_and_compare_without_group():
    df = make_frame(4)
    metrics = ["logloss", "ne", "pcoc", "ece", "auc"]
    rep = pre.report(df, label="y", scores=["p", "q"], metrics=metrics)
    grouped = pre.report(df, group="g", label="y", scores=["p", "q"], metrics=metrics)
    for m in ("logloss", "ne", "pcoc", "ece@10", "auc"):
        np.testing.assert_allclose(rep[m].to_numpy(float), grouped[m].to_numpy(float), rtol=1e-13, atol=0)
    for s in ("p", "q"):
        assert rep.loc[s, "logloss"] == pytest.approx(REFS["logloss"](df["y"].tolist(), df[s].tolist()), rel=1e-12)
    cmp = pre.compare(df, label="y", scores=["p", "q"], baseline="p", metrics=["logloss", "pcoc", "auc"], n_boot=200)
    cmp_g = pre.compare(df, group="g", label="y", scores=["p", "q"], baseline="p", metrics=["logloss", "pcoc", "auc"], n_boot=200)
    np.testing.assert_allclose(cmp["diff"].to_numpy(float), cmp_g["diff"].to_numpy(float), rtol=1e-12, atol=1e-15)
    assert "__rk_row" not in df.columns  # the input is untouched
    assert "rows, pooled (no groups)" in rep.to_text()
    by = pre.report(df, label="y", scores=["p"], metrics=["logloss", "pcoc"], by="seg", overall=True)
    by_g = pre.report(df, group="g", label="y", scores=["p"], metrics=["logloss", "pcoc"], by="seg", overall=True)
    np.testing.assert_allclose(by[["logloss", "pcoc"]].to_numpy(float), by_g[["logloss", "pcoc"]].to_numpy(float),
                               rtol=1e-13, atol=0)
    a = df[df["seg"] == "a"]
    assert by.loc[("a", "p"), "logloss"] == pytest.approx(REFS["logloss"](a["y"].tolist(), a["p"].tolist()), rel=1e-12)


def test_intervals_and_tests_resample_rows():
    """Without group the unit is the row: the same table as a row-number group column (the
    same hashed replicates), an interval around the value."""
    df = make_frame(6, n_groups=80)
    rows = df.assign(r=np.arange(len(df)))
    kw: dict[str, Any] = {"label": "y", "scores": ["p", "q"], "metrics": ["logloss", "ne", "pcoc", "auc"], "ci": 0.9,
                          "n_boot": 200, "seed": 3}
    got = pd.DataFrame(pre.report(df, **kw))
    want = pd.DataFrame(pre.report(rows, group="r", **kw))
    pd.testing.assert_frame_equal(got, want)
    grouped = pd.DataFrame(pre.report(df, group="g", **kw))
    for m in ("logloss", "ne", "pcoc"):
        low, high = got[f"{m}_low"].to_numpy(float), got[f"{m}_high"].to_numpy(float)
        assert (low < got[m].to_numpy(float)).all() and (got[m].to_numpy(float) < high).all()
        assert not np.array_equal(low, grouped[f"{m}_low"].to_numpy(float))  # another unit, another interval
    ckw: dict[str, Any] = {"label": "y", "scores": ["p", "q"], "baseline": "p", "metrics": ["logloss", "pcoc"],
                           "n_boot": 200, "seed": 3}
    cmp = pd.DataFrame(pre.compare(df, **ckw))
    pd.testing.assert_frame_equal(cmp, pd.DataFrame(pre.compare(rows, group="r", **ckw)))
    assert np.isfinite(cmp["p_value"].to_numpy(float)).all()


def test_a_grouped_metric_without_group_still_says_so():
    df = make_frame(1)
    for metrics in (["logloss", "gauc"], ["pcoc", "mrr"]):
        with pytest.raises(ValueError, match=r"needs the 'group' parameter .*\['(gauc|mrr)'\]"):
            pre.report(df, label="y", scores=["p"], metrics=metrics)
    with pytest.raises(TypeError, match="group"):
        pre.gauc(df, label="y", score="p")


ENGINES = ["polars", "polars-lazy", "dask", "duckdb", "spark"]


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_without_group_equal_pandas(engine, engine_frame):
    df = make_frame(7)
    frame = engine_frame(df)
    opts = OPTIONS.get(engine)
    for name in NAMES:
        got = float(getattr(pre, name)(frame, label="y", score="p", sample_weight="w", engine_options=opts))
        want = float(getattr(pre, name)(df, label="y", score="p", sample_weight="w"))
        assert got == pytest.approx(want, rel=0, abs=ATOL)
    kw: dict[str, Any] = {"label": "y", "scores": ["p", "q"], "metrics": ["logloss", "ne", "pcoc", "ece@5"], "by": "seg"}
    got_r = pre.report(frame, engine_options=opts, **kw)
    want_r = pre.report(df, **kw)
    for m in ("logloss", "ne", "pcoc", "ece@5"):
        np.testing.assert_allclose(got_r[m].to_numpy(float), want_r[m].to_numpy(float), rtol=0, atol=ATOL)
    # intervals: polars and Dask number the rows 0..n-1 in the frame's order, so the same hashed
    # replicates as pandas; a DuckDB relation or a Spark frame has no row order (its numbers would
    # change from run to run): an interval there asks for group=
    ci: dict[str, Any] = {"label": "y", "scores": ["p", "q"], "metrics": ["logloss", "pcoc"], "ci": 0.9, "n_boot": 50}
    if engine in ("spark", "duckdb"):
        with pytest.raises(ValueError, match=r"has no row order, so the interval would change from run to run\. "
                                             r"Pass group="):
            pre.report(frame, engine_options=opts, **ci)
        return
    got_c = pd.DataFrame(pre.report(frame, engine_options=opts, **ci))
    want_c = pd.DataFrame(pre.report(df, **ci))
    np.testing.assert_allclose(got_c.to_numpy(float), want_c[got_c.columns].to_numpy(float), rtol=0, atol=ATOL)
    assert (got_c["logloss_low"] < got_c["logloss"]).all() and (got_c["logloss"] < got_c["logloss_high"]).all()


def test_warehouse_values_without_group_and_intervals_ask_for_one():
    """An Ibis table: the values without group (one constant key: one row back) equal pandas';
    an interval or a test, which would send every row back, asks for group=."""
    ibis = pytest.importorskip("ibis")
    df = make_frame(2)
    t = ibis.memtable(df)
    for name in NAMES:
        got = float(getattr(pre, name)(t, label="y", score="p", sample_weight="w"))
        assert got == pytest.approx(float(getattr(pre, name)(df, label="y", score="p", sample_weight="w")), rel=0, abs=ATOL)
    kw: dict[str, Any] = {"label": "y", "scores": ["p", "q"], "metrics": ["logloss", "ne", "pcoc", "ece@5"], "by": "seg"}
    got_r, want_r = pre.report(t, **kw), pre.report(df, **kw)
    for m in ("logloss", "ne", "pcoc", "ece@5"):
        np.testing.assert_allclose(got_r[m].to_numpy(float), want_r[m].to_numpy(float), rtol=0, atol=ATOL)
    assert "rows, pooled (no groups)" in got_r.to_text()
    with pytest.raises(ValueError, match="needs the 'group' parameter"):
        pre.report(t, label="y", scores=["p"], metrics=["logloss"], ci=0.9)
    with pytest.raises(ValueError, match="needs the 'group' parameter"):
        pre.compare(t, label="y", scores=["p", "q"], metrics=["logloss"])
    assert math.isfinite(float(pre.logloss(t, group="g", label="y", score="p")))


def test_training_hook_without_query_information():
    """A binary LightGBM set without queries: the calibration metrics pool its rows (they asked
    for group keys before); a group metric still asks for them."""
    lgb = pytest.importorskip("lightgbm")
    from pandas_rankeval.lightgbm import eval_metric

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    train = lgb.Dataset(X[:400], y[:400])
    valid = lgb.Dataset(X[400:], y[400:], reference=train)
    log: dict[str, Any] = {}
    booster = lgb.train({"objective": "binary", "verbose": -1, "metric": "None"}, train, 3, valid_sets=[valid],
                        feval=eval_metric(["logloss", "pcoc"]), callbacks=[lgb.record_evaluation(log)])
    p = booster.predict(X[400:])
    assert log["valid_0"]["rankeval_logloss"][-1] == pytest.approx(log_loss(y[400:], p), rel=1e-12)
    assert log["valid_0"]["rankeval_pcoc"][-1] == pytest.approx(p.sum() / y[400:].sum(), rel=1e-12)
    with pytest.raises(ValueError, match=r"\['gauc'\] need group keys"):
        lgb.train({"objective": "binary", "verbose": -1}, train, 1, valid_sets=[valid], feval=eval_metric(["logloss", "gauc"]))


def test_command_line_without_group(tmp_path, capsys):
    from pandas_rankeval.cli import main

    df = make_frame(2)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    assert main(["eval", str(path), "--label", "y", "--score", "p", "--metrics", "logloss", "pcoc", "--format", "csv"]) == 0
    out = pd.read_csv(io.StringIO(capsys.readouterr().out), comment="#")
    assert float(out["logloss"].iloc[0]) == pytest.approx(REFS["logloss"](df["y"].tolist(), df["p"].tolist()), rel=1e-9)
    assert main(["eval", str(path), "--label", "y", "--score", "p", "--metrics", "logloss", "gauc"]) != 0
    assert "required: --group" in capsys.readouterr().err


def test_every_engine_counts_a_group_per_row_and_auc_alone_takes_an_interval():
    """Without group every row is its own group on every engine (the warehouse, which sums its
    values under one key, said 1 group); global AUC alone with an interval or a test uses the
    row groups too (it raised an internal message about DeLong moments): the same table as a call
    with an explicit row-number group."""
    ibis = pytest.importorskip("ibis")
    df = pd.DataFrame({"y": [0, 1, 0, 1, 1, 0], "p": [.1, .7, .3, .6, .2, .9], "q": [.2, .3, .4, .5, .6, .1],
                       "s": list("aaabbb")})
    kw: dict[str, Any] = {"label": "y", "scores": "p", "metrics": ["logloss"], "by": "s"}
    got, want = pre.report(ibis.memtable(df), **kw), pre.report(df, **kw)
    assert got["n_groups"].tolist() == want["n_groups"].tolist() == [3, 3]
    assert "a: 3 rows, 3 groups" in got.to_text(footer="full")
    rows = df.assign(row=np.arange(len(df)))
    two: dict[str, Any] = {"label": "y", "scores": ["p", "q"], "metrics": ["auc"]}
    for call, extra in ((pre.report, {"ci": 0.9}), (pre.compare, {})):
        a = pd.DataFrame(call(df, **two, **extra))
        b = pd.DataFrame(call(rows, group="row", **two, **extra))
        pd.testing.assert_frame_equal(a, b[a.columns], check_exact=False, atol=1e-12)
    with pytest.raises(ValueError, match="has no row order"):
        pre.report(duckdb_relation(df), ci=0.9, **two)


def duckdb_relation(df: pd.DataFrame) -> Any:
    duckdb = pytest.importorskip("duckdb")
    return duckdb.from_df(df)
