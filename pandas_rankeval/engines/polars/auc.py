"""Global AUC of a LazyFrame: exact counts per distinct score, range by range, chained in order.

For every score column the rows are counted per distinct (segment, score, tie-break value,
label) by a streaming ``group_by`` (masses of tied rows become one row), over ranges of the
score that each hold a bounded number of distinct values; the ranges are cut at evenly spaced
values of a sample of the distinct scores (a value is sampled when its hash falls in 1/K, so the
sample is uniform over distinct values, which is what bounds a range's ``group_by``). Each
range's table is sorted, its labels are read as pandas reads them
(:func:`pandas_rankeval.core.prepare.label_levels`), its (relevant, non-relevant) counts per
distinct key give exact Mann-Whitney counts (:func:`pandas_rankeval.summary.auc_counts_sorted`),
and the ranges are chained in score order in Python integers (:func:`~pandas_rankeval.summary.chain_auc`).
No equal score straddles two ranges, so the result is exact under every tie rule.

For the clustered DeLong interval and test, every distinct key also gets its global placement
(:func:`~pandas_rankeval.summary.chain_offsets`, :func:`~pandas_rankeval.summary.placements_sorted`):
a table of (segment, score, tie-break, label) -> placement that the group pass joins to the rows.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from ... import summary as S
from ...core.prepare import label_levels
from ...core.validation import numeric_values
from ...summary.summary import _plain
from .convert import _base, _column

__all__ = ["AucPass", "auc_pass", "score_key"]

_KEY, _N, _W, _RUN = "__rk_key", "__rk_n", "__rk_w", "__rk_run"
#: Distinct values sampled (about) to cut a score column into ranges.
_SAMPLE = 200_000
_SEED = 0x5EED


def score_key(c: pl.Expr, dtype: Any) -> pl.Expr:
    """The score as the order key pandas ranks (floats as float64, -0.0 as 0.0; integers exact)."""
    base = _base(dtype)
    if base in (pl.Float32, pl.Float64):
        return c.cast(pl.Float64) + 0.0
    if base is pl.Boolean:
        return c.cast(pl.UInt8)
    return c


@dataclass
class AucPass:
    """What the score passes found."""

    auc: dict[tuple[tuple, Hashable], Any] = field(default_factory=dict)
    #: score -> polars table (segment, score key, tie-break, label, placement) for DeLong
    placements: dict[Hashable, pl.DataFrame] = field(default_factory=dict)
    #: relevant rows and rows counted (of the first score column: every kept row once)
    n_pos: int = 0
    n_rows: int = 0


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


def _segment_keys(t: pl.DataFrame, by: list[str], rows: np.ndarray) -> list[tuple]:
    """The segment key of the given rows, as the summaries key their segments."""
    if not by:
        return [()] * rows.shape[0]
    idx = pl.Series(rows, dtype=pl.UInt32)
    cols = [_column(t.get_column(c).gather(idx)).tolist() for c in by]
    return [tuple(_plain(v) for v in key) for key in zip(*cols)]


def _relevant(labels: pl.Series, label: Hashable, threshold: float | None) -> np.ndarray:
    """Relevance of each row's label, read as pandas reads it."""
    y = numeric_values(_column(labels), label, "label", keep_int=True)
    return np.asarray(label_levels(y, threshold, graded=False).rel, dtype=bool)


def auc_pass(
    lf: pl.LazyFrame,
    plan: Any,
    names: Any,
    *,
    keep: pl.Expr | None,
    n_rows: int,
    range_rows: int,
    placements: bool,
) -> AucPass:
    """Exact global-AUC counts of every (segment, score) of the plan; DeLong tables on request.
    ``lf`` is the renamed frame of :func:`.lazy.safe_columns` and ``names`` its :class:`.lazy.Names`."""
    o = plan.options
    by = [names[c] for c in plan.by]
    tb = [names[o.tiebreak]] if o.tiebreak is not None else []
    label = names[plan.label]
    sw = names[o.sample_weight] if o.sample_weight is not None else None
    out = AucPass()
    base = lf.filter(keep) if keep is not None else lf
    for i, s in enumerate(plan.scores):
        key = score_key(names.col(s), names.dtype(s))
        cuts = _cuts(base, key, n_rows, range_rows)
        bounds = [None, *cuts, None]
        parts: dict[tuple, list[tuple[int, tuple]]] = {}
        pieces: list[tuple[int, pl.DataFrame, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[tuple], np.ndarray]] = []
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
            keys = list(dict.fromkeys([*by, _KEY, *tb, label]))
            t = q.group_by(keys).agg(aggs).collect(engine="streaming")
            if t.height == 0:
                continue
            # worst first: ascending score; inside a score a higher tie-break value ranks lower
            t = t.sort([*by, _KEY, *tb], descending=[False] * (len(by) + 1) + [True] * len(tb))
            add_sorted_counts(t, r, by=by, key=_KEY, n_col=_N, w_col=_W if sw is not None else None, tb=tb,
                              label=label, plan=plan, first_score=i == 0, out=out, parts=parts,
                              pieces=pieces if placements else None, keys=keys)
        for key_, items in parts.items():
            out.auc[(key_, s)] = S.chain_auc([c for _, c in items])
        if placements:
            out.placements[s] = _placement_table(parts, pieces, i)
    return out



