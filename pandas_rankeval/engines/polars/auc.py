"""Global AUC of a LazyFrame: the driver's ranges of distinct scores, counted by polars.

The pass itself is the driver's (:func:`pandas_rankeval.summary.ranges.auc_ranges`); this module
gives it polars' primitives. For every score column the rows are counted per distinct (segment,
score, tie-break value, label) by a streaming ``group_by`` (masses of tied rows become one row),
over ranges of the score that each hold a bounded number of distinct values; the ranges are cut
at evenly spaced values of a sample of the distinct scores (a value is sampled when its hash falls
in 1/K, so the sample is uniform over distinct values, which is what bounds a range's
``group_by``). Each range's table is handed to the driver's function as a pandas frame; for the
clustered DeLong interval its placements are joined back to the buckets (:func:`join_placements`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import polars as pl

from ...summary.ranges import RangeColumns
from .convert import dtype_class, to_pandas

__all__ = ["auc_pass", "join_placements", "map_ranges", "place_ranges", "range_frame", "score_key"]

_KEY, _N, _W, _SID, _RANGE = "__rk_key", "__rk_n", "__rk_w", "__rk_sid", "__rk_range"
#: Distinct values sampled (about) to cut a score column into ranges.
_SAMPLE = 200_000
_SEED = 0x5EED


def score_key(c: pl.Expr, dtype: Any) -> pl.Expr:
    """The score as the order key pandas ranks (floats as float64, -0.0 as 0.0; integers exact)."""
    base = dtype_class(dtype)
    if base in (pl.Float32, pl.Float64):
        return c.cast(pl.Float64) + 0.0
    if base is pl.Boolean:
        return c.cast(pl.UInt8)
    return c


def _cuts(lf: pl.LazyFrame, key: pl.Expr, n_rows: int, range_rows: int) -> list[Any]:
    """Values that cut the distinct scores into ranges of about ``range_rows`` distinct values."""
    if n_rows <= range_rows:
        return []
    k = max(1, n_rows // _SAMPLE)
    sample = (
        lf.select(key.alias(_KEY))
        .filter(pl.col(_KEY).is_not_null() & (pl.col(_KEY).hash(_SEED) % k == 0))
        .unique()
        .collect(engine="streaming")
        .get_column(_KEY)
    )
    if sample.dtype.is_float():
        sample = sample.filter(sample.is_not_nan())
    values = np.sort(sample.to_numpy())
    n_ranges = math.ceil(values.shape[0] * k / range_rows)
    if n_ranges <= 1 or values.shape[0] == 0:
        return []
    picks = values[(values.shape[0] * np.arange(1, n_ranges)) // n_ranges]
    return np.unique(picks).tolist()


def auc_pass(
    lf: pl.LazyFrame, plan: Any, names: Any, *, keep: pl.Expr | None, n_rows: int, range_rows: int, placements: bool,
) -> tuple[RangeColumns, Iterable[pl.DataFrame]]:
    """The reads of the global-AUC pass (the driver's :class:`~pandas_rankeval.summary.ranges.Ranges`
    primitive ``score_ranges``): every score column's rows counted per distinct (segment, score key,
    tie-break, label), range by range, as eager polars frames (all of them kept with
    ``placements``). ``lf`` is the renamed frame of :func:`.lazy.safe_columns`, ``names`` its
    :class:`.lazy.Names`."""
    o = plan.options
    by = [names[c] for c in plan.by]
    tb = names[o.tiebreak] if o.tiebreak is not None else None
    label = names[plan.label]
    sw = names[o.sample_weight] if o.sample_weight is not None else None
    cols = RangeColumns(_SID, _RANGE, tuple(by), _KEY, tb, label, _N, _W if sw is not None else None)
    base = lf.filter(keep) if keep is not None else lf

    def tables() -> Iterator[pl.DataFrame]:
        for i, s in enumerate(plan.scores):
            key = score_key(names.col(s), names.dtype(s))
            bounds = [None, *_cuts(base, key, n_rows, range_rows), None]
            for r in range(len(bounds) - 1):
                q = base.with_columns(key.alias(_KEY))
                lo, hi = bounds[r], bounds[r + 1]
                if lo is not None:
                    q = q.filter(pl.col(_KEY) >= lo)
                if hi is not None:
                    q = q.filter(pl.col(_KEY) < hi)
                aggs = [pl.len().alias(_N)]
                if sw is not None:
                    aggs.append(pl.col(sw).cast(pl.Float64).sum().alias(_W))
                t = q.group_by(cols.keys).agg(aggs).collect(engine="streaming")
                if t.height:
                    yield t.with_columns(pl.lit(i, pl.Int64).alias(_SID), pl.lit(r, pl.Int64).alias(_RANGE))

    return cols, (list(tables()) if placements else tables())


def range_frame(t: pl.DataFrame) -> Any:
    """A polars range table as the pandas frame the driver's range functions read."""
    return to_pandas(t, t.columns)


def map_ranges(tables: Iterable[pl.DataFrame], fn: Any) -> list[Any]:
    """``fn`` of every range table, one at a time (the driver's ``map_ranges``, on the client)."""
    return [fn(range_frame(t)) for t in tables]


def place_ranges(
    tables: Any, keys: list[str], fn: Any, names: dict[int, str], sid_col: str = _SID
) -> dict[int, pl.DataFrame]:
    """Per score index, its range tables' ``keys`` with ``fn``'s placements in column ``names[sid]``."""
    out: dict[int, list[pl.DataFrame]] = {}
    for t in tables:
        sid = int(t.get_column(sid_col)[0])
        out.setdefault(sid, []).append(t.select(keys).with_columns(pl.Series(names[sid], fn(range_frame(t)))))
    return {sid: pl.concat(frames, how="vertical") for sid, frames in out.items()}


def join_placements(part: pl.DataFrame, key: pl.Expr, table: pl.DataFrame, name: str = _KEY) -> pl.DataFrame:
    """A bucket with a placement table joined on (left; ``key``: the bucket's score order key, which
    takes the table's key column ``name`` while they are joined): the driver's ``join``."""
    on = table.columns[:-1]
    return part.with_columns(key.alias(name)).join(table, on=on, how="left", nulls_equal=False).drop(name)
