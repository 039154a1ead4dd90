"""The score columns of an evaluation over the groups that count only (see :mod:`.skip`).

:func:`table_of` decides once per evaluation which groups some metric needs. :func:`evaluate_kept`
then ranks every score column over the rows of those groups, cut into runs of whole groups
(:meth:`~.skip.GroupTable.parts`) that are ranked on the call's threads (numpy releases the GIL
in its sorts and gathers), each run with one sort by (group, score) (:mod:`.group_rank`); a
group's values depend on its own rows only, so the parts' per-group values are those of one
ranking of all the kept rows. MRR and hit rate alone (every metric's entry has a ``Cut.select``)
are selected, not sorted by score, over every row: each group's first relevant block counted
(:mod:`~.skipping.first_block`), with no kept rows laid out and no row scattered back. Global AUC
beside a pair metric reads each run's scores in order off a sort by score instead, and sorts only the
rows of the other groups (:func:`~.global_auc.global_auc_of_sorted`).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence

import numpy as np

from ..ranking import tie_blocks  # score_rank, build_ranking read at call time (a test counts the sorts)
from ..ranking.tie_blocks import Ranking, global_auc_by_search, global_auc_of_sorted
from ..metrics.definitions import gains
from .records import Evaluation, ScoreEvaluation
from ..ranking.group_rank import rank_groups
from ..ranking.global_auc import sorted_classes
from ..skipping.first_block import FirstBlockGroups, first_block_groups, select_first_blocks
from ..skipping.skip import GroupTable, Part, can_skip, candidates, group_table
from ..threads import Workers, run_tasks
from ..inputs.validation import internal_error

__all__ = ["evaluate_kept", "table_of"]

def table_of(
    ev: Evaluation, keep_order: bool, workers: Workers | None = None, n_parts: int = 1
) -> GroupTable | None:
    """The groups that count, decided once per evaluation from the labels (None: sort all), their
    rows laid out in ``n_parts`` runs of whole groups (counted on the threads of ``workers``)."""
    if not ev.table_decided:
        ev.table_decided = True
        if any(s.info.grouped for s in ev.specs) and can_skip(ev.options, ev.specs, keep_order):
            groups = ev.prepared.encode_groups(workers)
            if groups is None:
                raise internal_error("skipping groups needs group codes")
            ev.table = group_table(groups.codes, groups.n_codes, ev.labels.rel, ev.specs, ev.options, workers, n_parts)
            if ev.table is not None:
                ev.table.level = ev.labels.level[ev.table.rows]
    return ev.table


class _GlobalAuc:
    """A score column's global AUC counts ``(U, P, N)``, from its sorted classes searched (no group,
    no row order), computed once: on a worker thread ahead of time when ``workers`` has one (while
    the groups are counted), else on first demand."""

    def __init__(self, score: np.ndarray, rel: np.ndarray, workers: Workers | None = None) -> None:
        self._score = score
        self._rel = rel
        self._lock = threading.Lock()
        self._counts: tuple[float, float, float] | None = None
        self._future = workers.submit(self.counts) if workers is not None else None

    @property
    def pending(self) -> bool:
        """Whether the search runs (or waits) on a worker thread."""
        return self._future is not None and not self._future.done()

    def counts(self) -> tuple[float, float, float]:
        with self._lock:
            if self._counts is None:
                self._counts = global_auc_by_search(self._score, self._rel, "expected")
            return self._counts


#: A part's relevant and non-relevant scores, each sorted (for global AUC).
Classes = tuple[np.ndarray, np.ndarray]


def _rank_part(ev: Evaluation, score: np.ndarray, part: Part, classes: bool = False) -> tuple[Ranking, Classes | None]:
    """One part's ranking, by (group, score): for the list metrics, of only the rows that can count
    (:func:`~.skip.candidates`) when they are fewer. A group's values are the same to the last bit
    either way: the rows left out add no term to them, and a row alone in its tie block takes its
    tie-free term whatever ties the others hold (see :func:`~.kernels.sum_in_rank_order`). With ``classes``
    (every row of the part is ranked), also the part's relevant and non-relevant scores, sorted:
    read off its sort by score for global AUC."""
    bound = _list_bound(ev)  # False whenever ``classes`` is asked for (see _evaluate_kept)
    if bound is not False:
        keep = candidates(score, part, _marked(ev, part), bound)
        if keep is not None:
            sub = Part(part.lo, part.hi, part.rows[keep], part.row_group[keep], part.level[keep])
            rk, _ = _rank(ev, sub, score, False)
            whole_totals(rk, ev, part)  # the groups' totals are those of all their rows
            return rk, None
    return _rank(ev, part, score, classes)


def _rank(ev: Evaluation, part: Part, score: np.ndarray, classes: bool) -> tuple[Ranking, Classes | None]:
    """The ranking of the part's rows of the score column: one sort by (group, score)
    (:func:`~.group_rank.rank_groups`), or, for global AUC's classes or scores it cannot pack, a sort
    by score and one by (group, rank) (:func:`~.ranking.build_ranking`)."""
    labels = ev.labels
    graded = any(spec.info.graded for spec in ev.specs)
    gain = gains(ev) if graded else None
    blocks = any(spec.info.block_levels for spec in ev.specs)
    if not classes:
        rk = rank_groups(score, part.row_group, part.hi - part.lo, part.level, labels.n_levels, labels.rel_level,
                         rows=part.rows, gains=gain, count_levels=graded, block_levels=blocks)
        if rk is not None:
            return rk, None
    s = score[part.rows]
    order, rank = tie_blocks.score_rank(s, ties="expected")
    own: Classes | None = None
    if classes:  # the scores in order, split by class: each class stays sorted
        s = s[order]
        rel = (part.level >= labels.rel_level)[order]
        own = s[rel], s[~rel]
    del s
    rk = tie_blocks.build_ranking(part.row_group, part.hi - part.lo, order, rank, part.level, labels.n_levels,
                         labels.rel_level, gains=gain, count_levels=graded, block_levels=blocks, consume=True)
    return rk, own


def _list_bound(ev: Evaluation) -> int | None | bool:
    """False when the rows below a group's last relevant row may matter (a pair metric, or one not
    whose entry says ``cut.top_rows``); else the largest cutoff when every metric has one (a group whose best
    relevant row has that many rows above it scores 0), else None."""
    grouped = [s for s in ev.specs if s.info.grouped]
    if not grouped or any(not s.info.cut.top_rows or s.info.eligibility != "relevant" for s in grouped):
        return False
    cutoffs = [s.cutoff for s in grouped]
    return None if any(c is None for c in cutoffs) else max(int(c) for c in cutoffs)  # type: ignore[arg-type]


def whole_totals(rk: Ranking, ev: Evaluation, part: Part) -> None:
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
    if all(s.info.cut.select is not None for s in ev.specs):  # MRR and hit rate alone: no sort
        return _select_first_blocks(ev, names, threads, workers)
    # global AUC (this path runs with ties="expected" only: see can_skip). When every kept row is
    # ranked (a pair metric is asked for: no candidates), its sorted classes come from the parts'
    # sorts, and only the other rows are sorted for it, after the group count; else the whole
    # column is searched on a worker while the groups are counted
    wants_auc = any(not s.info.grouped and not s.info.row_pairs for s in ev.specs)
    from_parts = wants_auc and _list_bound(ev) is False
    aucs = {} if not wants_auc or from_parts else {
        name: _GlobalAuc(scores[name], ev.labels.rel, workers) for name in names}
    # the group count on every thread when they are free; beside the searches, on this one
    busy = any(a.pending for a in aucs.values())
    table = table_of(ev, keep_order, None if busy else workers, threads)
    if table is None:
        return None
    out = [ScoreEvaluation(name, {}, table=table) for name in names]
    _rank_parts(ev, table, out, threads, workers, from_parts)
    for se in out:
        if se.score in aucs:
            se.auc_counts = aucs[se.score].counts()
    return out


def _select_first_blocks(ev: Evaluation, names: Sequence[Hashable], threads: int,
                   workers: Workers | None) -> list[ScoreEvaluation]:
    """Every score column's first relevant block per group, over every row, with no sort by score:
    the groups found once per evaluation (:func:`~.first_block.first_block_groups`), each column
    counted in ranges of rows on the threads (:func:`~.first_block.select_first_blocks`)."""
    groups = ev.cache.get("first block groups", lambda: _first_block_groups(ev, workers, threads))
    out = []
    for name in names:
        se = ScoreEvaluation(name, {}, table=groups)
        se.selection = select_first_blocks(ev.prepared.scores[name], groups, workers)
        out.append(se)
    return out


def _first_block_groups(ev: Evaluation, workers: Workers | None, threads: int) -> FirstBlockGroups:
    codes = ev.prepared.encode_groups(workers)
    if codes is None:
        raise internal_error("selecting the first relevant blocks needs group codes")
    return first_block_groups(codes.codes, codes.n_codes, ev.labels.rel, workers, threads)


def _rank_parts(ev: Evaluation, table: GroupTable, out: list[ScoreEvaluation], threads: int, workers: Workers | None,
                from_parts: bool) -> None:
    """Each run of whole groups ranked on its own thread; with ``from_parts``, global AUC from
    the parts' sorted classes and those of the rows not kept."""
    scores = ev.prepared.scores
    parts = table.parts(threads)
    rest: np.ndarray | None = None
    if from_parts:  # the rows of the groups not kept: sorted by class for global AUC only
        outside = np.ones(ev.labels.rel.shape[0], dtype=bool)
        outside[table.rows] = False
        rest = np.flatnonzero(outside)
        del outside
        rest_rel = ev.labels.rel[rest]
    tasks: list[tuple[ScoreEvaluation, int, Part | None]] = []
    for se in out:
        if rest is not None:
            tasks.append((se, -1, None))
        tasks += [(se, i, p) for i, p in enumerate(parts)]
    ranked: dict[tuple[int, int], Ranking] = {}
    classes: dict[tuple[int, int], Classes] = {}

    def rank(task: tuple[ScoreEvaluation, int, Part | None]) -> None:
        se, i, part = task
        if part is None:  # the other rows' classes
            classes[id(se), i] = sorted_classes(scores[se.score][rest], rest_rel)
            return
        ranked[id(se), i], got = _rank_part(ev, scores[se.score], part, from_parts)
        if got is not None:
            classes[id(se), i] = got

    run_tasks(workers, rank, tasks)

    def combine(se: ScoreEvaluation) -> None:  # every set of relevant rows searched in every other set
        sets = [classes.pop((id(se), i)) for i in range(-1, len(parts))]
        se.auc_counts = global_auc_of_sorted([c[0] for c in sets], [c[1] for c in sets], "expected")

    for se in out:
        se.parts = [(p, ranked[id(se), i]) for i, p in enumerate(parts)]
    if from_parts:
        run_tasks(workers, combine, out)
