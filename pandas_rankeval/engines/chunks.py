"""A pandas function over chunks of rows, wherever the rows lie: the pass of a function whose
per-chunk results are small and add up (``calibration_by``'s cell sums).

:func:`map_chunks` selects the columns, reads the frame chunk by chunk as pandas frames where it
lies and returns the function's result of every chunk; nothing else travels to the client:

- pandas and polars DataFrames: the frame is one chunk;
- a polars LazyFrame: streaming batches (``collect_batches``), one in memory at a time;
- a DuckDB relation and an Ibis table (on its connection): Arrow record batches, one at a time;
- Dask: the function of every partition, computed on the workers (``to_delayed``);
- Spark: ``mapInPandas`` on the executors, each batch's result pickled into one binary row.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Iterator
from functools import partial
from typing import Any

import pandas as pd

from . import frame_kind

__all__ = ["CHUNK_ROWS", "map_chunks"]

#: Rows of one chunk read on the client (LazyFrame, DuckDB, Ibis).
CHUNK_ROWS = 1_000_000


def map_chunks(frame: Any, columns: list[Hashable], fn: Callable[[pd.DataFrame], Any],
               chunk_rows: int = CHUNK_ROWS) -> list[Any]:
    """``fn`` of every chunk of the frame's ``columns`` (each a pandas frame with those columns, in
    that order); the results, in no particular order."""
    kind = frame_kind(frame)
    if kind == "pandas":
        return [fn(frame[columns])]
    if kind == "polars":
        return _polars(frame, columns, fn, chunk_rows)
    if kind == "duckdb":
        rel = frame.project(", ".join(_quoted(c) for c in columns))
        return [fn(_arrow_pandas(b, columns)) for b in rel.to_arrow_reader(chunk_rows)]
    if kind == "ibis":
        return [fn(_arrow_pandas(b, columns)) for b in _ibis_batches(frame.select([str(c) for c in columns]), chunk_rows)]
    if kind == "dask":
        import dask

        parts = frame[list(columns)].to_delayed()
        return list(dask.compute(*[dask.delayed(fn)(p) for p in parts]))
    if kind == "pyspark":
        picked = frame.select(*["`" + str(c).replace("`", "``") + "`" for c in columns])  # names, never paths
        blobs = picked.mapInPandas(partial(_pickled, fn=fn), "blob binary")
        return [pickle.loads(row[0]) for row in blobs.collect()]
    raise TypeError(f"map_chunks: no chunked reader for {type(frame).__name__}")  # pragma: no cover


def _quoted(column: Hashable) -> str:
    return '"' + str(column).replace('"', '""') + '"'


def _arrow_pandas(batch: Any, columns: list[Hashable]) -> pd.DataFrame:
    """A record batch as pandas, under the caller's column names."""
    import pyarrow as pa

    return pa.Table.from_batches([batch]).to_pandas().set_axis(list(columns), axis=1)


def _polars(frame: Any, columns: list[Hashable], fn: Callable[[pd.DataFrame], Any], chunk_rows: int) -> list[Any]:
    import polars as pl

    names = (frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema).names()
    picked = frame.select([pl.nth(names.index(str(c))) for c in columns])  # by position: never a pattern
    if not isinstance(picked, pl.LazyFrame):
        return [fn(picked.to_pandas().set_axis(list(columns), axis=1))]
    return [fn(b.to_pandas().set_axis(list(columns), axis=1))
            for b in picked.collect_batches(chunk_size=chunk_rows)]


def _pickled(batches: Iterator[pd.DataFrame], fn: Callable[[pd.DataFrame], Any]) -> Iterator[pd.DataFrame]:
    """Spark's side: each batch's result as one pickled row."""
    for pdf in batches:
        yield pd.DataFrame({"blob": [pickle.dumps(fn(pdf), protocol=pickle.HIGHEST_PROTOCOL)]})


def _ibis_batches(expr: Any, chunk_rows: int) -> Any:
    """The record batches of an Ibis expression from its table's connection. On DuckDB the query
    goes to the connection itself (ibis 12's DuckDB batches call a method duckdb 2 removed)."""
    backend = expr.get_backend()
    if backend.name == "duckdb":
        if hasattr(backend, "_run_pre_execute_hooks"):  # registers the in-memory tables the query reads
            backend._run_pre_execute_hooks(expr)
        return backend.con.sql(str(backend.compile(expr))).to_arrow_reader(chunk_rows)
    return expr.to_pyarrow_batches(chunk_size=chunk_rows)
