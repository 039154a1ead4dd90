"""Stage 3 of the evaluation pipeline: one ranked score column -> every metric's numbers.

Each metric is a reduction over the ranking (:mod:`.kernels`): per-group values, which groups
enter the mean, the group weights (:func:`_weights`), the coverage and the weighted mean.
Global AUC is one number over all rows (:func:`_global_auc`); the group metrics are
:func:`_group_metric`. NDCG's gains and ideal DCG are computed once per evaluation.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..ranking.tie_blocks import Ranking, global_auc, global_auc_by_search
from ..metrics.coverage import eligibility, empty_error
from ..metrics.metric import KernelInput
from ..metrics.definitions import xauc_label_pairs
from ..metrics.sklearn_auc import sklearn_scores
from .records import Evaluation, GroupValues, ScoreEvaluation
from ..ranking.int_sort import pack_and_sort
from ..metrics.metric import MetricSpec
from ..metrics.registry import METRICS
from ..inputs.options import WeightLike
from .result import Coverage, xauc_coverage
from ..kernels.xauc import xauc_sums
from ..skipping.first_block import FirstBlockGroups
from ..skipping.skip import GroupTable
from ..threads import Workers, one_blas_thread
from ..inputs.validation import InputProblem, call_user, first_keys, internal_error

#: What a weight callable is called with (its errors say it).
STATS_GIVEN = "the per-group statistics: a frame indexed by group key with columns n, positives, negatives"


def group_weights(ev: Evaluation, weight: WeightLike, full: Ranking | GroupTable | FirstBlockGroups) -> np.ndarray:
    """:func:`_weights`, shared by every metric and score column that use the same weight option
    (a name or a Series; a callable is called for each, as the user may expect)."""
    func = ev.options.func
    if isinstance(weight, str):
        return ev.cache.get(("weights", weight), lambda: _weights(weight, ev, full, func))
    if isinstance(weight, pd.Series):
        # keyed by identity: the Series is held by the options for the evaluation's lifetime
        return ev.cache.get(("weights", id(weight)), lambda: _weights(weight, ev, full, func))
    return _weights(weight, ev, full, func)


def _weights(
    weight: WeightLike,
    ev: Evaluation,
    rk: Ranking | GroupTable | FirstBlockGroups,
    func: str,
) -> np.ndarray:
    """Per-group weights for one of the weight options, checked (:func:`weights_of` over the
    ranking's groups)."""

    def column(name: str) -> np.ndarray | None:
        """A weight column's sum over each group's rows (None: no such column)."""
        if name not in ev.prepared.extra:
            return None
        groups = ev.prepared.groups
        if groups is None:
            raise internal_error("weights by column need group codes")
        values = ev.prepared.extra[name]
        if groups.n_codes <= 4 * values.shape[0] + 1024:
            return np.bincount(groups.codes, weights=values, minlength=groups.n_codes)[rk.code]  # type: ignore[no-any-return]
        # sparse codes: sum by hashing, then line up with the ranking's groups
        sums = pd.Series(values).groupby(groups.codes).sum()
        return sums.reindex(rk.code).to_numpy(dtype=np.float64)

    return weights_of(weight, rk.n, rk.npos, lambda: ev.keys, func, column)


def weights_of(
    weight: WeightLike,
    n: np.ndarray,
    npos: np.ndarray,
    keys: Callable[[], pd.Index],
    func: str,
    column: Callable[[str], np.ndarray | None],
) -> np.ndarray:
    """Per-group weights of a ``weight=`` option, checked, from each group's rows ``n`` and relevant
    rows ``npos``; ``keys()`` gives the group keys (asked for by a Series or a callable only) and
    ``column(name)`` a weight column's per-group sums (None when there is no such column). The
    pandas pipeline and the warehouse engine (whose SQL sums the column) both read this."""
    nf = np.asarray(n).astype(np.float64)
    if isinstance(weight, str):
        if weight == "count":
            return nf
        if weight == "clicks":
            return np.asarray(npos).astype(np.float64)
        if weight == "log1p":
            return np.log1p(nf)
        if weight == "uniform":
            return np.ones_like(nf)
        w = column(weight)
        if w is None:  # pragma: no cover - resolved in evaluate()
            raise ValueError(f"unknown weight {weight!r}")
        return w
    if isinstance(weight, pd.Series):
        w = series_weights(weight, keys(), func)
    else:  # callable
        index = keys()
        stats = pd.DataFrame({"n": n, "positives": npos, "negatives": np.asarray(n) - np.asarray(npos)}, index=index)
        out = call_user(weight, stats, "weight", func, STATS_GIVEN)  # type: ignore[arg-type]
        if isinstance(out, pd.Series):
            out = out.reindex(index)
        w = as_weights(out, f"The 'weight' callable of {func}").reshape(-1)
        if w.shape[0] != nf.shape[0]:
            raise ValueError(
                f"The 'weight' callable of {func} returned {w.shape[0]:,} values for "
                f"{nf.shape[0]:,} groups; return one weight per row of the statistics frame."
            )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise InputProblem("group_weight", func, int(bad.sum()))
    return w


def series_weights(weight: pd.Series, keys: pd.Index, func: str) -> np.ndarray:
    """A weight Series aligned to the group keys (one float per key), or pandas' error: a Series
    that cannot be aligned, or keys it has no value for (counted, with the first few as examples).
    The caller checks the values (finite, >= 0)."""
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
    return as_weights(aligned, f"The 'weight' Series of {func}")


def as_weights(values: Any, what: str) -> np.ndarray:
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
    rk: Ranking | GroupTable | FirstBlockGroups,
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
    v = values[used]
    with one_blas_thread():  # a dot product of > 1e4 groups: its last bit would depend on BLAS's threads
        return float(np.dot(w, v) / total)


def search_global_auc(ev: Evaluation, se: ScoreEvaluation, threads: int) -> None:
    """Global AUC's counts of a score column with no row order (the sorted classes searched),
    on ``threads`` threads, ahead of the column's metrics: for a call of one score column, whose
    column would otherwise be searched on one thread (:func:`_global_auc`). Nothing to do (and no
    thread started) for one thread, a column ranked in row order, counts already made or no AUC."""
    if threads > 1 and se.order is None and se.auc_counts is None and any(s.kind == "auc" for s in ev.specs):
        with Workers(threads) as workers:
            se.auc_counts = global_auc_by_search(ev.prepared.scores[se.score], ev.labels.rel,
                                                   ev.options.ties, workers)  # type: ignore[arg-type]


def _global_auc(ev: Evaluation, se: ScoreEvaluation, score: np.ndarray) -> GroupValues:
    spec = MetricSpec("auc", None, METRICS["auc"])
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
        counts = se.auc_counts  # searched on a worker thread beside the ranking, if so
        u, wp, wn = counts if counts is not None else global_auc_by_search(score, rel, opts.ties)  # type: ignore[arg-type]
        value = u / (wp * wn) if wp > 0 and wn > 0 else math.nan
    elif opts.max_fpr is not None and both:
        from sklearn.metrics import roc_auc_score

        s = sklearn_scores(score, se.order, se.rank, plain=opts.ties == "expected" and opts.tiebreak is None)
        value = float(roc_auc_score(rel, s, sample_weight=sw, max_fpr=opts.max_fpr))
    else:
        u, wp, wn = global_auc(se.order, se.rank, rel, sw)
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


def global_xauc(ev: Evaluation, spec: MetricSpec, score: np.ndarray) -> GroupValues:
    """Global XAUC of one score column over every pair of rows: the exact count of
    :func:`~..kernels.xauc.xauc_sums` on the label levels (the labels' order) and the scores as
    stored; NaN when no pair of rows has different labels (and positive weight)."""
    opts = ev.options
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    num, den = xauc_sums(ev.labels.level, score, sw)
    value = float(num[0] / den[0]) if den[0] > 0 else math.nan
    cov = xauc_coverage(ev.labels.level.shape[0], float(den[0]), ev.prepared.n_dropped)
    ok = bool(den[0] > 0)
    return GroupValues(spec, np.array([value]), np.array([ok]), np.ones(1), value, cov)


def _group_metric(ev: Evaluation, se: ScoreEvaluation, spec: MetricSpec, score: np.ndarray) -> GroupValues:
    """One group metric of one ranked score column: its entry's kernel, eligibility and weights."""
    opts = ev.options
    rk = se.ranking
    table = se.table
    full = table if table is not None else rk  # every group's counts
    if full is None:
        raise internal_error("group metrics need a ranking")
    metric = spec.info
    kern = metric.kernel
    if kern is None:  # pragma: no cover - the registry gives every group metric a kernel
        raise internal_error(f"{spec.name} has no per-group kernel")
    k = spec.cutoff
    if k is not None and full.n_groups and k > int(full.n.max()):
        # a cutoff beyond the longest group cuts nothing: the same numbers, and no int64
        # overflow for k >= 2**63 (precision still divides by spec.k)
        k = int(full.n.max())
    weights = group_weights(ev, opts.weight_for(spec), full)
    # the group counts are the labels': each eligibility rule is worked out once per evaluation
    elig = ev.cache.get(("eligibility", metric.eligibility),
                        lambda: eligibility(metric.eligibility, full.n, full.npos, opts, wpos=full.wpos, wneg=full.wneg,
                                            ordered=xauc_label_pairs(ev) if metric.eligibility == "ordered" else None))

    def kernel() -> np.ndarray:
        """The metric's per-group values; over the kept groups only when some were skipped (the
        others, empty or not eligible, get NaN here and their rule's value below)."""
        if table is None:
            return kern.values(KernelInput(ev, se, rk, spec, k, elig.used, score))  # type: ignore[arg-type]
        if se.selection is not None and metric.cut.select is not None:
            return table.expand(metric.cut.select(se.selection, k), np.nan)
        if se.parts is None:
            raise internal_error("the kept groups have no ranking")
        used = ev.cache.get(("kept used", metric.eligibility), lambda: elig.used[table.kept])
        values = [
            kern.values(KernelInput(ev, se, prk, spec, k, used[part.lo : part.hi], score, part))
            for part, prk in se.parts
        ]
        return table.expand(np.concatenate(values), np.nan)

    n_rows, n_dropped = ev.prepared.n_rows, ev.prepared.n_dropped
    if metric.eligibility in ("pairs", "ordered"):
        return group_values_of(spec, kernel(), weights, elig, full, opts, n_rows=n_rows, n_dropped=n_dropped)
    # list metrics: one rule for every one of them, NDCG included. A row is relevant when
    # its label is > 0 (or >= threshold); a group is empty when it has no relevant row.
    with np.errstate(invalid="ignore", divide="ignore"):
        values = kernel()
        if kern.group_factor is not None:  # self-normalized IPS: sum(w v) / sum(w f)
            if table is not None:  # pragma: no cover - only metrics whose cut.skip_groups skip groups
                raise internal_error(f"{spec.name} reads every group; it cannot skip any")
            factor = kern.group_factor(KernelInput(ev, se, rk, spec, k, elig.used, score))  # type: ignore[arg-type]
            if factor is not None:
                values, weights = values / factor, weights * factor
    empty = elig.empty
    n_empty = ev.cache.get(("n_empty", metric.eligibility), lambda: int(empty.sum()))
    # kernel() expanded the kept groups' values into a new array: filled in place
    return group_values_of(spec, values, weights, elig, full, opts, n_rows=n_rows, n_dropped=n_dropped,
                           n_empty=n_empty, in_place=table is not None)


def group_values_of(
    spec: MetricSpec,
    values: np.ndarray,
    weights: np.ndarray,
    elig: Any,
    full: Any,
    opts: Any,
    *,
    n_rows: int,
    n_dropped: int,
    n_empty: int | None = None,
    in_place: bool = False,
) -> GroupValues:
    """A group metric's :class:`GroupValues` from its per-group ``values`` (NaN where not eligible
    for a pair metric), its group ``weights`` and its eligibility ``elig``
    (:func:`~pandas_rankeval.core.metrics.coverage.eligibility`); ``full`` has every group's
    ``n``, ``npos`` and ``n_groups``. A list metric's empty groups score by ``opts.empty`` (0, NaN
    or the error). The mean and the coverage are made on first read. One definition for the
    pandas pipeline and the warehouse engine (whose SQL computes the values)."""
    if spec.info.eligibility == "pairs":
        used = elig.used

        def finish_pairs() -> tuple[float, Coverage]:
            cov = _coverage(
                full,
                used,
                n_rows=n_rows,
                n_dropped=n_dropped,
                only_pos=int(elig.only_pos.sum()),
                only_neg=int(elig.only_neg.sum()),
                filtered=int(elig.filtered.sum()),
                zero_weight=int(elig.zero_weight.sum()),
                filtered_mask=elig.filtered,
            )
            return _mean(values, weights, used), cov

        return GroupValues(spec, values, used, weights, finish=finish_pairs)
    empty = elig.empty
    if n_empty is None:
        n_empty = int(empty.sum())
    if n_empty and opts.empty == "error":
        raise empty_error(spec.name, n_empty, full.n_groups)
    used = elig.used
    if n_empty:
        fill = np.nan if opts.empty == "skip" else 0.0
        if in_place:
            np.copyto(values, fill, where=empty)
        else:
            values = np.where(empty, fill, values)

    def finish_list() -> tuple[float, Coverage]:
        cov = _coverage(full, used, n_rows=n_rows, n_dropped=n_dropped, empty=n_empty)
        return _mean(values, weights, used), cov

    return GroupValues(spec, values, used, weights, finish=finish_list)


def row_groups(ev: Evaluation) -> np.ndarray:
    """Per row, the index of its group in the per-group arrays (ascending code), counted once per
    evaluation with the per-group counts (:attr:`~.evaluation.Evaluation.row_groups`)."""
    return ev.row_groups


def _bits(x: int) -> int:
    return max(int(x).bit_length(), 1)


def canonical_order(gi: np.ndarray, n_groups: int, p: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The rows sorted by (group, p, y, w): the order every engine adds a group's rows in.

    (p, y) is one int64 (a probability's float bits, which order like the floats for p >= 0,
    and the click bit); its dense rank, the group and the row number are packed into one int64
    and sorted by value (a SIMD sort, as the ranking's), falling back to a lexsort beyond 63 bits
    or with sample weights.
    """
    key = ((p + 0.0).view(np.int64) << 1) | y.astype(np.int64)  # + 0.0: -0.0 is 0.0
    n = key.shape[0]
    if w is not None or n < 2:
        return np.lexsort([k for k in (w, key, gi) if k is not None])
    by_key = np.argsort(key)
    ks = key[by_key]
    rank = np.empty(n, dtype=np.int64)
    rank[by_key[0]] = 0
    rank[by_key[1:]] = np.cumsum(ks[1:] != ks[:-1])
    gb, rb, ib = _bits(n_groups - 1), _bits(int(rank.max())), _bits(n - 1)
    if gb + rb + ib > 63:
        return np.lexsort((key, gi))
    packed = gi.astype(np.int64)
    packed <<= rb
    packed |= rank
    return pack_and_sort(packed, ib)


def _calibration_metric(ev: Evaluation, se: ScoreEvaluation, spec: MetricSpec, score: np.ndarray) -> list[GroupValues]:
    """A calibration metric of one score column: its value (pooled rows) and per-group values,
    then one GroupValues per extra component of its summary (``ne#1``, ``ece@10#1``...)."""
    from ..kernels.calibration import RowInput

    metric = spec.info
    if metric.pooled is None:  # pragma: no cover - the caller checks
        raise internal_error(f"{spec.name} has no row sums")
    gi = row_groups(ev)
    n = np.asarray(ev.group_stats["n"])
    opts = ev.options
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    p = np.asarray(score, dtype=np.float64)
    y = ev.labels.rel
    # every per-group sum adds its rows in one canonical order, (group, p, y, w), so that another row
    # order or partitioning (Dask, Spark) gives the same sums to the last bit, and the same p-values
    order = se.calibration_order
    if order is None:
        order = se.calibration_order = canonical_order(gi, int(n.shape[0]), p, y, sw)
    x = RowInput(gi[order], int(n.shape[0]), p[order], y[order], None if sw is None else sw[order], spec.k)
    rs = metric.pooled.rows(x)
    return calibration_values_of(spec, rs.num, rs.den, rs.values, n_rows=ev.prepared.n_rows,
                                 n_dropped=ev.prepared.n_dropped)


def calibration_values_of(spec: MetricSpec, num: np.ndarray, den: np.ndarray, own: np.ndarray, *,
                          n_rows: int, n_dropped: int) -> list[GroupValues]:
    """A calibration metric's GroupValues from its components' per-group sums ``num`` / ``den``
    (components x groups) and each group's own value ``own``: the pooled value, then one
    GroupValues per extra component (``ne#1``, ``ece@10#1``...). One definition for the pandas
    pipeline and the warehouse engine (whose SQL sums the rows)."""
    pooled = spec.info.pooled
    if pooled is None:  # pragma: no cover - the caller checks
        raise internal_error(f"{spec.name} has no row sums")
    totals = np.stack([num.sum(axis=1), den.sum(axis=1)], axis=-1)  # (parts, 2)
    if pooled.combine is None:
        value = float(totals[0, 0] / totals[0, 1]) if totals[0, 1] > 0 else math.nan
    else:
        value = float(pooled.combine(totals))
    n_groups = int(num.shape[1])
    used = np.ones(n_groups, dtype=bool)
    cov = Coverage(
        n_rows=n_rows, n_groups=n_groups, n_used=n_groups, n_only_pos=0, n_only_neg=0,
        n_filtered=0, n_empty=0, rows_skipped_share=0.0, positives_skipped_share=0.0,
        n_dropped=n_dropped,
    )
    out = [GroupValues(spec, own, used, den[0], value, cov, numer=num[0])]
    for i in range(1, num.shape[0]):
        with np.errstate(invalid="ignore", divide="ignore"):
            part = np.where(den[i] > 0, num[i] / np.where(den[i] > 0, den[i], 1.0), np.nan)
        out.append(GroupValues(spec, part, used, den[i], math.nan, cov, numer=num[i]))
    return out