def add_sorted_counts(
    t: pl.DataFrame, r: int, *, by: list[str], key: str, n_col: str, w_col: str | None, tb: list[str], label: str,
    plan: Any, first_score: bool, out: Any, parts: dict, pieces: list | None, keys: list[str],
) -> None:
    """One range ``r`` of (segment, score key, tie-break, label) counts, sorted worst first, into
    the pass's accumulators: every distinct score's (relevant, other) mass per segment (chained
    into the exact AUC by :func:`pandas_rankeval.summary.chain_auc`), the row and relevant-row
    totals of the first score, and with ``pieces`` what the DeLong placements need. The one
    definition of this step for every engine that counts scores by range (polars LazyFrame,
    DuckDB)."""
    rel = _relevant(t.get_column(label), plan.label, plan.options.threshold)
    n = t.get_column(n_col).to_numpy().astype(np.int64)
    mass = n if w_col is None else t.get_column(w_col).to_numpy()
    if first_score:
        out.n_pos += int(n[rel].sum())
        out.n_rows += int(n.sum())
    zero = np.zeros_like(mass)
    run = t.select(pl.struct([*by, key, *tb]).rle_id()).to_series().to_numpy()
    first = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])
    pos = np.add.reduceat(np.where(rel, mass, zero), first)
    neg = np.add.reduceat(np.where(rel, zero, mass), first)
    if by:
        seg = t.select(pl.struct(by).rle_id()).to_series().to_numpy()[first]
        seg_first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    else:
        seg_first = np.zeros(1, dtype=np.int64)
    seg_keys = _segment_keys(t, by, first[seg_first])
    ends = np.r_[seg_first[1:], first.shape[0]]
    for key_, a, b in zip(seg_keys, seg_first, ends):  # one iteration per segment of the range
        parts.setdefault(key_, []).append((r, S.auc_counts_sorted(pos[a:b], neg[a:b])))
    if pieces is not None:
        pieces.append((r, t.select(keys), rel, run, first, pos, neg, list(zip(seg_keys, seg_first, ends))))

def _placement_table(parts: dict, pieces: list, i: int, prefix: str = "__rk_") -> pl.DataFrame:
    """Every distinct (segment, score, tie-break, label) of score ``i`` with its row's global
    DeLong placement (relevant rows: non-relevant rows below; others: relevant rows above), in
    column ``<prefix>pl_<i>``; the score key ``<prefix>key`` becomes ``<prefix>key_<i>``."""
    offsets: dict[tuple[int, tuple], tuple[int, int]] = {}
    for key_, items in parts.items():
        for (r, _), off in zip(items, S.chain_offsets([c for _, c in items])):
            offsets[(r, key_)] = off
    frames = []
    for r, t, rel, run, first, pos, neg, segs in pieces:
        a = np.empty(first.shape[0])
        b = np.empty(first.shape[0])
        for key_, lo, hi in segs:
            a[lo:hi], b[lo:hi] = S.placements_sorted(pos[lo:hi], neg[lo:hi], *offsets[(r, key_)])
        which = np.cumsum(np.r_[False, run[1:] != run[:-1]])  # each row's distinct key
        place = np.where(rel, a[which], b[which])
        key = f"{prefix}key"  # the score key column of the pieces (``_KEY`` under the default prefix)
        frames.append(t.with_columns(pl.Series(f"{prefix}pl_{i}", place)).rename({key: f"{key}_{i}"}))
    return pl.concat(frames, how="vertical")
