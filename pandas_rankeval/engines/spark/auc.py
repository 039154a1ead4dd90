"""Global AUC on Spark: the primitives of the driver's range pass (:mod:`pandas_rankeval.summary.ranges`).

- **count by keys and cut into ranges** (:func:`_auc_counts`): every score column's rows (stacked,
  with the score's index) counted per distinct (score, segment, score key, tie-break, label) by a
  ``groupBy``, range-partitioned by (score, segment, score key, tie-break) so that equal keys
  share a partition, the partition id being the range;
- **map over the ranges** (:func:`map_ranges`): the driver's function on every range partition
  (``mapInPandas``), one small binary row back per partition;
- **placements** (:func:`place_ranges`) and their **join** (:func:`join_placements`): the
  driver's placement of every counted key, computed on the executors from the persisted ranges
  and joined back to the rows on (segment, score key, tie-break, label).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Iterator
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.summary.ranges import RangeColumns

from .frames import Frame, as_pandas_input
from .session import LAST_CALL, _collect, _quiet

__all__ = ["_auc_counts", "join_placements", "map_ranges", "place_ranges"]

#: Spark types of scores ranked as 64-bit integers (every digit kept, as pandas ranks them).
_INT_SCORES = ("ByteType", "ShortType", "IntegerType", "LongType", "BooleanType")


def _score_key(data: Frame, s: Hashable, prefix: str) -> list[Any]:
    """The score as (float part, integer part): one of them varies within a score column, so 64-bit
    integer scores keep every digit (as pandas ranks them) and floats stay floats."""
    F = data.F
    if type(data.types[s]).__name__ in _INT_SCORES:
        return [F.lit(0.0).alias(prefix + "score"), data.col(s).cast("long").alias(prefix + "score_i")]
    return [(data.col(s).cast("double") + F.lit(0.0)).alias(prefix + "score"),
            F.lit(0).cast("long").alias(prefix + "score_i")]


def range_columns(data: Frame, plan: Any, prefix: str) -> RangeColumns:
    o = plan.options
    return RangeColumns(prefix + "sid", prefix + "pid", tuple(data.name[c] for c in plan.by), prefix + "score",
                        data.name[o.tiebreak] if o.tiebreak is not None else None, data.name[plan.label],
                        prefix + "n", prefix + "w" if o.sample_weight is not None else None, prefix + "score_i")


def _auc_counts(data: Frame, plan: Any, *, n_parts: int, placements: bool, prefix: str,
                persisted: list | None = None) -> tuple[RangeColumns, Any]:
    """Every score column's rows counted per distinct key and range-partitioned (persisted with
    ``placements``): the columns and the range table (partition id in ``cols.range``)."""
    F = data.F
    cols = range_columns(data, plan, prefix)
    rows = as_pandas_input(data, (), plan.label).sdf  # labels and keys as a bucket reads them
    other = [c for c in cols.keys if c not in (cols.key, cols.key2)]
    stacked = []
    for i, s in enumerate(plan.scores):
        key = _score_key(data, s, prefix)
        extra = [F.col(data.name[plan.options.sample_weight]).cast("double").alias(cols.w)] if cols.w else []
        stacked.append(rows.select(F.lit(i).alias(cols.sid), *key, *[F.col(c) for c in other], *extra))
    table = reduce(lambda a, b: a.unionByName(b), stacked)
    group = [cols.sid, *cols.keys]
    aggs = [F.count(F.lit(1)).alias(cols.n)] + ([F.sum(cols.w).alias(cols.w)] if cols.w else [])
    distinct = table.groupBy(*group).agg(*aggs)
    order = [F.col(c).asc() for c in [cols.sid, *cols.by, cols.key, cols.key2]]
    if cols.tb is not None:
        order.append(F.col(cols.tb).desc())  # a smaller tie-break value ranks higher
    ranged = distinct.repartitionByRange(n_parts, *order).withColumn(cols.range, F.spark_partition_id())
    if placements:
        ranged = ranged.persist()
        if persisted is not None:
            persisted.append(ranged)
    return cols, ranged


def _part(batches: Iterator[pd.DataFrame]) -> pd.DataFrame | None:
    frames = [b for b in batches if len(b)]
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def map_ranges(ranged: Any, fn: Callable[[pd.DataFrame], Any]) -> list[Any]:
    """``fn`` of every range partition on the executors; the results (one binary row each)."""

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        part = _part(batches)
        if part is not None:
            yield pd.DataFrame({"blob": [pickle.dumps(fn(part), protocol=pickle.HIGHEST_PROTOCOL)]})

    with _quiet():
        rows = _collect(ranged.mapInPandas(run, "blob binary"))
    blobs = [bytes(r["blob"]) for r in rows]
    LAST_CALL["collected_bytes"] = LAST_CALL.get("collected_bytes", 0) + sum(len(b) for b in blobs)
    return [pickle.loads(b) for b in blobs]


def place_ranges(ranged: Any, cols: RangeColumns, fn: Callable[[pd.DataFrame], np.ndarray],
                 names: dict[int, str], prefix: str) -> dict[int, Any]:
    """Per score index, the counted keys with ``fn``'s placements in ``names[sid]`` (lazy: computed
    on the executors from the persisted ranges, by the join)."""
    from pyspark.sql import types as T

    name = prefix + "pl"
    keep = [cols.sid, *cols.keys]
    schema = T.StructType([f for f in ranged.schema.fields if f.name in keep] + [T.StructField(name, T.DoubleType())])
    fields = [f.name for f in schema.fields]

    def place(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        part = _part(batches)
        if part is not None:
            out = part.copy()
            out[name] = fn(part)
            yield out[fields]

    with _quiet():
        table = ranged.mapInPandas(place, schema)
    from pyspark.sql import functions as SF

    return {i: table.filter(SF.col(cols.sid) == i).drop(cols.sid).withColumnRenamed(name, names[i]) for i in names}


def join_placements(rows: Any, data: Frame, cols: RangeColumns, score: Hashable, table: Any, prefix: str) -> Any:
    """The rows (a Spark frame of the bucket's columns) with a placement table joined on (left, on
    its keys; the rows' ``score`` as its order key)."""
    F = data.F
    right = table.select(*[F.col(c).alias(f"{prefix}r_{j}") for j, c in enumerate(cols.keys)], table.columns[-1])
    keyed = rows.select("*", *_score_key(data, score, prefix))
    cond = [keyed[c] == right[f"{prefix}r_{j}"] for j, c in enumerate(cols.keys)]
    joined = keyed.join(right, on=cond, how="left")
    return joined.select(*[joined[c] for c in rows.columns], joined[table.columns[-1]])
