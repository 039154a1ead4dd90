"""MRR and hit rate with no sort by score: every group's first relevant block, counted.

The metrics whose entry has a ``Cut.select`` (MRR, MRR@K, hit rate@K) read, per group, only the
best relevant score, the rows scored strictly above it, and the size and relevant count of its
tie block (:class:`~.kernels.ranked.Selection`; :func:`~.kernels.rr_first_block` and
:func:`~.kernels.hit_first_block` turn them into the expected values under ties). None of these
needs an order of the scores, so when every metric of a call is such a metric, the evaluation
takes this path: no score column is sorted, no group is skipped or laid out, no row is scattered.

:func:`first_block_groups`, once per evaluation (the labels only), gives every group's rows and
relevant rows and a way to reach each group's rows:

* dense codes (at most ``4 n + 1024``): no sort at all. The codes present are looked up in a table
  by code, which gives every row its group in the rows' own order (:class:`RowGroups`); the counts
  are ``bincount``\\ s.
* sparse codes (integer keys far apart): the group count's one int64 sort of ``(code, relevant,
  row)`` per range of codes, on the call's threads (:func:`~.group_count.count_groups`), which
  puts each range's rows group after group, relevant rows last (:class:`Run`; a group lies in one
  range). It is kept in that
  order, the rows of the groups with no relevant row left out (42% of the benchmark frame's rows):
  the score column is read through it, and nothing goes back to the rows' order. (Measured
  on 1e7 rows of 1e6 random keys, one thread: ``pandas.factorize`` took 0.4-0.6 s of CPU, this
  sort with its key 0.25-0.35 s: the hash table's random reads cost more than numpy's sort.)

:func:`select_first_blocks`, per score column, counts over every row, range by range on the
threads, each range in steps that stay in cache: each group's best relevant score (a maximum over
its relevant rows), then the rows at or above it (``m + t``) and tied with it (``t``), and the
relevant rows at it (``p``). Every count is an integer (dense codes: added over the ranges of rows;
sparse: each group's from its own range of codes): the same numbers on any number of threads, and
those the sort path reads off its ranking, so the values are the same to the last bit. The
reference switch (:func:`~.reference.reference_mode`) turns the path off.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..kernels.ranked import Selection
from ..ranking.numeric import CHUNK_ROWS, rows_of_runs, run_of_rows
from ..threads import Workers, row_ranges, run_tasks
from .group_count import count_groups, index_dtype

__all__ = ["FirstBlockGroups", "Run", "first_block_groups", "select_first_blocks"]

#: Rows per step of a range: the step's gathered scores and best scores stay in cache, and no
#: array as long as the rows is made.
_STEP_ROWS = 4 * CHUNK_ROWS


@dataclass
class Run:
    """The groups with a relevant row of one range of codes: their rows (positions in the frame),
    group after group, relevant rows last, and per group its index in the table, rows and relevant
    rows. A group lies in one run."""

    rows: np.ndarray
    group: np.ndarray
    n: np.ndarray
    npos: np.ndarray


@dataclass
class RowGroups:
    """Every row's group (its index in the table), in the rows' order, the ranges of rows taken on
    threads, and the relevant rows (ascending positions)."""

    row_group: np.ndarray
    ranges: list[tuple[int, int]]
    relevant: np.ndarray


@dataclass
class FirstBlockGroups:
    """Every group's code (ascending), rows and relevant rows, and how to reach each group's rows:
    ``rows`` (dense codes) or ``runs`` (sparse codes).

    Duck-types the group side of :class:`~.ranking.Ranking` (``code``, ``n``, ``npos``, ``nneg``,
    ``n_groups``, ``wpos``, ``wneg``) for weights, eligibility and coverage, and the ``kept`` /
    :meth:`expand` of :class:`~.skip.GroupTable`: the kept groups are those with a relevant row.
    """

    code: np.ndarray
    n: np.ndarray
    npos: np.ndarray
    kept: np.ndarray  # the groups with a relevant row (indices, ascending)
    rows: RowGroups | None = None
    runs: list[Run] | None = None
    wpos: None = None
    wneg: None = None

    @functools.cached_property
    def nneg(self) -> np.ndarray:
        return self.n - self.npos

    @property
    def n_groups(self) -> int:
        return int(self.code.shape[0])

    def expand(self, values: np.ndarray, fill: float) -> np.ndarray:
        """Per-kept-group values as one value per group, ``fill`` for the others."""
        out = np.full(self.n_groups, fill, dtype=np.float64)
        out[self.kept] = values
        return out


def _dense_rows(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes: the codes present (ascending) and every row's index among them."""
    present = np.zeros(n_codes, dtype=bool)
    present[codes] = True
    code = np.flatnonzero(present)
    del present
    if code.shape[0] == n_codes:  # every code is a group: the code is the index
        return code.astype(np.int64), codes
    slot = np.zeros(n_codes, dtype=index_dtype(code.shape[0]))
    slot[code] = np.arange(code.shape[0], dtype=slot.dtype)
    return code.astype(np.int64), slot[codes]


