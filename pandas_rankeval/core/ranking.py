"""The vectorized engine: one sort per score column, every metric a reduction over it.

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

The per-group metrics over a ranking are in :mod:`.kernels`. Kernels take and return plain
numpy arrays; the checking lives in :mod:`.evaluate` and :mod:`.prepare`.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np

from .sorting import sort_order
from .threads import threads_for

Ties = Literal["expected", "pessimistic", "optimistic"]

__all__ = ["Ranking", "build_ranking", "global_auc", "global_auc_and_ties", "score_rank"]


# --------------------------------------------------------------------------- #
# Numeric helpers
# --------------------------------------------------------------------------- #
_SMALL = 256
#: Rows from which independent sorts of one call run on two threads.
_PARALLEL_FROM = 1_000_000
_LOG_FACT_SMALL = np.array([math.lgamma(i + 1.0) for i in range(_SMALL)])
_HARM_SMALL = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, _SMALL))])


def log_factorial(x: np.ndarray) -> np.ndarray:
    """log(x!) for non-negative integer arrays: exact table below 256, Stirling above.

    Above 256 the Stirling series to x^-5 is accurate to about 1e-16 relative;
    differences of large values lose about eps * x * log(x) absolute, which is the
    floor of any log-space binomial ratio.
    """
    x = np.asarray(x, dtype=np.int64)
    out = np.empty(x.shape, dtype=np.float64)
    small = x < _SMALL
    out[small] = _LOG_FACT_SMALL[x[small]]
    if not small.all():
        z = x[~small].astype(np.float64) + 1.0
        zi = 1.0 / z
        zi2 = zi * zi
        out[~small] = (
            (z - 0.5) * np.log(z)
            - z
            + 0.5 * math.log(2.0 * math.pi)
            + zi * (1.0 / 12.0 - zi2 * (1.0 / 360.0 - zi2 / 1260.0))
        )
    return out


def harmonic(x: np.ndarray) -> np.ndarray:
    """Harmonic numbers H(x) = sum_{i=1..x} 1/i for non-negative integer arrays."""
    x = np.asarray(x, dtype=np.int64)
    out = np.empty(x.shape, dtype=np.float64)
    small = x < _SMALL
    out[small] = _HARM_SMALL[x[small]]
    if not small.all():
        z = x[~small].astype(np.float64)
        zi2 = 1.0 / (z * z)
        out[~small] = (
            np.log(z)
            + np.euler_gamma
            + 0.5 / z
            - zi2 * (1.0 / 12.0 - zi2 * (1.0 / 120.0 - zi2 / 252.0))
        )
    return out


def cumulative_discount(upto: int) -> np.ndarray:
    """D[i] = sum_{j=1..i} 1 / log2(j + 1), for i = 0..upto."""
    d = np.zeros(upto + 1, dtype=np.float64)
    if upto:
        d[1:] = np.cumsum(1.0 / np.log2(np.arange(2, upto + 2, dtype=np.float64)))
    return d


def _starts_of_runs(change: np.ndarray) -> np.ndarray:
    """Start positions of runs given ``change[i] = a[i+1] != a[i]``."""
    starts = np.flatnonzero(change)
    starts += 1
    return np.concatenate(([0], starts))


def _exclusive_within(x: np.ndarray, gfirst: np.ndarray, nblocks: np.ndarray) -> np.ndarray:
    """Exclusive cumulative sum of a per-block array, restarted at every group."""
    c = np.cumsum(x)
    c -= x
    return c - np.repeat(c[gfirst], nblocks)


# --------------------------------------------------------------------------- #
# The global sort of one score column
# --------------------------------------------------------------------------- #
def score_rank(
    score: np.ndarray,
    *,
    ties: Ties = "expected",
    level: np.ndarray | None = None,
    tiebreak: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Sort rows by score and give each a dense rank, 0 for the best.

    Returns ``(order, rank)``: ``order`` sorts the rows from the worst to the best
    and ``rank[i]`` is the dense rank (0 = highest score) of row ``order[i]``, so
    ``rank`` is non-increasing; ``rank[0] == n - 1`` exactly when no two rows tie.
    Rows share a rank exactly when the ranking cannot tell them apart: same
    score, same tie-break value, and under "pessimistic" / "optimistic" the same
    label level (relevant rows then sort after / before the others in a tie).
    """
    n = score.shape[0]
    fast = sort_order(score)  # one int64 sort by value (no argsort), unless the scores need one
    buffer: np.ndarray | None
    if fast is not None:
        order, new, buffer = fast
    else:
        if n >= _PARALLEL_FROM and threads_for() > 1:
            # the sorted values (the same as score[order], without a random gather) on
            # the second core while the argsort runs: numpy releases the GIL in both
            with ThreadPoolExecutor(max_workers=1) as pool:
                values = pool.submit(np.sort, score)
                order = np.argsort(score)
                s = values.result()
        else:
            order = np.argsort(score)
            s = np.sort(score)
        new = s[1:] != s[:-1]
        # the sorted copy is not needed any more: its buffer becomes the rank when it fits
        buffer = s.view(np.int64) if s.dtype.itemsize == 8 else None
        del s
    # finer keys inside tied scores, worst first: tie-break descending (so that it is
    # ascending best-first), then the label level (relevant first when pessimistic)
    fields: list[np.ndarray] = []
    if tiebreak is not None:
        tb = tiebreak.astype(np.int64)
        fields.append(int(tb.max()) - tb)
    if ties != "expected":
        if level is None:
            raise ValueError("level is required for pessimistic/optimistic ties")
        lv = level.astype(np.int64)
        fields.append(int(lv.max()) - lv if ties == "pessimistic" else lv)
    if fields and not new.all():
        order, new = _refine_ties(order, new, [f[order] for f in fields])
    rank = np.empty(n, dtype=np.int64) if buffer is None else buffer
    rank[0] = 0
    np.cumsum(new, out=rank[1:])
    np.subtract(rank[-1], rank, out=rank)
    return order, rank


