"""The rows of a Spark frame: pandas dtypes of its schema, the one scan that counts rows, missing
and bad values (raising pandas' errors with whole-table counts), and the buckets of whole groups."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from pandas_rankeval.core.validation import missing_values_error

from .session import _collect, _fn, _parallelism

_BUCKET = "__pre_bucket"


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


def _spark_types(sdf: Any) -> dict[str, Any]:
    return {f.name: f.dataType for f in sdf.schema.fields}


def _is_float(t: Any) -> bool:
    return type(t).__name__ in ("FloatType", "DoubleType")


def _missing_expr(F: Any, types: dict[str, Any], c: Hashable) -> Any:
    """Null, or NaN in a float column: missing in pandas either way."""
    col = F.col(str(c))
    return (col.isNull() | F.isnan(col)) if _is_float(types[c]) else col.isNull()  # type: ignore[index]


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


class _Scan:
    """What the one aggregation over the input found (rows, missing values, bad values)."""

    def __init__(self, n_rows: int, missing: dict[Hashable, int], n_dropped: int, n_pos: int) -> None:
        self.n_rows = n_rows  # rows left to evaluate (after nan_policy="omit")
        self.n_pos = n_pos  # relevant rows among them
        self.missing = missing  # per column, in the order the call names them
        self.n_dropped = n_dropped


def _scan(
    sdf: Any,
    *,
    func: str,
    columns: Sequence[Hashable],
    label: Hashable,
    nan_policy: str,
    graded: bool = False,
    weights: Sequence[Hashable] = (),
    threshold: float | None = None,
) -> _Scan:
    """One aggregation job: rows, missing values per column, and the values pandas
    refuses (infinite labels, negative labels for NDCG, negative or infinite weights),
    raising the pandas errors with whole-table counts."""
    F = _fn(sdf)
    types = _spark_types(sdf)
    cols = list(dict.fromkeys(columns))
    miss = [_missing_expr(F, types, c) for c in cols]
    any_miss = miss[0]
    for m in miss[1:]:
        any_miss = any_miss | m
    kept = ~any_miss

    def count(cond: Any, name: str) -> Any:
        return F.sum(F.when(cond, 1).otherwise(0)).cast("long").alias(name)

    aggs = [F.count(F.lit(1)).alias("rows"), count(any_miss, "dropped")]
    aggs.append(count(kept & _relevant(F, types, label, threshold), "pos"))
    aggs += [count(m, f"m{i}") for i, m in enumerate(miss)]
    y = F.col(str(label))
    if _is_float(types[label]):  # type: ignore[index]
        aggs.append(count(kept & (F.abs(y) == float("inf")), "inf_label"))
    if graded:
        aggs.append(count(kept & (y.cast("double") < 0), "neg_label"))
    for j, w in enumerate(weights):
        wc = F.col(str(w)).cast("double")
        aggs.append(count(kept & ((F.abs(wc) == float("inf")) | (wc < 0)), f"bad_w{j}"))
    row = _collect(sdf.agg(*aggs))[0].asDict()
    n_rows = int(row["rows"])
    if n_rows == 0:
        raise ValueError(f"{func} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    missing = {c: int(row[f"m{i}"] or 0) for i, c in enumerate(cols)}
    bad = {c: n for c, n in missing.items() if n}
    n_dropped = int(row["dropped"] or 0)
    if bad:
        if nan_policy == "raise":
            raise missing_values_error(bad)
        if n_dropped == n_rows:
            raise ValueError(
                f"{func}: every row has a missing value in {list(bad)!r}; nothing is left to evaluate."
            )
    else:
        n_dropped = 0
    n_inf = int(row.get("inf_label") or 0)
    if n_inf:
        raise ValueError(
            f"Column {label!r} (label) has {n_inf:,} infinite value{_plural(n_inf)}; "
            "labels must be finite numbers or bools."
        )
    for j, w in enumerate(weights):
        n_bad = int(row[f"bad_w{j}"] or 0)
        if n_bad:
            raise ValueError(
                f"Column {w!r} (weight) has {n_bad:,} negative or infinite value{_plural(n_bad)}; "
                "weights must be finite and >= 0."
            )
    n_neg = int(row.get("neg_label") or 0)
    if n_neg:
        raise ValueError(
            f"Column {label!r} has {n_neg:,} negative label{_plural(n_neg)}; NDCG needs "
            "labels >= 0 (graded relevance). Clip or shift them first."
        )
    return _Scan(n_rows - n_dropped, missing, n_dropped, int(row["pos"] or 0))


def _drop_missing(sdf: Any, columns: Sequence[Hashable]) -> Any:
    """The rows with no missing value (null or NaN) in ``columns``."""
    F = _fn(sdf)
    types = _spark_types(sdf)
    keep = None
    for c in dict.fromkeys(columns):
        ok = ~_missing_expr(F, types, c)
        keep = ok if keep is None else keep & ok
    return sdf.filter(keep)


def _n_buckets(sdf: Any, n_rows: int, rows_per_bucket: int, buckets: int | None) -> int:
    if buckets is not None:
        return buckets
    return max(math.ceil(n_rows / rows_per_bucket), _parallelism(sdf.sparkSession))



def _with_bucket(sdf: Any, group: Sequence[Hashable], n: int) -> Any:
    """Add the bucket of every row: pmod(xxhash64(group keys), n), whole groups per bucket."""
    F = _fn(sdf)
    h = F.xxhash64(*[F.col(str(c)) for c in group])
    return sdf.withColumn(_BUCKET, F.pmod(h, F.lit(n)).cast("int"))


def _as_pandas_input(sdf: Any, columns: Sequence[Hashable], label: Hashable) -> Any:
    """The columns a bucket reads, as the pandas engine expects them (bool labels as
    0/1 integers, so that a null-free column stays numeric through Arrow)."""
    F = _fn(sdf)
    types = _spark_types(sdf)
    out = []
    for c in dict.fromkeys(columns):
        t = type(types[c]).__name__  # type: ignore[index]
        col = F.col(str(c))
        if c == label and t == "BooleanType":
            col = col.cast("int").alias(str(c))
        elif t == "DecimalType":
            col = col.cast("double").alias(str(c))
        out.append(col)
    return sdf.select(*out)



def _relevant(F: Any, types: dict[str, Any], label: Hashable, threshold: float | None) -> Any:
    """``label > 0`` (or ``>= threshold``), compared as integers for integer labels as pandas does."""
    col = F.col(str(label))
    name = type(types[label]).__name__  # type: ignore[index]
    if name == "BooleanType":
        return col if threshold is None else col.cast("double") >= float(threshold)
    if name in ("ByteType", "ShortType", "IntegerType", "LongType"):
        bound = 1 if threshold is None else math.ceil(threshold)
        if bound > 2**63 - 1:
            return F.lit(False)
        return col >= F.lit(max(bound, -(2**63))).cast("long")
    y = col.cast("double")
    return (y > 0) if threshold is None else (y >= float(threshold))


