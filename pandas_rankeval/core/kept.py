"""The score columns of an evaluation over the groups that count only (see :mod:`.skip`).

:func:`table_of` decides once per evaluation which groups some metric needs. :func:`evaluate_kept`
then ranks every score column over the rows of those groups, cut into runs of whole groups
(:meth:`~.skip.GroupTable.parts`) that are ranked on threads (numpy releases the GIL in its
sorts and gathers); a group's values depend on its own rows only, so the parts' per-group values
are those of one ranking of all the kept rows. MRR and hit rate alone are selected, not sorted.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence

import numpy as np

from . import ranking as E
from .definitions import gains
from .evaluation import Evaluation, ScoreEvaluation
from .int_sort import sort_values
from .skip import GroupTable, Part, Selection, can_skip, candidates, group_table, select_first
from .sorting import sortable
from .threads import Workers, run_tasks
from .validation import internal_error

__all__ = ["evaluate_kept", "table_of"]

#: Metrics whose values are the same to the last bit on the tie-free path of a ranking and on its
#: tie-block path (integer counts, or one term per group): they need no tie check of the column.
#: NDCG, MAP and RBP sum different float terms on the two paths.
_EITHER_PATH = frozenset({"gauc", "mrr", "hit_rate", "precision", "recall"})


def table_of(
    ev: Evaluation, keep_order: bool, workers: Workers | None = None, n_parts: int = 1
) -> GroupTable | None:
    """The groups that count, decided once per evaluation from the labels (None: sort all), their
    rows laid out in ``n_parts`` runs of whole groups (counted on the threads of ``workers``)."""
    if not ev.table_decided:
        ev.table_decided = True
        if any(s.info.grouped for s in ev.specs) and can_skip(ev.options, ev.specs, keep_order):
            groups = ev.prepared.encode_groups()
            if groups is None:
                raise internal_error("skipping groups needs group codes")
            ev.table = group_table(groups.codes, groups.n_codes, ev.labels.rel, ev.specs, ev.options, workers, n_parts)
            if ev.table is not None:
                ev.table.level = ev.labels.level[ev.table.rows]
    return ev.table


class _Ties:
    """Whether a score column has two equal values anywhere, computed once (on a worker thread
    ahead of time when ``workers`` has one, else on first demand); with ``rel``, also the counts of
    the column's global AUC, whose search of the sorted classes tells the ties for free.

    A part with no tie takes the tie-free arithmetic only when the whole column has none (the
    arithmetic of a full sort, to the last bit)."""

    def __init__(
        self,
        score: np.ndarray,
        workers: Workers | None = None,
        needed: bool = True,
        rel: np.ndarray | None = None,
    ) -> None:
        self._score = score
        self._rel = rel
        self._lock = threading.Lock()
        self._any: bool | None = None if needed or rel is not None else False
        self._counts: tuple[float, float, float] | None = None
        self._future = workers.submit(self._compute) if workers is not None and self._any is None else None

    def _compute(self) -> None:
        with self._lock:
            if self._any is None:
                if self._rel is not None:
                    self._counts, self._any = E.global_auc_and_ties(self._score, self._rel, "expected")
                else:
                    s = sortable(self._score)
                    s = s.copy() if s is self._score else s
                    sort_values(s)
                    self._any = bool((s[1:] == s[:-1]).any())

    @property
    def pending(self) -> bool:
        """Whether the check runs (or waits) on a worker thread."""
        return self._future is not None and not self._future.done()

    def anywhere(self) -> bool:
        self._compute()
        return bool(self._any)

    def auc_counts(self) -> tuple[float, float, float] | None:
        """The global AUC's ``(U, P, N)`` (None when not asked for with ``rel``)."""
        self._compute()
        return self._counts


def _rank_part(ev: Evaluation, score: np.ndarray, part: Part, ties: _Ties) -> E.Ranking:
    """One part's ranking: its rows sorted by score, then by (group, rank); for the list metrics,
    only the rows that can count (:func:`~.skip.candidates`) when that is exact."""
    bound = _list_bound(ev)
    if bound is not False:
        keep = candidates(score, part, _marked(ev, part), bound)
        if keep is not None:
            sub = Part(part.lo, part.hi, part.rows[keep], part.row_group[keep], part.level[keep])
            s = score[sub.rows]
            order, rank = E.score_rank(s, ties="expected")
            n = s.shape[0]
            del s
            # tie-free candidates of a tie-free column: the tie-free arithmetic of the whole part
            # (the relevant rows' offsets and best-first order are those of the whole part)
            if n and int(rank[0]) == n - 1 and not ties.anywhere():
                rk = _build(ev, sub, order, rank, False)
                whole_totals(rk, ev, part)
                return rk
    s = score[part.rows]
    order, rank = E.score_rank(s, ties="expected")
    n = s.shape[0]
    del s
    elsewhere = bool(n) and int(rank[0]) == n - 1 and ties.anywhere()
    return _build(ev, part, order, rank, elsewhere)


def _build(ev: Evaluation, part: Part, order: np.ndarray, rank: np.ndarray, elsewhere: bool) -> E.Ranking:
    """The part's ranking; ``rank`` is consumed (its buffer becomes the sort key)."""
    labels = ev.labels
    graded = any(spec.info.graded for spec in ev.specs)
    return E.build_ranking(
        part.row_group,
        part.hi - part.lo,
        order,
        rank,
        part.level,
        labels.n_levels,
        labels.rel_level,
        gains=gains(ev) if graded else None,
        count_levels=graded,
        ties_elsewhere=elsewhere,
        block_levels=any(spec.info.block_levels for spec in ev.specs),
        consume=True,
    )


