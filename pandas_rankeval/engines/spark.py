"""The same metrics on a Spark DataFrame, exact, without a Python call per group.

A thin adapter on the summary layer (``pandas_rankeval._summary``): Spark only
decides how whole groups reach one Python call and how the summaries add up; every
number comes from the same engine as :func:`pandas_rankeval.report`.

How a call runs
---------------
1. **Before any job**: column names, dtypes (from ``sdf.schema``) and every option
   are checked and give the pandas errors; an option with no exact distributed
   form (``max_fpr``, ``engine="sklearn"``) is refused by name.
2. **One aggregation** counts the rows, the missing values (Spark has both nulls
   and NaN: both count) of every column the call reads, infinite labels, negative
   labels (NDCG) and bad weights. Bad input raises the pandas error with
   whole-table counts here; ``nan_policy="omit"`` counts the rows it drops.
3. **Group metrics**: each row gets a bucket, ``pmod(xxhash64(group keys),
   buckets)``, so a bucket holds whole groups; ``groupBy(bucket).applyInPandas``
   runs the vectorized engine once per bucket and returns ONE row per bucket, its
   summary as bytes. The driver adds the summaries up. No per-group row ever
   reaches the driver, so driver memory does not grow with the number of groups.
4. **Global AUC**: (positives, negatives) are counted per distinct score (per
   model, per segment with ``by=``), the distinct scores are range-partitioned
   and sorted, each partition returns its exact Mann-Whitney counts in one row,
   and the driver chains them in score order with Python integers (no overflow
   at any size). Equal scores collapse into one key, so ties never skew a
   partition and never straddle two.
5. **Interval / test of global AUC** (``report(ci=...)`` or ``compare`` with
   ``"auc"``; clustered DeLong, ``ties="expected"``): two more passes. A second
   job over the persisted distinct-key table gives every key its global
   placement (from the chained offsets), and a left join per model gives every
   row its placement, so the bucket job also adds the per-segment DeLong moment
   matrices. The bootstrap interval of global AUC (``auc_method="bootstrap"``
   or another tie rule) has no distributed form here and is refused by name.

Bucket size
-----------
A bucket is one pandas DataFrame in one Python worker, so it must fit an
executor's Python memory: about 100 to 200 bytes per row while the engine runs
(the columns read, the sort and the per-group arrays). ``buckets =
max(ceil(rows / rows_per_bucket), parallelism)`` with ``rows_per_bucket`` one
million by default (some 100 to 200 MB per bucket); lower it for small executors,
or pass ``buckets=`` yourself. One group is never split, so the largest group
must fit too. The global-AUC sort uses the same number of range partitions.

Python workers
--------------
Spark starts its Python workers with ``PYSPARK_PYTHON`` (or the
``spark.pyspark.python`` setting), else with ``python3`` from the PATH: that
interpreter must have pandas_rankeval installed, at the driver's Python version.
:func:`local_session` sets it to the running interpreter. When a worker cannot
import the package, the error says so and names the fix.

Versions tested: pyspark 4.3.0 (classic ``local[2]`` sessions and Spark Connect
sessions) with pandas 3.1, numpy 2.4, pyarrow 26, OpenJDK 17. pyspark 4.3 warns
that it does not yet fully support pandas >= 3; these functions silence that one
warning while they run, since the suite passes on pandas 3.1.

Requires the optional ``spark`` extra (``pip install 'pandas_rankeval[spark]'``).
"""

from __future__ import annotations

import dataclasses
import math
import pickle
import sys
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from pandas_rankeval.core.registry import parse_metrics
from pandas_rankeval.core.validation import check_column_name, check_min_count
from pandas_rankeval.engines.spark_frame import (  # noqa: F401 - _fn, _meta: used by the tests
    Frame,
    Scan,
    _collect,
    _fn,
    _meta,
    _quiet,
    _require_spark,
    as_pandas_input,
    checked_frame,
    drop_missing,
    fresh_name,
    relevant,
    scan,
    weight_columns,
    with_bucket,
)

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession
else:
    SparkDataFrame = Any
    SparkSession = Any

__all__ = [
    "auc",
    "average_precision",
    "compare",
    "gauc",
    "hit_rate",
    "local_session",
    "mrr",
    "ndcg",
    "per_group",
    "precision",
    "recall",
    "report",
]

#: Default target rows of one bucket (and of one range partition of the AUC sort).
ROWS_PER_BUCKET = 1_000_000

_BUCKET = "__pre_bucket"
#: What the last call did (buckets, bytes collected to the driver): for benchmarks and tests.
_LAST: dict[str, int] = {}


