"""Work only on the rows that can count: a first O(n) pass over the group codes and labels.

Most groups of a click log cannot change the result: a group with no relevant row scores 0
(``empty="zero"``) or is left out (``"skip"``) by every list metric, and a group that is not
eligible for GAUC (one class, or a ``min_*`` filter) is left out of it. :func:`group_table`
counts rows and relevant rows per group (a bincount, or one int64 sort of sparse codes), decides from
:func:`~.coverage.eligibility` which groups some requested metric needs, and keeps the rows of
those groups only; the score columns are then sorted over these rows alone. The counts of every
group stay in the table, so weights, coverage and ``n_groups`` are exactly those of a full sort.

:func:`select_first` goes further for the metrics that read only the first relevant row of a
group (MRR, hit rate): each group's best relevant score, the rows scored strictly above it and
the size of its tie block, with no sort at all (:func:`~.kernels.rr_first_block`,
:func:`~.kernels.hit_first_block` turn them into the expected values under ties).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from .coverage import eligibility
from .metric import MetricSpec
from .options import Options
from .numeric import _bits, _starts_of_runs

__all__ = ["GroupTable", "Selection", "can_skip", "candidates", "group_table", "select_first"]

#: Skip groups only when at most this share of the rows is kept (else the pass costs more than it saves).
_KEEP_AT_MOST = 0.9


@dataclass
class Part:
    """A run of whole kept groups (``lo`` to ``hi`` among the kept ones), ranked on its own."""

    lo: int
    hi: int
    rows: np.ndarray
    row_group: np.ndarray  # 0 .. hi - lo - 1
    level: np.ndarray


@dataclass
class GroupTable:
    """Every group's counts (ascending code, as a full ranking orders them) and the kept rows.

    Duck-types the group side of :class:`~.ranking.Ranking` (``code``, ``n``, ``npos``,
    ``nneg``, ``n_groups``, ``wpos``, ``wneg``) for weights, eligibility and coverage.
    """

    code: np.ndarray
    n: np.ndarray
    npos: np.ndarray
    kept: np.ndarray  # indices (into the groups above) of the groups whose rows are kept
    rows: np.ndarray  # the kept rows (ascending, group after group, or ascending run after run of groups)
    row_group: np.ndarray  # per kept row: its group's position in ``kept`` (0 .. len(kept) - 1)
    grouped_rows: bool = False  # the kept rows are stored group after group
    level: np.ndarray | None = None  # per kept row: its label level (filled on first use)
    wpos: None = None
    wneg: None = None
    _parts: dict[int, list[Part]] = field(default_factory=dict)

    @property
    def nneg(self) -> np.ndarray:
        return self.n - self.npos

    @property
    def n_groups(self) -> int:
        return int(self.code.shape[0])

    def parts(self, n_parts: int) -> list[Part]:
        """The kept groups cut into ``n_parts`` runs of whole groups with about as many rows each
        (cached: they depend on the labels only)."""
        if self.level is None:
            raise RuntimeError("the kept rows have no label levels")
        n_kept = int(self.kept.shape[0])
        n_parts = max(1, min(n_parts, n_kept))
        if n_parts not in self._parts:
            if n_parts == 1:
                self._parts[1] = [Part(0, n_kept, self.rows, self.row_group, self.level)]
            else:
                cum = np.cumsum(self.n[self.kept])
                cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_parts) / n_parts, side="right")
                bounds = [(lo, hi) for lo, hi in itertools.pairwise([0, *(int(c) for c in cuts), n_kept]) if hi > lo]
                if self.grouped_rows:
                    ends = [int(cum[hi - 1]) for _, hi in bounds]
                else:
                    # the kept rows put run after run once (ascending within a run): every run is then
                    # a slice of the table's arrays, not a second copy of them while the runs are ranked
                    runs = [np.flatnonzero((self.row_group >= lo) & (self.row_group < hi)) for lo, hi in bounds]
                    ends = [int(e) for e in np.cumsum([r.shape[0] for r in runs])]
                    perm = np.concatenate(runs)
                    del runs
                    self.rows, self.row_group, self.level = self.rows[perm], self.row_group[perm], self.level[perm]
                    del perm
                out = []
                for (lo, hi), start, end in zip(bounds, [0, *ends[:-1]], ends):
                    sel = slice(start, end)
                    rg = self.row_group[sel] - self.row_group.dtype.type(lo)
                    out.append(Part(lo, hi, self.rows[sel], rg, self.level[sel]))
                self._parts[n_parts] = out
        return self._parts[n_parts]

    def expand(self, values: np.ndarray, fill: float) -> np.ndarray:
        """Per-kept-group values as one value per group, ``fill`` for the others."""
        out = np.full(self.n_groups, fill, dtype=np.float64)
        out[self.kept] = values
        return out


#: The metrics whose values are reductions over the ranking of a group's own rows (or, global AUC,
#: over the sorted scores): a metric added later takes the full sort until it is listed here.
SKIPPABLE = frozenset({"auc", "gauc", "mrr", "ndcg", "map", "precision", "recall", "hit_rate", "rbp"})


def can_skip(opts: Options, specs: list[MetricSpec], keep_order: bool) -> bool:
    """Whether the options let the evaluation sort only the groups that count.

    The row order kept for the bootstrap or segments of global AUC, sample weights, the sklearn
    engine, ``max_fpr``, a tie-break column and the non-default tie rules read every row (or
    depend on ties anywhere in the column): they keep the full sort. Global AUC itself needs no
    row order (the sorted non-relevant scores are searched, as when it is asked for alone).
    """
    return (
        all(s.kind in SKIPPABLE for s in specs)
        and not keep_order
        and opts.sample_weight is None
        and opts.engine != "sklearn"
        and opts.max_fpr is None
        and opts.tiebreak is None
        and opts.ties == "expected"
    )


def group_table(
    codes: np.ndarray, n_codes: int, rel: np.ndarray, specs: list[MetricSpec], opts: Options
) -> GroupTable | None:
    """Count rows and relevant rows per group and keep the rows of the groups some metric needs.

    None when (nearly) every row is needed: the full sort is then the cheaper path.
    """
    n_rows = codes.shape[0]
    if not n_rows:
        return None
    if n_codes <= 4 * n_rows + 1024:  # dense codes: count by code
        cnt = np.bincount(codes, minlength=n_codes)
        present = np.flatnonzero(cnt)
        n = cnt[present].astype(np.int64)
        npos = np.bincount(codes[rel], minlength=n_codes)[present].astype(np.int64)
        kept = _needed(n, npos, specs, opts, n_rows)
        if kept is None:
            return None
        slot = np.full(n_codes, -1, dtype=_index_dtype(kept.shape[0]))
        slot[present[kept]] = np.arange(kept.shape[0])
        per_row = slot[codes]
        rows = np.flatnonzero(per_row >= 0).astype(_index_dtype(n_rows))
        return GroupTable(code=present.astype(np.int64), n=n, npos=npos, kept=kept, rows=rows, row_group=per_row[rows])
    ibits = _bits(n_rows - 1)
    if _bits(n_codes - 1) + 1 + ibits > 63:  # pragma: no cover - prepare() keeps sparse codes within 55 bits
        return None
    # sparse codes: one int64 sort of (code, relevant, row) puts every group's rows together, in
    # code order, and counts its relevant rows without a gather
    key = codes.astype(np.int64)
    key <<= 1
    key |= rel
    key <<= ibits
    key |= np.arange(n_rows, dtype=np.int64)
    key.sort()
    idx = np.empty(n_rows, dtype=_index_dtype(n_rows))
    np.bitwise_and(key, (1 << ibits) - 1, out=idx, casting="unsafe")
    key >>= ibits
    is_rel = np.empty(n_rows, dtype=np.int8)  # one byte a row, not eight, at the pass's peak
    np.bitwise_and(key, 1, out=is_rel, casting="unsafe")
    key >>= 1
    starts = _starts_of_runs(key[1:] != key[:-1])
    code = key[starts]
    del key
    n = np.diff(np.append(starts, n_rows))
    npos = np.add.reduceat(is_rel, starts, dtype=np.int64)
    del is_rel
    kept = _needed(n, npos, specs, opts, n_rows)
    if kept is None:
        return None
    # every row's kept-group position (-1: not kept), scattered back to the rows' own order once, so
    # that the kept rows ascend and every later read of a column by them (labels, each score) streams
    # instead of jumping about the column
    slot = np.full(n.shape[0], -1, dtype=_index_dtype(kept.shape[0]))
    slot[kept] = np.arange(kept.shape[0])
    per_row = np.empty(n_rows, dtype=slot.dtype)
    per_row[idx] = np.repeat(slot, n)
    del idx
    rows = np.flatnonzero(per_row >= 0).astype(_index_dtype(n_rows))
    return GroupTable(code=code, n=n, npos=npos, kept=kept, rows=rows, row_group=per_row[rows])


def _index_dtype(n: int) -> type[np.signedinteger]:
    """int32 row indices and group positions below 2**31: half the memory, faster gathers."""
    return np.int32 if n < 2**31 else np.int64


def _needed(n: np.ndarray, npos: np.ndarray, specs: list[MetricSpec], opts: Options, n_rows: int) -> np.ndarray | None:
    """The groups some metric needs (indices), or None when skipping the others saves little."""
    need = np.zeros(n.shape[0], dtype=bool)
    for spec in specs:
        if spec.info.eligibility == "pairs":
            need |= eligibility("pairs", n, npos, opts).used
        elif spec.info.eligibility == "relevant":  # a group with no relevant row scores 0 or is left out
            need |= npos > 0
    kept = np.flatnonzero(need)
    if not kept.shape[0] or int(n[kept].sum()) > _KEEP_AT_MOST * n_rows:
        return None
    return kept


@dataclass
class Selection:
    """Per kept group: rows strictly above the best relevant score (``m``), rows at that score
    (``t``) and relevant rows among them (``p``): the first tie block holding a relevant row."""

    m: np.ndarray
    t: np.ndarray
    p: np.ndarray


def select_first(score: np.ndarray, rel: np.ndarray, group: np.ndarray, n_groups: int) -> Selection:
    """:class:`Selection` of every group from its rows (no sort): O(n).

    ``group`` is every row's group in ``0 .. n_groups - 1``; every group has a relevant row.
    """
    gr, sr = group[rel], score[rel]
    best = np.empty(n_groups, dtype=score.dtype)
    best[gr] = sr  # any relevant score of the group, then the largest
    np.maximum.at(best, gr, sr)
    b = best[group]
    m = np.bincount(group[score > b], minlength=n_groups)
    at = score == b
    t = np.bincount(group[at], minlength=n_groups)
    p = np.bincount(group[at & rel], minlength=n_groups)
    return Selection(m.astype(np.int64), t.astype(np.int64), p.astype(np.int64))


def candidates(score: np.ndarray, part: Part, marked: np.ndarray, bound: int | None) -> np.ndarray | None:
    """The rows of a part that a tie-free list metric reads (a bool mask), or None when they are
    (nearly) all of them: O(n), no sort.

    A group's rows scored below all its ``marked`` (relevant, or gaining) rows change no offset of a
    marked row: they are dropped. With ``bound`` (every metric has a cutoff, the largest), a group
    whose best marked row has ``bound`` rows or more above it shows no marked row within any cutoff:
    one of its unmarked rows stands for it (it scores 0 and stays in the ranking). Every group of
    the part has a marked row.
    """
    g = part.row_group
    n_groups = part.hi - part.lo
    s = score[part.rows]
    gm, sm = g[marked], s[marked]
    low = np.empty(n_groups, dtype=s.dtype)
    low[gm] = sm
    np.minimum.at(low, gm, sm)
    keep = s >= low[g]
    if bound is not None:
        best = np.empty(n_groups, dtype=s.dtype)
        best[gm] = sm
        np.maximum.at(best, gm, sm)
        above = s > best[g]
        far = np.bincount(g[above], minlength=n_groups) >= bound
        if far.any():
            keep &= ~far[g]
            stand_in = np.empty(n_groups, dtype=np.int64)
            idx = np.flatnonzero(above & far[g])
            stand_in[g[idx]] = idx  # one row above the best marked row of each such group
            keep[stand_in[far]] = True
    if int(np.count_nonzero(keep)) > _KEEP_AT_MOST * s.shape[0]:
        return None
    return keep
