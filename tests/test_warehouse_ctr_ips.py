"""Grouped XAUC and the counterfactual (IPS) metrics computed in SQL by the warehouse engine, on
DuckDB, SQLite, Postgres, DataFusion and ClickHouse (chdb): against every pair by brute force
(XAUC), and equal to pandas to 1e-12 with ties, one-label and one-row groups, sample weights,
segments and NULLs; the IPS checks with pandas' messages from the checks' one query; ERR still
refused by name before any query."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ibis")

import pandas_rankeval as pre  # noqa: E402
from pandas_rankeval.engines.warehouse.stats import Stat, group_stats  # noqa: E402

try:
    from tests._oracles import xauc_pairs
    from tests._warehouse import BACKENDS, runner, sent
except ImportError:
    from _oracles import xauc_pairs
    from _warehouse import BACKENDS, runner, sent

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")

PROP = pd.Series([1.0, 0.6, 0.35, 0.2, 0.12, 0.05], index=pd.Index(range(1, 7), name="position"))


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


def _watch(seed: int, n_groups: int = 40) -> pd.DataFrame:
    """Continuous labels with ties (watch seconds), tie-heavy scores, one-label and one-row groups,
    a group of many distinct (label, score) cells (many levels of the inversion count), weights
    with zeros, a segment constant per group."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 14, n_groups)
    sizes[0] = 300  # 300 rows: up to 9 levels
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    y = np.round(rng.exponential(20.0, n)) / 2.0  # ties in labels
    y[g == 1] = 7.0  # one label: no pair
    s = np.round(rng.random(n) * 8) / 8  # ties in scores
    s[g == 0] = rng.random(int((g == 0).sum()))
    w = rng.integers(0, 5, n) / 2.0  # zero weights too
    w[g == 2] = 0.0  # a group whose pairs weigh 0
    df = pd.DataFrame({"u": g * 3 + 1, "y": y, "s": s, "s2": np.round(s + 0.1 * y / 40, 2), "w": w,
                       "seg": np.array(["a", "b", "c"])[g % 3]})
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


# --------------------------------------------------------------------------- #
# Grouped XAUC
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("backend", BACKENDS)
def test_xauc_sql_sums_equal_every_pair(backend: str) -> None:
    """The SQL's per-group 2T, 2S and D against the pairs counted one by one (an independent
    oracle), weighted and not."""
    df = _watch(1)
    r = runner(backend)
    t = r.table(df)
    for weight in (None, "w"):
        expr = group_stats(t, group=["u"], label="y", score="s", stats=[Stat("gxauc")], sample_weight=weight)
        got = r.execute(expr).set_index("u").sort_index()
        assert len(got) == df.u.nunique()
        for u, grp in df.groupby("u"):
            num, den = xauc_pairs(grp.y.tolist(), grp.s.tolist(), None if weight is None else grp.w.tolist())
            row = got.loc[u]
            t2, s2, d = row["__rk_s_xauc_t2"], row["__rk_s_xauc_s2"], row["__rk_s_xauc_d"]
            assert t2 / 2 == pytest.approx(den, abs=1e-9), (u, weight)
            assert (2 * t2 - 4 * d - s2) / 4 == pytest.approx(num, abs=1e-9), (u, weight)
            assert int(row["__rk_s_xauc_labels"]) == grp.y.nunique()


@pytest.mark.parametrize("backend", BACKENDS)
def test_gxauc_equals_pandas(backend: str) -> None:
    df = _watch(2)
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    kws = ({"sample_weight": "w", "weight": "uniform"}, {"min_size": 4})
    for kw in kws if backend == "duckdb" else kws[:1]:  # the filters are the client's: one backend
        n, got = sent(lambda: pre.gxauc(t, group="u", label="y", score="s", engine_options=eo, **kw))
        ref = pre.gxauc(df, group="u", label="y", score="s", **kw)
        assert not isinstance(got, Exception), got
        assert float(got) == pytest.approx(float(ref), abs=1e-12), kw
        assert got.coverage.as_dict() == pytest.approx(ref.coverage.as_dict(), abs=1e-15), kw
        assert n == 1 + 1  # the checks, the groups
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["gxauc", "gauc"], sample_weight="w")
    n, got = sent(lambda: pre.per_group(t, **kw, engine_options=eo))
    _close(pd.DataFrame(got).sort_index(), pd.DataFrame(pre.per_group(df, **kw)).sort_index())
    assert n == 1 + 2


