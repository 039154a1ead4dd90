"""The global-AUC pass of a partitioned evaluation, written once: ranges of distinct scores.

An engine gives the driver two primitives (:class:`Ranges`): **count by keys and cut into
ranges** (rows per distinct (score column, segment, score key, tie-break value, label), the
distinct keys of each score column cut into ranges of ascending score key, wherever the engine
keeps them), and **map a function over the ranges** (run where a range lies; only the result
travels). Everything else is here, for every engine:

1. :func:`range_counts` (run by the engine on every range): the labels read as pandas reads them
   (:func:`~pandas_rankeval.core.inputs.prepare.label_levels`), the (relevant, non-relevant) mass of every
   distinct key, sorted worst first (ascending score; inside a score a higher tie-break value
   ranks lower), and the exact Mann-Whitney counts of every (score column, range, segment)
   (:func:`~pandas_rankeval.summary.auc_counts.auc_counts_blocks`): a few small tuples per range;
2. :func:`auc_ranges` chains each (segment, score column)'s ranges in score order, in Python
   integers (:func:`~pandas_rankeval.summary.auc_counts.chain_auc`): exact under every tie rule,
   since no distinct key straddles two ranges;
3. for clustered DeLong, every range's offsets (:func:`~pandas_rankeval.summary.auc_counts.chain_offsets`)
   go back to the ranges, and :func:`range_placements` gives every counted row its global
   placement (:func:`~pandas_rankeval.summary.auc_counts.placements_blocks`); the engine keeps
   those tables where they are and joins them back to the rows of the group pass
   (:meth:`pandas_rankeval.summary.driver.Source.join`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..core.inputs.prepare import label_levels
from ..core.inputs.validation import numeric_values
from .auc_counts import auc_counts_blocks, chain_auc, chain_offsets, placements_blocks
from .plan import Plan
from .summary import _plain
from .xauc_counts import chain_xauc, xauc_range_sums

__all__ = ["AucPass", "RangeColumns", "RangeCounts", "Ranges", "auc_ranges", "range_counts", "range_placements"]


@dataclass(frozen=True)
class RangeColumns:
    """The columns of a range table (the engine's names). A row: one distinct (score column,
    range, segment, score key, tie-break value, label) with its rows (and summed sample weights)."""

    sid: str  # the score column's index in the plan
    range: str  # ascending in score key within a score column: the ranges' order
    by: tuple[str, ...]  # the segment columns, in the plan's order
    key: str  # the score's order key (equal exactly where pandas ties the scores)
    tb: str | None  # the tie-break column
    label: str
    n: str  # rows
    w: str | None = None  # summed sample weights
    key2: str | None = None  # a second part of the order key, after ``key`` (an engine's integer part)

    @property
    def keys(self) -> list[str]:
        """The columns a placement table is joined back on (each once)."""
        order = [self.key, *([self.key2] if self.key2 is not None else [])]
        return list(dict.fromkeys([*self.by, *order, *([self.tb] if self.tb is not None else []), self.label]))


@dataclass
class RangeCounts:
    """What one range table gave: ``(score index, range, segment key, counts)`` per block, and the
    rows and relevant rows of the first score column (every kept row once)."""

    blocks: list[tuple[int, int, tuple, tuple]]
    n_rows: int = 0
    n_pos: int = 0


@dataclass
class AucPass:
    """What the global-AUC pass found."""

    auc: dict[tuple[tuple, Hashable], Any] = field(default_factory=dict)
    #: score -> the engine's table of (segment, score key, tie-break, label, placement), for DeLong
    placements: dict[Hashable, Any] = field(default_factory=dict)
    n_pos: int = 0
    n_rows: int = 0


class Ranges(Protocol):
    """The primitives of the global-AUC pass (no metric, option or message)."""

    def score_ranges(self, plan: Plan, keep: bool, n_rows: int, placements: bool) -> tuple[RangeColumns, Any]:
        """Rows counted per distinct (score index, segment, score key, tie-break value, label) of every
        score column of the plan, cut into ranges of ascending score key (a range holds every row
        of its keys): the columns and the engine's handle of the ranges. ``keep``: only the rows
        pandas keeps. With ``placements`` the ranges are kept for :meth:`place_ranges`."""
        ...

    def map_ranges(self, ranges: Any, fn: Callable[[pd.DataFrame], Any]) -> list[Any]:
        """``fn`` of every table of ranges (a pandas frame of :class:`RangeColumns`, one or more
        whole ranges), run where it lies; the results."""
        ...

    def place_ranges(self, ranges: Any, fn: Callable[[pd.DataFrame], np.ndarray], names: dict[int, str]) -> dict[int, Any]:
        """Per score index: the engine's table of the :attr:`RangeColumns.keys` of its ranges with
        ``fn``'s values (one per row of the range table, in its order) in column ``names[sid]``."""
        ...


