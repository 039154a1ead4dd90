"""A pandas function over chunks of rows, wherever the rows lie: the pass of a function whose
per-chunk results are small and add up (``calibration_by``'s cell sums).

:func:`map_chunks` selects the columns, reads the frame chunk by chunk as pandas frames where it
lies and adds the function's results up with the caller's ``combine``; only results travel:

- pandas and polars DataFrames: the frame is one chunk;
- a polars LazyFrame: streaming batches (``collect_batches``), one in memory at a time;
- a DuckDB relation: Arrow record batches, one at a time;
- Dask: the function of every partition, computed on the workers (``to_delayed``), the results
  added in a tree there;
- Spark: ``mapInPandas`` on the executors, each partition's results added there and pickled into
  one binary row.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Iterator
from functools import partial
from typing import Any

import pandas as pd

from . import frame_kind

__all__ = ["CHUNK_ROWS", "map_chunks"]

#: Rows of one chunk read on the client (LazyFrame, DuckDB). An Ibis table is not read in chunks:
#: its rows stay in the warehouse (the warehouse engine's promise).
CHUNK_ROWS = 1_000_000
#: Dask partitions' results combined by one task of the tree.
_FAN_IN = 8


def map_chunks(frame: Any, columns: list[Hashable], fn: Callable[[pd.DataFrame], Any],
               combine: Callable[[list[Any]], Any], chunk_rows: int | None = None) -> Any:
    """``fn`` of every chunk of the frame's ``columns`` (each a pandas frame with those columns, in
    that order), the results reduced by ``combine`` (a list of results -> one result, associative):
    in a tree on the Dask workers, per partition on the Spark executors then on the driver, as the
    chunks arrive on the client otherwise (a polars LazyFrame, a DuckDB relation). What ``combine``
    keeps is all that is held at once."""
    kind = frame_kind(frame)
    chunk_rows = chunk_rows or CHUNK_ROWS
    if kind == "pandas":
        return combine([fn(frame[columns])])
    if kind == "dask":
        import dask

        parts = [dask.delayed(fn)(p) for p in frame[list(columns)].to_delayed()]
        while len(parts) > 1:  # a tree of additions where the partitions lie
            parts = [dask.delayed(combine)(parts[i : i + _FAN_IN]) for i in range(0, len(parts), _FAN_IN)]
        return combine(list(dask.compute(*parts)))
    if kind == "pyspark":
        picked = frame.select(*["`" + str(c).replace("`", "``") + "`" for c in columns])  # names, never paths
        blobs = picked.mapInPandas(partial(_pickled, fn=fn, combine=combine), "blob binary")
        return combine([pickle.loads(row[0]) for row in blobs.collect()])
    if kind == "polars":
        chunks = _polars(frame, columns, chunk_rows)
    elif kind == "duckdb":
        rel = frame.project(", ".join(_quoted(c) for c in columns))
        chunks = (_arrow_pandas(b, columns) for b in rel.to_arrow_reader(chunk_rows))
    else:  # pragma: no cover - an Ibis table is summed in SQL by the caller (its rows stay in the warehouse)
        raise TypeError(f"map_chunks: no chunked reader for {type(frame).__name__}")
    total = combine([])
    for chunk in chunks:  # one chunk in memory at a time, added as it arrives
        total = combine([total, fn(chunk)])
    return total


def _quoted(column: Hashable) -> str:
    return '"' + str(column).replace('"', '""') + '"'


def _arrow_pandas(batch: Any, columns: list[Hashable]) -> pd.DataFrame:
    """A record batch as pandas, under the caller's column names."""
    import pyarrow as pa

    return pa.Table.from_batches([batch]).to_pandas().set_axis(list(columns), axis=1)


def _polars(frame: Any, columns: list[Hashable], chunk_rows: int) -> Iterator[pd.DataFrame]:
    import polars as pl

    names = (frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema).names()
    picked = frame.select([pl.nth(names.index(str(c))) for c in columns])  # by position: never a pattern
    batches = picked.collect_batches(chunk_size=chunk_rows) if isinstance(picked, pl.LazyFrame) else [picked]
    for b in batches:
        yield b.to_pandas().set_axis(list(columns), axis=1)


def _pickled(batches: Iterator[pd.DataFrame], fn: Callable[[pd.DataFrame], Any],
             combine: Callable[[list[Any]], Any]) -> Iterator[pd.DataFrame]:
    """Spark's side: the partition's batches' results combined, as one pickled row."""
    total = combine([])
    for pdf in batches:
        total = combine([total, fn(pdf)])
    yield pd.DataFrame({"blob": [pickle.dumps(total, protocol=pickle.HIGHEST_PROTOCOL)]})

