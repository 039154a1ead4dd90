"""The row order of a score column from one int64 sort by value (no argsort).

``np.argsort`` of float64 is several times slower than ``ndarray.sort`` of int64 (numpy's SIMD
sort sorts values, not indices). :func:`sort_order` maps every score to an int64 with the same
order (the IEEE bit trick for floats, an offset for integers), keeps its highest bits in the high
part of one int64 and the row's position in the low part, and sorts those by value. Rows whose
kept bits are equal (scores closer than the dropped low bits tell apart: rare for continuous
scores) are put in order by their full keys afterwards, with a small lexsort over these rows only.
Equal keys are equal scores (``-0.0`` is mapped to ``0.0``), so the order also says where the
sorted scores change, which is all the dense rank needs. When too many rows share their kept
bits without being equal, or a float score is NaN, the caller falls back to ``np.argsort``.
"""

from __future__ import annotations

import numpy as np

from .int_sort import pack_and_sort, polars_sorts
from .numeric import flip_negative_floats

__all__ = ["shared_neighbours", "sort_order", "sortable"]

#: Fall back to argsort when more than this share of the rows needs the second pass.
_REFINE_AT_MOST = 0.25


def _ordered_key(score: np.ndarray) -> np.ndarray | None:
    """One int64 per row, in the order of the scores (equal exactly for equal scores), or None."""
    kind, size = score.dtype.kind, score.dtype.itemsize
    if kind == "f" and size in (4, 8):
        itype = np.int64 if size == 8 else np.int32
        bits = (score + score.dtype.type(0.0)).view(itype)  # a copy, and -0.0 becomes 0.0
        low = np.iinfo(itype).max
        flip_negative_floats(bits)  # negative floats: all bits but the sign flipped, so they order as integers
        key = bits.astype(np.int64, copy=False)
        if key.shape[0]:
            # NaN (either sign) orders outside the infinities: leave it to argsort
            inf = np.array([np.inf, -np.inf], dtype=score.dtype).view(itype).astype(np.int64)
            inf[1] ^= low
            if int(key.max()) > int(inf[0]) or int(key.min()) < int(inf[1]):
                return None
        return key
    if kind == "i" and size <= 8:
        return score.astype(np.int64)
    if kind == "u" and size < 8:
        return score.astype(np.int64)
    if kind == "u" and size == 8:
        key = score.view(np.int64).copy()
        key ^= np.int64(-(1 << 63))  # the top bit flipped: uint64 order as int64
        return key
    if kind == "b":
        return score.astype(np.int64)
    return None


def shared_neighbours(change: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Where sorted keys share their kept bits with the next one (``change`` says where they
    differ): ``same`` (each such position i: keys i and i + 1 share them), ``at`` (every position in
    such a pair, ascending) and ``j`` (``same[k]`` and ``same[k] + 1`` are ``at[j[k]]`` and
    ``at[j[k] + 1]``); None when no two neighbours share them.

    >>> [a.tolist() for a in shared_neighbours(np.array([True, False, False, True]))]
    [[1, 2], [1, 2, 3], [0, 1]]
    """
    same = np.flatnonzero(~change)
    if not same.shape[0]:
        return None
    mark = np.zeros(change.shape[0] + 1, dtype=bool)
    mark[same] = True
    mark[same + 1] = True
    at = np.flatnonzero(mark)
    return same, at, np.searchsorted(at, same)


def sortable(values: np.ndarray) -> np.ndarray:
    """``values`` as int64 keys of the same order and the same equalities (a copy) when this
    process sorts long int64 keys with polars (:mod:`.int_sort`), else ``values`` itself: sorted
    and searched, either gives the same positions and the same ties. Values it cannot map (NaN)
    stay as they are.

    >>> sortable(np.array([0.5, -1.0])).shape
    (2,)
    """
    if polars_sorts(values.shape[0]):
        key = _ordered_key(values)
        if key is not None:
            return key
    return values


def sort_order(score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Sort rows by score (ascending) without an argsort.

    Returns ``(order, new, buffer)``: ``order`` sorts the rows from the lowest to the highest
    score (int64), ``new[i]`` is whether the score of row ``order[i + 1]`` differs from that of
    row ``order[i]``, and ``buffer`` is a free int64 array of ``n`` entries (for the dense rank).
    The order of rows with equal scores is unspecified, as for ``np.argsort``. None when the
    scores are not of a kind this handles (or too many of them need the second pass): use
    ``np.argsort``.

    >>> order, new, _ = sort_order(np.array([0.5, -1.0, 0.5, 2.0]))
    >>> order[[0, 3]].tolist(), new.tolist()
    ([1, 3], [True, False, True])
    """
    n = score.shape[0]
    key = _ordered_key(score)
    if key is None:
        return None
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool), key
    lo, hi = int(key.min()), int(key.max())
    ibits = max((n - 1).bit_length(), 1)
    span_bits = max((hi - lo).bit_length(), 1)
    shift = max(span_bits + ibits - 63, 0)
    # the offset from the smallest key, in uint64 arithmetic (it may exceed the int64 range)
    packed = key.view(np.uint64)
    packed -= np.uint64(lo & ((1 << 64) - 1))
    if shift:
        packed >>= np.uint64(shift)
    packed = packed.view(np.int64)  # < 2**(63 - ibits): the row's position fits below it
    order = pack_and_sort(packed, ibits)  # packed: the kept bits of the sorted keys
    new = packed[1:] != packed[:-1]
    pairs = shared_neighbours(new) if shift else None
    if pairs is not None:
        same, at, j = pairs
        rows = order[at]
        fk = _ordered_key(score[rows])  # the full keys of these rows
        if fk is None:  # pragma: no cover - the same scores gave keys above
            return None
        if (fk[j + 1] < fk[j]).any():  # not only exact ties: put these rows in order
            if at.shape[0] > _REFINE_AT_MOST * n:
                return None
            perm = np.lexsort((fk, packed[at]))  # kept bits first: rows stay in their runs
            order[at] = rows[perm]
            fk = fk[perm]
        new[same] = fk[j + 1] != fk[j]
    return order, new, packed
