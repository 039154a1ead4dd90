"""The public functions on an ``ibis.Table`` (the warehouse engine), against pandas on the same rows,
on DuckDB, SQLite, Postgres, DataFusion and ClickHouse (chdb); what each call sends."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ibis")

import pandas_rankeval as pre  # noqa: E402

try:
    from tests._warehouse import BACKENDS, runner, sent
    from tests.test_warehouse_stats import _table
except ImportError:
    from _warehouse import BACKENDS, runner, sent
    from test_warehouse_stats import _table

METRICS = ["gauc", "mrr@3", "ndcg", "ndcg@3", "map", "precision@2", "recall@2", "hit_rate@2", "rbp@0.8", "rprec"]


def _frame(x) -> pd.DataFrame:
    return pd.DataFrame(x).sort_index()


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_group_equals_pandas(backend: str) -> None:
    df = _table(21)
    df["s2"] = np.round(df["s"] * 0.7 + 0.1 * (df["u"] % 3), 2)
    r = runner(backend)
    t = r.table(df)
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=METRICS)
    n, got = sent(lambda: pre.per_group(t, **kw, engine_options=r.engine_options()))
    assert not isinstance(got, Exception), got
    ref = pre.per_group(df, **kw)
    a, b = _frame(got), _frame(ref)
    assert list(a.columns) == list(b.columns) and a.index.equals(b.index)
    np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=0, atol=1e-12, equal_nan=True)
    assert got.attrs["coverage"] == ref.attrs["coverage"]
    assert n == 1 + 2  # the checks, then one query per score column


def test_refused_by_name_before_any_query() -> None:
    df = _table(22)
    df["r"] = np.arange(len(df)) % 4 != 0
    t = runner("duckdb").table(df)
    kw = dict(group="u", label="y", score="s")
    for call, words in [
        (lambda: pre.per_group(t, **kw, metrics=["err@5"]), "'err@5' is not computed in SQL"),
        (lambda: pre.auc(t, label="y", score="s", max_fpr=0.2), "max_fpr"),
        (lambda: pre.report(t, group="u", label="y", scores="s", metrics=["auc"], ci=0.9), "DeLong"),
        (lambda: pre.report(t, group="u", label="y", scores="s", metrics=["gauc"], ci=0.9, resample="multinomial"),
         "multinomial"),
        (lambda: pre.gauc(t, group="uu", label="y", score="s"), "Did you mean 'u'?"),
        (lambda: pre.map(t, group="u", label="y", score="s", retrieved="r"), "retrieved= (rows outside"),
    ]:
        n, err = sent(call)
        assert isinstance(err, (ValueError, KeyError)), err
        assert words in str(err)
        assert n == 0


@pytest.mark.parametrize("backend", ["duckdb", "postgres", "clickhouse"])
def test_bad_input_fails_at_the_checks_query(backend: str) -> None:
    df = _table(23)
    df.loc[[2, 9], "s"] = np.nan
    r = runner(backend)
    t = r.table(df)
    n, err = sent(lambda: pre.per_group(t, group="u", label="y", score="s", metrics=["mrr"],
                                         engine_options=r.engine_options()))
    with pytest.raises(ValueError) as ref:
        pre.per_group(df, group="u", label="y", score="s", metrics=["mrr"])
    assert str(err) == str(ref.value)
    assert n == 1  # the checks' one aggregate, no metric query
    n, got = sent(lambda: pre.per_group(t, group="u", label="y", score="s", metrics=["mrr"], nan_policy="omit",
                                         engine_options=r.engine_options()))
    ref2 = pre.per_group(df, group="u", label="y", score="s", metrics=["mrr"], nan_policy="omit")
    np.testing.assert_allclose(_frame(got)["mrr"], _frame(ref2)["mrr"], rtol=0, atol=1e-12)
    assert n == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_global_auc_equals_pandas(backend: str) -> None:
    df = _table(24)
    r = runner(backend)
    t = r.table(df)
    kws = [{}, {"sample_weight": "w"}, {"ties": "pessimistic"}, {"threshold": 2}]
    for kw in kws if backend == "duckdb" else kws[1:3]:
        n, got = sent(lambda: pre.auc(t, label="y", score="s", engine_options=r.engine_options(), **kw))
        ref = pre.auc(df, label="y", score="s", **kw)
        assert float(got) == pytest.approx(float(ref), abs=1e-12), kw
        assert got.coverage.as_dict() == ref.coverage.as_dict()
        assert n == 2  # the checks, the counts per distinct score


def _close(a, b) -> None:
    a, b = pd.DataFrame(a), pd.DataFrame(b)
    assert list(a.columns) == list(b.columns) and a.index.equals(b.index)
    for c in a.columns:
        x, y = a[c], b[c]
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            np.testing.assert_allclose(x.to_numpy(float), y.to_numpy(float), rtol=0, atol=1e-12, equal_nan=True,
                                       err_msg=str(c))
        else:
            assert x.tolist() == y.tolist(), c


@pytest.mark.parametrize("backend", ["duckdb", "postgres", "clickhouse"])
def test_report_with_intervals_equals_pandas(backend: str) -> None:
    df = _table(25)
    df["s2"] = np.round(df["s"] * 0.7 + 0.1 * (df["u"] % 3), 2)
    r = runner(backend)
    t = r.table(df)
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["gauc", "mrr", "ndcg@3", "map@2", "ne", "ece@4"],
              ci=0.9, n_boot=200, seed=3, threshold=1)
    n, got = sent(lambda: pre.report(t, **kw, engine_options=r.engine_options()))
    assert not isinstance(got, Exception), got
    _close(got, pre.report(df, **kw))
    assert n == 1 + 2


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
def test_compare_and_segments_equal_pandas(backend: str) -> None:
    df = _table(26)
    df["s2"] = np.round(df["s"] * 0.7 + 0.1 * (df["u"] % 3), 2)
    df["seg"] = np.where(df["u"] % 2 == 0, "even", "odd")
    r = runner(backend)
    t = r.table(df)
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["gauc", "mrr@3", "ndcg"], seed=5)
    _close(pre.compare(t, **kw, engine_options=r.engine_options()), pre.compare(df, **kw))
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["gauc", "mrr@3"], method="randomization",
              n_boot=300, seed=5)
    _close(pre.compare(t, **kw, engine_options=r.engine_options()), pre.compare(df, **kw))
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["auc", "gauc", "ndcg"], by="seg")
    n, got = sent(lambda: pre.report(t, **kw, engine_options=r.engine_options()))
    _close(got, pre.report(df, **kw))
    assert n == 1 + 2 + 2  # the checks; global AUC's counts, then the groups, per score column


@pytest.mark.parametrize("backend", ["duckdb", "clickhouse"])
def test_metric_functions_equal_pandas(backend: str) -> None:
    df = _table(27)
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    for fn, kw in [(pre.gauc, {"weight": "w"}), (pre.mrr, {"k": 3}), (pre.ndcg, {"k": 3, "gain": "linear"}),
                   (pre.map, {}), (pre.precision, {"k": 2}), (pre.recall, {"k": 2}), (pre.hit_rate, {"k": 2}),
                   (pre.rbp, {"p": 0.7}), (pre.r_precision, {"ties": "optimistic"}), (pre.gauc, {"sample_weight": "w", "min_size": 3}),
                   (pre.logloss, {"threshold": 1}), (pre.ne, {"threshold": 1, "sample_weight": "w"}),
                   (pre.pcoc, {"threshold": 2}), (pre.ece, {"threshold": 1, "bins": 4})]:
        got = fn(t, group="u", label="y", score="s", engine_options=eo, **kw)
        ref = fn(df, group="u", label="y", score="s", **kw)
        assert float(got) == pytest.approx(float(ref), abs=1e-12, nan_ok=True), fn.__name__
        assert got.coverage.as_dict() == pytest.approx(ref.coverage.as_dict(), abs=1e-15), fn.__name__


def test_evaluator_update_takes_ibis_tables() -> None:
    df = _table(28)
    r = runner("duckdb")
    kw = dict(group="u", label="y", scores="s", metrics=["gauc", "mrr", "ndcg@3"], ci=0.9, n_boot=100, seed=1)
    ev = pre.Evaluator(**kw)
    ev.update(r.table(df[df.u % 2 == 0]))
    ev.update(r.table(df[df.u % 2 == 1]))
    _close(ev.result(), pre.report(df, **kw))
    with pytest.raises(ValueError, match="update"):
        ev.update(r.table(df[df.u == 2]))
    kw = dict(group="u", label="y", scores="s", metrics=["auc", "gauc"], sample_weight="w")
    ev = pre.Evaluator(**kw).update(r.table(df[df.u < 30])).update(r.table(df[df.u >= 30]))
    _close(ev.result(), pre.report(df, **kw))


# --------------------------------------------------------------------------- #
# The engine-parity cases (tests/test_engine_parity.py) on an Ibis table of DuckDB
# --------------------------------------------------------------------------- #
try:
    from tests import test_engine_parity as P
except ImportError:
    import test_engine_parity as P


def _ibis(df: pd.DataFrame):
    return runner("duckdb").table(df)


@pytest.mark.parametrize("name,case,options", P.METRIC_CASES, ids=[f"{n}-{c}" for n, c, _ in P.METRIC_CASES])
def test_parity_metric_cases(name, case, options):
    df, kw = P._frame_and_kw(case)
    if name == "auc":
        kw.pop("group")
    kw |= dict(score="a", **options)
    if name == "err":  # not computed in SQL (docs: Warehouses): refused by name, before any query
        n, err = sent(lambda: getattr(pre, name)(_ibis(df), **kw))
        assert isinstance(err, ValueError) and "not computed in SQL" in str(err) and n == 0
        return
    if kw.get("nan_policy") == "raise":
        with pytest.raises(ValueError) as want:
            getattr(pre, name)(df, **kw)
        with pytest.raises(ValueError) as got:
            getattr(pre, name)(_ibis(df), **kw)
        assert str(got.value) == str(want.value)
        return
    P.assert_same(getattr(pre, name)(_ibis(df), **kw), getattr(pre, name)(df, **kw))


@pytest.mark.parametrize("case", ["str", "multi"])
def test_parity_per_group_cases(case):
    df, kw = P._frame_and_kw(case)
    models = {"score": "a"} if case == "str" else {"scores": ["a", "b"]}
    kw |= dict(**models, metrics=["auc", "mrr@3", "ndcg@5", "map"], weight="clicks")
    P.assert_same(pd.DataFrame(pre.per_group(_ibis(df), **kw)).sort_index(), pd.DataFrame(pre.per_group(df, **kw)).sort_index())


@pytest.mark.parametrize("case,options", P.REPORT_CASES, ids=[c for c, _ in P.REPORT_CASES])
def test_parity_report_cases(case, options):
    df, kw = P._frame_and_kw(case)
    kw |= dict(scores=["a", "b"], **options)
    if any(m.startswith("err") for m in kw["metrics"]):  # not computed in SQL
        kw["metrics"] = [m for m in kw["metrics"] if not m.startswith("err")]
    if kw.get("ci") and "auc" in kw["metrics"]:  # global AUC's DeLong interval: refused
        n, err = sent(lambda: pre.report(_ibis(df), **kw))
        assert isinstance(err, ValueError) and "DeLong" in str(err) and n == 0
        kw["metrics"] = [m for m in kw["metrics"] if m != "auc"]
    P.assert_same(pre.report(_ibis(df), **kw), pre.report(df, **kw))


def test_parity_compare_studentized():
    case, options = P.COMPARE_CASES[1]
    df, kw = P._frame_and_kw(case)
    kw |= dict(scores=["a", "b"], baseline="a", **options)
    P.assert_same(pre.compare(_ibis(df), **kw), pre.compare(df, **kw))


def test_early_errors_and_their_queries() -> None:
    """empty='error' fails at the checks query (one query); a weight callable is called once, on
    every group's statistics (one more small query); a by= that varies in a group: pandas' error."""
    df = _table(29)
    t = runner("duckdb").table(df)
    kw = dict(group="u", label="y", score="s")
    n, err = sent(lambda: pre.mrr(t, empty="error", **kw))
    with pytest.raises(ValueError) as ref:
        pre.mrr(df, empty="error", **kw)
    assert str(err) == str(ref.value) and n == 1
    share = lambda st: st["n"] / st["n"].sum()  # noqa: E731 - looks at every group at once
    n, got = sent(lambda: pre.gauc(t, weight=share, **kw))
    assert float(got) == pytest.approx(float(pre.gauc(df, weight=share, **kw)), abs=1e-12)
    assert n == 1 + 1 + 1  # checks, the groups' statistics for the callable, the groups
    mixed = df.assign(seg=np.arange(len(df)) % 2)
    n, err = sent(lambda: pre.report(runner("duckdb").table(mixed), group="u", label="y", scores="s",
                                      metrics=["gauc"], by="seg"))
    with pytest.raises(ValueError) as ref:
        pre.report(mixed, group="u", label="y", scores="s", metrics=["gauc"], by="seg")
    assert isinstance(err, ValueError) and str(err) == str(ref.value)
    assert n == 2  # the checks, the distinct (group, segment) pairs for the example


@pytest.mark.slow  # Spark jobs of seconds each: in .ci/run's slow run, not the default one
def test_pyspark_through_ibis(spark) -> None:
    """PySpark through Ibis's pyspark backend (the tests' SparkSession): a report equals pandas'
    (one call: Spark jobs are slow; the SQL is the one every other backend runs)."""
    import ibis

    df = _table(30)
    con = ibis.pyspark.connect(spark)
    spark.createDataFrame(df).createOrReplaceTempView("rk_warehouse_imp")
    t = con.table("rk_warehouse_imp")
    kw = dict(group="u", label="y", scores="s", metrics=["auc", "gauc", "mrr@3", "ndcg", "map", "hit_rate@2"])
    _close(pre.report(t, **kw), pre.report(df, **kw))


@pytest.mark.parametrize("backend", ["duckdb", "sqlite", "postgres", "clickhouse"])
def test_calibration_bad_input_messages(backend: str) -> None:
    """Scores outside [0, 1] and labels other than 0/1: pandas' messages, before any metric query."""
    df = _table(31)
    r = runner(backend)
    for frame, kw in [(df.assign(s=df.s * 1.5), {"threshold": 1}), (df, {})]:
        n, err = sent(lambda: pre.logloss(r.table(frame), group="u", label="y", score="s",
                                           engine_options=r.engine_options(), **kw))
        with pytest.raises(ValueError) as ref:
            pre.logloss(frame, group="u", label="y", score="s", **kw)
        assert str(err) == str(ref.value)
        assert n == (1 if kw else 2)  # the checks (and the examples of the labels)


