"""Replicate sums -> the per-segment numbers the tables take from them (stage 6).

The replicate fields of a summary (``boot``, ``flip_reps``, ``boot_gram``: segments x replicates
x ...) are most of its size: 2,000 segments x 1,000 replicates x 6 items x 2 sums is 192 MB. Every
number the tables take from them belongs to one segment and one target (an item of ``report``, a
paired difference of ``compare``):

- ``rep_lo``, ``rep_hi``: the interval (percentile, or bootstrap-t with ``ci_method="studentized"``);
- ``rep_fell``: the bootstrap-t interval fell back to the percentile one (a replicate's standard
  error is 0 up to rounding);
- ``rep_pboot`` (compare): the paired-bootstrap p-value of the difference;
- ``rep_prand`` (compare, ``method="randomization"``): the hashed sign-flip p-value;
- ``rep_llo``, ``rep_lhi`` (compare, ``lift="relaimpr"``): the percentile interval of the lift
  (RelaImpr, or the relative difference), the lift computed on each replicate.

:func:`replicate_results` computes them for every segment at once (a few array operations over
segments x replicates); :func:`reduce_replicates` puts them in a summary in place of the replicate
fields. An engine whose task holds whole segments' sums (Dask: one shard of segments per task)
reduces there and moves only these numbers; the tables read them with :func:`replicate_results`,
whichever way the summary came, so there is one definition of every interval and p-value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.metrics.relaimpr import has_relaimpr, lift_values
from ..inference.bootstrap import bootstrap_pvalues, percentile_interval
from ..inference.studentized import replicate_se, studentized_fallback, studentized_interval
from .finalize import _ratio, item_bounds, item_values
from .plan import COUNTER_INDEX, Plan
from .summary import REPLICATE_FIELDS, RESULT_FIELDS, Summary, by_name

__all__ = ["MAX_SHARDS", "MIN_UNITS", "few_units", "pooled_units", "RESULT_CHUNK_ROWS", "RESULT_FIELDS", "flip_pvalues", "reduce_replicates", "reduce_shard", "replicate_results", "shard_count"]

#: Most shards of segments an engine cuts its partitions' summaries into (tasks: partitions x shards).
MAX_SHARDS = 16

#: Rows of (segment, replicate, target) whose standard errors are computed at once (bounded memory).
RESULT_CHUNK_ROWS = 1 << 18


def flip_pvalues(obs: np.ndarray, abs_sum: np.ndarray, reps: np.ndarray, n_flips: int) -> np.ndarray:
    """Randomization p-values from the hashed sign flips: T* = T - 2 sum_{b=1} w d.

    ``obs``, ``abs_sum``: one per test; ``reps``: (flips x tests).

    >>> flip_pvalues(np.array([2.0]), np.array([2.0]), np.array([[0.0], [2.0], [1.0]]), 3)
    array([0.75])
    """
    t = np.abs(obs)
    tol = 1e-10 * abs_sum
    t_star = obs[None, :] - 2.0 * reps
    hits = (np.abs(t_star) >= t - tol).sum(axis=0)
    return (1.0 + hits) / (1.0 + n_flips)


#: Fewest resampled groups an interval or a bootstrap p-value needs: with one, every replicate of
#: the bootstrap over groups repeats the estimate (an interval of width 0, p = 1 / (B + 1)).
MIN_UNITS = 2


def _units(data: Any, plan: Plan, jm: np.ndarray) -> np.ndarray:
    """The groups behind each (segment, target): the groups a report's metric uses (items ``jm``),
    or those both models of a compare pair use."""
    if plan.kind == "compare":
        return np.asarray(data["pair_used"])
    return np.asarray(data["counts"])[:, jm, COUNTER_INDEX["n_used"]]


def pooled_units(data: Any, plan: Plan) -> np.ndarray:
    """The units the bootstrap of a number over all rows (global AUC, XAUC) resamples, per
    segment: the groups, or the rows without a group column."""
    return np.asarray(data["n_groups"] if plan.group else data["n_rows"])


def few_units(data: Any, plan: Plan, items: np.ndarray) -> np.ndarray:
    """Per (segment, target), whether the target uses fewer than :data:`MIN_UNITS` groups (a
    report's item of ``items``, a comparison's pair): no interval nor bootstrap p-value there."""
    return _units(data, plan, items) < MIN_UNITS


def _target_items(plan: Plan) -> tuple[np.ndarray, np.ndarray | None]:
    """The items behind each target: (item,) per item (report), (model item, baseline item) per
    group-metric pair in the order of ``flip_pairs`` (compare)."""
    if plan.kind != "compare":
        return np.arange(len(plan.items), dtype=np.int64), None
    col = {item: j for j, item in enumerate(plan.items)}
    jm = np.array([col[(m, n)] for m, _, n in plan.flip_pairs], dtype=np.int64)
    jb = np.array([col[(b, n)] for _, b, n in plan.flip_pairs], dtype=np.int64)
    return jm, jb


def _standard_errors(
    data: dict[str, Any], jm: np.ndarray, jb: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Delta-method standard errors of every (segment, target) statistic and of its replicates:
    (S, T) and (S, B, T), computed over segments in chunks of :data:`RESULT_CHUNK_ROWS` rows."""
    sums, boot, gram, boot_gram = data["sums"], data["boot"], data["gram"], data["boot_gram"]
    n_seg, n_boot = boot.shape[0], boot.shape[1]
    js = jm[:, None] if jb is None else np.stack([jm, jb], axis=1)  # (T, k)
    signs = np.array([1.0] if jb is None else [1.0, -1.0])
    n_t, k = js.shape
    q = gram.shape[-1]
    se0 = replicate_se(
        _ratio(sums[:, js, 0], sums[:, js, 1]).reshape(-1, k), signs, sums[:, js, 1].reshape(-1, k),
        gram.reshape(-1, q),
    ).reshape(n_seg, n_t)
    se_r = np.empty((n_seg, n_boot, n_t))
    step = max(1, RESULT_CHUNK_ROWS // max(1, n_boot * n_t))
    for a in range(0, n_seg, step):  # chunks of segments, not one segment at a time
        b = boot[a : a + step][:, :, js]  # (s, B, T, k, 2)
        se_r[a : a + step] = replicate_se(
            _ratio(b[..., 0], b[..., 1]).reshape(-1, k), signs, b[..., 1].reshape(-1, k),
            boot_gram[a : a + step].reshape(-1, q),
        ).reshape(-1, n_boot, n_t)
    return se0, se_r


def replicate_results(summary: Summary, plan: Plan) -> dict[str, np.ndarray | None] | None:
    """The per-segment intervals and p-values of the plan's targets (the module's fields), as
    (segments x targets) arrays in the order of ``summary.keys``; None without replicate sums.

    A summary reduced by :func:`reduce_replicates` carries them; otherwise they are computed
    from its replicate fields, over every segment at once.
    """
    data = by_name(summary.data)
    if data.get("rep_lo") is not None:
        return {f: data.get(f) for f in RESULT_FIELDS}
    if data.get("boot") is None or plan.kind == "metric":
        return None
    return _compute(data, plan)


def _compute(data: dict[str, Any], plan: Plan) -> dict[str, np.ndarray | None]:
    """:func:`_compute_block` over chunks of segments (every field's first axis is the segment):
    the temporaries of a chunk (segments x replicates x targets) stay small, and each segment's
    numbers are its own, so the chunks only change the memory, never a number."""
    n_seg, n_boot, n_items = data["boot"].shape[:3]
    step = max(1, RESULT_CHUNK_ROWS // max(1, n_boot * max(n_items, 1)))
    if n_seg <= step:
        return _compute_block(data, plan)
    parts = [
        _compute_block({k: (None if v is None else v[a : a + step]) for k, v in data.items()}, plan)
        for a in range(0, n_seg, step)  # chunks of segments, not one segment at a time
    ]
    return {f: (None if parts[0][f] is None else np.concatenate([p[f] for p in parts])) for f in RESULT_FIELDS}


def _compute_block(data: dict[str, Any], plan: Plan) -> dict[str, np.ndarray | None]:
    sums, boot = data["sums"], data["boot"]  # (S, items, 2), (S, B, items, 2)
    n_seg, n_boot = boot.shape[0], boot.shape[1]
    ci = 0.95 if plan.ci is None else float(plan.ci)
    jm, jb = _target_items(plan)
    n_t = jm.shape[0]
    point = item_values(plan, sums)  # (S, items)
    reps = item_values(plan, boot)  # (S, B, items)
    bounds = item_bounds(plan, jm, jb)  # (T,) each
    if jb is None:  # every item is a target: no copy
        stat, stat_reps = point, reps
    else:  # the difference model - baseline, per pair
        stat, stat_reps = point[:, jm] - point[:, jb], reps[:, :, jm] - reps[:, :, jb]
    flat = np.moveaxis(stat_reps, 1, 0)  # (B, S, T): a view; the quantiles run along the replicates
    out: dict[str, np.ndarray | None] = dict.fromkeys(RESULT_FIELDS)
    if not stat.size:
        empty = np.zeros((n_seg, n_t))
        out.update(rep_lo=empty, rep_hi=empty.copy(), rep_fell=np.zeros((n_seg, n_t), dtype=bool))
        if plan.kind == "compare":
            out["rep_pboot"] = empty.copy()
            if plan.lift == "relaimpr":
                out["rep_llo"], out["rep_lhi"] = empty.copy(), empty.copy()
            if plan.monte_carlo and data.get("flip_reps") is not None:
                out["rep_prand"] = empty.copy()
        return out
    fell = np.zeros((n_seg, n_t), dtype=bool)
    if plan.ci_method == "studentized" and data.get("boot_gram") is not None:
        # studentized_interval works on (B, columns): the (segment, target) columns flattened
        se0, se_r = _standard_errors(data, jm, jb)
        cols = flat.reshape(n_boot, n_seg * n_t)
        se_cols = np.moveaxis(se_r, 1, 0).reshape(n_boot, n_seg * n_t)
        flat_bounds = (np.tile(bounds[0], n_seg), np.tile(bounds[1], n_seg))  # (segment, target) flattened
        lo, hi = studentized_interval(stat.reshape(-1), se0.reshape(-1), cols, se_cols, ci, bounds=flat_bounds)
        fell = (studentized_fallback(se0.reshape(-1), cols, se_cols) & np.isfinite(stat.reshape(-1))).reshape(n_seg, n_t)
    else:
        lo, hi = percentile_interval(flat, ci, bounds=bounds)
    # one group (or none) is no sample of groups: every replicate repeats it, so no interval and
    # no bootstrap p-value there (the sign-flip test's p-value of one group is 1, kept)
    few = few_units(data, plan, jm)
    out["rep_lo"] = np.where(few, np.nan, lo.reshape(n_seg, n_t))
    out["rep_hi"] = np.where(few, np.nan, hi.reshape(n_seg, n_t))
    out["rep_fell"] = fell & ~few
    if plan.kind == "compare":
        out["rep_pboot"] = np.where(few, np.nan, bootstrap_pvalues(stat, flat, point[:, jm], point[:, jb]).reshape(n_seg, n_t))
        if plan.lift == "relaimpr":
            kinds = np.array([has_relaimpr(n) for _, _, n in plan.flip_pairs], dtype=bool)
            lift_reps = lift_values(reps[:, :, jm], reps[:, :, jb], kinds)  # (S, B, T)
            llo, lhi = percentile_interval(np.moveaxis(lift_reps, 1, 0), ci)
            # a replicate whose baseline is at most 0.5 has no RelaImpr: no interval then
            crossed = (kinds & np.any(reps[:, :, jb] <= 0.5, axis=1)) | few
            out["rep_llo"] = np.where(crossed, np.nan, llo.reshape(n_seg, n_t))
            out["rep_lhi"] = np.where(crossed, np.nan, lhi.reshape(n_seg, n_t))
        if plan.monte_carlo and data.get("flip_reps") is not None:
            fr = data["flip_reps"]  # (S, B, pairs)
            out["rep_prand"] = flip_pvalues(
                data["flip_obs"].reshape(-1), data["flip_abs"].reshape(-1),
                np.moveaxis(fr, 1, 0).reshape(fr.shape[1], -1), plan.n_boot,
            ).reshape(n_seg, n_t)
    return out


def reduce_replicates(summary: Summary, plan: Plan) -> Summary:
    """The summary with its replicate fields replaced by :func:`replicate_results`.

    Only for a summary that holds the whole table's sums of each of its segments (the results
    of a segment cannot be added to another part of the same segment: such summaries refuse
    to add). The whole-table counts and every other field stay as they are.
    """
    results = replicate_results(summary, plan)
    if results is None:
        return summary
    data = {k: (None if k in REPLICATE_FIELDS else v) for k, v in by_name(summary.data).items()}
    data.update(results)
    return Summary(
        None, summary.missing, summary.n_dropped, summary.n_rows, summary.shape, summary.problems,
        keys=summary.keys, data=data, dropped_by=summary.dropped_by,
    )


def shard_count(plan: Plan, n_parts: int) -> int:
    """Shards of segments an engine of ``n_parts`` partitions reduces its replicate sums in: with
    ``by=`` and replicate sums (intervals, ``compare``), one per partition up to
    :data:`MAX_SHARDS`; else 1 (the partitions' summaries are added as they are)."""
    if plan.by and plan.n_replicates and plan.kind != "metric" and n_parts > 1:
        return min(n_parts, MAX_SHARDS)
    return 1


def reduce_shard(parts: list[Summary], plan: Plan) -> Summary:
    """One shard of segments: its pieces from every partition added (its segments are then
    whole) and their replicate sums reduced to the intervals and p-values the tables take."""
    return reduce_replicates(Summary.sum(parts), plan)
