"""Tie blocks: one sort per score column, every metric a reduction over it.

(An *engine* in this package is a frame backend: pandas, polars, DuckDB, Dask, Spark. This module is
the array pipeline they all share.)

The central object is :class:`Ranking`, the rows of one score column sorted by
(group, score descending) and cut into *tie blocks*: maximal runs of rows of one
group that the ranking cannot tell apart. Every metric is a function of a few
per-block numbers (size ``t``, relevant rows ``p``, offset ``m`` of the block
inside its group, summed gain) reduced per group with ``np.add.reduceat``; the
expected value over all orderings of tied items is in closed form for each
metric (McSherry & Najork, ECIR 2008), so nothing is enumerated or sampled.

How the sort stays close to the cost of one ``np.argsort``: the score column is
argsorted once; its dense rank, the group code and the label level are packed
into one int64 per row and sorted by value (``ndarray.sort`` on int64 is a SIMD
sort, several times faster than an argsort), so no row index has to travel and
nothing is gathered after the sort. Ties modes other than "expected" and a
tie-break column only change how the dense rank is computed: relevant-last
(pessimistic) or relevant-first (optimistic) ordering inside a tie is folded
into the rank, after which every tie block holds one label level and the
"expected" formulas give the deterministic value.

The stages are split by module: the sort of a score column and its dense rank in
:mod:`.score_sort`, global AUC in :mod:`.global_auc`, numeric helpers in :mod:`.numeric`, the tie
blocks of each group here, and the per-group metrics over them in :mod:`..kernels.ranked`. Kernels
take and return plain numpy arrays; the checking lives in :mod:`..evaluation.pipeline` and
:mod:`..inputs.prepare`.
"""

from __future__ import annotations

import numpy as np

# the stages before this one, under the names their callers have always used (``ranking.score_rank``)
from .global_auc import global_auc, global_auc_by, global_auc_by_search, global_auc_of_sorted
from .int_sort import sort_values
from .numeric import CHUNK_ROWS, bit_width, exclusive_within, starts_of_runs, cumulative_discount, harmonic, log_factorial
from .score_sort import Ties, _refine_ties, score_rank

__all__ = [
    "Ranking", "Ties", "build_ranking", "cumulative_discount", "global_auc", "global_auc_by", "global_auc_by_search",
    "global_auc_of_sorted", "harmonic", "log_factorial", "score_rank",
]
__all__ += ["bit_width", "exclusive_within", "_refine_ties", "starts_of_runs"]  # _refine_ties: private, for tests