def test_engine_options_checked_before_any_query() -> None:
    df = _table(32)
    t = runner("duckdb").table(df)
    kw = dict(group="u", label="y", score="s")
    for opts, exc, words in [({"execute": 3, "dialect": "duckdb"}, TypeError, "must be a callable"),
                             ({"execute": print}, ValueError, "go together"),
                             ({"buckets": 2}, ValueError, "takes only 'execute', 'dialect'")]:
        n, err = sent(lambda: pre.gauc(t, engine_options=opts, **kw))
        assert isinstance(err, exc) and words in str(err), err
        assert n == 0


def test_per_group_calibration_only_weighs_rows() -> None:
    df = _table(33)
    t = runner("sqlite").table(df)
    for kw in ({}, {"sample_weight": "w"}):
        kw = dict(group="u", label="y", score="s", metrics=["logloss", "pcoc"], threshold=1, **kw)
        P.assert_same(pd.DataFrame(pre.per_group(t, **kw)).sort_index(), pd.DataFrame(pre.per_group(df, **kw)).sort_index())


@pytest.mark.parametrize("backend", ["postgres", "clickhouse"])
def test_bool_and_float_labels(backend: str) -> None:
    """A bool label is its own relevance (Postgres has no CAST(bool AS DOUBLE)); a float label."""
    df = _table(34)
    r = runner(backend)
    m = ["auc", "gauc", "mrr", "ndcg@3"]
    for lab in (df.y > 0, df.y.astype(float)):
        d = df.assign(y=lab)
        kw = dict(group="u", label="y", scores="s", metrics=m)
        _close(pre.report(r.table(d), **kw, engine_options=r.engine_options()), pre.report(d, **kw))


