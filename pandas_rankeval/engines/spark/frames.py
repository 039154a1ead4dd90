"""The Spark adapter's view of the input: the columns a call reads, checked and renamed once.

Everything here answers from the schema and the options (no job), or builds the expressions of
the one aggregation (:func:`scan`) and of the rows that reach the buckets. The columns a call
reads are renamed once, by position, to ``__u0``, ``__u1``... (:class:`Frame`): a name with a
dot or a backtick, names that differ only in case (Spark resolves names case-insensitively,
pandas does not), or a user column named like one of the adapter's own (``__pre_bucket``) is
then read like any other, and the pandas engine in a bucket gets the user's names back.

Rows with a missing value are dropped (``nan_policy="omit"``) before the rows are bucketed
(:func:`drop_missing`), so integer columns (scores and keys beyond 2**53) reach pandas as
integers: a null in a ``long`` column would make Arrow hand pandas a float64 column.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.prepare import relevance_rule
from pandas_rankeval.summary.problems import LabelChecks
from pandas_rankeval.summary.scan_counts import ScanCount, read_counts, scan_counts

from .session import _collect, functions_of, _parallelism

__all__ = [
    "Frame", "Scan", "as_pandas_input", "checked_frame", "drop_missing", "fresh_name", "n_buckets",
    "relevant", "scan", "weight_columns", "with_bucket",
]

_BUCKET = "__pre_bucket"
#: Spark types that cannot be a group or segment key (pandas cannot group by lists or dicts).
_NOT_KEYS = ("ArrayType", "MapType", "StructType", "VariantType")


# --------------------------------------------------------------------------- #
# Schema: names and pandas dtypes, the Spark-only checks, before any job
# --------------------------------------------------------------------------- #
def _pandas_dtype(spark_type: Any) -> Any:
    """The dtype a column of this Spark type has in pandas (for the pandas checks)."""
    name = type(spark_type).__name__
    return {
        "BooleanType": np.dtype(bool),
        "ByteType": np.dtype(np.int8),
        "ShortType": np.dtype(np.int16),
        "IntegerType": np.dtype(np.int32),
        "LongType": np.dtype(np.int64),
        "FloatType": np.dtype(np.float32),
        "DoubleType": np.dtype(np.float64),
        "DecimalType": np.dtype(np.float64),
        "TimestampType": np.dtype("datetime64[us]"),
        "TimestampNTZType": np.dtype("datetime64[us]"),
        "DateType": np.dtype("datetime64[s]"),
    }.get(name, np.dtype(object))


def _meta(sdf: Any) -> pd.DataFrame:
    """An empty pandas frame with the Spark frame's columns (by position: a repeated name stays
    repeated, for the pandas error that counts it) and their pandas dtypes."""
    fields = sdf.schema.fields
    meta = pd.DataFrame({i: pd.Series(dtype=_pandas_dtype(f.dataType)) for i, f in enumerate(fields)})
    meta.columns = pd.Index([f.name for f in fields], dtype=object)
    return meta


def _check_key(types: dict[Hashable, Any], column: Hashable, role: str) -> None:
    """A group or segment key must be a value pandas can group by (not an array, map or struct)."""
    t = types[column]
    if type(t).__name__ in _NOT_KEYS:
        raise TypeError(
            f"Column {column!r} ({role}) has Spark type {t.simpleString()}, which cannot be a {role} "
            "key: pandas groups by numbers, text, dates and bytes, not by arrays, maps or structs. "
            f"Make a key column first, for example with F.to_json(F.col({column!r}))."
        )


def _orderable(t: Any) -> bool:
    return type(t).__name__ not in ("MapType", "ArrayType", "StructType", "BinaryType", "VariantType")


class Frame:
    """The columns a call reads, renamed by position to ``__u<position>``.

    ``sdf`` holds those columns only; ``col(c)`` is the Spark column of the user's column ``c``,
    ``types[c]`` its Spark type, and ``back`` (internal name -> user's name, plain data for the
    workers) gives a bucket's pandas frame the user's names back. No internal name of the adapter starts with ``__u``.
    """

    def __init__(self, sdf: Any, columns: Sequence[Hashable]) -> None:
        names = list(sdf.columns)
        fields = sdf.schema.fields
        self.columns = list(dict.fromkeys(columns))
        pos = {c: names.index(c) for c in self.columns}  # exact names, as pandas (checked: once each)
        internal = [f"__u{i}" for i in range(len(names))]
        self.name: dict[Hashable, str] = {c: internal[pos[c]] for c in self.columns}
        self.back: dict[str, Hashable] = {v: k for k, v in self.name.items()}
        self.types: dict[Hashable, Any] = {c: fields[pos[c]].dataType for c in self.columns}
        self.user_columns = set(names)
        self.sdf = sdf.toDF(*internal).select(*[self.name[c] for c in self.columns])
        self.F = functions_of(sdf)
        self._cols: dict[Hashable, Any] = {}  # shared with with_sdf's copies: same names

    def col(self, c: Hashable) -> Any:
        """The column ``c`` as a Spark Column, made once per call (each ``F.col`` of a classic
        session is a round trip to the JVM; a report asked for ~300)."""
        got = self._cols.get(c)
        if got is None:
            got = self._cols[c] = self.F.col(self.name[c])
        return got

    def with_sdf(self, sdf: Any) -> Frame:
        """The same columns, other rows (a filter) or more internal columns."""
        out = object.__new__(Frame)
        out.__dict__.update(self.__dict__)
        out.sdf = sdf
        return out


def fresh_name(name: str, taken: set[Any]) -> str:
    """``name``, lengthened until no column in ``taken`` has it (in any case)."""
    lower = {str(t).lower() for t in taken}
    while name.lower() in lower:
        name += "_"
    return name


def checked_frame(sdf: Any, plan: Any) -> Frame:
    """The checks only Spark's types answer (before any job), then the :class:`Frame` of the plan.

    The checks of every engine (column names, repeated columns, the weight name, numeric label /
    score / weight dtypes) ran on :func:`schema` already; here: a sortable tie-break, and group and
    segment keys that pandas can group by (not arrays, maps or structs).
    """
    fr = Frame(sdf, plan.columns)
    types = fr.types
    tb = plan.options.tiebreak
    if tb is not None and not _orderable(types[tb]):
        raise TypeError(
            f"Column {tb!r} (tiebreak) must be sortable; it has Spark type {types[tb].simpleString()}."
        )
    for c in plan.group:
        _check_key(types, c, "group")
    for c in plan.by:
        _check_key(types, c, "by")
    return fr


def weight_columns(plan: Any) -> list[Hashable]:
    """The numeric columns that weigh rows or groups (sample weights, a weight column)."""
    from pandas_rankeval.core.inputs.options import WEIGHT_NAMES

    o = plan.options
    cols = [c for c in (o.sample_weight, o.weight if isinstance(o.weight, str) else None) if c is not None]
    return [c for c in cols if c in plan.columns and c not in WEIGHT_NAMES]


# --------------------------------------------------------------------------- #
# The one aggregation, and the rows that reach the buckets
# --------------------------------------------------------------------------- #
def _is_float(t: Any) -> bool:
    return type(t).__name__ in ("FloatType", "DoubleType")


def _missing_expr(fr: Frame, c: Hashable) -> Any:
    """Null, or NaN in a float column: missing in pandas either way."""
    col = fr.col(c)
    return (col.isNull() | fr.F.isnan(col)) if _is_float(fr.types[c]) else col.isNull()


def relevant(fr: Frame, label: Hashable, threshold: float | None) -> Any:
    """The shared rule of a relevant label (:func:`pandas_rankeval.core.inputs.prepare.relevance_rule`, of
    the pandas dtype the label has in a bucket) as a Spark expression: integers compared as
    integers, as pandas compares them."""
    F = fr.F
    op, bound = relevance_rule(_pandas_dtype(fr.types[label]), threshold)
    if op == "never":
        return F.lit(False)
    col = fr.col(label)
    c, b = (col, F.lit(bound).cast("long")) if isinstance(bound, int) else (col.cast("double"), F.lit(float(bound)))
    return (c >= b) if op == ">=" else (c > b)


class Scan:
    """What the one aggregation over the input found (rows, missing values, bad values)."""

    def __init__(self, n_rows: int, missing: dict[Hashable, int], n_dropped: int) -> None:
        self.n_rows = n_rows  # rows left to evaluate (after nan_policy="omit")
        self.missing = missing  # per column, in the order the call names them
        self.n_dropped = n_dropped
        self.problems: dict[tuple, int] = {}  # as Summary.problems: the values pandas refuses, kept rows
        self.label_max: Any = None  # the largest kept label, when asked for (gain='exp2', a metric's top grade)


def scan(
    fr: Frame,
    *,
    columns: Sequence[Hashable],
    label: Hashable,
    checks: LabelChecks,
    weights: Sequence[Hashable] = (),
    threshold: float | None = None,
    calibration: tuple[str, ...] = (),
    scores: Sequence[Hashable] = (),
) -> Scan:
    """One aggregation job: rows, missing values per column, and the values pandas
    refuses (infinite labels, the label ``checks`` of the plan: negative labels, labels above a
    metric's top grade, labels other than 0/1 for the calibration metrics; negative or infinite
    weights; for the ``calibration`` metrics ``scores`` outside [0, 1]), as whole-table counts,
    and the largest kept label when the checks ask for it: the driver raises pandas' errors from
    them, in pandas' order (:func:`pandas_rankeval.summary.driver.raise_checked`). The aggregates
    are the shared scan's (:mod:`pandas_rankeval.summary.scan_counts`) as Spark columns."""
    spec = scan_counts(columns, label, label_float=_is_float(fr.types[label]), checks=checks, weights=weights,
                       calibration=calibration, scores=scores)
    miss = [_missing_expr(fr, c) for c in spec.columns]
    any_miss = miss[0]
    for m in miss[1:]:
        any_miss = any_miss | m
    aggs = [_count_column(fr, count, ~any_miss, any_miss) for count in spec.counts]
    row = _collect(fr.sdf.agg(*aggs))[0].asDict()
    missing, problems = read_counts(spec, row)
    n_dropped = int(row["dropped"] or 0) if any(missing.values()) else 0
    counts = Scan(int(row["rows"]) - n_dropped, missing, n_dropped)
    counts.problems = problems
    counts.label_max = row.get("top")
    return counts