# --------------------------------------------------------------------------- #
# Spark plumbing
# --------------------------------------------------------------------------- #
def local_session(master: str = "local[2]", **conf: Any) -> SparkSession:
    """A quiet local SparkSession whose Python workers run this interpreter.

    Spark starts Python workers with ``python3`` from the PATH unless told
    otherwise; outside an activated virtualenv that interpreter lacks
    pandas_rankeval. This sets ``spark.pyspark.python`` (and ``PYSPARK_PYTHON``)
    to :data:`sys.executable`, turns the UI off, keeps the log at ERROR and uses a
    small ``spark.sql.shuffle.partitions``. An active session is returned as it is.

    Parameters
    ----------
    master : str, default="local[2]"
        The Spark master.
    **conf :
        Extra settings, with dots written as double underscores or passed as a
        dict: ``local_session(**{"spark.sql.shuffle.partitions": "8"})``.

    Returns
    -------
    spark : SparkSession

    Examples
    --------
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> spark.sparkContext.pythonExec == __import__("sys").executable
    True
    """
    import os

    _require_spark()
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
    }
    settings.update({k.replace("__", "."): str(v) for k, v in conf.items()})
    builder = SparkSession.builder.master(master).appName("pandas_rankeval")
    for k, v in settings.items():
        builder = builder.config(k, v)
    with _quiet():
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _is_spark_frame(sdf: Any) -> bool:
    mod = type(sdf).__module__
    return mod.startswith("pyspark.sql") and type(sdf).__name__ == "DataFrame"


def _check_frame(sdf: Any, func: str) -> None:
    _require_spark()
    if not _is_spark_frame(sdf):
        raise TypeError(
            f"{func} expects a pyspark.sql.DataFrame as its first argument; got "
            f"{type(sdf).__name__}. For a pandas DataFrame use pandas_rankeval.{func.split('.')[-1]}."
        )


def _parallelism(spark: Any) -> int:
    """Task slots of the session (classic), else the shuffle partitions (Spark Connect)."""
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:  # Spark Connect has no SparkContext
        try:
            return max(1, min(int(spark.conf.get("spark.sql.shuffle.partitions")), 64))
        except Exception:  # pragma: no cover - a session without the setting
            return 2


def _n_buckets(sdf: Any, n_rows: int, rows_per_bucket: int, buckets: int | None) -> int:
    if buckets is not None:
        return buckets
    return max(math.ceil(n_rows / rows_per_bucket), _parallelism(sdf.sparkSession))


def _check_sizing(rows_per_bucket: Any, buckets: Any, func: str) -> tuple[int, int | None]:
    rpb = check_min_count(rows_per_bucket, "rows_per_bucket", func)
    if rpb < 1:
        raise ValueError(
            f"The 'rows_per_bucket' parameter of {func} must be an int in the range [1, inf). "
            f"Got {rows_per_bucket!r} instead."
        )
    if buckets is not None:
        b = check_min_count(buckets, "buckets", func)
        if b < 1:
            raise ValueError(
                f"The 'buckets' parameter of {func} must be an int in the range [1, inf) or None. "
                f"Got {buckets!r} instead."
            )
        return rpb, b
    return rpb, None


# --------------------------------------------------------------------------- #
# per_group: a lazy Spark DataFrame, one pandas call per bucket
# --------------------------------------------------------------------------- #
def _per_group_bucket(pdf: pd.DataFrame, *, group: list[Hashable], kwargs: dict[str, Any], columns: list[str]) -> pd.DataFrame:
    """The pandas per-group table of one bucket (whole groups), keys as columns."""
    from pandas_rankeval.api.metrics import per_group as pandas_per_group

    table = pandas_per_group(pdf.drop(columns=[_BUCKET]), group=group, **kwargs)
    table = table.reset_index()
    table["n"] = table["n"].astype(np.int64)
    table["positives"] = table["positives"].astype(np.int64)
    return table[columns]