def _relevant(frame: pd.DataFrame, cols: RangeColumns, label: Hashable, threshold: float | None) -> np.ndarray:
    y = numeric_values(frame[cols.label], label, "label", keep_int=True)
    return np.asarray(label_levels(y, threshold, graded=False).rel, dtype=bool)


def _layout(frame: pd.DataFrame, cols: RangeColumns, label: Hashable, threshold: float | None) -> tuple[Any, ...]:
    """The rows sorted worst first within each (score, range, segment) block; each distinct key's
    (relevant, non-relevant) mass; where blocks start (in distinct keys) and their identities."""
    sid = frame[cols.sid].to_numpy().astype(np.int64)
    rng = frame[cols.range].to_numpy().astype(np.int64)
    if cols.by:
        seg = frame.groupby(list(cols.by), sort=False, observed=True, dropna=False).ngroup().to_numpy()
    else:
        seg = np.zeros(len(frame), dtype=np.int64)
    key = frame[cols.key].to_numpy()
    sort = [key] if cols.key2 is None else [frame[cols.key2].to_numpy(), key]  # lexsort: the last key first
    if cols.tb is not None:
        sort.insert(0, -pd.factorize(frame[cols.tb], sort=True)[0])  # lexsort: the last key first
    # (score, range) as one int64 in their lexicographic order, and the segment only with by=:
    # the same order from a sort of fewer keys
    lo, span = int(rng.min()), int(rng.max() - rng.min()) + 1
    if span * (int(sid.max()) + 1) < 2**62 and int(sid.min()) >= 0:
        outer: tuple[np.ndarray, ...] = (sid * span + (rng - lo),)
    else:  # pragma: no cover - a range table of that many ranges
        outer = (rng, sid)
    order = np.lexsort((*sort, *((seg,) if cols.by else ()), *outer))
    sid, rng, seg = sid[order], rng[order], seg[order]
    block = np.r_[True, (sid[1:] != sid[:-1]) | (rng[1:] != rng[:-1]) | (seg[1:] != seg[:-1])]
    change = block.copy()
    for k in sort:  # the order key (both parts) and the tie-break
        v = k[order]
        change[1:] |= v[1:] != v[:-1]
    first = np.flatnonzero(change)  # the first row of every distinct key
    rel = _relevant(frame, cols, label, threshold)[order]
    n = frame[cols.n].to_numpy().astype(np.int64)[order]
    mass = n if cols.w is None else frame[cols.w].to_numpy().astype(np.float64)[order]
    zero = np.zeros_like(mass)
    pos = np.add.reduceat(np.where(rel, mass, zero), first)
    neg = np.add.reduceat(np.where(rel, zero, mass), first)
    starts = np.flatnonzero(block[first])  # blocks, in distinct keys
    rows = order[first[starts]]  # a row of each block, in the frame's order
    segs = [()] * rows.shape[0]
    if cols.by:
        values = [frame[c].iloc[rows].tolist() for c in cols.by]
        segs = [tuple(_plain(v) for v in k) for k in zip(*values)]
    ids = list(zip(sid[first[starts]].tolist(), rng[first[starts]].tolist(), segs))
    return order, first, rel, n, pos, neg, starts, ids


