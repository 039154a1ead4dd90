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
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import ranking as E
from .definitions import gains
from .evaluation import Evaluation, ScoreEvaluation
from .skip import GroupTable, Part, can_skip, group_table, select_first
from .validation import internal_error

__all__ = ["evaluate_kept", "table_of"]

#: Metrics whose values are the same to the last bit on the tie-free path of a ranking and on its
#: tie-block path (integer counts, or one term per group): they need no tie check of the column.
#: NDCG, MAP and RBP sum different float terms on the two paths.
_EITHER_PATH = frozenset({"gauc", "mrr", "hit_rate", "precision", "recall"})


def table_of(ev: Evaluation, keep_order: bool) -> GroupTable | None:
    """The groups that count, decided once per evaluation from the labels (None: sort all)."""
    if not ev.table_decided:
        ev.table_decided = True
        if any(s.info.grouped for s in ev.specs) and can_skip(ev.options, ev.specs, keep_order):
            groups = ev.prepared.encode_groups()
            if groups is None:
                raise internal_error("skipping groups needs group codes")
            ev.table = group_table(groups.codes, groups.n_codes, ev.labels.rel, ev.specs, ev.options)
            if ev.table is not None:
                ev.table.level = ev.labels.level[ev.table.rows]
    return ev.table


class _Ties:
    """Whether a score column has two equal values anywhere, computed once (on a worker thread
    ahead of time when a pool is given, else on first demand).

    A part with no tie takes the tie-free arithmetic only when the whole column has none (the
    arithmetic of a full sort, to the last bit)."""

    def __init__(self, score: np.ndarray, pool: ThreadPoolExecutor | None = None, needed: bool = True) -> None:
        self._score = score
        self._lock = threading.Lock()
        self._any: bool | None = None if needed else False
        self._future = pool.submit(self.anywhere) if pool is not None and needed else None

    def anywhere(self) -> bool:
        with self._lock:
            if self._any is None:
                s = np.sort(self._score)
                self._any = bool((s[1:] == s[:-1]).any())
        return self._any


def _rank_part(ev: Evaluation, score: np.ndarray, part: Part, ties: _Ties) -> E.Ranking:
    """One part's ranking: its rows sorted by score, then by (group, rank)."""
    labels = ev.labels
    s = score[part.rows]
    order, rank = E.score_rank(s, ties="expected")
    n = s.shape[0]
    del s
    elsewhere = bool(n) and int(rank[0]) == n - 1 and ties.anywhere()
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
    )


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
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return _evaluate_kept(ev, names, keep_order, threads, pool)


def _evaluate_kept(
    ev: Evaluation, names: Sequence[Hashable], keep_order: bool, threads: int, pool: ThreadPoolExecutor | None
) -> list[ScoreEvaluation] | None:
    scores = ev.prepared.scores
    select = all(s.info.select is not None for s in ev.specs)
    # the tie checks need no group: they run on the workers while the groups are counted
    check = any(s.kind not in _EITHER_PATH for s in ev.specs if s.info.grouped)
    ties = {} if select else {name: _Ties(scores[name], pool, check) for name in names}
    table = table_of(ev, keep_order)
    if table is None:
        return None
    out = [ScoreEvaluation(name, {}, table=table) for name in names]
    if select:
        (whole,) = table.parts(1)
        rel = whole.level >= ev.labels.rel_level
        n_kept = whole.hi - whole.lo

        def pick(se: ScoreEvaluation) -> None:
            se.selection = select_first(scores[se.score][whole.rows], rel, whole.row_group, n_kept)

        if pool is not None and len(out) > 1:
            list(pool.map(pick, out))
        else:
            for se in out:
                pick(se)
        return out
    parts = table.parts(threads)
    # global AUC needs no group: its search of the sorted non-relevant scores runs beside the ranking
    # (this path runs with ties="expected" only: see can_skip)
    searches = []
    if pool is not None and any(not s.info.grouped for s in ev.specs):
        rel = ev.labels.rel
        searches = [(se, pool.submit(E.global_auc_by_search, scores[se.score], rel, "expected")) for se in out]
    tasks = [(se, i, p, ties[se.score]) for se in out for i, p in enumerate(parts)]
    ranked: dict[tuple[int, int], E.Ranking] = {}

    def rank(task: tuple[ScoreEvaluation, int, Part, _Ties]) -> None:
        se, i, part, tie = task
        ranked[id(se), i] = _rank_part(ev, scores[se.score], part, tie)

    if pool is not None and len(tasks) > 1:
        list(pool.map(rank, tasks))
    else:
        for task in tasks:
            rank(task)
    for se in out:
        se.parts = [(p, ranked[id(se), i]) for i, p in enumerate(parts)]
    for se, future in searches:
        se.auc_counts = future.result()
    return out
