"""Whether a LazyFrame is evaluated in memory (one collect, then the eager path) or bucket by bucket.

A LazyFrame whose evaluation fits in memory is collected once, only the plan's columns, and the
collected frame takes the eager path (:func:`pandas_rankeval.engines.polars.run`): the same
arrays, the same numbers to the last bit, the same errors and warnings as the eager frame, and
no scan, range pass or bucket. Buckets of whole groups (:mod:`.lazy`) are for the frames that do
not fit.

The rule, decided before any column is read:

1. ``engine_options`` with ``buckets`` or ``rows_per_bucket``: buckets, as asked.
2. Else one ``select(pl.len())`` query counts the rows (polars answers it from the frame's length
   or a Parquet file's metadata where it can; a filter or a join is computed on the columns it
   reads, nothing collected). The evaluation's memory is estimated as rows x
   :func:`row_bytes` (the collected columns' widths from the schema, plus what the eager path
   holds per row and per score column beside them). At most ``memory_budget`` bytes (default
   :data:`MEMORY_BUDGET`, 2 GiB): one collect and the eager path; above it: buckets of whole
   groups of at most 5,000,000 rows and at most the rows the budget holds by the same estimate
   (:func:`bucket_options`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import polars as pl

from .convert import dtype_class

__all__ = ["MEMORY_BUDGET", "ROWS_PER_BUCKET", "bucket_options", "collect_columns", "fits_in_memory", "row_bytes"]

#: Bytes an in-memory evaluation of a LazyFrame may take by the estimate of :func:`row_bytes`.
MEMORY_BUDGET = 2 * 1024**3
#: Rows of one bucket of whole groups at most, and distinct scores of one range of the global-AUC
#: count, when ``rows_per_bucket`` is not given.
ROWS_PER_BUCKET = 5_000_000

#: Bytes per row of a collected column of each fixed-width dtype.
_WIDTH: dict[Any, int] = {
    pl.Int8: 1, pl.Int16: 2, pl.Int32: 4, pl.Int64: 8, pl.UInt8: 1, pl.UInt16: 2, pl.UInt32: 4, pl.UInt64: 8,
    pl.Float32: 4, pl.Float64: 8, pl.Boolean: 1, pl.Date: 4, pl.Datetime: 8, pl.Duration: 8, pl.Time: 8,
    pl.Categorical: 4, pl.Enum: 4,
}
#: A string, Decimal or any other column: its collected value and pandas' copy of it (the
#: eager path converts these; numeric columns it reads on polars' own buffer).
_OTHER = 64
#: What the eager path holds per row beside the columns (group codes, row order, label levels),
#: per score column (its ranking and per-row metric terms), and per score column more for the
#: clustered DeLong variance of global AUC (its placements per row). Measured peaks, 1e6 rows in
#: 1e5 groups: gauc 39 bytes per row above the columns, a report of 8 metrics x 2 scores 57,
#: report(ci=0.95) of auc x 2 scores 266.
_PER_ROW = 48
_PER_SCORE = 40
_PER_SCORE_DELONG = 120


def row_bytes(plan: Any, schema: Any) -> int:
    """The estimated peak bytes per row of the eager path on the plan's columns of a frame of this
    polars ``schema``: the columns' widths plus :data:`_PER_ROW`, :data:`_PER_SCORE` per score
    and, when the plan asks for global AUC's clustered DeLong variance, :data:`_PER_SCORE_DELONG`
    per score.

    Examples
    --------
    >>> import polars as pl
    >>> from pandas_rankeval.engines.polars import schema
    >>> from pandas_rankeval.summary import make_plan
    >>> lf = pl.LazyFrame({"u": [1], "y": [1], "s": [0.5]})
    >>> plan = make_plan("report", kind="report", group="u", label="y", scores="s", metrics=["gauc"], df=schema(lf))
    >>> row_bytes(plan, lf.collect_schema())  # 3 x 8 bytes of columns, 48 + 40 of work
    112
    """
    cols = list(dict.fromkeys(plan.columns))
    width = sum(_WIDTH.get(dtype_class(schema[str(c)]), _OTHER) for c in cols)
    per_score = _PER_SCORE + (_PER_SCORE_DELONG if plan.auc_placements else 0)
    return int(width + _PER_ROW + per_score * len(plan.scores))


def fits_in_memory(lf: pl.LazyFrame, plan: Any, options: dict[str, Any]) -> bool:
    """The rule of this module: no ``buckets`` nor ``rows_per_bucket`` asked for, and the rows
    (one ``select(pl.len())`` query) times :func:`row_bytes` within ``options["memory_budget"]``."""
    if options.get("buckets") is not None or options.get("rows_per_bucket") is not None:
        return False
    budget = options.get("memory_budget") or MEMORY_BUDGET
    rows = int(lf.select(pl.len()).collect().item())
    return rows * row_bytes(plan, lf.collect_schema()) <= budget


def bucket_options(options: dict[str, Any], plan: Any, schema: Any) -> dict[str, Any]:
    """The options of the bucketed path: ``rows_per_bucket`` as given, else the rows the budget
    holds by :func:`row_bytes` (at most :data:`ROWS_PER_BUCKET`); ``range_rows``, the distinct
    scores of one range of the global-AUC count: ``rows_per_bucket`` as given, else
    :data:`ROWS_PER_BUCKET`.

    Examples
    --------
    >>> import polars as pl
    >>> from pandas_rankeval.engines.polars import schema
    >>> from pandas_rankeval.summary import make_plan
    >>> lf = pl.LazyFrame({"u": [1], "y": [1], "s": [0.5]})
    >>> plan = make_plan("report", kind="report", group="u", label="y", scores="s", metrics=["gauc"], df=schema(lf))
    >>> opts = {"rows_per_bucket": None, "buckets": None, "memory_budget": 112 * 40}
    >>> out = bucket_options(opts, plan, lf.collect_schema())
    >>> out["rows_per_bucket"], out["range_rows"]
    (40, 5000000)
    """
    given = options.get("rows_per_bucket")
    budget = options.get("memory_budget") or MEMORY_BUDGET
    held = max(1, budget // row_bytes(plan, schema))
    return {**options, "rows_per_bucket": given or min(ROWS_PER_BUCKET, held), "range_rows": given or ROWS_PER_BUCKET}


def collect_columns(lf: pl.LazyFrame, columns: Sequence[Hashable]) -> pl.DataFrame:
    """The named columns of ``lf``, collected once under their own names, each selected by position
    (``pl.nth``: a name is never read as a pattern such as ``"^s$"`` or ``"*"``)."""
    position = {name: i for i, name in enumerate(lf.collect_schema().names())}
    return lf.select([pl.nth(position[str(c)]) for c in dict.fromkeys(columns)]).collect()
