"""The first O(n) pass of an evaluation: every group's rows and relevant rows, and the kept rows.

:func:`count_groups` counts rows and relevant rows per group: a bincount of dense codes, or, for
sparse integer keys, one int64 sort of ``(code, relevant, row)``. With :class:`~.threads.Workers`
the codes are cut into ranges (:func:`code_cuts`), each range's rows sorted and counted on a thread
of its own (numpy releases the GIL in its sorts); a group lies in one range, so the ranges' groups
follow one another and nothing is merged: the counts are those of one sort of every row, in
ascending code. :func:`kept_rows`
then scatters every row's kept-group position back to the rows' own order and lays the kept rows
out run after run of whole groups (:func:`run_bounds`), each run ascending, one run per thread:
every run is a slice of the table's arrays.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..ranking.int_sort import pack_and_sort
from ..ranking.numeric import CHUNK_ROWS, bit_width, starts_of_runs
from ..threads import Workers, run_tasks

__all__ = ["CodeRange", "Counts", "count_groups", "index_dtype", "kept_rows", "run_bounds"]


def index_dtype(n: int) -> type[np.signedinteger]:
    """int32 row indices and group positions below 2**31: half the memory, faster gathers."""
    return np.int32 if n < 2**31 else np.int64


@dataclass
class CodeRange:
    """The groups of one range of codes, indices ``first .. first + len(n) - 1`` of the table: their
    rows (positions in the frame, group after group, each group's rows ascending and its relevant
    rows last), and each group's rows and relevant rows."""

    first: int
    rows: np.ndarray
    n: np.ndarray
    npos: np.ndarray


@dataclass
class Counts:
    """Every group's code (ascending), rows and relevant rows; for sparse codes, ``place`` reaches
    the rows of each group through its range of codes (dense codes: None)."""

    code: np.ndarray
    n: np.ndarray
    npos: np.ndarray
    n_codes: int  # the codes' upper bound
    place: list[CodeRange] | None = None


def _count_dense(codes: np.ndarray, n_codes: int, rel: np.ndarray) -> Counts:
    cnt = np.bincount(codes, minlength=n_codes)
    present = np.flatnonzero(cnt)
    n = cnt[present].astype(np.int64)
    npos = np.bincount(codes[rel], minlength=n_codes)[present].astype(np.int64)
    return Counts(present.astype(np.int64), n, npos, n_codes)