@pytest.mark.parametrize("backend", ["duckdb", "postgres", "clickhouse"])
def test_negative_zero_keys_and_scores(backend: str) -> None:
    """-0.0 and 0.0 are one group key and one tied score, as in pandas."""
    rng = np.random.default_rng(35)
    n = 200
    df = pd.DataFrame({"u": rng.choice([-0.0, 0.0, 1.5, 2.5], n), "y": rng.integers(0, 2, n),
                       "s": rng.choice([-0.0, 0.0, 0.5, -0.5], n), "w": rng.random(n)})
    r = runner(backend)
    kw = dict(group="u", label="y", scores="s", metrics=["gauc", "mrr", "ndcg@2"], ci=0.9, n_boot=50)
    _close(pre.report(r.table(df), group="u", label="y", scores="s", metrics=["auc"], engine_options=r.engine_options()),
           pre.report(df, group="u", label="y", scores="s", metrics=["auc"]))
    _close(pre.report(r.table(df), **kw, engine_options=r.engine_options()), pre.report(df, **kw))
    pg = dict(group="u", label="y", score="s", metrics=["gauc", "mrr"])
    got = pd.DataFrame(pre.per_group(r.table(df), **pg, engine_options=r.engine_options())).sort_index()
    assert got.index.tolist() == [0.0, 1.5, 2.5] and not np.signbit(got.index.to_numpy()).any()
    P.assert_same(got, pd.DataFrame(pre.per_group(df, **pg)).sort_index())


