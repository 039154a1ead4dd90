"""A pandas frame as each engine's own kind of frame, for the tests that run one call on every
engine: ``pandas``, ``polars``, ``polars-lazy``, ``dask`` (3 partitions, the synchronous
scheduler), ``duckdb`` (a relation of its own connection), ``ibis`` (a memtable) and ``spark``
(the session fixture, started only when asked for)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest


def on_engine(engine: str, df: pd.DataFrame, request: pytest.FixtureRequest) -> Any:
    """``df`` on ``engine``; what the engine opens is closed when the test ends."""
    if engine == "pandas":
        return df
    if engine.startswith("polars"):
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy() if engine == "polars-lazy" else pl.from_pandas(df)
    if engine == "dask":
        import dask
        import dask.dataframe as dd

        ctx = dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"})
        ctx.__enter__()
        request.addfinalizer(lambda: ctx.__exit__(None, None, None))
        return dd.from_pandas(df, npartitions=3, sort=False)
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        request.addfinalizer(con.close)
        return con.from_df(df)
    if engine == "ibis":
        return pytest.importorskip("ibis").memtable(df)
    return request.getfixturevalue("spark").createDataFrame(df)
