"""Stage 1 of the ranking: one sort of a score column, and its dense rank.

:func:`score_rank` sorts the rows of one score column (one int64 sort by value through
:func:`~.sorting.sort_order`, or an argsort) and gives each row its dense rank, 0 for the best;
a tie-break column or a non-default tie rule refines the rank inside tied scores
(:func:`_refine_ties`). The per-group view built on it is :mod:`.ranking`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .int_sort import pack_and_sort
from .numeric import bit_width, cumsum_into
from .sorting import sort_order
from ..reference import reference_mode
from ..threads import Workers, threads_for

Ties = Literal["expected", "pessimistic", "optimistic"]

__all__ = ["Ties", "score_rank"]

#: Rows from which independent sorts of one call run on two threads.
_PARALLEL_FROM = 1_000_000


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
    reference = reference_mode()  # the reference switch: a stable argsort, a lexsort for the ties
    fast = None if reference else sort_order(score)  # one int64 sort by value, unless the scores need an argsort
    buffer: np.ndarray | None
    if fast is not None:
        order, new, buffer = fast
    else:
        if n >= _PARALLEL_FROM and threads_for() > 1:
            # the sorted values (the same as score[order], without a random gather) on
            # the second core while the argsort runs: numpy releases the GIL in both
            with Workers(2) as workers:
                order, s = workers.map(lambda sort: sort(score), [np.argsort, np.sort])
        else:
            order = np.argsort(score, kind="stable" if reference else None)
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
    cumsum_into(new, rank[1:])
    np.subtract(rank[-1], rank, out=rank)
    return order, rank


def _refine_ties(
    order: np.ndarray, new: np.ndarray, fields: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Re-sort rows of equal score by extra non-negative integer keys (given in ``order``).

    The dense score rank, the keys and the row's position are packed into one int64
    and sorted by value, which costs far less than a lexsort; beyond 63 bits a lexsort
    does the same (always, under the reference switch).
    """
    n = order.shape[0]
    r = np.empty(n, dtype=np.int64)
    r[0] = 0
    cumsum_into(new, r[1:])
    widths = [bit_width(int(f.max())) for f in fields]
    ibits = bit_width(n - 1)
    if bit_width(int(r[-1])) + sum(widths) + ibits <= 63 and not reference_mode():
        key = r
        for f, w in zip(fields, widths):
            key <<= w
            key |= f
        pos = pack_and_sort(key, ibits)
        return order[pos], key[1:] != key[:-1]
    perm = np.lexsort([*reversed(fields), r])
    out = np.zeros(max(n - 1, 0), dtype=bool)
    for k in (r, *fields):
        ks = k[perm]
        out |= ks[1:] != ks[:-1]
    return order[perm], out
