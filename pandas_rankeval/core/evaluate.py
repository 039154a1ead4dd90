"""The evaluation pipeline shared by every public function.

frame -> :func:`prepare` (checked arrays) -> per score column: :func:`score_rank`
and :func:`build_ranking` (one sort) -> every requested metric as a reduction
over that ranking -> per-group values, weights and coverage -> weighted means.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import kernels as K
from . import ranking as E
from .options import Options, WeightLike, check_weight_name
from .prepare import Labels, Prepared, label_levels, prepare
from .progress import Progress
from .registry import MetricSpec
from .result import Coverage, coverage_problem, warn_coverage
from .validation import InputProblem, as_columns, first_keys, internal_error

__all__ = [
    "Options", "GroupValues", "ScoreEvaluation", "Evaluation", "evaluate", "prepare_evaluation",
    "evaluate_score", "segment_of_groups", "WeightLike",
]

#: Rows above which score columns are ranked on two threads (numpy sorts release the GIL).
_THREADS_FROM_ROWS = 200_000



@dataclass
class GroupValues:
    """One metric on one score column: per-group values, weights and the mean."""

    spec: MetricSpec
    values: np.ndarray  # per group; NaN where the metric is undefined
    used: np.ndarray  # bool per group: enters the mean
    weights: np.ndarray  # per group
    value: float
    coverage: Coverage


@dataclass
class ScoreEvaluation:
    score: Hashable
    metrics: dict[str, GroupValues]
    ranking: E.Ranking | None = None
    order: np.ndarray | None = None
    rank: np.ndarray | None = None


@dataclass
class Evaluation:
    """Everything one call computed, kept for reports, per-group tables and the bootstrap."""

    prepared: Prepared
    labels: Labels
    options: Options
    specs: list[MetricSpec]
    scores: dict[Hashable, ScoreEvaluation]
    group_stats: dict[str, np.ndarray] = field(default_factory=dict)  # n, positives, negatives, code
    ideal: K.Ideal | None = None  # label levels per group, sorted (NDCG with many levels)
    _keys: pd.Index | None = None

    @property
    def keys(self) -> pd.Index:
        """Group keys in the order of every per-group array."""
        if self._keys is None:
            groups = self.prepared.groups
            if groups is None:  # pragma: no cover - callers without groups never ask
                raise RuntimeError("this evaluation has no groups")
            self._keys = groups.decode(self.group_stats["code"])
        return self._keys


def _weights(
    weight: WeightLike,
    ev: Evaluation,
    rk: E.Ranking,
    func: str,
) -> np.ndarray:
    """Per-group weights for one of the weight options, checked."""
    n = rk.n.astype(np.float64)
    if isinstance(weight, str):
        if weight == "count":
            w = n
        elif weight == "clicks":
            w = rk.npos.astype(np.float64)
        elif weight == "log1p":
            w = np.log1p(n)
        elif weight == "uniform":
            w = np.ones_like(n)
        elif weight in ev.prepared.extra:
            groups = ev.prepared.groups
            if groups is None:
                raise internal_error("weights by column need group codes")
            values = ev.prepared.extra[weight]
            if groups.n_codes <= 4 * values.shape[0] + 1024:
                w = np.bincount(groups.codes, weights=values, minlength=groups.n_codes)[rk.code]
            else:  # sparse codes: sum by hashing, then line up with the ranking's groups
                sums = pd.Series(values).groupby(groups.codes).sum()
                w = sums.reindex(rk.code).to_numpy(dtype=np.float64)
        else:  # pragma: no cover - resolved in evaluate()
            raise ValueError(f"unknown weight {weight!r}")
        return w
    if isinstance(weight, pd.Series):
        keys = ev.keys
        try:
            aligned = weight.reindex(keys)
        except Exception as exc:  # duplicate index values, incompatible key types
            raise ValueError(
                f"The 'weight' Series of {func} could not be aligned to the group keys: {exc}. "
                "Index it by group key, one value per group."
            ) from exc
        missing = int(aligned.isna().sum())
        if missing:
            lacking = [k.item() if isinstance(k, np.generic) else k for k in keys[np.asarray(aligned.isna())]]
            raise InputProblem("weight_missing", func, missing, of=len(keys), examples=first_keys(lacking))
        w = _as_weights(aligned, f"The 'weight' Series of {func}")
    else:  # callable
        stats = pd.DataFrame(
            {"n": rk.n, "positives": rk.npos, "negatives": rk.nneg}, index=ev.keys
        )
        out = weight(stats)  # type: ignore[operator,misc]
        if isinstance(out, pd.Series):
            out = out.reindex(ev.keys)
        w = _as_weights(out, f"The 'weight' callable of {func}").reshape(-1)
        if w.shape[0] != rk.n_groups:
            raise ValueError(
                f"The 'weight' callable of {func} returned {w.shape[0]:,} values for "
                f"{rk.n_groups:,} groups; return one weight per row of the statistics frame."
            )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise InputProblem("group_weight", func, int(bad.sum()))
    return w


def _as_weights(values: Any, what: str) -> np.ndarray:
    """Per-group weights as float64, or an error that says what was not a number."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        flat = np.asarray(values, dtype=object).reshape(-1)
        bad = [v for v in flat if not isinstance(v, (numbers.Real, np.bool_))][:3]
        raise TypeError(
            f"{what} must give numbers (one weight per group); got non-numeric values such as "
            f"{bad!r}. Convert them first, for example with pd.to_numeric."
        ) from None


