"""The Spark engine: every public function of :mod:`pandas_rankeval` on a Spark DataFrame, exact.

An adapter (:mod:`pandas_rankeval.engines.base`) on the summary layer
(:mod:`pandas_rankeval.summary`): Spark only decides how whole groups reach one Python call and
how the summaries add up; every number comes from the same code as pandas, and the public
functions check the options and the schema.

How a call runs
---------------
1. **Before any job**, in the public function: column names, dtypes (:func:`schema`, from
   ``sdf.schema``) and every option are checked and give the pandas errors; an option with no
   exact distributed form (``max_fpr`` of global AUC, a bootstrap interval of global AUC,
   ``resample="multinomial"``) is refused by name. A tie-break column must be sortable.
2. **One aggregation** counts the rows, the missing values (Spark has both nulls
   and NaN: both count) of every column the call reads, infinite labels, negative
   labels (NDCG) and bad weights. Bad input raises the pandas error with
   whole-table counts here; ``nan_policy="omit"`` counts the rows it drops (the counts go into
   the summed summary) and drops them before any bucketing.
After the scan, the passes are the driver's (:func:`pandas_rankeval.summary.ranges.auc_ranges`,
:func:`pandas_rankeval.summary.driver.summed_group_pass`) over Spark primitives (:class:`SparkSource`):

3. **Global AUC**: every score column's rows are counted per distinct (score, segment, score
   key, tie-break value, label) by a ``groupBy`` (masses of equal scores collapse into one key,
   so ties never skew a partition and never straddle two), range-partitioned and handed, one
   partition at a time, to the driver's function (``mapInPandas``), which returns its exact
   Mann-Whitney counts in one row; the driver chains them in score order with Python integers.
4. **Interval / test of global AUC** (``report(ci=...)`` or ``compare`` with ``"auc"``; clustered
   DeLong, ``ties="expected"``): the driver's placement of every counted key is computed on the
   executors from the persisted ranges (with the chained offsets) and joined back to the rows
   per score, so the buckets also add the per-segment DeLong moment matrices. The bootstrap
   interval of global AUC (``auc_method="bootstrap"`` or another tie rule) has no distributed
   form here and is refused by name.
5. **Group metrics**: each row gets a bucket, ``pmod(xxhash64(group keys), buckets)``, so a
   bucket holds whole groups; ``groupBy(bucket).applyInPandas`` runs the driver's function of a
   bucket (the vectorized engine) and returns its summary as bytes; the driver adds the
   summaries. No per-group row ever reaches the driver. With ``by=`` and intervals or
   ``compare``, every bucket cuts its summary into shards of segments, a second
   ``applyInPandas`` adds each shard's pieces (its segments now whole) and reduces their
   replicate sums to intervals and p-values there.

Bucket size
-----------
A bucket is one pandas DataFrame in one Python worker, so it must fit an
executor's Python memory: about 100 to 200 bytes per row while the engine runs
(the columns read, the sort and the per-group arrays). ``buckets =
max(ceil(rows / rows_per_bucket), parallelism)`` with ``rows_per_bucket`` one
million by default (some 100 to 200 MB per bucket); lower it for small executors,
or pass ``buckets`` yourself (``engine_options={"rows_per_bucket": n}`` or
``{"buckets": n}``). One group is never split, so the largest group
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

The modules: :mod:`.session` (a quiet local session whose workers run this interpreter,
:func:`local_session`, also ``pandas_rankeval.spark.local_session``), :mod:`.frames` (pandas dtypes
of the schema by position, the Spark-only checks, the columns of a call renamed once by position so
that any name reads, the one scan, rows with a missing value dropped before any bucketing so that
64-bit integers stay integers, buckets of whole groups), :mod:`.auc` (global AUC and DeLong
placements); this module answers the engine protocol. Requires the optional ``spark`` extra (``pip install 'pandas_rankeval[spark]'``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pandas_rankeval.summary.problems import label_checks

from ..base import option_count, unordered_rows_error
from .auc import _auc_counts, join_placements, map_ranges, place_ranges
from .auc import range_columns as _auc_columns
from .frames import (
    _BUCKET,
    Frame,
    Scan,
    _meta,
    as_pandas_input,
    checked_frame,
    drop_missing,
    fresh_name,
    n_buckets,
    relevant,
    scan,
    weight_columns,
    with_bucket,
)
from .session import LAST_CALL, _collect, _quiet, local_session

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame as SparkDataFrame
else:
    SparkDataFrame = Any

__all__ = [
    "NAME", "OPTIONS", "ROWS_PER_BUCKET", "check_options", "distinct", "local_session", "partitioned", "per_group", "run",
    "schema", "with_row_number",
]

NAME = "Spark"
OPTIONS: tuple[str, ...] = ("rows_per_bucket", "buckets")

#: Default target rows of one bucket (and of one range partition of the AUC sort).
ROWS_PER_BUCKET = 1_000_000

def schema(sdf: Any) -> pd.DataFrame:
    """An empty pandas frame with the Spark frame's columns and their pandas dtypes, by position
    (a repeated name stays repeated, for the pandas error that counts it)."""
    return _meta(sdf)


def with_row_number(sdf: Any, name: str, resampled: bool = True) -> Any:
    """The frame with a distinct int64 per row, ``monotonically_increasing_id()`` (no pass, no
    shuffle), for the values alone. An interval or a test would resample rows by these ids, which
    follow the partitioning (not pandas' 0..n-1): refused, asking for ``group=``."""
    from .session import functions_of

    if resampled:
        raise unordered_rows_error("a Spark DataFrame")

    return sdf.withColumn(name, functions_of(sdf).monotonically_increasing_id())


def partitioned(sdf: Any) -> bool:
    """A Spark frame is evaluated in buckets of whole groups."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``rows_per_bucket`` (an int >= 1, default :data:`ROWS_PER_BUCKET`) and ``buckets`` (an int >= 1
    or None: ``max(ceil(rows / rows_per_bucket), parallelism)``)."""
    return {"rows_per_bucket": option_count(options, "rows_per_bucket", func, ROWS_PER_BUCKET),
            "buckets": option_count(options, "buckets", func)}


# --------------------------------------------------------------------------- #
# per_group: a lazy Spark DataFrame, one per-group table per bucket
# --------------------------------------------------------------------------- #
def _per_group_bucket(pdf: pd.DataFrame, *, plan: Any, columns: list[str], names: dict[str, Any]) -> pd.DataFrame:
    """The per-group table of one bucket (whole groups), keys as columns; ``names`` gives the
    columns their user's names back."""
    from pandas_rankeval.tables.per_group import per_group_table

    table = pd.DataFrame(per_group_table(pdf.drop(columns=[_BUCKET]).rename(columns=names), plan)).reset_index()
    table["n"] = table["n"].astype(np.int64)
    table["positives"] = table["positives"].astype(np.int64)
    return table[columns]


def distinct(sdf: SparkDataFrame, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """The distinct non-missing values of a column (one ``distinct`` job), the column taken by
    position (a name with a dot or a backtick is a name)."""
    fr = Frame(sdf, [column])
    with _quiet():
        return [row[0] for row in fr.sdf.where(fr.col(column).isNotNull()).distinct().collect()]


def per_group(sdf: SparkDataFrame, plan: Any, options: dict[str, Any]) -> SparkDataFrame:
    """Every group's metrics as a lazy Spark DataFrame: the key column(s), ``n``, ``positives``,
    one column per metric and ``weight``, one row per group, unordered.

    The call runs one small aggregation (rows and missing values, so that bad input raises the
    pandas error with whole-table counts) and, for a weight callable, one aggregation of the group
    statistics (the callable is called once, with every group); the per-group work runs once per
    bucket of whole groups
    (``groupBy(bucket).applyInPandas``) when the result is used (``write``, ``join``, ``collect``).
    """
    from pyspark.sql import types as T

    from pandas_rankeval.tables.per_group import check_flat_names, display_names

    check_flat_names(plan, "Spark")  # a key named like a column of the table: before any job
    fr, found = _scan_plan(sdf, plan)
    plan = _early(drop_missing(fr, found), plan, found)  # before any bucket; a weight callable once
    fr = as_pandas_input(drop_missing(fr, found), (), plan.label)
    data = with_bucket(fr, plan.group, n_buckets(sdf, found.n_rows, options["rows_per_bucket"], options["buckets"]))
    fields = [T.StructField(str(c), fr.types[c], True) for c in plan.group]
    fields += [T.StructField("n", T.LongType(), False), T.StructField("positives", T.LongType(), False)]
    # one field per column of the table ('gauc' and 'auc' are both the per-group AUC: one 'auc')
    fields += [T.StructField(name, T.DoubleType(), True) for name in dict.fromkeys(display_names(plan))]
    fields.append(T.StructField("weight", T.DoubleType(), True))
    out_cols = [f.name for f in fields]
    back = fr.back  # plain data for the workers (the Frame holds the session)

    def fn(pdf: pd.DataFrame) -> pd.DataFrame:
        return _per_group_bucket(pdf, plan=plan, columns=out_cols, names=back)

    with _quiet():
        return data.groupBy(_BUCKET).applyInPandas(fn, T.StructType(fields))


# --------------------------------------------------------------------------- #
# The adapter: whole groups per bucket -> one summary per bucket -> finalize
# --------------------------------------------------------------------------- #
def _bucket_pieces(pdf: pd.DataFrame, part: Any, names: dict[str, Any]) -> pd.DataFrame:
    """The driver's function of one bucket (``names`` gives the columns their user's names back):
    one row per piece."""
    pieces = part(pdf.drop(columns=[_BUCKET]).rename(columns=names))
    return pd.DataFrame({"shard": np.arange(len(pieces), dtype=np.int32), "summary": [p.to_bytes() for p in pieces]})


def _shard_result(pdf: pd.DataFrame, shard: Any) -> pd.DataFrame:
    """One shard's pieces from every bucket, reduced by the driver's ``shard``."""
    from pandas_rankeval.summary.summary import Summary

    return pd.DataFrame({"summary": [shard([Summary.from_bytes(bytes(b)) for b in pdf["summary"]]).to_bytes()]})


def _scan_plan(sdf: Any, plan: Any) -> tuple[Frame, Scan]:
    """The columns of the call checked (the Spark-only checks; the rest ran on :func:`schema`) and
    renamed once, then the one aggregation over the input that every call starts with. Missing
    values and an empty table raise now; the values' problems wait for :func:`_early`, which
    raises them in pandas' order with the problems it finds (a ``by`` that varies within a group
    comes before negative labels)."""
    opts = plan.options
    fr = checked_frame(sdf, plan)  # before any job
    LAST_CALL.clear()
    numeric = type(fr.types[plan.label]).__name__ != "BooleanType"  # the schema checks refused the rest
    found = scan(
        fr, columns=plan.columns, label=plan.label, checks=label_checks(plan, numeric),
        weights=weight_columns(plan), threshold=opts.threshold,
        calibration=tuple(s.name for s in plan.specs if not s.info.needs_ranking), scores=plan.scores,
    )
    from pandas_rankeval.summary import driver

    driver.raise_scan_errors(_driver_scan(found), plan)  # missing values, no row left
    return fr, found


def _driver_scan(found: Scan, problems: bool = False) -> Any:
    """The scan's whole-table counts as the driver's :class:`~pandas_rankeval.summary.driver.Scan`
    (with its problems of the values, and the largest label, when ``problems``)."""
    from pandas_rankeval.summary import driver

    out = driver.Scan(found.n_rows + found.n_dropped, {c: n for c, n in found.missing.items() if n},
                      found.n_dropped, dict(found.problems) if problems else {})
    if problems:
        out.label_max = found.label_max
    return out


class SparkTables:
    """The rows a call keeps, answering the driver's early checks
    (:class:`pandas_rankeval.summary.driver.Tables`): two small aggregates, collected."""

    def __init__(self, fr: Frame, label: Any) -> None:
        self.fr = fr
        self.data = as_pandas_input(fr, (), label)

    def distinct_rows(self, columns: list[Any], keep: bool) -> pd.DataFrame:
        F, fr = self.fr.F, self.fr
        order = fresh_name("__rk_first", set(fr.name.values()))
        cols = [fr.name[c] for c in columns]
        with _quiet():
            first = self.data.sdf.withColumn(order, F.monotonically_increasing_id())
            pdf = first.groupBy(*cols).agg(F.min(order).alias(order)).orderBy(order).drop(order).toPandas()
        return pdf.rename(columns=fr.back)

    def count_rows(self, keys: list[Any], keep: bool, count: str) -> pd.DataFrame:
        fr = self.fr
        internal = fresh_name("__rk_rows", set(fr.name.values()))
        with _quiet():
            pdf = self.data.sdf.groupBy(*[fr.name[k] for k in keys]).count().withColumnRenamed("count", internal).toPandas()
        return pdf.rename(columns={**fr.back, internal: count})

    def free(self, name: str) -> str:
        return fresh_name(name, set(self.fr.user_columns) | set(self.fr.name.values()))


class SparkSource(SparkTables):
    """The rows of a call (missing values dropped) answering the driver's range pass and bucket map
    (:class:`pandas_rankeval.summary.driver.Summed`, with the scan's counts of :func:`run`)."""

    def __init__(self, rows: Frame, plan: Any, n_buckets: int, persisted: list) -> None:
        from ..base import internal_prefix

        super().__init__(rows, plan.label)
        self.rows = rows
        self.plan = plan
        self.n_buckets = n_buckets
        self.persisted = persisted
        # the passes' own columns: no user column (a bucket's columns get their names back) starts so
        self.prefix = internal_prefix(rows.user_columns)

    def missing(self) -> dict[Hashable, int]:
        return {}  # the scan raised them before any source was made (its rows have none)

    def score_ranges(self, plan: Any, keep: bool, n_rows: int, placements: bool) -> Any:
        cols, ranged = _auc_counts(self.rows, plan, n_parts=self.n_buckets, placements=placements, prefix=self.prefix,
                                   persisted=self.persisted)
        return cols, (cols, ranged)

    def map_ranges(self, ranges: Any, fn: Any) -> list[Any]:
        return map_ranges(ranges[1], fn)

    def place_ranges(self, ranges: Any, fn: Any, names: dict[int, str]) -> dict[int, Any]:
        return place_ranges(ranges[1], ranges[0], fn, names, self.prefix)

    def join(self, part: Any, score: Any, table: Any) -> Any:
        return join_placements(part, self.rows, _auc_columns(self.rows, self.plan, self.prefix), score, table, self.prefix)

    def bucket_total(self, whole: bool) -> int:
        return self.n_buckets

    def reduce_buckets(self, plan: Any, whole: bool, placements: dict[Any, Any], part: Any, n_shards: int,
                       shard: Any) -> Any:
        """Every bucket of whole groups (``pmod(xxhash64(group keys), buckets)``) through
        ``groupBy(bucket).applyInPandas``: one binary row per piece; with shards, a second
        ``applyInPandas`` reduces each shard's pieces where its segments are whole; the driver adds
        the result-sized rows."""
        from pandas_rankeval.summary.summary import Summary, empty_summary

        data = as_pandas_input(self.rows, (), plan.label)
        sdf = data.sdf
        for s in plan.scores:
            if s in placements:
                sdf = self.join(sdf, s, placements[s])
        d = with_bucket(data.with_sdf(sdf), plan.group, self.n_buckets)
        names = data.back  # plain data for the workers (the Frame holds the session)

        def cut(pdf: pd.DataFrame) -> pd.DataFrame:
            return _bucket_pieces(pdf, part, names)

        def reduce(pdf: pd.DataFrame) -> pd.DataFrame:
            return _shard_result(pdf, shard)

        with _quiet():
            pieces = d.groupBy(_BUCKET).applyInPandas(cut, "shard int, summary binary")
            if n_shards > 1:
                pieces = pieces.groupBy("shard").applyInPandas(reduce, "summary binary")
            rows = _collect(pieces.select("summary"))
        parts = []
        for r in rows:
            b = bytes(r["summary"])
            LAST_CALL["collected_bytes"] = LAST_CALL.get("collected_bytes", 0) + len(b)
            parts.append(Summary.from_bytes(b))
        return Summary.sum(parts) if parts else empty_summary(plan)


def _early(fr: Frame, plan: Any, found: Scan) -> Any:
    """Every error pandas raises that whole-table counts answer, before any bucket, in pandas' order
    (:func:`pandas_rankeval.summary.driver.raise_checked`): the scan's problems of the values and
    its largest label, and, when the plan needs them, one aggregate of distinct group keys (with a
    relevant row; with their segments)."""
    from pandas_rankeval.summary import driver

    F = fr.F
    o = plan.options
    lists = [s for s in plan.specs if s.info.eligibility == "relevant"]
    empty = bool(plan.group) and bool(lists) and o.empty == "error"
    pairs = bool(plan.group) and bool(plan.by)
    scan_ = _driver_scan(found, problems=True)
    if empty or pairs:
        keys = [fr.col(c) for c in plan.group]
        aggs = [F.countDistinct(*keys).alias("groups")]
        if empty:
            rel = relevant(fr, plan.label, o.threshold)
            aggs.append(F.countDistinct(*[F.when(rel, k) for k in keys]).alias("with_rel"))
        if pairs:
            aggs.append(F.countDistinct(*keys, *[fr.col(c) for c in plan.by]).alias("pairs"))
        row = _collect(fr.sdf.agg(*aggs))[0].asDict()
        scan_.n_groups = int(row["groups"])
        scan_.n_with_relevant = int(row["with_rel"]) if empty else None
        scan_.n_pairs = int(row["pairs"]) if pairs else None
    return driver.raise_checked(SparkTables(fr, plan.label), plan, scan_)


def run(sdf: Any, plan: Any, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Scan once, summarize the buckets, count global AUC: the summed summary and the AUC counts."""
    fr, found = _scan_plan(sdf, plan)
    plan = _early(drop_missing(fr, found), plan, found)  # before any bucket; a weight callable once
    n = n_buckets(sdf, found.n_rows, options["rows_per_bucket"], options["buckets"])
    LAST_CALL["buckets"] = n
    persisted: list[Any] = []
    try:
        return _compute(drop_missing(fr, found), plan, found, n, plan.auc_placements, persisted, every=fr,
                        dtypes=schema(sdf).dtypes.to_dict() if plan.by and found.n_dropped else None)
    finally:
        for df in persisted:
            df.unpersist()


def _dropped_by(every: Frame, kept: SparkTables, plan: Any, n_dropped: int, dtypes: Any) -> dict[Any, int]:
    """Rows dropped per segment (:func:`~pandas_rankeval.summary.driver.dropped_of_counts`): two
    small aggregates, rows per segment of every row and of the kept rows (only with ``by=`` and
    dropped rows)."""
    from pandas_rankeval.summary.driver import dropped_of_counts

    if not plan.by or not n_dropped:
        return {}
    count = kept.free("__rk_n")
    by = list(plan.by)
    return dropped_of_counts(SparkTables(every, plan.label).count_rows(by, False, count),
                             kept.count_rows(by, True, count), by, count, dtypes)


def _compute(
    rows: Frame, plan: Any, scan: Scan, n_buckets: int, delong: bool, persisted: list, every: Frame, dtypes: Any,
) -> tuple[Any, dict[str, Any]]:
    """The driver's passes on the call's rows (missing values dropped already): global AUC's ranges
    (:func:`~pandas_rankeval.summary.ranges.auc_ranges`, with placements), the buckets' summaries
    (:func:`~pandas_rankeval.summary.driver.summed_group_pass`); ``every``: the rows before the
    missing values were dropped, ``dtypes`` its pandas dtypes (rows dropped per segment)."""
    from pandas_rankeval.summary.driver import summed_group_pass
    from pandas_rankeval.summary.ranges import auc_ranges

    from pandas_rankeval.summary.partition import summary_of_auc

    source = SparkSource(rows, plan, n_buckets, persisted)
    auc = None
    placements: dict[Any, Any] = {}
    counted = None
    if plan.has_auc:
        counted = auc_ranges(source, plan, False, scan.n_rows, bool(delong and plan.group), source.prefix)
        auc, placements = counted.auc, counted.placements
    if plan.group:
        summary = summed_group_pass(source, plan, placements)
        # the rows with a missing value were dropped before the buckets: the scan counted them
        summary.missing = {c: n for c, n in scan.missing.items() if n}
        summary.n_dropped = scan.n_dropped
        summary.dropped_by = _dropped_by(every, source, plan, scan.n_dropped, dtypes)
    elif counted is not None:  # global AUC alone: rows and relevant rows as the range pass read them
        summary = summary_of_auc(plan, counted.auc, n_rows=counted.n_rows, n_pos=counted.n_pos, missing=scan.missing,
                                 n_dropped=scan.n_dropped)
    else:  # pragma: no cover - a plan without groups is global AUC
        raise ValueError(f"{plan.func}: a plan without groups must ask for global AUC")
    return summary, {"auc": auc}