@pytest.mark.parametrize("backend", ["postgres", "clickhouse"])
def test_gxauc_report_segments_intervals_compare(backend: str) -> None:
    df = _watch(3)
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["gxauc"], by="seg", ci=0.9, n_boot=80, seed=4)
    n, got = sent(lambda: pre.report(t, **kw, engine_options=eo))
    _close(got, pre.report(df, **kw))
    assert n == 1 + 2
    kw = dict(group="u", label="y", scores=["s", "s2"], metrics=["gxauc", "gauc"], seed=2, sample_weight="w")
    _close(pre.compare(t, **kw, engine_options=eo), pre.compare(df, **kw))


@pytest.mark.parametrize("backend", ["sqlite", "datafusion"])
def test_gxauc_nulls_and_bool_labels(backend: str) -> None:
    df = _watch(4)
    df["s"] = df["s"].where(np.arange(len(df)) % 17 != 3)  # NaN scores
    df["y"] = df["y"].where(np.arange(len(df)) % 23 != 5)  # missing labels
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    with pytest.raises(ValueError) as want:
        pre.gxauc(df, group="u", label="y", score="s")
    n, err = sent(lambda: pre.gxauc(t, group="u", label="y", score="s", engine_options=eo))
    assert isinstance(err, ValueError) and n == 1
    assert str(err).split(";")[0].split("(")[0] == str(want.value).split(";")[0].split("(")[0]
    got = pre.gxauc(t, group="u", label="y", score="s", nan_policy="omit", engine_options=eo)
    ref = pre.gxauc(df, group="u", label="y", score="s", nan_policy="omit")
    assert float(got) == pytest.approx(float(ref), abs=1e-12)
    assert got.coverage.as_dict() == pytest.approx(ref.coverage.as_dict(), abs=1e-15)
    b = _watch(5).assign(y=lambda d: d.y > 10)  # a bool label: GAUC's value
    got = pre.gxauc(r.table(b), group="u", label="y", score="s", engine_options=eo)
    assert float(got) == pytest.approx(float(pre.gxauc(b, group="u", label="y", score="s")), abs=1e-12)


# --------------------------------------------------------------------------- #
# IPS
# --------------------------------------------------------------------------- #
def _clicks(seed: int, n_groups: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_groups)  # one-row groups too
    g = np.repeat(np.arange(n_groups), sizes)
    pos = np.concatenate([rng.permutation(n) + 1 for n in sizes])
    n = g.shape[0]
    df = pd.DataFrame({
        "g": g, "pos": pos,
        "click": (rng.random(n) < 0.35).astype(np.int64),  # groups without a click and all-click ones
        "s": rng.integers(0, 3, n).astype(float),  # heavy ties
        "tb": rng.integers(0, 2, n),
        "seg": np.array(["x", "y"])[g % 2],
    })
    df["s2"] = df["s"] + 0.1 * (df["pos"] % 2)
    df["p"] = df["pos"].map(PROP)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