def _refine_ties(
    order: np.ndarray, new: np.ndarray, fields: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Re-sort rows of equal score by extra non-negative integer keys (given in ``order``).

    The dense score rank, the keys and the row's position are packed into one int64
    and sorted by value, which costs far less than a lexsort; beyond 63 bits a lexsort
    does the same.
    """
    n = order.shape[0]
    r = np.empty(n, dtype=np.int64)
    r[0] = 0
    np.cumsum(new, out=r[1:])
    widths = [_bits(int(f.max())) for f in fields]
    ibits = _bits(n - 1)
    if _bits(int(r[-1])) + sum(widths) + ibits <= 63:
        key = r
        for f, w in zip(fields, widths):
            key <<= w
            key |= f
        key <<= ibits
        key |= np.arange(n, dtype=np.int64)
        key.sort()
        pos = key & ((1 << ibits) - 1)
        key >>= ibits
        return order[pos], key[1:] != key[:-1]
    perm = np.lexsort([*reversed(fields), r])
    out = np.zeros(max(n - 1, 0), dtype=bool)
    for k in (r, *fields):
        ks = k[perm]
        out |= ks[1:] != ks[:-1]
    return order[perm], out


# --------------------------------------------------------------------------- #
# Global AUC straight from the score sort
# --------------------------------------------------------------------------- #
def global_auc(
    order: np.ndarray,
    rank: np.ndarray,
    rel: np.ndarray,
    sample_weight: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """Mann-Whitney AUC over all rows. Returns ``(U, W_pos, W_neg)``; AUC = U / (W_pos W_neg)."""
    n = order.shape[0]
    rel_o = rel[order]
    tie_free = bool((rank[1:] != rank[:-1]).all())
    if sample_weight is None and tie_free:
        # no ties: each relevant row beats the non-relevant rows before it
        neg_before = np.arange(n, dtype=np.int64) - np.cumsum(rel_o, dtype=np.int64) + rel_o
        npos = int(rel_o.sum(dtype=np.int64))
        return float(np.dot(rel_o.astype(np.float64), neg_before)), float(npos), float(n - npos)
    starts = _starts_of_runs(rank[1:] != rank[:-1])
    if sample_weight is None:
        pos = np.add.reduceat(rel_o.astype(np.float64), starts)
        size = np.diff(np.append(starts, n)).astype(np.float64)
        neg = size - pos
    else:
        w_o = sample_weight[order]
        pos = np.add.reduceat(np.where(rel_o, w_o, 0.0), starts)
        neg = np.add.reduceat(np.where(rel_o, 0.0, w_o), starts)
    # rows run from the worst to the best: negatives below a block are those before it
    below = np.cumsum(neg) - neg
    u = float(np.dot(pos, below + 0.5 * neg))
    return u, float(pos.sum()), float(neg.sum())


def global_auc_by(
    order: np.ndarray,
    rank: np.ndarray,
    rel: np.ndarray,
    sample_weight: np.ndarray | None,
    segment: np.ndarray,
    n_segments: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`global_auc` of every segment at once: ``(U, W_pos, W_neg)``, one entry per segment.

    ``segment`` is every row's segment (0 to ``n_segments - 1``). One stable sort of the sorted
    rows by segment keeps each segment's rows in score order; tie blocks are cut where the
    segment or the rank changes, and every segment's negatives below a block are a cumulative
    sum minus the segment's start: no loop over segments.

    >>> order, rank = np.array([0, 1, 2, 3]), np.array([0, 1, 2, 3])
    >>> u, wp, wn = global_auc_by(order, rank, np.array([0, 1, 0, 1], bool), None, np.array([0, 0, 1, 1]), 2)
    >>> (u / (wp * wn)).tolist()
    [1.0, 1.0]
    """
    seg_o = np.asarray(segment, dtype=np.int64)[order]
    by_seg = np.argsort(seg_o, kind="stable")  # segment first, score order kept within it
    o = order[by_seg]
    r = np.asarray(rank)[by_seg]
    sg = seg_o[by_seg]
    n = o.shape[0]
    if not n:
        z = np.zeros(n_segments)
        return z, z.copy(), z.copy()
    starts = _starts_of_runs((r[1:] != r[:-1]) | (sg[1:] != sg[:-1]))
    rel_o = rel[o]
    if sample_weight is None:
        pos = np.add.reduceat(rel_o.astype(np.float64), starts)
        neg = np.diff(np.append(starts, n)).astype(np.float64) - pos
    else:
        w_o = sample_weight[o]
        pos = np.add.reduceat(np.where(rel_o, w_o, 0.0), starts)
        neg = np.add.reduceat(np.where(rel_o, 0.0, w_o), starts)
    block_seg = sg[starts]
    cum = np.cumsum(neg)
    first = _starts_of_runs(block_seg[1:] != block_seg[:-1])  # each segment's first block
    seg_start = np.repeat(cum[first] - neg[first], np.diff(np.append(first, block_seg.shape[0])))
    below = cum - neg - seg_start  # the segment's negatives before each block
    u = np.bincount(block_seg, weights=pos * (below + 0.5 * neg), minlength=n_segments)
    wp = np.bincount(block_seg, weights=pos, minlength=n_segments)
    wn = np.bincount(block_seg, weights=neg, minlength=n_segments)
    return u, wp, wn


def global_auc_by_search(score: np.ndarray, rel: np.ndarray, ties: Ties = "expected") -> tuple[float, float, float]:
    """Mann-Whitney AUC without a row permutation: sort the non-relevant scores by
    value and look every relevant score up in them. Returns ``(U, P, N)``.

    A tied (relevant, non-relevant) pair counts 1/2, 0 or 1 by ``ties``.
    """
    return global_auc_and_ties(score, rel, ties)[0]


def global_auc_and_ties(
    score: np.ndarray, rel: np.ndarray, ties: Ties = "expected"
) -> tuple[tuple[float, float, float], bool]:
    """:func:`global_auc_by_search`, and whether two scores of the column are equal (any two
    rows: the sorted classes and the searches already tell)."""
    neg = np.sort(score[~rel])
    pos = np.sort(score[rel])  # sorted needles make the binary searches cache-friendly
    below = np.searchsorted(neg, pos, side="left")
    u = float(below.sum(dtype=np.int64))
    tied = np.searchsorted(neg, pos, side="right") - below
    n_tied = int(tied.sum(dtype=np.int64))
    if ties != "pessimistic":
        u += float(n_tied) * (0.5 if ties == "expected" else 1.0)
    any_tie = n_tied > 0 or bool((neg[1:] == neg[:-1]).any()) or bool((pos[1:] == pos[:-1]).any())
    return (u, float(pos.shape[0]), float(neg.shape[0])), any_tie


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
            group, offset = self.sparse_rows(where)
            before = np.cumsum(self.ranked_npos) - self.ranked_npos
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


def _bits(x: int) -> int:
    return max(int(x).bit_length(), 1)


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
    ties_elsewhere: bool = False,
    block_levels: bool = False,
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
    ties_elsewhere : bool, default=False
        The rows are a subset of a score column with ties among the others: keep the tie
        blocks' arithmetic (that of the whole column) even when the subset has no tie.
    block_levels : bool, default=False
        Also count the rows of every label level per tie block (``block_levels``, levels x
        blocks; each row's level when blocks are rows), for a metric not linear in ranks (ERR).
    """
    n = codes.shape[0]
    rbits = _bits(int(rank[0]) if n else 0)
    lbits = _bits(n_levels - 1)
    cbits = _bits(n_codes - 1)
    tie_free = n > 0 and int(rank[0]) == n - 1 and not ties_elsewhere
    wsorted = None
    if sample_weight is None and cbits + rbits + lbits <= 63:
        key = codes[order].astype(np.int64, copy=False)  # int32 codes gather faster
        key <<= rbits
        key |= rank
        key <<= lbits
        key |= level[order]
        key.sort()
        lev = key & ((1 << lbits) - 1)
        key >>= lbits  # the (group, rank) block key
        if tie_free:
            bstart = None
            gkey = key
            gkey >>= rbits
        else:
            bstart = _starts_of_runs(key[1:] != key[:-1])
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
            bstart = _starts_of_runs(change)
            gkey = c_s[bstart]
        del codes_o, perm, r_s

    relrow = lev >= rel_level if rel_level else np.ones(lev.shape[0], dtype=bool)
    # binary labels (the usual clicks): the relevant rows are exactly those with a gain,
    # all with the same one, and every group's level counts are its (negatives, positives)
    binary = n_levels == 2 and rel_level == 1
    binary_gain = None
    if gains is not None and binary and gains[0] == 0 and wsorted is None:
        binary_gain = float(gains[1])
    if bstart is None:  # blocks are rows
        size = None
        pos = relrow
        neg = None
        gain = gains[lev] if gains is not None and binary_gain is None else None
        wpos_b = np.where(relrow, wsorted, 0.0) if wsorted is not None else None
        wneg_b = np.where(relrow, 0.0, wsorted) if wsorted is not None else None
    else:
        size = np.diff(np.append(bstart, n))
        pos = np.add.reduceat(relrow, bstart, dtype=np.int64)
        neg = size - pos
        gain = np.add.reduceat(gains[lev], bstart) if gains is not None else None
        wpos_b = wneg_b = None
        if wsorted is not None:
            wpos_b = np.add.reduceat(np.where(relrow, wsorted, 0.0), bstart)
            wneg_b = np.add.reduceat(np.where(relrow, 0.0, wsorted), bstart)
    del relrow
    lev_blocks = None if not block_levels else lev if bstart is None else np.stack(
        [np.add.reduceat(lev == v, bstart, dtype=np.int64) for v in range(n_levels)])
    # the per-row levels are needed below only to count the levels of graded labels
    count_graded = count_levels and not binary
    if not count_graded:
        del lev

    nb = gkey.shape[0]
    gchange = np.empty(nb, dtype=bool)
    gchange[0] = True
    np.not_equal(gkey[1:], gkey[:-1], out=gchange[1:])
    first = np.flatnonzero(gchange)
    del gchange
    gstart = first if bstart is None else bstart[first]
    gsize = np.diff(np.append(gstart, n))
    npos = np.add.reduceat(pos, first, dtype=np.int64)
    counts = None
    n_groups = first.shape[0]
    if count_levels and binary:
        counts = np.column_stack([gsize - npos, npos])
    elif count_graded:
        if n_groups * n_levels <= 4 * n + 1024:
            cell = np.repeat(np.arange(n_groups, dtype=np.int64) * n_levels, gsize)
            cell += lev
            counts = np.bincount(cell, minlength=n_groups * n_levels).reshape(n_groups, n_levels)
            del cell
        del lev
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
