"""The warehouse engine's SQL (``engines/warehouse/stats.py``): every group's statistics computed by
DuckDB, SQLite, Postgres, DataFusion and ClickHouse (chdb) from the same Ibis expressions equal
the pandas engine's per-group values to 1e-12, on tie-heavy tables with one-class and one-row
groups, graded labels, a relevance threshold, sample weights and two-column group keys."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ibis")

import pandas_rankeval as pre  # noqa: E402
from pandas_rankeval.engines.warehouse.stats import Stat, group_stats, group_values, score_counts  # noqa: E402

try:
    from tests._warehouse import BACKENDS, runner
except ImportError:
    from _warehouse import BACKENDS, runner

METRICS = ["gauc", "mrr", "mrr@3", "ndcg", "ndcg@3", "ndcg@50", "map", "map@3", "precision@3", "recall@3",
           "hit_rate@1", "hit_rate@3", "rbp@0.8"]


def _stats(metrics: list[str]) -> list[Stat]:
    out = []
    for m in metrics:
        name, _, k = m.partition("@")
        out.append(Stat(name, None if not k else (float(k) if name == "rbp" else int(k))))
    return out


def _table(seed: int, n: int = 600) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    u = rng.integers(0, 60, n)
    df = pd.DataFrame({
        "u": u,
        "v": np.where(rng.random(n) < 0.5, "a", "b"),
        "y": rng.integers(0, 4, n) * (rng.random(n) < 0.4),  # graded, many zeros
        "s": rng.integers(0, 4, n) / 4.0,  # few distinct scores: large tie blocks
        "w": rng.integers(1, 5, n) / 2.0,
    })
    # one-class groups (only relevant, only not) and one-row groups
    df.loc[df.u == 0, "y"] = 2
    df.loc[df.u == 1, "y"] = 0
    extra = pd.DataFrame({"u": [1000, 1001, 1002], "v": ["a", "a", "b"], "y": [1, 0, 3], "s": [0.5, 0.5, 0.0],
                          "w": [1.0, 2.0, 0.5]})
    return pd.concat([df, extra], ignore_index=True)


def _compare(got: pd.DataFrame, ref: pd.DataFrame, columns: list[str]) -> None:
    for c in columns:
        a, b = got[c].to_numpy(dtype=float), ref[c].to_numpy(dtype=float)
        assert np.array_equal(np.isnan(a), np.isnan(b)), c
        ok = ~np.isnan(a)
        np.testing.assert_allclose(a[ok], b[ok], rtol=0, atol=1e-12, err_msg=c)


def _run(backend: str, df: pd.DataFrame, group: list[str], metrics: list[str], **kw) -> pd.DataFrame:
    r = runner(backend)
    stats = _stats(metrics)
    opts = {k: kw.pop(k) for k in ("empty", "denominator") if k in kw}
    if "ties" in kw:
        opts["ties"] = kw["ties"]
    expr = group_stats(r.table(df), group=group, label="y", score="s", stats=stats, **kw)
    table = r.execute(expr).set_index(group).sort_index()
    assert len(table) == df.groupby(group).ngroups
    return group_values(table, stats, weighted=kw.get("sample_weight") is not None, **opts)


def _reference(df: pd.DataFrame, group: list[str], metrics: list[str], **kw) -> pd.DataFrame:
    ref = pd.DataFrame(pre.per_group(df, group=group, label="y", score="s", metrics=metrics, **kw))
    return ref.sort_index()


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_metric_equals_pandas(backend: str) -> None:
    df = _table(1)
    got = _run(backend, df, ["u"], METRICS)
    ref = _reference(df, ["u"], METRICS)
    _compare(got, ref, [c for c in got.columns])
    # the table is tie-heavy: the tie rule is exercised, not bypassed
    assert df.duplicated(["u", "s"]).mean() > 0.5


@pytest.mark.parametrize("backend", ["sqlite", "postgres", "clickhouse"])
def test_two_keys_threshold_weights_linear_gain(backend: str) -> None:
    df = _table(2)
    metrics = ["gauc", "mrr@2", "ndcg@4", "map", "precision@2", "hit_rate@2"]
    got = _run(backend, df, ["u", "v"], metrics, relevance=(">=", 2), gain="linear", graded_gain=False)
    ref = _reference(df, ["u", "v"], metrics, threshold=2, gain="linear")
    _compare(got, ref, list(got.columns))
    got = _run(backend, df, ["u", "v"], ["gauc"], sample_weight="w")
    ref = _reference(df, ["u", "v"], ["gauc"], sample_weight="w")
    _compare(got, ref, ["auc"])


@pytest.mark.parametrize(("ties", "backend"), [("pessimistic", "duckdb"), ("optimistic", "clickhouse")])
def test_tie_rules_and_tiebreak(ties: str, backend: str) -> None:
    """pessimistic / optimistic: inside a tie the rows sorted by label (ascending / descending), as
    pandas sorts them; a tie-break column orders equal scores, the ties left follow ``ties``."""
    df = _table(3)
    df["pos"] = np.random.default_rng(8).integers(0, 3, len(df))  # leaves ties within (score, pos)
    got = _run(backend, df, ["u"], METRICS, ties=ties)
    _compare(got, _reference(df, ["u"], METRICS, ties=ties), list(got.columns))
    got = _run(backend, df, ["u"], METRICS, tiebreak="pos")
    _compare(got, _reference(df, ["u"], METRICS, tiebreak="pos"), list(got.columns))


def test_empty_skip_and_min_k_denominator() -> None:
    df = _table(4)
    metrics = ["mrr", "ndcg@3", "map@3", "recall@3"]
    got = _run("sqlite", df, ["u"], metrics, empty="skip", denominator="min_k")
    _compare(got, _reference(df, ["u"], metrics, empty="skip", denominator="min_k"), list(got.columns))


@pytest.mark.parametrize("backend", ["duckdb", "datafusion"])
def test_score_counts(backend: str) -> None:
    """Rows and summed weights per distinct (score, label): Mann-Whitney from them equals sklearn."""
    df = _table(5)
    r = runner(backend)
    counts = r.execute(score_counts(r.table(df), keys=["s", "y"], sample_weight="w"))
    rel = counts["y"] > 0
    pos = counts[rel].groupby("s")["n"].sum()
    neg = counts[~rel].groupby("s")["n"].sum()
    both = pd.concat([pos.rename("p"), neg.rename("q")], axis=1).fillna(0).sort_index()
    p, q = both["p"].to_numpy(float), both["q"].to_numpy(float)
    u = (p * (np.cumsum(q) - q)).sum() + 0.5 * (p * q).sum()
    from sklearn.metrics import roc_auc_score

    assert u / (p.sum() * q.sum()) == pytest.approx(roc_auc_score(df.y > 0, df.s), abs=1e-12)
    assert counts.loc[rel, "w"].sum() == pytest.approx(df.w[df.y > 0].sum(), abs=1e-9)


ALL = _stats(METRICS)


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino"])
def test_golden_sql_avoids_the_transpiler_traps(dialect: str) -> None:
    """The SQL compiled for BigQuery, Snowflake and Trino: no RANGE frame; every aggregate over an
    ordered window has an explicit ROWS frame (Snowflake's default frame differs); no NULLS
    FIRST/LAST inside a window's ORDER BY on BigQuery (its window ORDER BY refuses them)."""
    import re

    import ibis

    from pandas_rankeval.engines.warehouse.checks import scan_expr
    from pandas_rankeval.summary.plan import make_plan

    t = ibis.table(ibis.schema({"u": "int64", "y": "int64", "s": "float64", "w": "float64"}), name="log")
    exprs = [group_stats(t, group=["u"], label="y", score="s", stats=ALL, sample_weight="w", tiebreak="w"),
             group_stats(t, group=["u"], label="y", score="s", stats=_stats(["logloss", "ece@5"]), relevance=(">=", 1)),
             score_counts(t, keys=["s", "y"], sample_weight="w"),
             # grouped XAUC's cells and inversion count, the IPS gains (a position lookup: one CASE)
             group_stats(t, group=["u"], label="y", score="s", sample_weight="w",
                         stats=_stats(["gxauc", "ips_dcg@3", "ips_precision@2", "ips_hit_rate@1"]),
                         propensity=("lookup", "w", (1.0, 2.0), (0.5, 0.25)))]
    frame = pd.DataFrame({"u": [1], "y": [1], "s": [0.5], "w": [1.0]}).iloc[:0]
    plan = make_plan("report", kind="report", group="u", label="y", scores="s", metrics=["gauc", "logloss"],
                     empty="error", sample_weight="w", df=frame)
    exprs.append(scan_expr(t, plan, frame, relevant=t.y > 0)[0])
    sql = "\n".join(str(ibis.to_sql(e, dialect=dialect)) for e in exprs)
    upper = sql.upper()
    assert "RANGE" not in upper
    windows = re.findall(r"(\w+)\((?:[^()]|\([^()]*\))*\)\s+OVER\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", sql, flags=re.S)
    assert windows, "the query has no window at all"
    ordered_aggregates = exclusive = 0
    for func, spec in windows:
        if func.upper() in ("SUM", "MIN", "MAX", "COUNT") and "ORDER BY" in spec.upper():
            assert "ROWS BETWEEN UNBOUNDED PRECEDING AND" in spec.upper(), spec  # explicit frame
            if "DESC" in spec.upper():  # a cumulative sum over the blocks (XAUC: the cells above), by score
                ordered_aggregates += 1
                exclusive += "AND 1 PRECEDING" in spec.upper()
                assert re.search(r"ROWS BETWEEN UNBOUNDED PRECEDING AND (CURRENT ROW|1 PRECEDING)", spec.upper()), spec
        if dialect == "bigquery":
            assert "NULLS" not in spec.upper(), spec
    assert ordered_aggregates >= 2 and exclusive == 1  # the cumulative sums over blocks; XAUC's over cells
    assert "CROSS JOIN" in upper  # XAUC's cells times the levels of the inversion count
    # pair counts and divisions in DOUBLE: every division has a cast or a float operand
    assert "CAST(" in upper


def _scan_error(backend: str, df: pd.DataFrame, func: str, metrics: list[str], **kw) -> str:
    from pandas_rankeval.engines.warehouse.checks import has_nan, scan_expr, scan_from_row
    from pandas_rankeval.summary.driver import raise_scan_errors
    from pandas_rankeval.summary.plan import make_plan

    r = runner(backend)
    t = r.table(df)
    plan = make_plan(func, kind="report", group="u", label="y", scores="s", metrics=metrics, df=df.iloc[:0], **kw)
    expr, how = scan_expr(t, plan, df.iloc[:0], nan=has_nan(t))
    found = scan_from_row(r.execute(expr).iloc[0], how, plan)
    with pytest.raises(ValueError) as err:
        raise_scan_errors(found, plan)
    return str(err.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_checks_one_query_pandas_messages(backend: str) -> None:
    """One aggregate query answers pandas' bad-input errors, with whole-table counts and the same
    message as the pandas engine."""
    df = _table(6)
    bad = df.copy()
    bad.loc[[3, 10, 11], "s"] = np.nan
    with pytest.raises(ValueError) as ref:
        pre.report(bad, group="u", label="y", scores="s", metrics=["gauc", "ndcg@3"])
    assert _scan_error(backend, bad, "report", ["gauc", "ndcg@3"]) == str(ref.value)
    neg = df.copy()
    neg.loc[[5, 6], "y"] = -1
    with pytest.raises(ValueError) as ref:
        pre.report(neg, group="u", label="y", scores="s", metrics=["ndcg@3"])
    assert _scan_error(backend, neg, "report", ["ndcg@3"]) == str(ref.value)
    w = df.copy()
    w.loc[[1, 2, 4], "w"] = -0.5
    with pytest.raises(ValueError) as ref:
        pre.report(w, group="u", label="y", scores="s", metrics=["gauc"], sample_weight="w")
    assert _scan_error(backend, w, "report", ["gauc"], sample_weight="w") == str(ref.value)
    inf = df.astype({"y": float})
    inf.loc[[7], "y"] = np.inf
    with pytest.raises(ValueError) as ref:
        pre.report(inf.astype({"y": float}), group="u", label="y", scores="s", metrics=["gauc"])
    assert _scan_error(backend, inf.astype({"y": float}), "report", ["gauc"]) == str(ref.value)


@pytest.mark.parametrize("backend", ["duckdb", "postgres", "clickhouse"])
def test_calibration_per_group(backend: str) -> None:
    df = _table(7)
    metrics = ["logloss", "ne", "pcoc", "ece@10", "ece@4", "gauc"]
    got = _run(backend, df, ["u"], metrics, relevance=(">=", 1), sample_weight="w")
    _compare(got, _reference(df, ["u"], metrics, threshold=1, sample_weight="w"), [m for m in metrics if m != "gauc"])
    got = _run(backend, df, ["u"], metrics[:4], relevance=(">=", 1))
    _compare(got, _reference(df, ["u"], metrics[:4], threshold=1), metrics[:4])


def test_column_sums_and_graded_rows() -> None:
    df = _table(9)
    r = runner("postgres")
    expr = group_stats(r.table(df), group=["u"], label="y", score="s", stats=[Stat("gauc")], sums=["w"],
                       graded_rows=True)
    got = r.execute(expr).set_index("u").sort_index()
    np.testing.assert_allclose(got["__rk_s_sum0"], df.groupby("u")["w"].sum(), rtol=0, atol=1e-12)
    graded = (~df.y.isin([0, 1])).groupby(df.u).sum()
    assert got["__rk_s_graded"].tolist() == graded.tolist()
    assert got["__rk_s_n"].tolist() == df.groupby("u").size().tolist()


@pytest.mark.parametrize("backend", ["sqlite", "postgres", "clickhouse"])
def test_checks_count_groups(backend: str) -> None:
    """The scan's distinct keys: groups, groups with a relevant row, (group, segment) pairs; one
    and two key columns."""
    import ibis

    from pandas_rankeval.engines.warehouse.checks import has_nan, scan_expr, scan_from_row
    from pandas_rankeval.summary.plan import make_plan

    df = _table(10)
    df["seg"] = df["u"] % 3
    r = runner(backend)
    t = r.table(df)
    for group in (["u"], ["u", "v"]):
        plan = make_plan("report", kind="report", group=group, label="y", scores="s", metrics=["mrr"], by="seg",
                         empty="error", df=df.iloc[:0])
        expr, how = scan_expr(t, plan, df.iloc[:0], nan=has_nan(t), relevant=t.y > 0)
        found = scan_from_row(r.execute(expr).iloc[0], how, plan)
        assert found.n_groups == df.groupby(group).ngroups
        assert found.n_with_relevant == df[df.y > 0].groupby(group).ngroups
        assert found.n_pairs == df.groupby([*group, "seg"]).ngroups
    assert isinstance(ibis.to_sql(expr, dialect="bigquery"), str)
