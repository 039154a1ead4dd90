"""Work only on the rows that can count: a first O(n) pass over the group codes and labels.

Most groups of a click log cannot change the result: a group with no relevant row scores 0
(``empty="zero"``) or is left out (``"skip"``) by every list metric, and a group that is not
eligible for GAUC (one class, or a ``min_*`` filter) is left out of it. :func:`group_table`
counts rows and relevant rows per group (a bincount, or one int64 sort of sparse codes), decides from
:func:`~.coverage.eligibility` which groups some requested metric needs, and keeps the rows of
those groups only; the score columns are then sorted over these rows alone. The counts of every
group stay in the table, so weights, coverage and ``n_groups`` are exactly those of a full sort.

The metrics that read only the first relevant row of a group (MRR, hit rate) do not come here
when they are all a call asks for: :mod:`.first_block` counts each group's first relevant block
over every row, with no sort by score and none of this module's kept rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..metrics.coverage import eligibility
from .group_count import count_groups, kept_rows, run_bounds
from ..metrics.metric import MetricSpec
from ..inputs.options import Options
from ..kernels.ranked import Part, Selection
from ..reference import reference_mode
from ..threads import Workers

__all__ = ["GroupTable", "Selection", "can_skip", "candidates", "group_table"]

#: Skip groups only when at most this share of the rows is kept (else the pass costs more than it saves).
_KEEP_AT_MOST = 0.9



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
    rows: np.ndarray  # the kept rows, ascending run after run of whole groups (``layout``)
    row_group: np.ndarray  # per kept row: its group's position in ``kept`` (0 .. len(kept) - 1)
    layout: tuple[list[tuple[int, int]], list[int]]  # the runs' groups (lo, hi) and their rows' ends
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
            bounds = run_bounds(self.n[self.kept], n_parts)
            if bounds == self.layout[0]:  # laid out so by the group count: every run is a slice
                ends = self.layout[1]
            elif len(bounds) == 1:
                ends = [int(self.rows.shape[0])]
            else:
                # the kept rows put run after run once (ascending within a run): every run is then
                # a slice of the table's arrays, not a second copy of them while the runs are ranked
                runs = [np.flatnonzero((self.row_group >= lo) & (self.row_group < hi)) for lo, hi in bounds]
                ends = [int(e) for e in np.cumsum([r.shape[0] for r in runs])]
                perm = np.concatenate(runs)
                del runs
                self.rows, self.row_group, self.level = self.rows[perm], self.row_group[perm], self.level[perm]
                del perm
                self.layout = (bounds, ends)
            out = []
            for (lo, hi), start, end in zip(bounds, [0, *ends[:-1]], ends):
                sel = slice(start, end)
                rg = self.row_group[sel] if lo == 0 else self.row_group[sel] - self.row_group.dtype.type(lo)
                out.append(Part(lo, hi, self.rows[sel], rg, self.level[sel]))
            self._parts[n_parts] = out
        return self._parts[n_parts]

    def expand(self, values: np.ndarray, fill: float) -> np.ndarray:
        """Per-kept-group values as one value per group, ``fill`` for the others."""
        out = np.full(self.n_groups, fill, dtype=np.float64)
        out[self.kept] = values
        return out


def can_skip(opts: Options, specs: list[MetricSpec], keep_order: bool) -> bool:
    """Whether the options let the evaluation sort only the groups that count.

    The row order kept for the bootstrap or segments of global AUC, sample weights, the sklearn
    engine, ``max_fpr``, a tie-break column and the non-default tie rules read every row (or
    depend on ties anywhere in the column): they keep the full sort. Global AUC itself needs no
    row order (the sorted non-relevant scores are searched, as when it is asked for alone).
    Never under the reference switch (:func:`~.reference.reference_mode`): every group is ranked,
    every row of it.
    """
    return (
        not reference_mode()
        and all(s.info.cut.skip_groups for s in specs)
        and not keep_order
        and opts.sample_weight is None
        and opts.implementation != "sklearn"
        and opts.max_fpr is None
        and opts.tiebreak is None
        and opts.retrieved is None
        and opts.ties == "expected"
    )


def group_table(
    codes: np.ndarray,
    n_codes: int,
    rel: np.ndarray,
    specs: list[MetricSpec],
    opts: Options,
    workers: Workers | None = None,
    n_parts: int = 1,
) -> GroupTable | None:
    """Count rows and relevant rows per group (:func:`~.group_count.count_groups`) and keep the
    rows of the groups some metric needs, laid out in ``n_parts`` runs of whole groups (counted
    and laid out on the threads of ``workers``).

    None when (nearly) every row is needed: the full sort is then the cheaper path.
    """
    n_rows = codes.shape[0]
    if not n_rows:
        return None
    counts = count_groups(codes, n_codes, rel, workers, n_parts)
    if counts is None:  # pragma: no cover - prepare() keeps sparse codes within 55 bits
        return None
    kept = _needed(counts.n, counts.npos, specs, opts, n_rows)
    if kept is None:
        return None
    bounds = run_bounds(counts.n[kept], n_parts)
    rows, row_group, ends = kept_rows(counts, codes, kept, bounds, workers)
    return GroupTable(code=counts.code, n=counts.n, npos=counts.npos, kept=kept, rows=rows, row_group=row_group,
                      layout=(bounds, ends))


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



def candidates(score: np.ndarray, part: Part, marked: np.ndarray, bound: int | None) -> np.ndarray | None:
    """The rows of a part that a tie-free list metric reads (their positions in the part,
    ascending), or None when they are (nearly) all of them: O(n), no sort.

    A group's rows scored below all its ``marked`` (relevant, or gaining) rows change no offset of a
    marked row: they are dropped. With ``bound`` (every metric has a cutoff, the largest), a group
    whose best marked row has ``bound`` rows or more above it shows no marked row within any cutoff:
    one of its unmarked rows stands for it (it scores 0 and stays in the ranking). Every group of
    the part has a marked row. (Rows are picked by positions, not boolean masks: faster gathers.)
    """
    g = part.row_group
    n_groups = part.hi - part.lo
    s = score[part.rows]
    pos = np.flatnonzero(marked)
    gm, sm = g[pos], s[pos]
    del pos
    low = np.empty(n_groups, dtype=s.dtype)
    low[gm] = sm
    np.minimum.at(low, gm, sm)
    keep = s >= low[g]
    if bound is not None:
        best = np.empty(n_groups, dtype=s.dtype)
        best[gm] = sm
        np.maximum.at(best, gm, sm)
        above = np.flatnonzero(s > best[g])
        g_above = g[above]
        far = np.bincount(g_above, minlength=n_groups) >= bound
        if far.any():
            keep &= ~far[g]
            stand_in = np.empty(n_groups, dtype=np.int64)
            idx = above[far[g_above]]
            stand_in[g[idx]] = idx  # one row above the best marked row of each such group
            keep[stand_in[far]] = True
    rows = np.flatnonzero(keep)
    if rows.shape[0] > _KEEP_AT_MOST * s.shape[0]:
        return None
    return rows