NAMES = ["ips_dcg", "ips_dcg@3", "ips_precision@2", "ips_hit_rate@1", "dcg@3"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_ips_equals_pandas(backend: str) -> None:
    df = _clicks(1)
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    kws = ({"position": "pos", "propensity": PROP, "ties": "pessimistic", "tiebreak": "tb"},
           {"propensity": "p", "snips": True, "clip": 0.3}, {"position": "pos", "propensity": PROP})
    for kw in kws if backend == "duckdb" else kws[:2]:
        kw = dict(group="g", label="click", scores=["s", "s2"], metrics=NAMES, **kw)
        n, got = sent(lambda: pre.per_group(t, **kw, engine_options=eo))
        assert not isinstance(got, Exception), got
        _close(pd.DataFrame(got).sort_index(), pd.DataFrame(pre.per_group(df, **kw)).sort_index())
        assert n == 1 + 2
    got = pre.ips_dcg(t, group="g", label="click", score="s", position="pos", propensity=PROP, k=2, snips=True,
                      engine_options=eo)
    ref = pre.ips_dcg(df, group="g", label="click", score="s", position="pos", propensity=PROP, k=2, snips=True)
    assert float(got) == pytest.approx(float(ref), abs=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ips_tie_rules_order_by_weight(backend: str) -> None:
    """Under "optimistic" / "pessimistic" a tie's clicks are ordered by their IPS weight (largest
    first / last), not by label, as pandas does (checked there against every order of the ties):
    graded labels with NDCG in the same call, a tie-break, SNIPS, cutoffs inside tie blocks."""
    df = _clicks(6)
    df["grade"] = df["click"] * np.random.default_rng(6).integers(1, 3, len(df))  # 0, 1 or 2
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    names = [*NAMES, "ips_precision@3", "ndcg@2"]
    for kw in ({"ties": "optimistic", "propensity": "p"},
               {"ties": "pessimistic", "tiebreak": "tb", "position": "pos", "propensity": PROP, "snips": True}):
        kw = dict(group="g", label="grade", scores=["s", "s2"], metrics=names, **kw)
        n, got = sent(lambda: pre.per_group(t, **kw, engine_options=eo))
        assert not isinstance(got, Exception), got
        _close(pd.DataFrame(got).sort_index(), pd.DataFrame(pre.per_group(df, **kw)).sort_index())
        assert n == 1 + 2


@pytest.mark.parametrize("backend", ["duckdb", "clickhouse"])
def test_ips_report_compare_segments(backend: str) -> None:
    df = _clicks(2)
    r = runner(backend)
    t = r.table(df)
    eo = r.engine_options()
    kw = dict(group="g", label="click", scores=["s", "s2"], metrics=NAMES[1:4], position="pos", propensity=PROP,
              by="seg", ci=0.9, n_boot=60, seed=1)
    n, got = sent(lambda: pre.report(t, **kw, engine_options=eo))
    _close(got, pre.report(df, **kw))
    assert n == 1 + 2
    kw = dict(group="g", label="click", scores=["s", "s2"], metrics=NAMES[1:4], propensity="p", snips=True,
              n_boot=50, seed=3)
    _close(pre.compare(t, **kw, engine_options=eo), pre.compare(df, **kw))


@pytest.mark.parametrize("backend", ["duckdb", "datafusion", "clickhouse"])
def test_ips_propensity_callable_once_on_the_distinct_positions(backend: str) -> None:
    """The callable's positions come from one query, sent as every other one (``execute`` and
    ``dialect`` for a table no Ibis connection holds)."""
    df = _clicks(3)
    r = runner(backend)
    t = r.table(df)
    calls = []

    def curve(p):
        calls.append(len(p))
        return PROP.reindex(np.asarray(p).astype(int)).to_numpy()

    kw = dict(group="g", label="click", score="s", position="pos", propensity=curve, k=3)
    n, got = sent(lambda: pre.ips_dcg(t, **kw, engine_options=r.engine_options()))
    assert not isinstance(got, Exception), got
    assert float(got) == pytest.approx(float(pre.ips_dcg(df, **kw)), abs=1e-12)
    assert calls == [6, 6]  # the warehouse, then pandas: once each, on the distinct positions
    assert n == 1 + 1 + 1  # the distinct positions, the checks, the groups


@pytest.mark.parametrize("backend", ["duckdb", "sqlite", "postgres", "clickhouse"])
def test_ips_bad_input_pandas_messages_at_the_checks(backend: str) -> None:
    df = _clicks(4)
    r = runner(backend)
    eo = r.engine_options()
    kw = dict(group="g", label="click", score="s")
    bad_pos = df.assign(pos=np.where(df.index < 4, -1, df["pos"]))
    bad_p = df.assign(p=np.where(df.index % 9 == 0, 0.0, df["p"]))
    for frame, extra, queries in [(bad_pos, {"position": "pos", "propensity": PROP}, 1),
                                  (df, {"position": "pos", "propensity": PROP.iloc[:3]}, 2),
                                  (bad_p, {"propensity": "p"}, 1)]:
        with pytest.raises(ValueError) as want:
            pre.ips_dcg(frame, **kw, **extra)
        n, err = sent(lambda: pre.ips_dcg(r.table(frame), **kw, **extra, engine_options=eo))
        assert isinstance(err, ValueError) and str(err) == str(want.value)
        assert n == queries  # the checks (and the three smallest unknown positions), no metric query


def test_err_still_refused_by_name_before_any_query() -> None:
    df = _clicks(5)
    t = runner("duckdb").table(df)
    n, err = sent(lambda: pre.report(t, group="g", label="click", scores="s", metrics=["ndcg", "err@3"]))
    assert isinstance(err, ValueError) and "'err@3' is not computed in SQL" in str(err)
    assert n == 0