def per_group(
    sdf: SparkDataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    score: Hashable,
    metrics: str | Sequence[str] = ("auc",),
    weight: Any = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> SparkDataFrame:
    """:func:`pandas_rankeval.per_group` as a lazy Spark DataFrame.

    Every group's metrics, computed by the pandas engine once per bucket of whole
    groups (``groupBy(bucket).applyInPandas``). The call itself runs one small
    aggregation (rows and missing values, so that bad input raises the pandas
    error with whole-table counts); the per-group work runs when the result is
    used (``write``, ``join``, ``collect``...).

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per shown item.
    group, label, score, metrics, weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in :func:`pandas_rankeval.per_group`. A weight callable runs per bucket,
        so it must compute each group's weight from that group's own statistics.
    rows_per_bucket : int, default=1_000_000
        Target rows of one bucket (see the module notes on sizing).
    buckets : int, optional
        The number of buckets, instead of ``rows / rows_per_bucket``.

    Returns
    -------
    table : pyspark.sql.DataFrame
        The group key column(s), then ``n``, ``positives``, one column per metric
        and ``weight``, one row per group, unordered.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> df = pre.datasets.make_impressions(n_users=50, seed=3)
    >>> sdf = spark.createDataFrame(df[["user_id", "click", "model_a"]])
    >>> table = prs.per_group(sdf, group="user_id", label="click", score="model_a",
    ...                       metrics=["auc", "ndcg@10"])
    >>> table.columns
    ['user_id', 'n', 'positives', 'auc', 'ndcg@10', 'weight']
    >>> local = pre.per_group(df, group="user_id", label="click", score="model_a",
    ...                       metrics=["auc", "ndcg@10"])
    >>> got = table.toPandas().set_index("user_id").sort_index()
    >>> bool(((got["ndcg@10"] - local["ndcg@10"]).abs() < 1e-12).all())
    True
    """
    from pyspark.sql import types as T

    from pandas_rankeval.core.registry import MetricSpec
    from pandas_rankeval.summary.plan import make_plan

    func = "spark.per_group"
    _check_frame(sdf, func)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    specs = [MetricSpec("gauc", None) if s.kind == "auc" else s for s in parse_metrics(names)]
    check_column_name(score, "score", func)
    rows_per_bucket, buckets = _check_sizing(rows_per_bucket, buckets, func)
    plan = make_plan(
        func, kind="report", group=group, label=label, scores=score, metrics=[sp.name for sp in specs],
        weight=weight, min_size=min_size, min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak,
        threshold=threshold, gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
    )
    gcols = plan.group
    fr = checked_frame(sdf, plan)
    found = scan(
        fr, func=func, columns=plan.columns, label=label, nan_policy=nan_policy,
        graded=any(s.info.graded for s in specs), weights=weight_columns(plan),
    )
    fr = as_pandas_input(drop_missing(fr, found), (), label)
    data = with_bucket(fr, gcols, _n_buckets(sdf, found.n_rows, rows_per_bucket, buckets), _BUCKET)

    display = list(dict.fromkeys("auc" if s.kind == "gauc" else s.name for s in specs))  # as pandas: once each
    fields = [T.StructField(str(c), fr.types[c], True) for c in gcols]
    fields += [T.StructField("n", T.LongType(), False), T.StructField("positives", T.LongType(), False)]
    fields += [T.StructField(name, T.DoubleType(), True) for name in display]
    fields.append(T.StructField("weight", T.DoubleType(), True))
    schema = T.StructType(fields)
    kwargs = dict(
        label=label, score=score, metrics=names, weight=weight, min_size=min_size,
        min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold,
        gain=gain, denominator=denominator, empty=empty, nan_policy="raise",
    )
    out_cols = [f.name for f in fields]

    back = fr.back  # plain data for the workers (the Frame holds the session)

    def fn(pdf: pd.DataFrame) -> pd.DataFrame:
        return _per_group_bucket(pdf.rename(columns=back), group=gcols, kwargs=kwargs, columns=out_cols)

    with _quiet():
        return data.groupBy(_BUCKET).applyInPandas(fn, schema)


# --------------------------------------------------------------------------- #
# Global AUC: counts per distinct score, range-partitioned, chained on the driver
# --------------------------------------------------------------------------- #
def _num(text: str) -> int | float:
    """An exact count sent as text (Python ints of any size; floats with sample weights)."""
    return float(text) if any(c in text for c in ".eEn") else int(text)


def _auc_partition(batches: Iterator[pd.DataFrame], *, n_by: int) -> Iterator[pd.DataFrame]:
    """One range partition of the distinct-key table, sorted ascending (worst first):
    one row per (model, segment) present with its exact local Mann-Whitney counts."""
    from pandas_rankeval.summary.auc_counts import auc_counts_sorted

    frames = [b for b in batches if len(b)]
    if not frames:
        return
    part = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    pid = int(part["__pid"].iloc[0])
    by = [f"__by{j}" for j in range(n_by)]
    keys = part[["__sid", *by]]
    # rows are sorted by (model, segment, key): runs of one (model, segment)
    change = np.zeros(len(part), dtype=bool)
    change[0] = True
    for c in keys.columns:
        v = keys[c].to_numpy()
        change[1:] |= v[1:] != v[:-1]
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], len(part))
    pos = part["__pos"].to_numpy()
    neg = part["__neg"].to_numpy()
    rows = []
    for a, b in zip(starts, ends):  # one iteration per (model, segment) in this partition
        counts = auc_counts_sorted(pos[a:b], neg[a:b])
        seg = tuple(keys[c].iloc[a] for c in by)
        rows.append((pid, int(keys["__sid"].iloc[a]), pickle.dumps(_plain(seg)), *(repr(x) for x in counts)))
    yield pd.DataFrame(rows, columns=["pid", "sid", "seg", "pos", "neg", "greater", "tied"])


