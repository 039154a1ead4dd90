"""The ranking of a run of whole groups with one sort: (group, score, level, row) packed by value.

:func:`~.ranking.build_ranking` ranks a score column in two sorts: the scores alone, for a dense
rank that fits a few bits, then (group, rank, level). Where every group of the rows is ranked on
its own and ties follow the expected rule (the rows of the groups that count, :mod:`.kept`), one
sort is enough: every score becomes an int64 of the same order (:func:`~.sorting.sortable`'s map),
its distance below the largest keeps as many of its highest bits as fit beside the group, the
label level and the row's position, and the packed keys are sorted by value. Rows of one group
whose kept bits are equal (scores closer than the dropped low bits tell apart: rare for continuous
scores) are put in order by their full keys afterwards, with a small lexsort over these rows only.

The rows come out as :func:`~.ranking.build_ranking` sorts them (group ascending, best score
first, each tie block's rows by label level), so the :class:`~.ranking.Ranking` is the same one.
Its tie blocks are ties inside a group: equal scores in two different groups do not make a
block, and a group's values do not depend on them (see :func:`~.kernels.sum_in_rank_order`).
"""

from __future__ import annotations

import numpy as np

from .int_sort import pack_and_sort
from ..reference import reference_mode
from ..skipping.group_count import index_dtype
from .numeric import CHUNK_ROWS, bit_width, starts_of_runs
from .tie_blocks import Ranking, _from_sorted
from .sorting import _REFINE_AT_MOST, _ordered_key, shared_neighbours

__all__ = ["rank_groups"]

#: Fewest bits of the score kept beside the group, the level and the row (else two sorts).
_MIN_SCORE_BITS = 12


def rank_groups(
    score: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    level: np.ndarray,
    n_levels: int,
    rel_level: int,
    *,
    rows: np.ndarray | None = None,
    gains: np.ndarray | None = None,
    count_levels: bool = False,
    block_levels: bool = False,
) -> Ranking | None:
    """The ranking of rows by (group, score descending) under the expected tie rule, from one int64
    sort; None when the scores have no int64 map (NaN) or the keys leave too few bits for them, or
    too many rows need the second pass, or under the reference switch
    (:func:`~.reference.reference_mode`): the caller then ranks with two sorts.

    The rows ranked are ``score[rows]`` (every row of ``score`` without ``rows``: the scores are
    gathered once, and read again only for the rows the second pass orders); ``group`` is every
    ranked row's group in ``0 .. n_groups - 1``; the other arguments are those of
    :func:`~.ranking.build_ranking`.

    >>> import numpy as np
    >>> rk = rank_groups(np.array([0.2, 0.9, 0.5, 0.5]), np.array([0, 0, 1, 1]), 2,
    ...                  np.array([0, 1, 1, 0]), 2, 1)
    >>> rk.tie_free, rk.n.tolist(), rk.size.tolist()
    (False, [2, 2], [1, 1, 2])
    """
    n = score.shape[0] if rows is None else rows.shape[0]
    if n == 0 or reference_mode():
        return None
    key = _ordered_key(score if rows is None else score[rows])
    if key is None:
        return None
    lo, hi = int(key.min()), int(key.max())
    gbits, lbits, ibits = bit_width(n_groups - 1), bit_width(n_levels - 1), bit_width(n - 1)
    room = 63 - gbits - lbits - ibits
    if room < _MIN_SCORE_BITS:
        return None
    shift = max(bit_width(hi - lo) - room, 0)
    # the distance below the best score (0 for the best), its kept bits, in uint64 arithmetic (the
    # span may exceed the int64 range)
    packed = key.view(np.uint64)
    np.subtract(np.uint64(hi & ((1 << 64) - 1)), packed, out=packed)
    if shift:
        packed >>= np.uint64(shift)
    packed = packed.view(np.int64)  # < 2**room: the fields below fit beside it
    for c0 in range(0, n, CHUNK_ROWS):  # chunk by chunk: no temporary as long as the rows
        part = packed[c0 : c0 + CHUNK_ROWS]
        part |= group[c0 : c0 + CHUNK_ROWS].astype(np.int64) << room
        part <<= lbits
        part |= level[c0 : c0 + CHUNK_ROWS]
    at_row = pack_and_sort(packed, ibits, positions=index_dtype(n))  # each sorted key's position among the ranked rows
    lev = np.empty(n, dtype=np.uint8 if lbits <= 8 else np.int64)
    np.bitwise_and(packed, (1 << lbits) - 1, out=lev, casting="unsafe")
    packed >>= lbits  # (group, kept score bits) of every row, in order
    change = packed[1:] != packed[:-1]
    pairs = shared_neighbours(change) if shift else None  # rows sharing kept bits in their group
    if pairs is not None:
        same, at, j = pairs
        where = at_row[at]
        full = _ordered_key(score[where] if rows is None else score[rows[where]])
        if full is None:  # pragma: no cover - the same scores gave keys above
            return None
        if (full[j + 1] > full[j]).any():  # not only exact ties: put these rows in order
            if at.shape[0] > _REFINE_AT_MOST * n:
                return None
            # group and kept bits first (the rows stay in their runs), then the score
            # descending, the level and the row
            perm = np.lexsort((where, lev[at], np.invert(full), packed[at]))
            lev[at] = lev[at][perm]
            full = full[perm]
        change[same] = full[j + 1] != full[j]
    del at_row
    tie_free = bool(change.all())
    if tie_free:
        gkey = packed >> room
        bstart = None
    else:
        bstart = starts_of_runs(change)
        gkey = packed[bstart] >> room
    del packed, change
    return _from_sorted(lev, bstart, gkey, n_levels, rel_level, gains, None, count_levels, block_levels)
