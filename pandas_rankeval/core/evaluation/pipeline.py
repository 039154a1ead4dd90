"""The evaluation pipeline shared by every public function.

frame -> :func:`prepare` (checked arrays) -> per score column: :func:`score_rank`
and :func:`build_ranking` (one sort) -> every requested metric as a reduction
over that ranking -> per-group values, weights and coverage -> weighted means.

The records of an evaluation are in :mod:`.evaluation`; every metric's reduction over a
ranking is in :mod:`.reductions`. This module runs the stages: prepare, sort and regroup
each score column, reduce.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..ranking import tie_blocks  # read at call time: a test counts the sorts by patching it
from ..metrics.definitions import gains
from .records import Evaluation, ScoreEvaluation
from ..metrics.ips import ips_columns, row_gains
from .kept import evaluate_kept
from ..metrics.metric import MetricSpec, grade_limit
from ..inputs.options import Options, check_weight_name
from ..inputs.prepare import Labels, Prepared, label_levels, prepare
from ..inputs.retrieved import apply_retrieved, check_retrieved_metrics, outside_key, retrieved_columns, score_level
from ..kernels.ranked import add_unranked
from .reductions import _calibration_metric, _global_auc, _group_metric, global_xauc, search_global_auc
from ..metrics.registry import check_sample_weight
from ..reference import reference_mode
from ..threads import Workers, threads_for
from ..inputs.validation import as_columns, internal_error, problem_message, weight_roles

__all__ = ["evaluate", "evaluate_score", "prepare_evaluation"]



def _sort_one(ev: Evaluation, score_name: Hashable) -> ScoreEvaluation:
    """The one sort of a score column (it needs no group codes)."""
    opts = ev.options
    prep = ev.prepared
    tb = prep.extra.get(opts.tiebreak) if opts.tiebreak is not None else None
    order, rank = tie_blocks.score_rank(
        prep.scores[score_name], ties=opts.ties, level=score_level(prep, ev.labels, score_name), tiebreak=tb  # type: ignore[arg-type]
    )
    return ScoreEvaluation(score_name, {}, order=order, rank=rank)


def _group_one(ev: Evaluation, se: ScoreEvaluation) -> ScoreEvaluation:
    """Regroup one sorted score column by group and summarize its tie blocks."""
    opts = ev.options
    prep = ev.prepared
    groups = prep.groups
    if groups is None or se.order is None or se.rank is None:
        raise internal_error("regrouping needs group codes and the score order")
    sw = prep.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    graded = any(s.info.graded for s in ev.specs)
    se.ranking = tie_blocks.build_ranking(
        groups.codes,
        groups.n_codes,
        se.order,
        se.rank,
        score_level(prep, ev.labels, se.score),
        ev.labels.n_levels,
        ev.labels.rel_level,
        gains=gains(ev) if graded else None,
        sample_weight=sw,
        count_levels=graded,
        block_levels=any(s.info.block_levels for s in ev.specs),
    )
    outside = prep.extra.get(outside_key(se.score))
    if outside is not None:  # rows outside the ranking count in the group totals
        add_unranked(se.ranking, groups.codes, groups.n_codes, outside, ev.labels.level,
                     ev.labels.rel_level, ev.labels.n_levels)
    return se


def prepare_evaluation(
    df: pd.DataFrame,
    *,
    group: Hashable | Sequence[Hashable] | None,
    label: Hashable,
    scores: Sequence[Hashable],
    specs: Sequence[MetricSpec],
    options: Options,
    by: Sequence[Hashable] = (),
) -> Evaluation:
    """The part of :func:`evaluate` that no score's values change: options and columns
    checked, labels turned into levels, group keys ready to encode (deferred)."""
    opts = options.check()
    func = opts.func
    check_sample_weight(opts.sample_weight, list(specs))  # an option error: before any column is read
    check_retrieved_metrics(opts.retrieved, [s.name for s in specs if "retrieved" not in s.info.options], func)
    gcols = as_columns(group, "group", func, df) if group is not None else None
    need_groups = any(s.info.grouped for s in specs)
    if need_groups and gcols is None:
        raise ValueError(
            f"{func} needs the 'group' parameter (the user, query or session column) for "
            f"{[s.name for s in specs if s.info.needs_group] or [s.name for s in specs if s.info.grouped]}."
        )
    numeric_extra: list[Hashable] = []
    if opts.sample_weight is not None:
        numeric_extra.append(opts.sample_weight)
    # (not a DataFrame: prepare() below says so)
    weight_column = check_weight_name(opts.weight, df.columns, func, gcols) if isinstance(df, pd.DataFrame) else None
    if weight_column is not None:
        numeric_extra.append(weight_column)
    prep = prepare(
        df,
        defer_groups=True,
        func=func,
        group=gcols,
        label=label,
        scores=list(scores),
        numeric_extra=numeric_extra,
        roles=weight_roles(opts.sample_weight, weight_column),
        key_extra=[opts.tiebreak] if opts.tiebreak is not None else [],
        segment=by,
        nan_policy=opts.nan_policy,
        raw_extra=[*ips_columns(opts), *dict.fromkeys(retrieved_columns(opts.retrieved, list(scores)).values())],
    )
    if by and gcols is not None:  # segments are attributes of whole groups: checked before any work
        from ..inputs.segments import check_segments_constant

        check_segments_constant(prep, by, gcols, func)
    y = prep.y
    if y is None:  # pragma: no cover - prepare() always fills it
        raise RuntimeError("prepare() returned no labels")
    labels = _checked_levels(y, label, opts, specs)
    _check_calibration_inputs(prep, y, label, opts, specs)
    if opts.retrieved is not None:  # rows outside the ranking: ranked last, gaining nothing
        apply_retrieved(prep, labels, opts.retrieved, func, opts.threshold)
    prep.y = None  # the levels hold all the metrics need; free the float copy
    ev = Evaluation(prep, labels, opts, list(specs), {})
    if any("propensity" in s.info.options for s in specs):
        row_gains(ev)  # the IPS metrics' positions and propensities checked before any sort
    return ev


def _checked_levels(y: np.ndarray, label: Hashable, opts: Options, specs: Sequence[MetricSpec]) -> Labels:
    """The labels as levels, after the graded metrics' checks: no negative label, no relevant
    label that overflows ``gain='exp2'``, none above a metric's top grade."""
    graded = any(s.info.graded for s in specs)
    if graded and (y < 0).any():
        raise ValueError(problem_message("negative_label", label, int((y < 0).sum())))
    # grouped and global XAUC read the order of the labels (their levels), not only relevance; they
    # are not graded (no gain, so none of NDCG's label checks)
    labels = label_levels(y, opts.threshold,
                          graded or any(s.info.eligibility == "ordered" or s.info.row_pairs for s in specs))
    if graded and opts.gain == "exp2" and labels.rel_level < labels.n_levels and labels.values[-1] >= 1024:
        raise exp2_overflow_error(label, float(labels.values[-1]))
    limit = grade_limit(specs)
    if limit is not None and labels.n_levels and labels.values[-1] > limit[0]:
        count = int((y > limit[0]).sum())
        raise ValueError(problem_message("label_grade", (label, *limit), count, examples=[labels.values[-1]]))
    return labels


