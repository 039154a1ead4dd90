"""The first O(n) pass of an evaluation: every group's rows and relevant rows, and the kept rows.

:func:`count_groups` counts rows and relevant rows per group: a bincount of dense codes, or, for
sparse integer keys, one int64 sort of ``(code, relevant, row)`` per range of rows. With
:class:`~.threads.Workers` the rows are cut into ranges counted on as many threads (numpy releases
the GIL in its sorts),
and the ranges' per-group counts are added (additive summaries, as an engine adds its partitions'):
integers, so the counts are those of one sort of every row, in ascending code. :func:`kept_rows`
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
from ..threads import Workers, row_ranges, run_tasks

__all__ = ["Counts", "count_groups", "index_dtype", "kept_rows", "run_bounds"]


def index_dtype(n: int) -> type[np.signedinteger]:
    """int32 row indices and group positions below 2**31: half the memory, faster gathers."""
    return np.int32 if n < 2**31 else np.int64


@dataclass
class Counts:
    """Every group's code (ascending), rows and relevant rows; ``place`` tells, per group of each
    range of rows, its rows (by the range's own row numbers, group after group, relevant rows
    last), its group, its rows and its relevant rows in the range."""

    code: np.ndarray
    n: np.ndarray
    npos: np.ndarray
    n_codes: int  # the codes' upper bound
    # dense codes: None; sparse: per range (lo, hi, rows of its groups, group after group, their
    # groups' indices in ``code``, their groups' row counts and relevant row counts in the range)
    place: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | None = None


def _count_dense(codes: np.ndarray, n_codes: int, rel: np.ndarray) -> Counts:
    cnt = np.bincount(codes, minlength=n_codes)
    present = np.flatnonzero(cnt)
    n = cnt[present].astype(np.int64)
    npos = np.bincount(codes[rel], minlength=n_codes)[present].astype(np.int64)
    return Counts(present.astype(np.int64), n, npos, n_codes)


def _count_sorted(codes: np.ndarray, n_codes: int, rel: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One range's groups from one int64 sort of ``(code, relevant, row)``: their codes
    (ascending), rows and relevant rows, and the range's rows group after group.

    The sort puts a group's rows together, its relevant rows last: the runs of ``(code,
    relevant)`` give both counts with no pass over the rows beyond the run starts."""
    m = codes.shape[0]
    ibits = bit_width(m - 1)
    if codes.dtype == np.int32 and n_codes <= 2**30:  # (code, relevant) packed in 32 bits first
        head = np.left_shift(codes, 1)
        head |= rel
        key = np.left_shift(head, ibits, dtype=np.int64)
        del head
    else:
        key = codes.astype(np.int64)
        key <<= 1
        key |= rel
        key <<= ibits
    idx = pack_and_sort(key, ibits, positions=index_dtype(m), shifted=True)  # key: (code, relevant) of every row, in order
    starts = starts_of_runs(key[1:] != key[:-1])
    head = key[starts]
    del key
    lengths = np.diff(np.append(starts, m))
    del starts
    relevant = (head & 1).astype(bool)
    head >>= 1  # each run's code: a group is one run, or a run of other rows and one of relevant rows
    first = np.empty(head.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(head[1:], head[:-1], out=first[1:])
    at = np.flatnonzero(first)
    code = head[at]
    n = np.add.reduceat(lengths, at)
    npos = np.zeros(code.shape[0], dtype=np.int64)
    npos[(np.cumsum(first) - 1)[relevant]] = lengths[relevant]
    return code, n, npos, idx


def count_groups(
    codes: np.ndarray, n_codes: int, rel: np.ndarray, workers: Workers | None = None, n_parts: int = 1
) -> Counts | None:
    """Every group's rows and relevant rows (None: the sparse codes do not fit one int64 key)."""
    n_rows = codes.shape[0]
    if n_codes <= 4 * n_rows + 1024:  # dense codes: count by code
        return _count_dense(codes, n_codes, rel)
    if bit_width(n_codes - 1) + 1 + bit_width(n_rows - 1) > 63:  # pragma: no cover - prepare() keeps sparse codes within 55 bits
        return None
    ranges = row_ranges(n_rows, n_parts if workers is not None else 1)
    parts = run_tasks(workers, lambda r: _count_sorted(codes[r[0] : r[1]], n_codes, rel[r[0] : r[1]]), ranges)
    if len(parts) == 1:
        code, n, npos, idx = parts[0]
        return Counts(code, n, npos, n_codes, [(0, n_rows, idx, np.arange(code.shape[0]), n, npos)])
    # the ranges' groups joined: their codes merged (each range's ascend: a stable sort merges the
    # runs), each range's groups found among them by a search of its own (on the threads), the
    # counts added (integers: in any order)
    merged = np.sort(np.concatenate([p[0] for p in parts]), kind="stable")
    first = np.empty(merged.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(merged[1:], merged[:-1], out=first[1:])
    code = merged[first]
    del merged, first
    where = run_tasks(workers, lambda p: np.searchsorted(code, p[0]), parts)

    def added(j: int) -> np.ndarray:
        out = np.zeros(code.shape[0], dtype=np.int64)
        for w, p in zip(where, parts):
            out[w] += p[j]  # a group's index appears once per range
        return out

    n, npos = run_tasks(workers, added, [1, 2])
    place = [(lo, hi, idx, w, n_r, npos_r) for (lo, hi), (_, n_r, npos_r, idx), w in zip(ranges, parts, where)]
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
    (per range of rows, on the threads), so that the kept rows ascend and every later read of a
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
            lo, hi, idx, w, n_r, _ = place[i]
            place[i] = None  # type: ignore[call-overload]
            per_row[lo:hi][idx] = np.repeat(slot[w], n_r)

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