def _coverage(
    rk: E.Ranking,
    used: np.ndarray,
    *,
    n_rows: int,
    n_dropped: int,
    only_pos: int = 0,
    only_neg: int = 0,
    filtered: int = 0,
    empty: int = 0,
    zero_weight: int = 0,
    filtered_mask: np.ndarray | None = None,
) -> Coverage:
    skipped = ~used
    total_pos = float(rk.npos.sum())
    rows_skipped = float(rk.n[skipped].sum()) / max(n_rows, 1)
    pos_skipped = float(rk.npos[skipped].sum()) / total_pos if total_pos else 0.0
    rows_filtered = pos_filtered = 0.0
    if filtered_mask is not None and filtered:
        rows_filtered = float(rk.n[filtered_mask].sum()) / max(n_rows, 1)
        pos_filtered = float(rk.npos[filtered_mask].sum()) / total_pos if total_pos else 0.0
    return Coverage(
        n_rows=n_rows,
        n_groups=rk.n_groups,
        n_used=int(used.sum()),
        n_only_pos=only_pos,
        n_only_neg=only_neg,
        n_filtered=filtered,
        n_empty=empty,
        rows_skipped_share=rows_skipped,
        positives_skipped_share=pos_skipped,
        n_dropped=n_dropped,
        n_zero_weight=zero_weight,
        rows_filtered_share=rows_filtered,
        positives_filtered_share=pos_filtered,
    )


def _mean(values: np.ndarray, weights: np.ndarray, used: np.ndarray) -> float:
    w = weights[used]
    total = float(w.sum())
    if total <= 0:
        return math.nan
    return float(np.dot(w, values[used]) / total)


def _sklearn_scores(score: np.ndarray, order: np.ndarray, rank: np.ndarray, *, plain: bool) -> np.ndarray:
    """The scores to hand to sklearn's ``roc_auc_score``.

    The scores themselves when ``plain`` and float64 holds them exactly and finite
    (sklearn rejects infinities and would round integers above 2**53); otherwise
    minus the dense rank of the ranking (exact for integer scores, finite for
    infinite ones, and carrying a tie-break or the label order inside ties): the
    same order and the same ties, hence the same AUC.
    """
    if plain and score.dtype.kind == "f" and np.isfinite(score).all():
        return score
    s = np.empty(score.shape[0], dtype=np.float64)
    s[order] = -rank
    return s


