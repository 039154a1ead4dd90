"""Global AUC over all rows of a score column, straight from its sort or by searching.

:func:`global_auc` reads the order and dense rank of :func:`~.score_sort.score_rank` (sample
weights, the bootstrap and segments need the row order); :func:`global_auc_by` does every segment
at once; :func:`global_auc_by_search` needs no row order: the sorted non-relevant scores are searched for
every relevant one; :func:`global_auc_of_sorted` does the same over any split of the rows (the
rankings of the groups that count, and the other rows).
"""

from __future__ import annotations

import numpy as np

from .int_sort import sort_values
from .numeric import starts_of_runs
from .score_sort import Ties
from .sorting import sortable
from ..threads import Workers, row_ranges, run_tasks

__all__ = ["SEARCH_PART_ROWS", "global_auc", "global_auc_by", "global_auc_by_search", "global_auc_of_sorted", "sorted_classes"]

#: Rows per thread from which :func:`global_auc_by_search` cuts a column into ranges.
SEARCH_PART_ROWS = 1 << 17


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
    starts = starts_of_runs(rank[1:] != rank[:-1])
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
    starts = starts_of_runs((r[1:] != r[:-1]) | (sg[1:] != sg[:-1]))
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
    first = starts_of_runs(block_seg[1:] != block_seg[:-1])  # each segment's first block
    seg_start = np.repeat(cum[first] - neg[first], np.diff(np.append(first, block_seg.shape[0])))
    below = cum - neg - seg_start  # the segment's negatives before each block
    u = np.bincount(block_seg, weights=pos * (below + 0.5 * neg), minlength=n_segments)
    wp = np.bincount(block_seg, weights=pos, minlength=n_segments)
    wn = np.bincount(block_seg, weights=neg, minlength=n_segments)
    return u, wp, wn


def global_auc_by_search(
    score: np.ndarray, rel: np.ndarray, ties: Ties = "expected", workers: Workers | None = None
) -> tuple[float, float, float]:
    """Mann-Whitney AUC without a row permutation: sort the non-relevant scores by
    value and look every relevant score up in them. Returns ``(U, P, N)``.

    A tied (relevant, non-relevant) pair counts 1/2, 0 or 1 by ``ties``. With ``workers`` of
    several threads, the rows are cut into as many ranges, each range's classes sorted on its own
    thread, and every relevant set searched in every non-relevant one (integers: the same three
    numbers).

    >>> import numpy as np
    >>> global_auc_by_search(np.array([0.1, 0.5, 0.5, 0.9]), np.array([False, False, True, True]))
    (3.5, 2.0, 2.0)
    """
    # as int64 keys of the same order where polars sorts those (:func:`.sorting.sortable`)
    key = sortable(score)
    n_parts = 1 if workers is None else min(workers.n, max(1, key.shape[0] // SEARCH_PART_ROWS))
    if n_parts == 1:
        pos, neg = sorted_classes(key, rel)
        return global_auc_of_sorted([pos], [neg], ties)
    classes = workers.map(lambda r: sorted_classes(key[r[0] : r[1]], rel[r[0] : r[1]]),  # type: ignore[union-attr]
                          row_ranges(key.shape[0], n_parts))
    return global_auc_of_sorted([c[0] for c in classes], [c[1] for c in classes], ties, workers)


def sorted_classes(score: np.ndarray, rel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The relevant and the non-relevant scores of some rows, each sorted: the masked copies are
    sorted in place (``np.sort`` would copy them once more); sorted relevant scores make the
    binary searches of :func:`global_auc_of_sorted` cache-friendly.

    >>> [c.tolist() for c in sorted_classes(np.array([0.3, 0.1, 0.2]), np.array([True, False, True]))]
    [[0.2, 0.3], [0.1]]
    """
    pos, neg = score[rel], score[~rel]
    sort_values(pos)
    sort_values(neg)
    return pos, neg


def global_auc_of_sorted(
    pos: list[np.ndarray], neg: list[np.ndarray], ties: Ties = "expected", workers: Workers | None = None
) -> tuple[float, float, float]:
    """Mann-Whitney AUC ``(U, P, N)`` of rows split into sets, given every set's relevant scores
    (``pos``) and non-relevant scores (``neg``), each sorted ascending: every relevant set is
    searched in every non-relevant one (on the threads of ``workers``, if given), so each
    (relevant, non-relevant) pair is counted once, in integers. Any split of the rows gives the
    same three numbers, to the last bit.

    >>> import numpy as np
    >>> global_auc_of_sorted([np.array([0.5, 0.9])], [np.array([0.1, 0.5]), np.array([0.7])])
    (4.5, 2.0, 3.0)
    """

    def pair(pn: tuple[np.ndarray, np.ndarray]) -> tuple[int, int]:
        p, n = pn
        below = np.searchsorted(n, p, side="left")
        # a relevant score ties with a non-relevant one exactly when the first non-relevant score
        # not below it equals it: the second search (the end of each tie) runs only then
        tied = 0
        if ties != "pessimistic" and bool((n[np.minimum(below, n.shape[0] - 1)] == p).any()):
            tied = int((np.searchsorted(n, p, side="right") - below).sum(dtype=np.int64))
        return int(below.sum(dtype=np.int64)), tied

    counts = run_tasks(workers, pair, [(p, n) for p in pos for n in neg if p.shape[0] and n.shape[0]])
    below_total = sum(c[0] for c in counts)
    tied_total = sum(c[1] for c in counts)
    u = float(below_total)
    if tied_total:
        u += float(tied_total) * (0.5 if ties == "expected" else 1.0)
    return u, float(sum(p.shape[0] for p in pos)), float(sum(n.shape[0] for n in neg))