def first_block_groups(codes: np.ndarray, n_codes: int, rel: np.ndarray, workers: Workers | None = None,
                       n_parts: int = 1) -> FirstBlockGroups:
    """Every group's code, rows and relevant rows, the groups with a relevant row, and the way to
    each group's rows (see the module docstring); ``n_parts`` ranges of rows (dense codes) or of
    codes (sparse) on the threads of ``workers``."""
    n_rows = codes.shape[0]
    ranges = row_ranges(n_rows, n_parts if workers is not None else 1)
    if n_codes <= 4 * n_rows + 1024:  # dense codes: no sort
        code, row_group = _dense_rows(codes, n_codes)
        n_groups = code.shape[0]
        relevant = np.flatnonzero(rel).astype(index_dtype(n_rows))  # (gathers by positions: faster than masks)
        n = np.bincount(row_group, minlength=n_groups).astype(np.int64)
        npos = np.bincount(row_group[relevant], minlength=n_groups).astype(np.int64)
        return FirstBlockGroups(code, n, npos, np.flatnonzero(npos), rows=RowGroups(row_group, ranges, relevant))
    counts = count_groups(codes, n_codes, rel, workers, n_parts)
    if counts is None or counts.place is None:  # pragma: no cover - prepare() keeps sparse codes within 55 bits
        raise RuntimeError("sparse group codes that one int64 key cannot hold")
    place = counts.place
    counts.place = None

    def kept_run(i: int) -> Run:
        """A range's run, its groups with no relevant row left out (their rows are never read)."""
        r = place[i]
        place[i] = None  # type: ignore[call-overload]
        rows, n, npos = r.rows, r.n, r.npos
        group = np.arange(r.first, r.first + n.shape[0])
        keep = npos > 0
        if not keep.all():  # (np.compress: about twice as fast as a boolean index here)
            rows = np.compress(rows_of_runs(n, keep), rows)
            group, n, npos = group[keep], n[keep], npos[keep]
        return Run(rows, group, n, npos)

    runs = run_tasks(workers, kept_run, range(len(place)))
    return FirstBlockGroups(counts.code, counts.n, counts.npos, np.flatnonzero(counts.npos > 0), runs=runs)


def _top(dtype: np.dtype) -> np.generic:
    """The largest value of a score dtype (inf for floats), as that dtype."""
    if dtype.kind == "f":
        return dtype.type(np.inf)
    return dtype.type(np.iinfo(dtype).max)


def select_first_blocks(score: np.ndarray, groups: FirstBlockGroups, workers: Workers | None = None) -> Selection:
    """:class:`Selection` of every kept group (a relevant row) of one score column, no sort: O(n).

    Every group's best relevant score first, then the rows at or above it, range of rows by range
    (dense codes) or range of codes by range (sparse codes), on the threads of ``workers``."""
    if groups.runs is not None:
        return _select_runs(score, groups.runs, workers)
    if groups.rows is None:  # pragma: no cover - first_block_groups sets one of them
        raise RuntimeError("the groups have neither rows nor runs")
    # each group's best relevant score; a group with no relevant row keeps the top value (its
    # counts are never read: it is not kept)
    best = np.full(groups.n_groups, _top(score.dtype), dtype=score.dtype)
    at, t, p = _select_rows(score, groups.rows, best, workers)
    kept = groups.kept
    tk = t[kept]
    return Selection(at[kept] - tk, tk, p[kept])