def _sklearn_group_auc(
    ev: Evaluation, score_eval: ScoreEvaluation, eligible: np.ndarray, score: np.ndarray
) -> np.ndarray:
    """Per-group AUC from sklearn's roc_auc_score, one call per eligible group."""
    from sklearn.metrics import roc_auc_score

    opts = ev.options
    groups = ev.prepared.groups
    if groups is None or score_eval.order is None or score_eval.rank is None:
        raise internal_error("the sklearn engine needs group codes and the score order")
    s = _sklearn_scores(
        score, score_eval.order, score_eval.rank, plain=opts.ties == "expected" and opts.tiebreak is None
    )
    codes = groups.codes
    by_group = np.argsort(codes, kind="stable")
    sorted_codes = codes[by_group]
    bounds = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.append(bounds, codes.shape[0])
    rel = ev.labels.rel
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    out = np.full(starts.shape[0], np.nan)
    todo = np.flatnonzero(eligible)
    bar = Progress(opts.progress, total=int(todo.shape[0]), desc="roc_auc_score per group", unit="group")
    try:
        for i, g in enumerate(todo):
            rows = by_group[starts[g] : ends[g]]
            out[g] = roc_auc_score(
                rel[rows],
                s[rows],
                sample_weight=None if sw is None else sw[rows],
                max_fpr=opts.max_fpr,
            )
            if i % 1000 == 999:
                bar.update(1000)
        bar.update(int(todo.shape[0]) % 1000)
    finally:
        bar.close()
    return out


def _global_auc(ev: Evaluation, se: ScoreEvaluation, score: np.ndarray) -> GroupValues:
    spec = MetricSpec("auc", None)
    opts = ev.options
    rel = ev.labels.rel
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    npos = int(rel.sum())
    nrows = rel.shape[0]
    both = 0 < npos < nrows
    # with sample weights, one class may weigh 0 in total: no weighted pair, no AUC
    zero_weight = both and sw is not None and not (sw[rel].sum() > 0 and sw[~rel].sum() > 0)
    if zero_weight:
        value = math.nan
    elif se.order is None or se.rank is None:  # no row order needed: search the sorted negatives
        u, wp, wn = E.global_auc_by_search(score, rel, opts.ties)  # type: ignore[arg-type]
        value = u / (wp * wn) if wp > 0 and wn > 0 else math.nan
    elif opts.max_fpr is not None and both:
        from sklearn.metrics import roc_auc_score

        s = _sklearn_scores(score, se.order, se.rank, plain=opts.ties == "expected" and opts.tiebreak is None)
        value = float(roc_auc_score(rel, s, sample_weight=sw, max_fpr=opts.max_fpr))
    else:
        u, wp, wn = E.global_auc(se.order, se.rank, rel, sw)
        value = u / (wp * wn) if wp > 0 and wn > 0 else math.nan
    ok = both and not zero_weight
    cov = Coverage(
        n_rows=nrows,
        n_groups=1,
        n_used=int(ok),
        n_only_pos=int(npos == nrows),
        n_only_neg=int(npos == 0),
        n_zero_weight=int(zero_weight),
        rows_skipped_share=0.0 if ok else 1.0,
        positives_skipped_share=0.0 if ok or not npos else 1.0,
        n_dropped=ev.prepared.n_dropped,
        grouped=False,
    )
    one = np.ones(1)
    return GroupValues(spec, np.array([value]), np.array([ok]), one, value, cov)