def _count_column(fr: Frame, count: ScanCount, kept: Any, any_miss: Any) -> Any:
    """One aggregate of the shared scan as a Spark column, named by the count."""
    F = fr.F
    if count.op == "rows":
        return F.count(F.lit(1)).alias(count.name)
    if count.op == "dropped":
        return _count_if(F, any_miss, count.name)
    if count.op == "missing":
        return _count_if(F, _missing_expr(fr, count.column), count.name)
    c = fr.col(count.column)
    d = c.cast("double")
    exprs = {
        "infinite": lambda: _count_if(F, kept & (F.abs(c) == float("inf")), count.name),
        "bad_weight": lambda: _count_if(F, kept & ((F.abs(d) == float("inf")) | (d < 0)), count.name),
        "negative": lambda: _count_if(F, kept & (d < 0), count.name),
        "above": lambda: _count_if(F, kept & (d > count.bound), count.name),
        "max": lambda: F.max(F.when(kept, c)).alias(count.name),  # an integer label stays an integer
        "not_binary": lambda: _count_if(F, kept & (d != 0) & (d != 1), count.name),
        "not_binary_examples": lambda: F.slice(
            F.array_sort(F.collect_set(F.when(kept & (d != 0) & (d != 1), d))), 1, 3).alias(count.name),
        "outside_unit": lambda: _count_if(F, kept & ~((d >= 0) & (d <= 1)), count.name),
        "min_double": lambda: F.min(F.when(kept, d)).alias(count.name),
        "max_double": lambda: F.max(F.when(kept, d)).alias(count.name),
    }
    return exprs[count.op]()