def test_negative_zero_key_is_one_group_in_the_checks() -> None:
    """empty='error' compares the scan's distinct keys: -0.0 and 0.0 are one key there too
    (ClickHouse's COUNT(DISTINCT) counts them apart)."""
    df = pd.DataFrame({"u": [-0.0, 0.0, 1.0, 1.0], "y": [1, 0, 1, 0], "s": [0.1, 0.2, 0.3, 0.4]})
    r = runner("clickhouse")
    got = pre.mrr(r.table(df), group="u", label="y", score="s", empty="error", engine_options=r.engine_options())
    assert float(got) == pytest.approx(float(pre.mrr(df, group="u", label="y", score="s", empty="error")), abs=1e-12)


def test_negative_zero_key_with_a_weight_callable() -> None:
    """A weight callable sees one group for -0.0 and 0.0, as on pandas."""
    df = pd.DataFrame({"u": [-0.0, 0.0, 1.0, 1.0, 2.0, 2.0], "y": [1, 0, 1, 0, 0, 1],
                       "s": [0.1, 0.2, 0.3, 0.4, 0.9, 0.1]})
    r = runner("clickhouse")
    share = lambda st: st["n"] / st["n"].sum()  # noqa: E731
    got = pre.gauc(r.table(df), group="u", label="y", score="s", weight=share, engine_options=r.engine_options())
    assert float(got) == pytest.approx(float(pre.gauc(df, group="u", label="y", score="s", weight=share)), abs=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("threshold", [None, -1.0, 0.0, 0.5, 1.0, 1.5, 2.0])
def test_bool_label_under_a_threshold_equals_pandas(backend: str, threshold: float | None) -> None:
    """A bool label is 0 or 1 and relevant when >= the threshold, on the warehouse as in pandas:
    every row at a threshold <= 0, none above 1 (it was the label itself whatever the threshold)."""
    df = _table(5)
    df["y"] = df["y"] > 0
    r = runner(backend)
    kw = dict(group="u", label="y", scores=["s"], metrics=METRICS, threshold=threshold, empty="zero")
    got = pre.per_group(r.table(df), **kw, engine_options=r.engine_options())
    assert not isinstance(got, Exception), got
    a, b = _frame(got), _frame(pre.per_group(df, **kw))
    np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=0, atol=1e-12, equal_nan=True)
    relevant = {None: df["y"], -1.0: True, 0.0: True, 0.5: df["y"], 1.0: df["y"], 1.5: False, 2.0: False}[threshold]
    want_pos = pd.Series(relevant, index=df.index).groupby(df["u"]).sum() if not isinstance(relevant, bool) \
        else df.groupby("u").size() * relevant  # the oracle: the rows >= the threshold, per group
    np.testing.assert_array_equal(a["positives"].to_numpy(), want_pos.sort_index().to_numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_table_and_a_score_that_is_the_group_key_as_pandas(backend: str) -> None:
    """An empty table raises pandas' message (a SUM over no row is NULL: it crashed in int());
    a score column that is also the group key is evaluated (the blocks grouped by it twice
    crashed inside Ibis)."""
    df = _table(8)
    r = runner(backend)
    kw = dict(group="u", label="y", engine_options=r.engine_options())
    t = r.table(df)
    with pytest.raises(ValueError, match=r"gauc got an empty DataFrame \(0 rows\)"):
        pre.gauc(t.filter(t.u < df["u"].min()), score="s", **kw)  # no row (DataFusion takes no empty frame)
    for metric in ("gauc", "mrr", "ndcg"):
        got = getattr(pre, metric)(r.table(df), score="u", **kw)
        want = getattr(pre, metric)(df, group="u", label="y", score="u")
        assert float(got) == pytest.approx(float(want), abs=1e-12, nan_ok=True)


def test_a_segment_column_inside_the_group_key() -> None:
    """group=["u", "seg"], by="seg": each group lies in one segment (the checks' query asked for
    two equal scalar subqueries, which came back with mismatched names: a crash in Ibis)."""
    ibis = pytest.importorskip("ibis")
    rng = np.random.default_rng(4)
    n = 300
    df = pd.DataFrame({"u": rng.integers(0, 40, n), "seg": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                       "p": rng.random(n)})
    kw = {"group": ["u", "seg"], "label": "y", "scores": ["p"], "metrics": ["gauc", "logloss"], "by": "seg"}
    got, want = pre.report(ibis.memtable(df), **kw), pre.report(df, **kw)
    np.testing.assert_allclose(got[["gauc", "logloss"]].to_numpy(float), want[["gauc", "logloss"]].to_numpy(float),
                               rtol=0, atol=1e-12)