# --------------------------------------------------------------------------- #
# The per-group sorted view
# --------------------------------------------------------------------------- #
class Ranking:
    """Rows sorted by (group, score desc) and cut into tie blocks.

    Block arrays (one entry per tie block, groups in ascending code order):
    ``size`` (t), ``offset`` (m, rows of the group ranked above the block),
    ``pos`` (relevant rows, or their summed sample weight), ``neg``, ``gain``
    (summed gain, only when gains were asked for), ``group`` (group index).
    Group arrays: ``code`` (group code), ``first`` (index of the group's first
    block), ``nblocks``, ``n`` (rows), ``npos``/``nneg`` (row counts) and, with
    sample weights, ``wpos``/``wneg``. When no two rows tie, blocks are rows and
    ``size``, ``offset`` and ``group`` are built only if a kernel asks.
    """

    def __init__(
        self,
        *,
        pos: np.ndarray,
        neg: np.ndarray | None,
        gain: np.ndarray | None,
        first: np.ndarray,
        code: np.ndarray,
        n: np.ndarray,
        npos: np.ndarray,
        size: np.ndarray | None,
        bstart: np.ndarray | None,
        wpos: np.ndarray | None = None,
        wneg: np.ndarray | None = None,
    ) -> None:
        # tie-free rankings keep relevance as a bool per row and build the integer
        # per-block arrays only when a kernel asks for them
        self.rel = pos if pos.dtype == np.bool_ else None
        self._pos = pos
        self._neg = neg
        self.gain = gain
        self.first = first
        self.code = code
        self.n = n
        self.npos = npos
        self.nneg = n - npos
        #: relevant rows per group among the ranked rows (``npos`` may be set to the whole
        #: group's when the ranking holds only the rows that can count)
        self.ranked_npos = npos
        self.wpos = wpos
        self.wneg = wneg
        self._size = size
        self._bstart = bstart
        self.nblocks = np.diff(np.append(first, pos.shape[0]))
        self.n_blocks = int(pos.shape[0])
        self._offset: np.ndarray | None = None
        self._group: np.ndarray | None = None
        self._tops: dict[int, Ranking] = {}
        self._relevant: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: rows per (group, label level), when asked for (the ideal ranking of NDCG)
        self.level_counts: np.ndarray | None = None
        #: tie-free binary labels: the gain of every relevant row (no per-row gain array)
        self.binary_gain: float | None = None
        #: when asked for: rows per (label level, block), or each row's level when blocks are rows
        self.block_levels: np.ndarray | None = None

    @property
    def n_groups(self) -> int:
        return int(self.code.shape[0])

    @property
    def pos(self) -> np.ndarray:
        if self._pos.dtype == np.bool_:
            self._pos = self._pos.astype(np.int64)
        return self._pos

    @property
    def neg(self) -> np.ndarray:
        if self._neg is None:
            self._neg = 1 - self.pos
        return self._neg

    @property
    def tie_free(self) -> bool:
        return self._size is None

    @property
    def size(self) -> np.ndarray:
        if self._size is None:
            self._size = np.ones(self.n_blocks, dtype=np.int64)
        return self._size

    @property
    def offset(self) -> np.ndarray:
        if self._offset is None:
            nb = self.n_blocks
            bstart = self._bstart if self._bstart is not None else np.arange(nb, dtype=np.int64)
            self._offset = bstart - np.repeat(bstart[self.first], self.nblocks)
        return self._offset

    @property
    def group(self) -> np.ndarray:
        if self._group is None:
            self._group = np.repeat(np.arange(self.n_groups), self.nblocks)
        return self._group

    def sparse_rows(self, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Group index and offset in the group of the rows ``which`` (tie-free rankings)."""
        group = np.searchsorted(self.first, which, side="right") - 1
        return group, which - self.first[group]

    def relevant_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For a tie-free ranking: group, offset in the group and order among the
        group's relevant rows (all from 0) of every relevant row, best first.

        Relevant rows are usually a small share of the rows, so the list metrics
        of a tie-free ranking are reductions over these few rows only.
        """
        if self._relevant is None:
            if self.rel is None:  # pragma: no cover - internal invariant
                raise RuntimeError("relevant_rows needs a tie-free ranking")
            where = np.flatnonzero(self.rel)
            count = self.ranked_npos
            if int(count.sum()) == where.shape[0]:
                # rows run group by group: the relevant ones too, ``count[g]`` of them in group g
                # (no binary search of every relevant row in the groups' first rows)
                group = np.repeat(np.arange(self.n_groups), count)
                offset = where - self.first[group]
            else:  # pragma: no cover - ranked_npos counts the ranked relevant rows
                group, offset = self.sparse_rows(where)
            before = np.cumsum(count) - count
            order = np.arange(where.shape[0]) - before[group]
            self._relevant = (group, offset, order)
        return self._relevant

    def group_sum(self, x: np.ndarray) -> np.ndarray:
        """Sum a per-block array per group."""
        return np.add.reduceat(x, self.first) if x.shape[0] else np.zeros(0)

    def top(self, k: int | None) -> Ranking:
        """The blocks that start within the first k rows of their group (cached per k).

        Every metric with a cutoff reads only these; group totals (rows,
        relevant rows) stay those of the whole group.
        """
        if k is None:
            return self
        if k not in self._tops:
            keep = self.offset < k
            if keep.all():
                self._tops[k] = self
            else:
                idx = np.flatnonzero(keep)
                kept = np.add.reduceat(keep, self.first, dtype=np.int64)  # >= 1: a group's first block
                sub = Ranking(
                    pos=self._pos[idx],
                    neg=None if self._neg is None else self._neg[idx],
                    gain=None if self.gain is None else self.gain[idx],
                    first=np.cumsum(kept) - kept,
                    code=self.code,
                    n=self.n,
                    npos=self.npos,
                    size=None if self._size is None else self._size[idx],
                    bstart=None,
                    wpos=self.wpos,
                    wneg=self.wneg,
                )
                sub._offset = self.offset[idx]
                self._tops[k] = sub
        return self._tops[k]


def build_ranking(
    codes: np.ndarray,
    n_codes: int,
    order: np.ndarray,
    rank: np.ndarray,
    level: np.ndarray,
    n_levels: int,
    rel_level: int,
    *,
    gains: np.ndarray | None = None,
    sample_weight: np.ndarray | None = None,
    count_levels: bool = False,
    block_levels: bool = False,
    consume: bool = False,
) -> Ranking:
    """Sort the rows of one score column by (group, rank) and summarize tie blocks.

    Parameters
    ----------
    codes : int array
        Group code of every row, in ``[0, n_codes)``.
    order, rank :
        The output of :func:`score_rank` for this score column.
    level : int array
        Label level of every row in ``[0, n_levels)``, ordered like the labels.
    rel_level : int
        Rows with ``level >= rel_level`` are relevant.
    gains : float array, optional
        Gain of each label level; the block gain sums are computed only if given.
    sample_weight : float array, optional
        Per-row weights for AUC; they need the row permutation (a slower path).
    count_levels : bool, default=False
        Also count the rows of every label level per group (``level_counts``), from
        which the ideal DCG follows without another sort.
    block_levels : bool, default=False
        Also count the rows of every label level per tie block (``block_levels``, levels x
        blocks; each row's level when blocks are rows), for a metric not linear in ranks (ERR).
    consume : bool, default=False
        ``rank`` is not read after the call: its buffer becomes the sort key (no second array of
        eight bytes a row).
    """
    n = codes.shape[0]
    rbits = bit_width(int(rank[0]) if n else 0)
    lbits = bit_width(n_levels - 1)
    cbits = bit_width(n_codes - 1)
    tie_free = n > 0 and int(rank[0]) == n - 1
    wsorted = None
    if sample_weight is None and cbits + rbits + lbits <= 63:
        if consume and rank.dtype == np.int64:
            key = rank  # the caller's rank becomes the key: filled chunk by chunk, no temporary
            for lo in range(0, n, CHUNK_ROWS):
                part = key[lo : lo + CHUNK_ROWS]
                o = order[lo : lo + CHUNK_ROWS]
                part |= codes[o].astype(np.int64) << rbits
                part <<= lbits
                part |= level[o]
        else:
            key = codes[order].astype(np.int64, copy=False)  # int32 codes gather faster
            key <<= rbits
            key |= rank
            key <<= lbits
            key |= level[order]
        sort_values(key)
        # the levels in one byte a row when they fit (they index and compare only)
        lev = np.empty(n, dtype=np.uint8 if lbits <= 8 else np.int64)
        np.bitwise_and(key, (1 << lbits) - 1, out=lev, casting="unsafe")
        key >>= lbits  # the (group, rank) block key
        if tie_free:
            bstart = None
            gkey = key
            gkey >>= rbits
        else:
            bstart = starts_of_runs(key[1:] != key[:-1])
            gkey = key[bstart] >> rbits
        del key
    else:
        codes_o = codes[order]
        perm = np.lexsort((rank, codes_o))
        c_s = codes_o[perm]
        r_s = rank[perm]
        lev = level[order][perm]
        if sample_weight is not None:
            wsorted = sample_weight[order][perm]
        if tie_free:
            bstart = None
            gkey = c_s
        else:
            change = (c_s[1:] != c_s[:-1]) | (r_s[1:] != r_s[:-1])
            bstart = starts_of_runs(change)
            gkey = c_s[bstart]
        del codes_o, perm, r_s
    return _from_sorted(lev, bstart, gkey, n_levels, rel_level, gains, wsorted, count_levels, block_levels)


def _from_sorted(
    lev: np.ndarray,
    bstart: np.ndarray | None,
    gkey: np.ndarray,
    n_levels: int,
    rel_level: int,
    gains: np.ndarray | None,
    wsorted: np.ndarray | None,
    count_levels: bool,
    block_levels: bool,
) -> Ranking:
    """The :class:`Ranking` of rows already sorted by (group, rank): each row's label level ``lev``,
    the tie blocks' first rows ``bstart`` (None: no tie, blocks are rows) and each block's group
    ``gkey`` (ascending), with the rows' sample weights ``wsorted`` when there are any."""
    n = lev.shape[0]
    # binary labels (the usual clicks): the relevant rows are exactly those with a gain,
    # all with the same one, and every group's level counts are its (negatives, positives)
    binary = n_levels == 2 and rel_level == 1
    binary_gain = None
    if gains is not None and binary and gains[0] == 0 and wsorted is None:
        binary_gain = float(gains[1])
    size, pos, neg, gain, wpos_b, wneg_b = _block_sums(lev, bstart, rel_level, gains, binary_gain, wsorted)
    lev_blocks = None if not block_levels else lev.astype(np.int64) if bstart is None else np.stack(
        [np.add.reduceat(lev == v, bstart, dtype=np.int64) for v in range(n_levels)])
    nb = gkey.shape[0]
    gchange = np.empty(nb, dtype=bool)
    gchange[0] = True
    np.not_equal(gkey[1:], gkey[:-1], out=gchange[1:])
    first = np.flatnonzero(gchange)
    del gchange
    gstart = first if bstart is None else bstart[first]
    gsize = np.diff(np.append(gstart, n))
    npos = np.add.reduceat(pos, first, dtype=np.int64)
    counts = _level_counts(lev, gsize, npos, n_levels, binary) if count_levels else None
    if wpos_b is not None and wneg_b is not None:
        pos, neg = wpos_b, wneg_b
    ranking = Ranking(
        pos=pos,
        neg=neg,
        gain=gain,
        first=first,
        code=gkey[first].astype(np.int64),
        n=gsize,
        npos=npos,
        size=size,
        bstart=bstart,
    )
    ranking.level_counts = counts
    ranking.binary_gain = binary_gain
    ranking.block_levels = lev_blocks
    if wpos_b is not None and wneg_b is not None:
        ranking.wpos = np.add.reduceat(wpos_b, first)
        ranking.wneg = np.add.reduceat(wneg_b, first)
    return ranking


def _block_sums(
    lev: np.ndarray, bstart: np.ndarray | None, rel_level: int, gains: np.ndarray | None,
    binary_gain: float | None, wsorted: np.ndarray | None,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """Per tie block (a row when ``bstart`` is None): its size, relevant and other rows, summed
    gain (none when every relevant row has the one ``binary_gain``), and relevant and other
    sample weight."""
    n = lev.shape[0]
    relrow = lev >= rel_level if rel_level else np.ones(lev.shape[0], dtype=bool)
    if bstart is None:  # blocks are rows
        gain = gains[lev] if gains is not None and binary_gain is None else None
        wpos_b = np.where(relrow, wsorted, 0.0) if wsorted is not None else None
        wneg_b = np.where(relrow, 0.0, wsorted) if wsorted is not None else None
        return None, relrow, None, gain, wpos_b, wneg_b
    size = np.diff(np.append(bstart, n))
    pos = np.add.reduceat(relrow, bstart, dtype=np.int64)
    gain = np.add.reduceat(gains[lev], bstart) if gains is not None else None
    wpos_b = wneg_b = None
    if wsorted is not None:
        wpos_b = np.add.reduceat(np.where(relrow, wsorted, 0.0), bstart)
        wneg_b = np.add.reduceat(np.where(relrow, 0.0, wsorted), bstart)
    return size, pos, size - pos, gain, wpos_b, wneg_b


def _level_counts(lev: np.ndarray, gsize: np.ndarray, npos: np.ndarray, n_levels: int,
                  binary: bool) -> np.ndarray | None:
    """Every group's rows per label level: (negatives, positives) for binary labels; for graded
    ones a bincount when the (groups x levels) table is not much larger than the rows, else None."""
    if binary:
        return np.column_stack([gsize - npos, npos])
    n_groups = gsize.shape[0]
    if n_groups * n_levels > 4 * lev.shape[0] + 1024:
        return None
    cell = np.repeat(np.arange(n_groups, dtype=np.int64) * n_levels, gsize)
    cell += lev
    return np.bincount(cell, minlength=n_groups * n_levels).reshape(n_groups, n_levels)
