"""The DuckDB engine on what only DuckDB brings: Parquet files and DuckDB tables read where they lie,
DuckDB's own types (huge integers, DECIMAL, HUGEINT, FLOAT, -0.0), keys pandas and DuckDB group
alike, errors before any work, and distinct scores cut into many Arrow batches.

The reference is pandas on the same rows as DuckDB hands them to pandas (``rel.df()``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

duckdb = pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")

ATOL = 1e-12


@pytest.fixture
def con():
    c = duckdb.connect()
    yield c
    c.close()


@pytest.fixture(params=[7, 1_000_000], ids=["batches-of-7", "one-batch"])
def batch(request, monkeypatch):
    monkeypatch.setattr("pandas_rankeval.engines.duckdb.sql.BATCH", request.param)
    return request.param


def frame(n_groups: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    y = (rng.random(n) < rng.beta(1, 2, n_groups)[g]).astype(np.int64)
    return pd.DataFrame({
        "g": "ü-" + pd.Series(g * 13 + 1).astype(str),
        "y": y,
        "s": np.round(rng.random(n) * 3) / 3 + 0.3 * y,  # masses of ties
        "t": rng.normal(size=n) + y,
        "seg": np.array(["a", "b"])[g % 2],
    }).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def same(got, want) -> None:
    if isinstance(want, pre.MetricResult):
        assert (math.isnan(got) and math.isnan(want)) or abs(got - want) <= ATOL, (float(got), float(want))
        assert got.coverage == want.coverage
        return
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns) and got.index.equals(want.index)
    for c in want.columns:
        if pd.api.types.is_float_dtype(want[c].dtype):
            np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(), atol=ATOL, rtol=0, err_msg=c)
        else:
            assert (got[c].to_numpy() == want[c].to_numpy()).all(), c


def test_parquet_files_and_a_duckdb_table_read_where_they_lie(tmp_path, con, batch):
    df = frame()
    for i, rows in enumerate(np.array_split(np.arange(len(df)), 3)):
        df.iloc[rows].to_parquet(tmp_path / f"part-{i}.parquet")
    rel = con.sql(f"select * from '{tmp_path}/*.parquet'")
    kw = dict(group="g", label="y", scores=["s", "t"], metrics=["auc", "gauc", "mrr", "ndcg@3"], by="seg",
              ci=0.9, n_boot=30, seed=2)
    want = pre.report(df, **kw)
    same(pre.report(rel, engine_options={"buckets": 4}, **kw), want)
    db = duckdb.connect(str(tmp_path / "log.duckdb"))
    db.execute(f"create table log as select * from '{tmp_path}/*.parquet'")
    same(pre.report(db.table("log"), engine_options={"rows_per_bucket": 50}, **kw), want)
    # the buckets read by several ordered queries over ranges of buckets (bounded sort memory)
    same(pre.report(rel, engine_options={"buckets": 7, "rows_per_query": 40}, **kw), want)
    got = pre.per_group(rel, group="g", label="y", scores=["s"], metrics=["auc", "mrr"],
                        engine_options={"rows_per_bucket": 30, "rows_per_query": 70})
    one = pre.per_group(rel, group="g", label="y", scores=["s"], metrics=["auc", "mrr"], engine_options={"rows_per_bucket": 30})
    pd.testing.assert_frame_equal(got.sort_values("g", ignore_index=True), one.sort_values("g", ignore_index=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        cmp = dict(group="g", label="y", scores=["s", "t"], baseline="s", metrics=["auc", "gauc"], n_boot=30, seed=4)
        same(pre.compare(db.table("log"), engine_options={"buckets": 3}, **cmp), pre.compare(df, **cmp))
    db.close()


SCORES = {
    # integers beyond 2**53 with ties that a float64 would merge and unmerge
    "huge_int": "(9007199254740993 + (i % 5) * 2)::BIGINT",
    "huge_uint": "(18446744073709551000 - (i % 7))::UBIGINT",
    "decimal": "((i % 9) / 4)::DECIMAL(10, 2)",
    "hugeint": "((i % 6) * 1000000000000000000000)::HUGEINT",
    "float32": "((i % 11) / 3)::FLOAT",
    "signed_zero": "CASE WHEN i % 3 = 0 THEN -0.0 WHEN i % 3 = 1 THEN 0.0 ELSE 1.0 END::DOUBLE",
}


@pytest.mark.parametrize("score", list(SCORES))
def test_duckdb_types_as_pandas_reads_them(con, batch, score):
    rel = con.sql(
        f"select (hash(i) % 40)::BIGINT as g, ((hash(i * 7) % 3) = 0)::INTEGER as y, {SCORES[score]} as s "
        "from range(600) t(i)"
    )
    df = rel.df()
    for name, kw in [("auc", {}), ("gauc", {"group": "g"}), ("mrr", {"group": "g", "k": 3})]:
        same(getattr(pre, name)(rel, label="y", score="s", engine_options={"buckets": 3}, **kw),
             getattr(pre, name)(df, label="y", score="s", **kw))
    kw = dict(group="g", label="y", scores="s", metrics=["auc", "gauc"], ci=0.9, n_boot=20)
    same(pre.report(rel, engine_options={"buckets": 2}, **kw), pre.report(df, **kw))


@pytest.mark.parametrize("key", [
    "CASE WHEN i % 4 = 0 THEN -0.0 ELSE (i % 9)::DOUBLE END",  # float keys: -0.0 is 0.0
    "(i % 13)::UTINYINT",
    "['x', 'y', 'é'][1 + i % 3] || (i % 5)::VARCHAR",
])
def test_keys_group_as_in_pandas(con, key):
    rel = con.sql(
        f"select {key} as g, (i % 4)::BIGINT as h, (hash(i) % 3 = 0)::BIGINT as y, (i * 37 % 11)::DOUBLE as s, "
        "(i % 3)::DOUBLE + 0.5 as w from range(300) t(i)"
    )
    df = rel.df()
    for group in ["g", ["g", "h"]]:
        kw = dict(group=group, label="y", score="s")
        same(pre.gauc(rel, engine_options={"buckets": 4}, **kw), pre.gauc(df, **kw))
        same(pre.ndcg(rel, k=3, weight="w", engine_options={"buckets": 4}, **kw), pre.ndcg(df, k=3, weight="w", **kw))
        got = pre.per_group(rel, metrics=["auc", "mrr"], engine_options={"buckets": 4}, **kw)
        want = pd.DataFrame(pre.per_group(df, metrics=["auc", "mrr"], **kw)).sort_index()
        keys = [group] if isinstance(group, str) else group
        got = got.set_index(keys).sort_index()
        assert got.index.equals(want.index)
        for c in ["n", "positives", "auc", "mrr"]:
            np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(np.float64), atol=ATOL, rtol=0)


def test_nulls_omitted_as_pandas_omits_them(con, batch):
    rel = con.sql(
        "select (i % 30) as g, CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 2) END as y, "
        "CASE WHEN i % 11 = 0 THEN 'nan'::DOUBLE WHEN i % 13 = 0 THEN NULL ELSE (i * 7 % 5)::DOUBLE END as s "
        "from range(400) t(i)"
    )
    df = rel.df()
    kw = dict(group="g", label="y", scores="s", metrics=["auc", "gauc", "ndcg@3"], nan_policy="omit",
              ci=0.9, n_boot=20)
    same(pre.report(rel, engine_options={"buckets": 3}, **kw), pre.report(df, **kw))
    with pytest.raises(ValueError) as want:
        pre.gauc(df, group="g", label="y", score="s")
    with pytest.raises(ValueError) as got:
        pre.gauc(rel, group="g", label="y", score="s")
    assert str(got.value) == str(want.value).replace("(NaN/None)", "(NULL or NaN)")  # DuckDB's word


@pytest.mark.parametrize("bad,call", [
    ("-1.0 as w", dict(name="gauc", sample_weight="w")),
    ("'inf'::DOUBLE as w", dict(name="ndcg", weight="w")),
    ("1.0 as w", dict(name="ndcg", label_sql="(i % 3) - 1")),
    ("1.0 as w", dict(name="gauc", label_sql="CASE WHEN i = 5 THEN 'inf'::DOUBLE ELSE (i % 2)::DOUBLE END")),
    ("1.0 as w", dict(name="gauc", score_sql="'s' || i::VARCHAR")),
])
def test_bad_input_raises_pandas_message_before_any_work(con, bad, call):
    call = dict(call)
    name = call.pop("name")
    label = call.pop("label_sql", "i % 2")
    score = call.pop("score_sql", "(i % 7)::DOUBLE")
    rel = con.sql(f"select i % 10 as g, {label} as y, {score} as s, "
                  f"CASE WHEN i % 4 = 0 THEN {bad.split(' as ')[0]} ELSE 1.0 END as w from range(100) t(i)")
    df = rel.df()
    with pytest.raises((ValueError, TypeError)) as want:
        getattr(pre, name)(df, group="g", label="y", score="s", **call)
    with pytest.raises(type(want.value)) as got:
        getattr(pre, name)(rel, group="g", label="y", score="s", **call)
    # pandas' message; a conversion fix is written in DuckDB's SQL for a relation
    sql_fix = """rel.select('* REPLACE (CAST("s" AS DOUBLE) AS "s")')"""
    assert str(got.value) == str(want.value).replace("pd.to_numeric(df['s'])", sql_fix)


def test_options_that_need_every_row_are_refused_by_name(con):
    rel = con.sql("select i % 10 as g, i % 2 as y, (i % 7)::DOUBLE as s from range(100) t(i)")
    with pytest.raises(ValueError, match="auc on a DuckDB frame: max_fpr"):
        pre.auc(rel, label="y", score="s", max_fpr=0.5)
    with pytest.raises(ValueError, match="resample='multinomial'"):
        pre.report(rel, group="g", label="y", scores="s", metrics=["gauc"], ci=0.9, resample="multinomial")
    with pytest.raises(ValueError, match="'buckets' engine option of gauc"):
        pre.gauc(rel, group="g", label="y", score="s", engine_options={"buckets": 0})
    with pytest.raises(ValueError, match="'rows_per_query' engine option of gauc"):
        pre.gauc(rel, group="g", label="y", score="s", engine_options={"rows_per_query": 0})


def test_stream_cut_never_splits_a_distinct_key():
    import polars as pl
    import pyarrow as pa

    from pandas_rankeval.engines.duckdb.sql import _chunks

    keys = [1, 1, 1, 2, 3, 3, 3, 3, 4, 5, 5]
    batches = pa.Table.from_pydict({"k": keys, "v": list(range(len(keys)))}).to_batches(max_chunksize=2)
    chunks = list(_chunks(iter(batches), ["k"]))
    assert pl.concat(chunks).get_column("v").to_list() == list(range(len(keys)))
    seen = [set(c.get_column("k").to_list()) for c in chunks]
    assert all(not (a & b) for i, a in enumerate(seen) for b in seen[i + 1:])


# --------------------------------------------------------------------------- #
# DuckDB's names, types and keys
# --------------------------------------------------------------------------- #
def test_enum_tiebreak_that_is_also_the_group_key(con):
    """A Categorical (ENUM) tie-break that is also the group key was read as a
    polars Categorical, whose categories come in the order polars met them (auc 0.9667 where
    pandas, polars and Dask give 0.7). Every ENUM column now arrives in the enum's order, as
    ``rel.df()`` reads it (the hand-worked example: score ties across groups broken by the enum's
    order c < a < b)."""
    # names no other test uses: polars orders a Categorical's categories by when the process first
    # met each string, so the wrong order showed only for strings new to the process
    c, a, b = "c-i41-item4", "a-i41-item4", "b-i41-item4"
    df = pd.DataFrame({"g": pd.Categorical([b, b, a, a, c, c, a], categories=[c, a, b]),
                       "y": [1, 0, 0, 1, 1, 0, 0], "s": [.5, .3, .5, .3, .5, .5, .3]})
    rel = con.from_df(df)
    kw = dict(group="g", label="y", scores="s", tiebreak="g", metrics=["auc", "gauc"])
    # by hand: positives b(.5), a(.3), c(.5); negatives b(.3), a(.5), c(.5), a(.3). Ties at .5 ranked
    # by the enum's order descending (b above a above c), ties at .3 likewise: 7 of 12 pairs
    want = pre.report(df, **kw)
    assert abs(want.loc["s", "auc"] - 7 / 12) <= ATOL
    for options in [{"buckets": 1}, {"buckets": 3}]:
        same(pre.report(rel, engine_options=options, **kw), want)
        same(pre.report(rel, engine_options=options, ci=0.9, n_boot=20, **kw), pre.report(df, ci=0.9, n_boot=20, **kw))
    rng = np.random.default_rng(0)  # more groups and ties (the old reads: 0.4335 where pandas gives 0.4514)
    cats = [f"k{j}-i41-item4" for j in range(4)][::-1]
    df = pd.DataFrame({"g": pd.Categorical(np.array(cats)[rng.integers(0, 4, 40)], categories=cats),
                       "y": rng.integers(0, 2, 40), "s": np.round(rng.random(40) * 2) / 2})
    kw = dict(group="g", label="y", scores="s", tiebreak="g", metrics=["auc"])
    same(pre.report(con.from_df(df), engine_options={"buckets": 2}, **kw), pre.report(df, **kw))
    got = pre.per_group(rel, group="g", label="y", scores="s", metrics=["auc"])
    assert list(got["g"].cat.categories) == [c, a, b]  # as rel.df() reads the ENUM


def test_internal_names_are_free_in_any_case(con):
    """DuckDB resolves names case-insensitively but the engine's own names
    (``__rk_key``, ``__rk_n``) were checked case-sensitively: a tie-break named ``__RK_KEY`` gave
    auc 0.7778 [0.41, 1.0] (pandas 0.5556 [0.5556, 0.5556]); a group named ``__RK_N`` with a weight
    callable a bare KeyError."""
    df = pd.DataFrame({"g": [1, 1, 1, 2, 2, 2], "y": [1, 0, 0, 1, 0, 1], "s": [.5, .5, .1, .3, .3, .2],
                       "__RK_KEY": [3, 1, 2, 1, 2, 3]})
    kw = dict(group="g", label="y", scores="s", metrics=["auc"], tiebreak="__RK_KEY", ci=0.9, n_boot=10)
    want = pre.report(df, **kw)
    assert abs(want.loc["s", "auc"] - 5 / 9) <= ATOL
    same(pre.report(con.from_df(df), **kw), want)
    d2 = df.rename(columns={"g": "__RK_N", "__RK_KEY": "__Rk_W"})
    gw = dict(group="__RK_N", label="y", score="s", weight=lambda t: t["n"] * 1.0)
    same(pre.gauc(con.from_df(d2), engine_options={"buckets": 2}, **gw), pre.gauc(d2, **gw))
    same(pre.auc(con.from_df(d2), label="y", score="s", sample_weight="__Rk_W"), pre.auc(d2, label="y", score="s", sample_weight="__Rk_W"))


@pytest.mark.parametrize("sql,column", [
    ("select g, y, s, s + 1 as s from t", "s"),  # SELECT a, a
    ("select * from t a join t b using (g)", "y"),  # join ... using: y and s twice
    ("select g, y, s, s * 2 as S from t", "s"),  # names that differ in case: one name for DuckDB
])
def test_a_name_two_columns_share_is_refused_as_pandas_does(con, sql, column):
    """A relation with two columns of one name (``SELECT a, a``, a ``join ...
    using``; in DuckDB ``s`` and ``S`` too) silently used the first; pandas and Spark refuse. The
    error is pandas' (the same function writes it), with a fix in DuckDB's SQL that runs."""
    df = frame(8)
    con.register("t", df)
    rel = con.sql(sql)
    with pytest.raises(ValueError) as want:
        pre.auc(pd.concat([df[[column]], df[[column]]], axis=1).assign(y=df["y"], s=df["s"]) if column == "s"
                else pd.concat([df[["y"]], df[["y"]]], axis=1).assign(s=df["s"]), label="y", score="s")
    with pytest.raises(ValueError) as got:
        pre.auc(rel, label="y", score="s")
    message = str(got.value)
    assert message.startswith(str(want.value).split(" Rename")[0][: len(f"Column {column!r} appears 2 times in the frame")])
    assert "so it does not name one column. Rename or drop the duplicates first" in message
    fix = message.split("for example ")[1].rstrip(".")
    fixed = eval(fix, {"rel": rel})  # the fix runs, and then the call does
    assert len({c.lower() for c in fixed.columns}) == len(fixed.columns)
    same(pre.auc(fixed, label="y", score="s"), pre.auc(fixed.df(), label="y", score="s"))


@pytest.mark.parametrize("kind", ["HUGEINT", "DECIMAL(38, 0)", "UHUGEINT"])
def test_wide_keys_that_would_merge_are_refused_with_their_count(con, kind):
    """Group keys above 2**53 as DECIMAL or HUGEINT become DOUBLE, as pandas reads
    them, and distinct ids merged silently (hashed ids are the natural victims). The one scan
    counts the keys that would merge and refuses with that count and a cast that keeps them apart;
    keys that stay apart as float64 evaluate as before."""
    ids = [2**60 + 2 * i for i in range(5)] + [2**61, 17]  # 2**60 + 2i: one float64 for all five
    n_merged = len(set(ids)) - len({float(i) for i in ids})
    assert n_merged == 4
    rows = ", ".join(f"({v}, {i % 2}, {(i * 7 % 5) / 4})" for i, v in enumerate(ids * 3))
    rel = con.sql(f"select g::{kind} as g, y, s::DOUBLE as s, (g % 3)::{kind} as seg from (values {rows}) t(g, y, s)")
    with pytest.raises(ValueError, match=rf"Column 'g' \(group key\) has 7 distinct values, but 3 as float64 .* so "
                                         rf"{n_merged} keys would merge with others\. Cast it to an exact type"):
        pre.gauc(rel, group="g", label="y", score="s")
    with pytest.raises(ValueError, match="would merge"):
        pre.report(rel, group="g", label="y", scores="s", metrics=["auc"], by="seg")
    fix = 'rel.select(\'* REPLACE (CAST("g" AS VARCHAR) AS "g")\')'
    fixed = eval(fix, {"rel": rel})
    exact = pd.DataFrame({"g": [str(v) for v in ids * 3], "y": [i % 2 for i in range(21)],
                          "s": [(i * 7 % 5) / 4 for i in range(21)]})
    same(pre.gauc(fixed, group="g", label="y", score="s", engine_options={"buckets": 3}),
         pre.gauc(exact, group="g", label="y", score="s"))
    low = rel.select(f"* REPLACE ((g % 1000)::{kind} AS g)")  # keys that float64 keeps apart: as before
    want = exact.assign(g=[float(v % 1000) for v in ids * 3])  # as pandas reads them: float64
    same(pre.gauc(low, group="g", label="y", score="s", engine_options={"buckets": 2}),
         pre.gauc(want, group="g", label="y", score="s"))


def test_unused_columns_of_any_type_are_never_read(con):
    """A relation with an unused INTERVAL or UNION column made polars panic
    (``PanicException``, a BaseException that ``except Exception`` misses). Only the columns a
    call names are read; a named one polars cannot read is refused by name."""
    rel = con.sql("select i % 7 as g, (hash(i) % 3 = 0)::INT as y, (i * 13 % 10)::DOUBLE as s, "
                  "INTERVAL 1 DAY * i as iv, union_value(k := i) as u, {'a': INTERVAL 2 DAY} as st, "
                  "[INTERVAL 3 DAY] as li from range(200) t(i)")
    df = rel.select("g, y, s").df()
    kw = dict(group="g", label="y", scores="s", metrics=["auc", "gauc", "mrr"], ci=0.9, n_boot=10)
    same(pre.report(rel, engine_options={"buckets": 3}, **kw), pre.report(df, **kw))
    pg = dict(group="g", label="y", score="s", metrics=["auc"])
    got = pre.per_group(rel, **pg).sort_values("g")["auc"].to_numpy()
    np.testing.assert_allclose(got, pd.DataFrame(pre.per_group(df, **pg)).sort_index()["auc"].to_numpy(), atol=ATOL, rtol=0)
    with pytest.raises(TypeError, match=r"Column 'iv' has DuckDB type INTERVAL, which the DuckDB engine cannot read.*CAST\(\"iv\" AS VARCHAR\)"):
        pre.gauc(rel, group="iv", label="y", score="s")


def test_date_keys_come_back_as_rel_df_reads_them(con):
    """``per_group`` gave DATE keys as ``datetime64[ms]`` where ``rel.df()`` gives
    ``datetime64[us]``; a DATE segment likewise."""
    rel = con.sql("select DATE '2024-02-27' + (i % 4)::INT as d, (i % 5) as g, (hash(i) % 3 = 0)::INT as y, "
                  "(i * 7 % 5)::DOUBLE as s from range(120) t(i)")
    df = rel.df()
    got = pre.per_group(rel, group="d", label="y", scores="s", metrics=["auc"])
    assert got["d"].dtype == df["d"].dtype
    want = pd.DataFrame(pre.per_group(df, group="d", label="y", scores="s", metrics=["auc"])).reset_index()
    pd.testing.assert_series_equal(got.sort_values("d", ignore_index=True)["d"], want["d"])
    kw = dict(group="g", label="y", scores="s", metrics=["gauc"], by="d")
    w = pre.report(df.assign(g=df["g"] * 10 + df["d"].dt.day), **kw)
    r = pre.report(rel.select("* REPLACE (g * 10 + day(d) AS g)"), **kw)
    assert r.index.equals(w.index) and r.index.get_level_values("d").dtype == df["d"].dtype