def _count_if(F: Any, cond: Any, name: str) -> Any:
    """The rows where ``cond`` holds, as a long."""
    return F.sum(F.when(cond, 1).otherwise(0)).cast("long").alias(name)


def drop_missing(fr: Frame, scan_: Scan) -> Frame:
    """The rows with no missing value (null or NaN) in any column of the call, when there are
    any: before any bucketing, so a bucket never sees a null (nor a float copy of an integer
    column that held one)."""
    if not scan_.n_dropped:
        return fr
    keep = None
    for c in fr.columns:
        ok = ~_missing_expr(fr, c)
        keep = ok if keep is None else keep & ok
    return fr.with_sdf(fr.sdf.filter(keep))


def n_buckets(sdf: Any, n_rows: int, rows_per_bucket: int, buckets: int | None) -> int:
    """``buckets``, else ``max(ceil(n_rows / rows_per_bucket), parallelism)``."""
    if buckets is not None:
        return buckets
    return max(math.ceil(n_rows / rows_per_bucket), _parallelism(sdf.sparkSession))


def with_bucket(fr: Frame, group: Sequence[Hashable], n: int, bucket: str = _BUCKET) -> Any:
    """Add the bucket of every row: pmod(xxhash64(group keys), n), whole groups per bucket."""
    F = fr.F
    h = F.xxhash64(*[fr.col(c) for c in group])
    return fr.sdf.withColumn(bucket, F.pmod(h, F.lit(n)).cast("int"))


def as_pandas_input(fr: Frame, extra: Sequence[str], label: Hashable) -> Frame:
    """The columns a bucket reads, as the pandas engine expects them: bool labels as 0/1
    integers (so that the column stays numeric through Arrow), decimals as doubles; ``extra``
    internal columns (placements) as they are."""
    F = fr.F
    out = []
    for c in fr.columns:
        t = type(fr.types[c]).__name__
        col = fr.col(c)
        if c == label and t == "BooleanType":
            col = col.cast("int").alias(fr.name[c])
        elif t == "DecimalType":
            col = col.cast("double").alias(fr.name[c])
        out.append(col)
    return fr.with_sdf(fr.sdf.select(*out, *[F.col(e) for e in extra]))