def _check_calibration_inputs(prep: Prepared, y: np.ndarray, label: Hashable, opts: Options,
                              specs: Sequence[MetricSpec]) -> None:
    """The calibration metrics' inputs, before any sort: labels 0/1 (unless a threshold makes
    them so) and scores that are probabilities."""
    calibration = [s.name for s in specs if not s.info.needs_ranking]
    if not calibration:
        return
    from ..kernels.calibration import (
        check_binary_labels,
        check_probabilities,
        label_error,
        probability_error,
    )

    if opts.threshold is None:
        bad_labels = check_binary_labels(y)
        if bad_labels is not None:
            raise label_error(label, *bad_labels, calibration)
    for name, arr in prep.scores.items():
        bad_scores = check_probabilities(arr)
        if bad_scores is not None:
            raise probability_error(name, *bad_scores, calibration)


def exp2_overflow(label: Hashable, top: Any, threshold: float | None) -> ValueError | None:
    """The error of ``gain="exp2"`` from the largest label ``top`` of a table (or None): raised
    when it is 1024 or more and relevant (an integer label ``>= 1`` or ``>= ceil(threshold)``,
    another ``> 0`` or ``>= threshold``), as :func:`prepare_evaluation` raises it. Engines that
    read a table in parts take ``top`` from the whole table, so the message is pandas'."""
    if top is None or isinstance(top, (bool, np.bool_)):
        return None
    if isinstance(top, np.generic):
        top = top.item()
    if float(top) < 1024:
        return None
    if isinstance(top, int):
        relevant = top >= (1 if threshold is None else math.ceil(threshold))
    else:
        relevant = top > 0 if threshold is None else top >= threshold
    return exp2_overflow_error(label, float(top)) if relevant else None


def exp2_overflow_error(label: Hashable, top: float) -> ValueError:
    """The error of ``gain="exp2"`` when the largest (relevant) label is 1024 or more."""
    return ValueError(
        f"Column {label!r} (label) has labels up to {top:.6g}: with gain='exp2', "
        "2**label - 1 overflows float64 from label 1024 on. Pass gain='linear', or rescale the labels."
    )


def _needs_order(ev: Evaluation, keep_order: bool) -> bool:
    """Whether a score needs its row order: global AUC alone looks scores up in the sorted
    negatives, unless the bootstrap or segments ask for the order (keep_order), or sample
    weights, a tie-break column or max_fpr shape it. Always under the reference switch: global AUC
    read off the sort by score (:func:`~.global_auc.global_auc`), no search."""
    opts = ev.options
    return (
        reference_mode()
        or any(s.info.grouped and s.info.needs_ranking for s in ev.specs)
        or keep_order
        or opts.max_fpr is not None
        or opts.sample_weight is not None
        or opts.tiebreak is not None
    )