def _select_rows(score: np.ndarray, rows: RowGroups, best: np.ndarray,
                 workers: Workers | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense codes: every row's group in the rows' order. Returns per group the rows at or above
    its best relevant score, those tied with it, and the relevant rows at it."""
    g = rows.row_group
    n_groups = best.shape[0]
    gr, sr = g[rows.relevant], score[rows.relevant]
    best[gr] = sr  # any relevant score of the group, then the largest
    np.maximum.at(best, gr, sr)
    p = np.bincount(gr[sr == best[gr]], minlength=n_groups).astype(np.int64)
    del gr, sr

    def count(r: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        ups: list[np.ndarray] = []
        ties: list[np.ndarray] = []
        for lo in range(r[0], r[1], _STEP_ROWS):
            hi = min(lo + _STEP_ROWS, r[1])
            gs, ss = g[lo:hi], score[lo:hi]
            b = best[gs]
            up = np.flatnonzero(ss >= b)  # few rows: those above the first relevant block, and it
            g_up = gs[up]
            ups.append(g_up)
            ties.append(g_up[ss[up] == b[up]])
        return (np.bincount(np.concatenate(ups), minlength=n_groups),
                np.bincount(np.concatenate(ties), minlength=n_groups))

    at = np.zeros(n_groups, dtype=np.int64)
    t = np.zeros(n_groups, dtype=np.int64)
    for a, b in run_tasks(workers, count, rows.ranges):
        at += a
        t += b
    return at, t, p


def _relevant_positions(run: Run) -> np.ndarray:
    """The positions (in ``run.rows``) of the run's relevant rows, group after group: each group's
    relevant rows are the last of its rows (every group of a run has one)."""
    k = run.npos
    owner = run_of_rows(k)
    pos = np.arange(owner.shape[0], dtype=np.int64)
    pos += (np.cumsum(run.n) - np.cumsum(k))[owner]  # a relevant row's offset: the other rows before it
    return pos


def _select_runs(score: np.ndarray, runs: list[Run], workers: Workers | None) -> Selection:
    """Sparse codes: each range of codes' rows group after group (relevant rows last), a run a
    thread. The runs' groups follow one another, ascending, and are the kept groups: their
    selections, one after the other, are every kept group's."""

    def count(run: Run) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The run's rows strictly above its groups' best relevant scores, tied with them, and
        relevant at them."""
        n_run = run.n.shape[0]
        if not n_run:
            return (np.zeros(0, dtype=np.int64),) * 3
        k = run.npos
        s_rel = score[run.rows[_relevant_positions(run)]]
        rel_starts = np.cumsum(k) - k
        b_run = np.maximum.reduceat(s_rel, rel_starts)
        p = np.add.reduceat(s_rel == np.repeat(b_run, k), rel_starts, dtype=np.int64)
        del s_rel
        ends = np.cumsum(run.n)
        at = np.empty(n_run, dtype=np.int64)
        tie = np.empty(n_run, dtype=np.int64)
        j0 = 0
        while j0 < n_run:  # steps of whole groups of about _STEP_ROWS rows
            start = int(ends[j0 - 1]) if j0 else 0
            j1 = max(j0 + 1, int(np.searchsorted(ends, start + _STEP_ROWS, side="right")))
            j1 = min(j1, n_run)
            s = score[run.rows[start : int(ends[j1 - 1])]]
            b = np.repeat(b_run[j0:j1], run.n[j0:j1])
            starts = ends[j0:j1] - run.n[j0:j1] - start
            at[j0:j1] = np.add.reduceat((s >= b).view(np.uint8), starts, dtype=np.int64)
            # rows tied with their group's best: few (the best itself, and its ties), found by position
            eq = np.flatnonzero(s == b)
            tie[j0:j1] = np.bincount(np.searchsorted(starts, eq, side="right") - 1, minlength=j1 - j0)
            j0 = j1
        at -= tie
        return at, tie, p

    counted = run_tasks(workers, count, runs)
    m, t, p = (np.concatenate([c[j] for c in counted]) for j in range(3))
    return Selection(m, t, p)
