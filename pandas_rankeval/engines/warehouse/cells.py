"""``calibration_by`` on an Ibis table: two queries, the rows never leave the warehouse.

1. **checks** (:func:`cell_checks`, one aggregate, one row back): the whole-table counts that
   ``calibration_by`` raises pandas' errors from (rows, missing values per column and rows with any,
   infinite labels with ``threshold``, labels other than 0 and 1 without it, probabilities
   outside [0, 1] with the range seen, negative or infinite weights), each over the rows without a
   missing value, as the pandas pass counts them (:mod:`pandas_rankeval.calibration.cells`). The
   three smallest labels other than 0 and 1 cost one more small query, on that error only.
2. **cells** (:func:`cell_bins`, one GROUP BY over (field and group keys, ECE bin)): one row per
   (cell, bin) with its rows and the sums of w, w y, w p, w l and w (p - y); the client adds the
   bins of a cell up (:func:`pandas_rankeval.calibration.cells.cells_from_bins`).

The row terms are numpy's, row for row (:mod:`pandas_rankeval.core.kernels.calibration`):

- the log loss of a row and its ECE bin are :mod:`.calibration_sql`'s, as for the per-group
  calibration metrics (numpy's numbers: the no-click loss as log1p, the bins as searchsorted);
- without ``sample_weight`` the sums are those of the row terms (numpy multiplies them by 1.0).

Portable SQL: casts to DOUBLE, CASE, comparisons, ``ln``, ``greatest`` / ``least``, SUM and
COUNT, compiled by Ibis for DuckDB, SQLite, Postgres, DataFusion and ClickHouse alike.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from ..base import internal_prefix
from .calibration_sql import ece_bin, row_loss
from .checks import has_nan, missing_expr
from .queries import NAME, execute, schema

__all__ = ["CELL_SUMS", "NAME", "cell_bins", "cell_checks", "label_examples", "table_schema"]

#: The sums of one (cell, bin) row, in the order of the cells' layout after the row count.
CELL_SUMS = ("w", "wy", "wp", "wl", "wd")


def table_schema(t: Any) -> pd.DataFrame:
    """An empty pandas frame of the table's columns and dtypes (no query)."""
    return schema(t)


def _nan(t: Any, options: dict[str, Any]) -> bool:
    """Whether the backend stores NaN (SQLite does not: NaN is NULL there)."""
    return has_nan(t) if options.get("execute") is None else options.get("dialect") != "sqlite"


def _double(t: Any, column: Hashable, dtype: Any) -> Any:
    """A numeric or bool column as DOUBLE (a bool as 1.0 / 0.0: Postgres casts no boolean to a float)."""
    import ibis

    c = t[str(column)]
    if pd.api.types.is_bool_dtype(dtype):
        return ibis.ifelse(c, ibis.literal(1.0, "float64"), ibis.literal(0.0, "float64"))
    return c.cast("float64")


def _isinf(c: Any, nan: bool) -> Any:
    import ibis

    if nan:
        return c.isinf()
    return (c == ibis.literal(float("inf"), "float64")) | (c == ibis.literal(float("-inf"), "float64"))


def _count_if(cond: Any) -> Any:
    import ibis

    return ibis.ifelse(cond, 1, 0).sum().cast("int64")


def _kept(t: Any, columns: Sequence[Hashable], sch: pd.DataFrame, nan: bool) -> Any:
    """The rows without a missing value in any column read (NULL, or NaN in a float column)."""
    out = ~missing_expr(t, columns[0], sch[str(columns[0])].dtype, nan)
    for c in columns[1:]:
        out = out & ~missing_expr(t, c, sch[str(c)].dtype, nan)
    return out