#: The list metrics whose tie-free values read only the relevant (or gaining) rows, their offsets
#: in the group and their order, best first: rows below all of them cannot change a value.
_SELECTABLE = frozenset({"mrr", "ndcg", "map", "precision", "recall", "hit_rate", "rbp"})


def _list_bound(ev: Evaluation) -> int | None | bool:
    """False when the rows below a group's last relevant row may matter (a pair metric, or one not
    in :data:`_SELECTABLE`); else the largest cutoff when every metric has one (a group whose best
    relevant row has that many rows above it scores 0), else None."""
    grouped = [s for s in ev.specs if s.info.grouped]
    if not grouped or any(s.kind not in _SELECTABLE or s.info.eligibility != "relevant" for s in grouped):
        return False
    cutoffs = [s.cutoff for s in grouped]
    return None if any(c is None for c in cutoffs) else max(int(c) for c in cutoffs)  # type: ignore[arg-type]


def whole_totals(rk: E.Ranking, ev: Evaluation, part: Part) -> None:
    """Give a ranking of some rows of a part the whole groups' totals (rows, relevant rows and,
    for NDCG's ideal DCG, rows per label level), as :func:`~.ranking.build_ranking` counts them."""
    table = ev.table
    if table is None:
        raise internal_error("a ranking of the rows that count needs the group table")
    kept = table.kept[part.lo : part.hi]
    rk.n = table.n[kept]
    rk.npos = table.npos[kept]
    rk.nneg = rk.n - rk.npos
    if rk.level_counts is None and not any(s.info.graded for s in ev.specs):
        return
    labels = ev.labels
    n_groups = part.hi - part.lo
    if labels.n_levels == 2 and labels.rel_level == 1:
        rk.level_counts = np.column_stack([rk.n - rk.npos, rk.npos])
    elif n_groups * labels.n_levels <= 4 * part.rows.shape[0] + 1024:
        cell = part.row_group.astype(np.int64) * labels.n_levels
        cell += part.level
        rk.level_counts = np.bincount(cell, minlength=n_groups * labels.n_levels).reshape(n_groups, labels.n_levels)
    else:
        rk.level_counts = None


def _marked(ev: Evaluation, part: Part) -> np.ndarray:
    """Per row of the part: relevant, or with a gain (graded labels below the threshold)."""
    marked = part.level >= ev.labels.rel_level
    if any(s.info.graded for s in ev.specs):
        marked |= gains(ev)[part.level] != 0
    return marked


def evaluate_kept(
    ev: Evaluation, names: Sequence[Hashable], keep_order: bool, threads: int
) -> list[ScoreEvaluation] | None:
    """Every score column over the groups that count: selected (MRR and hit rate alone) or ranked
    in ``threads`` parts on as many threads. None when the options or the data ask for a full
    sort (see :func:`table_of`)."""
    if ev.table_decided and ev.table is None:
        return None
    if not (any(s.info.grouped for s in ev.specs) and can_skip(ev.options, ev.specs, keep_order)):
        return None
    if threads <= 1:
        return _evaluate_kept(ev, names, keep_order, 1, None)
    with Workers(threads) as workers:
        return _evaluate_kept(ev, names, keep_order, threads, workers)


def _evaluate_kept(
    ev: Evaluation, names: Sequence[Hashable], keep_order: bool, threads: int, workers: Workers | None
) -> list[ScoreEvaluation] | None:
    scores = ev.prepared.scores
    select = all(s.info.select is not None for s in ev.specs)
    # the tie checks need no group: they run on the workers while the groups are counted, fused
    # with global AUC's search of the sorted classes when it is asked for
    # (this path runs with ties="expected" only: see can_skip)
    check = any(s.kind not in _EITHER_PATH for s in ev.specs if s.info.grouped)
    auc = ev.labels.rel if any(not s.info.grouped for s in ev.specs) else None
    ties = {} if select else {name: _Ties(scores[name], workers, check, auc) for name in names}
    # the group count on the threads when they are free; beside the tie checks, on this one
    busy = any(t.pending for t in ties.values())
    table = table_of(ev, keep_order, None if busy else workers, threads)
    if table is None:
        return None
    out = [ScoreEvaluation(name, {}, table=table) for name in names]
    if select:  # each run of whole groups selected on its own thread; the groups' counts joined
        runs = table.parts(threads)
        rels = [part.level >= ev.labels.rel_level for part in runs]
        picks = [(se, i) for se in out for i in range(len(runs))]

        def pick(task: tuple[ScoreEvaluation, int]) -> Selection:
            se, i = task
            part = runs[i]
            return select_first(scores[se.score][part.rows], rels[i], part.row_group, part.hi - part.lo)

        chosen = run_tasks(workers, pick, picks)
        for j, se in enumerate(out):
            own = chosen[j * len(runs) : (j + 1) * len(runs)]
            se.selection = own[0] if len(own) == 1 else Selection(
                *(np.concatenate([getattr(s, f) for s in own]) for f in ("m", "t", "p")))
        return out
    parts = table.parts(threads)
    tasks = [(se, i, p, ties[se.score]) for se in out for i, p in enumerate(parts)]
    ranked: dict[tuple[int, int], E.Ranking] = {}

    def rank(task: tuple[ScoreEvaluation, int, Part, _Ties]) -> None:
        se, i, part, tie = task
        ranked[id(se), i] = _rank_part(ev, scores[se.score], part, tie)

    run_tasks(workers, rank, tasks)
    for se in out:
        se.parts = [(p, ranked[id(se), i]) for i, p in enumerate(parts)]
    if auc is not None:
        for se in out:
            se.auc_counts = ties[se.score].auc_counts()
    return out