def range_counts(frame: pd.DataFrame, cols: RangeColumns, label: Hashable, threshold: float | None) -> RangeCounts:
    """Exact Mann-Whitney counts of every (score, range, segment) block of one range table."""
    if not len(frame):
        return RangeCounts([])
    order, _, rel, n, pos, neg, starts, ids = _layout(frame, cols, label, threshold)
    counts = auc_counts_blocks(pos, neg, starts)
    out = RangeCounts([(s, r, seg, c) for (s, r, seg), c in zip(ids, counts)])
    sid0 = frame[cols.sid].to_numpy()[order] == 0
    out.n_rows = int(n[sid0].sum())
    out.n_pos = int(n[sid0 & rel].sum())
    return out


def range_placements(
    frame: pd.DataFrame, cols: RangeColumns, label: Hashable, threshold: float | None, offsets: bytes
) -> np.ndarray:
    """Every row's global DeLong placement (a relevant row: the non-relevant rows below it; another:
    the relevant rows above it; ties count 1/2), in the frame's row order. ``offsets``: pickled
    ``{(score, range, segment): (non-relevant rows before, relevant rows after)}``."""
    out = np.empty(len(frame))
    if not len(frame):
        return out
    order, first, rel, _, pos, neg, starts, ids = _layout(frame, cols, label, threshold)
    table = pickle.loads(offsets)
    off = np.array([table[i] for i in ids], dtype=object).reshape(-1, 2)
    a, b = placements_blocks(pos, neg, starts, off[:, 0].astype(np.float64), off[:, 1].astype(np.float64))
    which = np.repeat(np.arange(first.shape[0]), np.diff(np.r_[first, len(frame)]))  # each sorted row's key
    out[order] = np.where(rel, a[which], b[which])
    return out


def auc_ranges(source: Ranges, plan: Plan, keep: bool, n_rows: int, placements: bool, prefix: str = "__rk_") -> AucPass:
    """The exact global-AUC counts of every (segment, score) of the plan, chained in score order
    over the engine's ranges; with ``placements``, each score's table of DeLong placements (in
    column ``<prefix>pl_<i>``) for the group pass."""
    if plan.global_metric == "xauc":
        return _xauc_ranges(source, plan, keep, n_rows)
    threshold = plan.options.threshold
    cols, ranges = source.score_ranges(plan, keep, n_rows, placements)
    out = AucPass()
    chunks: dict[tuple[tuple, int], list[tuple[int, Any]]] = {}
    for res in source.map_ranges(ranges, partial(range_counts, cols=cols, label=plan.label, threshold=threshold)):
        out.n_rows += res.n_rows
        out.n_pos += res.n_pos
        for sid, r, seg, counts in res.blocks:
            chunks.setdefault((seg, sid), []).append((r, counts))
    offsets: dict[tuple[int, int, tuple], tuple[int, int]] = {}
    for (seg, sid), items in sorted(chunks.items(), key=lambda kv: kv[0][1]):  # score by score, segments as met
        items.sort(key=lambda rc: rc[0])
        parts = [c for _, c in items]
        out.auc[(seg, plan.scores[sid])] = chain_auc(parts)
        if placements:
            for (r, _), off in zip(items, chain_offsets(parts)):
                offsets[(sid, r, seg)] = off
    if placements and offsets:
        blob = pickle.dumps(offsets, protocol=pickle.HIGHEST_PROTOCOL)  # bytes: shipped once
        fn = partial(range_placements, cols=cols, label=plan.label, threshold=threshold, offsets=blob)
        names = {i: f"{prefix}pl_{i}" for i in range(len(plan.scores))}
        tables = source.place_ranges(ranges, fn, names)
        out.placements = {plan.scores[i]: t for i, t in tables.items()}
    return out


def _xauc_ranges(source: Ranges, plan: Plan, keep: bool, n_rows: int) -> AucPass:
    """Global XAUC of the plan's one score column over the engine's ranges of distinct (score,
    label) (:mod:`.xauc_counts`): each range's exact sums and label counts, chained on the client."""
    cols, ranges = source.score_ranges(plan, keep, n_rows, False)
    parts = source.map_ranges(ranges, partial(xauc_range_sums, cols=cols, label=plan.label))
    out = AucPass(n_rows=sum(p.n_rows for p in parts))
    out.auc[((), plan.scores[0])] = chain_xauc(parts)
    return out