def cell_checks(t: Any, *, columns: Sequence[Hashable], label: Hashable, score: Hashable,
                sample_weight: Hashable | None, threshold: float | None,
                options: dict[str, Any]) -> dict[str, Any]:
    """The one aggregate query of the checks; its counts as plain Python numbers.

    Keys: ``rows``, ``dropped`` (rows with a missing value), ``missing`` (column -> count, the
    columns that have some, in ``columns``' order), ``infinite_label``, ``not_binary``,
    ``outside_unit``, ``p_lo``, ``p_hi`` (the range of the kept scores), ``bad_weight``; every count
    but the first two over the rows without a missing value."""
    import ibis

    sch = schema(t)
    nan = _nan(t, options)
    kept = _kept(t, columns, sch, nan)
    aggs: dict[str, Any] = {"rows": t.count().cast("int64"), "dropped": _count_if(~kept)}
    for i, c in enumerate(columns):
        aggs[f"miss{i}"] = _count_if(missing_expr(t, c, sch[str(c)].dtype, nan))
    ldt = sch[str(label)].dtype
    lab = _double(t, label, ldt)
    if threshold is not None:
        if pd.api.types.is_float_dtype(ldt):  # an integer or bool label holds no infinity
            aggs["inf_label"] = _count_if(kept & _isinf(lab, nan))
    elif not pd.api.types.is_bool_dtype(ldt):
        aggs["not_binary"] = _count_if(kept & (lab != 0.0) & (lab != 1.0))
    p = _double(t, score, sch[str(score)].dtype)
    aggs["outside"] = _count_if(kept & ~((p >= 0.0) & (p <= 1.0)))
    aggs["p_lo"] = ibis.ifelse(kept, p, ibis.null("float64")).min()
    aggs["p_hi"] = ibis.ifelse(kept, p, ibis.null("float64")).max()
    if sample_weight is not None:
        w = _double(t, sample_weight, sch[str(sample_weight)].dtype)
        aggs["bad_w"] = _count_if(kept & ((w < 0.0) | _isinf(w, nan)))
    row = execute(t.aggregate(**aggs), options).iloc[0]

    def count(name: str) -> int:
        v = row.get(name, 0)
        return 0 if v is None or pd.isna(v) else int(v)

    def bound(name: str) -> float:
        v = row[name]
        return float("nan") if v is None or pd.isna(v) else float(v)

    return {
        "rows": count("rows"), "dropped": count("dropped"),
        "missing": {c: count(f"miss{i}") for i, c in enumerate(columns) if count(f"miss{i}")},
        "infinite_label": count("inf_label"), "not_binary": count("not_binary"), "outside_unit": count("outside"),
        "p_lo": bound("p_lo"), "p_hi": bound("p_hi"), "bad_weight": count("bad_w"),
    }


def label_examples(t: Any, *, columns: Sequence[Hashable], label: Hashable, options: dict[str, Any]) -> list[float]:
    """The three smallest kept labels other than 0 and 1 (one small query, on that error only; a
    GROUP BY, see :func:`.checks.label_examples`)."""
    sch = schema(t)
    lab = _double(t, label, sch[str(label)].dtype)
    rows = t.filter(_kept(t, columns, sch, _nan(t, options)) & (lab != 0.0) & (lab != 1.0))
    rows = rows.mutate(v=_double(rows, label, sch[str(label)].dtype))
    out = execute(rows.group_by("v").aggregate(n=rows.count()).select("v").order_by("v").limit(3), options)
    return [float(v) for v in out["v"]]


def _terms(t: Any, sch: pd.DataFrame, label: Hashable, score: Hashable, sample_weight: Hashable | None,
           threshold: float | None, bins: int) -> tuple[Any, Any, Any, Any, Any]:
    """Per row: p, the 0/1 click as DOUBLE, the weight (None: 1), the log loss and the ECE bin."""
    import ibis

    def lit(v: float) -> Any:
        return ibis.literal(float(v), "float64")

    lab = _double(t, label, sch[str(label)].dtype)
    y = lab >= lit(threshold) if threshold is not None else lab == lit(1.0)
    yf = ibis.ifelse(y, lit(1.0), lit(0.0))
    p = _double(t, score, sch[str(score)].dtype)
    w = _double(t, sample_weight, sch[str(sample_weight)].dtype) if sample_weight is not None else None
    return p, yf, w, row_loss(p, y), ece_bin(p, bins)


def cell_bins(t: Any, *, keys: Sequence[Hashable], label: Hashable, score: Hashable,
              sample_weight: Hashable | None, threshold: float | None, bins: int, columns: Sequence[Hashable],
              omit: bool, options: dict[str, Any]) -> tuple[pd.DataFrame, str]:
    """The one GROUP BY of the cells: per (keys, ECE bin), the rows (``<prefix>n``) and the sums
    of :data:`CELL_SUMS` (``<prefix>w``, ...), the bin in ``<prefix>bin``; the key columns under
    their own names (a float key as pandas groups it: -0.0 with 0.0). ``omit``: leave out the rows
    with a missing value in ``columns``. Returns the frame and the prefix."""
    sch = schema(t)
    if omit:
        t = t.filter(_kept(t, columns, sch, _nan(t, options)))
    P = internal_prefix(t.columns)
    p, yf, w, loss, at = _terms(t, sch, label, score, sample_weight, threshold, bins)
    by = {str(k): t[str(k)] + 0.0 if t[str(k)].type().is_floating() else t[str(k)] for k in keys}
    by[f"{P}bin"] = at
    d = p - yf
    if w is None:  # numpy multiplies each term by 1.0: the sums of the terms
        sums = {f"{P}w": t.count().cast("float64"), f"{P}wy": yf.sum(), f"{P}wp": p.sum(), f"{P}wl": loss.sum(),
                f"{P}wd": d.sum()}
    else:
        sums = {f"{P}w": w.sum(), f"{P}wy": (w * yf).sum(), f"{P}wp": (w * p).sum(), f"{P}wl": (w * loss).sum(),
                f"{P}wd": (w * d).sum()}
    expr = t.group_by(**by).aggregate(**{f"{P}n": t.count().cast("int64")}, **sums)
    return execute(expr, options), P