def _count_sorted(codes: np.ndarray, n_codes: int, rel: np.ndarray,
                  rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Groups from one int64 sort of ``(code, relevant, row)``: their codes (ascending), rows and
    relevant rows, and the rows group after group (relevant rows last, each group's rows
    ascending).

    Every row's, or, with ``rows`` (int64 positions, ascending), those rows' only: ``rows`` is then
    used up (its buffer becomes the sort's key, as few arrays as long as the rows as can be). The
    sort puts a group's rows together, its relevant rows last: the runs of ``(code, relevant)``
    give both counts with no pass over the rows beyond the run starts."""
    n_all = codes.shape[0]
    ibits = bit_width(n_all - 1)
    if rows is None:
        m = n_all
        if codes.dtype == np.int32 and n_codes <= 2**30:  # (code, relevant) in 32 bits first
            head = np.left_shift(codes, 1)
            head |= rel
            key = np.left_shift(head, ibits, dtype=np.int64)
            out = head if index_dtype(n_all) == np.int32 else None  # the positions go where the heads were
            idx = pack_and_sort(key, ibits, positions=index_dtype(n_all), shifted=True, out=out)
        else:
            key = codes.astype(np.int64)
            key <<= 1
            key |= rel
            idx = pack_and_sort(key, ibits, positions=index_dtype(n_all))
    else:
        m = rows.shape[0]
        head = codes[rows]
        if head.dtype == np.int32 and n_codes <= 2**30:  # (code, relevant) in 32 bits, then beside each row
            head <<= 1
            head |= rel[rows]
            key = rows
            for lo in range(0, m, CHUNK_ROWS):
                key[lo : lo + CHUNK_ROWS] |= np.left_shift(head[lo : lo + CHUNK_ROWS], ibits, dtype=np.int64)
            out = head if index_dtype(n_all) == np.int32 else None  # the positions go where the heads were
            idx = pack_and_sort(key, ibits, packed=True, out=out, positions=index_dtype(n_all))
        else:
            key = head.astype(np.int64, copy=False)
            del head
            key <<= 1
            key |= rel[rows]
            idx = pack_and_sort(key, ibits, positions=index_dtype(n_all), rows=rows)
        del rows
    # key: (code, relevant) of every row, in order
    starts = starts_of_runs(key[1:] != key[:-1])
    head = key[starts]
    del key
    # each run's code: a group is one run, or a run of other rows and then one of relevant rows
    first = np.empty(head.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(head[1:] >> 1, head[:-1] >> 1, out=first[1:])
    at = np.flatnonzero(first)
    code = head[at] >> 1
    ends = np.append(starts[at[1:]], m)  # each group's rows end where the next group's start
    n = ends - starts[at]
    last = np.append(at[1:], head.shape[0]) - 1  # each group's last run: its relevant rows, if any
    npos = np.where(head[last] & 1, ends - starts[last], 0)
    return code, n, npos, idx


def code_cuts(codes: np.ndarray, n_parts: int) -> list[int]:
    """Codes that cut the rows into ``n_parts`` ranges of codes with about as many rows each: the
    quantiles of a fixed sample of the codes (every ``len / 4096 / n_parts``-th row), distinct and
    ascending (any cuts give the same counts)."""
    n_rows = codes.shape[0]
    if n_parts < 2 or n_rows < 2:
        return []
    sample = np.sort(codes[:: max(1, n_rows // (4096 * n_parts))])
    at = sample.shape[0] * np.arange(1, n_parts) // n_parts
    return sorted({int(c) for c in sample[at]} - {int(sample[0])})


def count_groups(
    codes: np.ndarray, n_codes: int, rel: np.ndarray, workers: Workers | None = None, n_parts: int = 1
) -> Counts | None:
    """Every group's rows and relevant rows (None: the sparse codes do not fit one int64 key).

    Sparse codes are cut into ranges of codes (:func:`code_cuts`), one a thread: each range's rows
    are picked, sorted and counted on their own, and since a group lies in one range the ranges'
    groups follow one another, ascending. The counts are those of one sort of every row."""
    n_rows = codes.shape[0]
    if n_codes <= 4 * n_rows + 1024:  # dense codes: count by code
        return _count_dense(codes, n_codes, rel)
    if bit_width(n_codes - 1) + 1 + bit_width(n_rows - 1) > 63:  # pragma: no cover - prepare() keeps sparse codes within 55 bits
        return None
    cuts = code_cuts(codes, n_parts) if workers is not None else []
    if not cuts:
        code, n, npos, idx = _count_sorted(codes, n_codes, rel)
        return Counts(code, n, npos, n_codes, [CodeRange(0, idx, n, npos)])
    bounds = list(itertools.pairwise([None, *cuts, None]))

    def part(b: tuple[int | None, int | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        lo, hi = b
        inside = codes < hi if lo is None else (codes >= lo if hi is None else (codes >= lo) & (codes < hi))
        rows = np.flatnonzero(inside)
        del inside
        return _count_sorted(codes, n_codes, rel, rows)

    parts = run_tasks(workers, part, bounds)
    code = np.concatenate([p[0] for p in parts])
    n = np.concatenate([p[1] for p in parts])
    npos = np.concatenate([p[2] for p in parts])
    firsts = np.cumsum([0] + [p[0].shape[0] for p in parts[:-1]])
    place = [CodeRange(int(f), idx, n_r, npos_r) for f, (_, n_r, npos_r, idx) in zip(firsts, parts)]
    return Counts(code, n, npos, n_codes, place)


def run_bounds(sizes: np.ndarray, n_parts: int) -> list[tuple[int, int]]:
    """The groups (by their rows ``sizes``) cut into at most ``n_parts`` runs of whole groups with
    about as many rows each, as ``(lo, hi)`` positions."""
    n_groups = int(sizes.shape[0])
    n_parts = max(1, min(n_parts, n_groups))
    if n_parts == 1:
        return [(0, n_groups)]
    cum = np.cumsum(sizes)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_parts) / n_parts, side="right")
    return [(lo, hi) for lo, hi in itertools.pairwise([0, *(int(c) for c in cuts), n_groups]) if hi > lo]


def kept_rows(
    counts: Counts,
    codes: np.ndarray,
    kept: np.ndarray,
    bounds: list[tuple[int, int]],
    workers: Workers | None = None,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The rows of the ``kept`` groups and their positions in ``kept``, laid out run after run of
    ``bounds`` (each run ascending), and the end of each run.

    Every row's kept-group position (-1: not kept) is scattered back to the rows' own order once
    (per range of codes, on the threads), so that the kept rows ascend and every later read of a
    column by them (labels, each score) streams instead of jumping about the column. Each run then
    fills its own slice of the output, chunk of rows by chunk (no temporary as long as the rows)."""
    n_rows = codes.shape[0]
    if counts.place is None:  # dense codes: every row's position looked up by its code
        slot = np.full(counts.n_codes, -1, dtype=index_dtype(kept.shape[0]))
        slot[counts.code[kept]] = np.arange(kept.shape[0])
        per_row = slot[codes]
    else:  # sparse codes: scattered to the rows from each range's groups
        slot = np.full(counts.code.shape[0], -1, dtype=index_dtype(kept.shape[0]))
        slot[kept] = np.arange(kept.shape[0])
        per_row = np.empty(n_rows, dtype=slot.dtype)
        place = counts.place
        counts.place = None  # each range's row order is freed once scattered

        def scatter(i: int) -> None:
            r = place[i]
            place[i] = None  # type: ignore[call-overload]
            per_row[r.rows] = np.repeat(slot[r.first : r.first + r.n.shape[0]], r.n)

        run_tasks(workers, scatter, range(len(place)))
    del slot
    sizes = counts.n[kept]
    ends = [int(e) for e in np.cumsum([int(sizes[lo:hi].sum()) for lo, hi in bounds])]
    rows = np.empty(ends[-1] if ends else 0, dtype=index_dtype(n_rows))
    row_group = np.empty(rows.shape[0], dtype=per_row.dtype)

    def run(r: int) -> None:
        lo, hi = bounds[r]
        at = ends[r - 1] if r else 0
        for c0 in range(0, n_rows, CHUNK_ROWS):
            chunk = per_row[c0 : c0 + CHUNK_ROWS]
            pos = np.flatnonzero((chunk >= lo) & (chunk < hi))  # -1: not kept
            m = pos.shape[0]
            row_group[at : at + m] = chunk[pos]
            pos += c0
            rows[at : at + m] = pos
            at += m
        if at != ends[r]:  # pragma: no cover - the counts and the rows' positions agree
            raise RuntimeError(f"run {r} of the kept rows has {at} rows, its groups {ends[r]}")

    run_tasks(workers, run, range(len(bounds)))
    return rows, row_group, ends
