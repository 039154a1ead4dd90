"""Global AUC on Spark: counts per distinct score, range-partitioned, chained on the driver; and the
global DeLong placement of every distinct score, joined back to the rows."""

from __future__ import annotations

import pickle
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .frames import Frame, fresh_name, relevant
from .session import _LAST, _collect, _quiet

#: Spark types of scores ranked as 64-bit integers (every digit kept, as pandas ranks them).
_INT_SCORES = ("ByteType", "ShortType", "IntegerType", "LongType", "BooleanType")



def _runs(batches: Iterator[pd.DataFrame], n_by: int) -> tuple[Any, ...] | None:
    """One range partition's rows, sorted by (model, segment, key), cut into runs of one
    (model, segment): (rows, partition id, segment columns, run starts, run ends, positives,
    negatives); None for an empty partition."""
    frames = [b for b in batches if len(b)]
    if not frames:
        return None
    part = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    pid = int(part["__pid"].iloc[0])
    by = [f"__by{j}" for j in range(n_by)]
    change = np.zeros(len(part), dtype=bool)
    change[0] = True
    for c in ["__sid", *by]:
        v = part[c].to_numpy()
        change[1:] |= v[1:] != v[:-1]
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], len(part))
    return part, pid, by, starts, ends, part["__pos"].to_numpy(), part["__neg"].to_numpy()

def _num(text: str) -> int | float:
    """An exact count sent as text (Python ints of any size; floats with sample weights)."""
    return float(text) if any(c in text for c in ".eEn") else int(text)


def _auc_partition(batches: Iterator[pd.DataFrame], *, n_by: int) -> Iterator[pd.DataFrame]:
    """One range partition of the distinct-key table, sorted ascending (worst first):
    one row per (model, segment) present with its exact local Mann-Whitney counts."""
    from pandas_rankeval.summary.auc_counts import auc_counts_sorted

    runs = _runs(batches, n_by)
    if runs is None:
        return
    part, pid, by, starts, ends, pos, neg = runs
    rows = []
    for a, b in zip(starts, ends):  # one iteration per (model, segment) in this partition
        counts = auc_counts_sorted(pos[a:b], neg[a:b])
        seg = tuple(part[c].iloc[a] for c in by)
        rows.append((pid, int(part["__sid"].iloc[a]), pickle.dumps(_plain(seg)), *(repr(x) for x in counts)))
    yield pd.DataFrame(rows, columns=["pid", "sid", "seg", "pos", "neg", "greater", "tied"])