def _group_stats(ev: Evaluation, se: ScoreEvaluation) -> None:
    """Every group's counts, from the first ranked score column (the same for every column)."""
    rk = se.table if se.table is not None else se.ranking
    if rk is not None:
        ev.cache.get("group stats", lambda: {"code": rk.code, "n": rk.n, "positives": rk.npos, "negatives": rk.nneg})


def _score_metrics(ev: Evaluation, se: ScoreEvaluation, keep_order: bool) -> ScoreEvaluation:
    """Every requested metric of one ranked score column."""
    _group_stats(ev, se)
    score = ev.prepared.scores[se.score]
    for spec in ev.specs:
        if not spec.info.needs_ranking:  # a calibration metric: its row sums (and their components)
            for name, gv in zip(spec.item_names, _calibration_metric(ev, se, spec, score)):
                se.metrics[name] = gv
            continue
        if spec.info.row_pairs:  # global XAUC: from the label levels and the scores, no ranking
            gv = global_xauc(ev, spec, score)
        elif not spec.info.grouped:
            gv = _global_auc(ev, se, score)
        else:
            gv = _group_metric(ev, se, spec, score)
        se.metrics[spec.name] = gv
    se.calibration_order = None
    if not keep_order:
        se.order = se.rank = None
    ev.scores[se.score] = se
    return se


def evaluate(
    df: pd.DataFrame,
    *,
    group: Hashable | Sequence[Hashable] | None,
    label: Hashable,
    scores: Sequence[Hashable],
    specs: Sequence[MetricSpec],
    options: Options,
    keep_order: bool = False,
    by: Sequence[Hashable] = (),
) -> Evaluation:
    """Run the pipeline for every score column and every metric."""
    ev = prepare_evaluation(
        df, group=group, label=label, scores=scores, specs=specs, options=options, by=by
    )
    prep = ev.prepared
    need_groups = any(s.info.grouped and s.info.needs_ranking for s in specs)
    names = list(scores)
    n_threads = threads_for(prep.n_rows)
    threads = n_threads > 1
    needs_order = _needs_order(ev, keep_order)
    kept = evaluate_kept(ev, names, keep_order, n_threads) if need_groups else None
    if kept is not None:  # only the groups that count, ranked in parts on threads
        evals = kept
    elif not needs_order:
        evals = [ScoreEvaluation(s, {}) for s in names]
    elif threads:
        # numpy and pandas release the GIL while sorting and hashing: the encoding of the group
        # keys and the score sorts share the call's threads
        with Workers(n_threads) as workers:
            jobs: list[Callable[[], Any]] = [prep.encode_groups] if need_groups else []
            jobs += [functools.partial(_sort_one, ev, s) for s in names]
            evals = workers.map(lambda job: job(), jobs)[1 if need_groups else 0 :]
            if need_groups:
                evals = workers.map(lambda se: _group_one(ev, se), evals)
    else:
        evals = [_sort_one(ev, s) for s in names]
        if need_groups:
            prep.encode_groups()
            evals = [_group_one(ev, se) for se in evals]
    if threads and len(evals) > 1:
        # the score columns' reductions are independent (numpy releases the GIL in them): on
        # threads, with the columns' order and the shared group counts set here first
        for se in evals:
            ev.scores[se.score] = se
        _group_stats(ev, evals[0])
        with Workers(n_threads) as workers:
            workers.map(lambda se: _score_metrics(ev, se, keep_order), evals)
    else:
        for se in evals:  # (one column when there are threads: its global AUC searched on them)
            search_global_auc(ev, se, n_threads)
            _score_metrics(ev, se, keep_order)
    return ev


def evaluate_score(ev: Evaluation, name: Hashable, score: np.ndarray) -> ScoreEvaluation:
    """Evaluate one more score column against an evaluation already prepared.

    The labels, group codes and label-only statistics of ``ev`` (made by
    :func:`prepare_evaluation` or :func:`evaluate`) are reused; only the new
    score is sorted. This is what a training hook does every round. ``score``
    must be a checked numeric array (no missing values) with one value per
    prepared row, as :func:`~pandas_rankeval.core.inputs.prepare.prepare` would make it.
    """
    prep = ev.prepared
    if score.shape != (prep.n_rows,):
        raise internal_error(f"a score of shape {score.shape} for {prep.n_rows} prepared rows")
    prep.scores[name] = score
    if any(not s.info.needs_ranking for s in ev.specs):  # probabilities, checked as prepare_evaluation does
        from ..kernels.calibration import check_probabilities, probability_error

        bad_scores = check_probabilities(score)
        if bad_scores is not None:
            raise probability_error(name, *bad_scores, [s.name for s in ev.specs if not s.info.needs_ranking])
    threads = threads_for(prep.n_rows)
    kept = evaluate_kept(ev, [name], False, threads) if any(s.info.grouped for s in ev.specs) else None
    if kept is not None:
        return _score_metrics(ev, kept[0], keep_order=False)
    se = _sort_one(ev, name) if _needs_order(ev, False) else ScoreEvaluation(name, {})
    if any(s.info.grouped and s.info.needs_ranking for s in ev.specs):
        prep.encode_groups()
        se = _group_one(ev, se)
    search_global_auc(ev, se, threads)
    return _score_metrics(ev, se, keep_order=False)