def _group_metric(ev: Evaluation, se: ScoreEvaluation, spec: MetricSpec, score: np.ndarray) -> GroupValues:
    opts = ev.options
    rk = se.ranking
    if rk is None:
        raise internal_error("group metrics need a ranking")
    func = opts.func
    k = spec.k
    if k is not None and rk.n_groups and k > int(rk.n.max()):
        # a cutoff beyond the longest group cuts nothing: the same numbers, and no int64
        # overflow for k >= 2**63 (precision still divides by spec.k)
        k = int(rk.n.max())
    npos = rk.npos
    n_rows = ev.prepared.n_rows
    n_dropped = ev.prepared.n_dropped
    weights = _weights(opts.weight_for(spec), ev, rk, func)

    if spec.kind == "gauc":
        has_both = (rk.npos > 0) & (rk.nneg > 0)
        passes = (rk.n >= opts.min_size) & (rk.npos >= opts.min_pos) & (rk.nneg >= opts.min_neg)
        # with sample weights, a group whose relevant (or non-relevant) rows weigh 0 in
        # total has no weighted pair: its AUC is undefined, so it is skipped (own reason)
        weighted = (rk.wpos > 0) & (rk.wneg > 0) if rk.wpos is not None and rk.wneg is not None else True
        used = has_both & passes & weighted
        if opts.engine == "sklearn" or opts.max_fpr is not None:
            values = _sklearn_group_auc(ev, se, used, score)
        else:
            u, pn = K.auc_per_group(rk)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = np.where(used, u / pn, np.nan)
        cov = _coverage(
            rk,
            used,
            n_rows=n_rows,
            n_dropped=n_dropped,
            only_pos=int(((rk.npos > 0) & (rk.nneg == 0)).sum()),
            only_neg=int((rk.npos == 0).sum()),
            filtered=int((has_both & ~passes).sum()),
            zero_weight=int((has_both & passes & ~used).sum()),
            filtered_mask=has_both & ~passes,
        )
        return GroupValues(spec, values, used, weights, _mean(values, weights, used), cov)

    # list metrics: one rule for every one of them, NDCG included. A row is relevant when
    # its label is > 0 (or >= threshold); a group is empty when it has no relevant row.
    empty = npos == 0
    if spec.kind == "ndcg":
        dcg = K.dcg_per_group(rk, k)
        idcg = _idcg(ev, rk, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            # IDCG = 0 in a group with relevant rows (threshold <= 0 makes label-0 rows
            # relevant, and they gain nothing): every ordering is ideal, NDCG = 1
            values = np.where(idcg > 0, dcg / idcg, 1.0)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            if spec.kind == "mrr":
                values = K.rr_per_group(rk, k)
            elif spec.kind == "map":
                denom = npos if (opts.denominator == "relevant" or k is None) else np.minimum(npos, k)
                values = K.ap_per_group(rk, k) / denom
            elif spec.kind == "precision":
                values = K.hits_per_group(rk, k) / float(spec.k)  # type: ignore[arg-type]
            elif spec.kind == "recall":
                values = K.hits_per_group(rk, k) / npos
            elif spec.kind == "hit_rate":
                values = K.hit_per_group(rk, k)
            else:  # pragma: no cover - the registry admits nothing else
                raise ValueError(spec.kind)
    n_empty = int(empty.sum())
    if n_empty and opts.empty == "error":
        raise ValueError(
            f"{spec.name}: {n_empty:,} of {rk.n_groups:,} groups have no relevant row. "
            "Pass empty='zero' to score them 0 or empty='skip' to leave them out."
        )
    if opts.empty == "skip":
        used = ~empty
        values = np.where(empty, np.nan, values)
    else:
        used = np.ones(rk.n_groups, dtype=bool)
        values = np.where(empty, 0.0, values)
    cov = _coverage(rk, used, n_rows=n_rows, n_dropped=n_dropped, empty=n_empty)
    return GroupValues(spec, values, used, weights, _mean(values, weights, used), cov)


def _gains(ev: Evaluation) -> np.ndarray:
    """Gain of each label level; levels below the relevance threshold gain nothing."""
    v = ev.labels.values
    with np.errstate(over="ignore"):
        g = np.exp2(v) - 1.0 if ev.options.gain == "exp2" else v.astype(np.float64)
    if ev.options.threshold is not None:
        g = np.where(np.arange(v.shape[0]) >= ev.labels.rel_level, g, 0.0)
    if not np.isfinite(g).all():  # 2**label overflows float64 from label 1024 on
        raise ValueError(
            f"{ev.options.func}: gain='exp2' overflows for labels >= 1024 (2**label - 1 is beyond "
            f"float64); the largest label is {v.max():.6g}. Pass gain='linear', or rescale the labels."
        )
    return g


def _idcg(ev: Evaluation, rk: E.Ranking, k: int | None) -> np.ndarray:
    """IDCG@k per group (the same for every score column: computed once per k)."""
    cache_key = f"idcg@{k}"
    if cache_key not in ev.group_stats:
        longest = int(rk.n.max())
        gains = _gains(ev)
        if rk.level_counts is not None:
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                idcg = K.idcg_from_counts(rk.level_counts, gains, longest, k)
        else:  # too many (group, level) cells to count densely: sort them instead
            groups = ev.prepared.groups
            if groups is None:  # pragma: no cover - list metrics always have groups
                raise RuntimeError("NDCG needs group codes")
            if ev.ideal is None:
                ev.ideal = K.build_ideal(groups.codes, groups.n_codes, ev.labels.level, ev.labels.n_levels)
            with np.errstate(over="ignore", invalid="ignore"):
                idcg = K.idcg_per_group(ev.ideal, gains, rk.n_groups, longest, k)
        if not np.isfinite(idcg).all():  # a sum of large gains beyond float64
            raise ValueError(
                f"{ev.options.func}: the ideal DCG of {int((~np.isfinite(idcg)).sum()):,} groups overflows "
                f"float64 (gain={ev.options.gain!r}, largest label {ev.labels.values.max():.6g}). "
                "Pass gain='linear', or rescale the labels."
            )
        ev.group_stats[cache_key] = idcg
    return ev.group_stats[cache_key]


def _sort_one(ev: Evaluation, score_name: Hashable) -> ScoreEvaluation:
    """The one sort of a score column (it needs no group codes)."""
    opts = ev.options
    prep = ev.prepared
    tb = prep.extra.get(opts.tiebreak) if opts.tiebreak is not None else None
    order, rank = E.score_rank(
        prep.scores[score_name], ties=opts.ties, level=ev.labels.level, tiebreak=tb  # type: ignore[arg-type]
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
    se.ranking = E.build_ranking(
        groups.codes,
        groups.n_codes,
        se.order,
        se.rank,
        ev.labels.level,
        ev.labels.n_levels,
        ev.labels.rel_level,
        gains=_gains(ev) if graded else None,
        sample_weight=sw,
        count_levels=graded,
    )
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
    gcols = as_columns(group, "group", func, df) if group is not None else None
    need_groups = any(s.info.grouped for s in specs)
    if need_groups and gcols is None:
        raise ValueError(
            f"{func} needs the 'group' parameter (the user, query or session column) for "
            f"{[s.name for s in specs if s.info.grouped]}."
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
        key_extra=[opts.tiebreak] if opts.tiebreak is not None else [],
        segment=by,
        nan_policy=opts.nan_policy,
    )
    if by and gcols is not None:  # segments are attributes of whole groups: checked before any work
        from .segments import check_segments_constant

        check_segments_constant(prep, by, gcols, func)
    graded = any(s.info.graded for s in specs)
    y = prep.y
    if y is None:  # pragma: no cover - prepare() always fills it
        raise RuntimeError("prepare() returned no labels")
    if graded and (y < 0).any():
        count = int((y < 0).sum())
        raise ValueError(
            f"Column {label!r} has {count:,} negative label{'s' if count != 1 else ''}; NDCG needs "
            "labels >= 0 (graded relevance). Clip or shift them first."
        )
    labels = label_levels(y, opts.threshold, graded)
    if graded and opts.gain == "exp2" and labels.rel_level < labels.n_levels and labels.values[-1] >= 1024:
        raise ValueError(
            f"Column {label!r} (label) has labels up to {labels.values[-1]:.6g}: with gain='exp2', "
            "2**label - 1 overflows float64 from label 1024 on. Pass gain='linear', or rescale the labels."
        )
    prep.y = None  # the levels hold all the metrics need; free the float copy
    if prep.extra.get(opts.sample_weight) is not None and any(s.kind not in ("auc", "gauc") for s in specs):
        raise ValueError(
            "sample_weight applies to 'auc' and 'gauc' only; weigh groups with weight= instead."
        )
    return Evaluation(prep, labels, opts, list(specs), {})


def _needs_order(ev: Evaluation, keep_order: bool) -> bool:
    """Whether a score needs its row order: global AUC alone looks scores up in the sorted
    negatives, unless the bootstrap or segments ask for the order (keep_order), or sample
    weights, a tie-break column or max_fpr shape it."""
    opts = ev.options
    return (
        any(s.info.grouped for s in ev.specs)
        or keep_order
        or opts.max_fpr is not None
        or opts.sample_weight is not None
        or opts.tiebreak is not None
    )


def _score_metrics(ev: Evaluation, se: ScoreEvaluation, keep_order: bool) -> ScoreEvaluation:
    """Every requested metric of one ranked score column."""
    rk = se.ranking
    if rk is not None and not ev.group_stats:
        ev.group_stats.update(code=rk.code, n=rk.n, positives=rk.npos, negatives=rk.nneg)
    score = ev.prepared.scores[se.score]
    for spec in ev.specs:
        if spec.kind == "auc":
            gv = _global_auc(ev, se, score)
        else:
            gv = _group_metric(ev, se, spec, score)
        se.metrics[spec.name] = gv
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
    need_groups = any(s.info.grouped for s in specs)
    names = list(scores)
    threads = prep.n_rows >= _THREADS_FROM_ROWS and (os.cpu_count() or 1) > 1
    needs_order = _needs_order(ev, keep_order)
    if not needs_order:
        evals = [ScoreEvaluation(s, {}) for s in names]
    elif threads:
        # numpy and pandas release the GIL while sorting and hashing: the score sorts
        # run on worker threads while this thread encodes the group keys
        with ThreadPoolExecutor(max_workers=2) as pool:
            sorting = [pool.submit(_sort_one, ev, s) for s in names]
            if need_groups:
                prep.encode_groups()
                evals = list(pool.map(lambda f: _group_one(ev, f.result()), sorting))
            else:
                evals = [f.result() for f in sorting]
    else:
        evals = [_sort_one(ev, s) for s in names]
        if need_groups:
            prep.encode_groups()
            evals = [_group_one(ev, se) for se in evals]
    for se in evals:
        _score_metrics(ev, se, keep_order)
    return ev


def evaluate_score(ev: Evaluation, name: Hashable, score: np.ndarray) -> ScoreEvaluation:
    """Evaluate one more score column against an evaluation already prepared.

    The labels, group codes and label-only statistics of ``ev`` (made by
    :func:`prepare_evaluation` or :func:`evaluate`) are reused; only the new
    score is sorted. This is what a training hook does every round. ``score``
    must be a checked numeric array (no missing values) with one value per
    prepared row, as :func:`~pandas_rankeval.core.prepare.prepare` would make it.
    """
    prep = ev.prepared
    if score.shape != (prep.n_rows,):
        raise internal_error(f"a score of shape {score.shape} for {prep.n_rows} prepared rows")
    prep.scores[name] = score
    se = _sort_one(ev, name) if _needs_order(ev, False) else ScoreEvaluation(name, {})
    if any(s.info.grouped for s in ev.specs):
        prep.encode_groups()
        se = _group_one(ev, se)
    return _score_metrics(ev, se, keep_order=False)


def warn_if_needed(gv: GroupValues, where: str) -> None:
    """At most one :class:`CoverageWarning`: NaN because nothing was eligible, or the
    filters dropped more than 10% of rows or positives (single-class groups never warn)."""
    name = gv.spec.name if where == gv.spec.name else f"{where}: {gv.spec.name}"
    problem = coverage_problem(name, gv.value, gv.coverage)
    if problem is not None:
        warn_coverage(problem)


def segment_of_groups(ev: Evaluation, by: list[Hashable], func: str) -> np.ndarray:
    """The segment code of every group; each ``by`` column must be constant within a group."""
    groups, segs = ev.prepared.encode_groups(), ev.prepared.segments
    if groups is None or segs is None:  # pragma: no cover - report() always passes both
        raise RuntimeError("segments need group and segment codes")
    key = groups.codes.astype(np.int64) * segs.n_codes + segs.codes
    uniq = np.unique(key)  # ascending group code, the order of every per-group array
    gk = uniq // segs.n_codes
    n_groups = 1 + int(np.count_nonzero(gk[1:] != gk[:-1]))
    if uniq.shape[0] != n_groups:
        n_mixed = int((np.bincount(np.searchsorted(np.unique(gk), gk)) > 1).sum())
        raise InputProblem("mixed_by", (func, tuple(by), ()), n_mixed, of=n_groups)
    return uniq % segs.n_codes
