"""``nan_policy="omit"`` with ``by=``: each segment's ``rows_dropped`` is its own, on every engine.

The oracle is the rows themselves: a row is dropped when a column of the call is missing, and a
segment's count is ``value_counts`` of the dropped rows' segment values; rows whose segment value
is missing belong to no segment (the table says so once), and a segment whose every row was
dropped is named under the table. The metrics are pandas' on the same rows (unchanged).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.summary.summary import Summary

try:
    from tests._engines import on_engine
except ImportError:
    from _engines import on_engine

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
    pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning"),
]

ENGINES = ["pandas", "polars", "polars-lazy", "dask", "duckdb", "spark", "ibis"]
OPTIONS: dict[str, dict[str, Any]] = {"dask": {"npartitions": 2}, "spark": {"buckets": 3}, "duckdb": {"buckets": 3},
                                      "polars-lazy": {"buckets": 3, "rows_per_bucket": 30}}
COLUMNS = ["g", "y", "s", "seg"]


def _frame() -> pd.DataFrame:
    """40 groups in segments de/fr/us (constant per group) and one group in segment "tv"; missing
    values in the score (de rows), the label (fr rows), the group key (us rows), the segment (two
    whole groups) and every score of segment tv (a segment with no row left)."""
    rng = np.random.default_rng(7)
    sizes = rng.integers(2, 9, 41)
    g = np.repeat(np.arange(41), sizes)
    n = g.shape[0]
    seg = np.array(["de", "fr", "us"], dtype=object)[g % 3]
    seg[g == 40] = "tv"
    df = pd.DataFrame({
        "g": pd.Series("u" + pd.Series(g).astype(str), dtype=object),
        "y": (rng.random(n) < 0.4).astype(np.float64),
        "s": np.round(rng.random(n) * 4) / 4,
        "seg": pd.Series(seg, dtype=object),
    })
    de, fr, us = (np.flatnonzero(seg == k) for k in ("de", "fr", "us"))
    df.loc[de[[1, 4, 9]], "s"] = np.nan
    df.loc[fr[[0, 2]], "y"] = np.nan
    df.loc[us[[3]], "g"] = None
    df.loc[g == 40, "s"] = np.nan  # every row of tv
    df.loc[np.isin(g, [5, 6]), "seg"] = None  # two whole groups with no segment
    df.loc[np.flatnonzero(g == 6)[0], "s"] = np.nan  # a row missing both its score and its segment
    return df


def _oracle(df: pd.DataFrame) -> tuple[dict[str, int], int, int]:
    """Rows dropped per segment (value_counts of the dropped rows' segments), rows dropped with no
    segment, rows dropped in all."""
    dropped = df[df[COLUMNS].isna().any(axis=1)]
    per = dropped["seg"].value_counts(dropna=True)
    return {str(k): int(v) for k, v in per.items()}, int(dropped["seg"].isna().sum()), len(dropped)


def _engine_frame(request: pytest.FixtureRequest, engine: str, df: pd.DataFrame) -> Any:
    # Spark reads the label and the score as doubles (their columns hold missing values)
    return on_engine(engine, df.astype({"y": "float64", "s": "float64"}) if engine == "spark" else df, request)


@pytest.mark.parametrize("engine", ENGINES)
def test_rows_dropped_per_segment_are_the_segments_own(request: pytest.FixtureRequest, engine: str) -> None:
    df = _frame()
    own, no_segment, total = _oracle(df)
    assert own == {"de": 3, "fr": 2, "us": 1, "tv": int((df["g"] == "u40").sum())} and no_segment > 0  # the case
    kw = dict(group="g", label="y", scores="s", metrics=["gauc", "mrr"], by="seg", nan_policy="omit")
    frame = _engine_frame(request, engine, df)
    r = pre.report(frame, **kw, engine_options=OPTIONS.get(engine))
    got = r["rows_dropped"].droplevel("model").to_dict()
    assert got == {k: v for k, v in own.items() if k != "tv"}  # tv has no row left: not in the table
    info = r.attrs["dropped"]
    assert info["total"] == total and info["no_segment"] == no_segment and info["gone"] == [[["tv"], own["tv"]]]
    text = " ".join(r.to_text(footer="full").split())  # the lines unwrapped
    gone = f"{own['tv']} were every row of seg tv, which is not in the table"
    assert f"{total} rows with missing values dropped ({no_segment} with no seg; {gone})" in text
    assert "de: " in text and f"{own['de']} rows with missing values dropped; fr" in text
    # the metrics: pandas' on the kept rows, unchanged
    ref = pre.report(df.dropna(subset=COLUMNS), **{**kw, "nan_policy": "raise"})
    np.testing.assert_allclose(r[["gauc", "mrr"]].to_numpy(dtype=float), ref[["gauc", "mrr"]].to_numpy(dtype=float),
                               rtol=0, atol=1e-12)


def test_overall_row_and_compare_keep_the_whole_table() -> None:
    df = _frame()
    df["s2"] = df["s"].fillna(0.5) + 0.1
    own, no_segment, total = _oracle(df)
    kw = dict(group="g", label="y", metrics=["gauc"], by="seg", nan_policy="omit")
    r = pre.report(df, scores=["s", "s2"], overall=True, **kw)
    # the (all) row is a call without by: every row with a missing value among g, y, s, s2
    whole = int(df[["g", "y", "s", "s2"]].isna().any(axis=1).sum())
    assert r.loc[("(all)", "s"), "rows_dropped"] == whole
    assert r.loc[("de", "s2"), "rows_dropped"] == own["de"]
    c = pre.compare(df, scores=["s", "s2"], **kw)
    assert c.attrs["dropped"]["no_segment"] == no_segment and c.attrs["dropped"]["total"] == total
    assert f"({no_segment} with no seg;" in " ".join(c.to_text().split())


def test_summary_carries_the_counts() -> None:
    """The counts add key by key, survive bytes and pickling and go with the first shard."""
    import pickle

    a = Summary({}, {"s": 3}, 5, 10, (1, 0, 0), dropped_by={("de",): 2, ("fr",): 1})
    b = Summary({}, {"s": 1}, 4, 10, (1, 0, 0), dropped_by={("de",): 1, ("us",): 3})
    assert (a + b).dropped_by == Summary.sum([a, b]).dropped_by == {("de",): 3, ("fr",): 1, ("us",): 3}
    assert Summary.from_bytes(a.to_bytes()).dropped_by == a.dropped_by == pickle.loads(pickle.dumps(a)).dropped_by
    parts = a.split(3)
    assert parts[0].dropped_by == a.dropped_by and all(not p.dropped_by for p in parts[1:])


def test_cli_footer_says_each_segments_own(tmp_path) -> None:
    from pandas_rankeval.cli import main

    df = _frame()
    own, no_segment, _ = _oracle(df)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "out.txt"
    main(["eval", str(path), "--group", "g", "--label", "y", "--score", "s", "--metrics", "gauc", "--by", "seg",
          "--nan-policy", "omit", "--footer", "full", "--output", str(out)])
    text = " ".join(out.read_text().split())
    assert "de: " in text and f"{own['de']} rows with missing values dropped; fr" in text
    assert f"({no_segment} with no seg;" in text


def test_dask_segment_mode_counts_each_segments_own() -> None:
    """Dask's segment mode (by= with clustered DeLong: partitions of whole segments) gives pandas'
    counts and values."""
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    from pandas_rankeval.summary import driver

    df = _frame()
    sub = (df["g"].fillna("u0").str[1:].astype(int) % 4).astype(str)
    df["seg"] = (df["seg"] + sub).where(df["g"] != "u40", "tv")  # 13 segments: segment mode fits
    own, no_segment, total = _oracle(df)
    kw = dict(group="g", label="y", scores="s", metrics=["auc"], by="seg", ci=0.9, nan_policy="omit")
    used = []
    original = driver.segment_pass

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        used.append(out is not None)
        return out

    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}), \
            pytest.MonkeyPatch.context() as mp:
        mp.setattr(driver, "segment_pass", spy)
        r = pre.report(dd.from_pandas(df, npartitions=3, sort=False), **kw, engine_options={"npartitions": 2})
    assert used == [True]
    got = {k: v for k, v in r["rows_dropped"].droplevel("model").to_dict().items() if v}
    assert got == {k: v for k, v in own.items() if k != "tv"}
    assert r.attrs["dropped"] == {"by": ["seg"], "total": total, "no_segment": no_segment,
                                  "gone": [[["tv"], own["tv"]]]}
    ref = pre.report(df, **kw)
    np.testing.assert_allclose(r["auc"].to_numpy(dtype=float), ref["auc"].to_numpy(dtype=float), rtol=0, atol=1e-12)
    assert (r["rows_dropped"] == ref["rows_dropped"]).all()


@pytest.mark.parametrize("engine", ENGINES)
def test_two_by_columns_and_an_integer_segment_with_missing_values(request: pytest.FixtureRequest, engine: str) -> None:
    """by= two columns, one of them integers with missing values: every engine counts pandas'
    rows per (segment, k), and names the segment with no row left as pandas does (``tv 0``)."""
    df = _frame()
    df["k"] = pd.array(df["g"].fillna("u0").str[1:].astype(int) % 2, dtype="Int64")
    df.loc[df["g"] == "u7", "k"] = pd.NA
    dropped = df[df[[*COLUMNS, "k"]].isna().any(axis=1)]
    oracle = dropped.dropna(subset=["seg", "k"]).groupby(["seg", "k"]).size()
    kw = dict(group="g", label="y", scores="s", metrics=["gauc"], by=["seg", "k"], nan_policy="omit")
    r = pre.report(_engine_frame(request, engine, df), **kw, engine_options=OPTIONS.get(engine))
    got = {(a, int(b)): v for (a, b, _), v in r["rows_dropped"].to_dict().items() if v}
    assert got == {k: int(v) for k, v in oracle.items() if k[0] != "tv"}
    info = r.attrs["dropped"]
    assert info["no_segment"] == int(dropped[["seg", "k"]].isna().any(axis=1).sum())
    assert info["gone"] == [[["tv", 0], int(oracle[("tv", 0)])]]
    assert " ".join(r.to_text().split()) == " ".join(pre.report(df, **kw).to_text().split())