def _plain(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Segment values as plain Python scalars, as the summaries key their segments."""
    return tuple(v.item() if isinstance(v, np.generic) else v for v in key)


#: Spark types of scores ranked as 64-bit integers (every digit kept, as pandas ranks them).
_INT_SCORES = ("ByteType", "ShortType", "IntegerType", "LongType", "BooleanType")


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

    frames = [b for b in batches if len(b)]
    if not frames:
        return
    part = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    pid = int(part["__pid"].iloc[0])
    by = [f"__by{j}" for j in range(n_by)]
    keys = part[["__sid", *by]]
    change = np.zeros(len(part), dtype=bool)
    change[0] = True
    for c in keys.columns:
        v = keys[c].to_numpy()
        change[1:] |= v[1:] != v[:-1]
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], len(part))
    pos = part["__pos"].to_numpy()
    neg = part["__neg"].to_numpy()
    a = np.empty(len(part))
    b = np.empty(len(part))
    for lo, hi in zip(starts, ends):  # one iteration per (model, segment) in this partition
        seg = pickle.dumps(_plain(tuple(keys[c].iloc[lo] for c in by)))
        off = offsets[(pid, int(keys["__sid"].iloc[lo]), seg)]
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


# --------------------------------------------------------------------------- #
# The adapter: whole groups per bucket -> one summary per bucket -> finalize
# --------------------------------------------------------------------------- #
def _bucket_summary(pdf: pd.DataFrame, plan: Any, names: dict[str, Hashable]) -> pd.DataFrame:
    """One bucket's summary; ``names`` gives the columns their user's names back."""
    from pandas_rankeval.summary.partition import summarize

    summary = summarize(pdf.drop(columns=[_BUCKET]).rename(columns=names), plan)
    return pd.DataFrame({"summary": [summary.to_bytes()]})


def _summaries(data: Frame, plan: Any, n_buckets: int) -> Any:
    """Every bucket's summary (one binary row per bucket), added on the driver."""
    from pandas_rankeval.summary.summary import Summary, empty_summary

    d = with_bucket(as_pandas_input(data, list(plan.placement_columns), plan.label), plan.group, n_buckets, _BUCKET)

    names = data.back  # plain data for the workers (the Frame holds the session)

    def fn(pdf: pd.DataFrame) -> pd.DataFrame:
        return _bucket_summary(pdf, plan, names)

    with _quiet():
        rows = _collect(d.groupBy(_BUCKET).applyInPandas(fn, "summary binary"))
    total = empty_summary(plan)
    for r in rows:
        b = bytes(r["summary"])
        _LAST["collected_bytes"] = _LAST.get("collected_bytes", 0) + len(b)
        total = total + Summary.from_bytes(b)
    return total


def _summary_of_counts(plan: Any, scan: Scan, auc: dict) -> Any:
    """The summary of a call without groups (global AUC alone): rows and relevant rows
    from the scan, summed sample weights from the AUC counts (no pass over the rows)."""
    from pandas_rankeval.summary.partition import summary_of_counts

    counts = auc[((), plan.scores[0])]
    weighted = plan.options.sample_weight is not None
    return summary_of_counts(
        plan, n_rows=scan.n_rows, n_pos=scan.n_pos, missing={c: n for c, n in scan.missing.items() if n},
        n_dropped=scan.n_dropped,
        sw_pos=float(counts.pos) if weighted else None, sw_neg=float(counts.neg) if weighted else None,
    )


def _check_resample(resample: Any, func: str) -> str:
    """The hashed Poisson bootstrap (pandas' default) is the one with a distributed form."""
    from pandas_rankeval.summary.plan import resolve_resample

    resample = resolve_resample(resample, "percentile", func)
    if resample != "poisson":
        raise ValueError(
            f"{func}: resample={resample!r} draws groups from the whole table at once and has no "
            "distributed form; Spark uses the hashed Poisson bootstrap (resample='poisson', the "
            "default), which gives the same interval as pandas and Dask for the same seed."
        )
    return resample


def _refuse(plan: Any) -> None:
    """Options with no exact distributed form here: named, before any job."""
    f = plan.func
    if plan.has_auc and plan.options.max_fpr is not None:
        raise ValueError(
            f"{f}: max_fpr (sklearn's partial AUC over all rows) has no exact distributed form "
            "in pandas_rankeval.spark. Leave max_fpr=None, or compute it with pandas on the collected rows."
        )
    if plan.has_auc and (plan.ci is not None or plan.kind == "compare") and not plan.auc_delong:
        raise ValueError(
            f"{f}: a bootstrap interval or test of global AUC ('auc' with "
            f"{'ci=' if plan.kind == 'report' else 'compare'} and auc_method={plan.auc_method!r}"
            f"{'' if plan.options.ties == 'expected' else f', ties={plan.options.ties!r}'}) has no "
            "distributed form here: it needs every replicate's counts per distinct score. Use "
            "auc_method='delong' with ties='expected' (the clustered DeLong interval and test), "
            "or leave 'auc' out of metrics."
        )


def _run(
    sdf: Any,
    plan: Any,
    *,
    rows_per_bucket: int,
    buckets: int | None,
) -> Any:
    """Check the schema, scan once, summarize the buckets, count global AUC, finalize."""
    _refuse(plan)
    opts = plan.options
    fr = checked_frame(sdf, plan)  # every check the schema and the options answer, before any job
    _LAST.clear()
    found = scan(
        fr, func=plan.func, columns=plan.columns, label=plan.label, nan_policy=opts.nan_policy,
        graded=any(s.info.graded for s in plan.specs), weights=weight_columns(plan),
        threshold=opts.threshold,
    )
    n_buckets = _n_buckets(sdf, found.n_rows, rows_per_bucket, buckets)
    _LAST["buckets"] = n_buckets
    delong = _needs_placements(plan)
    persisted: list[Any] = []
    try:
        return _compute(drop_missing(fr, found), plan, found, n_buckets, delong, persisted)
    finally:
        for df in persisted:
            df.unpersist()


def _compute(rows: Frame, plan: Any, scan: Scan, n_buckets: int, delong: bool, persisted: list) -> Any:
    """The jobs of a call on its rows (missing values dropped already): global AUC's counts (and
    placements), the buckets' summaries, then the table."""
    from pandas_rankeval.tables import finalize

    opts = plan.options
    auc = None
    if plan.has_auc:
        auc, table = _auc_counts(
            rows, label=plan.label, scores=plan.scores, by=plan.by, threshold=opts.threshold,
            tiebreak=opts.tiebreak, sample_weight=opts.sample_weight, n_parts=n_buckets,
            placements=delong, persisted=persisted,
        )
        if delong:
            rows, names = _with_placements(rows, table, plan)
            plan = dataclasses.replace(plan, placement_columns=tuple(names))
    if plan.group:
        summary = _summaries(rows, plan, n_buckets)
        # the rows with a missing value were dropped before the buckets: the scan counted them
        summary.missing = {c: n for c, n in scan.missing.items() if n}
        summary.n_dropped = scan.n_dropped
    else:
        summary = _summary_of_counts(plan, scan, auc or {})
    return finalize(summary, plan, auc=auc)


def _needs_placements(plan: Any) -> bool:
    """Clustered DeLong for global AUC: every row needs its global placement."""
    return bool(plan.has_auc and plan.auc_delong and (plan.ci is not None or plan.kind == "compare"))


# --------------------------------------------------------------------------- #
# Public functions
# --------------------------------------------------------------------------- #
_SIZING_DOC = """    rows_per_bucket : int, default=1_000_000
        Target rows of one bucket of whole groups, and of one range partition of the
        global-AUC sort (see the module notes on sizing).
    buckets : int, optional
        The number of buckets (and range partitions) instead of
        ``max(ceil(rows / rows_per_bucket), parallelism)``."""


def _doc(text: str) -> str:
    return text.replace("{sizing}", _SIZING_DOC)


def auc(
    sdf: SparkDataFrame,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    max_fpr: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    from pandas_rankeval.summary.plan import make_plan

    func = "spark.auc"
    _check_frame(sdf, func)
    rows_per_bucket, buckets = _check_sizing(rows_per_bucket, buckets, func)
    plan = make_plan(
        func, kind="metric", group=None, label=label, scores=score, metrics=["auc"],
        sample_weight=sample_weight, ties=ties, tiebreak=tiebreak, threshold=threshold,
        max_fpr=max_fpr, nan_policy=nan_policy,
    )
    return _run(sdf, plan, rows_per_bucket=rows_per_bucket, buckets=buckets)


auc.__doc__ = _doc(
    """:func:`pandas_rankeval.auc` (global AUC) of a Spark DataFrame, exact.

    (positives, negatives) are counted per distinct score, the distinct scores are
    range-partitioned and sorted, and the partitions' exact Mann-Whitney counts are
    chained on the driver in Python integers: no overflow, ties exact.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per shown item.
    label, score, sample_weight, ties, tiebreak, threshold, nan_policy :
        As in :func:`pandas_rankeval.auc`.
    max_fpr : None
        Only None: the partial AUC has no exact distributed form here (an error says so).
{sizing}

    Returns
    -------
    auc : MetricResult
        The same float, coverage and warnings as :func:`pandas_rankeval.auc`.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> df = pd.DataFrame({"click": [1, 0, 1, 0], "score": [0.9, 0.8, 0.4, 0.4]})
    >>> prs.auc(spark.createDataFrame(df), label="click", score="score")
    0.625
    """
)


def gauc(
    sdf: SparkDataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    score: Hashable,
    weight: Any = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    sample_weight: Hashable | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    engine: Literal["numpy", "sklearn"] = "numpy",
    max_fpr: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
    rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    from pandas_rankeval.summary.plan import make_plan

    func = "spark.gauc"
    _check_frame(sdf, func)
    rows_per_bucket, buckets = _check_sizing(rows_per_bucket, buckets, func)
    plan = make_plan(
        func, kind="metric", group=group, label=label, scores=score, metrics=["gauc"], weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg, sample_weight=sample_weight, ties=ties,
        tiebreak=tiebreak, threshold=threshold, engine=engine, max_fpr=max_fpr, nan_policy=nan_policy,
        progress=progress,
    )
    return _run(sdf, plan, rows_per_bucket=rows_per_bucket, buckets=buckets)


gauc.__doc__ = _doc(
    """:func:`pandas_rankeval.gauc` of a Spark DataFrame, exact.

    Buckets of whole groups run the pandas engine once each and return one summary
    each; the driver adds them up. ``engine="sklearn"`` and ``max_fpr`` work too
    (their per-group loop runs inside the buckets, on the workers).

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per shown item.
    group, label, score, weight, min_size, min_pos, min_neg, sample_weight, ties, tiebreak, threshold, engine, max_fpr, nan_policy :
        As in :func:`pandas_rankeval.gauc`. A weight Series travels to the workers with
        the plan; a weight callable runs per bucket, so it must compute each group's
        weight from that group's own statistics.
    progress : bool, default=False
        Accepted for the pandas signature; Spark reports its own progress.
{sizing}

    Returns
    -------
    gauc : MetricResult
        The same float, coverage and warnings as :func:`pandas_rankeval.gauc`.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> df = pre.datasets.make_impressions(n_users=100, seed=3)
    >>> g = prs.gauc(spark.createDataFrame(df), group="user_id", label="click", score="model_b")
    >>> abs(g - pre.gauc(df, group="user_id", label="click", score="model_b")) < 1e-12
    True
    >>> g.coverage.n_groups
    100
    """
)


def _list_metric(kind: str, sdf: Any, k: Any, allow_none: bool, rows_per_bucket: Any, buckets: Any, **kw: Any) -> Any:
    from pandas_rankeval.core.registry import MetricSpec
    from pandas_rankeval.summary.plan import make_plan
    from pandas_rankeval.core.validation import check_k

    func = f"spark.{kind if kind != 'map' else 'average_precision'}"
    _check_frame(sdf, func)
    k = check_k(k, kind, allow_none=allow_none)
    rows_per_bucket, buckets = _check_sizing(rows_per_bucket, buckets, func)
    score = kw.pop("score")
    plan = make_plan(func, kind="metric", scores=score, metrics=MetricSpec(kind, k), **kw)
    return _run(sdf, plan, rows_per_bucket=rows_per_bucket, buckets=buckets)


_LIST_DOC = """:func:`pandas_rankeval.{name}` of a Spark DataFrame, exact.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per shown item.
    group, label, score, k, {extra}weight, ties, tiebreak, threshold, empty, nan_policy :
        As in :func:`pandas_rankeval.{name}`.
{sizing}

    Returns
    -------
    {name} : MetricResult
        The same float, coverage and warnings as :func:`pandas_rankeval.{name}`.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> df = pd.DataFrame({{"q": [1, 1, 1, 2, 2], "rel": [0, 1, 2, 1, 0], "score": [3, 2, 1, 5, 5]}})
    >>> got = prs.{name}(spark.createDataFrame(df), group="q", label="rel", score="score"{kwarg})
    >>> abs(got - pre.{name}(df, group="q", label="rel", score="score"{kwarg})) < 1e-12
    True
"""


def mrr(
    sdf: SparkDataFrame, *, group: Hashable | Sequence[Hashable], label: Hashable, score: Hashable,
    k: int | None = None, weight: Any = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected", tiebreak: Hashable | None = None,
    threshold: float | None = None, empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise", rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    return _list_metric(
        "mrr", sdf, k, True, rows_per_bucket, buckets, group=group, label=label, score=score,
        weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


def ndcg(
    sdf: SparkDataFrame, *, group: Hashable | Sequence[Hashable], label: Hashable, score: Hashable,
    k: int | None = None, gain: Literal["exp2", "linear"] = "exp2", weight: Any = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected", tiebreak: Hashable | None = None,
    threshold: float | None = None, empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise", rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    return _list_metric(
        "ndcg", sdf, k, True, rows_per_bucket, buckets, group=group, label=label, score=score,
        gain=gain, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty,
        nan_policy=nan_policy,
    )


def average_precision(
    sdf: SparkDataFrame, *, group: Hashable | Sequence[Hashable], label: Hashable, score: Hashable,
    k: int | None = None, denominator: Literal["relevant", "min_k"] = "relevant", weight: Any = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected", tiebreak: Hashable | None = None,
    threshold: float | None = None, empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise", rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    return _list_metric(
        "map", sdf, k, True, rows_per_bucket, buckets, group=group, label=label, score=score,
        denominator=denominator, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold,
        empty=empty, nan_policy=nan_policy,
    )


def _cutoff(kind: str) -> Callable[..., Any]:
    def metric(
        sdf: SparkDataFrame, *, group: Hashable | Sequence[Hashable], label: Hashable, score: Hashable,
        k: int = 10, weight: Any = None,
        ties: Literal["expected", "pessimistic", "optimistic"] = "expected", tiebreak: Hashable | None = None,
        threshold: float | None = None, empty: Literal["zero", "skip", "error"] = "zero",
        nan_policy: Literal["raise", "omit"] = "raise", rows_per_bucket: int = ROWS_PER_BUCKET,
        buckets: int | None = None,
    ) -> Any:
        return _list_metric(
            kind, sdf, k, False, rows_per_bucket, buckets, group=group, label=label, score=score,
            weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty,
            nan_policy=nan_policy,
        )

    metric.__name__ = metric.__qualname__ = kind
    return metric


precision = _cutoff("precision")
recall = _cutoff("recall")
hit_rate = _cutoff("hit_rate")

for _f, _extra, _kwarg in (
    (mrr, "", ""),
    (ndcg, "gain, ", ", k=2"),
    (average_precision, "denominator, ", ""),
    (precision, "", ", k=2"),
    (recall, "", ", k=1"),
    (hit_rate, "", ", k=1"),
):
    _f.__doc__ = _doc(_LIST_DOC.format(name=_f.__name__, extra=_extra, kwarg=_kwarg, sizing="{sizing}"))
del _f, _extra, _kwarg


def report(
    sdf: SparkDataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    scores: Hashable | Sequence[Hashable],
    metrics: str | Sequence[str] = ("auc", "gauc", "mrr", "ndcg@10"),
    by: Hashable | Sequence[Hashable] | None = None,
    weight: Any = None,
    ci: float | None = None,
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    n_boot: int = 1000,
    seed: int | None = 0,
    resample: Literal["poisson", "multinomial"] | None = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
    rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    from pandas_rankeval.summary.plan import make_plan

    func = "spark.report"
    _check_frame(sdf, func)
    resample = _check_resample(resample, func)
    rows_per_bucket, buckets = _check_sizing(rows_per_bucket, buckets, func)
    plan = make_plan(
        func, kind="report", group=group, label=label, scores=scores, metrics=metrics, by=by,
        weight=weight, ci=ci, n_boot=n_boot, seed=seed, resample=resample, auc_method=auc_method, ci_method=ci_method,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak,
        threshold=threshold, gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
        progress=progress,
    )
    return _run(sdf, plan, rows_per_bucket=rows_per_bucket, buckets=buckets)


report.__doc__ = _doc(
    """:func:`pandas_rankeval.report` of a Spark DataFrame: the same table, exact.

    One aggregation (rows, missing values), one job over buckets of whole groups for
    every group metric of every model, and one job for the global AUC of every model
    (and segment); the driver receives one summary per bucket and one row per range
    partition, never a row per group.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per shown item.
    group, label, scores, metrics, by, weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in :func:`pandas_rankeval.report`.
    ci, n_boot, seed, resample :
        As in :func:`pandas_rankeval.report`: the hashed group bootstrap (Poisson(1)
        weights from a stable hash of the seed and the group key), so the same seed
        gives the same interval as pandas and Dask (``resample="multinomial"`` has no
        distributed form and is refused). Global AUC's interval is the clustered
        DeLong one (every row's placement joined from the distinct-score pass);
        ``auc_method="bootstrap"`` is refused with 'auc'.
    auc_method, ci_method :
        As in :func:`pandas_rankeval.report`.
    progress : bool, default=False
        Accepted for the pandas signature; Spark reports its own progress.
{sizing}

    Returns
    -------
    report : ResultTable
        The same table, columns, footer and warning as :func:`pandas_rankeval.report`.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> kw = dict(group="user_id", label="click", scores=["model_a", "model_b"],
    ...           metrics=["auc", "gauc", "ndcg@10"])
    >>> dist = prs.report(spark.createDataFrame(df), **kw)
    >>> local = pre.report(df, **kw)
    >>> names = ["auc", "gauc", "ndcg@10"]
    >>> bool(((dist[names] - local[names]).abs() < 1e-12).all().all())
    True
    >>> list(dist.columns) == list(local.columns)
    True
    """
)


def compare(
    sdf: SparkDataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    scores: Sequence[Hashable],
    baseline: Hashable,
    metrics: str | Sequence[str] = ("auc", "gauc", "mrr", "ndcg@10"),
    by: Hashable | Sequence[Hashable] | None = None,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: Any = 0,
    resample: Literal["poisson", "multinomial"] | None = None,
    method: Literal["auto", "randomization", "bootstrap"] = "auto",
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    alpha: float = 0.05,
    weight: Any = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
    rows_per_bucket: int = ROWS_PER_BUCKET,
    buckets: int | None = None,
) -> Any:
    from pandas_rankeval.summary.plan import make_plan

    func = "spark.compare"
    _check_frame(sdf, func)
    resample = _check_resample(resample, func)
    rows_per_bucket, buckets = _check_sizing(rows_per_bucket, buckets, func)
    plan = make_plan(
        func, kind="compare", group=group, label=label, scores=scores, metrics=metrics, by=by,
        weight=weight, ci=ci, n_boot=n_boot, seed=seed, resample=resample, baseline=baseline, alpha=alpha, method=method,
        auc_method=auc_method, ci_method=ci_method, min_size=min_size, min_pos=min_pos,
        min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold, gain=gain,
        denominator=denominator, empty=empty, nan_policy=nan_policy, progress=progress,
    )
    return _run(sdf, plan, rows_per_bucket=rows_per_bucket, buckets=buckets)


compare.__doc__ = _doc(
    """:func:`pandas_rankeval.compare` of a Spark DataFrame: the same paired table.

    Intervals and tests use the hashed group-level replicates (Poisson(1) bootstrap
    weights and sign flips from a stable hash of the seed and the group key),
    computed inside the buckets: the same seed gives the same table as pandas and
    Dask. Global AUC ('auc') gets the clustered DeLong interval and z-test (as pandas
    by default), from every row's global placement; ``auc_method="bootstrap"`` (or a
    tie rule other than "expected") is refused with 'auc'.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per shown item.
    group, label, scores, baseline, metrics, by, ci, n_boot, seed, resample, method, auc_method, ci_method, alpha, weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in :func:`pandas_rankeval.compare`.
    progress : bool, default=False
        Accepted for the pandas signature; Spark reports its own progress.
{sizing}

    Returns
    -------
    comparison : ResultTable
        The same table and attrs as :func:`pandas_rankeval.compare`.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> df = pre.datasets.make_impressions(n_users=200, seed=1)
    >>> kw = dict(group="user_id", label="click", scores=["model_a", "model_b"],
    ...           baseline="model_a", metrics=["gauc", "mrr"], n_boot=200)
    >>> dist = prs.compare(spark.createDataFrame(df), **kw)
    >>> local = pre.compare(df, **kw)
    >>> cols = ["baseline_value", "value", "diff", "ci_low", "ci_high", "p_value"]
    >>> bool(((dist[cols] - local[cols]).abs() < 1e-12).all().all())
    True
    >>> list(dist.columns) == list(local.columns)
    True
    """
)