def _plain(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Segment values as plain Python scalars, as the summaries key their segments."""
    return tuple(v.item() if isinstance(v, np.generic) else v for v in key)



def _auc_counts(
    data: Frame,
    *,
    label: Hashable,
    scores: Sequence[Hashable],
    by: Sequence[Hashable],
    threshold: float | None,
    tiebreak: Hashable | None,
    sample_weight: Hashable | None,
    n_parts: int,
    placements: bool = False,
    persisted: list | None = None,
) -> tuple[dict[tuple[tuple[Any, ...], Hashable], Any], Any]:
    """Exact global-AUC counts per (segment key, score), in one Spark job.

    Every model's (score, relevant) pairs are stacked with the model's index,
    counted per distinct (model, segment, score[, tie-break]) key, range-partitioned
    and sorted by that key; a partition reports its local counts per (model,
    segment) and the driver chains the partitions in order.

    With ``placements``, a second job over the same (persisted) distinct-key table
    gives every key its global DeLong placements (``__a`` for a relevant row, ``__b``
    for a non-relevant one), from the chained offsets; that table is returned for a
    join with the rows (else None).
    """
    from functools import reduce

    from pyspark.sql import types as T

    from pandas_rankeval.summary.auc_counts import chain_auc

    F = data.F
    types = data.types
    rel = relevant(data, label, threshold)
    by_cols = [data.col(b).alias(f"__by{j}") for j, b in enumerate(by)]
    stacked = []
    for i, s in enumerate(scores):
        # the score as (float part, integer part): one of them varies within a model, so
        # 64-bit integer scores keep every digit (as pandas ranks them) and floats stay floats
        if type(types[s]).__name__ in _INT_SCORES:
            value = [F.lit(0.0).alias("__score"), data.col(s).cast("long").alias("__score_i")]
        else:
            value = [data.col(s).cast("double").alias("__score"), F.lit(0).cast("long").alias("__score_i")]
        cols = [F.lit(i).alias("__sid"), *by_cols, *value]
        if tiebreak is not None:
            cols.append(data.col(tiebreak).alias("__tb"))
        cols.append(rel.cast("long").alias("__rel"))
        if sample_weight is not None:
            cols.append(data.col(sample_weight).cast("double").alias("__w"))
        stacked.append(data.sdf.select(*cols))
    table = reduce(lambda a, b: a.unionByName(b), stacked)
    keys = ["__sid", *[f"__by{j}" for j in range(len(by))], "__score", "__score_i"]
    order = [F.col(k).asc() for k in keys]
    if tiebreak is not None:
        keys.append("__tb")
        order.append(F.col("__tb").desc())  # a smaller tie-break value ranks higher
    if sample_weight is None:
        aggs = [F.sum("__rel").alias("__pos"), (F.count(F.lit(1)) - F.sum("__rel")).alias("__neg")]
    else:  # summed sample weights per class (floats, as pandas)
        aggs = [
            F.sum(F.col("__w") * F.col("__rel")).alias("__pos"),
            F.sum(F.col("__w") * (1 - F.col("__rel"))).alias("__neg"),
        ]
    distinct = table.groupBy(*keys).agg(*aggs)
    ranged = distinct.repartitionByRange(n_parts, *order).sortWithinPartitions(*order)
    ranged = ranged.withColumn("__pid", F.spark_partition_id())
    if placements:
        ranged = ranged.persist()
        if persisted is not None:
            persisted.append(ranged)
    schema = T.StructType([
        T.StructField("pid", T.IntegerType()),
        T.StructField("sid", T.IntegerType()),
        T.StructField("seg", T.BinaryType()),
        *[T.StructField(c, T.StringType()) for c in ("pos", "neg", "greater", "tied")],
    ])
    n_by = len(by)

    def fn(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        return _auc_partition(batches, n_by=n_by)

    with _quiet():
        rows = _collect(ranged.mapInPandas(fn, schema))
    _LAST["collected_bytes"] = _LAST.get("collected_bytes", 0) + sum(len(bytes(r["seg"])) + 64 for r in rows)
    parts: dict[tuple[tuple[Any, ...], Hashable], list[tuple[int, Any, Any, Any, Any]]] = {}
    for r in rows:
        key = (pickle.loads(r["seg"]), scores[r["sid"]])
        parts.setdefault(key, []).append((r["pid"], *(_num(r[c]) for c in ("pos", "neg", "greater", "tied"))))
    for chunks in parts.values():
        chunks.sort(key=lambda c: c[0])
    counts = {key: chain_auc([c[1:] for c in chunks]) for key, chunks in parts.items()}
    if not placements:
        return counts, None
    from pandas_rankeval.summary.auc_counts import chain_offsets

    # (partition, model, segment) -> (non-relevant rows before it, relevant rows after it)
    offsets: dict[tuple[int, int, bytes], tuple[int, int]] = {}
    for (seg, score), chunks in parts.items():
        sid = list(scores).index(score)
        for c, off in zip(chunks, chain_offsets([c[1:] for c in chunks])):
            offsets[(c[0], sid, pickle.dumps(seg))] = off
    key_cols = [k for k in keys]
    out_schema = T.StructType(
        [f for f in ranged.schema.fields if f.name in key_cols]
        + [T.StructField("__a", T.DoubleType()), T.StructField("__b", T.DoubleType())]
    )

    def place(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        return _placement_partition(batches, n_by=n_by, offsets=offsets, key_cols=key_cols)

    with _quiet():
        table = ranged.mapInPandas(place, out_schema)
    return counts, table


def _placement_partition(
    batches: Iterator[pd.DataFrame], *, n_by: int, offsets: dict, key_cols: list[str]
) -> Iterator[pd.DataFrame]:
    """Global DeLong placements of every distinct key of one range partition."""
    from pandas_rankeval.summary.auc_counts import placements_sorted

    runs = _runs(batches, n_by)
    if runs is None:
        return
    part, pid, by, starts, ends, pos, neg = runs
    a = np.empty(len(part))
    b = np.empty(len(part))
    for lo, hi in zip(starts, ends):  # one iteration per (model, segment) in this partition
        seg = pickle.dumps(_plain(tuple(part[c].iloc[lo] for c in by)))
        off = offsets[(pid, int(part["__sid"].iloc[lo]), seg)]
        a[lo:hi], b[lo:hi] = placements_sorted(pos[lo:hi], neg[lo:hi], *off)
    out = part[key_cols].copy()
    out["__a"] = a
    out["__b"] = b
    yield out


def _with_placements(data: Frame, table: Any, plan: Any) -> tuple[Frame, list[str]]:
    """Every row with its global DeLong placement for each score (a left join per score on
    (segment, score[, tie-break]); the rows are those without a missing value already)."""
    F = data.F
    types = data.types
    rel = relevant(data, plan.label, plan.options.threshold)
    names = []
    out = data.sdf
    for i, s in enumerate(plan.scores):
        if type(types[s]).__name__ in _INT_SCORES:
            sk = [F.lit(0.0).alias(f"__k{i}_s"), data.col(s).cast("long").alias(f"__k{i}_i")]
        else:
            sk = [data.col(s).cast("double").alias(f"__k{i}_s"), F.lit(0).cast("long").alias(f"__k{i}_i")]
        out = out.select("*", *sk)
        right = table.filter(F.col("__sid") == i).select(
            *[F.col(f"__by{j}").alias(f"__k{i}_by{j}") for j in range(len(plan.by))],
            F.col("__score").alias(f"__k{i}_s2"), F.col("__score_i").alias(f"__k{i}_i2"),
            *([F.col("__tb").alias(f"__k{i}_tb")] if plan.options.tiebreak is not None else []),
            F.col("__a").alias(f"__k{i}_a"), F.col("__b").alias(f"__k{i}_b"),
        )
        cond = [out[f"__k{i}_s"] == right[f"__k{i}_s2"], out[f"__k{i}_i"] == right[f"__k{i}_i2"]]
        cond += [out[data.name[c]] == right[f"__k{i}_by{j}"] for j, c in enumerate(plan.by)]
        if plan.options.tiebreak is not None:
            cond.append(out[data.name[plan.options.tiebreak]] == right[f"__k{i}_tb"])
        joined = out.join(right, on=cond, how="left")
        # inside a bucket the user's columns get their names back: a placement column must not take one
        name = fresh_name(f"__pl_{i}", data.user_columns)
        keep = [c for c in out.columns if not c.startswith(f"__k{i}_")]
        out = joined.select(
            *[joined[c] for c in keep],
            F.when(rel, F.col(f"__k{i}_a")).otherwise(F.col(f"__k{i}_b")).alias(name),
        )
        names.append(name)
    return data.with_sdf(out), names


