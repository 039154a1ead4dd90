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
    assert str(got.value) == str(want.value)


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
